//! Who holds each queue of a topic, against whom each member's own strategy names and whom the
//! strategy most members run would name: orphaned, double-held (classified), unexpected holders.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::strategies::{shares, Named};
use super::{queue_text, Diagnosis, Finding, FindingKind, QueueRow, Snapshot};
use crate::strategy::distinct_in_order;
use crate::MessageQueue;

#[allow(clippy::too_many_arguments)]
pub(super) fn judge_topic(
    snapshot: &Snapshot,
    topic: &str,
    mq_all: &[MessageQueue],
    members: &[String],
    known: &BTreeMap<String, Named>,
    agreed: Option<&Named>,
    lag: &BTreeMap<&MessageQueue, i64>,
    out: &mut Diagnosis,
) {
    let mut holders: BTreeMap<&MessageQueue, (Vec<String>, Vec<String>)> = mq_all.iter().map(|q| (q, (Vec::new(), Vec::new()))).collect();
    for c in &snapshot.clients {
        for h in c.running.iter().flat_map(|r| &r.held).filter(|h| &*h.queue.topic == topic) {
            if let Some((held, leaving)) = holders.get_mut(&h.queue) {
                if h.dropped { leaving } else { held }.push(c.client_id.clone());
            }
        }
    }
    // Each member's own share, under its own strategy: one group view per distinct strategy.
    let mut views: HashMap<String, BTreeMap<String, BTreeSet<MessageQueue>>> = HashMap::new();
    for s in distinct_in_order(members).into_iter().filter_map(|id| known.get(id)).chain(agreed) {
        views.entry(s.identity().to_owned()).or_insert_with(|| shares(&snapshot.group, s, mq_all, members));
    }
    let mut expected: BTreeMap<&MessageQueue, Vec<String>> = BTreeMap::new();
    let mut own: BTreeMap<&str, &BTreeSet<MessageQueue>> = BTreeMap::new();
    let position: HashMap<&MessageQueue, usize> = mq_all.iter().enumerate().map(|(i, q)| (q, i)).collect();
    for id in members.iter().collect::<BTreeSet<_>>() {
        let Some(share) = known.get(id.as_str()).and_then(|s| views[s.identity()].get(id.as_str())) else { continue };
        for q in share {
            if let Some(&i) = position.get(q) {
                expected.entry(&mq_all[i]).or_default().push(id.clone());
            }
        }
        own.insert(id, share);
    }
    // Holders under the majority's strategy, members in the member list's order.
    let mut if_agreed: BTreeMap<&MessageQueue, Vec<String>> = BTreeMap::new();
    if let Some(view) = agreed.map(|a| &views[a.identity()]) {
        for id in distinct_in_order(members) {
            for q in view.get(id).into_iter().flatten() {
                if_agreed.entry(q).or_default().push(id.to_owned());
            }
        }
    }
    let silent = snapshot.clients.iter().filter(|c| c.running.is_none()).count();
    let mut unanswered = if silent == 0 { String::new() } else { format!(" ({silent} clients did not say what they hold)") };
    if orderly_beside_go(snapshot) {
        // Java's orderly rebalance takes a queue only once its lock is granted, and Go never
        // unlocks what it gives up: the queue waits, unheld, until the Go lock lapses (60 s).
        unanswered += "; an orderly Java client does not take a queue whose lock a Go client it replaced still has (Go never unlocks: up to 60 s)";
    }
    let mut orphaned = Vec::new();
    for (q, (held, leaving)) in &holders {
        match held.len() {
            // A queue whose holder is finishing its last call before giving it up is a handoff in
            // progress, not one nobody consumes: the row shows it as "giving up".
            0 if leaving.is_empty() => orphaned.push((*q).clone()),
            0 => {}
            1 => {}
            _ => out.findings.push(Finding {
                kind: FindingKind::DoubleHeld,
                topic: Some(topic.to_owned()),
                queues: vec![(*q).clone()],
                clients: held.clone(),
                detail: format!("{} is held by {} clients at once: {}", queue_text(q), held.len(), double_kind(snapshot, q, held)),
                lag: None,
            }),
        }
        for h in held {
            if own.get(h.as_str()).is_some_and(|share| !share.contains(*q)) {
                let why = match known.get(h.as_str()) {
                    Some(s) if agreed.is_some_and(|a| a.label != s.label) => format!("its own strategy ({}) is not the one most members run", s.label),
                    _ => format!("its own strategy over the broker's {} members does not give it (a stale view)", members.len()),
                };
                out.findings.push(Finding {
                    kind: FindingKind::UnexpectedHolder,
                    topic: Some(topic.to_owned()),
                    queues: vec![(*q).clone()],
                    clients: vec![h.clone()],
                    detail: format!("{h} holds {}: {why}", queue_text(q)),
                    lag: None,
                });
            }
        }
        out.queues.push(QueueRow {
            queue: (*q).clone(),
            holders: held.clone(),
            handing_off: leaving.clone(),
            expected: expected.get(q).cloned().unwrap_or_default(),
            if_agreed: if_agreed.get(*q).cloned().unwrap_or_default(),
            lag: lag.get(q).copied(),
        });
    }
    if !orphaned.is_empty() {
        out.findings.push(Finding {
            kind: FindingKind::Orphaned,
            topic: Some(topic.to_owned()),
            detail: format!("{} of {} queues of {topic} are held by nobody: nobody consumes them{unanswered}", orphaned.len(), mq_all.len()),
            queues: orphaned,
            clients: Vec::new(),
            lag: None,
        });
    }
}

/// An orderly group with a Go member.
fn orderly_beside_go(snapshot: &Snapshot) -> bool {
    let orderly = snapshot.clients.iter().any(|c| c.running.as_ref().is_some_and(super::is_orderly));
    orderly && snapshot.connections.iter().any(|c| c.language == "GO")
}

/// How bad two holders are: orderly queues both locked consume out of order; otherwise duplicates.
/// A lock counts only for an orderly client: a concurrent one takes no lock, and a Go client
/// reports `locked` for its concurrent queues too.
fn double_kind(snapshot: &Snapshot, q: &MessageQueue, held: &[String]) -> &'static str {
    let locked = held
        .iter()
        .filter(|id| {
            snapshot.clients.iter().any(|c| {
                c.client_id == **id && c.running.iter().any(|r| super::is_orderly(r) && r.held.iter().any(|h| &h.queue == q && h.locked && !h.dropped))
            })
        })
        .count();
    if locked == held.len() {
        "all locked as orderly queues, each consuming it (critical: order is broken)"
    } else if locked > 0 {
        "one holds the orderly lock and the others wait for it (a handoff in progress: not consumed twice)"
    } else {
        "each consuming it (its messages are consumed twice)"
    }
}
