//! rocketmq-client-go's `AllocateByMachineRoom(idcs)`, bug for bug. It keeps the queues whose
//! broker name splits on `@` into exactly two parts (Go's `strings.Split` keeps empty parts, so
//! `a@b@` is three parts in Go and two in Java) whose first part is in `idcs` (once per matching
//! entry: a repeated idc repeats the queue). Then it deals blocks as Java does, but reads the block
//! from `mqAll[i]` instead of the kept list: a member is handed queues of other rooms, and the
//! remainder queue comes from the kept list. Argument errors are empty shares, as in all of Go's.

use std::borrow::Cow;

use super::go_index;
use crate::strategy::Allocation;
use crate::{MessageQueue, Result, Strategy};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoMachineRoom {
    consume_idcs: Vec<String>,
}

impl GoMachineRoom {
    pub fn new(consume_idcs: Vec<String>) -> Self {
        GoMachineRoom { consume_idcs }
    }

    pub fn consume_idcs(&self) -> &[String] {
        &self.consume_idcs
    }
}

impl Strategy for GoMachineRoom {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("GO_MACHINE_ROOM")
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        let Some(index) = go_index(current_id, mq_all.len(), cid_all) else { return Ok(Allocation::Positions(Vec::new())) };
        let mut kept = Vec::new();
        for (i, mq) in mq_all.iter().enumerate() {
            let parts: Vec<&str> = mq.broker_name.split('@').collect();
            if parts.len() == 2 {
                kept.extend(self.consume_idcs.iter().filter(|idc| **idc == parts[0]).map(|_| i));
            }
        }
        let members = cid_all.len();
        let (block, rem) = (kept.len() / members, kept.len() % members);
        let start = block * index;
        let mut positions: Vec<usize> = (start..start + block).collect();
        if rem > index {
            positions.push(kept[index + block * members]);
        }
        Ok(Allocation::Positions(positions))
    }
}
