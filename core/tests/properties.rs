//! Invariants of the Java strategies on Java-sorted input with distinct ids (proptest).
//!
//! Seeded: the seed is printed and can be replaced with RMQ_PROPTEST_SEED=<u64> to replay.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rocketmq_rebalance::strategy::{Averagely, AveragelyByCircle, ByMachineRoom, ConsistentHash, MachineRoomNearby, SeparatorResolver};
use rocketmq_rebalance::Strategy as Allocate;
use rocketmq_rebalance::{java_order, verify, MessageQueue};

fn config() -> Config {
    let seed = std::env::var("RMQ_PROPTEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_2026);
    println!("proptest seed {seed} (set RMQ_PROPTEST_SEED to replay another)");
    Config { rng_seed: RngSeed::Fixed(seed), cases: 128, failure_persistence: None, ..Config::default() }
}

const NAMES: &[&str] = &["a", "b", "hz", "sh", "\u{FF21}", "\u{1F600}", "\u{E000}x", "é"];

/// Distinct queues over a few topics and brokers (brokers named `<room>-broker<k>`), and distinct
/// client ids named `<room>@<n>`, both sorted the way RebalanceImpl sorts them.
fn group_input() -> impl Strategy<Value = (Vec<MessageQueue>, Vec<String>)> {
    let queues = proptest::collection::btree_set((0..3usize, 0..4usize, 0..4usize, 0..40i32), 1..150);
    let ids = proptest::collection::btree_set((0..4usize, 0..10_000u32), 1..30);
    (queues, ids).prop_map(|(queues, ids)| {
        let mut mqs: Vec<MessageQueue> =
            queues.into_iter().map(|(t, room, b, q)| MessageQueue::new(format!("Topic{}", NAMES[t]), format!("{}-broker{b}", NAMES[room]), q)).collect();
        let mut cids: Vec<String> = ids.into_iter().map(|(room, n)| format!("{}@{n}", NAMES[room])).collect();
        java_order::sort_queues(&mut mqs);
        java_order::sort_client_ids(&mut cids);
        (mqs, cids)
    })
}

fn partitioning_strategies(virtual_nodes: i64) -> Vec<Arc<dyn Allocate>> {
    vec![
        Arc::new(Averagely),
        Arc::new(AveragelyByCircle),
        Arc::new(ConsistentHash::new(virtual_nodes).unwrap()),
        Arc::new(MachineRoomNearby::new(Arc::new(Averagely), Arc::new(SeparatorResolver::default()))),
        Arc::new(MachineRoomNearby::new(Arc::new(ConsistentHash::default()), Arc::new(SeparatorResolver::default()))),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Every queue has exactly one owner, and each member's share from the group view is what the
    /// member computes alone.
    #[test]
    fn group_view_is_a_partition_and_matches_each_member((mqs, cids) in group_input(), v in 1i64..40) {
        for s in partitioning_strategies(v) {
            let view = s.allocate_group("g", &mqs, &cids).unwrap();
            let report = verify(&mqs, &cids, &view.ownership(&mqs));
            prop_assert!(report.is_partition(), "{}: {:?}", s.name(), report);
            for id in &cids {
                let alone = s.allocate("g", id, &mqs, &cids).unwrap();
                prop_assert_eq!(view.share_of(id).unwrap().to_queues(&mqs), alone, "{} {}", s.name(), id);
            }
        }
    }

    /// Same input, same answer: across calls, and across instances (the ring cache changes nothing).
    #[test]
    fn deterministic((mqs, cids) in group_input(), v in 0i64..40) {
        for (a, b) in partitioning_strategies(v).into_iter().zip(partitioning_strategies(v)) {
            let first = a.allocate_group("g", &mqs, &cids).unwrap();
            prop_assert_eq!(&first, &a.allocate_group("g", &mqs, &cids).unwrap());
            prop_assert_eq!(&first, &b.allocate_group("g", &mqs, &cids).unwrap());
        }
    }

    /// AVG and AVG_BY_CIRCLE: loads differ by at most one queue.
    #[test]
    fn averagely_and_circle_balance_within_one((mqs, cids) in group_input()) {
        let strategies: [&dyn Allocate; 2] = [&Averagely, &AveragelyByCircle];
        for s in strategies {
            let view = s.allocate_group("g", &mqs, &cids).unwrap();
            let loads: Vec<usize> = view.members.iter().map(|m| m.allocation.len()).collect();
            let (min, max) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
            prop_assert!(max - min <= 1, "{}: loads {:?}", s.name(), loads);
        }
    }

    /// MACHINE_ROOM partitions exactly the queues of `idc@name` brokers whose idc is configured.
    #[test]
    fn by_machine_room_partitions_the_eligible_queues((mqs, cids) in group_input(), idcs in proptest::collection::hash_set(0..8usize, 0..8)) {
        let mqs: Vec<MessageQueue> = mqs.into_iter().map(|q| MessageQueue::new(q.topic, q.broker_name.replacen('-', "@", 1), q.queue_id)).collect();
        let idcs: std::collections::HashSet<String> = idcs.into_iter().map(|i| NAMES[i].to_string()).collect();
        let s = ByMachineRoom::new(Some(idcs.clone()));
        let eligible: Vec<MessageQueue> = mqs.iter().filter(|q| {
            let parts: Vec<&str> = q.broker_name.split('@').collect();
            parts.len() == 2 && idcs.contains(parts[0])
        }).cloned().collect();
        let view = s.allocate_group("g", &mqs, &cids).unwrap();
        let report = verify(&eligible, &cids, &view.ownership(&mqs));
        prop_assert!(report.is_partition(), "{:?}", report);
    }

    /// Java's UTF-16 order, checked against a direct comparison of UTF-16 code units.
    #[test]
    fn java_string_order_is_utf16_order(a in "[a\u{E000}-\u{E002}\u{FF21}\u{1F600}-\u{1F602}é]{0,6}", b in "[a\u{E000}-\u{E002}\u{FF21}\u{1F600}-\u{1F602}é]{0,6}") {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        prop_assert_eq!(java_order::compare_strings(&a, &b), units(&a).cmp(&units(&b)));
        prop_assert_eq!(java_order::compare_strings_value(&a, &b).signum(), units(&a).cmp(&units(&b)) as i32);
    }
}
