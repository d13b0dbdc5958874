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
use super::spread_sort::sort_by_spread_key;
use super::topics::Spans;

const VIRTUAL_POINTS: u32 = 64;
/// One member's points as ring indices (see [`Ring::index_of`]).
type Own = [u32; VIRTUAL_POINTS as usize];
const CANDIDATES: usize = 2;

pub(super) struct Ring {
    /// The points' hashes, sorted: what lookups by hash and distances read.
    hashes: Vec<u64>,
    /// The member at each point, apart from the hashes: a walk past members without quota reads
    /// these 4 bytes a point, not 16 with the hash (a group's members are fewer than 2^32).
    owners: Vec<u32>,
    /// How many members the ring was built for (a subset keeps the numbering of its parent).
    members: usize,
    /// `buckets[b]`: the first point whose hash, shifted right by `shift`, is at least `b`: a
    /// lookup lands within a few points instead of bisecting a ring of 64,000 (each probe a
    /// cache miss, which dominated groups of many small topics).
    buckets: Vec<usize>,
    shift: u32,
    /// Each member's points as indices into `hashes`, ascending, `VIRTUAL_POINTS` per member side
    /// by side: where a topic held by few members finds each one's nearest point (empty on a
    /// subset, and on a ring too large for `u32` indices, which then always walks). Indices, not
    /// hashes: half the memory to read per topic, and their order past a queue's start is the
    /// order of (distance, member) that candidates are ranked by.
    index_of: Vec<Own>,
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
        sort_by_spread_key(&mut points, |p| p.0, Ord::cmp);
        // Filled member by member in ring order, so each member's indices ascend.
        let mut index_of = Vec::new();
        if u32::try_from(points.len()).is_ok() {
            let mut filled = vec![0usize; members];
            index_of = vec![[0; VIRTUAL_POINTS as usize]; members];
            for (i, &(_, m)) in points.iter().enumerate() {
                index_of[m][filled[m]] = i as u32;
                filled[m] += 1;
            }
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
        let hashes = points.iter().map(|p| p.0).collect();
        let owners = points.iter().map(|p| p.1 as u32).collect();
        Ring { hashes, owners, members, buckets, shift, index_of, walked: Cell::new(None) }
    }

    /// The ring of `members` alone (member numbers unchanged): what [`Ring::fill_few`] must give
    /// the same answers as (the tests compare them). It walks only: it keeps no points by member.
    #[cfg(test)]
    pub(super) fn subset(&self, members: &[usize]) -> Ring {
        let kept = |i: &usize| members.contains(&(self.owners[*i] as usize));
        let hashes = (0..self.len()).filter(kept).map(|i| self.hashes[i]).collect();
        let owners = (0..self.len()).filter(kept).map(|i| self.owners[i]).collect();
        Ring { hashes, owners, members: self.members, buckets: Vec::new(), shift: 64, index_of: Vec::new(), walked: Cell::new(None) }
    }

    pub(super) fn len(&self) -> usize {
        self.hashes.len()
    }

    /// The hash of point `i`.
    pub(super) fn hash_at(&self, i: usize) -> u64 {
        self.hashes[i]
    }

    /// How far clockwise from `hash` member `m`'s nearest point is.
    pub(super) fn distance_to_member(&self, hash: u64, m: usize) -> u64 {
        let point = match self.index_of.get(m) {
            Some(own) => own[first_at_or_after(own, self.start_of(hash))] as usize,
            // A ring too large to index: the member's points are found by walking it.
            None => {
                let mut points = (0..self.len()).filter(|&i| self.member_at(i) == m);
                let first = points.clone().next().unwrap_or(0);
                points.find(|&i| self.hashes[i] >= hash).unwrap_or(first)
            }
        };
        self.hashes[point].wrapping_sub(hash)
    }

    /// The member at point `i`.
    pub(super) fn member_at(&self, i: usize) -> usize {
        self.owners[i] as usize
    }

    /// The member nearest clockwise to a queue with this start (see [`Ring::starts`]): at its
    /// start, or past the last point at the first.
    pub(super) fn nearest_member(&self, start: usize) -> usize {
        self.member_at(if start == self.len() { 0 } else { start })
    }

