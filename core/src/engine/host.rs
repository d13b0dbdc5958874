//! What the engine asks of the client it runs in. The engine does no I/O: every broker call,
//! offset-store access and consume-service interaction goes through [`Host`].

use serde::{Deserialize, Serialize};

use crate::queue::MessageQueue;

/// A callback that failed: the host's own message. The engine treats it as that step's failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

impl HostError {
    pub fn new(message: impl Into<String>) -> Self {
        HostError(message.into())
    }
}

/// Where `read_offset` looks (`ReadOffsetType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadFrom {
    /// The broker's committed offset (push consumers).
    Store,
    /// The client's cached offset if any, else the broker's (lite-pull consumers).
    MemoryThenStore,
}

/// The answer of `read_offset` when the call itself worked. "No committed offset" and "the store
/// could not be asked" are different answers: only the first lets `ConsumeFromWhere` apply.
/// Java 4.9 conflated them and rolled offsets back (apache/rocketmq#2708).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetRead {
    Found(i64),
    NotFound,
}

/// The client around the engine. Calls happen on the thread that runs the round, in the order the
/// engine documents; a host needs no locking of its own for them. The whole contract (what to
/// call, when, from which thread, and what each callback must guarantee) is in
/// `docs/host-contract.md`.
///
/// Two guarantees the safe-mode fixes rest on: `persist_offset` is synchronous and acknowledged
/// (an unlock follows it, so a one-way commit could land after the next owner read the offset),
/// and the host updates its cached offset for a listener call before it releases the consume
/// lock (the engine commits right after taking it).
///
/// Methods with a default body are optional: a host written against an earlier version keeps
/// working, with the behaviour the default documents.
pub trait Host {
    /// `lockBatchMQ`: lock `queues` (all on `broker`) for this client; returns those now locked.
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError>;
    /// `unlockBatchMQ` (one-way in Java: a failure only delays the next owner until the broker's
    /// lock expires).
    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError>;
    fn read_offset(&mut self, queue: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError>;
    /// Commits the cached offset of `queue` to the broker.
    fn persist_offset(&mut self, queue: &MessageQueue) -> Result<(), HostError>;
    /// Forgets the cached offset of `queue`.
    fn remove_offset(&mut self, queue: &MessageQueue);
    fn max_offset(&mut self, queue: &MessageQueue) -> Result<i64, HostError>;
    fn search_offset(&mut self, queue: &MessageQueue, timestamp_ms: i64) -> Result<i64, HostError>;
    /// Tries to take the consume lock of the queue state `generation` (the lock the orderly
    /// consume service holds while a listener call runs), waiting at most `wait_ms`. True when
    /// taken; the engine then calls [`Host::release_consume_lock`].
    fn try_consume_lock(&mut self, queue: &MessageQueue, generation: u64, wait_ms: u64) -> bool;
    fn release_consume_lock(&mut self, queue: &MessageQueue, generation: u64);
    /// Start pulling `queue` from `offset` after `delay_ms`, for queue state `generation`.
    fn dispatch_pull(&mut self, queue: &MessageQueue, offset: i64, delay_ms: u64, generation: u64);
    /// `MessageQueueListener.messageQueueChanged`: all queues of the topic, and this client's share.
    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]);
    /// Run another round after `delay_ms` (a lock was refused, a release deferred, a lock lost).
    fn schedule_rebalance(&mut self, delay_ms: u64);

    /// Stop pulling `queue` for state `generation`: the state was dropped (it is being released,
    /// or its lock was lost) and nothing more may be consumed from it. Called once per state.
    /// Default: nothing; the host then notices through `is_consumable`/`record_pull` returning
    /// false, or by polling `held()`.
    fn stop_pull(&mut self, queue: &MessageQueue, generation: u64) {
        let _ = (queue, generation);
    }

    /// Set the group's committed offset of `queue` to `offset` on the broker, synchronously (the
    /// host's cached offset too). Safe mode calls it when a queue with no committed offset starts
    /// from `consume_from`, so that the queue is started once per group: without it, a queue moved
    /// before its first commit makes the next owner apply `consume_from` again and skip messages.
    /// Default: `None`, "this host cannot"; the queue then starts uncommitted, as in Java, and the
    /// round warns (`StartOffsetNotCommitted`).
    fn commit_offset(&mut self, queue: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        let _ = (queue, offset);
        None
    }

    /// Failures of the callbacks that cannot return one (`remove_offset`, `release_consume_lock`,
    /// `dispatch_pull`, `queue_set_changed`, `schedule_rebalance`, `stop_pull`, and a
    /// `try_consume_lock` that could not answer), kept since the engine last asked. The engine
    /// asks at the end of every topic's round and of every other call, and reports each as a
    /// `callback_failed` warning on the report of the round that made the call. A binding's host
    /// keeps them in a [`CallbackLog`](super::CallbackLog). Default: none (such a callback
    /// cannot fail).
    fn take_callback_failures(&mut self) -> Vec<HostError> {
        Vec::new()
    }
}

/// Puts the host's pending callback failures on `warnings` (the report of the round or call that
/// made those callbacks).
pub(super) fn report_callback_failures(host: &mut dyn Host, warnings: &mut Vec<super::Warning>) {
    warnings.extend(host.take_callback_failures().into_iter().map(|e| super::Warning::CallbackFailed(e.0)));
}
