//! AVG: `AllocateMessageQueueAveragely`, contiguous blocks, the first `n % m` members one larger.

use std::borrow::Cow;
use std::ops::Range;

use super::{check, check_group, Allocation, Strategy};
use crate::error::Result;
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Averagely;

/// The block of positions for the member at index `idx` of `m`, over `n` queues, computed as Java
/// does (including its `n <= m` special case, where a member past the end gets nothing).
pub(crate) fn block(n: usize, m: usize, idx: usize) -> Allocation {
    let range = block_range(n, m, idx);
    Allocation::Stride { start: range.start, end: range.end, step: 1 }
}

fn block_range(n: usize, m: usize, idx: usize) -> Range<usize> {
    let (n, m, idx) = (n as i64, m as i64, idx as i64);
    let rem = n % m;
    let bigger = rem > 0 && idx < rem;
    let avg = if n <= m {
        1
    } else if bigger {
        n / m + 1
    } else {
        n / m
    };
    let start = if bigger { idx * avg } else { idx * avg + rem };
    let len = avg.min(n - start).max(0);
    // start <= n + m and len >= 0, so both fit in usize.
    let start = start.min(n) as usize;
    start..start + len as usize
}

impl Strategy for Averagely {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("AVG")
    }

    fn count_strategy(&self) -> Option<super::CountStrategy> {
        Some(super::CountStrategy::Averagely)
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        let Some(idx) = check(current_id, mq_all, cid_all)? else {
            return Ok(Allocation::Positions(Vec::new()));
        };
        Ok(block(mq_all.len(), cid_all.len(), idx))
    }

    /// One pass: each distinct member's block from its first index; positions of later duplicates
    /// are owned by nobody, exactly as per-member Java calls would leave them.
    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        check_group(mq_all, cid_all)?;
        let (n, m) = (mq_all.len(), cid_all.len());
        let members = first_indices(cid_all).map(|(idx, id)| MemberShare { client_id: id.to_owned(), allocation: block(n, m, idx) }).collect();
        Ok(GroupAllocation { members })
    }
}

/// `(first index, id)` for each distinct id, in order of first appearance.
pub(crate) fn first_indices(cid_all: &[String]) -> impl Iterator<Item = (usize, &str)> {
    let mut seen = std::collections::HashSet::with_capacity(cid_all.len());
    cid_all.iter().map(String::as_str).enumerate().filter(move |&(_, id)| seen.insert(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks worked out by hand from Java's formula: 10 queues over 3 members -> 4, 3, 3.
    #[test]
    fn ten_over_three() {
        assert_eq!(block_range(10, 3, 0), 0..4);
        assert_eq!(block_range(10, 3, 1), 4..7);
        assert_eq!(block_range(10, 3, 2), 7..10);
    }

    /// 2 queues over 5 members: the first two get one each, the rest nothing.
    #[test]
    fn fewer_queues_than_members() {
        assert_eq!(block_range(2, 5, 0), 0..1);
        assert_eq!(block_range(2, 5, 1), 1..2);
        assert!(block_range(2, 5, 2).is_empty());
        assert!(block(2, 5, 4).is_empty());
    }
}

#[cfg(test)]
mod by_counts {
    use crate::strategy::{positions_by_counts, AveragelyByCircle, CountStrategy, Strategy};
    use crate::{Error, MessageQueue};

    use super::Averagely;

    /// The count-only form agrees with the full strategies on every small size and index.
    #[test]
    fn agrees_with_the_full_strategies() {
        for n in 0..12 {
            for m in 0..6 {
                let mqs: Vec<MessageQueue> = (0..n).map(|i| MessageQueue::new("T", "b", i as i32)).collect();
                let ids: Vec<String> = (0..m).map(|i| format!("c{i}")).collect();
                for current in ids.iter().map(String::as_str).chain(["absent", ""]) {
                    let index = ids.iter().position(|c| c == current);
                    for (kind, full) in [(CountStrategy::Averagely, &Averagely as &dyn Strategy), (CountStrategy::Circle, &AveragelyByCircle)] {
                        let by_counts = positions_by_counts(kind, current.is_empty(), n, m, index);
                        let whole = full.allocate_positions("g", current, &mqs, &ids).map(|a| a.positions().unwrap().collect::<Vec<_>>());
                        assert_eq!(by_counts, whole, "{kind:?} n={n} m={m} current={current:?}");
                    }
                }
            }
        }
        assert_eq!(positions_by_counts(CountStrategy::Averagely, true, 0, 0, None), Err(Error::EmptyCurrentId));
    }

    /// A stride's `len` is the number of positions it yields.
    #[test]
    fn stride_len_counts_its_positions() {
        for n in 0..20 {
            for m in 1..7 {
                for idx in 0..m + 2 {
                    for a in [super::block(n, m, idx), crate::strategy::by_circle::dealt(n, m, idx)] {
                        assert_eq!(a.len(), a.positions().unwrap().count(), "{a:?}");
                    }
                }
            }
        }
    }

    /// Sizes beyond Java's int are refused, and at the limit the arithmetic stays exact (the
    /// last member's block ends at the last queue). Found by the C API fuzzer, which passed sizes
    /// no list has and overflowed the block arithmetic.
    #[test]
    fn sizes_beyond_java_int_are_refused() {
        use crate::strategy::allocation_by_counts;
        let max = i32::MAX as usize;
        for kind in [CountStrategy::Averagely, CountStrategy::Circle] {
            assert!(matches!(allocation_by_counts(kind, false, usize::MAX, 3, Some(1)), Err(Error::TooLarge(_))));
            assert!(matches!(allocation_by_counts(kind, false, 3, max + 1, Some(1)), Err(Error::TooLarge(_))));
        }
        let last = allocation_by_counts(CountStrategy::Averagely, false, max, 7, Some(6)).unwrap();
        // max = 7 * 306783378 + 1: the first member takes one more, the last ends at max.
        assert_eq!(last, crate::strategy::Allocation::Stride { start: max - 306_783_378, end: max, step: 1 });
    }
}
