//! The client's table of held queues (Java's `processQueueTable` of `ProcessQueue`s), and the
//! part of it that consume threads read without waiting for a round.
//!
//! A round holds `&mut Rebalancer` for as long as its callbacks take (a `try_consume_lock` may wait
//! 500 ms). Consume threads must not wait for that: they ask "may I consume this queue?" before
//! every listener call. So the per-queue facts they need (generation, dropped, locked, last lock
//! renewal, last pull) live in atomics behind an `Arc` shared by the table and a [`ConsumeView`].
//! The view's map is locked only to insert or remove an entry, never across a callback.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};

use super::report::ReleaseReason;
use crate::queue::MessageQueue;

/// One held queue, as a snapshot. A state is never reused: a queue released and taken again gets a
/// new `generation`, so a late callback for the old one (a pull, an unlock) is recognisable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueState {
    pub generation: u64,
    /// Marked for release; nothing may be consumed from it any more.
    pub dropped: bool,
    /// Orderly (locking) consumers only: holds the broker's lock as of the last lock or renewal.
    /// `None` for consumers that do not lock (concurrent, pull, broadcasting).
    pub locked: Option<bool>,
    pub last_lock_ms: u64,
    pub last_pull_ms: u64,
    /// Releases deferred because the queue was still being consumed.
    pub try_unlock_times: u32,
    /// When the first deferred attempt to release it happened (`None`: no release pending).
    pub deferred_since_ms: Option<u64>,
}

impl QueueState {
    /// A state with every field set, for the tests of the bindings' readers (see
    /// [`RoundReport::example`](super::RoundReport::example)).
    #[doc(hidden)]
    pub fn example() -> Self {
        QueueState { generation: 1, dropped: true, locked: Some(true), last_lock_ms: 2, last_pull_ms: 3, try_unlock_times: 4, deferred_since_ms: Some(5) }
    }
}

/// The facts a consume thread reads, shared between the table and the [`ConsumeView`].
#[derive(Debug)]
pub(crate) struct QueueFlags {
    pub(crate) generation: u64,
    dropped: AtomicBool,
    locked: AtomicBool,
    last_lock_ms: AtomicU64,
    last_pull_ms: AtomicU64,
}

impl QueueFlags {
    pub(crate) fn dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }
    pub(crate) fn set_dropped(&self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
    pub(crate) fn locked(&self) -> bool {
        self.locked.load(Ordering::SeqCst)
    }
    pub(crate) fn set_locked(&self, locked: bool, now_ms: Option<u64>) {
        self.locked.store(locked, Ordering::SeqCst);
        if let Some(now) = now_ms {
            self.last_lock_ms.store(now, Ordering::SeqCst);
        }
    }
    pub(crate) fn last_lock_ms(&self) -> u64 {
        self.last_lock_ms.load(Ordering::SeqCst)
    }
    pub(crate) fn last_pull_ms(&self) -> u64 {
        self.last_pull_ms.load(Ordering::SeqCst)
    }
}

/// One entry of the table: the shared flags plus what only the round touches.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) flags: Arc<QueueFlags>,
    pub(crate) try_unlock_times: u32,
    pub(crate) deferred_since_ms: Option<u64>,
    /// Why the state was dropped (kept so a retried release reports the original reason).
    pub(crate) drop_reason: Option<ReleaseReason>,
}

impl Entry {
    pub(crate) fn generation(&self) -> u64 {
        self.flags.generation
    }
    pub(crate) fn dropped(&self) -> bool {
        self.flags.dropped()
    }
}

/// The table of held queues. Every insert and removal is mirrored into the [`ConsumeView`].
#[derive(Debug)]
pub(crate) struct Table {
    entries: BTreeMap<MessageQueue, Entry>,
    view: ConsumeView,
}

impl Table {
    pub(crate) fn new(locks_queues: bool, lock_valid_ms: u64) -> Self {
        let view = ConsumeView { inner: Arc::new(ViewInner { map: RwLock::new(HashMap::new()), locks_queues, lock_valid_ms }) };
        Table { entries: BTreeMap::new(), view }
    }

    pub(crate) fn view(&self) -> &ConsumeView {
        &self.view
    }

    /// A new state. Java creates a ProcessQueue "locked" with both timestamps at creation (#2621).
    pub(crate) fn insert(&mut self, queue: MessageQueue, generation: u64, now_ms: u64) {
        let flags = Arc::new(QueueFlags {
            generation,
            dropped: AtomicBool::new(false),
            locked: AtomicBool::new(true),
            last_lock_ms: AtomicU64::new(now_ms),
            last_pull_ms: AtomicU64::new(now_ms),
        });
        self.view.write().insert(queue.clone(), Arc::clone(&flags));
        self.entries.insert(queue, Entry { flags, try_unlock_times: 0, deferred_since_ms: None, drop_reason: None });
    }