    /// The index of the first point at or after `hash` (`len()` past the last).
    pub(super) fn start_of(&self, hash: u64) -> usize {
        if self.buckets.is_empty() {
            return self.hashes.partition_point(|p| *p < hash);
        }
        let b = (hash >> self.shift) as usize;
        let (lo, hi) = (self.buckets[b], self.buckets[b + 1]);
        lo + self.hashes[lo..hi].partition_point(|p| *p < hash)
    }

    /// For each of `queues`, the index of the first point at or after its hash
    /// (`len()` past the last).
    pub(super) fn starts(&self, queues: &[(u64, usize)]) -> Vec<usize> {
        queues.iter().map(|&(h, _)| self.start_of(h)).collect()
    }

    /// For each topic (`sizes` queues each, their [`Ring::starts`] side by side), the members
    /// nearest clockwise to at least one of its queues (their "natural" owner, ignoring quotas)
    /// and how many queues each is nearest to, in member order: one span per topic.
    pub(super) fn natural_counts(&self, starts: &[usize], sizes: &[usize]) -> Spans<(usize, u32)> {
        let mut out = Spans::with_capacity(starts.len(), sizes.len());
        // A topic with many queues for its members counts them by member; a small one sorts
        // its few (counting would touch every member per topic).
        let mut count = vec![0u32; self.members];
        let mut nearest: Vec<usize> = Vec::new();
        let mut at = 0;
        for &size in sizes {
            let starts = &starts[at..at + size];
            at += size;
            if size >= self.members / 4 {
                for &s in starts {
                    count[self.nearest_member(s)] += 1;
                }
                for (m, n) in count.iter_mut().enumerate().filter(|(_, n)| **n > 0) {
                    out.push((m, std::mem::take(n)));
                }
            } else {
                nearest.clear();
                nearest.extend(starts.iter().map(|&s| self.nearest_member(s)));
                nearest.sort_unstable();
                for run in nearest.chunk_by(|a, b| a == b) {
                    out.push((run[0], run.len() as u32));
                }
            }
            out.end_span();
        }
        out
    }

