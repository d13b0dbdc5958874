//! Why a queue is not consumed as it should be, in one word, from what the diagnosis found. Burrow
//! sees that a partition stalls; only ownership says why, and a queue whose owner is sound is never
//! blamed on ownership.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::super::{Diagnosis, FindingKind, QueueRow, Snapshot};
use crate::MessageQueue;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Nobody holds it: nobody consumes it.
    Orphaned,
    /// Two or more clients hold it, neither giving it up.
    DoubleHeld,
    /// An orderly holder without the broker's lock: it waits while someone else keeps the lock.
    LockWait,
    /// Held, but its pull loop has not come round for 60 s.
    NotPulled,
    /// Nobody holds it, and its last holder left the group or stopped answering (or the group has
    /// no consumer online at all).
    MemberDown,
    /// Held against the strategy most members run, by a member on another strategy.
    ForeignStrategy,
    /// Held against its holder's own strategy over the current member list: a view from before
    /// the members changed.
    StaleView,
    /// Ownership is sound (held once, by the member its strategy names, locked, pulled): the
    /// consumer itself is slow or stuck.
    Unknown,
}

impl Cause {
    /// Every cause, in the order above (the order of the exported state set).
    pub const ALL: [Cause; 8] =
        [Cause::Orphaned, Cause::DoubleHeld, Cause::LockWait, Cause::NotPulled, Cause::MemberDown, Cause::ForeignStrategy, Cause::StaleView, Cause::Unknown];

    pub fn name(self) -> &'static str {
        match self {
            Cause::Orphaned => "orphaned",
            Cause::DoubleHeld => "double_held",
            Cause::LockWait => "lock_wait",
            Cause::NotPulled => "not_pulled",
            Cause::MemberDown => "member_down",
            Cause::ForeignStrategy => "foreign_strategy",
            Cause::StaleView => "stale_view",
            Cause::Unknown => "unknown",
        }
    }

    /// A queue no added consumer can drain while the cause lasts: its lag is `stuck_lag`, not a
    /// reason to scale out.
    pub fn stuck(self) -> bool {
        matches!(self, Cause::Orphaned | Cause::LockWait | Cause::NotPulled | Cause::MemberDown)
    }
}

/// What the causes are decided from, built once per round.
pub(super) struct Evidence<'a> {
    kinds: BTreeMap<&'a MessageQueue, BTreeSet<FindingKind>>,
    /// Clients connected and answering for what they hold.
    answering: BTreeSet<&'a str>,
    /// (client, queue) held by an orderly client without the broker's lock.
    unlocked: BTreeSet<(&'a str, &'a MessageQueue)>,
    /// Each member's strategy, and the one most members run.
    strategy: BTreeMap<&'a str, &'a str>,
    majority: Option<&'a str>,
    mixed: bool,
    /// No client of the group is connected at all.
    offline: bool,
    /// Ids that are two or more processes (`duplicate_client_id`).
    duplicated: BTreeSet<&'a str>,
}

impl<'a> Evidence<'a> {
    pub(super) fn new(snapshot: &'a Snapshot, d: &'a Diagnosis) -> Self {
        let mut kinds: BTreeMap<&MessageQueue, BTreeSet<FindingKind>> = BTreeMap::new();
        for f in &d.findings {
            for q in &f.queues {
                kinds.entry(q).or_default().insert(f.kind);
            }
        }
        let connected: BTreeSet<&str> = snapshot.connections.iter().map(|c| c.client_id.as_str()).collect();
        let answering =
            snapshot.clients.iter().filter(|c| c.running.is_some() && connected.contains(c.client_id.as_str())).map(|c| c.client_id.as_str()).collect();
        let mut unlocked = BTreeSet::new();
        for c in &snapshot.clients {
            let Some(running) = c.running.as_ref().filter(|r| super::super::is_orderly(r)) else { continue };
            unlocked.extend(running.held.iter().filter(|h| !h.dropped && !h.locked).map(|h| (c.client_id.as_str(), &h.queue)));
        }
        let strategy: BTreeMap<&str, &str> = d.strategies.iter().filter_map(|s| Some((s.client_id.as_str(), s.strategy.as_deref()?))).collect();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for s in strategy.values() {
            *counts.entry(s).or_default() += 1;
        }
        // Ties: the first in name order, so that every round names the same majority.
        let majority = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(s, _)| *s);
        let mixed = d.findings.iter().any(|f| f.kind == FindingKind::MixedStrategies);
        let duplicated = d.findings.iter().filter(|f| f.kind == FindingKind::DuplicateClientId).flat_map(|f| f.clients.iter().map(String::as_str)).collect();
        Evidence { kinds, answering, unlocked, strategy, majority, mixed, offline: connected.is_empty(), duplicated }
    }

    /// The client is connected and answered for what it holds (this round, or the running info
    /// reused for it).
    pub(super) fn answering(&self, client: &str) -> bool {
        self.answering.contains(client)
    }

    /// The cause of `row`'s state, `last_owner` being who held it before (empty: never seen held).
    pub(super) fn cause(&self, row: &QueueRow, last_owner: &[String]) -> Option<Cause> {
        let kinds = self.kinds.get(&row.queue);
        let has = |k| kinds.is_some_and(|s| s.contains(&k));
        // Processes that share an id compute the same share from the same member list, and each
        // takes it: what the id holds, they all hold, though the running info (relayed to one of
        // them) shows it once.
        if has(FindingKind::DoubleHeld) || row.holders.iter().any(|h| self.duplicated.contains(h.as_str())) {
            return Some(Cause::DoubleHeld);
        }
        if has(FindingKind::Orphaned) {
            // Whose queue went with its member: the one last seen holding it, or the one whose own
            // strategy gives it the queue. The second is a member that stopped answering before any
            // round saw what it took (frozen right after a join): its share was last seen with the
            // member that handed it over, which still answers, but nobody gave the share up. When
            // no member's stated strategy gives the queue to anyone (the silent member never
            // answered, so its strategy is unknown), the majority's strategy names it.
            let silent = |ids: &[String]| ids.iter().any(|o| !self.answering(o));
            let expected = if row.expected.is_empty() { &row.if_agreed } else { &row.expected };
            let owner_gone = self.offline || silent(last_owner) || silent(expected);
            return Some(if owner_gone { Cause::MemberDown } else { Cause::Orphaned });
        }
        if has(FindingKind::OrderlyLockStuck) {
            return Some(Cause::LockWait);
        }
        if has(FindingKind::NotPulled) {
            return Some(Cause::NotPulled);
        }
        if has(FindingKind::UnexpectedHolder) {
            let foreign = self.mixed && row.holders.iter().any(|h| self.strategy.get(h.as_str()).copied() != self.majority);
            return Some(if foreign { Cause::ForeignStrategy } else { Cause::StaleView });
        }
        if row.holders.iter().any(|h| self.unlocked.contains(&(h.as_str(), &row.queue))) {
            return Some(Cause::LockWait);
        }
        None
    }
}
