//! The ring hash of every queue key (`MD5(MessageQueue.toString())`, first four bytes), remembered
//! for the last queue lists a strategy saw. A rebalance round asks about the same route every 20 s
//! and one strategy instance serves every topic of a consumer, so a round whose route did not
//! change hashes nothing. An entry is found only by an equal queue list (same queues, same
//! order), so a changed route is never answered from an older one; memory is bounded by a number
//! of lists and of queues.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::md5_batch::{ring_hashes, Md5Path};
use crate::queue::MessageQueue;

/// Lists remembered: a consumer subscribes to a few topics, each with its retry topic.
const MAX_LISTS: usize = 64;
/// Queues remembered over all lists (about 40 bytes each with their digest): about 10 MB. A
/// longer list is hashed every time and not kept.
const MAX_QUEUES: usize = 1 << 18;

struct Entry {
    queues: Vec<MessageQueue>,
    digests: Arc<[u32]>,
}

/// Most recently used first. Thread-safe: the lock is held to look up and to insert, never while
/// hashing.
#[derive(Default)]
pub(crate) struct KeyDigests {
    recent: Mutex<VecDeque<Entry>>,
}

impl fmt::Debug for KeyDigests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        write!(f, "KeyDigests({} lists)", recent.len())
    }
}

impl KeyDigests {
    /// The digest of each queue of `mq_all`, in its order.
    pub(crate) fn of(&self, mq_all: &[MessageQueue]) -> Arc<[u32]> {
        // A poisoned lock only means another thread panicked between complete updates.
        {
            let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = recent.iter().position(|e| same_list(&e.queues, mq_all)) {
                let entry = recent.remove(i).expect("found above");
                let digests = Arc::clone(&entry.digests);
                recent.push_front(entry);
                return digests;
            }
        }
        let digests: Arc<[u32]> = hash_all(mq_all).into();
        if mq_all.len() <= MAX_QUEUES {
            let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
            recent.push_front(Entry { queues: mq_all.to_vec(), digests: Arc::clone(&digests) });
            let mut kept = 0;
            let keep = recent.iter().take_while(|e| {
                kept += e.queues.len();
                kept <= MAX_QUEUES
            });
            let keep = keep.count().min(MAX_LISTS);
            recent.truncate(keep);
        }
        digests
    }

    #[cfg(test)]
    fn remembered(&self) -> (usize, usize) {
        let recent = self.recent.lock().unwrap();
        (recent.len(), recent.iter().map(|e| e.queues.len()).sum())
    }
}

/// `==` on the lists, cheaper: the id first, and a name shared with the remembered copy (the
/// usual case, `Arc<str>` clones of one route) is not read at all. (`Arc<str>`'s own `==`
/// always compares the bytes.)
fn same_list(remembered: &[MessageQueue], asked: &[MessageQueue]) -> bool {
    let same_name = |a: &Arc<str>, b: &Arc<str>| Arc::ptr_eq(a, b) || a == b;
    remembered.len() == asked.len()
        && remembered.iter().zip(asked).all(|(r, a)| r.queue_id == a.queue_id && same_name(&r.topic, &a.topic) && same_name(&r.broker_name, &a.broker_name))
}

/// Every key written into one reused buffer and hashed on the process's MD5 path, many at once.
fn hash_all(mq_all: &[MessageQueue]) -> Vec<u32> {
    ring_hashes(Md5Path::active(), mq_all.len(), |i, buffer| mq_all[i].write_java_bytes(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(name: &str, n: i32) -> Vec<MessageQueue> {
        (0..n).map(|i| MessageQueue::new(name, "b", i)).collect()
    }

    #[test]
    fn an_equal_list_is_answered_from_memory_and_a_changed_one_is_hashed() {
        let cache = KeyDigests::default();
        let a = topic("A", 8);
        let first = cache.of(&a);
        assert!(Arc::ptr_eq(&first, &cache.of(&a.clone())), "the same route is not hashed again");
        let mut changed = a.clone();
        changed[3] = MessageQueue::new("A", "b", 99);
        let other = cache.of(&changed);
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(&other[..], &hash_all(&changed)[..]);
        assert_eq!(&first[..], &hash_all(&a)[..]);
        // The same queues in another order are another list (positions differ).
        let mut reversed = a.clone();
        reversed.reverse();
        assert_eq!(&cache.of(&reversed)[..], &hash_all(&reversed)[..]);
    }

    #[test]
    fn memory_is_bounded_by_lists_and_by_queues() {
        let cache = KeyDigests::default();
        for t in 0..(MAX_LISTS + 20) {
            cache.of(&topic(&format!("T{t}"), 4));
        }
        assert_eq!(cache.remembered(), (MAX_LISTS, MAX_LISTS * 4));
        let big = topic("BIG", (MAX_QUEUES / 2 + 1) as i32);
        cache.of(&big);
        cache.of(&topic("BIG2", (MAX_QUEUES / 2 + 1) as i32));
        let (lists, queues) = cache.remembered();
        assert!(queues <= MAX_QUEUES && lists >= 1, "{lists} lists, {queues} queues");
        let huge = topic("HUGE", (MAX_QUEUES + 1) as i32);
        assert_eq!(cache.of(&huge).len(), MAX_QUEUES + 1);
        assert!(cache.remembered().1 <= MAX_QUEUES, "a list over the bound is not kept");
    }
}
