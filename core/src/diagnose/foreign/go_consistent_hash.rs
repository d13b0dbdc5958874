//! rocketmq-client-go's `AllocateByConsistentHash(n)`: the `stathat.com/c/consistent` ring, which
//! shares nothing with Java's but the idea. Each id gets `n` points at `crc32(strconv.Itoa(i) + id)`
//! (IEEE polynomial; Java: MD5 of `id + "-" + i`, Java's 10 a default, Go's `n` always given); a
//! later id overwrites an earlier one on a 32-bit collision; a queue goes to the first point
//! strictly greater than `crc32(mq.String())` (Java: greater or equal), wrapping to the first.
//! `n <= 0` leaves no points, so nobody is given anything, except that `n == 0` makes Go divide by
//! zero while building the ring: the client panics, and so this returns an error.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::{go_index, invalid};
use crate::strategy::{distinct_in_order, Allocation, GroupAllocation, MemberShare};
use crate::{MessageQueue, Result, Strategy};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoConsistentHash {
    virtual_node_count: i32,
}

impl GoConsistentHash {
    pub fn new(virtual_node_count: i32) -> Self {
        GoConsistentHash { virtual_node_count }
    }

    pub fn virtual_node_count(&self) -> i32 {
        self.virtual_node_count
    }

    /// The ring over `cid_all` in its order: point -> id (a later id wins a collision, as Go's map
    /// assignment does).
    fn ring<'a>(&self, cid_all: &'a [String]) -> BTreeMap<u32, &'a str> {
        let mut ring = BTreeMap::new();
        for id in cid_all {
            for i in 0..self.virtual_node_count.max(0) {
                ring.insert(crc32fast::hash(format!("{i}{id}").as_bytes()), id.as_str());
            }
        }
        ring
    }
}

/// Go's `mq.String()`, the same text as Java's `toString()`.
fn queue_key(mq: &MessageQueue) -> u32 {
    crc32fast::hash(mq.to_string().as_bytes())
}

impl Strategy for GoConsistentHash {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("GO_CONSISTENT_HASH")
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        if go_index(current_id, mq_all.len(), cid_all).is_none() {
            return Ok(Allocation::Positions(Vec::new()));
        }
        if self.virtual_node_count == 0 {
            return Err(invalid("go_consistent_hash", "virtual_node_count 0: the Go client panics building its ring (integer divide by zero)"));
        }
        let ring = self.ring(cid_all);
        Ok(Allocation::Positions((0..mq_all.len()).filter(|&i| owner(&ring, queue_key(&mq_all[i])) == Some(current_id)).collect()))
    }

    /// One ring and one hash per queue for every member (the default asks each member apart, which
    /// rebuilds the ring and rehashes every queue each time).
    fn allocate_group(&self, group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        let members = distinct_in_order(cid_all);
        let Some(first) = members.iter().find(|id| !id.is_empty()) else {
            return Ok(GroupAllocation {
                members: members.iter().map(|id| MemberShare { client_id: (*id).to_owned(), allocation: Allocation::Positions(Vec::new()) }).collect(),
            });
        };
        // The checks are the same for every member but the empty id: ask one member for them.
        self.allocate_positions(group, first, mq_all, cid_all)?;
        let ring = self.ring(cid_all);
        let mut shares: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, q) in mq_all.iter().enumerate() {
            if let Some(id) = owner(&ring, queue_key(q)) {
                shares.entry(id).or_default().push(i);
            }
        }
        let members = members
            .iter()
            .map(|id| MemberShare {
                client_id: (*id).to_owned(),
                allocation: Allocation::Positions(if id.is_empty() { Vec::new() } else { shares.remove(id).unwrap_or_default() }),
            })
            .collect();
        Ok(GroupAllocation { members })
    }
}

/// The point strictly greater than `key`, else the first (for `u32::MAX` the range from 0 is that wrap).
fn owner<'a>(ring: &BTreeMap<u32, &'a str>, key: u32) -> Option<&'a str> {
    ring.range(key.wrapping_add(1)..).next().or_else(|| ring.iter().next()).map(|(_, id)| *id)
}
