//! Properties of BALANCED_STICKY: balance bounds, order independence, stable keys, weights.

use super::*;
use crate::strategy::Strategy;
use crate::MessageQueue;
use crate::StrategyConfig;
use proptest::prelude::*;
use ring::Scratch;

fn queues(topics: usize, per: usize) -> Vec<MessageQueue> {
    (0..topics).flat_map(|t| (0..per).map(move |q| MessageQueue::new(format!("T{t}"), "b", q as i32))).collect()
}

#[test]
fn a_restarted_consumer_gets_its_queues_back_when_ranked_by_host() {
    let mq = queues(4, 8);
    let before: Vec<String> = ["10.0.0.1@100#5", "10.0.0.2@200#6", "10.0.0.3@300#7"].map(String::from).to_vec();
    let after: Vec<String> = ["10.0.0.1@100#5", "10.0.0.2@999#42", "10.0.0.3@300#7"].map(String::from).to_vec();
    let host = BalancedSticky::new(StableKey::Host);
    let mine = |ids: &[String], me: &str| host.allocate("g", me, &mq, ids).unwrap();
    assert_eq!(mine(&before, "10.0.0.2@200#6"), mine(&after, "10.0.0.2@999#42"));
    assert_eq!(host.name(), "BALANCED_STICKY-host");
    // Ranked by the whole id, the restart is a different member: its share is not guaranteed.
    let whole = BalancedSticky::default();
    let group = whole.allocate_group("g", &mq, &after).unwrap();
    assert_eq!(group.members.len(), 3);
    let total: usize = group.members.iter().map(|m| m.allocation.len()).sum();
    assert_eq!(total, mq.len());
}

#[test]
fn two_consumers_on_one_host_are_told_apart_by_their_ids() {
    let mq = queues(2, 6);
    let ids: Vec<String> = ["10.0.0.1@1", "10.0.0.1@2", "10.0.0.2@3"].map(String::from).to_vec();
    let host = BalancedSticky::new(StableKey::Host);
    let group = host.allocate_group("g", &mq, &ids).unwrap();
    let counts: Vec<usize> = group.members.iter().map(|m| m.allocation.len()).collect();
    assert_eq!(counts, [4, 4, 4]);
    // Each member's one-member answer is its group share.
    for m in &group.members {
        assert_eq!(host.allocate_positions("g", &m.client_id, &mq, &ids).unwrap(), m.allocation);
    }
    assert_eq!(host.allocate_positions("g", "absent", &mq, &ids).unwrap().len(), 0);
    assert!(host.allocate_positions("g", "", &mq, &ids).is_err());
}

#[test]
fn a_queue_listed_twice_has_one_owner() {
    let mut mq = queues(3, 5);
    mq.push(mq[7].clone());
    mq.insert(0, mq[4].clone());
    let ids: Vec<String> = (0..4).map(|i| format!("c{i}")).collect();
    let (_, owner) = assign(&mq, &ids);
    assert_eq!(owner[0], owner[5]);
    assert_eq!(owner[mq.len() - 1], owner[8]);
    assert!(owner.iter().all(|o| *o < 4));
}

/// One way to place a topic's queues: (quotas, owners) to fill in.
type Placement<'a> = dyn Fn(&mut [usize], &mut [usize]) + 'a;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha, ..ProptestConfig::default() })]

    /// Per-topic floor/ceil, totals within one, and the same answer for any input order.
    #[test]
    fn balanced_and_order_independent(topics in 1usize..12, per in 1usize..20, members in 1usize..15, seed in any::<u64>()) {
        let mq = queues(topics, per);
        let ids: Vec<String> = (0..members).map(|i| format!("10.0.0.{i}@{}", i * 7)).collect();
        let (names, owner) = assign(&mq, &ids);
        let c = names.len();
        let mut total = vec![0usize; c];
        for t in 0..topics {
            let mut count = vec![0usize; c];
            for (q, o) in mq.iter().zip(&owner) {
                if *q.topic == *format!("T{t}") {
                    count[*o] += 1;
                }
            }
            let (lo, hi) = (per / c, per.div_ceil(c));
            prop_assert!(count.iter().all(|n| *n >= lo && *n <= hi), "topic {t}: {count:?}");
            for m in 0..c {
                total[m] += count[m];
            }
        }
        prop_assert!(total.iter().max().unwrap() - total.iter().min().unwrap() <= 1, "{total:?}");
        // Shuffle both lists: same owners by queue.
        let mut mq2 = mq.clone();
        let mut ids2 = ids.clone();
        let k = (seed as usize) % mq2.len().max(1);
        mq2.rotate_left(k);
        ids2.reverse();
        let (names2, owner2) = assign(&mq2, &ids2);
        for (i, q) in mq2.iter().enumerate() {
            let j = mq.iter().position(|x| x == q).unwrap();
            prop_assert_eq!(&names2[owner2[i]], &names[owner[j]]);
        }
    }
}

