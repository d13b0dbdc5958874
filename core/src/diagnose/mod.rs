//! The diagnosis behind `rmq-rebalance inspect`: a [`Snapshot`] of what a live group answered in,
//! findings out. Pure (no I/O), so a saved snapshot is diagnosed offline, and Python, C and an
//! operator's own tools can call it without sockets.
//!
//! Each finding names its queues, its clients and the lag at stake; [`FindingKind`]'s snake_case
//! names and the JSON field names are the stable part (docs/inspect.md lists them). The parts:
//! `membership` (brokers' member lists, duplicate ids), `strategies` (who runs what: stated or
//! fingerprinted; mixed), `scope` (what is not judged: broadcasting, POP; mixed subscriptions),
//! `holders` (who holds each queue against who should), `liveness` (stuck locks, idle pulls),
//! and `watch` (the same group round after round: status, cause and history per queue).

mod foreign;
mod holders;
mod liveness;
mod membership;
mod overrides;
mod schema;
mod scope;
mod snapshot;
mod strategies;
pub mod watch;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use foreign::{diagnostic_strategy, GoConsistentHash, GoMachineRoom, FOREIGN_NAMES};
pub use membership::refused_nan;
pub use overrides::{override_from_spec, override_from_value, overrides_from_json, StrategyOverrides};
pub use schema::{parse_diagnosis, parse_queue_text, queue_text, DIAGNOSIS_SCHEMA_VERSION};
pub use snapshot::{BrokerMembers, ClientConnection, ClientState, HeldQueue, QueueOffsets, RunningState, Snapshot, Subscription};
pub use strategies::{strategy_of, ClientStrategy, Named, StrategySource};

use crate::java_order::sort_queues;
use crate::MessageQueue;

/// What a finding is about; serialised in snake_case (`orphaned`, `double_held`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A queue of the topic no client holds (dropped entries do not count): nobody consumes it.
    Orphaned,
    /// A queue two or more clients hold, neither of them giving it up.
    DoubleHeld,
    /// A client holds a queue its own strategy, over the broker's member list, does not give it:
    /// a stale view, or a strategy the others do not share.
    UnexpectedHolder,
    /// The members run different strategies (stated or fingerprinted): their maps cannot agree.
    MixedStrategies,
    /// One client id on two connections, or twice in a member list: the two compute one share.
    DuplicateClientId,
    /// The brokers list different members: clients that ask different brokers split differently.
    MembershipDisagreement,
    /// A master broker did not answer for the group's members: the read is partial, so what
    /// looks healthy may not be (its member list and its queues' lag are unknown).
    BrokerUnreadable,
    /// The members subscribe to different topics or filters: a topic's queues that fall to a
    /// member that does not subscribe to it are consumed by nobody.
    MixedSubscriptions,
    /// An orderly client holds a queue without the broker's lock for longer than the broker keeps
    /// an unrenewed lock: someone else renews it (a Go client never unlocks what it gives up).
    OrderlyLockStuck,
    /// A connected client did not answer for its running info; what it holds is unknown.
    RunningInfoUnavailable,
    /// What this diagnosis does not judge, said rather than guessed: broadcasting groups, POP.
    NotJudged,
    /// A held queue whose pull loop has not come round for 60 s (twice a live loop's longest gap).
    NotPulled,
}

impl FindingKind {
    /// Every kind, in the order findings are sorted.
    pub const ALL: [FindingKind; 12] = [
        FindingKind::Orphaned,
        FindingKind::DoubleHeld,
        FindingKind::UnexpectedHolder,
        FindingKind::MixedStrategies,
        FindingKind::DuplicateClientId,
        FindingKind::MembershipDisagreement,
        FindingKind::BrokerUnreadable,
        FindingKind::MixedSubscriptions,
        FindingKind::OrderlyLockStuck,
        FindingKind::RunningInfoUnavailable,
        FindingKind::NotJudged,
        FindingKind::NotPulled,
    ];

    /// The snake_case name the JSON uses.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Orphaned => "orphaned",
            FindingKind::DoubleHeld => "double_held",
            FindingKind::UnexpectedHolder => "unexpected_holder",
            FindingKind::MixedStrategies => "mixed_strategies",
            FindingKind::DuplicateClientId => "duplicate_client_id",
            FindingKind::MembershipDisagreement => "membership_disagreement",
            FindingKind::BrokerUnreadable => "broker_unreadable",
            FindingKind::MixedSubscriptions => "mixed_subscriptions",
            FindingKind::OrderlyLockStuck => "orderly_lock_stuck",
            FindingKind::RunningInfoUnavailable => "running_info_unavailable",
            FindingKind::NotJudged => "not_judged",
            FindingKind::NotPulled => "not_pulled",
        }
    }
}

/// One thing found wrong. In the diagnosis's JSON (docs/inspect.md) every field is written, `topic`
/// and `lag` as `null` when they do not apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub kind: FindingKind,
    pub topic: Option<String>,
    #[serde(with = "schema::queues")]
    pub queues: Vec<MessageQueue>,
    pub clients: Vec<String>,
    /// One sentence for an operator.
    pub detail: String,
    /// Messages waiting on the finding's queues, where the brokers said (`GET_CONSUME_STATS`).
    pub lag: Option<i64>,
}

/// What identifies a finding from one read to the next: its kind, topic, queues and clients (its
/// sentence and lag carry figures that move).
pub type FindingIdentity = (FindingKind, Option<String>, Vec<MessageQueue>, Vec<String>);

