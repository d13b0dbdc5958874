//! A consumer process: one rebalancer per topic (one group per topic) driven by the real engine,
//! a pull loop, listener calls, and the host that connects the engine to the model.

use std::collections::BTreeMap;
use std::sync::Arc;

use rocketmq_rebalance::engine::{Host, HostError, OffsetRead, ReadFrom, RebalanceConfig, Rebalancer, Semantics, Timing};
use rocketmq_rebalance::{MessageQueue, Strategy};

use crate::world::{World, BROKER_LOCK_EXPIRY_MS};

/// Rebalance every 20 s, or after 1 s when the last round was not balanced (`RebalanceService`).
pub const REBALANCE_INTERVAL_MS: u64 = 20_000;
pub const UNBALANCED_RETRY_MS: u64 = 1_000;
/// Orderly lock renewal (`lockMQPeriodically`) and offset commits (`persistConsumerOffsetInterval`).
pub const LOCK_RENEW_MS: u64 = 20_000;
pub const PERSIST_INTERVAL_MS: u64 = 5_000;
/// `ConsumeMessageOrderlyService.tryLockLaterAndReconsume`: retry `lockOneMQ` every 3 s.
pub const LOCK_ONE_RETRY_MS: u64 = 3_000;
/// Messages per pull, and per orderly listener call (`consumeMessageBatchMaxSize`-like).
pub const PULL_BATCH: i64 = 64;
pub const ORDERLY_BATCH: i64 = 16;

/// The client's side of one queue state: where its pull is, and the listener call in progress.
#[derive(Debug, Clone)]
pub struct Pull {
    pub generation: u64,
    pub next_offset: i64,
    pub start_at: u64,
}

#[derive(Debug, Clone)]
pub struct Call {
    pub generation: u64,
    pub to: i64,
    pub start: u64,
    pub end: u64,
}

/// One group's client in a process.
#[derive(Debug)]
pub struct GroupClient {
    pub rebalancer: Rebalancer,
    /// The in-memory offset store.
    pub offsets: BTreeMap<MessageQueue, i64>,
    pub pulls: BTreeMap<MessageQueue, Pull>,
    pub calls: BTreeMap<MessageQueue, Call>,
    pub next_rebalance: u64,
    pub next_lock: u64,
    pub next_persist: u64,
    /// When `lockOneMQ` may next be tried for a queue found unlocked.
    pub next_lock_one: BTreeMap<MessageQueue, u64>,
}

#[derive(Debug)]
pub struct Process {
    pub instance: usize,
    pub client_id: String,
    pub alive: bool,
    pub groups: Vec<GroupClient>,
    /// Rounds left with a stale or partial view of the client ids.
    pub stale_rounds: u32,
    /// Orderly listener calls started at this time (ms) last this long (ms).
    pub slow: Option<(u64, u64)>,
    /// Duplicate-id processes leave by themselves at this time.
    pub leave_at: Option<u64>,
    /// Shut down, waiting for its listener calls to end before it finishes the shutdown (a real
    /// process's consume threads run on after `shutdown()` is called).
    pub leaving: bool,
    /// Cut off from every broker until this time (a partition or a long pause).
    pub partitioned_until: u64,
    /// Cut off from one broker until a time, the others and the NameServer still answering.
    pub partitioned_from: BTreeMap<String, u64>,
}

impl Process {
    pub fn cut_off(&self, now: u64) -> bool {
        now < self.partitioned_until
    }

    /// The brokers this process cannot reach now, though it reaches the others.
    pub fn cut_from(&self, now: u64) -> Vec<String> {
        self.partitioned_from.iter().filter(|(_, &until)| now < until).map(|(b, _)| b.clone()).collect()
    }
}

impl Process {
    pub fn new(instance: usize, client_id: String, world: &World, strategy: &Arc<dyn Strategy>, semantics: Semantics, timing: Option<Timing>) -> Process {
        let groups = world
            .topics
            .iter()
            .map(|t| {
                let mut config = RebalanceConfig::new(format!("G_{}", t.name), client_id.clone());
                config.orderly = t.orderly;
                config.semantics = semantics;
                config.timing = timing.unwrap_or_default();
                let mut rebalancer = Rebalancer::new(config, Arc::clone(strategy)).expect("simulator configs are valid");
                rebalancer.subscribe(t.name.clone()).expect("a new rebalancer is running");
                GroupClient {
                    rebalancer,
                    offsets: BTreeMap::new(),
                    pulls: BTreeMap::new(),
                    calls: BTreeMap::new(),
                    // Start-up: the first round right away, timers staggered by instance.
                    next_rebalance: world.now,
                    next_lock: world.now + (instance as u64 * 3_000) % LOCK_RENEW_MS,
                    next_persist: world.now + (instance as u64 * 1_000) % PERSIST_INTERVAL_MS,
                    next_lock_one: BTreeMap::new(),
                }
            })
            .collect();
        Process {
            instance,
            client_id,
            alive: true,
            groups,
            stale_rounds: 0,
            slow: None,
            leave_at: None,
            leaving: false,
            partitioned_until: 0,
            partitioned_from: BTreeMap::new(),
        }
    }
}

/// The engine's host: every call goes to the modelled broker or to this client's local state.
pub struct SimHost<'a> {
    pub world: &'a mut World,
    pub offsets: &'a mut BTreeMap<MessageQueue, i64>,
    pub pulls: &'a mut BTreeMap<MessageQueue, Pull>,
    pub calls: &'a BTreeMap<MessageQueue, Call>,
    pub client_id: &'a str,
    pub instance: usize,
    pub scheduled: Option<u64>,
    /// The process is cut off from the brokers: every broker call fails.
    pub cut_off: bool,
    /// The brokers it alone cannot reach: their calls fail.
    pub cut_from: Vec<String>,
}

