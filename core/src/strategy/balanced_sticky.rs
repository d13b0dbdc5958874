//! BALANCED_STICKY (experimental): a balanced, low-movement assignment that every client computes
//! alone from the *sets* of queues and client ids (config name `balanced_sticky`).
//!
//! 1. Per topic, every member gets `floor(Q_t / C)` queues, and `Q_t mod C` members one more.
//! 2. Who gets the extras is decided across topics (topics in hash order, each giving its extras
//!    to the members with the fewest extras so far, ties to the members whose hash is closest to
//!    the topic), so member totals differ by at most one.
//! 3. Within a topic, queues are placed on a hash ring of members (16 virtual points each) and
//!    each queue, in ring order, walks clockwise to the first member with quota left
//!    (consistent hashing with bounded loads, the bound being the quota).
//!
//! Cost: O(topics x members x points + queues x log queues), never queues x members.
//! Hashes are FNV-1a 64 with a SplitMix64 finaliser: fixed by this file, the same everywhere.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{check, Allocation, Strategy};
use crate::error::Result;
use crate::group::{GroupAllocation, MemberShare};
use crate::queue::MessageQueue;

/// Which part of a client id ranks a member. Java's default id is `ip@pid#nanotime`, new at every
/// restart; ranking by a stable part gives a restarted consumer its queues back. Members with the
/// same stable part are told apart by their full ids, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StableKey {
    /// The whole id.
    #[default]
    ClientId,
    /// The part before the first `@` (the client's IP address).
    Host,
    /// The part before the first occurrence of this separator (the whole id when absent).
    Before(String),
}

impl StableKey {
    fn of<'a>(&self, id: &'a str) -> &'a str {
        let sep = match self {
            StableKey::ClientId => return id,
            StableKey::Host => "@",
            StableKey::Before(sep) => sep.as_str(),
        };
        if sep.is_empty() {
            return id;
        }
        id.find(sep).map_or(id, |at| &id[..at])
    }
}

/// The strategy: see the module documentation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BalancedSticky {
    stable_key: StableKey,
}

impl BalancedSticky {
    pub fn new(stable_key: StableKey) -> Self {
        BalancedSticky { stable_key }
    }

    pub fn stable_key(&self) -> &StableKey {
        &self.stable_key
    }

    /// Every member's positions, members in order of first appearance in `cid_all`.
    fn shares(&self, mq_all: &[MessageQueue], cid_all: &[String]) -> (Vec<String>, Vec<Vec<usize>>) {
        let (members, owner) = assign_keyed(mq_all, cid_all, &self.stable_key);
        let mut shares = vec![Vec::new(); members.len()];
        for (position, o) in owner.into_iter().enumerate() {
            shares[o].push(position);
        }
        (members, shares)
    }
}

impl Strategy for BalancedSticky {
    fn name(&self) -> Cow<'_, str> {
        // The parameters are part of the name, so clients configured differently are visible.
        match &self.stable_key {
            StableKey::ClientId => Cow::Borrowed("BALANCED_STICKY"),
            StableKey::Host => Cow::Borrowed("BALANCED_STICKY-host"),
            StableKey::Before(sep) => Cow::Owned(format!("BALANCED_STICKY-before:{sep}")),
        }
    }

    fn balances_across_topics(&self) -> bool {
        true
    }

    /// Java's argument checks; an id not in the list gets nothing. Input order does not matter.
    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        if check(current_id, mq_all, cid_all)?.is_none() {
            return Ok(Allocation::Positions(Vec::new()));
        }
        let (members, mut shares) = self.shares(mq_all, cid_all);
        let me = members.iter().position(|m| m == current_id).expect("check found the id");
        Ok(Allocation::Positions(std::mem::take(&mut shares[me])))
    }

    /// One computation for the whole group.
    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        super::check_group(mq_all, cid_all)?;
        let (members, shares) = self.shares(mq_all, cid_all);
        let index: std::collections::HashMap<&str, usize> = members.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
        let members = super::distinct_in_order(cid_all)
            .into_iter()
            .map(|id| MemberShare { client_id: id.to_owned(), allocation: Allocation::Positions(shares[index[id]].clone()) })
            .collect();
        Ok(GroupAllocation { members })
    }
}

const VIRTUAL_POINTS: usize = 16;

