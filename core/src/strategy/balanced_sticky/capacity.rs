//! BALANCED_STICKY_V2's placement: consistent hashing with bounded loads, nearest first.
//!
//! The rule, in numbers a user can check (`Q` distinct queues, `C` members, `Q_t` of topic `t`,
//! overload `p` and underload `u` percent):
//! - no member holds more than `ceil(Q * (100 + p) / (100 * C))` queues in total;
//! - no member holds fewer than `floor(Q * (100 - u) / (100 * C))`, nor none at all while another
//!   holds two or more;
//! - no member holds more than `ceil(Q_t / C) + 1` queues of topic `t`.
//!
//! Members sit on BALANCED_STICKY's ring (64 points each). Every queue wants the points clockwise
//! from its hash, nearest first; over all queues at once, the (queue, point) pair at the smallest
//! distance is granted first, to the point's member if it has room under both caps, and a queue
//! refused moves on to its next point. Both sides rank by the same distance, so this is the one
//! stable matching of queues to members under the caps: a member that joins takes the queues
//! nearest its points, and the only other changes are the queues a tighter cap pushes on (at
//! the far end of their owners' shares). Members' loads stay within the caps without the exact
//! counts that cost BALANCED_STICKY about 2x the fair share in movement (docs/balanced-sticky.md).
//!
//! Two repairs keep the rule a guarantee: a queue that finds no member with room on the whole
//! ring (possible when many members are full on its topic and the rest full in total) is placed
//! along an augmenting path, which exists because an exactly balanced assignment obeys both caps;
//! and members below the lower cap then take queues from the most loaded, each the one nearest to
//! it on the ring.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use hashbrown::HashMap;

use super::ring::Ring;
use super::spread_sort::sort_by_spread_key;
use super::topics::Topics;

/// The largest overload a configuration may ask for: beyond it the total cap is no balance.
pub const MAX_OVERLOAD_PERCENT: u32 = 400;

/// How far a member's total may stray above and below the even share `Q / C`, in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub overload_percent: u32,
    /// At most 100 (no lower cap but "none idle while another holds two").
    pub underload_percent: u32,
}

/// The total cap of the rule for `queues` distinct queues over `members` (at least one) members.
pub fn total_cap(queues: usize, members: usize, overload_percent: u32) -> usize {
    let num = queues as u128 * (100 + u128::from(overload_percent));
    num.div_ceil(100 * members as u128) as usize
}

/// The fewest queues a member holds under the rule (before the "none while another holds two"
/// part, which [`owners`] applies when this is 0).
pub fn lower_cap(queues: usize, members: usize, underload_percent: u32) -> usize {
    let num = queues as u128 * 100u128.saturating_sub(u128::from(underload_percent));
    (num / (100 * members as u128)) as usize
}

/// The cap on one topic of `topic_queues` queues over `members` (at least one) members.
pub fn topic_cap(topic_queues: usize, members: usize) -> usize {
    topic_queues.div_ceil(members) + 1
}

/// Loads under placement: totals per member, and per (topic, member) where a topic's cap can bind.
struct Loads {
    total: Vec<usize>,
    total_cap: usize,
    /// Per flat topic index: its cap, or `None` when the topic is too small for it to bind.
    topic_cap: Vec<Option<u32>>,
    per_topic: HashMap<u64, u32, foldhash::fast::FixedState>,
}

impl Loads {
    fn key(t: usize, m: usize) -> u64 {
        (t as u64) << 32 | m as u64
    }

    fn topic_count(&self, t: usize, m: usize) -> u32 {
        self.per_topic.get(&Self::key(t, m)).copied().unwrap_or(0)
    }

    fn topic_room(&self, t: usize, m: usize) -> bool {
        self.topic_cap[t].is_none_or(|cap| self.topic_count(t, m) < cap)
    }

    fn room(&self, t: usize, m: usize) -> bool {
        self.total[m] < self.total_cap && self.topic_room(t, m)
    }

