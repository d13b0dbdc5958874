//! The queues grouped by topic, topics in serving order, each topic's queues in hash order: the
//! input both passes work on, kept in flat arrays (one allocation per array, not per topic), as
//! groups of 100,000 one-queue topics would otherwise spend their time allocating.

use hashbrown::HashTable;
use std::hash::BuildHasher;
use std::ops::Index;

use super::hash::{hash64, Fnv};
use super::spread_sort::sort_by_spread_key;
use crate::queue::MessageQueue;

/// Consecutive runs of one flat vector, by index.
pub(super) struct Spans<T> {
    items: Vec<T>,
    /// `items[ends[i - 1]..ends[i]]` is span `i`.
    ends: Vec<usize>,
}

impl<T> Spans<T> {
    pub(super) fn with_capacity(items: usize, spans: usize) -> Self {
        Spans { items: Vec::with_capacity(items), ends: Vec::with_capacity(spans) }
    }

    /// Ends the current span (everything pushed since the last end).
    pub(super) fn end_span(&mut self) {
        self.ends.push(self.items.len());
    }

    pub(super) fn push(&mut self, item: T) {
        self.items.push(item);
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn all(&self) -> &[T] {
        &self.items
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[T]> {
        (0..self.len()).map(|i| &self[i])
    }
}

impl<T> Index<usize> for Spans<T> {
    type Output = [T];

    fn index(&self, i: usize) -> &[T] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.items[start..self.ends[i]]
    }
}

/// `queues[t]`: topic `t`'s distinct queues as `(key hash, position in mq_all)`, in hash order
/// (ties by broker, id, position); topics in order of (name hash, name), the same order for
/// every client. A queue listed twice is one queue (its copies are adjacent after that sort)
/// and gets one owner: `copy_of` lists `(copy, kept)` positions.
pub(super) struct Topics {
    pub(super) queues: Spans<(u64, usize)>,
    /// Each topic's name hash.
    pub(super) hashes: Vec<u64>,
    pub(super) copy_of: Vec<(usize, usize)>,
}

impl Topics {
    pub(super) fn new(mq_all: &[MessageQueue]) -> Self {
        let (names, keyed) = hash_keys(mq_all);
        // Serving order, (name hash, name), then each topic's first slot in it. Sorted as (hash,
        // topic number), 16 bytes an item, the names read only on a tie of hashes (a topic's
        // number is its name's: no two names tie on both).
        let mut order: Vec<(u64, usize)> = names.iter().enumerate().map(|(t, name)| (hash64(&[name.as_bytes()]), t)).collect();
        sort_by_spread_key(&mut order, |o| o.0, |a, b| a.0.cmp(&b.0).then_with(|| names[a.1].cmp(names[b.1])));
        let mut count = vec![0usize; names.len()];
        for &(t, _) in &keyed {
            count[t as usize] += 1;
        }
        let mut slot = vec![0usize; names.len()];
        let mut at = 0;
        for &(_, t) in &order {
            slot[t] = at;
            at += count[t];
        }
        let mut flat = vec![(0u64, 0usize); mq_all.len()];
        for (i, &(t, h)) in keyed.iter().enumerate() {
            flat[slot[t as usize]] = (h, i);
            slot[t as usize] += 1;
        }
        // Each topic sorted and its copies dropped, compacted in place.
        let mut queues = Spans { items: flat, ends: Vec::with_capacity(order.len()) };
        let (mut read, mut write) = (0, 0);
        let mut copy_of = Vec::new();
        for &(_, t) in &order {
            let span = &mut queues.items[read..read + count[t]];
            read += count[t];
            // The hash decides nearly every comparison; the queue itself is read only on a tie
            // (the position last makes the order total, so an unstable sort is deterministic).
            sort_by_spread_key(
                span,
                |q| q.0,
                |a, b| {
                    a.0.cmp(&b.0)
                        .then_with(|| (&mq_all[a.1].broker_name, mq_all[a.1].queue_id, a.1).cmp(&(&mq_all[b.1].broker_name, mq_all[b.1].queue_id, b.1)))
                },
            );
            let first = write;
            for i in read - count[t]..read {
                let q = queues.items[i];
                if write > first {
                    let kept = queues.items[write - 1];
                    if kept.0 == q.0 && mq_all[kept.1] == mq_all[q.1] {
                        copy_of.push((q.1, kept.1));
                        continue;
                    }
                }
                queues.items[write] = q;
                write += 1;
            }
            queues.ends.push(write);
        }
        queues.items.truncate(write);
        Topics { queues, hashes: order.iter().map(|(h, _)| *h).collect(), copy_of }
    }
}

/// Every queue's topic number (topics numbered in order of first appearance; their names) and
/// key hash.
fn hash_keys(mq_all: &[MessageQueue]) -> (Vec<&str>, Vec<(u32, u64)>) {
    // Topic numbers alone, 4 bytes an entry, each name's hash kept beside the names: with
    // 100,000 one-queue topics a map of (hash, name) -> number missed the cache on every insert.
    // The table's hash only finds a name again, so it is foldhash's, word by word: FNV's byte
    // after byte, one multiplication each, cost as much as the rest of the key.
    let table_hash = foldhash::fast::FixedState::with_seed(0);
    let mut index_of: HashTable<u32> = HashTable::new();
    let mut names: Vec<&str> = Vec::new();
    let mut name_hashes: Vec<u64> = Vec::new();
    // Per topic, the last broker seen with it and the key hash's state after both (up to the
    // queue id): topics listed in turn (a group's lists one after another, or interleaved) hash
    // their shared beginning once per broker, not once per queue.
    let mut prefix_of: Vec<Option<(&str, Fnv)>> = Vec::new();
    let mut keyed: Vec<(u32, u64)> = Vec::with_capacity(mq_all.len());
    let mut key: Vec<u8> = Vec::new();
    // Consecutive queues are usually of one topic: the last one found saves a lookup.
    let mut last: Option<(&str, u32)> = None;
    for q in mq_all {
        let t = match last {
            Some((topic, t)) if topic == &*q.topic => t,
            _ => {
                let hash = table_hash.hash_one(&*q.topic);
                let found = index_of.entry(hash, |&t| names[t as usize] == &*q.topic, |&t| name_hashes[t as usize]);
                *found
                    .or_insert_with(|| {
                        names.push(&q.topic);
                        name_hashes.push(hash);
                        prefix_of.push(None);
                        (names.len() - 1) as u32
                    })
                    .get()
            }
        };
        last = Some((&q.topic, t));
        let prefix = match prefix_of[t as usize] {
            Some((broker, prefix)) if broker == &*q.broker_name => prefix,
            _ => {
                let [start, topic, broker_is, broker, id_is] = q.java_prefix_parts();
                let prefix = Fnv::START.bytes(start).bytes(topic).bytes(broker_is).bytes(broker).bytes(id_is);
                prefix_of[t as usize] = Some((&q.broker_name, prefix));
                prefix
            }
        };
        key.clear();
        q.write_java_suffix(&mut key);
        keyed.push((t, prefix.part(&key).finish()));
    }
    (names, keyed)
}