/// FNV-1a over the parts (each followed by a 0xff separator), then SplitMix64's finaliser.
pub fn hash64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.iter().chain(std::iter::once(&0xffu8)) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The owner (an index into the sorted distinct ids returned) of every queue of `mq_all`, members
/// ranked by their whole ids.
pub fn assign(mq_all: &[MessageQueue], cid_all: &[String]) -> (Vec<String>, Vec<usize>) {
    assign_keyed(mq_all, cid_all, &StableKey::ClientId)
}

/// [`assign`] with members ranked by `key`: a member's hash name is its stable part plus its
/// ordinal among the members sharing that part (in full-id order).
pub fn assign_keyed(mq_all: &[MessageQueue], cid_all: &[String], key: &StableKey) -> (Vec<String>, Vec<usize>) {
    let mut ids: Vec<String> = cid_all.to_vec();
    ids.sort_by(|a, b| (key.of(a), a.as_str()).cmp(&(key.of(b), b.as_str())));
    ids.dedup();
    let mut members: Vec<String> = Vec::with_capacity(ids.len());
    let mut ordinal = 0;
    for (i, id) in ids.iter().enumerate() {
        ordinal = if i > 0 && key.of(&ids[i - 1]) == key.of(id) { ordinal + 1 } else { 0 };
        members.push(format!("{}#{ordinal}", key.of(id)));
    }
    let (ranked, owner) = assign_ranked(mq_all, &members);
    // `ranked` is `members` sorted; map back to the ids.
    let by_name: std::collections::HashMap<&str, &str> = members.iter().map(String::as_str).zip(ids.iter().map(String::as_str)).collect();
    (ranked.iter().map(|m| by_name[m.as_str()].to_owned()).collect(), owner)
}

fn assign_ranked(mq_all: &[MessageQueue], names: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut members: Vec<String> = names.to_vec();
    members.sort();
    members.dedup();
    let c = members.len();
    if c == 0 {
        return (members, Vec::new());
    }
    // Each topic's queues in hash order; a queue listed twice is one queue (its copies are
    // adjacent after sorting by hash, then broker and id) and gets one owner.
    let mut topics: BTreeMap<&str, Vec<(u64, usize)>> = BTreeMap::new();
    let mut key = String::new();
    for (i, q) in mq_all.iter().enumerate() {
        q.write_java_string(&mut key);
        topics.entry(&q.topic).or_default().push((hash64(&[key.as_bytes()]), i));
    }
    let mut copy_of: Vec<(usize, usize)> = Vec::new();
    for queues in topics.values_mut() {
        queues.sort_by(|a, b| (a.0, &mq_all[a.1].broker_name, mq_all[a.1].queue_id, a.1).cmp(&(b.0, &mq_all[b.1].broker_name, mq_all[b.1].queue_id, b.1)));
        queues.dedup_by(|later, kept| {
            let same = later.0 == kept.0 && mq_all[later.1] == mq_all[kept.1];
            if same {
                copy_of.push((later.1, kept.1));
            }
            same
        });
    }
    let mut order: Vec<(u64, &str)> = topics.keys().map(|t| (hash64(&[t.as_bytes()]), *t)).collect();
    order.sort();

    // The ring of members, shared by every topic.
    let mut points: Vec<(u64, usize)> = Vec::with_capacity(c * VIRTUAL_POINTS);
    for (m, id) in members.iter().enumerate() {
        for v in 0..VIRTUAL_POINTS as u32 {
            points.push((hash64(&[id.as_bytes(), &v.to_le_bytes()]), m));
        }
    }
    points.sort();
    let mut points_of: Vec<Vec<usize>> = vec![Vec::new(); c];
    for (i, (_, m)) in points.iter().enumerate() {
        points_of[*m].push(i);
    }

    // Pass 1: who gets each topic's extras.
    let total_extras: usize = topics.values().map(|q| q.len() % c).sum();
    let mut caps = Caps { lo: total_extras / c, hi: total_extras.div_ceil(c), at_hi_max: total_extras % c, at_hi: 0, extras: vec![0; c] };
    let mut extra_in: Vec<Vec<bool>> = Vec::with_capacity(order.len());
    for (t, (topic_hash, topic)) in order.iter().enumerate() {
        let rem = topics[topic].len() % c;
        // Members in the order this topic prefers them.
        let mut by_score: Vec<usize> = (0..c).collect();
        by_score.sort_by_cached_key(|&m| hash64(&[members[m].as_bytes(), &topic_hash.to_le_bytes()]));
        extra_in.push(vec![false; c]);
        let mut given = 0;
        for &m in &by_score {
            if given == rem {
                break;
            }
            if caps.has_room(m) {
                caps.take(m);
                extra_in[t][m] = true;
                given += 1;
            }
        }
        // Everyone without an extra here is full: move an earlier extra from a full member `f` to a
        // member `a` with room (which already has one here), then give `f` this one.
        while given < rem {
            let a = *by_score.iter().find(|&&a| caps.has_room(a)).expect("capacity equals the extras left");
            let (f, earlier) = by_score
                .iter()
                .filter(|&&f| !extra_in[t][f])
                .find_map(|&f| (0..t).find(|&e| extra_in[e][f] && !extra_in[e][a]).map(|e| (f, e)))
                .expect("a full member has an extra where one with room has none");
            extra_in[earlier][f] = false;
            extra_in[earlier][a] = true;
            caps.take(a);
            extra_in[t][f] = true;
            given += 1;
        }
    }

    // Pass 2: each topic's queues around the ring, within its quotas.
    let mut owner = vec![usize::MAX; mq_all.len()];
    for (t, (_, topic)) in order.iter().enumerate() {
        let queues = &topics[topic];
        let base = queues.len() / c;
        let mut quota: Vec<usize> = (0..c).map(|m| base + usize::from(extra_in[t][m])).collect();
        ring_fill(&points, &points_of, &mut quota, queues, &mut owner);
    }
    for (copy, kept) in copy_of {
        owner[copy] = owner[kept];
    }
    (members, owner)
}

