//! Properties of BALANCED_STICKY_V2: its stated rule holds on any group (proptest over groups and
//! caps, including the tight caps that make the walk fail and the augmenting path run), every
//! queue has one owner, and the answer is the same for one member and for the group, whatever
//! the order of the lists.

use std::collections::HashMap;

use super::*;
use crate::strategy::Strategy;
use crate::MessageQueue;
use crate::StrategyConfig;
use proptest::prelude::*;
use proptest::strategy::Strategy as _;

/// A group: per topic, queues on each of a few brokers; members with ids of a few hosts.
fn group() -> impl proptest::strategy::Strategy<Value = (Vec<MessageQueue>, Vec<String>)> {
    (prop::collection::vec((1usize..4, 0usize..20), 1..7), 1usize..30, 1usize..6).prop_map(|(topics, members, hosts)| {
        let mut queues = Vec::new();
        for (t, (brokers, per)) in topics.into_iter().enumerate() {
            for b in 0..brokers {
                queues.extend((0..per).map(|q| MessageQueue::new(format!("T{t}"), format!("broker-{b}"), q as i32)));
            }
        }
        let ids = (0..members).map(|m| format!("10.0.0.{}@{}", m % hosts, 100 + m)).collect();
        (queues, ids)
    })
}

/// Checks the rule of `capacity` on `s`'s whole-group answer; returns the member totals.
fn check_rule(s: &BalancedStickyV2, mq: &[MessageQueue], ids: &[String]) -> Result<(), TestCaseError> {
    let view = s.allocate_group("g", mq, ids).unwrap();
    let (q, c) = (mq.len(), view.members.len());
    let mut owners = vec![0usize; q];
    let mut totals = Vec::new();
    let mut topic_size: HashMap<&str, usize> = HashMap::new();
    for x in mq {
        *topic_size.entry(&x.topic).or_default() += 1;
    }
    for m in &view.members {
        let positions = m.allocation.positions().unwrap().collect::<Vec<_>>();
        let mut per_topic: HashMap<&str, usize> = HashMap::new();
        for &p in &positions {
            owners[p] += 1;
            *per_topic.entry(&mq[p].topic).or_default() += 1;
        }
        for (topic, n) in per_topic {
            prop_assert!(n <= topic_cap(topic_size[topic], c), "{}: {n} of {topic} ({} queues, {c} members)", m.client_id, topic_size[topic]);
        }
        totals.push(positions.len());
        // One member's answer is its share of the group view, whatever the order of the lists.
        let mut reversed = (mq.to_vec(), ids.to_vec());
        reversed.0.reverse();
        reversed.1.reverse();
        let mine: Vec<&MessageQueue> = positions.iter().map(|&p| &mq[p]).collect();
        let mut alone = s.allocate("g", &m.client_id, &reversed.0, &reversed.1).unwrap();
        let mut mine: Vec<MessageQueue> = mine.into_iter().cloned().collect();
        alone.sort();
        mine.sort();
        prop_assert_eq!(alone, mine);
    }
    prop_assert!(owners.iter().all(|&n| n == 1), "a queue without exactly one owner");
    let (most, least) = (totals.iter().max().copied().unwrap_or(0), totals.iter().min().copied().unwrap_or(0));
    prop_assert!(most <= total_cap(q, c, s.overload_percent()), "total {most} over the cap ({q} queues, {c} members)");
    let lower = lower_cap(q, c, s.underload_percent());
    prop_assert!(least >= lower, "total {least} under the lower cap {lower}");
    prop_assert!(!(least == 0 && most >= 2), "a member idle while another holds {most}");
    Ok(())
}

proptest! {
    #[test]
    fn the_rule_holds_on_any_group_with_the_default_caps((mq, ids) in group()) {
        prop_assume!(!mq.is_empty());
        check_rule(&BalancedStickyV2::default(), &mq, &ids)?;
    }

    /// Caps from none to loose: with no overload and no underload the totals are exact, and the
    /// walk finds no room for some queues (the augmenting path's cases).
    #[test]
    fn the_rule_holds_with_any_caps((mq, ids) in group(), overload in 0i64..120, underload in 0i64..=100, host in any::<bool>()) {
        prop_assume!(!mq.is_empty());
        let key = if host { StableKey::Host } else { StableKey::ClientId };
        let s = BalancedStickyV2::new(key).with_overload_percent(overload).unwrap().with_underload_percent(underload).unwrap();
        check_rule(&s, &mq, &ids)?;
    }
}

