//! A group judged round after round (`rmq-rebalance watch`): each queue's status by Burrow's rules
//! over a window of rounds (`window`), a cause beside it from the round's findings (`cause`), and
//! the history of who held it (`history`). Pure like the rest of the diagnosis: the caller reads the
//! cluster and hands each round's snapshot and diagnosis to [`GroupWatch::observe`].

mod cause;
mod history;
mod window;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use cause::Cause;
pub use history::{FlapRule, OwnerChange};
pub use window::{evaluate, QueueStatus, Sample, Window, WindowRules};

use super::{schema, Diagnosis, Finding, FindingIdentity, MessageQueue, Snapshot};
use history::Ownership;

/// The rules a watch judges by; the defaults are documented in docs/watch.md.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WatchRules {
    pub window: WindowRules,
    pub flapping: FlapRule,
}

/// One queue in one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueVerdict {
    #[serde(with = "schema::queue")]
    pub queue: MessageQueue,
    pub status: QueueStatus,
    /// Why, when ownership explains it; `unknown` for a status that is not OK with sound ownership.
    pub cause: Option<Cause>,
    /// Since when (ms since the epoch) the status has held, as far as this watch has seen.
    pub status_since_ms: i64,
    pub holders: Vec<String>,
    pub expected: Vec<String>,
    pub lag: Option<i64>,
    /// Changed owner at least [`FlapRule::changes`] times within [`FlapRule::rounds`] rounds.
    pub flapping: bool,
}

/// A finding of the round, with since when it has held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldFinding {
    pub finding: Finding,
    pub since_ms: i64,
}

/// One group in one round: what `watch` exports and prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupVerdict {
    pub consumer_group: String,
    pub at_ms: i64,
    /// The worst queue's status (OK for a group with no judged queue).
    pub status: QueueStatus,
    pub queues: Vec<QueueVerdict>,
    pub findings: Vec<HeldFinding>,
    /// This round's owner changes.
    pub changes: Vec<OwnerChange>,
    /// Owner changes per topic since the watch began.
    pub changes_total: BTreeMap<String, u64>,
    /// Distinct client ids connected.
    pub members: usize,
    /// The most members that can each hold a queue: the largest queue count of its judged topics.
    pub useful_members_max: usize,
    /// Messages waiting on queues held once and soundly (no cause, or `unknown`: the consumer is
    /// slow), which more consumers can share out.
    pub drainable_lag: i64,
    /// Messages waiting on queues no added consumer can drain while the cause lasts.
    pub stuck_lag: i64,
    pub lag: i64,
    /// The same sums per topic.
    pub topics: BTreeMap<String, TopicLag>,
}

/// A topic's lag, split as the group's is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicLag {
    pub lag: i64,
    pub drainable_lag: i64,
    pub stuck_lag: i64,
}

/// One queue's memory across rounds.
#[derive(Clone, Debug, Default)]
struct Track {
    window: Window,
    ownership: Ownership,
    status: Option<(QueueStatus, i64)>,
    seen_round: u64,
}

/// The state a watch keeps for one group between rounds.
#[derive(Clone, Debug, Default)]
pub struct GroupWatch {
    rules: WatchRules,
    round: u64,
    queues: BTreeMap<MessageQueue, Track>,
    findings_since: BTreeMap<FindingIdentity, i64>,
    changes_total: BTreeMap<String, u64>,
}

impl GroupWatch {
    pub fn new(rules: WatchRules) -> Self {
        GroupWatch { rules, ..GroupWatch::default() }
    }

    /// Judges one round: `d` must be the diagnosis of `snapshot`.
    pub fn observe(&mut self, snapshot: &Snapshot, d: &Diagnosis) -> GroupVerdict {
        self.round += 1;
        let now = snapshot.taken_at_ms;
        let evidence = cause::Evidence::new(snapshot, d);
        let offsets: BTreeMap<&MessageQueue, _> = snapshot.offsets.iter().map(|o| (&o.queue, o)).collect();
        let mut out = GroupVerdict {
            consumer_group: d.group.clone(),
            at_ms: now,
            status: QueueStatus::Ok,
            queues: Vec::with_capacity(d.queues.len()),
            findings: Vec::new(),
            changes: Vec::new(),
            changes_total: BTreeMap::new(),
            members: snapshot.connections.iter().map(|c| &c.client_id).collect::<std::collections::BTreeSet<_>>().len(),
            useful_members_max: 0,
            drainable_lag: 0,
            stuck_lag: 0,
            lag: 0,
            topics: BTreeMap::new(),
        };
        let mut per_topic: BTreeMap<&str, usize> = BTreeMap::new();
        for row in &d.queues {
            *per_topic.entry(&row.queue.topic).or_default() += 1;
            let track = self.queues.entry(row.queue.clone()).or_default();
            track.seen_round = self.round;
            // Only holders that answered this round count as committing.
            let mut holders: Vec<String> = row.holders.iter().filter(|h| evidence.answering(h)).cloned().collect();
            holders.sort();
            if let Some(o) = offsets.get(&row.queue) {
                let moved = track.window.samples().last().is_some_and(|s| s.consumer_offset != o.consumer_offset);
                let sample = Sample { at_ms: now, consumer_offset: o.consumer_offset, broker_offset: o.broker_offset, committed: !holders.is_empty() || moved };
                track.window.push(sample, self.rules.window);
            }
            let last_owner = track.ownership.owner.clone();
            if let Some(from) = track.ownership.observe(&holders, self.round, self.rules.flapping) {
                *self.changes_total.entry(row.queue.topic.to_string()).or_default() += 1;
                out.changes.push(OwnerChange {
                    at_ms: now,
                    consumer_group: d.group.clone(),
                    topic: row.queue.topic.to_string(),
                    broker: row.queue.broker_name.to_string(),
                    queue_id: row.queue.queue_id,
                    from,
                    to: holders.clone(),
                });
            }
            let status = track.window.status(self.rules.window, now);
            let since = match track.status {
                Some((s, since)) if s == status => since,
                _ => now,
            };
            track.status = Some((status, since));
            let cause = evidence.cause(row, &last_owner).or((status != QueueStatus::Ok).then_some(Cause::Unknown));
            let lag = row.lag.unwrap_or(0);
            let topic = out.topics.entry(row.queue.topic.to_string()).or_default();
            topic.lag += lag;
            match cause {
                Some(c) if c.stuck() => topic.stuck_lag += lag,
                None | Some(Cause::Unknown) if !row.holders.is_empty() => topic.drainable_lag += lag,
                _ => {}
            }
            out.status = out.status.max(status);
            out.queues.push(QueueVerdict {
                queue: row.queue.clone(),
                status,
                cause,
                status_since_ms: since,
                holders: row.holders.clone(),
                expected: row.expected.clone(),
                lag: row.lag,
                flapping: track.ownership.flapping(self.rules.flapping),
            });
        }
        let round = self.round;
        self.queues.retain(|_, t| t.seen_round == round);
        out.useful_members_max = per_topic.values().copied().max().unwrap_or(0);
        for t in out.topics.values() {
            out.lag += t.lag;
            out.drainable_lag += t.drainable_lag;
            out.stuck_lag += t.stuck_lag;
        }
        let mut since = BTreeMap::new();
        for f in &d.findings {
            let id = f.identity();
            let at = self.findings_since.get(&id).copied().unwrap_or(now);
            since.insert(id, at);
            out.findings.push(HeldFinding { finding: f.clone(), since_ms: at });
        }
        self.findings_since = since;
        out.changes_total = self.changes_total.clone();
        out
    }
}

#[cfg(test)]
mod tests;