#[test]
fn totals_within_one_when_topics_differ_in_size() {
    let mut mq: Vec<MessageQueue> = (0..8).map(|q| MessageQueue::new("T", "b", q)).collect();
    mq.extend((0..2).map(|q| MessageQueue::new("U", "b", q)));
    let ids: Vec<String> = ["c1", "c2", "c3"].map(String::from).to_vec();
    let (names, owner) = assign(&mq, &ids);
    let mut total = vec![0; names.len()];
    for o in owner {
        total[o] += 1;
    }
    assert!(total.iter().max().unwrap() - total.iter().min().unwrap() <= 1, "{names:?} {total:?}");
}

#[test]
fn group_view_totals_within_one() {
    let s = StrategyConfig::from_name("balanced_sticky", &serde_json::Value::Null).unwrap().build().unwrap();
    let mut mq: Vec<MessageQueue> = (0..8).map(|q| MessageQueue::new("T", "b", q)).collect();
    mq.extend((0..2).map(|q| MessageQueue::new("U", "b", q)));
    let ids: Vec<String> = ["c1", "c2", "c3"].map(String::from).to_vec();
    let g = s.allocate_group("g", &mq, &ids).unwrap();
    let counts: Vec<usize> = g.members.iter().map(|m| m.allocation.len()).collect();
    let one: Vec<usize> = ids.iter().map(|id| s.allocate("g", id, &mq, &ids).unwrap().len()).collect();
    assert_eq!(counts, one);
    assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1, "{counts:?}");
}

/// Counts of every member (by id) in every topic (by name), for a whole-group assignment.
fn counts(mq: &[MessageQueue], ids: &[String], owner: &[usize]) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for (q, o) in mq.iter().zip(owner) {
        *out.entry((q.topic.to_string(), ids[*o].clone())).or_insert(0) += 1;
    }
    out
}

/// Topic `T<t>` with `sizes[t]` queues, for every `t`.
fn topics_of_sizes(sizes: &[usize]) -> Vec<MessageQueue> {
    sizes.iter().enumerate().flat_map(|(t, n)| (0..*n).map(move |q| MessageQueue::new(format!("T{t}"), "b", q as i32))).collect()
}

/// Every member holds the floor or ceiling of its weighted share of every topic.
fn topics_within_shares(
    per: &BTreeMap<(String, String), usize>,
    sizes: &[usize],
    members: &[String],
    weight_of: impl Fn(&str) -> u64,
    total_w: u64,
) -> Result<(), TestCaseError> {
    for (t, size) in sizes.iter().enumerate() {
        for m in members {
            let n = per.get(&(format!("T{t}"), m.clone())).copied().unwrap_or(0);
            prop_assert!(within_share(n, *size, weight_of(m), total_w), "topic T{t} ({size}) member {m}: {n}");
        }
    }
    Ok(())
}

/// `n` is the floor or the ceiling of `queues * w / total_w`.
fn within_share(n: usize, queues: usize, w: u64, total_w: u64) -> bool {
    within_slack(n, queues, w, total_w, 0)
}

/// `n` is at most `slack` below the floor or above the ceiling of `queues * w / total_w`.
fn within_slack(n: usize, queues: usize, w: u64, total_w: u64, slack: usize) -> bool {
    let exact = queues as u128 * u128::from(w);
    let (floor, ceil) = ((exact / u128::from(total_w)) as usize, exact.div_ceil(u128::from(total_w)) as usize);
    n + slack >= floor && n <= ceil + slack
}

