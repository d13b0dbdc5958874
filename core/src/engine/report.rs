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

impl RoundSkipped {
    pub const NAMES: &'static [&'static str] = &["route_unknown", "client_ids_unavailable", "strategy_failed"];
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
    /// Safe mode: the state was dropped (its release deferred) and the queue is this client's
    /// again: the old state is released and a new generation started (fix 6).
    Restarted,
    /// Safe mode: the broker lock was lost (a renewal refused, a broker restart signalled, or no
    /// renewal for `broker_lock_expiry_ms`): the state is released without committing its offset
    /// or unlocking, and the next round starts a new generation if the queue is still ours.
    LockLost,
}

impl ReleaseReason {
    /// Every reason as its serialised name (what Python's `Literal` and C's JSON carry).
    pub const NAMES: &'static [&'static str] =
        &["not_assigned", "pull_expired", "unsubscribed", "requested", "shutdown", "duplicate_client_id", "restarted", "lock_lost"];
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
    /// Safe mode: the broker lock was known lost, so this client neither committed the offset
    /// (another client may own it and have committed further) nor unlocked.
    #[serde(default)]
    pub lock_lost: bool,
    /// Safe mode: the release had been deferred for `release_give_up_ms` and was given up: the
    /// state is forgotten; the broker lock was given back only if the consume lock could be taken
    /// (else it lapses at the broker's expiry), the offset committed only under the consume lock.
    #[serde(default)]
    pub gave_up: bool,
}

impl Released {
    pub(crate) fn new(queue: MessageQueue, generation: u64, reason: ReleaseReason) -> Self {
        Released { queue, generation, reason, forced: false, persist_failed: None, lock_lost: false, gave_up: false }
    }
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

impl DeferReason {
    pub const NAMES: &'static [&'static str] = &["consume_in_progress", "persist_failed", "unlock_failed"];
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deferred {
    pub queue: MessageQueue,
    pub generation: u64,
    pub reason: DeferReason,
    /// How long this release has been waiting (since its first deferral): a queue stuck behind a
    /// hung listener or a failing offset store shows a growing figure in every round.
    #[serde(default)]
    pub waiting_ms: u64,
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
    /// Safe mode: the start offset came from `consume_from` and committing it failed; without the
    /// commit a later owner would apply `consume_from` again and skip messages (fix 14).
    StartOffsetNotCommitted(String),
}

impl SkipReason {
    pub const NAMES: &'static [&'static str] = &["lock_refused", "lock_failed", "offset_unavailable", "start_offset_not_committed"];
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
    /// Safe mode: this client's own id is listed twice, so it holds none of the topic's orderly
    /// queues although the strategy gives it a share (fix 7); the round reports unbalanced.
    StoodDown,
    /// Safe mode: a start offset chosen by `consume_from` could not be committed because the host
    /// has no `commit_offset` callback; a later owner may apply `consume_from` again (the queue's
    /// name is the detail).
    StartOffsetNotCommitted(String),
}

impl Warning {
    pub const NAMES: &'static [&'static str] = &["client_id_absent", "duplicate_client_ids", "callback_failed", "stood_down", "start_offset_not_committed"];
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

/// `lock_all`, `lock_queue` and `locks_lost`: what happened to held orderly locks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockReport {
    pub renewed: Vec<MessageQueue>,
    /// The lock is gone: the broker refused it (another client holds it), a restart wiped it, or
    /// (safe mode) it was renewed only after `broker_lock_expiry_ms`. The queue stops being
    /// consumable; in safe mode its state is dropped and the next round restarts it.
    pub lost: Vec<MessageQueue>,
    pub warnings: Vec<Warning>,
}

impl RoundReport {
    /// A report with every field and list filled (an element each), for the tests that hold the
    /// bindings' report readers and docs/engine-json.md to the schema: a field added here shows in
    /// them at once.
    #[doc(hidden)]
    pub fn example() -> Self {
        let q = MessageQueue::new("T", "b", 0);
        let x = || "x".to_string();
        RoundReport {
            topic: "T".into(),
            skipped_round: Some(RoundSkipped::StrategyFailed(x())),
            changed: true,
            balanced: true,
            allocation: vec![q.clone()],
            released: vec![Released { persist_failed: Some(x()), lock_lost: true, ..Released::new(q.clone(), 1, ReleaseReason::LockLost) }],
            deferred: vec![Deferred { queue: q.clone(), generation: 1, reason: DeferReason::PersistFailed(x()), waiting_ms: 1 }],
            acquired: vec![Acquired { queue: q.clone(), generation: 1, start_offset: 0 }],
            skipped: vec![Skipped { queue: q, reason: SkipReason::LockFailed(x()), lock_leaked: false }],
            warnings: vec![Warning::CallbackFailed(x()), Warning::DuplicateClientIds(vec![x()])],
        }
    }
}

