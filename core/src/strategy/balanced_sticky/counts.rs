//! Pass 1: how many of each topic's queues every member gets.
//!
//! Member `m`'s exact share of topic `t` is `Q_t * w_m / W` (weights `w`, their sum `W`; every
//! weight is 1 unless configured). It gets the floor of that, and the topic's remaining queues
//! (its "extras") go one each to members whose share has a fractional part, so within a topic a
//! member gets the floor or the ceiling of its share. Totals obey the same rule: the floor or the
//! ceiling of `Q * w_m / W` (unweighted: every total within one of every other).
//!
//! Topics are served in hash order. Each gives its extras to the eligible members with room,
//! largest remainder first, then to the members nearest to most of the topic's queues on the
//! ring of pass 2 (so that a member whose neighbourhood a newcomer takes over is the one that
//! gives up an extra, and pass 2 need not pass queues around), then to the members the topic's
//! hash prefers. When every eligible member is full, an augmenting path moves earlier
//! extras along until one reaches a member with room. The bounds form a flow network
//! (topic -> member edges of capacity 1, member -> sink `lo`, member -> hub 1 where the total
//! share is fractional, hub -> sink the number of totals that round up) which the exact,
//! fractional shares saturate; so an integral saturating flow exists and the path always does.

use std::collections::{BTreeMap, VecDeque};

use super::hash::Fnv;
use super::ring::{Alive, Ring};
use super::topics::Spans;

/// Members' weights and their sum.
pub(super) struct Weights {
    of: Vec<u64>,
    sum: u128,
    /// Every weight equal (the unweighted case, and its fast paths).
    pub(super) uniform: bool,
    /// How many queues a member's total may stray below the floor or above the ceiling of its
    /// share (0: exact). Per-topic shares stay exact.
    pub(super) total_slack: usize,
}

impl Weights {
    /// `of` must be non-empty and every weight positive (the configuration checks this).
    pub(super) fn new(of: Vec<u64>) -> Self {
        let sum = of.iter().map(|w| u128::from(*w)).sum();
        let uniform = of.windows(2).all(|w| w[0] == w[1]);
        Weights { of, sum, uniform, total_slack: 0 }
    }

    pub(super) fn with_total_slack(self, total_slack: usize) -> Self {
        Weights { total_slack, ..self }
    }

    /// Floor of member `m`'s exact share of `queues`.
    pub(super) fn floor(&self, queues: usize, m: usize) -> usize {
        (queues as u128 * u128::from(self.of[m]) / self.sum) as usize
    }

    /// The fractional part of that share, in units of `1 / W`.
    fn remainder(&self, queues: usize, m: usize) -> u128 {
        queues as u128 * u128::from(self.of[m]) % self.sum
    }
}

