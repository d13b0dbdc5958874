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

use std::cell::Cell;

use super::hash::Fnv;
use super::topics::Spans;

const VIRTUAL_POINTS: u32 = 64;
const CANDIDATES: usize = 2;

pub(super) struct Ring {
    /// (hash, member), sorted.
    points: Vec<(u64, usize)>,
    /// How many members the ring was built for (a subset keeps the numbering of its parent).
    members: usize,
    /// `buckets[b]`: the first point whose hash, shifted right by `shift`, is at least `b`: a
    /// lookup lands within a few points instead of bisecting a ring of 64,000 (each probe a
    /// cache miss, which dominated groups of many small topics).
    buckets: Vec<usize>,
    shift: u32,
    /// Each member's point hashes, ascending, `VIRTUAL_POINTS` per member side by side: where a
    /// topic held by few members finds each one's nearest point (empty on a subset).
    hashes_of: Vec<u64>,
    /// The last walk's skip links, reset: the next topic's walk reuses them instead of
    /// allocating one per point of the ring.
    walked: Cell<Option<Alive>>,
}

impl Ring {
    pub(super) fn new(members: &[String]) -> Self {
        let mut points: Vec<(u64, usize)> = Vec::with_capacity(members.len() * VIRTUAL_POINTS as usize);
        for (m, id) in members.iter().enumerate() {
            let name = Fnv::START.part(id.as_bytes());
            for v in 0..VIRTUAL_POINTS {
                points.push((name.part(&v.to_le_bytes()).finish(), m));
            }
        }
        Ring::from_points(points, members.len())
    }

    fn from_points(mut points: Vec<(u64, usize)>, members: usize) -> Self {
        points.sort_unstable();
        // Filled member by member in ring order, so each member's hashes ascend.
        let mut filled = vec![0usize; members];
        let mut hashes_of = vec![0; members * VIRTUAL_POINTS as usize];
        for &(h, m) in &points {
            hashes_of[m * VIRTUAL_POINTS as usize + filled[m]] = h;
            filled[m] += 1;
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
        Ring { points, members, buckets, shift, hashes_of, walked: Cell::new(None) }
    }

    /// The ring of `members` alone (member numbers unchanged): what [`Ring::fill_few`] must give
    /// the same answers as (the tests compare them). It walks only: it keeps no points by member.
    #[cfg(test)]
    pub(super) fn subset(&self, members: &[usize]) -> Ring {
        let points = self.points.iter().filter(|(_, m)| members.contains(m)).copied().collect();
        Ring { points, members: self.members, buckets: Vec::new(), shift: 64, hashes_of: Vec::new(), walked: Cell::new(None) }
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
    /// quotas) and how many queues each is nearest to, by member, from the queues'
    /// [`Ring::starts`]: appended to `out` as one span.
    pub(super) fn natural_counts(&self, starts: &[usize], out: &mut Spans<(usize, u32)>) {
        let mut nearest: Vec<usize> = starts.iter().map(|&s| self.points[s % self.points.len()].1).collect();
        nearest.sort_unstable();
        let mut last: Option<(usize, u32)> = None;
        for m in nearest {
            match &mut last {
                Some((l, n)) if *l == m => *n += 1,
                _ => {
                    if let Some(done) = last {
                        out.push(done);
                    }
                    last = Some((m, 1));
                }
            }
        }
        if let Some(done) = last {
            out.push(done);
        }
        out.end_span();
    }

    /// `owner[queue] = member` for every `(hash, queue)` of `queues` (sorted by hash, with their
    /// [`Ring::starts`]), using up `quota` (which sums to `queues.len()`). `alive` lists the
    /// members with quota; when they are few, the topic searches their points alone.
    pub(super) fn fill(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) {
        if let [only] = alive {
            // One member with quota: it has them all (many one-queue topics take this path).
            for &(_, q) in queues {
                owner[q] = *only;
            }
            quota[*only] = 0;
            return;
        }
        // Searching each alive member's points costs about alive x (points + queues); the whole
        // ring's candidate search steps over about (points / alive points) per candidate.
        let per = VIRTUAL_POINTS as usize;
        let few = alive.len().saturating_mul(alive.len()).saturating_mul(per + queues.len());
        if few < queues.len().saturating_mul(CANDIDATES * self.members) {
            return self.fill_few(quota, alive, queues, owner);
        }
        self.fill_on(quota, Some(alive), queues, starts, owner)
    }

    /// [`Ring::fill`] as on the ring of `alive` alone, without building it: a queue's candidates
    /// there are the alive members whose first point at or after its hash is nearest (equal
    /// distances in member order, as the ring sorts them).
    /// `queues` are in hash order, so each member's points are merged with them in one pass.
    pub(super) fn fill_few(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], owner: &mut [usize]) {
        let mut best = vec![[(u64::MAX, usize::MAX); CANDIDATES]; queues.len()];
        let per = VIRTUAL_POINTS as usize;
        for &m in alive.iter().filter(|&&m| quota[m] > 0) {
            let own = &self.hashes_of[m * per..(m + 1) * per];
            let mut at = 0;
            for (&(h, _), best) in queues.iter().zip(best.iter_mut()) {
                // The queues ascend: step on from the last queue's point (a linear scan reads
                // the member's points in order, which the processor fetches ahead; a binary
                // search waits for each of its loads).
                while at < per && own[at] < h {
                    at += 1;
                }
                let candidate = (own[at % per].wrapping_sub(h), m);
                if candidate < best[CANDIDATES - 1] {
                    let slot = best.partition_point(|b| *b < candidate);
                    best.copy_within(slot..CANDIDATES - 1, slot + 1);
                    best[slot] = candidate;
                }
            }
        }
        let pairs = best.iter().enumerate().flat_map(|(i, b)| b.iter().filter(|c| c.1 != usize::MAX).map(move |&(d, m)| (d, i, m))).collect();
        let rest = Self::grant(pairs, quota, queues, owner);
        self.walk_by_search(quota, alive, &rest, owner);
    }

    /// [`Ring::walk`] by searching the points of `alive` (the members that may have quota)
    /// instead of stepping over everyone else's: each queue, in ring order, to the nearest of
    /// them with quota left.
    fn walk_by_search(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], owner: &mut [usize]) {
        for &(h, q) in queues {
            let nearest = alive.iter().filter(|&&m| quota[m] > 0).map(|&m| (self.first_distance(m, h), m)).min();
            let Some((_, m)) = nearest else { return };
            owner[q] = m;
            quota[m] -= 1;
        }
    }

