//! The allocation strategies of the Java client, one module each, behind one trait.
//!
//! A strategy never sorts: its output depends on the order of its input, exactly as in Java.
//! Callers that want the group to agree sort first ([`crate::java_order`]), as `RebalanceImpl` does.

mod averagely;
mod by_circle;
mod by_config;
mod by_machine_room;
mod consistent_hash;
mod key_digests;
mod machine_room_nearby;

use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::Arc;

pub use averagely::Averagely;
pub use by_circle::AveragelyByCircle;
pub use by_config::ByConfig;
pub use by_machine_room::ByMachineRoom;
pub use consistent_hash::{md5_ring_hash, ConsistentHash};
pub use machine_room_nearby::{MachineRoomNearby, MachineRoomResolver, SeparatorResolver};

use crate::error::{Error, Result};
use crate::queue::MessageQueue;

/// What a strategy hands to one member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// Positions into the `mq_all` the strategy was given, in the order Java returns them.
    /// Bindings use positions to hand back the caller's own queue objects.
    Positions(Vec<usize>),
    /// Every `step`-th position from `start` up to `end` (excluded): AVG's block (`step` 1) and
    /// AVG_BY_CIRCLE's deal (`step` = members), kept as a formula so the group view of those
    /// strategies costs O(members), not O(queues).
    Stride { start: usize, end: usize, step: usize },
    /// Queues that do not come from the input: CONFIG's configured list.
    Fixed(Arc<[MessageQueue]>),
}

/// The positions of an [`Allocation`], in order.
pub struct PositionIter<'a>(PositionSource<'a>);

enum PositionSource<'a> {
    List(std::slice::Iter<'a, usize>),
    Stride(std::iter::StepBy<std::ops::Range<usize>>),
}

impl Iterator for PositionIter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match &mut self.0 {
            PositionSource::List(it) => it.next().copied(),
            PositionSource::Stride(it) => it.next(),
        }
    }
}

impl Allocation {
    /// Positions into the `mq_all` the strategy was given; `None` for [`Allocation::Fixed`].
    pub fn positions(&self) -> Option<PositionIter<'_>> {
        match self {
            Allocation::Positions(p) => Some(PositionIter(PositionSource::List(p.iter()))),
            Allocation::Stride { start, end, step } => Some(PositionIter(PositionSource::Stride((*start..*end).step_by((*step).max(1))))),
            Allocation::Fixed(_) => None,
        }
    }

    /// The allocated queues, resolved against the `mq_all` the strategy was given (positions
    /// index that slice; another slice gives other queues, or panics if shorter).
    pub fn resolve<'a>(&'a self, mq_all: &'a [MessageQueue]) -> Vec<&'a MessageQueue> {
        match self.positions() {
            Some(p) => p.map(|i| &mq_all[i]).collect(),
            None => match self {
                Allocation::Fixed(q) => q.iter().collect(),
                _ => unreachable!("only Fixed has no positions"),
            },
        }
    }

    /// The allocated queues as owned values.
    pub fn to_queues(&self, mq_all: &[MessageQueue]) -> Vec<MessageQueue> {
        self.resolve(mq_all).into_iter().cloned().collect()
    }

    pub fn len(&self) -> usize {
        match self {
            Allocation::Positions(p) => p.len(),
            Allocation::Stride { start, end, step } => {
                if start >= end {
                    0
                } else {
                    (end - start - 1) / (*step).max(1) + 1
                }
            }
            Allocation::Fixed(q) => q.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One member's share in a [`GroupAllocation`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberShare {
    pub client_id: String,
    pub allocation: Allocation,
}

/// Every member's share, members in order of first appearance in the id list (what
/// [`Strategy::allocate_group`] answers; the analysis of it is in `crate::group`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupAllocation {
    pub members: Vec<MemberShare>,
}

impl GroupAllocation {
    pub fn share_of(&self, client_id: &str) -> Option<&Allocation> {
        self.members.iter().find(|m| m.client_id == client_id).map(|m| &m.allocation)
    }
}

/// `org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy`.
///
/// Implementations are immutable after construction, so one instance may be shared by any number
/// of threads (`Send + Sync`).
pub trait Strategy: Send + Sync + Debug {
    /// Java's `getName()`: what the broker and dashboards see.
    fn name(&self) -> Cow<'_, str>;

