//! Which strategy each member runs: stated (by the caller, or in a Java client's properties), or
//! found by fingerprint (the one known strategy that reproduces what the client holds from the same
//! sorted lists); and whether the members run more than one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{diagnostic_strategy, Finding, FindingKind, Snapshot};
use crate::{MessageQueue, Strategy};

/// A strategy with the name an operator reads (`consistent_hash{"virtual_node_count":10}`).
#[derive(Clone, Debug)]
pub struct Named {
    pub label: String,
    pub strategy: Arc<dyn Strategy>,
    /// What two members must share to agree, fixed at construction: a strategy's `Debug` text
    /// also shows its caches (consistent hash keeps its last ring), which change as it allocates.
    key: String,
}

impl Named {
    /// By config name and parameters, the foreign (diagnostic) strategies included. The key is the
    /// name with the parameters' keys sorted, so the order they were written in does not matter.
    pub fn from_config(name: &str, params: &Value) -> crate::Result<Named> {
        let strategy = diagnostic_strategy(name, params)?;
        let empty = params.is_null() || params.as_object().is_some_and(|o| o.is_empty());
        let label = if empty { name.to_owned() } else { format!("{name}{params}") };
        let key = if empty { name.to_owned() } else { format!("{name}{}", sorted_keys(params)) };
        Ok(Named { label, strategy, key })
    }

    /// A strategy object without its config (Python's): labelled by its Java name, keyed by its
    /// `Debug` text as given (taken before this diagnosis allocates with it).
    pub fn from_strategy(strategy: Arc<dyn Strategy>) -> Named {
        let key = format!("{strategy:?}");
        Named { label: strategy.name().into_owned(), strategy, key }
    }

    /// Two members agree only if this is equal: the strategy with every parameter.
    pub(super) fn identity(&self) -> &str {
        &self.key
    }
}

/// `params` with every object's keys sorted (serde_json keeps insertion order here).
fn sorted_keys(params: &Value) -> Value {
    match params {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, Value> = map.iter().map(|(k, v)| (k, sorted_keys(v))).collect();
            Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

/// How a member's strategy was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrategySource {
    /// Given for its client id or language (`--strategy-of`), or named by its Java properties.
    Stated,
    /// The only known strategy (or the first of several) that reproduces what it holds.
    Fingerprint,
    /// Not stated, and no known strategy reproduces what it holds (or it holds nothing).
    Unknown,
    /// Its properties name a strategy class that is neither Java's nor this library's (a custom
    /// `AllocateMessageQueueStrategy`), and no known strategy reproduces what it holds: `strategy`
    /// is that class. It counts as a strategy of its own among the members.
    Foreign,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientStrategy {
    pub client_id: String,
    /// The label of its strategy (`None` when unknown).
    pub strategy: Option<String>,
    pub source: StrategySource,
    /// Other known strategies that reproduce its holdings as well (a fingerprint is ambiguous).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_matches: Vec<String>,
}

/// Java's own strategies whose answers need no parameter that the properties cannot show.
const JAVA_CLASSES: [(&str, &str); 2] = [
    ("org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely", "averagely"),
    ("org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle", "circle"),
];

/// Java's consistent hash does not show its virtual node count: a fingerprint over these finds it.
const JAVA_CONSISTENT_HASH: &str = "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash";

/// The package of this library's Java strategies, whose `toString()` is `Class@name{params}`.
const OUR_JAVA_PACKAGE: &str = "io.github.rocketmqrebalance.";

/// The package of the Java client's own strategies.
const JAVA_REBALANCE_PACKAGE: &str = "org.apache.rocketmq.client.consumer.rebalance.";

/// The class a Java client's properties name when it is neither the Java client's own nor ours.
fn foreign_class<'a>(snapshot: &'a Snapshot, client: &str) -> Option<&'a str> {
    let class = java_property(snapshot, client)?.split('@').next()?;
    (!class.is_empty() && !class.starts_with(OUR_JAVA_PACKAGE) && !class.starts_with(JAVA_REBALANCE_PACKAGE)).then_some(class)
}

/// Virtual node counts tried by a fingerprint: Java's default 10, stathat's 20, and round values.
const NODE_COUNTS: [i64; 8] = [10, 20, 1, 2, 3, 5, 50, 100];