    fn add(&mut self, t: usize, m: usize) {
        self.total[m] += 1;
        if self.topic_cap[t].is_some() {
            *self.per_topic.entry(Self::key(t, m)).or_default() += 1;
        }
    }

    fn remove(&mut self, t: usize, m: usize) {
        self.total[m] -= 1;
        if self.topic_cap[t].is_some() {
            if let Some(n) = self.per_topic.get_mut(&Self::key(t, m)) {
                *n -= 1;
            }
        }
    }
}

/// The owner (an index into `names`, sorted and distinct) of every queue of `mq_all`.
pub(super) fn owners(mq_all: &[MessageQueue], names: &[String], caps: Caps) -> Vec<usize> {
    let c = names.len();
    if c == 0 || mq_all.is_empty() {
        return vec![0; if c == 0 { 0 } else { mq_all.len() }];
    }
    let topics = Topics::new(mq_all);
    let all = topics.queues.all();
    let mut topic_of = Vec::with_capacity(all.len());
    let mut topic_cap_of = Vec::with_capacity(topics.queues.len());
    for (t, queues) in topics.queues.iter().enumerate() {
        topic_of.extend(std::iter::repeat_n(t as u32, queues.len()));
        let cap = topic_cap(queues.len(), c);
        topic_cap_of.push((cap < queues.len()).then_some(cap as u32));
    }
    let mut loads = Loads {
        total: vec![0; c],
        total_cap: total_cap(all.len(), c, caps.overload_percent),
        topic_cap: topic_cap_of,
        per_topic: HashMap::with_hasher(foldhash::fast::FixedState::with_seed(0)),
    };
    let ring = Ring::new(names);
    let n = ring.len();
    let distance = |i: usize, point: usize| ring.hash_at(point % n).wrapping_sub(all[i].0);
    // Every queue's first point, nearest pairs first; queues refused go on through a heap. The
    // distances are small numbers (a fraction of the ring over its points), so they are scaled
    // up for the bucket sort, which wants keys spread over the whole range.
    let mut first: Vec<(u64, u32, u32)> = ring.starts(all).into_iter().enumerate().map(|(i, s)| (distance(i, s), i as u32, (s % n) as u32)).collect();
    let scale = (n as u64 / 4).max(1);
    sort_by_spread_key(&mut first, |p| p.0.saturating_mul(scale), Ord::cmp);
    let mut later: BinaryHeap<Reverse<(u64, u32, u32)>> = BinaryHeap::new();
    let mut steps = vec![0u32; all.len()];
    let mut owner = vec![usize::MAX; all.len()];
    let mut stuck = Vec::new();
    let mut next_first = 0;
    loop {
        let take_first = match (first.get(next_first), later.peek()) {
            (Some(f), Some(Reverse(l))) => f < l,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (_, i, point) = if take_first {
            next_first += 1;
            first[next_first - 1]
        } else {
            later.pop().map(|Reverse(p)| p).unwrap_or_default()
        };
        let (i, point) = (i as usize, point as usize);
        let (t, m) = (topic_of[i] as usize, ring.member_at(point));
        if loads.room(t, m) {
            owner[i] = m;
            loads.add(t, m);
            continue;
        }
        steps[i] += 1;
        if steps[i] as usize >= n {
            stuck.push(i);
            continue;
        }
        let next = (point + 1) % n;
        later.push(Reverse((distance(i, next), i as u32, next as u32)));
    }
    for i in stuck {
        augment(i, &topic_of, &mut owner, &mut loads);
    }
    raise_to_lower_cap(&ring, all, &topic_of, &mut owner, &mut loads, lower_cap(all.len(), c, caps.underload_percent).max(1));
    let mut by_position = vec![0usize; mq_all.len()];
    for (i, &(_, position)) in all.iter().enumerate() {
        by_position[position] = owner[i];
    }
    for (copy, kept) in topics.copy_of {
        by_position[copy] = by_position[kept];
    }
    by_position
}

/// Places queue `i`, which no member had room for, along a shortest augmenting path: a member
/// with room on its topic but full in total hands one of its queues of another topic to a member
/// with room for that one, and so on until a member with total room is reached. Such a path
/// exists while any assignment obeys both caps (an exactly balanced one does: max-flow
/// min-cut on topic -> member -> sink), and the search visits each member once.
fn augment(i: usize, topic_of: &[u32], owner: &mut [usize], loads: &mut Loads) {
    let c = loads.total.len();
    let t = topic_of[i] as usize;
    // Held queues by member, in queue order: built only when needed (stuck queues are rare).
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); c];
    for (q, &m) in owner.iter().enumerate() {
        if m != usize::MAX {
            held[m].push(q);
        }
    }
    // parent[b] = (a, q): b is reached by taking queue q from a.
    let mut parent: Vec<Option<(usize, usize)>> = vec![None; c];
    let mut seen: Vec<bool> = (0..c).map(|m| loads.topic_room(t, m)).collect();
    let mut frontier: VecDeque<usize> = (0..c).filter(|&m| seen[m]).collect();
    let mut end = None;
    while let Some(a) = frontier.pop_front() {
        if loads.total[a] < loads.total_cap {
            end = Some(a);
            break;
        }
        for &q in &held[a] {
            let u = topic_of[q] as usize;
            for b in 0..c {
                if !seen[b] && loads.topic_room(u, b) {
                    seen[b] = true;
                    parent[b] = Some((a, q));
                    frontier.push_back(b);
                }
            }
        }
    }
    // No path means no assignment obeys both caps, which the caps rule out; should it happen the
    // queue goes to the least loaded member, so that every queue has an owner.
    let Some(mut b) = end else {
        let m = (0..c).min_by_key(|&m| (loads.total[m], m)).unwrap_or(0);
        owner[i] = m;
        loads.add(t, m);
        return;
    };
    while let Some((a, q)) = parent[b] {
        let u = topic_of[q] as usize;
        loads.remove(u, a);
        owner[q] = b;
        loads.add(u, b);
        b = a;
    }
    owner[i] = b;
    loads.add(t, b);
}

