//! Pass 2: a topic's queues onto members, within the quotas pass 1 gave them.
//!
//! Members sit on one hash ring (64 points each, shared by every topic). A queue's candidates are
//! the first two members clockwise from its hash; candidate pairs are granted nearest first (by
//! ring distance), each queue to the first of its candidates with quota left. The few queues whose
//! candidates are both full walk clockwise to the first member with quota left (consistent
//! hashing with bounded loads).
//!
//! Why nearest first: when a member joins, its points cut the arcs nearest to them, and the
//! queues there are the ones it takes; the members whose quota shrank give up their farthest
//! queues. Filling in plain ring order instead lets one shrunken quota push queues around the
//! ring. Measured over the `rmq-rebalance compare` grid (moved / lower bound on a join): ring-order
//! fill with 16 points 1.59, nearest first with 16 points 1.43, with 64 points 1.37 (1.34 once
//! pass 1 prefers members by their natural counts); more candidates than two or more points than
//! 64 gained under 0.01 and cost time. Tried and dropped: candidates ranked by rendezvous score
//! instead of distance (1.47-1.74), a ring-order walk in shuffled order (1.38-1.41), evenly
//! spaced queue positions (1.33, but every queue moves when a topic grows).

use super::hash64;

const VIRTUAL_POINTS: u32 = 64;
const CANDIDATES: usize = 2;

pub(super) struct Ring {
    /// (hash, member), sorted.
    points: Vec<(u64, usize)>,
    /// Each member's indices into `points`.
    points_of: Vec<Vec<usize>>,
    /// `buckets[b]`: the first point whose hash, shifted right by `shift`, is at least `b`: a
    /// lookup lands within a few points instead of bisecting a ring of 64,000 (each probe a
    /// cache miss, which dominated groups of many small topics).
    buckets: Vec<usize>,
    shift: u32,
}

impl Ring {
    pub(super) fn new(members: &[String]) -> Self {
        let mut points: Vec<(u64, usize)> = Vec::with_capacity(members.len() * VIRTUAL_POINTS as usize);
        for (m, id) in members.iter().enumerate() {
            for v in 0..VIRTUAL_POINTS {
                points.push((hash64(&[id.as_bytes(), &v.to_le_bytes()]), m));
            }
        }
        Ring::from_points(points, members.len())
    }

    fn from_points(mut points: Vec<(u64, usize)>, members: usize) -> Self {
        points.sort_unstable();
        let mut points_of: Vec<Vec<usize>> = vec![Vec::new(); members];
        for (i, (_, m)) in points.iter().enumerate() {
            points_of[*m].push(i);
        }
        // About eight points per bucket.
        let bits = (points.len() / 8).max(1).ilog2().max(1);
        let shift = 64 - bits;
        let mut buckets = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for b in 0..=(1u64 << bits) {
            while at < points.len() && points[at].0 >> shift < b {
                at += 1;
            }
            buckets.push(at);
        }
        Ring { points, points_of, buckets, shift }
    }

    /// The ring of `members` alone (member numbers unchanged): what a topic whose queues go to a
    /// few members walks, so that its cost follows its own size, not the group's. It cannot make
    /// subsets of its own.
    pub(super) fn subset(&self, members: &[usize]) -> Ring {
        // Sorting indices into the sorted ring is sorting the points, and integers sort faster.
        let mut at: Vec<u32> = members.iter().flat_map(|&m| self.points_of[m].iter().map(|&p| p as u32)).collect();
        at.sort_unstable();
        let points = at.into_iter().map(|p| self.points[p as usize]).collect();
        Ring { points, points_of: Vec::new(), buckets: Vec::new(), shift: 64 }
    }

    pub(super) fn len(&self) -> usize {
        self.points.len()
    }

    /// The member at point `i`.
    pub(super) fn member_at(&self, i: usize) -> usize {
        self.points[i].1
    }

    /// The index of the first point at or after `hash` (`len()` past the last).
    pub(super) fn start_of(&self, hash: u64) -> usize {
        if self.buckets.is_empty() {
            return self.points.partition_point(|(p, _)| *p < hash);
        }
        let b = (hash >> self.shift) as usize;
        let (lo, hi) = (self.buckets[b], self.buckets[b + 1]);
        lo + self.points[lo..hi].partition_point(|(p, _)| *p < hash)
    }

    /// For each of `queues`, the index of the first point at or after its hash
    /// (`points.len()` past the last).
    pub(super) fn starts(&self, queues: &[(u64, usize)]) -> Vec<usize> {
        queues.iter().map(|&(h, _)| self.start_of(h)).collect()
    }

