//! Sorting by hashes: the ring's points, a large topic's queues and the topics themselves are
//! ordered by 64-bit hashes, which spread evenly. One counting pass by a hash's top bits puts
//! every item into a bucket of a few, and the buckets are sorted on their own: about twice as
//! fast as a comparison sort at 100,000 items, with the same result.

use std::cmp::Ordering;

/// Below this, a comparison sort is as fast.
const MIN_LEN: usize = 1024;

/// Sorts `items` exactly as `items.sort_unstable_by(cmp)` would, given a total order `cmp` that
/// compares `key` first (`key(a) < key(b)` implies `a` before `b`). Fast when the keys spread
/// evenly; correct whatever they are.
pub(super) fn sort_by_spread_key<T: Copy>(items: &mut [T], key: impl Fn(&T) -> u64, cmp: impl Fn(&T, &T) -> Ordering) {
    let n = items.len();
    if n < MIN_LEN {
        items.sort_unstable_by(cmp);
        return;
    }
    // About four items per bucket.
    let bits = (n / 4).ilog2();
    let bucket = |item: &T| (key(item) >> (64 - bits)) as usize;
    let mut ends = vec![0usize; (1 << bits) + 1];
    for item in items.iter() {
        ends[bucket(item) + 1] += 1;
    }
    for b in 1..ends.len() {
        ends[b] += ends[b - 1];
    }
    let mut next = ends.clone();
    let mut sorted = items.to_vec();
    for item in items.iter() {
        let b = bucket(item);
        sorted[next[b]] = *item;
        next[b] += 1;
    }
    for b in ends.windows(2) {
        sorted[b[0]..b[1]].sort_unstable_by(&cmp);
    }
    items.copy_from_slice(&sorted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Spread keys, clustered keys (every key in a few buckets) and repeated keys all sort
        /// as the comparison sort does.
        #[test]
        fn sorts_as_the_comparison_sort_does(keys in proptest::collection::vec(any::<u64>(), 0..5000), cluster in 0u32..3) {
            let items: Vec<(u64, usize)> = keys.iter().enumerate().map(|(i, k)| match cluster {
                0 => (*k, i),
                1 => (k >> 40, i),
                _ => (k % 7, i),
            }).collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            let mut got = items;
            sort_by_spread_key(&mut got, |item| item.0, Ord::cmp);
            prop_assert_eq!(got, expected);
        }
    }
}