/// Members below `least` (the lower cap, or 1 where that is 0), in member order, take queues
/// from the most loaded member (lowest index on ties) while it holds more than `least`: each time
/// the one of its queues nearest to the taker on the ring among those the taker has topic room
/// for. Totals stay within the caps: a taker is below both, and a giver stays at `least` or above.
fn raise_to_lower_cap(ring: &Ring, all: &[(u64, usize)], topic_of: &[u32], owner: &mut [usize], loads: &mut Loads, least: usize) {
    let c = loads.total.len();
    if loads.total.iter().all(|&n| n >= least) {
        return;
    }
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); c];
    for (q, &m) in owner.iter().enumerate() {
        held[m].push(q);
    }
    // Most loaded first, lowest index on ties.
    let mut givers: BTreeSet<(Reverse<usize>, usize)> = (0..c).map(|m| (Reverse(held[m].len()), m)).collect();
    for m in 0..c {
        while loads.total[m] < least {
            let mut found = None;
            for &(Reverse(load), giver) in &givers {
                if load <= least {
                    break;
                }
                let nearest = held[giver]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &q)| giver != m && loads.topic_room(topic_of[q] as usize, m))
                    .map(|(at, &q)| (ring.distance_to_member(all[q].0, m), q, at))
                    .min();
                if let Some((_, q, at)) = nearest {
                    found = Some((giver, q, at));
                    break;
                }
            }
            let Some((giver, q, at)) = found else { break };
            for (member, change) in [(giver, -1isize), (m, 1)] {
                givers.remove(&(Reverse(held[member].len()), member));
                givers.insert((Reverse(held[member].len().wrapping_add_signed(change)), member));
            }
            held[giver].swap_remove(at);
            held[m].push(q);
            let t = topic_of[q] as usize;
            loads.remove(t, giver);
            owner[q] = m;
            loads.add(t, m);
        }
    }
}

use crate::queue::MessageQueue;