/// The members that get one queue of topic `t` above their floor, per topic. `sizes` and
/// `hashes` are the topics' distinct queue counts and name hashes, in serving order; `natural[t]`
/// the members nearest to topic `t`'s queues on `ring`, with how many each is nearest to.
///
/// Unweighted, a topic's preference after the natural members is the ring order clockwise from
/// the topic's hash, walked lazily past members without room, so the cost follows the number of
/// extras, not topics x members. Weighted, every eligible member is ranked (largest remainder
/// first, ties by hash): topics x members x log members.
pub(super) fn distribute(sizes: &[usize], hashes: &[u64], members: &[String], weights: &Weights, natural: &Spans<(usize, u32)>, ring: &Ring) -> ExtraIn {
    let c = members.len();
    let total: usize = sizes.iter().sum();
    // Floors summed over topics, one term per distinct topic size.
    let mut by_size: BTreeMap<usize, usize> = BTreeMap::new();
    for size in sizes {
        *by_size.entry(*size).or_default() += 1;
    }
    let floors: Vec<usize> = (0..c).map(|m| by_size.iter().map(|(size, n)| n * weights.floor(*size, m)).sum()).collect();
    let lo: Vec<usize> = (0..c).map(|m| weights.floor(total, m) - floors[m]).collect();
    let hi: Vec<usize> = (0..c).map(|m| lo[m] + usize::from(weights.remainder(total, m) != 0)).collect();
    let at_hi_max = total - (0..c).map(|m| weights.floor(total, m)).sum::<usize>();
    // With slack the bounds widen on both sides and the hub has no part: any member may end
    // anywhere between its wider bounds, which the exact bounds' solution still satisfies.
    let slack = weights.total_slack;
    let lo: Vec<usize> = lo.iter().map(|l| l.saturating_sub(slack)).collect();
    let hi: Vec<usize> = hi.iter().map(|h| h + slack).collect();
    let mut flow = Flow {
        sizes,
        weights,
        extra_in: ExtraIn::with_capacity(sizes.len()),
        topics_of: None,
        extras: vec![0; c],
        lo,
        hi,
        at_hi: 0,
        at_hi_max,
        slack: slack > 0,
        spare_from: 0,
    };
    // Each member's name hashed once: the tie-breaks below finish from it.
    let named: Vec<Fnv> = members.iter().map(|m| Fnv::START.part(m.as_bytes())).collect();
    // Members without room are skipped by the ring walk, and stay skipped (room never comes back).
    let mut roomless = Alive::new(ring);

    // One buffer for every topic's nearest members.
    let mut nearest = Vec::new();
    for (t, (&size, topic_hash)) in sizes.iter().zip(hashes).enumerate() {
        let rem = if weights.uniform { size % c } else { size - (0..c).map(|m| weights.floor(size, m)).sum::<usize>() };
        // Room for one more than its extras: a path search gives a topic its next member before
        // taking the one it replaces back.
        flow.extra_in.add_topic(rem + 1);
        if rem == 0 {
            continue;
        }
        let tie = |m: usize| named[m].part(&topic_hash.to_le_bytes()).finish();
        if weights.uniform {
            // Most queues first, then by tie-break, then by member (so no two keys are equal and
            // the order `natural` lists them in does not matter); as one number, compared as two
            // words rather than three fields (members are fewer than 2^32).
            nearest.clear();
            nearest.extend(natural[t].iter().map(|&(m, n)| u128::from(u32::MAX - n) << 96 | u128::from(tie(m)) << 32 | m as u128));
            nearest.sort_unstable();
            for m in nearest.iter().map(|&key| key as u32 as usize) {
                if flow.extra_in[t].len() < rem && flow.has_room(m) {
                    flow.give(t, m);
                }
            }
            // Then clockwise from the topic, once around at most, skipping members without room.
            let start = ring.start_of(*topic_hash);
            let mut at = start;
            while flow.extra_in[t].len() < rem {
                let Some(found) = roomless.next(ring, at, |m| !flow.has_room(m)).filter(|p| *p < start + ring.len()) else { break };
                let m = ring.member_at(found % ring.len());
                if !flow.has(t, m) {
                    flow.give(t, m);
                }
                at = found + 1;
            }
        } else {
            let nearest: std::collections::HashMap<usize, u32> = natural[t].iter().copied().collect();
            let mut preferred: Vec<usize> = (0..c).filter(|&m| flow.eligible(t, m)).collect();
            preferred
                .sort_by_cached_key(|&m| (std::cmp::Reverse(weights.remainder(size, m)), std::cmp::Reverse(nearest.get(&m).copied().unwrap_or(0)), tie(m)));
            for m in preferred {
                if flow.extra_in[t].len() < rem && flow.has_room(m) {
                    flow.give(t, m);
                }
            }
        }
        while flow.extra_in[t].len() < rem {
            if !flow.swap(t) && !flow.augment(t) {
                // Unreachable by the argument above; if it ever were reached, keep the per-topic
                // bound and let the total bound slip rather than fail the caller.
                debug_assert!(false, "no augmenting path for topic {t}");
                let Some(m) = (0..c).find(|&m| flow.eligible(t, m) && !flow.has(t, m)) else { break };
                flow.give(t, m);
            }
        }
    }
    // With slack, extras went where there was room; a member may have been left below its
    // minimum, and is brought up to it along augmenting paths.
    if flow.slack {
        for m in 0..c {
            while flow.extras[m] < flow.lo[m] {
                if !flow.fill(m) {
                    debug_assert!(false, "no path to fill member {m}");
                    break;
                }
            }
        }
    }
    flow.extra_in
}

/// The members with an extra, topic by topic, in one flat vector: each topic has its own room
/// there, so groups of many one-queue topics do not make an allocation per topic.
pub(super) struct ExtraIn {
    items: Vec<usize>,
    /// Topic `t`'s members are `items[start[t]..start[t] + len[t]]`, its room `room[t]` slots.
    start: Vec<usize>,
    len: Vec<usize>,
    room: Vec<usize>,
}

