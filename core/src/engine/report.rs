//! What a round did, as data: every binding and the simulator read these.

use serde::{Deserialize, Serialize};

use crate::queue::MessageQueue;

/// Why a whole round changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum RoundSkipped {
    /// The topic's route (queue list) is unknown.
    RouteUnknown,
    /// The group's client-id list could not be fetched.
    ClientIdsUnavailable,
    /// The strategy failed (an empty list, a resolver error): the old queues are kept.
    StrategyFailed(String),
}

/// Why a held queue is being released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseReason {
    /// Not in this client's allocation any more.
    NotAssigned,
    /// A push queue not pulled for `pull_expired_ms`: released so that the next round restarts it.
    PullExpired,
    /// Its topic is no longer subscribed.
    Unsubscribed,
    /// Asked for by the host (offset illegal, offset reset).
    Requested,
    /// The client is shutting down.
    Shutdown,
    /// Safe mode: this client's id appears more than once in the list, so two processes would
    /// consume these orderly queues at once; both stand down until the ids differ.
    DuplicateClientId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    pub queue: MessageQueue,
    pub generation: u64,
    pub reason: ReleaseReason,
    /// Java mode: unlocked although the consume callback may still be running (the forced unlock
    /// 20 s after the last renewal).
    pub forced: bool,
    /// The offset could not be committed (best effort for concurrent queues).
    pub persist_failed: Option<String>,
}

/// Why a release waits for a later round (the entry stays in the table, dropped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum DeferReason {
    /// The consume lock was busy: a listener call is still running.
    ConsumeInProgress,
    /// Safe mode, orderly: the offset could not be committed; we keep the lock so nobody else
    /// starts from the older offset, and retry next round.
    PersistFailed(String),
    /// Safe mode, orderly: the unlock failed; retried next round rather than leaving the next
    /// owner to wait for the broker's lock expiry.
    UnlockFailed(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deferred {
    pub queue: MessageQueue,
    pub generation: u64,
    pub reason: DeferReason,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acquired {
    pub queue: MessageQueue,
    pub generation: u64,
    pub start_offset: i64,
}

/// Why a queue of the allocation was not taken this round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum SkipReason {
    /// The broker holds the orderly lock for another client.
    LockRefused,
    /// The lock call failed.
    LockFailed(String),
    /// The start offset could not be computed: the store could not be read, or max/search
    /// offset failed, or gave a negative offset.
    OffsetUnavailable(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub queue: MessageQueue,
    pub reason: SkipReason,
    /// Java mode: the broker lock taken for this queue was not released (held until it expires).
    pub lock_leaked: bool,
}

/// Something about the inputs that breaks the group's guarantees, reported not fixed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Warning {
    /// This client's id is not in the group's list: it gets nothing (Java logs "[BUG]").
    ClientIdAbsent,
    /// Ids listed more than once: every strategy gives each copy the same share.
    DuplicateClientIds(Vec<String>),
    /// A callback failed where the failure changes nothing (an unlock, a lock renewal).
    CallbackFailed(String),
}

/// One round for one topic.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundReport {
    pub topic: String,
    /// Set when the round changed nothing because an input was missing or the strategy failed.
    pub skipped_round: Option<RoundSkipped>,
    /// A queue was removed from or added to the table.
    pub changed: bool,
    /// The allocation equals the non-dropped queues held (Java's `balanced`).
    pub balanced: bool,
    /// The strategy's answer: what this client should hold.
    pub allocation: Vec<MessageQueue>,
    pub released: Vec<Released>,
    pub deferred: Vec<Deferred>,
    pub acquired: Vec<Acquired>,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<Warning>,
}

/// `lock_all`: the renewal of every held orderly lock.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockReport {
    pub renewed: Vec<MessageQueue>,
    /// The broker refused: another client holds the lock (the queue stops being consumable).
    pub lost: Vec<MessageQueue>,
    pub warnings: Vec<Warning>,
}