    pub(crate) fn remove(&mut self, queue: &MessageQueue) -> Option<Entry> {
        let entry = self.entries.remove(queue)?;
        let mut map = self.view.write();
        // Only the same state: the view never loses a newer generation to a late removal.
        if map.get(queue).is_some_and(|f| Arc::ptr_eq(f, &entry.flags)) {
            map.remove(queue);
        }
        Some(entry)
    }

    pub(crate) fn get(&self, queue: &MessageQueue) -> Option<&Entry> {
        self.entries.get(queue)
    }

    pub(crate) fn get_mut(&mut self, queue: &MessageQueue) -> Option<&mut Entry> {
        self.entries.get_mut(queue)
    }

    pub(crate) fn contains(&self, queue: &MessageQueue) -> bool {
        self.entries.contains_key(queue)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&MessageQueue, &Entry)> {
        self.entries.iter()
    }

    pub(crate) fn queues(&self) -> impl Iterator<Item = &MessageQueue> {
        self.entries.keys()
    }

    /// The snapshot of one entry.
    pub(crate) fn snapshot(&self, entry: &Entry) -> QueueState {
        let f = &entry.flags;
        QueueState {
            generation: f.generation,
            dropped: f.dropped(),
            locked: self.view.inner.locks_queues.then(|| f.locked()),
            last_lock_ms: f.last_lock_ms(),
            last_pull_ms: f.last_pull_ms(),
            try_unlock_times: entry.try_unlock_times,
            deferred_since_ms: entry.deferred_since_ms,
        }
    }
}

#[derive(Debug)]
struct ViewInner {
    map: RwLock<HashMap<MessageQueue, Arc<QueueFlags>>>,
    locks_queues: bool,
    lock_valid_ms: u64,
}

/// What the consume service asks from its own threads, without waiting for a running round.
/// Cheap to clone; every clone sees the same rebalancer. Get one from
/// [`Rebalancer::consume_view`](super::Rebalancer::consume_view).
///
/// The protocol for an orderly listener call: take the queue's consume lock (the one
/// `Host::try_consume_lock` tries), then ask [`ConsumeView::is_consumable`] under it, run the
/// listener, update the cached offset, release the consume lock. The engine marks a state dropped
/// before it tries the consume lock and unlocks the broker only while holding it, so a listener
/// call that passed the check always ends before the unlock.
#[derive(Clone, Debug)]
pub struct ConsumeView {
    inner: Arc<ViewInner>,
}

impl ConsumeView {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<MessageQueue, Arc<QueueFlags>>> {
        // Poisoning needs a panic while the map is locked for an insert or removal, which cannot
        // leave it half-changed: the map is still consistent.
        self.inner.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<MessageQueue, Arc<QueueFlags>>> {
        self.inner.map.write().unwrap_or_else(|e| e.into_inner())
    }

    fn flags(&self, queue: &MessageQueue, generation: u64) -> Option<Arc<QueueFlags>> {
        self.read().get(queue).filter(|f| f.generation == generation).cloned()
    }

    /// Whether the consume service may consume `queue` for state `generation` now: the state is
    /// current and not dropped, and for orderly queues the lock was renewed within
    /// `lock_valid_ms`.
    pub fn is_consumable(&self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        self.consumable_until(queue, generation).is_some_and(|until| now_ms <= until)
    }

    /// Until when (ms, inclusive) [`is_consumable`](Self::is_consumable) stays true for state
    /// `generation` if nothing else changes: the lock's renewal time plus `lock_valid_ms` for
    /// orderly queues, `u64::MAX` for the others; `None` when it is false at any time (no such
    /// state, dropped, or not locked). A consume service may keep the answer and ask again only
    /// once that time has passed, provided it also stops at [`Host::stop_pull`](super::Host::stop_pull),
    /// which the engine calls before it tries the consume lock of a state it drops. Only safe
    /// semantics drop every state whose lock is refused; under Java's, a refused renewal leaves the
    /// state undropped and unlocked, and only this call or `is_consumable` sees it.
    pub fn consumable_until(&self, queue: &MessageQueue, generation: u64) -> Option<u64> {
        let f = self.flags(queue, generation)?;
        if f.dropped() {
            return None;
        }
        if !self.inner.locks_queues {
            return Some(u64::MAX);
        }
        f.locked().then(|| f.last_lock_ms().saturating_add(self.inner.lock_valid_ms))
    }

    /// Records a pull of `queue` (state `generation`), which keeps a push queue from expiring.
    /// Returns false for a stale generation: that pull belongs to a released state.
    pub fn record_pull(&self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        match self.flags(queue, generation) {
            Some(f) => {
                f.last_pull_ms.fetch_max(now_ms, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// The generation of the state held for `queue`, if any (dropped states included).
    pub fn generation(&self, queue: &MessageQueue) -> Option<u64> {
        self.read().get(queue).map(|f| f.generation)
    }
}