/// Every member's total of the `queues` is within `slack` of its weighted share.
fn totals_within_shares(
    per: &BTreeMap<(String, String), usize>,
    queues: usize,
    members: &[String],
    weight_of: impl Fn(&str) -> u64,
    total_w: u64,
    slack: usize,
) -> Result<(), TestCaseError> {
    for m in members {
        let n: usize = per.iter().filter(|((_, id), _)| id == m).map(|(_, n)| n).sum();
        prop_assert!(within_slack(n, queues, weight_of(m), total_w, slack), "member {m} total {n} of {queues}, slack {slack}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha, ..ProptestConfig::default() })]

    /// With weights and topics of different sizes: every member gets the floor or ceiling of its
    /// proportional share in every topic and in total, for any input order.
    #[test]
    fn weighted_shares_are_proportional_and_order_independent(
        sizes in proptest::collection::vec(1usize..40, 1..25),
        weights in proptest::collection::vec(1u32..6, 1..14),
        host_pairs in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mq = topics_of_sizes(&sizes);
        // With `host_pairs`, ids come two to a host, so two members share one stable key (and weight).
        let host = |i: usize| if host_pairs { i / 2 } else { i };
        let ids: Vec<String> = (0..weights.len()).map(|i| format!("10.0.0.{}@{}", host(i), 100 + i)).collect();
        let by_host: BTreeMap<String, u32> = (0..weights.len()).map(|i| (format!("10.0.0.{}", host(i)), weights[host(i)])).collect();
        let weight_of = |id: &str| u64::from(by_host[StableKey::Host.of(id)]);
        let (members, owner) = assign_weighted(&mq, &ids, &StableKey::Host, &by_host, 0);
        prop_assert_eq!(members.len(), ids.len());
        let total_w: u64 = members.iter().map(|m| weight_of(m)).sum();
        let per = counts(&mq, &members, &owner);
        topics_within_shares(&per, &sizes, &members, weight_of, total_w)?;
        totals_within_shares(&per, sizes.iter().sum(), &members, weight_of, total_w, 0)?;
        let mut mq2 = mq.clone();
        mq2.rotate_left((seed as usize) % mq.len());
        let mut ids2 = ids.clone();
        ids2.rotate_left((seed as usize) % ids.len());
        let (members2, owner2) = assign_weighted(&mq2, &ids2, &StableKey::Host, &by_host, 0);
        prop_assert_eq!(counts(&mq2, &members2, &owner2), per);
    }

    /// With a total slack, on shapes like real groups (many small topics, weighted or not):
    /// every topic stays exactly balanced, every total is within `slack` of the floor or ceiling
    /// of its share, and the answer does not depend on input order.
    #[test]
    fn a_total_slack_keeps_topics_exact_and_totals_within_the_slack(
        sizes in proptest::collection::vec(1usize..17, 1..30),
        weights in proptest::collection::vec(1u32..4, 2..25),
        weighted in any::<bool>(),
        slack in 1u32..5,
        seed in any::<u64>(),
    ) {
        let mq = topics_of_sizes(&sizes);
        let ids: Vec<String> = (0..weights.len()).map(|i| format!("10.0.0.{i}@{}#{}", 100 + i, seed % 1000 + i as u64)).collect();
        let by_host: BTreeMap<String, u32> =
            if weighted { (0..weights.len()).map(|i| (format!("10.0.0.{i}"), weights[i])).collect() } else { BTreeMap::new() };
        let weight_of = |id: &str| u64::from(by_host.get(StableKey::Host.of(id)).copied().unwrap_or(1));
        let (members, owner) = assign_weighted(&mq, &ids, &StableKey::Host, &by_host, slack);
        let total_w: u64 = members.iter().map(|m| weight_of(m)).sum();
        let per = counts(&mq, &members, &owner);
        topics_within_shares(&per, &sizes, &members, weight_of, total_w)?;
        totals_within_shares(&per, sizes.iter().sum(), &members, weight_of, total_w, slack as usize)?;
        let mut mq2 = mq.clone();
        mq2.rotate_left((seed as usize) % mq.len());
        let mut ids2 = ids.clone();
        ids2.reverse();
        let (members2, owner2) = assign_weighted(&mq2, &ids2, &StableKey::Host, &by_host, slack);
        prop_assert_eq!(counts(&mq2, &members2, &owner2), per);
    }
}

#[test]
fn weights_give_largest_remainder_shares_derived_by_hand() {
    // One topic of 10 queues, a weighing 2 and b 1: exact shares 6.67 and 3.33, floors 6 and 3,
    // the one queue left goes to the larger remainder (a): 7 and 3. With 9 queues: exactly 6 and 3.
    let weights: BTreeMap<String, u32> = [("a".to_string(), 2)].into();
    let s = BalancedSticky::with_weights(StableKey::ClientId, weights).unwrap();
    let ids: Vec<String> = ["a", "b"].map(String::from).to_vec();
    for (size, expected) in [(10, [7, 3]), (9, [6, 3])] {
        let mq = queues(1, size);
        let got: Vec<usize> = ids.iter().map(|id| s.allocate("g", id, &mq, &ids).unwrap().len()).collect();
        assert_eq!(got, expected, "{size} queues");
    }
}

#[test]
fn weights_are_part_of_the_name_and_checked() {
    let parse = |params: serde_json::Value| StrategyConfig::from_name("balanced_sticky", &params).and_then(|c| c.build());
    let name = |params: serde_json::Value| parse(params).unwrap().name().into_owned();
    let plain = name(serde_json::json!({}));
    assert_eq!(plain, "BALANCED_STICKY");
    let weighted = name(serde_json::json!({"stable_key": "host", "weights": {"10.0.0.1": 3, "10.0.0.2": 1}}));
    assert!(weighted.starts_with("BALANCED_STICKY-host-weights:"), "{weighted}");
    // Listing a default weight of 1 or not is the same configuration, and the same name.
    assert_eq!(weighted, name(serde_json::json!({"stable_key": "host", "weights": {"10.0.0.1": 3}})));
    assert_ne!(weighted, name(serde_json::json!({"stable_key": "host", "weights": {"10.0.0.1": 2}})));
    assert_eq!(name(serde_json::json!({"weights": {"x": 1}})), plain);
    for bad in [serde_json::json!({"weights": {"x": 0}}), serde_json::json!({"weights": {"x": -1}}), serde_json::json!({"weights": ["x"]})] {
        let err = parse(bad.clone()).err().unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(matches!(err, crate::Error::InvalidParameters { .. }), "{bad}: {err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha, ..ProptestConfig::default() })]

    /// The block count finds a member's first point at or after a start (wrapping past the last)
    /// where a binary search does: starts below, among, between and past the points.
    #[test]
    fn the_branchless_search_finds_what_a_binary_search_finds(mut own in proptest::collection::vec(0u32..5000, 64), start in 0usize..5100) {
        own.sort_unstable();
        let expected = own.partition_point(|&i| (i as usize) < start) % own.len();
        prop_assert_eq!(ring::first_at_or_after(&own.try_into().expect("64 points"), start), expected);
    }

    /// A topic whose quotas sit with a few members is placed as on a ring of theirs alone,
    /// searching each one's points instead of building that ring (for speed); both must give
    /// exactly what the whole ring gives.
    #[test]
    fn the_small_ring_places_queues_as_the_whole_ring_does(members in 2usize..80, quotas in proptest::collection::vec((0usize..80, 1usize..4), 1..6), salt in any::<u64>()) {
        let names: Vec<String> = (0..members).map(|m| format!("10.0.0.{m}@{salt}#0")).collect();
        let whole = ring::Ring::new(&names);
        let mut quota = vec![0usize; members];
        for (m, q) in &quotas {
            quota[m % members] += q;
        }
        let alive: Vec<usize> = (0..members).filter(|&m| quota[m] > 0).collect();
        let total: usize = quota.iter().sum();
        let mut queues: Vec<(u64, usize)> = (0..total).map(|i| (hash64(&[&salt.to_le_bytes(), &(i as u64).to_le_bytes()]), i)).collect();
        queues.sort_unstable();
        let starts = whole.starts(&queues);
        let small = whole.subset(&alive);
        // Every way to place them: the whole ring walking it, the whole ring searching for the
        // queues left over, the ring of the alive members alone, the search alone, and the
        // choice among those that the strategy makes.
        let ways: [&Placement; 5] = [
            &|q, o| whole.fill_on(q, None, &queues, &starts, o, &mut Scratch::default()),
            &|q, o| whole.fill_on(q, Some(&alive), &queues, &starts, o, &mut Scratch::default()),
            &|q, o| small.fill_on(q, None, &queues, &small.starts(&queues), o, &mut Scratch::default()),
            &|q, o| whole.fill_few(q, &alive, &queues, &starts, o, &mut Scratch::default()),
            &|q, o| whole.fill(q, &alive, &queues, &starts, o, &mut Scratch::default()),
        ];
        let mut answers = Vec::new();
        for way in ways {
            let (mut q, mut o) = (quota.clone(), vec![usize::MAX; total]);
            way(&mut q, &mut o);
            prop_assert!(q.iter().all(|q| *q == 0));
            answers.push(o);
        }
        for other in &answers[1..] {
            prop_assert_eq!(&answers[0], other);
        }
    }

    /// Where every member nearest to some of a topic's queues has a quota of exactly that many,
    /// the shortcut gives each queue its nearest member, which is what the full placement gives;
    /// with one slot moved elsewhere it declines and leaves the quotas alone.
    #[test]
    fn queues_go_to_their_nearest_members_when_quotas_are_their_counts(members in 2usize..60, queues in 1usize..40, salt in any::<u64>(), moved in any::<Option<(usize, usize)>>()) {
        let names: Vec<String> = (0..members).map(|m| format!("10.0.1.{m}@{salt}#0")).collect();
        let ring = ring::Ring::new(&names);
        let mut queues: Vec<(u64, usize)> = (0..queues).map(|i| (hash64(&[&salt.to_le_bytes(), &(i as u64).to_le_bytes()]), i)).collect();
        queues.sort_unstable();
        let starts = ring.starts(&queues);
        let natural = ring.natural_counts(&starts, &[queues.len()]);
        let mut quota = vec![0usize; members];
        for &(m, n) in &natural[0] {
            quota[m] = n as usize;
        }
        // Perhaps one slot from a nearest member to another member.
        let moved = moved.map(|(from, to)| (natural[0][from % natural[0].len()].0, to % members)).filter(|(from, to)| from != to);
        if let Some((from, to)) = moved {
            quota[from] -= 1;
            quota[to] += 1;
        }
        let alive: Vec<usize> = (0..members).filter(|&m| quota[m] > 0).collect();
        let (mut full_quota, mut full) = (quota.clone(), vec![usize::MAX; queues.len()]);
        ring.fill(&mut full_quota, &alive, &queues, &starts, &mut full, &mut Scratch::default());
        let (mut short_quota, mut short) = (quota.clone(), vec![usize::MAX; queues.len()]);
        let applied = ring.fill_nearest(&mut short_quota, &natural[0], &queues, &starts, &mut short);
        prop_assert_eq!(applied, moved.is_none());
        if applied {
            prop_assert_eq!(short, full);
            prop_assert!(short_quota.iter().all(|q| *q == 0));
        } else {
            prop_assert_eq!(short_quota, quota);
        }
    }
}

/// The slack is part of the name and of the configuration text (written only when set, so a
/// configuration without it reads back as before), and bounded.
#[test]
fn a_total_slack_is_named_configured_and_bounded() {
    let exact = StrategyConfig::from_name("balanced_sticky", &serde_json::json!({})).unwrap();
    assert_eq!(exact.params(), serde_json::json!({ "stable_key": "client_id", "weights": {} }));
    let slack = StrategyConfig::from_name("balanced_sticky", &serde_json::json!({ "total_slack": 2 })).unwrap();
    assert_eq!(slack.params()["total_slack"], 2);
    assert_eq!(slack.build().unwrap().name(), "BALANCED_STICKY-slack:2");
    let host = BalancedSticky::new(StableKey::Host).with_total_slack(1).unwrap();
    assert_eq!(host.name(), "BALANCED_STICKY-host-slack:1");
    let too_much = StrategyConfig::from_name("balanced_sticky", &serde_json::json!({ "total_slack": MAX_TOTAL_SLACK + 1 })).unwrap().build();
    assert!(matches!(too_much, Err(Error::InvalidParameters { .. })), "{too_much:?}");
    assert!(BalancedSticky::default().with_total_slack(-1).unwrap_err().to_string().contains("total_slack -1"));
    assert!(StrategyConfig::from_name("balanced_sticky", &serde_json::json!({ "total_slack": -1 })).is_err());
}
