//! The rebalance round of `RebalanceImpl`, as an I/O-free engine driven through a [`Host`].
//!
//! A [`Rebalancer`] is one client's view: its configuration, its strategy, its subscriptions and
//! its table of held queues. Each call takes `now` (milliseconds) and a host, performs the round's
//! decisions through the host's callbacks, and returns a report of what happened.
//!
//! Two [`Semantics`]. `Java` makes RocketMQ 5.3.x's decisions, flaws included. `Safe` (the
//! default) makes the same decisions, and fixes the places where Java breaks its own invariants:
//!
//! 1. A broker lock taken while acquiring a queue is released when its start offset cannot be
//!    computed (Java keeps it until the broker expires it, 60 s).
//! 2. An orderly queue is never unlocked while its consume callback is still running (Java forces
//!    the unlock 20 s after the last renewal, and a second client starts consuming).
//! 3. Releasing an orderly queue whose offset cannot be committed is deferred, lock kept, and
//!    retried (Java unlocks anyway, and the next owner replays from the older offset).
//! 4. Clean-up of unsubscribed topics commits offsets and unlocks (Java drops the queues only).
//! 5. Shutdown commits offsets before unlocking, and unlocks dropped queues too (Java unlocks
//!    first, so the next owner can start from the older offset; its dropped queues stay locked).
//! 6. A dropped queue assigned to us again is released and re-acquired with a new generation
//!    (Java leaves the dead state in its table until the pull expires, 120 s).
//! 7. When this client's own id is listed twice (two processes, one id), it takes no orderly queue
//!    of the topic: the broker cannot tell the two apart, so both would consume.
//! 8. No "empty" queue-set notification when a route is unknown: nothing was released.
//! 9. Lock renewal (`lock_all`) includes queues whose release is deferred, so a listener call
//!    still running keeps its broker lock (Java stops renewing them and the broker's lock
//!    expires under the running call after 60 s).
//! 10. An orderly release whose unlock fails stays deferred and retries the unlock next round
//!     (Java's unlock is one-way: when it is lost, the next owner waits for the broker's 60 s
//!     expiry).
//!
//! Both modes report duplicate and missing client ids, iterate queues in sorted order (Java
//! iterates hash maps) and key every queue state by a generation ([`QueueState`]).

mod acquire;
mod config;
mod host;
mod joint;
mod locks;
mod release;
mod report;
mod round;
mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use config::{ConsumeFromWhere, ConsumeType, MessageModel, RebalanceConfig, Semantics, Timing};
pub use host::{Host, HostError, OffsetRead, ReadFrom};
pub use report::{Acquired, DeferReason, Deferred, LockReport, ReleaseReason, Released, RoundReport, RoundSkipped, SkipReason, Skipped, Warning};
pub use round::TopicView;
pub use state::QueueState;

use crate::error::Result;
use crate::queue::MessageQueue;
use crate::strategy::Strategy;

/// `%RETRY%<group>` topics start from 0 (LAST) or max (TIMESTAMP) and get no "route unknown"
/// notification.
pub const RETRY_TOPIC_PREFIX: &str = "%RETRY%";

/// One client's rebalancing state. Not thread-safe by itself (`&mut self`): a client runs its
/// rounds on one thread, as `RebalanceService` does; wrap it in a mutex to share it.
#[derive(Debug)]
pub struct Rebalancer {
    config: RebalanceConfig,
    strategy: Arc<dyn Strategy>,
    subscriptions: BTreeSet<String>,
    table: BTreeMap<MessageQueue, QueueState>,
    next_generation: u64,
}

impl Rebalancer {
    pub fn new(config: RebalanceConfig, strategy: Arc<dyn Strategy>) -> Result<Self> {
        config.validate()?;
        Ok(Rebalancer { config, strategy, subscriptions: BTreeSet::new(), table: BTreeMap::new(), next_generation: 1 })
    }

    pub fn config(&self) -> &RebalanceConfig {
        &self.config
    }

    pub fn strategy(&self) -> &Arc<dyn Strategy> {
        &self.strategy
    }

    pub fn subscribe(&mut self, topic: impl Into<String>) {
        self.subscriptions.insert(topic.into());
    }

    /// The topic's queues are released at the next [`Rebalancer::rebalance_all`].
    pub fn unsubscribe(&mut self, topic: &str) {
        self.subscriptions.remove(topic);
    }

    pub fn subscriptions(&self) -> impl Iterator<Item = &str> {
        self.subscriptions.iter().map(String::as_str)
    }

    /// Every held queue (dropped ones included, until their release completes), in Java order.
    pub fn held(&self) -> impl Iterator<Item = (&MessageQueue, &QueueState)> {
        self.table.iter()
    }

    pub fn state(&self, queue: &MessageQueue) -> Option<&QueueState> {
        self.table.get(queue)
    }

    /// Whether the consume service may consume `queue` for state `generation` now: the state is
    /// current and not dropped, and for orderly queues the lock was renewed within
    /// `lock_valid_ms`.
    pub fn is_consumable(&self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        match self.table.get(queue) {
            Some(s) if s.generation == generation && !s.dropped => {
                !self.config.locks_queues() || (s.locked && now_ms.saturating_sub(s.last_lock_ms) <= self.config.timing.lock_valid_ms)
            }
            _ => false,
        }
    }

    /// Records a pull of `queue` (state `generation`), which keeps a push queue from expiring.
    /// Returns false for a stale generation: that pull belongs to a released state.
    pub fn record_pull(&mut self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        match self.table.get_mut(queue) {
            Some(s) if s.generation == generation => {
                s.last_pull_ms = now_ms;
                true
            }
            _ => false,
        }
    }

    fn safe(&self) -> bool {
        self.config.semantics == Semantics::Safe
    }
}

#[cfg(test)]
mod tests;
