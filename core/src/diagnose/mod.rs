//! The diagnosis behind `rmq-rebalance inspect`: a [`Snapshot`] of what a live group answered in,
//! findings out. Pure (no I/O), so a saved snapshot is diagnosed offline, and Python, C and an
//! operator's own tools can call it without sockets.
//!
//! Judged so far: queues nobody holds, queues two clients hold (classified), a holder its own
//! strategy does not name, one client id on two connections or listed twice, brokers that disagree
//! on the members, clients whose running info is missing. Each finding names its queues and
//! clients; [`FindingKind`]'s snake_case names are the stable part of the JSON.

mod foreign;
mod snapshot;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use foreign::{diagnostic_strategy, GoConsistentHash, GoMachineRoom, FOREIGN_NAMES};
pub use snapshot::{BrokerMembers, ClientConnection, ClientState, HeldQueue, RunningState, Snapshot};

use crate::java_order::{sort_client_ids, sort_queues};
use crate::{MessageQueue, Strategy};

/// What a finding is about; serialised in snake_case (`orphaned`, `double_held`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A queue of the topic no client holds (dropped entries do not count): nobody consumes it.
    Orphaned,
    /// A queue two or more clients hold, neither of them giving it up.
    DoubleHeld,
    /// A client holds a queue its own strategy, over the broker's member list, does not give it:
    /// a stale view, or a strategy the others do not share.
    UnexpectedHolder,
    /// One client id on two connections, or twice in a member list: the two compute one share.
    DuplicateClientId,
    /// The brokers list different members: clients that ask different brokers split differently.
    MembershipDisagreement,
    /// A connected client did not answer for its running info; what it holds is unknown.
    RunningInfoUnavailable,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    pub queues: Vec<MessageQueue>,
    pub clients: Vec<String>,
    /// One sentence for an operator.
    pub detail: String,
}

/// One queue: who holds it, who is giving it up, and whom the strategies name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueRow {
    pub queue: MessageQueue,
    pub holders: Vec<String>,
    pub handing_off: Vec<String>,
    /// The members whose own strategy gives them the queue (empty when no strategy is known).
    pub expected: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub findings: Vec<Finding>,
    pub queues: Vec<QueueRow>,
}