impl ExtraIn {
    fn with_capacity(topics: usize) -> Self {
        ExtraIn { items: Vec::with_capacity(topics), start: Vec::with_capacity(topics), len: Vec::with_capacity(topics), room: Vec::with_capacity(topics) }
    }

    /// A new last topic with room for `room` members.
    fn add_topic(&mut self, room: usize) {
        self.start.push(self.items.len());
        self.len.push(0);
        self.room.push(room);
        self.items.resize(self.items.len() + room, usize::MAX);
    }

    /// How many topics.
    pub(super) fn len(&self) -> usize {
        self.start.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[usize]> {
        (0..self.len()).map(|t| &self[t])
    }

    fn push(&mut self, t: usize, m: usize) {
        if self.len[t] == self.room[t] {
            // Not expected (the room covers every path); should it happen, the topic moves to
            // the end with twice the room, its old slots unused.
            let (old, len) = (self.start[t], self.len[t]);
            self.start[t] = self.items.len();
            self.room[t] = 2 * len + 1;
            self.items.extend_from_within(old..old + len);
            self.items.resize(self.start[t] + self.room[t], usize::MAX);
        }
        self.items[self.start[t] + self.len[t]] = m;
        self.len[t] += 1;
    }

    /// Takes `m` out of topic `t`'s members, the others keeping their order.
    fn remove(&mut self, t: usize, m: usize) {
        let (start, len) = (self.start[t], self.len[t]);
        if let Some(at) = self.items[start..start + len].iter().position(|x| *x == m) {
            self.items.copy_within(start + at + 1..start + len, start + at);
            self.len[t] -= 1;
        }
    }
}

impl std::ops::Index<usize> for ExtraIn {
    type Output = [usize];

    fn index(&self, t: usize) -> &[usize] {
        &self.items[self.start[t]..self.start[t] + self.len[t]]
    }
}

struct Flow<'a> {
    sizes: &'a [usize],
    weights: &'a Weights,
    /// The members with an extra, per topic, and the topics where each member has one.
    extra_in: ExtraIn,
    /// Built on first need (`materialize`): most calls never search a path, and pushing every
    /// extra into a member's list cost more than the rest of this pass on many small topics.
    topics_of: Option<Vec<Vec<usize>>>,
    extras: Vec<usize>,
    /// Extras every member must reach / may reach; `hi` is `lo` or `lo + 1`.
    lo: Vec<usize>,
    hi: Vec<usize>,
    /// Members at `hi > lo`, and how many may be.
    at_hi: usize,
    at_hi_max: usize,
    /// Totals may stray (`total_slack` > 0): `lo` and `hi` are the wider bounds, no hub.
    slack: bool,
    /// No topic before this one has a member above its minimum among its extras (see `fill`).
    spare_from: usize,
}