/// The strategy a client states: `given` for its client id, else for its language (`GO`, `JAVA`,
/// ...), else the one its Java properties name, when they name it completely.
pub fn strategy_of(snapshot: &Snapshot, given: &BTreeMap<String, Named>, client: &str) -> Option<Named> {
    if let Some(s) = given.get(client) {
        return Some(s.clone());
    }
    let language = snapshot.connections.iter().find(|c| c.client_id == client).map(|c| c.language.as_str());
    if let Some(s) = language.and_then(|l| given.get(l)) {
        return Some(s.clone());
    }
    let property = java_property(snapshot, client)?;
    let (class, rest) = property.split_once('@').unwrap_or((property, ""));
    if class.starts_with(OUR_JAVA_PACKAGE) {
        let brace = rest.find('{')?;
        let params: Value = serde_json::from_str(&rest[brace..]).ok()?;
        return Named::from_config(&rest[..brace], &params).ok();
    }
    let (_, name) = JAVA_CLASSES.iter().find(|(c, _)| *c == class)?;
    Named::from_config(name, &Value::Null).ok()
}

fn java_property<'a>(snapshot: &'a Snapshot, client: &str) -> Option<&'a str> {
    let running = snapshot.clients.iter().find(|c| c.client_id == client)?.running.as_ref()?;
    running.properties.get("allocateMessageQueueStrategy").map(String::as_str)
}

/// The candidates a fingerprint tries for `client`: every known strategy with common parameters,
/// or only Java's consistent hash when its properties name that class.
fn candidates(snapshot: &Snapshot, client: &str) -> Vec<Named> {
    let java_hash = java_property(snapshot, client).is_some_and(|p| p.split('@').next() == Some(JAVA_CONSISTENT_HASH));
    let mut out = Vec::new();
    if !java_hash {
        out.extend(["averagely", "circle", "balanced_sticky", "balanced_sticky_v2"].iter().filter_map(|n| Named::from_config(n, &Value::Null).ok()));
    }
    let hashes: &[&str] = if java_hash { &["consistent_hash"] } else { &["consistent_hash", "go_consistent_hash"] };
    for name in hashes {
        out.extend(NODE_COUNTS.iter().filter_map(|n| Named::from_config(name, &json!({ "virtual_node_count": n })).ok()));
    }
    out
}

/// What one client holds per topic (entries being given up excluded).
fn holdings<'a>(snapshot: &'a Snapshot, client: &str) -> Option<BTreeMap<&'a str, BTreeSet<&'a MessageQueue>>> {
    let running = snapshot.clients.iter().find(|c| c.client_id == client)?.running.as_ref()?;
    let mut out: BTreeMap<&str, BTreeSet<&MessageQueue>> = BTreeMap::new();
    for h in running.held.iter().filter(|h| !h.dropped) {
        out.entry(&h.queue.topic).or_default().insert(&h.queue);
    }
    Some(out)
}

/// Resolves every member's strategy: stated, else by fingerprint over the sorted `topics`.
pub(super) fn resolve(
    snapshot: &Snapshot,
    topics: &BTreeMap<&str, Vec<MessageQueue>>,
    members: &[String],
    stated: &dyn Fn(&str) -> Option<Named>,
) -> (BTreeMap<String, Named>, Vec<ClientStrategy>) {
    let mut known = BTreeMap::new();
    let mut report = Vec::new();
    // Each candidate's whole-group answer per topic, computed once for all clients it is tried on.
    let mut answers: BTreeMap<String, BTreeMap<&str, BTreeMap<String, BTreeSet<MessageQueue>>>> = BTreeMap::new();
    for id in members.iter().collect::<BTreeSet<_>>() {
        if let Some(s) = stated(id) {
            report.push(ClientStrategy { client_id: id.clone(), strategy: Some(s.label.clone()), source: StrategySource::Stated, also_matches: Vec::new() });
            known.insert(id.clone(), s);
            continue;
        }
        let held = holdings(snapshot, id).filter(|h| !h.is_empty());
        let mut matching: Vec<Named> = Vec::new();
        if let Some(held) = &held {
            for candidate in candidates(snapshot, id) {
                let per_topic = answers.entry(candidate.label.clone()).or_insert_with(|| group_answers(snapshot, topics, members, &candidate));
                let reproduces = topics.keys().all(|t| {
                    let want = held.get(t).map(|s| s.iter().copied().collect::<Vec<_>>()).unwrap_or_default();
                    let got: Vec<&MessageQueue> = per_topic.get(t).and_then(|m| m.get(id.as_str())).map(|s| s.iter().collect()).unwrap_or_default();
                    want == got
                });
                if reproduces {
                    matching.push(candidate);
                }
            }
        }
        let mut matching = matching.into_iter();
        match matching.next() {
            Some(first) => {
                let also = matching.map(|m| m.label).collect();
                report.push(ClientStrategy {
                    client_id: id.clone(),
                    strategy: Some(first.label.clone()),
                    source: StrategySource::Fingerprint,
                    also_matches: also,
                });
                known.insert(id.clone(), first);
            }
            None => {
                let (strategy, source) = match foreign_class(snapshot, id) {
                    Some(class) => (Some(class.to_owned()), StrategySource::Foreign),
                    None => (None, StrategySource::Unknown),
                };
                report.push(ClientStrategy { client_id: id.clone(), strategy, source, also_matches: Vec::new() });
            }
        }
    }
    (known, report)
}

