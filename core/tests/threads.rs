//! Real threads: two clients share one broker's lock table; each runs rounds on its own thread
//! while consume threads follow the documented protocol (take the queue's consume lock, ask the
//! `ConsumeView` under it, run the "listener", release). Rounds move the orderly queues back and
//! forth. Asserted: no two clients are ever inside the listener of one queue at once, and the
//! consume threads' queries never wait for a round (a round blocks inside `try_consume_lock` while
//! consume threads keep answering, or the two would deadlock).
//!
//! The schedule of threads is the OS's, so the interleavings differ per run; the round script is
//! seeded (printed) and what is asserted holds for every interleaving.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use rocketmq_rebalance::engine::{Host, HostError, OffsetRead, ReadFrom, RebalanceConfig, Rebalancer};
use rocketmq_rebalance::strategy::Averagely;
use rocketmq_rebalance::MessageQueue;

const QUEUES: i32 = 4;
const ROUNDS: usize = 300;

/// The broker: who holds each orderly lock; and who is inside each queue's listener now.
#[derive(Default)]
struct Cluster {
    locks: Mutex<HashMap<MessageQueue, String>>,
    inside: Mutex<HashMap<MessageQueue, String>>,
    clashes: AtomicUsize,
    listener_calls: AtomicUsize,
}

/// One client's consume locks (one per queue), as its consume service holds them.
struct ConsumeLocks(Vec<AtomicBool>);

impl ConsumeLocks {
    fn try_take(&self, q: &MessageQueue, wait_ms: u64) -> bool {
        let flag = &self.0[q.queue_id as usize];
        for _ in 0..=wait_ms {
            if flag.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                return true;
            }
            thread::sleep(Duration::from_millis(1));
        }
        false
    }
    fn release(&self, q: &MessageQueue) {
        self.0[q.queue_id as usize].store(false, Ordering::SeqCst);
    }
}

struct ThreadHost {
    id: String,
    cluster: Arc<Cluster>,
    consume: Arc<ConsumeLocks>,
}

impl Host for ThreadHost {
    fn lock(&mut self, _broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        let mut locks = self.cluster.locks.lock().unwrap();
        Ok(queues.iter().filter(|q| locks.entry((*q).clone()).or_insert_with(|| self.id.clone()) == &self.id).cloned().collect())
    }
    fn unlock(&mut self, _broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        let mut locks = self.cluster.locks.lock().unwrap();
        for q in queues {
            if locks.get(q) == Some(&self.id) {
                locks.remove(q);
            }
        }
        Ok(())
    }
    fn read_offset(&mut self, _queue: &MessageQueue, _from: ReadFrom) -> Result<OffsetRead, HostError> {
        Ok(OffsetRead::Found(0))
    }
    fn persist_offset(&mut self, _queue: &MessageQueue) -> Result<(), HostError> {
        Ok(())
    }
    fn remove_offset(&mut self, _queue: &MessageQueue) {}
    fn max_offset(&mut self, _queue: &MessageQueue) -> Result<i64, HostError> {
        Ok(0)
    }
    fn search_offset(&mut self, _queue: &MessageQueue, _timestamp_ms: i64) -> Result<i64, HostError> {
        Ok(0)
    }
    fn try_consume_lock(&mut self, queue: &MessageQueue, _generation: u64, wait_ms: u64) -> bool {
        self.consume.try_take(queue, wait_ms)
    }
    fn release_consume_lock(&mut self, queue: &MessageQueue, _generation: u64) {
        self.consume.release(queue);
    }
    fn dispatch_pull(&mut self, _queue: &MessageQueue, _offset: i64, _delay_ms: u64, _generation: u64) {}
    fn queue_set_changed(&mut self, _topic: &str, _all: &[MessageQueue], _divided: &[MessageQueue]) {}
    fn schedule_rebalance(&mut self, _delay_ms: u64) {}
}

