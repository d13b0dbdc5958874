//! The client's table of held queues (Java's `processQueueTable` of `ProcessQueue`s).

use serde::{Deserialize, Serialize};

/// One held queue. A state is never reused: a queue released and taken again gets a new
/// `generation`, so a late callback for the old one (a pull, an unlock) is recognisable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueState {
    pub generation: u64,
    /// Marked for release; nothing may be consumed from it any more.
    pub dropped: bool,
    /// Holds the broker's orderly lock (as of the last lock or renewal).
    pub locked: bool,
    pub last_lock_ms: u64,
    pub last_pull_ms: u64,
    /// Releases deferred because the queue was still being consumed.
    pub try_unlock_times: u32,
}

impl QueueState {
    pub(crate) fn new(generation: u64, now_ms: u64) -> Self {
        // Java creates a ProcessQueue "locked" with both timestamps at creation (#2621).
        QueueState { generation, dropped: false, locked: true, last_lock_ms: now_ms, last_pull_ms: now_ms, try_unlock_times: 0 }
    }
}
