//! What the allocation rule does not govern, said rather than judged: a broadcasting group (every
//! client consumes every queue) and topics consumed by POP (the broker hands out messages). And
//! members that subscribe differently, which the broker's group-level tables cannot represent.

use std::collections::{BTreeMap, BTreeSet};

use super::{Finding, FindingKind, Snapshot};

fn not_judged(topic: Option<&str>, clients: Vec<String>, detail: String) -> Finding {
    Finding { kind: FindingKind::NotJudged, topic: topic.map(str::to_owned), queues: Vec::new(), clients, detail, lag: None }
}

/// The topics whose holders are judged: none in a broadcasting group, none consumed by POP.
pub(super) fn judged_topics<'a>(snapshot: &'a Snapshot, findings: &mut Vec<Finding>) -> Vec<&'a str> {
    let broadcasting: Vec<String> = snapshot
        .clients
        .iter()
        .filter(|c| c.running.as_ref().and_then(|r| r.properties.get("messageModel")).is_some_and(|m| m == "BROADCASTING"))
        .map(|c| c.client_id.clone())
        .collect();
    if snapshot.message_model.as_deref() == Some("BROADCASTING") || !broadcasting.is_empty() {
        let detail = "a broadcasting group: every client consumes every queue with its own offsets, so no queue is allocated and none is judged".to_owned();
        findings.push(not_judged(None, broadcasting, detail));
        return Vec::new();
    }
    let mut out = Vec::new();
    for topic in snapshot.topics.keys() {
        let pop: Vec<String> = snapshot
            .clients
            .iter()
            .filter(|c| c.running.iter().flat_map(|r| &r.pop_queues).any(|q| *q.topic == **topic))
            .map(|c| c.client_id.clone())
            .collect();
        if pop.is_empty() {
            out.push(topic.as_str());
        } else {
            let detail = format!("{topic} is consumed by POP: the broker hands its messages to any client, so its queues are not allocated and not judged");
            findings.push(not_judged(Some(topic), pop, detail));
        }
    }
    out
}

/// One finding per topic that some members subscribe to and others do not, or with another filter.
/// Retry topics are left out (every member subscribes to its own), and so are clients whose
/// running info lists no subscription at all (nothing to compare).
pub(super) fn mixed_subscriptions(snapshot: &Snapshot, findings: &mut Vec<Finding>) {
    let subscribed: BTreeMap<&str, BTreeMap<&str, String>> = snapshot
        .clients
        .iter()
        .filter_map(|c| {
            let subs: BTreeMap<&str, String> = c
                .running
                .iter()
                .flat_map(|r| &r.subscriptions)
                .filter(|s| !s.topic.starts_with("%RETRY%"))
                .map(|s| (s.topic.as_str(), format!("{} {}", s.expression_type, s.expression)))
                .collect();
            (!subs.is_empty()).then_some((c.client_id.as_str(), subs))
        })
        .collect();
    let topics: BTreeSet<&str> = subscribed.values().flat_map(|s| s.keys().copied()).collect();
    for topic in topics {
        // Each way of subscribing (a filter, or "not subscribed") with its clients.
        let mut ways: BTreeMap<Option<&String>, Vec<String>> = BTreeMap::new();
        for (client, subs) in &subscribed {
            ways.entry(subs.get(topic)).or_default().push((*client).to_owned());
        }
        if ways.len() < 2 {
            continue;
        }
        let (_, most) = ways.iter().max_by_key(|(_, ids)| ids.len()).map(|(w, ids)| (*w, ids.clone())).unwrap_or_default();
        let described: Vec<String> =
            ways.iter().map(|(w, ids)| format!("{} ({})", w.map_or("not subscribed".to_owned(), |f| format!("filter {f}")), ids.join(", "))).collect();
        let consequence = if ways.contains_key(&None) {
            "the others still count the non-subscribers as members, so the queues that fall to them are consumed by nobody"
        } else {
            "each heartbeat replaces the group's one filter on the broker, so which messages are delivered flaps"
        };
        findings.push(Finding {
            kind: FindingKind::MixedSubscriptions,
            topic: Some(topic.to_owned()),
            queues: Vec::new(),
            clients: subscribed.keys().map(|c| (*c).to_owned()).filter(|c| !most.contains(c)).collect(),
            detail: format!("members subscribe to {topic} in {} ways: {}; {consequence}", ways.len(), described.join("; ")),
            lag: None,
        });
    }
}