    /// `owner[queue] = member` for every `(hash, queue)` of `queues` (sorted by hash, with their
    /// [`Ring::starts`]), using up `quota` (which sums to `queues.len()`). `alive` lists the
    /// members with quota; when they are few, the topic searches their points alone.
    pub(super) fn fill(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize], scratch: &mut Scratch) {
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
        if self.indexed() && few < queues.len().saturating_mul(CANDIDATES * self.members) {
            return self.fill_few(quota, alive, queues, starts, owner, scratch);
        }
        self.fill_on(quota, Some(alive), queues, starts, owner, scratch)
    }

    /// [`Ring::fill`]'s answer without its search, where that answer is plain: when every member
    /// nearest to some of the topic's queues (`natural`, from [`Ring::natural_counts`]) has a
    /// quota of exactly that many, every queue goes to its nearest member. Granting nearest first
    /// gives each queue its first candidate, its nearest member: for a queue to lose that member's
    /// last slot, another queue would have to take it as its second candidate, so unplaced
    /// by its own first, whose slot some queue took earlier in the same way, and so on back to a
    /// first loss that nothing caused. Returns whether it applied (then the quotas are used up).
    /// Topics smaller than the group mostly qualify: pass 1 gives their extras to the members
    /// nearest to their queues first.
    pub(super) fn fill_nearest(&self, quota: &mut [usize], natural: &[(usize, u32)], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) -> bool {
        if !natural.iter().all(|&(m, n)| quota[m] == n as usize) {
            return false;
        }
        for (&(_, q), &start) in queues.iter().zip(starts) {
            // One nearest member (every one-queue topic) needs no look at the ring.
            owner[q] = if let [(only, _)] = natural { *only } else { self.nearest_member(start) };
        }
        for &(m, _) in natural {
            quota[m] = 0;
        }
        true
    }

    /// Whether members' points are kept by index (every ring but a test's subset and one of more
    /// than `u32::MAX` points).
    fn indexed(&self) -> bool {
        !self.index_of.is_empty()
    }

    /// [`Ring::fill`] as on the ring of `alive` alone, without building it: a queue's candidates
    /// there are the alive members whose first point at or after its start is nearest (points at
    /// one hash in member order, as the ring sorts them). `queues` (with their `starts`) are in
    /// hash order, so each member's points are merged with them in one pass. Needs
    /// [`Ring::indexed`].
    pub(super) fn fill_few(&self, quota: &mut [usize], alive: &[usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize], scratch: &mut Scratch) {
        // A candidate is (clockwise index offset from the queue's start) << 32 | member, so that
        // one comparison ranks by distance, then member.
        const NONE: u64 = u64::MAX;
        const _: () = assert!(CANDIDATES == 2);
        let n = self.len();
        let best = &mut scratch.best;
        best.clear();
        best.resize(queues.len(), [NONE; CANDIDATES]);
        for &m in alive.iter().filter(|&&m| quota[m] > 0) {
            let own = &self.index_of[m];
            let m = m as u64;
            for (&start, best) in starts.iter().zip(best.iter_mut()) {
                let offset = first_offset_in(own, start, n);
                // Into the best two without a branch on the values: most of these comparisons
                // are coin tosses, which a branch would mispredict.
                let candidate = (offset as u64) << 32 | m;
                let [first, second] = *best;
                *best = [first.min(candidate), second.min(first.max(candidate))];
            }
        }
        scratch.pairs.clear();
        for (i, (b, (&(h, _), &start))) in best.iter().zip(queues.iter().zip(starts)).enumerate() {
            for &c in b.iter().filter(|c| **c != NONE) {
                let (offset, m) = ((c >> 32) as usize, (c & u64::from(u32::MAX)) as usize);
                // Wrapped by a subtraction: a division here cost as much as the search above.
                let at = if start + offset >= n { start + offset - n } else { start + offset };
                scratch.pairs.push(pair(self.hashes[at].wrapping_sub(h), i, m));
            }
        }
        Self::grant(scratch, quota, queues, starts, owner);
        self.walk_by_search(quota, alive, &scratch.rest, owner);
    }

    /// [`Ring::walk`] by searching the points of `alive` (the members that may have quota)
    /// instead of stepping over everyone else's: each queue, in ring order, to the nearest of
    /// them with quota left. Needs [`Ring::indexed`].
    fn walk_by_search(&self, quota: &mut [usize], alive: &[usize], queues: &[(usize, usize)], owner: &mut [usize]) {
        for &(start, q) in queues {
            let nearest = alive.iter().filter(|&&m| quota[m] > 0).map(|&m| (self.first_offset(m, start), m)).min();
            let Some((_, m)) = nearest else { return };
            owner[q] = m;
            quota[m] -= 1;
        }
    }

    /// How many points clockwise from index `start` member `m`'s first point at or after it lies
    /// (ranking these offsets ranks by ring distance, equal hashes in member order).
    fn first_offset(&self, m: usize, start: usize) -> usize {
        first_offset_in(&self.index_of[m], start, self.len())
    }

    /// [`Ring::fill`] on this ring. The queues left without a candidate walk the ring, or, given
    /// `alive` (the members with quota) and where that is cheaper, search those members' points.
    pub(super) fn fill_on(
        &self,
        quota: &mut [usize],
        alive: Option<&[usize]>,
        queues: &[(u64, usize)],
        starts: &[usize],
        owner: &mut [usize],
        scratch: &mut Scratch,
    ) {
        let n = self.len();
        // Candidate pairs, see [`pair`].
        scratch.pairs.clear();
        for (i, (&(h, _), &start)) in queues.iter().zip(starts).enumerate() {
            let mut found: [usize; CANDIDATES] = [usize::MAX; CANDIDATES];
            let mut count = 0;
            // Once around from the start; the point index wraps by a comparison (a division
            // per step cost more than the rest of the step).
            let mut at = start;
            for _ in 0..n {
                if at >= n {
                    at = 0;
                }
                let m = self.owners[at] as usize;
                at += 1;
                if quota[m] == 0 || found[..count].contains(&m) {
                    continue;
                }
                found[count] = m;
                count += 1;
                scratch.pairs.push(pair(self.hashes[at - 1].wrapping_sub(h), i, m));
                if count == CANDIDATES {
                    break;
                }
            }
        }
        Self::grant(scratch, quota, queues, starts, owner);
        // A walk may step over most of the ring (the last queues look for the last members
        // with quota); a search costs a few steps per alive member and queue.
        match alive {
            Some(alive) if self.indexed() && scratch.rest.len().saturating_mul(alive.len()) < n / 8 => self.walk_by_search(quota, alive, &scratch.rest, owner),
            _ => self.walk(quota, &scratch.rest, owner),
        }
    }

    /// Grants the scratch's `(distance, queue index, member)` pairs nearest first, each queue to
    /// the first of its candidates with quota left; leaves the queues without one, in ring
    /// order, in `scratch.rest` (as their start and queue).
    fn grant(scratch: &mut Scratch, quota: &mut [usize], queues: &[(u64, usize)], starts: &[usize], owner: &mut [usize]) {
        scratch.pairs.sort_unstable();
        let placed = &mut scratch.placed;
        placed.clear();
        placed.resize(queues.len(), false);
        for &c in &scratch.pairs {
            let (i, m) = ((c >> 32) as u32 as usize, c as u32 as usize);
            if !placed[i] && quota[m] > 0 {
                placed[i] = true;
                quota[m] -= 1;
                owner[queues[i].1] = m;
            }
        }
        scratch.rest.clear();
        scratch.rest.extend(queues.iter().zip(starts).zip(placed.iter()).filter(|(_, p)| !**p).map(|((q, &start), _)| (start, q.1)));
    }

    /// Each queue (`(start, queue)`, in ring order) goes to the first member clockwise with
    /// quota left.
    fn walk(&self, quota: &mut [usize], queues: &[(usize, usize)], owner: &mut [usize]) {
        if queues.is_empty() {
            return;
        }
        let mut alive = self.walked.take().unwrap_or_else(|| Alive::new(self));
        for &(start, qi) in queues {
            let Some(at) = alive.next(self, start, |m| quota[m] == 0) else { break };
            let m = self.member_at(at % self.len());
            owner[qi] = m;
            quota[m] -= 1;
        }
        alive.reset();
        self.walked.set(Some(alive));
    }
}