impl<'a> SimHost<'a> {
    /// The host of one engine call of the group whose local state these are (the one place a
    /// host is made: every call site gives the same parts, and nothing is scheduled yet).
    pub fn new(
        world: &'a mut World,
        offsets: &'a mut BTreeMap<MessageQueue, i64>,
        pulls: &'a mut BTreeMap<MessageQueue, Pull>,
        calls: &'a BTreeMap<MessageQueue, Call>,
        client_id: &'a str,
        instance: usize,
        cut_off: bool,
    ) -> Self {
        SimHost { world, offsets, pulls, calls, client_id, instance, scheduled: None, cut_off, cut_from: Vec::new() }
    }
}

impl SimHost<'_> {
    fn failed(broker: &str) -> HostError {
        HostError::new(format!("{broker}: call failed"))
    }

    fn call_ok(&mut self, broker: &str) -> bool {
        !self.cut_off && !self.cut_from.iter().any(|b| b == broker) && self.world.call_ok(broker)
    }

    /// Commits the in-memory offset of `queue`, recording any regression.
    pub fn commit(&mut self, queue: &MessageQueue) -> Result<(), HostError> {
        if !self.call_ok(&queue.broker_name) {
            return Err(Self::failed(&queue.broker_name));
        }
        if let Some(&offset) = self.offsets.get(queue) {
            let old = self.world.committed.get(queue).copied().unwrap_or(0);
            let now = self.world.now;
            self.world.checks.record_commit(queue, old, offset, self.instance, now);
            self.world.committed.insert(queue.clone(), offset);
        }
        Ok(())
    }
}

impl Host for SimHost<'_> {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        if !self.call_ok(broker) {
            return Err(Self::failed(broker));
        }
        let granted: Vec<MessageQueue> = queues.iter().filter(|q| self.world.try_lock(q, self.client_id)).cloned().collect();
        if self.world.answer_lost() {
            // The broker granted (its table holds these locks now); the client sees a failure.
            return Err(HostError::new(format!("{broker}: lock answer lost")));
        }
        Ok(granted)
    }

    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        if !self.call_ok(broker) {
            return Err(Self::failed(broker));
        }
        let now = self.world.now;
        for q in queues {
            // Only an unlock that frees a lock this client holds lets another consumer in.
            let held = self.world.locks.get(q).is_some_and(|l| l.client_id == self.client_id && now.saturating_sub(l.renewed_at) <= BROKER_LOCK_EXPIRY_MS);
            if let Some(call) = self.calls.get(q).filter(|c| held && c.end > now) {
                self.world.checks.unlock_under_call(q, self.instance, now, call.start);
            }
            self.world.unlock(q, self.client_id);
        }
        Ok(())
    }

    fn read_offset(&mut self, queue: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError> {
        if from == ReadFrom::MemoryThenStore {
            if let Some(&offset) = self.offsets.get(queue) {
                return Ok(OffsetRead::Found(offset));
            }
        }
        if !self.call_ok(&queue.broker_name) {
            return Err(Self::failed(&queue.broker_name));
        }
        Ok(self.world.committed.get(queue).map_or(OffsetRead::NotFound, |&o| OffsetRead::Found(o)))
    }

    fn persist_offset(&mut self, queue: &MessageQueue) -> Result<(), HostError> {
        self.commit(queue)
    }

    fn remove_offset(&mut self, queue: &MessageQueue) {
        self.offsets.remove(queue);
    }

    fn max_offset(&mut self, queue: &MessageQueue) -> Result<i64, HostError> {
        if !self.call_ok(&queue.broker_name) {
            return Err(Self::failed(&queue.broker_name));
        }
        Ok(self.world.log.get(queue).copied().unwrap_or(0))
    }

    fn search_offset(&mut self, queue: &MessageQueue, _timestamp_ms: i64) -> Result<i64, HostError> {
        self.max_offset(queue)
    }

    fn try_consume_lock(&mut self, queue: &MessageQueue, _generation: u64, _wait_ms: u64) -> bool {
        // Busy while any listener call on the queue runs, whatever its generation.
        self.calls.get(queue).is_none_or(|c| c.end <= self.world.now)
    }

    fn release_consume_lock(&mut self, _queue: &MessageQueue, _generation: u64) {}

    fn dispatch_pull(&mut self, queue: &MessageQueue, offset: i64, delay_ms: u64, generation: u64) {
        // Messages before a queue's very first start are not expected (consume_from decided).
        self.world.checks.first_start.entry(queue.clone()).or_insert(offset);
        self.pulls.insert(queue.clone(), Pull { generation, next_offset: offset, start_at: self.world.now + delay_ms });
    }

    fn stop_pull(&mut self, queue: &MessageQueue, generation: u64) {
        if self.pulls.get(queue).is_some_and(|p| p.generation == generation) {
            self.pulls.remove(queue);
        }
    }

    fn commit_offset(&mut self, queue: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        self.offsets.insert(queue.clone(), offset);
        Some(self.commit(queue))
    }

    fn queue_set_changed(&mut self, _topic: &str, _all: &[MessageQueue], _divided: &[MessageQueue]) {}

    fn schedule_rebalance(&mut self, delay_ms: u64) {
        let at = self.world.now + delay_ms;
        self.scheduled = Some(self.scheduled.map_or(at, |s| s.min(at)));
    }
}