/// Every member's share of every topic under one strategy.
fn group_answers<'a>(
    snapshot: &Snapshot,
    topics: &BTreeMap<&'a str, Vec<MessageQueue>>,
    members: &[String],
    strategy: &Named,
) -> BTreeMap<&'a str, BTreeMap<String, BTreeSet<MessageQueue>>> {
    topics.iter().map(|(topic, mq_all)| (*topic, shares(&snapshot.group, strategy, mq_all, members))).collect()
}

/// Every member's share of `mq_all` under one strategy: its group view in one call, or, when that
/// fails (one member's error fails the whole view), each member asked alone, failing ones left out.
pub(super) fn shares(group: &str, strategy: &Named, mq_all: &[MessageQueue], members: &[String]) -> BTreeMap<String, BTreeSet<MessageQueue>> {
    match strategy.strategy.allocate_group(group, mq_all, members) {
        Ok(view) => view.members.iter().map(|m| (m.client_id.clone(), m.allocation.to_queues(mq_all).into_iter().collect())).collect(),
        Err(_) => members
            .iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter_map(|id| Some((id.clone(), strategy.strategy.allocate(group, id, mq_all, members).ok()?.into_iter().collect())))
            .collect(),
    }
}

/// The members' strategies, grouped (a foreign class is a group of its own): more than one group
/// is a finding (their maps cannot agree). Returns the known strategy most members run (ties: the
/// first member's in sorted order), the one "if every client agreed" is computed with.
pub(super) fn mixed(members: &[String], known: &BTreeMap<String, Named>, reported: &[ClientStrategy], findings: &mut Vec<Finding>) -> Option<Named> {
    // (identity, label, the strategy when known, members)
    let mut groups: Vec<(String, String, Option<Named>, Vec<String>)> = Vec::new();
    for id in members.iter().collect::<BTreeSet<_>>() {
        let (key, label, named) = match known.get(id.as_str()) {
            Some(s) => (s.identity().to_owned(), s.label.clone(), Some(s.clone())),
            None => match reported.iter().find(|c| c.client_id == *id && c.source == StrategySource::Foreign).and_then(|c| c.strategy.clone()) {
                Some(class) => (format!("foreign:{class}"), class, None),
                None => continue,
            },
        };
        match groups.iter_mut().find(|(k, ..)| *k == key) {
            Some((.., ids)) => ids.push(id.clone()),
            None => groups.push((key, label, named, vec![id.clone()])),
        }
    }
    if groups.len() > 1 {
        let described: Vec<String> = groups.iter().map(|(_, label, _, ids)| format!("{label} ({})", ids.join(", "))).collect();
        findings.push(Finding {
            kind: FindingKind::MixedStrategies,
            topic: None,
            queues: Vec::new(),
            clients: groups.iter().flat_map(|(.., ids)| ids.clone()).collect(),
            detail: format!("the members run {} strategies, whose maps cannot agree: {}", groups.len(), described.join("; ")),
            lag: None,
        });
    }
    let known_groups = groups.into_iter().filter_map(|(_, _, named, ids)| Some((named?, ids)));
    let known_groups: Vec<(Named, Vec<String>)> = known_groups.collect();
    let most = known_groups.iter().map(|(_, ids)| ids.len()).max()?;
    known_groups.into_iter().find(|(_, ids)| ids.len() == most).map(|(s, _)| s)
}