impl Diagnosis {
    pub fn healthy(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The strategy a client runs, when it is known (from its properties, the user, a fingerprint).
pub type StrategyOf<'a> = &'a dyn Fn(&str) -> Option<Arc<dyn Strategy>>;

/// Java's own strategies whose answers need no parameter that the properties cannot show (a
/// consistent hash's virtual nodes, a machine room's rooms are not in them).
const JAVA_CLASSES: [(&str, &str); 2] = [
    ("org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely", "averagely"),
    ("org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle", "circle"),
];

/// A client's strategy: `given` for its client id, else for its language (`GO`, `JAVA`, ...),
/// else the Java class its properties name, when that class needs no parameters.
pub fn strategy_of(snapshot: &Snapshot, given: &BTreeMap<String, Arc<dyn Strategy>>, client: &str) -> Option<Arc<dyn Strategy>> {
    if let Some(s) = given.get(client) {
        return Some(s.clone());
    }
    let language = snapshot.connections.iter().find(|c| c.client_id == client).map(|c| c.language.as_str());
    if let Some(s) = language.and_then(|l| given.get(l)) {
        return Some(s.clone());
    }
    let property = snapshot.clients.iter().find(|c| c.client_id == client)?.running.as_ref()?.properties.get("allocateMessageQueueStrategy")?;
    let (class, rest) = property.split_once('@').unwrap_or((property, ""));
    if class.starts_with(OUR_JAVA_PACKAGE) {
        return our_java_strategy(rest);
    }
    let (_, name) = JAVA_CLASSES.iter().find(|(c, _)| *c == class)?;
    crate::strategy_from_config(name, &serde_json::Value::Null).ok()
}

/// The package of this library's Java strategies, whose `toString()` is `Class@name{params}`.
const OUR_JAVA_PACKAGE: &str = "io.github.rocketmqrebalance.";

/// `name{params}` as `NativeStrategy.toString()` writes it after the class.
fn our_java_strategy(text: &str) -> Option<Arc<dyn Strategy>> {
    let brace = text.find('{')?;
    let params: serde_json::Value = serde_json::from_str(&text[brace..]).ok()?;
    crate::strategy_from_config(&text[..brace], &params).ok()
}

/// Reads a snapshot from its JSON (the form `inspect --save` writes).
pub fn parse_snapshot(json: &str) -> crate::Result<Snapshot> {
    serde_json::from_str(json).map_err(|e| crate::Error::InvalidSnapshot(e.to_string()))
}

/// [`diagnose`] with each client's strategy found by [`strategy_of`].
pub fn diagnose_with(snapshot: &Snapshot, given: &BTreeMap<String, Arc<dyn Strategy>>) -> Diagnosis {
    diagnose(snapshot, &|client| strategy_of(snapshot, given, client))
}

/// Judges one snapshot.
pub fn diagnose(snapshot: &Snapshot, strategy_of: StrategyOf<'_>) -> Diagnosis {
    let mut out = Diagnosis::default();
    let members = members(snapshot, &mut out.findings);
    duplicates(snapshot, &members, &mut out.findings);
    let silent: Vec<String> = snapshot.clients.iter().filter(|c| c.running.is_none()).map(|c| c.client_id.clone()).collect();
    for c in snapshot.clients.iter().filter(|c| c.running.is_none()) {
        let why = c.error.as_deref().unwrap_or("no answer");
        out.findings.push(Finding {
            kind: FindingKind::RunningInfoUnavailable,
            topic: None,
            queues: Vec::new(),
            clients: vec![c.client_id.clone()],
            detail: format!("{} did not report what it holds: {why}", c.client_id),
        });
    }
    for (topic, queues) in &snapshot.topics {
        judge_topic(snapshot, topic, queues, &members, &silent, strategy_of, &mut out);
    }
    out.findings.sort_by(|a, b| (a.kind, &a.topic, &a.queues, &a.clients).cmp(&(b.kind, &b.topic, &b.queues, &b.clients)));
    out
}

/// The member list the expected map is computed over (the first answering broker's, sorted as
/// a client sorts it), after noting brokers that disagree.
fn members(snapshot: &Snapshot, findings: &mut Vec<Finding>) -> Vec<String> {
    let mut answered: Vec<(&str, Vec<String>)> = snapshot
        .brokers
        .iter()
        .filter_map(|b| {
            b.consumer_ids.as_ref().map(|ids| {
                let mut ids = ids.clone();
                sort_client_ids(&mut ids);
                (b.broker.as_str(), ids)
            })
        })
        .collect();
    answered.sort();
    let Some((first_broker, first)) = answered.first().cloned() else {
        let mut ids: Vec<String> = snapshot.connections.iter().map(|c| c.client_id.clone()).collect();
        sort_client_ids(&mut ids);
        return ids;
    };
    for (broker, ids) in &answered[1..] {
        if *ids != first {
            let a: BTreeSet<&String> = first.iter().collect();
            let b: BTreeSet<&String> = ids.iter().collect();
            findings.push(Finding {
                kind: FindingKind::MembershipDisagreement,
                topic: None,
                queues: Vec::new(),
                clients: a.symmetric_difference(&b).map(|s| (*s).clone()).collect(),
                detail: format!("{first_broker} lists {} members and {broker} lists {}: a client splits by the broker it asks", first.len(), ids.len()),
            });
        }
    }
    first
}

fn duplicates(snapshot: &Snapshot, members: &[String], findings: &mut Vec<Finding>) {
    let mut addrs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for c in &snapshot.connections {
        addrs.entry(&c.client_id).or_default().insert(&c.client_addr);
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for id in members {
        *counts.entry(id).or_default() += 1;
    }
    let ids: BTreeSet<&str> =
        addrs.iter().filter(|(_, a)| a.len() > 1).map(|(id, _)| *id).chain(counts.iter().filter(|(_, n)| **n > 1).map(|(id, _)| *id)).collect();
    for id in ids {
        let at: Vec<&str> = addrs.get(id).map(|a| a.iter().copied().collect()).unwrap_or_default();
        findings.push(Finding {
            kind: FindingKind::DuplicateClientId,
            topic: None,
            queues: Vec::new(),
            clients: vec![id.to_owned()],
            detail: format!(
                "{id} is {} processes ({}): they compute one share between them and leave another",
                at.len().max(counts.get(id).copied().unwrap_or(1)),
                at.join(", ")
            ),
        });
    }
}

fn judge_topic(
    snapshot: &Snapshot,
    topic: &str,
    queues: &[MessageQueue],
    members: &[String],
    silent: &[String],
    strategy_of: StrategyOf<'_>,
    out: &mut Diagnosis,
) {
    let mut mq_all = queues.to_vec();
    sort_queues(&mut mq_all);
    let mut holders: BTreeMap<&MessageQueue, (Vec<String>, Vec<String>)> = mq_all.iter().map(|q| (q, (Vec::new(), Vec::new()))).collect();
    for c in &snapshot.clients {
        for h in c.running.iter().flat_map(|r| &r.held).filter(|h| &*h.queue.topic == topic) {
            if let Some((held, leaving)) = holders.get_mut(&h.queue) {
                if h.dropped { leaving } else { held }.push(c.client_id.clone());
            }
        }
    }
    let mut expected: BTreeMap<&MessageQueue, Vec<String>> = BTreeMap::new();
    let mut own: BTreeMap<&str, BTreeSet<MessageQueue>> = BTreeMap::new();
    for id in members {
        let Some(strategy) = strategy_of(id) else { continue };
        let Ok(share) = strategy.allocate(&snapshot.group, id, &mq_all, members) else { continue };
        for q in &share {
            if let Some(q) = mq_all.iter().find(|m| *m == q) {
                expected.entry(q).or_default().push(id.clone());
            }
        }
        own.insert(id, share.into_iter().collect());
    }
    let unanswered = if silent.is_empty() { String::new() } else { format!(" ({} clients did not say what they hold)", silent.len()) };
    let mut orphaned = Vec::new();
    for (q, (held, leaving)) in &holders {
        match held.len() {
            0 => orphaned.push((*q).clone()),
            1 => {}
            _ => out.findings.push(Finding {
                kind: FindingKind::DoubleHeld,
                topic: Some(topic.to_owned()),
                queues: vec![(*q).clone()],
                clients: held.clone(),
                detail: format!("{q} is held by {} clients at once: {}", held.len(), double_kind(snapshot, q, held)),
            }),
        }
        for h in held {
            if own.get(h.as_str()).is_some_and(|share| !share.contains(*q)) {
                out.findings.push(Finding {
                    kind: FindingKind::UnexpectedHolder,
                    topic: Some(topic.to_owned()),
                    queues: vec![(*q).clone()],
                    clients: vec![h.clone()],
                    detail: format!("{h} holds {q}, which its own strategy over the broker's {} members does not give it", members.len()),
                });
            }
        }
        out.queues.push(QueueRow {
            queue: (*q).clone(),
            holders: held.clone(),
            handing_off: leaving.clone(),
            expected: expected.get(q).cloned().unwrap_or_default(),
        });
    }
    if !orphaned.is_empty() {
        out.findings.push(Finding {
            kind: FindingKind::Orphaned,
            topic: Some(topic.to_owned()),
            detail: format!("{} of {} queues of {topic} are held by nobody: nobody consumes them{unanswered}", orphaned.len(), mq_all.len()),
            queues: orphaned,
            clients: Vec::new(),
        });
    }
}

/// How bad two holders are: orderly queues both locked consume out of order; otherwise duplicates.
fn double_kind(snapshot: &Snapshot, q: &MessageQueue, held: &[String]) -> &'static str {
    let locked = held
        .iter()
        .filter(|id| {
            snapshot.clients.iter().any(|c| c.client_id == **id && c.running.iter().flat_map(|r| &r.held).any(|h| &h.queue == q && h.locked && !h.dropped))
        })
        .count();
    if locked == held.len() {
        "all locked as orderly queues, each consuming it (critical: order is broken)"
    } else {
        "each consuming it (its messages are consumed twice)"
    }
}

#[cfg(test)]
mod tests;