impl Flow<'_> {
    fn eligible(&self, t: usize, m: usize) -> bool {
        if self.weights.uniform {
            // Every member's share of the topic has the same fractional part.
            return !self.sizes[t].is_multiple_of(self.extras.len());
        }
        self.weights.remainder(self.sizes[t], m) != 0
    }

    fn has(&self, t: usize, m: usize) -> bool {
        self.extra_in[t].contains(&m)
    }

    /// Whether `m` can take one more extra. Never turns true again once false: extras only
    /// grow, except a member passing its round-up to another through the hub, which happens
    /// only while the hub is full (so it has no room either way).
    fn has_room(&self, m: usize) -> bool {
        let next = self.extras[m] + 1;
        if self.slack {
            return next <= self.hi[m];
        }
        next <= self.lo[m] || (next == self.hi[m] && self.hi[m] > self.lo[m] && self.at_hi < self.at_hi_max)
    }

    /// Builds `topics_of`, the topics where each member has an extra, in the order they were
    /// given. Until the first path search every extra was given by the main loop, topic by topic
    /// in ascending order, so that order is the topics' own; from then on `give` and `take_back`
    /// keep the lists.
    fn materialize(&mut self) {
        if self.topics_of.is_none() {
            let mut topics_of = vec![Vec::new(); self.extras.len()];
            for (t, members) in self.extra_in.iter().enumerate() {
                for &m in members {
                    topics_of[m].push(t);
                }
            }
            self.topics_of = Some(topics_of);
        }
    }

    fn give(&mut self, t: usize, m: usize) {
        self.extra_in.push(t, m);
        if let Some(topics_of) = &mut self.topics_of {
            topics_of[m].push(t);
        }
        self.extras[m] += 1;
        if self.extras[m] > self.lo[m] {
            self.at_hi += 1;
        }
    }

    fn take_back(&mut self, t: usize, m: usize) {
        self.extra_in.remove(t, m);
        if let Some(topics_of) = &mut self.topics_of {
            topics_of[m].retain(|x| *x != t);
        }
        self.extras[m] -= 1;
    }

    /// One more extra for topic `t` by the commonest short path, found from its far end: a member
    /// `g` with room takes an earlier topic's extra from a member `f` that then takes `t`'s.
    /// Members with room are few when this is needed, so this is quick where the general search
    /// ([`Flow::augment`]) would visit every topic.
    fn swap(&mut self, t: usize) -> bool {
        self.materialize();
        let c = self.extras.len();
        let mut holds_t = vec![false; c];
        for &m in &self.extra_in[t] {
            holds_t[m] = true;
        }
        for g in (0..c).filter(|&g| self.has_room(g)) {
            for e in (0..t).filter(|&e| self.eligible(e, g) && !self.has(e, g)) {
                if let Some(&f) = self.extra_in[e].iter().find(|&&f| !holds_t[f] && self.eligible(t, f)) {
                    self.take_back(e, f);
                    self.give(e, g);
                    self.give(t, f);
                    self.at_hi = (0..c).filter(|&m| self.extras[m] > self.lo[m]).count();
                    return true;
                }
            }
        }
        false
    }

    /// One more extra for topic `t` along a shortest augmenting path (breadth first over topics
    /// `0..=t`, members and the hub). False if there is none.
    fn augment(&mut self, t: usize) -> bool {
        self.materialize();
        let (topics, c) = (self.extra_in.len(), self.extras.len());
        let hub = topics + c;
        let mut parent = vec![usize::MAX; hub + 1];
        parent[t] = t;
        let mut queue = VecDeque::from([t]);
        let mut end = None;
        let mut holds = vec![false; c];
        // Members not reached yet: a topic looks only at these, so a search costs about
        // topics + members rather than topics x members.
        let mut unreached: Vec<usize> = (0..c).collect();
        'search: while let Some(u) = queue.pop_front() {
            let next: Vec<usize> = if u < topics {
                // Topic u can give an extra to an eligible member that has none of u's.
                for &m in &self.extra_in[u] {
                    holds[m] = true;
                }
                let mut next = Vec::new();
                unreached.retain(|&m| {
                    let reach = !holds[m] && self.eligible(u, m);
                    if reach {
                        next.push(topics + m);
                    }
                    !reach
                });
                for &m in &self.extra_in[u] {
                    holds[m] = false;
                }
                next
            } else if u < hub {
                let m = u - topics;
                if self.extras[m] < self.lo[m] || (self.slack && self.extras[m] < self.hi[m]) {
                    end = Some(u);
                    break 'search;
                }
                // Member m can round up through the hub, or pass one of its extras on.
                let via_hub = (!self.slack && self.hi[m] > self.lo[m] && self.extras[m] == self.lo[m]).then_some(hub);
                via_hub.into_iter().chain(self.topics_of.as_ref().map_or(&[][..], |of| &of[m]).iter().copied()).collect()
            } else {
                if self.at_hi < self.at_hi_max {
                    end = Some(u);
                    break 'search;
                }
                // The hub is full: a member that rounds up must give that up.
                (0..c).filter(|&m| self.hi[m] > self.lo[m] && self.extras[m] == self.hi[m]).map(|m| topics + m).collect()
            };
            for v in next {
                if parent[v] == usize::MAX {
                    parent[v] = u;
                    queue.push_back(v);
                }
            }
        }
        let Some(mut v) = end else { return false };
        while v != t {
            let u = parent[v];
            if u < topics && v < hub {
                self.give(u, v - topics);
            } else if v < topics && u < hub {
                self.take_back(v, u - topics);
            }
            v = u;
        }
        self.at_hi = (0..c).filter(|&m| self.extras[m] > self.lo[m]).count();
        true
    }

    /// One more extra for member `d`, below its minimum (with slack only), along a shortest
    /// path: `d` takes the extra of a topic it may hold from a member holding it, that member
    /// takes one the same way, and so on, until the member giving one up is above its own
    /// minimum. The exact bounds' solution lies within the wider ones, so such a path exists
    /// while any member is short.
    fn fill(&mut self, d: usize) -> bool {
        self.materialize();
        if self.fill_in_one_step(d) {
            return true;
        }
        let c = self.extras.len();
        // parent[f] = (the member that takes from f, the topic it takes).
        let mut parent: Vec<Option<(usize, usize)>> = vec![None; c];
        let mut seen = vec![false; c];
        seen[d] = true;
        let mut queue = VecDeque::from([d]);
        while let Some(u) = queue.pop_front() {
            for e in 0..self.extra_in.len() {
                if !self.eligible(e, u) || self.has(e, u) {
                    continue;
                }
                for i in 0..self.extra_in[e].len() {
                    let f = self.extra_in[e][i];
                    if seen[f] {
                        continue;
                    }
                    seen[f] = true;
                    parent[f] = Some((u, e));
                    if self.extras[f] > self.lo[f] {
                        let mut v = f;
                        while let Some((taker, topic)) = parent[v] {
                            self.take_back(topic, v);
                            self.give(topic, taker);
                            v = taker;
                        }
                        return true;
                    }
                    queue.push_back(f);
                }
            }
        }
        false
    }

    /// The first step of [`Flow::fill`]'s search, which is where it ends on many small topics
    /// (thousands of calls, each scanning topics from the first): `d` takes an extra from the
    /// first member above its minimum, in the first topic it may take one of, topics in order.
    /// Members only leave "above the minimum" while filling (a path's ends gain below the minimum
    /// and lose above it, the members between keep their counts), so the topics before
    /// `spare_from` can be skipped for good, and the answer is the search's own.
    fn fill_in_one_step(&mut self, d: usize) -> bool {
        let above = |flow: &Self, f: usize| flow.extras[f] > flow.lo[f];
        while self.spare_from < self.extra_in.len() && !self.extra_in[self.spare_from].iter().any(|&f| above(self, f)) {
            self.spare_from += 1;
        }
        for e in self.spare_from..self.extra_in.len() {
            if !self.eligible(e, d) || self.has(e, d) {
                continue;
            }
            if let Some(&f) = self.extra_in[e].iter().find(|&&f| above(self, f)) {
                self.take_back(e, f);
                self.give(e, d);
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{ExtraIn, Flow, Weights};

    /// A member short of its minimum whose every topic to take is held by members at theirs
    /// fills along a longer path (the search past its first step): member 0 takes topic 0 from
    /// member 1, which takes topic 1 from member 2, the one above its minimum.
    #[test]
    fn a_short_member_fills_along_a_path_when_no_single_step_will() {
        let sizes = [1, 2, 2];
        let weights = Weights::new(vec![1, 1, 1]).with_total_slack(1);
        let mut extra_in = ExtraIn::with_capacity(sizes.len());
        for (t, holders) in [vec![1], vec![0, 2], vec![0, 2]].into_iter().enumerate() {
            extra_in.add_topic(3);
            for m in holders {
                extra_in.push(t, m);
            }
        }
        let mut flow = Flow {
            sizes: &sizes,
            weights: &weights,
            extra_in,
            topics_of: None,
            extras: vec![2, 1, 2],
            lo: vec![3, 1, 1],
            hi: vec![4, 2, 2],
            at_hi: 0,
            at_hi_max: 0,
            slack: true,
            spare_from: 0,
        };
        assert!(!flow.fill_in_one_step(0), "every topic member 0 may take is held by a member at its minimum");
        assert!(flow.fill(0));
        assert_eq!(flow.extras, [3, 1, 1]);
        assert_eq!(flow.extra_in.iter().collect::<Vec<_>>(), [&[0][..], &[0, 1], &[0, 2]]);
    }

    /// Past its room a topic moves to the end of the flat vector, its neighbours untouched.
    #[test]
    fn a_topic_past_its_room_moves_and_keeps_its_members_in_order() {
        let mut lists = ExtraIn::with_capacity(3);
        for room in [1, 2, 1] {
            lists.add_topic(room);
        }
        lists.push(0, 7);
        lists.push(2, 9);
        lists.push(1, 4);
        lists.push(1, 5);
        lists.push(1, 6);
        lists.push(1, 8);
        lists.remove(1, 5);
        assert_eq!(lists.iter().collect::<Vec<_>>(), [&[7][..], &[4, 6, 8], &[9]]);
        lists.remove(1, 3);
        assert_eq!(&lists[1], &[4, 6, 8]);
    }
}
