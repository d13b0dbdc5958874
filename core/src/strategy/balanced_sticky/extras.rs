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

use std::collections::VecDeque;

use super::hash64;

/// Members' weights and their sum.
pub(super) struct Weights {
    of: Vec<u64>,
    sum: u128,
}

impl Weights {
    /// `of` must be non-empty and every weight positive (the configuration checks this).
    pub(super) fn new(of: Vec<u64>) -> Self {
        let sum = of.iter().map(|w| u128::from(*w)).sum();
        Weights { of, sum }
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

/// `extra_in[t][m]`: whether member `m` gets one queue of topic `t` above its floor. `sizes` and
/// `hashes` are the topics' distinct queue counts and name hashes, in serving order; `natural[t][m]`
/// how many of topic `t`'s queues have `m` as their nearest member on the ring.
pub(super) fn distribute(sizes: &[usize], hashes: &[u64], members: &[String], weights: &Weights, natural: &[Vec<u32>]) -> Vec<Vec<bool>> {
    let c = members.len();
    let total: usize = sizes.iter().sum();
    let floors: Vec<usize> = (0..c).map(|m| sizes.iter().map(|q| weights.floor(*q, m)).sum()).collect();
    let lo: Vec<usize> = (0..c).map(|m| weights.floor(total, m) - floors[m]).collect();
    let hi: Vec<usize> = (0..c).map(|m| lo[m] + usize::from(weights.remainder(total, m) != 0)).collect();
    let at_hi_max = total - (0..c).map(|m| weights.floor(total, m)).sum::<usize>();
    let mut flow = Flow { sizes, weights, extra_in: Vec::with_capacity(sizes.len()), extras: vec![0; c], lo, hi, at_hi: 0, at_hi_max };

    for (t, (&size, topic_hash)) in sizes.iter().zip(hashes).enumerate() {
        flow.extra_in.push(vec![false; c]);
        let rem = size - (0..c).map(|m| weights.floor(size, m)).sum::<usize>();
        if rem == 0 {
            continue;
        }
        let mut preferred: Vec<usize> = (0..c).filter(|&m| flow.eligible(t, m)).collect();
        preferred.sort_by_cached_key(|&m| {
            (std::cmp::Reverse(weights.remainder(size, m)), std::cmp::Reverse(natural[t][m]), hash64(&[members[m].as_bytes(), &topic_hash.to_le_bytes()]))
        });
        let mut given = 0;
        for &m in &preferred {
            if given == rem {
                break;
            }
            if flow.has_room(m) {
                flow.give(t, m);
                given += 1;
            }
        }
        while given < rem {
            if !flow.augment(t) {
                // Unreachable by the argument above; if it ever were reached, keep the per-topic
                // bound and let the total bound slip rather than fail the caller.
                debug_assert!(false, "no augmenting path for topic {t}");
                let m = *preferred.iter().find(|&&m| !flow.extra_in[t][m]).expect("rem <= eligible members");
                flow.give(t, m);
            }
            given += 1;
        }
    }
    flow.extra_in
}

struct Flow<'a> {
    sizes: &'a [usize],
    weights: &'a Weights,
    extra_in: Vec<Vec<bool>>,
    extras: Vec<usize>,
    /// Extras every member must reach / may reach; `hi` is `lo` or `lo + 1`.
    lo: Vec<usize>,
    hi: Vec<usize>,
    /// Members at `hi > lo`, and how many may be.
    at_hi: usize,
    at_hi_max: usize,
}

impl Flow<'_> {
    fn eligible(&self, t: usize, m: usize) -> bool {
        self.weights.remainder(self.sizes[t], m) != 0
    }

    fn has_room(&self, m: usize) -> bool {
        let next = self.extras[m] + 1;
        next <= self.lo[m] || (next == self.hi[m] && self.hi[m] > self.lo[m] && self.at_hi < self.at_hi_max)
    }

    fn give(&mut self, t: usize, m: usize) {
        self.extra_in[t][m] = true;
        self.extras[m] += 1;
        if self.extras[m] > self.lo[m] {
            self.at_hi += 1;
        }
    }

    /// One more extra for topic `t` along a shortest augmenting path (breadth first over topics
    /// `0..=t`, members and the hub). False if there is none.
    fn augment(&mut self, t: usize) -> bool {
        let (topics, c) = (self.extra_in.len(), self.extras.len());
        let hub = topics + c;
        let mut parent = vec![usize::MAX; hub + 1];
        parent[t] = t;
        let mut queue = VecDeque::from([t]);
        let mut end = None;
        'search: while let Some(u) = queue.pop_front() {
            let next: Vec<usize> = if u < topics {
                // Topic u can give an extra to an eligible member that has none of u's.
                (0..c).filter(|&m| self.eligible(u, m) && !self.extra_in[u][m]).map(|m| topics + m).collect()
            } else if u < hub {
                let m = u - topics;
                if self.extras[m] < self.lo[m] {
                    end = Some(u);
                    break 'search;
                }
                // Member m can round up through the hub, or pass one of its extras on.
                let via_hub = (self.hi[m] > self.lo[m] && self.extras[m] == self.lo[m]).then_some(hub);
                via_hub.into_iter().chain((0..topics).filter(|&e| self.extra_in[e][m])).collect()
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
                let m = v - topics;
                self.extra_in[u][m] = true;
                self.extras[m] += 1;
            } else if v < topics && u < hub {
                let m = u - topics;
                self.extra_in[v][m] = false;
                self.extras[m] -= 1;
            }
            v = u;
        }
        self.at_hi = (0..c).filter(|&m| self.extras[m] > self.lo[m]).count();
        true
    }
}
