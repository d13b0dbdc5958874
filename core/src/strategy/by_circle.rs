//! AVG_BY_CIRCLE: `AllocateMessageQueueAveragelyByCircle`, dealt like cards.

use std::borrow::Cow;

use super::averagely::first_indices;
use super::{check, check_group, Allocation, Strategy};
use crate::error::Result;
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AveragelyByCircle;

pub(crate) fn dealt(n: usize, m: usize, idx: usize) -> Allocation {
    Allocation::Stride { start: idx, end: n.max(idx), step: m }
}

impl Strategy for AveragelyByCircle {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("AVG_BY_CIRCLE")
    }

    fn count_strategy(&self) -> Option<super::CountStrategy> {
        Some(super::CountStrategy::Circle)
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        let Some(idx) = check(current_id, mq_all, cid_all)? else {
            return Ok(Allocation::Positions(Vec::new()));
        };
        Ok(dealt(mq_all.len(), cid_all.len(), idx))
    }

    /// One pass: member at first index `i` gets positions `i, i+m, ...`; the positions dealt to a
    /// later duplicate of an id are owned by nobody, as in Java.
    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        check_group(mq_all, cid_all)?;
        let (n, m) = (mq_all.len(), cid_all.len());
        let members = first_indices(cid_all).map(|(idx, id)| MemberShare { client_id: id.to_owned(), allocation: dealt(n, m, idx) }).collect();
        Ok(GroupAllocation { members })
    }
}
