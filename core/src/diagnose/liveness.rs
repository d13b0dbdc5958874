//! Held queues that are not being consumed: an orderly queue whose lock its holder cannot get (the
//! broker keeps it for someone else), and a queue not pulled for longer than Java's idle limit.

use std::collections::BTreeMap;

use super::{queue_text, Finding, FindingKind, Snapshot};
use crate::MessageQueue;

/// The broker drops an unrenewed orderly lock after 60 s (`rebalance.lockMaxLiveTime`): a holder
/// whose last successful lock is older than that, and which is still refused, is refused because
/// another client keeps renewing it. (Java stamps `lastLockTimestamp` on success only; Go stamps it
/// on every attempt, so a Go holder's age says nothing and is not judged.)
pub const LOCK_EXPIRY_MS: i64 = 60_000;
/// A push consumer stamps a queue's last pull each time its pull loop comes round, also when flow
/// control, a pause or a missing orderly lock makes it wait, and a long poll returns within 15 s
/// (Java) or 20 s (Go) even when empty, so a live queue is stamped at least every 30 s or so. Both
/// clients drop a queue unstamped for 120 s (Java's `PULL_MAX_IDLE_TIME`, Go's `_PullMaxIdleTime`)
/// and take it again, whose new pull blocks again if the cause stays: the age cycles below about
/// 140 s. Judging at 120 s would show the fault only in the seconds before each drop; at 60 s, twice
/// the longest normal gap, it shows for most of each cycle.
pub const PULL_IDLE_MS: i64 = 60_000;

pub(super) fn judge(snapshot: &Snapshot, judged: &[&str], lag: &BTreeMap<&MessageQueue, i64>, findings: &mut Vec<Finding>) {
    for c in &snapshot.clients {
        let go = snapshot.connections.iter().any(|k| k.client_id == c.client_id && k.language == "GO");
        let Some(running) = &c.running else { continue };
        let orderly = super::is_orderly(running);
        // A lite pull consumer pulls when its application asks: its pull age says nothing.
        let pushes = running.properties.get("PROP_CONSUME_TYPE").is_none_or(|t| t == "CONSUME_PASSIVELY");
        for h in running.held.iter().filter(|h| !h.dropped && judged.contains(&&*h.queue.topic)) {
            let on = |kind, clients, detail| Finding {
                kind,
                topic: Some(h.queue.topic.to_string()),
                queues: vec![h.queue.clone()],
                clients,
                detail,
                lag: lag.get(&h.queue).copied(),
            };
            let read_at = running.read_at_ms.unwrap_or(snapshot.taken_at_ms);
            let (lock_age, pull_age) = ((read_at - h.last_lock_ms) / 1000, (read_at - h.last_pull_ms) / 1000);
            if orderly && !go && !h.locked && h.last_lock_ms > 0 && read_at - h.last_lock_ms > LOCK_EXPIRY_MS {
                let others = listing(snapshot, &c.client_id, &h.queue);
                let probable = if others.is_empty() {
                    "a client that lists it no more but still renews it: one outside this member list, or one sharing an id".to_owned()
                } else {
                    format!("probably {}, which still lists it", others.join(", "))
                };
                let detail = format!(
                    "{} holds orderly {} without its lock for {lock_age} s, longer than the broker keeps an unrenewed lock: it is held by {probable}",
                    c.client_id,
                    queue_text(&h.queue)
                );
                findings.push(on(FindingKind::OrderlyLockStuck, std::iter::once(c.client_id.clone()).chain(others).collect(), detail));
            } else if pushes && h.last_pull_ms > 0 && read_at - h.last_pull_ms > PULL_IDLE_MS {
                let detail = format!("{} holds {} but has not pulled it for {pull_age} s (a live pull loop comes round within about 30 s; the client itself drops a queue idle for 120 s and takes it again)", c.client_id, queue_text(&h.queue));
                findings.push(on(FindingKind::NotPulled, vec![c.client_id.clone()], detail));
            }
        }
    }
}

/// The other clients whose running info lists `queue`, held or being given up.
fn listing(snapshot: &Snapshot, client: &str, queue: &MessageQueue) -> Vec<String> {
    snapshot
        .clients
        .iter()
        .filter(|o| o.client_id != client && o.running.iter().flat_map(|r| &r.held).any(|h| h.queue == *queue))
        .map(|o| o.client_id.clone())
        .collect()
}
