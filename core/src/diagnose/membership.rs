//! Who the members are: each broker's list (a client asks a random one, so disagreeing brokers
//! split the group), ids shared by two processes, and clients that did not say what they hold.

use std::collections::{BTreeMap, BTreeSet};

use super::{Finding, FindingKind, Snapshot};
use crate::java_order::sort_client_ids;

fn finding(kind: FindingKind, clients: Vec<String>, detail: String) -> Finding {
    Finding { kind, topic: None, queues: Vec::new(), clients, detail, lag: None }
}

/// The member list the expected map is computed over (the first answering broker's, sorted as
/// a client sorts it), after noting brokers that disagree.
pub(super) fn members(snapshot: &Snapshot, findings: &mut Vec<Finding>) -> Vec<String> {
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
            let detail = format!("{first_broker} lists {} members and {broker} lists {}: a client splits by the broker it asks", first.len(), ids.len());
            findings.push(finding(FindingKind::MembershipDisagreement, a.symmetric_difference(&b).map(|s| (*s).clone()).collect(), detail));
        }
    }
    first
}

pub(super) fn duplicates(snapshot: &Snapshot, members: &[String], findings: &mut Vec<Finding>) {
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
        let n = at.len().max(counts.get(id).copied().unwrap_or(1));
        let detail = format!("{id} is {n} processes ({}): they compute one share between them and leave another", at.join(", "));
        findings.push(finding(FindingKind::DuplicateClientId, vec![id.to_owned()], detail));
    }
}

/// The likely reason a client gave no running info, from what its connection says.
fn likely_reason(snapshot: &Snapshot, client: &str, error: &str) -> &'static str {
    let conn = snapshot.connections.iter().find(|c| c.client_id == client);
    if refused_nan(error) {
        // rocketmq-client-go divides by the time between the first and last sample of a rate,
        // 0/0 while a statistic has one sample, and its JSON encoder refuses the NaN.
        "the Go client could not encode its own statistics (a rate over a single sample, as in the seconds after a topic's first messages, is NaN to it): ask again"
    } else if is_timeout(error) {
        "it did not answer within the broker's 10 s relay (a busy or frozen process, or a client that does not implement the request)"
    } else if conn.is_some_and(|c| !matches!(c.language.as_str(), "JAVA" | "GO")) {
        "its language's client may not implement running info (gRPC clients behind a proxy do not)"
    } else {
        "the broker could not relay the request to it"
    }
}

/// The client itself answered, refusing to encode a NaN statistic (rocketmq-client-go): it is
/// alive, only its running info is missing this time.
pub fn refused_nan(error: &str) -> bool {
    error.contains("unsupported value: NaN")
}

/// A relay that ran out of time, in each wording met: a 4.9 broker's "timed out", a 5.x broker's
/// "... timeout, 10000(ms)", this client's own "did not answer within".
fn is_timeout(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    e.contains("timed out") || e.contains("timeout") || e.contains("did not answer within")
}

/// Brokers whose member list could not be read: the diagnosis is partial (a client that asks such
/// a broker may see other members; its queues' lag is unknown), never healthy.
pub(super) fn unread(snapshot: &Snapshot, findings: &mut Vec<Finding>) {
    for b in snapshot.brokers.iter().filter(|b| b.consumer_ids.is_none()) {
        let why = b.error.as_deref().unwrap_or("no answer");
        let detail =
            format!("{} at {} did not answer: {why}; its member list and its queues' offsets are unknown, so this diagnosis is partial", b.broker, b.addr);
        findings.push(finding(FindingKind::BrokerUnreadable, Vec::new(), detail));
    }
}

pub(super) fn silent(snapshot: &Snapshot, findings: &mut Vec<Finding>) {
    for c in snapshot.clients.iter().filter(|c| c.running.is_none()) {
        let why = c.error.as_deref().unwrap_or("no answer");
        let detail = format!("{} did not report what it holds: {why}; likely {}", c.client_id, likely_reason(snapshot, &c.client_id, why));
        findings.push(finding(FindingKind::RunningInfoUnavailable, vec![c.client_id.clone()], detail));
    }
}