/// A small seeded generator for the round script (no dependency needed for this).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn consume_threads_and_rounds_never_let_two_clients_into_one_orderly_queue() {
    let seed: u64 = std::env::var("RMQ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20261201);
    println!("seed {seed} (RMQ_SEED=<seed> to replay the round script)");
    let cluster = Arc::new(Cluster::default());
    let queues: Vec<MessageQueue> = (0..QUEUES).map(|i| MessageQueue::new("T", "b", i)).collect();
    let clock = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for (c, id) in ["c1", "c2"].into_iter().enumerate() {
        let mut config = RebalanceConfig::new("g", id);
        config.orderly = true;
        config.timing.consume_lock_wait_ms = 5;
        let rebalancer = Rebalancer::new(config, Arc::new(Averagely)).unwrap();
        let view = rebalancer.consume_view();
        let rebalancer = Arc::new(Mutex::new(rebalancer));
        let consume = Arc::new(ConsumeLocks((0..QUEUES).map(|_| AtomicBool::new(false)).collect()));
        // Consume threads: the documented protocol.
        for t in 0..2 {
            let (view, consume, cluster, queues, clock, done) =
                (view.clone(), Arc::clone(&consume), Arc::clone(&cluster), queues.clone(), Arc::clone(&clock), Arc::clone(&done));
            handles.push(thread::spawn(move || {
                let mut i = t;
                while !done.load(Ordering::SeqCst) {
                    let q = &queues[i % queues.len()];
                    i += 1;
                    if !consume.try_take(q, 0) {
                        thread::yield_now();
                        continue;
                    }
                    let now = clock.load(Ordering::SeqCst);
                    if let Some(generation) = view.generation(q) {
                        if view.is_consumable(q, generation, now) {
                            let other = cluster.inside.lock().unwrap().insert(q.clone(), id.to_owned());
                            if other.is_some_and(|o| o != id) {
                                cluster.clashes.fetch_add(1, Ordering::SeqCst);
                            }
                            cluster.listener_calls.fetch_add(1, Ordering::SeqCst);
                            thread::sleep(Duration::from_micros(200));
                            cluster.inside.lock().unwrap().remove(q);
                        }
                    }
                    consume.release(q);
                }
            }));
        }
        // The round thread: the id list alternates so queues move between c1 and c2.
        let (cluster, queues, clock) = (Arc::clone(&cluster), queues.clone(), Arc::clone(&clock));
        handles.push(thread::spawn(move || {
            let mut host = ThreadHost { id: id.to_owned(), cluster, consume };
            let mut state = seed ^ (c as u64 + 1);
            for round in 0..ROUNDS {
                let now = clock.fetch_add(100, Ordering::SeqCst);
                let ids: Vec<String> = match next(&mut state) % 3 {
                    0 => vec!["c1".into(), "c2".into()],
                    1 => vec!["c2".into(), "c1".into(), "c0".into()],
                    _ => vec!["c0".into(), "c1".into(), "c2".into(), "c3".into()],
                };
                {
                    let mut r = rebalancer.lock().unwrap();
                    r.rebalance_topic("T", Some(&queues), Some(&ids), now, &mut host).unwrap();
                    if round % 5 == 0 {
                        r.lock_all(now, &mut host).unwrap();
                    }
                }
                // Pace the rounds so that consume threads get to run between them.
                thread::sleep(Duration::from_millis(2));
            }
            let mut r = rebalancer.lock().unwrap();
            r.shutdown(&mut host);
        }));
    }
    // The round threads end after ROUNDS rounds; then the consume threads stop.
    let (round_threads, consume_threads): (Vec<_>, Vec<_>) = handles.into_iter().enumerate().partition(|(i, _)| i % 3 == 2);
    for (_, h) in round_threads {
        h.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for (_, h) in consume_threads {
        h.join().unwrap();
    }
    let calls = cluster.listener_calls.load(Ordering::SeqCst);
    println!("{calls} listener calls");
    assert_eq!(cluster.clashes.load(Ordering::SeqCst), 0, "two clients inside one orderly queue (seed {seed})");
    assert!(calls > 0, "the consume threads never got to consume: the test proved nothing");
}
