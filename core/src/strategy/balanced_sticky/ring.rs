//! Pass 2: a topic's queues onto members, within the quotas pass 1 gave them, by consistent
//! hashing with bounded loads: members sit on one ring (16 points each, shared by every topic),
//! and each queue, in ring order, walks clockwise to the first member with quota left.

use super::hash64;

const VIRTUAL_POINTS: usize = 16;

pub(super) struct Ring {
    /// (hash, member), sorted.
    points: Vec<(u64, usize)>,
    /// Each member's indices into `points`.
    points_of: Vec<Vec<usize>>,
}

impl Ring {
    pub(super) fn new(members: &[String]) -> Self {
        let mut points: Vec<(u64, usize)> = Vec::with_capacity(members.len() * VIRTUAL_POINTS);
        for (m, id) in members.iter().enumerate() {
            for v in 0..VIRTUAL_POINTS as u32 {
                points.push((hash64(&[id.as_bytes(), &v.to_le_bytes()]), m));
            }
        }
        points.sort();
        let mut points_of: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        for (i, (_, m)) in points.iter().enumerate() {
            points_of[*m].push(i);
        }
        Ring { points, points_of }
    }

    /// `owner[queue] = member` for every `(hash, queue)` of `queues` (sorted by hash), using up
    /// `quota`. Full members' points are skipped through path-compressed "next alive" links.
    pub(super) fn fill(&self, quota: &mut [usize], queues: &[(u64, usize)], owner: &mut [usize]) {
        let n = self.points.len();
        // next[i]: a point index at or after i that may be alive; n is "wrap around".
        let mut next: Vec<usize> = (0..=n).collect();
        let mut dead = vec![false; n];
        for (m, q) in quota.iter().enumerate() {
            if *q == 0 {
                self.kill(m, &mut dead, &mut next);
            }
        }
        for &(h, qi) in queues {
            let start = self.points.partition_point(|(p, _)| *p < h);
            let mut at = find(&mut next, &dead, start);
            if at == n {
                at = find(&mut next, &dead, 0);
            }
            let m = self.points[at].1;
            owner[qi] = m;
            quota[m] -= 1;
            if quota[m] == 0 {
                self.kill(m, &mut dead, &mut next);
            }
        }
    }

    fn kill(&self, m: usize, dead: &mut [bool], next: &mut [usize]) {
        for &p in &self.points_of[m] {
            dead[p] = true;
            next[p] = p + 1;
        }
    }
}

/// The first live point at or after `i` (`dead.len()` if none before the end).
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