impl LockReport {
    /// See [`RoundReport::example`].
    #[doc(hidden)]
    pub fn example() -> Self {
        let q = MessageQueue::new("T", "b", 0);
        LockReport { renewed: vec![q.clone()], lost: vec![q], warnings: vec![Warning::CallbackFailed("x".into())] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind<T: Serialize>(value: &T) -> String {
        match serde_json::to_value(value).unwrap() {
            serde_json::Value::String(s) => s,
            v => v["kind"].as_str().unwrap().to_owned(),
        }
    }

    /// The NAMES lists are what the bindings type their reasons by: every variant is listed (the
    /// matches are exhaustive, so a new variant fails to compile here until it is added).
    #[test]
    fn names_list_every_variant() {
        let s = String::new;
        let release = [
            ReleaseReason::NotAssigned,
            ReleaseReason::PullExpired,
            ReleaseReason::Unsubscribed,
            ReleaseReason::Requested,
            ReleaseReason::Shutdown,
            ReleaseReason::DuplicateClientId,
            ReleaseReason::Restarted,
            ReleaseReason::LockLost,
        ];
        for r in release {
            match r {
                ReleaseReason::NotAssigned
                | ReleaseReason::PullExpired
                | ReleaseReason::Unsubscribed
                | ReleaseReason::Requested
                | ReleaseReason::Shutdown
                | ReleaseReason::DuplicateClientId
                | ReleaseReason::Restarted
                | ReleaseReason::LockLost => {}
            }
        }
        assert_eq!(release.iter().map(kind).collect::<Vec<_>>(), ReleaseReason::NAMES);
        let defer = [DeferReason::ConsumeInProgress, DeferReason::PersistFailed(s()), DeferReason::UnlockFailed(s())];
        for d in &defer {
            match d {
                DeferReason::ConsumeInProgress | DeferReason::PersistFailed(_) | DeferReason::UnlockFailed(_) => {}
            }
        }
        assert_eq!(defer.iter().map(kind).collect::<Vec<_>>(), DeferReason::NAMES);
        let skip = [SkipReason::LockRefused, SkipReason::LockFailed(s()), SkipReason::OffsetUnavailable(s()), SkipReason::StartOffsetNotCommitted(s())];
        for k in &skip {
            match k {
                SkipReason::LockRefused | SkipReason::LockFailed(_) | SkipReason::OffsetUnavailable(_) | SkipReason::StartOffsetNotCommitted(_) => {}
            }
        }
        assert_eq!(skip.iter().map(kind).collect::<Vec<_>>(), SkipReason::NAMES);
        let warn = [
            Warning::ClientIdAbsent,
            Warning::DuplicateClientIds(vec![]),
            Warning::CallbackFailed(s()),
            Warning::StoodDown,
            Warning::StartOffsetNotCommitted(s()),
        ];
        for w in &warn {
            match w {
                Warning::ClientIdAbsent
                | Warning::DuplicateClientIds(_)
                | Warning::CallbackFailed(_)
                | Warning::StoodDown
                | Warning::StartOffsetNotCommitted(_) => {}
            }
        }
        assert_eq!(warn.iter().map(kind).collect::<Vec<_>>(), Warning::NAMES);
        let skipped = [RoundSkipped::RouteUnknown, RoundSkipped::ClientIdsUnavailable, RoundSkipped::StrategyFailed(s())];
        for k in &skipped {
            match k {
                RoundSkipped::RouteUnknown | RoundSkipped::ClientIdsUnavailable | RoundSkipped::StrategyFailed(_) => {}
            }
        }
        assert_eq!(skipped.iter().map(kind).collect::<Vec<_>>(), RoundSkipped::NAMES);
    }
}