/// Where in `own` (a member's `VIRTUAL_POINTS` ring indices, ascending) its first point at or
/// after ring index `start` is: the first index not below `start`, or 0 (clockwise past the
/// last point) when all are. Counted in two steps of eight comparisons each (which blocks of
/// eight lie wholly below, then how much of the next block does), with no branch on the values:
/// a merge or a binary search mispredicts about once per queue and member, which dominated
/// groups of many small topics.
#[inline]
pub(super) fn first_at_or_after(own: &Own, start: usize) -> usize {
    const BLOCK: usize = 8;
    const _: () = assert!(VIRTUAL_POINTS as usize == BLOCK * BLOCK);
    // `start` is at most the ring's length, and an indexed ring's length fits `u32`.
    let start = start as u32;
    let below = |p: &u32| usize::from(*p < start);
    // The last block is the one to count in when all before it lie below, so its own last
    // point need not be compared.
    let blocks = (0..BLOCK - 1).map(|b| below(&own[b * BLOCK + BLOCK - 1])).sum::<usize>();
    let rank = blocks * BLOCK + own[blocks * BLOCK..][..BLOCK].iter().map(below).sum::<usize>();
    rank % own.len()
}

/// How many points clockwise from ring index `start` (on a ring of `n` points) the member whose
/// points are `own` has its first one at or after it: past the last point, its first.
#[inline]
fn first_offset_in(own: &Own, start: usize, n: usize) -> usize {
    let point = own[first_at_or_after(own, start)] as usize;
    if point >= start {
        point - start
    } else {
        point + n - start
    }
}

/// A candidate pair as one number, (distance, queue index, member) in its order: sorting these
/// is sorting the triples, at the cost of comparing two words rather than three fields.
/// A topic's queues and a group's members are fewer than 2^31 (the lists are Java's).
fn pair(distance: u64, queue: usize, member: usize) -> u128 {
    debug_assert!(queue <= u32::MAX as usize && member <= u32::MAX as usize);
    u128::from(distance) << 64 | (queue as u128) << 32 | member as u128
}

/// One topic's working buffers, kept for the next topic's: groups of many small topics would
/// otherwise spend their time allocating.
#[derive(Default)]
pub(super) struct Scratch {
    /// Per queue, its best candidates so far (see [`Ring::fill_few`]).
    best: Vec<[u64; CANDIDATES]>,
    /// Candidate pairs, see [`pair`].
    pairs: Vec<u128>,
    placed: Vec<bool>,
    /// The queues left once the pairs are granted: (start, queue).
    rest: Vec<(usize, usize)>,
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
            } else if dead(ring.member_at(i)) {
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
