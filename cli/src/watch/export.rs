//! A watcher's state as the metric contract's series (`metrics.rs`): every series of a group set
//! each round, 0 when healed, and a group that failed this round keeps its last good values with
//! `rmq_rebalance_group_up` 0.

use std::collections::BTreeMap;

use rocketmq_rebalance::diagnose::watch::{Cause, GroupVerdict, QueueStatus};
use rocketmq_rebalance::diagnose::FindingKind;

use super::metrics::{Exposition, CONTRACT_VERSION};
use super::round::Watcher;

fn flag(on: bool) -> f64 {
    if on {
        1.0
    } else {
        0.0
    }
}

pub fn exposition(w: &Watcher) -> Exposition {
    let mut e = Exposition::default();
    let c = w.cluster.as_str();
    e.add("rmq_rebalance_build_info", &[env!("CARGO_PKG_VERSION"), env!("RMQ_COMMIT"), CONTRACT_VERSION], 1.0);
    e.add("rmq_rebalance_groups", &[c], w.groups.len() as f64);
    e.add("rmq_rebalance_rounds_total", &[c], w.rounds as f64);
    e.add("rmq_rebalance_round_duration_seconds", &[c], w.last_round.as_secs_f64());
    for (request, sent, failed) in w.stats.counts() {
        let code = request.code().to_string();
        e.add("rmq_rebalance_requests_total", &[c, request.name(), &code], sent as f64);
        e.add("rmq_rebalance_request_failures_total", &[c, request.name(), &code], failed as f64);
    }
    for (group, state) in &w.groups {
        let g = group.as_str();
        e.add("rmq_rebalance_group_up", &[c, g], flag(state.error.is_none() && state.verdict.is_some()));
        if let Some(at) = state.last_success_ms {
            e.add("rmq_rebalance_group_last_success_timestamp_seconds", &[c, g], at as f64 / 1000.0);
        }
        if let Some(v) = &state.verdict {
            group_series(&mut e, c, v, state.watch_findings());
        }
    }
    e
}

fn group_series(e: &mut Exposition, c: &str, v: &GroupVerdict, findings: BTreeMap<FindingKind, usize>) {
    let g = v.consumer_group.as_str();
    for s in QueueStatus::ALL {
        e.add("rmq_rebalance_group_status", &[c, g, s.name()], flag(v.status == s));
    }
    e.add("rmq_rebalance_group_members", &[c, g], v.members as f64);
    e.add("rmq_rebalance_group_useful_members_max", &[c, g], v.useful_members_max as f64);
    for kind in FindingKind::ALL {
        e.add("rmq_rebalance_group_findings", &[c, g, kind.name()], findings.get(&kind).copied().unwrap_or(0) as f64);
    }
    for (topic, lag) in &v.topics {
        let t = topic.as_str();
        let on_topic = || v.queues.iter().filter(move |q| *q.queue.topic == *topic);
        for s in QueueStatus::ALL {
            e.add("rmq_rebalance_topic_queues", &[c, g, t, s.name()], on_topic().filter(|q| q.status == s).count() as f64);
        }
        for cause in Cause::ALL {
            e.add("rmq_rebalance_topic_cause_queues", &[c, g, t, cause.name()], on_topic().filter(|q| q.cause == Some(cause)).count() as f64);
            let lag: i64 = on_topic().filter(|q| q.cause == Some(cause)).filter_map(|q| q.lag).sum();
            e.add("rmq_rebalance_topic_cause_lag_messages", &[c, g, t, cause.name()], lag as f64);
        }
        e.add("rmq_rebalance_topic_flapping_queues", &[c, g, t], on_topic().filter(|q| q.flapping).count() as f64);
        e.add("rmq_rebalance_topic_lag_messages", &[c, g, t], lag.lag as f64);
        e.add("rmq_rebalance_topic_drainable_lag_messages", &[c, g, t], lag.drainable_lag as f64);
        e.add("rmq_rebalance_topic_stuck_lag_messages", &[c, g, t], lag.stuck_lag as f64);
        e.add("rmq_rebalance_owner_changes_total", &[c, g, t], v.changes_total.get(topic).copied().unwrap_or(0) as f64);
    }
    for q in &v.queues {
        let id = q.queue.queue_id.to_string();
        let labels = [c, g, &*q.queue.topic, &*q.queue.broker_name, id.as_str()];
        let with = |last: &'static str| [labels[0], labels[1], labels[2], labels[3], labels[4], last];
        for s in QueueStatus::ALL {
            e.add("rmq_rebalance_queue_status", &with(s.name()), flag(q.status == s));
        }
        for cause in Cause::ALL {
            e.add("rmq_rebalance_queue_cause", &with(cause.name()), flag(q.cause == Some(cause)));
        }
        if let Some(lag) = q.lag {
            e.add("rmq_rebalance_queue_lag_messages", &labels, lag as f64);
        }
        for h in &q.holders {
            e.add("rmq_rebalance_queue_holder_info", &[labels[0], labels[1], labels[2], labels[3], labels[4], h.as_str()], 1.0);
        }
    }
}