    /// The share of `current_id`, as positions into `mq_all` (see [`Allocation`]).
    ///
    /// Java's null and empty are the same here: pass `""` or an empty slice for null.
    fn allocate_positions(&self, group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation>;

    /// The share of `current_id` as queues: Java's `allocate`.
    fn allocate(&self, group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Vec<MessageQueue>> {
        Ok(self.allocate_positions(group, current_id, mq_all, cid_all)?.to_queues(mq_all))
    }

    /// Whether the strategy balances across topics when one call is given several topics' queues.
    /// RebalanceImpl asks per topic; callers that can ask once (a group view over many topics, the
    /// engine's `rebalance_all`) do, for such a strategy. The Java strategies are per topic.
    fn balances_across_topics(&self) -> bool {
        false
    }

    /// AVG and AVG_BY_CIRCLE: the answer depends only on the list sizes and the current id's
    /// index, so a binding can compute it with [`allocation_by_counts`] without copying the lists.
    /// `None` for every other strategy. The one place bindings ask (none matches names).
    fn count_strategy(&self) -> Option<CountStrategy> {
        None
    }

    /// The weight of `client_id`'s share (1 for all, except in a weighted BALANCED_STICKY), for
    /// callers that report balance against each member's fair share.
    fn share_weight(&self, _client_id: &str) -> u64 {
        1
    }

    /// Every member's share at once: the same as calling [`Strategy::allocate_positions`] for each
    /// distinct client id (in order of first appearance), failing with the first member's error.
    /// Strategies that can do it in one pass override this.
    fn allocate_group(&self, group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        let members = distinct_in_order(cid_all)
            .into_iter()
            .map(|id| {
                let allocation = self.allocate_positions(group, id, mq_all, cid_all)?;
                Ok(MemberShare { client_id: id.to_owned(), allocation })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GroupAllocation { members })
    }
}

/// `AbstractAllocateMessageQueueStrategy.check`: the argument checks, in Java's order.
/// `Ok(None)` means "current id is not in the list": Java logs `[BUG]` and returns an empty list.
/// `Ok(Some(i))` gives the first index of the current id (`cidAll.indexOf`).
pub(crate) fn check(current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Option<usize>> {
    check_sizes(current_id.is_empty(), mq_all.len(), cid_all.len())?;
    Ok(cid_all.iter().position(|c| c == current_id))
}

/// The largest list a Java client can pass (`List.size()` is an `int`).
const JAVA_MAX_LIST: usize = i32::MAX as usize;

/// The emptiness checks of [`check`], on sizes alone, and Java's size limit: callers that pass
/// sizes without lists (the bindings' count path) could otherwise claim sizes no list has, and the
/// block arithmetic is exact only within Java's `int` range (found by the C API fuzzer).
fn check_sizes(current_empty: bool, queues: usize, ids: usize) -> Result<()> {
    if queues > JAVA_MAX_LIST || ids > JAVA_MAX_LIST {
        return Err(Error::TooLarge(format!("{queues} queues and {ids} client ids: lists hold at most {JAVA_MAX_LIST} (Java's int)")));
    }
    if current_empty {
        return Err(Error::EmptyCurrentId);
    }
    if queues == 0 {
        return Err(Error::EmptyQueueList);
    }
    if ids == 0 {
        return Err(Error::EmptyClientIdList);
    }
    Ok(())
}

/// AVG and AVG_BY_CIRCLE depend only on the sizes of the lists and the first index of the current
/// id, so callers that hold the lists as foreign objects (the bindings) can skip converting them.
/// `index` is the first position of the current id in `cid_all`, `None` when absent. Same checks,
/// same errors, same positions as [`Strategy::allocate_positions`].
pub fn positions_by_counts(strategy: CountStrategy, current_empty: bool, queues: usize, ids: usize, index: Option<usize>) -> Result<Vec<usize>> {
    let stride = allocation_by_counts(strategy, current_empty, queues, ids, index)?;
    Ok(stride.positions().map(Iterator::collect).unwrap_or_default())
}

/// [`positions_by_counts`] as an [`Allocation`] (a stride: nothing is allocated).
pub fn allocation_by_counts(strategy: CountStrategy, current_empty: bool, queues: usize, ids: usize, index: Option<usize>) -> Result<Allocation> {
    check_sizes(current_empty, queues, ids)?;
    let Some(index) = index else { return Ok(Allocation::Positions(Vec::new())) };
    Ok(match strategy {
        CountStrategy::Averagely => averagely::block(queues, ids, index),
        CountStrategy::Circle => by_circle::dealt(queues, ids, index),
    })
}

/// The strategies [`positions_by_counts`] can compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountStrategy {
    Averagely,
    Circle,
}

/// The group-level form of [`check`]: the error that calling every distinct member in order
/// would raise first. No member (empty id list) means nobody is asked: no error.
pub(crate) fn check_group(mq_all: &[MessageQueue], cid_all: &[String]) -> Result<()> {
    let Some(first) = cid_all.first() else { return Ok(()) };
    if first.is_empty() {
        return Err(Error::EmptyCurrentId);
    }
    if mq_all.is_empty() {
        return Err(Error::EmptyQueueList);
    }
    if cid_all.iter().any(|c| c.is_empty()) {
        return Err(Error::EmptyCurrentId);
    }
    Ok(())
}

/// Distinct ids in order of first appearance.
pub(crate) fn distinct_in_order(cid_all: &[String]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::with_capacity(cid_all.len());
    cid_all.iter().map(String::as_str).filter(|id| seen.insert(*id)).collect()
}
pub mod balanced_sticky;
pub use balanced_sticky::{BalancedSticky, BalancedStickyV2, StableKey};
