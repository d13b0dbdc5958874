//! The broker side of the model: message logs, the offset store, the lock manager and the
//! consumer registry. One consumer group per topic, all processes subscribe to every topic.

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rocketmq_rebalance::MessageQueue;

use crate::check::Checks;

/// The broker's lock expiry (`RebalanceLockManager`, `rocketmq.broker.rebalance.lockMaxLiveTime`).
pub const BROKER_LOCK_EXPIRY_MS: u64 = 60_000;

#[derive(Debug)]
pub struct Topic {
    pub name: String,
    pub orderly: bool,
    pub queues: Vec<MessageQueue>,
}

#[derive(Debug, Clone)]
pub struct Lock {
    pub client_id: String,
    pub renewed_at: u64,
}

#[derive(Debug)]
pub struct World {
    pub now: u64,
    pub rng: ChaCha8Rng,
    pub broker_down_until: Vec<u64>,
    pub topics: Vec<Topic>,
    /// Max offset (messages appended) of every queue.
    pub log: BTreeMap<MessageQueue, i64>,
    /// The broker's committed offsets (one group per topic, so the queue is the key).
    pub committed: BTreeMap<MessageQueue, i64>,
    pub locks: BTreeMap<MessageQueue, Lock>,
    /// Registered consumer processes: (client id, instance), in registration order.
    pub registry: Vec<(String, usize)>,
    /// Past registries with the time they were replaced, for stale views.
    pub registry_history: Vec<(u64, Vec<String>)>,
    /// Probability that one broker call fails (only inside the fault window).
    pub call_failure: f64,
    /// Probability that a lock call's answer is lost after the broker applied it (fault window).
    pub lost_lock_answer: f64,
    pub checks: Checks,
}

pub fn broker_name(index: usize) -> String {
    format!("broker-{index}")
}

pub fn broker_index(name: &str) -> usize {
    name.trim_start_matches("broker-").parse().unwrap_or(0)
}

impl World {
    pub fn broker_up(&self, broker: &str) -> bool {
        self.broker_down_until.get(broker_index(broker)).is_some_and(|&until| self.now >= until)
    }

    /// Whether this broker call goes through: the broker is up and the dice say yes.
    pub fn call_ok(&mut self, broker: &str) -> bool {
        self.broker_up(broker) && !(self.call_failure > 0.0 && self.rng.gen_bool(self.call_failure))
    }

    /// Whether the answer of a lock call the broker has applied is lost on its way back.
    pub fn answer_lost(&mut self) -> bool {
        self.lost_lock_answer > 0.0 && self.rng.gen_bool(self.lost_lock_answer)
    }

    /// `RebalanceLockManager.tryLockBatch`: granted when free, expired, or already ours.
    pub fn try_lock(&mut self, queue: &MessageQueue, client_id: &str) -> bool {
        let now = self.now;
        match self.locks.get(queue) {
            Some(l) if l.client_id != client_id && now.saturating_sub(l.renewed_at) <= BROKER_LOCK_EXPIRY_MS => false,
            _ => {
                self.locks.insert(queue.clone(), Lock { client_id: client_id.to_owned(), renewed_at: now });
                true
            }
        }
    }

    pub fn unlock(&mut self, queue: &MessageQueue, client_id: &str) {
        if self.locks.get(queue).is_some_and(|l| l.client_id == client_id) {
            self.locks.remove(queue);
        }
    }

    pub fn client_ids(&self) -> Vec<String> {
        self.registry.iter().map(|(id, _)| id.clone()).collect()
    }

    pub fn register(&mut self, client_id: String, instance: usize) {
        self.registry_history.push((self.now, self.client_ids()));
        self.registry.push((client_id, instance));
    }

    pub fn unregister(&mut self, instance: usize) {
        if self.registry.iter().any(|(_, i)| *i == instance) {
            self.registry_history.push((self.now, self.client_ids()));
            self.registry.retain(|(_, i)| *i != instance);
        }
    }

    /// The registry as it was `age_ms` ago.
    pub fn client_ids_at(&self, age_ms: u64) -> Vec<String> {
        let when = self.now.saturating_sub(age_ms);
        // The first snapshot replaced after `when` is what the registry held at `when`.
        self.registry_history.iter().find(|(replaced, _)| *replaced > when).map(|(_, ids)| ids.clone()).unwrap_or_else(|| self.client_ids())
    }

    /// `committed`: whether the broker answers 0 for the new queues (see
    /// `Scenario::new_queues_committed`).
    pub fn add_queues(&mut self, topic: usize, brokers: usize, per_broker: u32, committed: bool) {
        let t = &mut self.topics[topic];
        for b in 0..brokers {
            let existing = t.queues.iter().filter(|q| *q.broker_name == *broker_name(b)).count() as i32;
            for k in 0..per_broker as i32 {
                let q = MessageQueue::new(t.name.clone(), broker_name(b), existing + k);
                self.log.insert(q.clone(), 0);
                // The broker answers 0 for a queue whose first messages are still in memory, so a
                // new queue starts from its beginning whatever ConsumeFromWhere says.
                if committed {
                    self.committed.insert(q.clone(), 0);
                }
                self.checks.consumed.insert(q.clone(), Vec::new());
                t.queues.push(q);
            }
        }
        t.queues.sort();
    }
}