impl Finding {
    pub fn identity(&self) -> FindingIdentity {
        (self.kind, self.topic.clone(), self.queues.clone(), self.clients.clone())
    }
}

/// One queue: who holds it, who is giving it up, and whom the strategies name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueRow {
    #[serde(with = "schema::queue")]
    pub queue: MessageQueue,
    pub holders: Vec<String>,
    pub handing_off: Vec<String>,
    /// The members whose own strategy gives them the queue (empty when no strategy is known).
    pub expected: Vec<String>,
    /// Its holder if every member ran the strategy most of them run (empty when none is known).
    pub if_agreed: Vec<String>,
    pub lag: Option<i64>,
}

/// One group judged. Its JSON is the versioned schema of `schema.rs` (with `schema_version` and
/// the derived `healthy`), the same from the CLI, C and Python.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "schema::DiagnosisJson", try_from = "schema::DiagnosisJson")]
pub struct Diagnosis {
    /// The consumer group, as the snapshot names it.
    pub group: String,
    pub findings: Vec<Finding>,
    pub queues: Vec<QueueRow>,
    /// Each member's strategy and how it was found.
    pub strategies: Vec<ClientStrategy>,
}

impl Diagnosis {
    pub fn healthy(&self) -> bool {
        self.findings.is_empty()
    }

    /// A diagnosis with every field filled (an element each, `also_matches` too), for the tests
    /// that hold each binding's reader and docs/inspect.md to the schema: a field added to the
    /// schema shows in them at once.
    #[doc(hidden)]
    pub fn example() -> Self {
        let q = MessageQueue::new("T", "broker-a", 0);
        let ids = || vec!["a@1".to_owned()];
        Diagnosis {
            group: "G".into(),
            findings: vec![Finding {
                kind: FindingKind::Orphaned,
                topic: Some("T".into()),
                queues: vec![q.clone()],
                clients: ids(),
                detail: "x".into(),
                lag: Some(1),
            }],
            queues: vec![QueueRow { queue: q, holders: ids(), handing_off: ids(), expected: ids(), if_agreed: ids(), lag: Some(1) }],
            strategies: vec![ClientStrategy {
                client_id: "a@1".into(),
                strategy: Some("averagely".into()),
                source: StrategySource::Fingerprint,
                also_matches: vec!["circle".into()],
            }],
        }
    }
}

/// The strategy a client states (from the caller or its properties), when it states one.
pub type StrategyOf<'a> = &'a dyn Fn(&str) -> Option<Named>;

/// An orderly consumer, as its running info says (`PROP_CONSUMEORDERLY`, Java's and Go's name).
fn is_orderly(running: &RunningState) -> bool {
    running.properties.get("PROP_CONSUMEORDERLY").is_some_and(|v| v == "true")
}

/// Reads a snapshot from its JSON (the form `inspect --save` writes).
pub fn parse_snapshot(json: &str) -> crate::Result<Snapshot> {
    serde_json::from_str(json).map_err(|e| crate::Error::InvalidSnapshot(e.to_string()))
}

/// [`diagnose`] with each client's strategy found by [`strategy_of`].
pub fn diagnose_with(snapshot: &Snapshot, given: &StrategyOverrides) -> Diagnosis {
    diagnose(snapshot, &|client| strategy_of(snapshot, given, client))
}

/// Judges one snapshot. Clients that state no strategy are fingerprinted.
pub fn diagnose(snapshot: &Snapshot, stated: StrategyOf<'_>) -> Diagnosis {
    let mut out = Diagnosis { group: snapshot.group.clone(), ..Diagnosis::default() };
    let members = membership::members(snapshot, &mut out.findings);
    membership::duplicates(snapshot, &members, &mut out.findings);
    membership::unread(snapshot, &mut out.findings);
    membership::silent(snapshot, &mut out.findings);
    let judged = scope::judged_topics(snapshot, &mut out.findings);
    scope::mixed_subscriptions(snapshot, &mut out.findings);
    let topics: BTreeMap<&str, Vec<MessageQueue>> = judged
        .iter()
        .map(|t| {
            let mut q = snapshot.topics[*t].clone();
            sort_queues(&mut q);
            (*t, q)
        })
        .collect();
    let (known, reported) = strategies::resolve(snapshot, &topics, &members, stated);
    out.strategies = reported;
    let agreed = strategies::mixed(&members, &known, &out.strategies, &mut out.findings);
    let lag: BTreeMap<&MessageQueue, i64> = snapshot.offsets.iter().map(|o| (&o.queue, o.lag())).collect();
    for (topic, mq_all) in &topics {
        holders::judge_topic(snapshot, topic, mq_all, &members, &known, agreed.as_ref(), &lag, &mut out);
    }
    liveness::judge(snapshot, &judged, &lag, &mut out.findings);
    for f in &mut out.findings {
        if f.lag.is_none() && !f.queues.is_empty() {
            let known: Vec<i64> = f.queues.iter().filter_map(|q| lag.get(q).copied()).collect();
            f.lag = (!known.is_empty()).then(|| known.iter().sum());
        }
    }
    out.findings.sort_by(|a, b| (a.kind, &a.topic, &a.queues, &a.clients).cmp(&(b.kind, &b.topic, &b.queues, &b.clients)));
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_more;
