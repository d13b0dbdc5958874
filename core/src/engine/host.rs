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
/// engine documents; a host needs no locking of its own for them.
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
    /// Run another round after `delay_ms` (a lock was refused).
    fn schedule_rebalance(&mut self, delay_ms: u64);
}