    /// Clockwise distance from `h` to member `m`'s first point at or after it.
    fn first_distance(&self, m: usize, h: u64) -> u64 {
        let own = &self.hashes_of[m * VIRTUAL_POINTS as usize..(m + 1) * VIRTUAL_POINTS as usize];
        own[own.partition_point(|p| *p < h) % own.len()].wrapping_sub(h)
    }

    /// [`Ring::fill`] on this ring. The queues left without a candidate walk the ring, or, given
    /// `alive` (the members with quota) and where that is cheaper, search those members' points.
    pub(super) fn fill_on(&self, quota: &mut [usize], alive: Option<&[usize]>, queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) {
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
        let rest = Self::grant(pairs, quota, queues, owner);
        // A walk may step over most of the ring (the last queues look for the last members
        // with quota); a search costs a few steps per alive member and queue.
        match alive {
            Some(alive) if rest.len().saturating_mul(alive.len()) < n / 8 => self.walk_by_search(quota, alive, &rest, owner),
            _ => self.walk(quota, &rest, owner),
        }
    }

    /// Grants `(distance, queue index, member)` pairs nearest first, each queue to the first of
    /// its candidates with quota left; returns the queues left without one, in ring order.
    fn grant(mut pairs: Vec<(u64, usize, usize)>, quota: &mut [usize], queues: &[(u64, usize)], owner: &mut [usize]) -> Vec<(u64, usize)> {
        pairs.sort_unstable();
        let mut placed = vec![false; queues.len()];
        for (_, i, m) in pairs {
            if !placed[i] && quota[m] > 0 {
                placed[i] = true;
                quota[m] -= 1;
                owner[queues[i].1] = m;
            }
        }
        queues.iter().zip(&placed).filter(|(_, p)| !**p).map(|(q, _)| *q).collect()
    }

    /// Each queue (in ring order) goes to the first member clockwise with quota left.
    fn walk(&self, quota: &mut [usize], queues: &[(u64, usize)], owner: &mut [usize]) {
        if queues.is_empty() {
            return;
        }
        let mut alive = self.walked.take().unwrap_or_else(|| Alive::new(self));
        for &(h, qi) in queues {
            let Some(at) = alive.next(self, self.start_of(h), |m| quota[m] == 0) else { break };
            let m = self.points[at % self.points.len()].1;
            owner[qi] = m;
            quota[m] -= 1;
        }
        alive.reset();
        self.walked.set(Some(alive));
    }
}

/// Skips the points of members that have left (a predicate that, once true for a member, stays
/// true): each dead point is stepped over once, then jumped over through path-compressed links.
pub(super) struct Alive {
    /// next[i] == i: not yet seen dead; otherwise a later point to jump to (`len` wraps).
    next: Vec<usize>,
    /// The points seen dead, for [`Alive::reset`].
    dead: Vec<usize>,
}

impl Alive {
    pub(super) fn new(ring: &Ring) -> Self {
        Alive { next: (0..=ring.len()).collect(), dead: Vec::new() }
    }

    /// Every point alive again, at the cost of the points seen dead, not of the ring: one topic's
    /// walk after another's.
    fn reset(&mut self) {
        for i in self.dead.drain(..) {
            self.next[i] = i;
        }
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
                self.dead.push(i);
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