/// With no overload and no underload every total is the floor or the ceiling of Q/C (worked out
/// from the caps: ceil(Q/C) at most, floor(Q/C) at least), as BALANCED_STICKY's are.
#[test]
fn no_overload_and_no_underload_is_exact() {
    let mq: Vec<MessageQueue> = (0..3).flat_map(|t| (0..7).map(move |q| MessageQueue::new(format!("T{t}"), "b", q))).collect();
    let ids: Vec<String> = (0..4).map(|m| format!("10.0.0.{m}@1")).collect();
    let s = BalancedStickyV2::default().with_overload_percent(0).unwrap().with_underload_percent(0).unwrap();
    let view = s.allocate_group("g", &mq, &ids).unwrap();
    let mut totals: Vec<usize> = view.members.iter().map(|m| m.allocation.len()).collect();
    totals.sort();
    assert_eq!(totals, [5, 5, 5, 6]);
}

/// A member that joins takes queues, and most of the others' stay where they were: on 12 topics
/// of 16 queues over 10 members, a join moves fewer than twice the newcomer's fair share
/// (192 / 11, about 17); BALANCED_STICKY moves more than that on most such groups.
#[test]
fn a_join_moves_about_the_newcomers_share() {
    let mq: Vec<MessageQueue> = (0..12).flat_map(|t| (0..16).map(move |q| MessageQueue::new(format!("Topic{t}"), "broker-a", q))).collect();
    let ids: Vec<String> = (0..10).map(|m| format!("10.0.0.{m}@{}", 4000 + m)).collect();
    let mut joined = ids.clone();
    joined.push("10.0.1.1@5000".into());
    let s = BalancedStickyV2::default();
    let owners = |ids: &[String]| -> HashMap<usize, String> {
        let view = s.allocate_group("g", &mq, ids).unwrap();
        view.members.iter().flat_map(|m| m.allocation.positions().unwrap().map(|p| (p, m.client_id.clone())).collect::<Vec<_>>()).collect()
    };
    let (before, after) = (owners(&ids), owners(&joined));
    let moved = (0..mq.len()).filter(|p| before[p] != after[p]).count();
    let fair = mq.len() as f64 / joined.len() as f64;
    assert!(moved as f64 <= 2.0 * fair, "moved {moved}, fair share {fair:.1}");
    assert!(after.values().filter(|o| *o == "10.0.1.1@5000").count() > 0);
}

#[test]
fn parameters_are_checked_and_named() {
    assert_eq!(BalancedStickyV2::default().name(), "BALANCED_STICKY_V2");
    let s = BalancedStickyV2::from_parts("before", Some("#"), 30, 40).unwrap();
    assert_eq!(s.name(), "BALANCED_STICKY_V2-before:#-overload:30");
    for (o, u, text) in [(-1, 40, "overload_percent -1"), (401, 40, "overload_percent 401"), (20, 101, "underload_percent 101")] {
        let err = BalancedStickyV2::from_parts("client_id", None, o, u).unwrap_err().to_string();
        assert!(err.contains(text) && err.contains("balanced_sticky_v2"), "{err}");
    }
    assert!(BalancedStickyV2::from_parts("before", None, 20, 40).unwrap_err().to_string().contains("needs a separator"));
    let config = StrategyConfig::from_name("BALANCED_STICKY_V2", &serde_json::json!({ "stable_key": "host", "underload_percent": 100 })).unwrap();
    assert_eq!(StrategyConfig::from_value(&config.to_value()).unwrap(), config);
    assert_eq!(config.build().unwrap().name(), "BALANCED_STICKY_V2-host-underload:100");
    let err = StrategyConfig::from_name("balanced_sticky_v2", &serde_json::json!({ "overload_percent": 1000 })).unwrap().build().err().unwrap();
    assert!(err.to_string().contains("overload_percent 1000"), "{err}");
}