/// The bound on extras per member: at most `hi`, and at most `at_hi_max` members at `hi` (when
/// `hi > lo`), which keeps every member's total within one of every other's.
struct Caps {
    lo: usize,
    hi: usize,
    at_hi_max: usize,
    at_hi: usize,
    extras: Vec<usize>,
}

impl Caps {
    fn has_room(&self, m: usize) -> bool {
        let next = self.extras[m] + 1;
        next < self.hi || (next == self.hi && (self.lo == self.hi || self.at_hi < self.at_hi_max))
    }

    fn take(&mut self, m: usize) {
        self.extras[m] += 1;
        if self.extras[m] == self.hi && self.lo != self.hi {
            self.at_hi += 1;
        }
    }
}

/// Each queue (in ring order) goes to the first member clockwise with quota left. Full members'
/// points are skipped through path-compressed "next alive" links.
fn ring_fill(points: &[(u64, usize)], points_of: &[Vec<usize>], quota: &mut [usize], queues: &[(u64, usize)], owner: &mut [usize]) {
    let n = points.len();
    // next[i]: a point index at or after i that may be alive; n is "wrap around".
    let mut next: Vec<usize> = (0..=n).collect();
    let mut dead = vec![false; n];
    for (m, q) in quota.iter().enumerate() {
        if *q == 0 {
            for &p in &points_of[m] {
                dead[p] = true;
                next[p] = p + 1;
            }
        }
    }
    fn find(next: &mut [usize], dead: &[bool], mut i: usize) -> usize {
        let start = i;
        while i < dead.len() && dead[i] {
            i = next[i];
        }
        // Path compression.
        let mut j = start;
        while j < dead.len() && dead[j] && next[j] != i {
            let k = next[j];
            next[j] = i;
            j = k;
        }
        i
    }
    for &(h, qi) in queues {
        let start = points.partition_point(|(p, _)| *p < h);
        let mut at = find(&mut next, &dead, start);
        if at == n {
            at = find(&mut next, &dead, 0);
        }
        let m = points[at].1;
        owner[qi] = m;
        quota[m] -= 1;
        if quota[m] == 0 {
            for &p in &points_of[m] {
                dead[p] = true;
                next[p] = p + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
}

#[cfg(test)]
mod uneven_topics {
    use super::*;

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
}

#[cfg(test)]
mod via_config {
    use crate::StrategyConfig;
    use crate::MessageQueue;

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
}