    /// The members nearest clockwise to at least one queue (their "natural" owner, ignoring
    /// quotas) and how many queues each is nearest to, by member, from the queues' [`Ring::starts`].
    pub(super) fn natural_counts(&self, starts: &[usize]) -> Vec<(usize, u32)> {
        let mut nearest: Vec<usize> = starts.iter().map(|&s| self.points[s % self.points.len()].1).collect();
        nearest.sort_unstable();
        let mut counts: Vec<(usize, u32)> = Vec::new();
        for m in nearest {
            match counts.last_mut() {
                Some((last, n)) if *last == m => *n += 1,
                _ => counts.push((m, 1)),
            }
        }
        counts
    }

    /// `owner[queue] = member` for every `(hash, queue)` of `queues` (sorted by hash, with their
    /// [`Ring::starts`]), using up `quota` (which sums to `queues.len()`). `alive` lists the
    /// members with quota; when they are few, the topic works on a ring of theirs alone.
    pub(super) fn fill(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) {
        if let [only] = alive {
            // One member with quota: it has them all (many one-queue topics take this path).
            for &(_, q) in queues {
                owner[q] = *only;
            }
            quota[*only] = 0;
            return;
        }
        if alive.len() * 16 < self.points_of.len() {
            let small = self.subset(alive);
            let starts = small.starts(queues);
            return small.fill_on(quota, queues, &starts, owner);
        }
        self.fill_on(quota, queues, starts, owner)
    }

    pub(super) fn fill_on(&self, quota: &mut [usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) {
        let n = self.points.len();
        // (distance, queue's index in `queues`, member)
        let mut pairs: Vec<(u64, usize, usize)> = Vec::with_capacity(queues.len() * CANDIDATES);
        for (i, (&(h, _), &start)) in queues.iter().zip(starts).enumerate() {
            let mut found: [usize; CANDIDATES] = [usize::MAX; CANDIDATES];
            let mut count = 0;
            for step in 0..n {
                let (p, m) = self.points[(start + step) % n];
                if quota[m] == 0 || found[..count].contains(&m) {
                    continue;
                }
                found[count] = m;
                count += 1;
                pairs.push((p.wrapping_sub(h), i, m));
                if count == CANDIDATES {
                    break;
                }
            }
        }
        pairs.sort_unstable();
        let mut placed = vec![false; queues.len()];
        for (_, i, m) in pairs {
            if !placed[i] && quota[m] > 0 {
                placed[i] = true;
                quota[m] -= 1;
                owner[queues[i].1] = m;
            }
        }
        let rest: Vec<(u64, usize)> = queues.iter().zip(&placed).filter(|(_, p)| !**p).map(|(q, _)| *q).collect();
        self.walk(quota, &rest, owner);
    }

    /// Each queue (in ring order) goes to the first member clockwise with quota left.
    fn walk(&self, quota: &mut [usize], queues: &[(u64, usize)], owner: &mut [usize]) {
        if queues.is_empty() {
            return;
        }
        let mut alive = Alive::new(self);
        for &(h, qi) in queues {
            let Some(at) = alive.next(self, self.start_of(h), |m| quota[m] == 0) else { return };
            let m = self.points[at % self.points.len()].1;
            owner[qi] = m;
            quota[m] -= 1;
        }
    }
}

/// Skips the points of members that have left (a predicate that, once true for a member, stays
/// true): each dead point is stepped over once, then jumped over through path-compressed links.
pub(super) struct Alive {
    /// next[i] == i: not yet seen dead; otherwise a later point to jump to (`len` wraps).
    next: Vec<usize>,
}

impl Alive {
    pub(super) fn new(ring: &Ring) -> Self {
        Alive { next: (0..=ring.len()).collect() }
    }

    /// The first live point at or after `i`, clockwise, as an index that may exceed the ring's
    /// length by one turn (`None` when every point is dead).
    pub(super) fn next(&mut self, ring: &Ring, i: usize, dead: impl Fn(usize) -> bool) -> Option<usize> {
        let n = ring.len();
        let at = self.find(ring, i % n, &dead);
        if at < n {
            return Some(at + i / n * n);
        }
        let at = self.find(ring, 0, &dead);
        (at < n).then_some(at + (i / n + 1) * n)
    }

    fn find(&mut self, ring: &Ring, start: usize, dead: &impl Fn(usize) -> bool) -> usize {
        let n = ring.len();
        let mut i = start;
        while i < n {
            if self.next[i] != i {
                i = self.next[i];
            } else if dead(ring.points[i].1) {
                self.next[i] = i + 1;
                i += 1;
            } else {
                break;
            }
        }
        // Path compression.
        let mut j = start;
        while j < n && self.next[j] != j && self.next[j] != i {
            let k = self.next[j];
            self.next[j] = i;
            j = k;
        }
        i
    }
}
