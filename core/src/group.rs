//! The whole-group view: who owns what, whether that is a partition, and what moved.
//!
//! Every client computes only its own share; these types put the shares side by side. They accept
//! shares from anywhere (one strategy's group view, or each client's own answer computed from its
//! own, possibly stale, view), which is how inconsistent id lists show up as orphaned or
//! double-owned queues.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::Result;
use crate::queue::MessageQueue;
use crate::strategy::Strategy;
// Where these lived before they moved to `strategy`: kept so that `group::GroupAllocation` still names them.
pub use crate::strategy::{GroupAllocation, MemberShare};

impl GroupAllocation {
    /// The owners of each queue, resolved against the `mq_all` the view was computed from.
    pub fn ownership(&self, mq_all: &[MessageQueue]) -> Ownership {
        let mut ownership = Ownership::default();
        for member in &self.members {
            ownership.add(&member.client_id, member.allocation.resolve(mq_all));
        }
        ownership
    }
}

/// `strategy.allocate_group(...)`, as a free function for symmetry with [`verify`] and [`movement`].
pub fn allocate_group(strategy: &dyn Strategy, group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
    strategy.allocate_group(group, mq_all, cid_all)
}

/// Queue -> the distinct client ids that claim it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ownership {
    owners: BTreeMap<MessageQueue, BTreeSet<String>>,
}

impl Ownership {
    /// Records that `client_id` holds `queues`.
    pub fn add<'a>(&mut self, client_id: &str, queues: impl IntoIterator<Item = &'a MessageQueue>) {
        for mq in queues {
            self.owners.entry(mq.clone()).or_default().insert(client_id.to_owned());
        }
    }

    /// Builds an ownership from `(client id, queues)` pairs.
    pub fn from_shares<'a, Q>(shares: impl IntoIterator<Item = (&'a str, Q)>) -> Self
    where
        Q: IntoIterator<Item = &'a MessageQueue>,
    {
        let mut ownership = Ownership::default();
        for (id, queues) in shares {
            ownership.add(id, queues);
        }
        ownership
    }

    pub fn owners_of(&self, mq: &MessageQueue) -> impl Iterator<Item = &str> {
        self.owners.get(mq).into_iter().flatten().map(String::as_str)
    }

    /// Queues with at least one owner, in Java order.
    pub fn queues(&self) -> impl Iterator<Item = (&MessageQueue, &BTreeSet<String>)> {
        self.owners.iter()
    }

    /// How many queues each client holds.
    pub fn load(&self) -> BTreeMap<&str, usize> {
        let mut load = BTreeMap::new();
        for owners in self.owners.values() {
            for id in owners {
                *load.entry(id.as_str()).or_insert(0) += 1;
            }
        }
        load
    }
}

/// What [`verify`] found. Empty lists everywhere mean the shares partition the queues.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verification {
    /// Queues of the topic nobody holds.
    pub orphaned: Vec<MessageQueue>,
    /// Queues held by more than one client, with the holders.
    pub double_owned: Vec<(MessageQueue, Vec<String>)>,
    /// Client ids that occur more than once in the id list (two processes with one id:
    /// same host, same instance name). Every strategy breaks exclusivity for them.
    pub duplicate_client_ids: Vec<String>,
    /// Queues held by someone but not in the topic's queue list.
    pub unknown: Vec<MessageQueue>,
}

impl Verification {
    pub fn is_partition(&self) -> bool {
        self.orphaned.is_empty() && self.double_owned.is_empty() && self.duplicate_client_ids.is_empty() && self.unknown.is_empty()
    }
}

/// Checks that `ownership` gives every queue of `mq_all` exactly one owner, and reports duplicate
/// ids in `cid_all`. Lists come out in Java order.
pub fn verify(mq_all: &[MessageQueue], cid_all: &[String], ownership: &Ownership) -> Verification {
    let expected: BTreeSet<&MessageQueue> = mq_all.iter().collect();
    let mut report = Verification::default();
    for mq in &expected {
        match ownership.owners.get(*mq) {
            None => report.orphaned.push((*mq).clone()),
            Some(owners) if owners.len() > 1 => report.double_owned.push(((*mq).clone(), owners.iter().cloned().collect())),
            Some(_) => {}
        }
    }
    report.unknown = ownership.owners.keys().filter(|mq| !expected.contains(mq)).cloned().collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for id in cid_all {
        *seen.entry(id.as_str()).or_insert(0) += 1;
    }
    let mut duplicates: Vec<String> = seen.into_iter().filter(|&(_, n)| n > 1).map(|(id, _)| id.to_owned()).collect();
    crate::java_order::sort_client_ids(&mut duplicates);
    report.duplicate_client_ids = duplicates;
    report
}

/// What changed owner between two ownerships.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Movement {
    /// Queues present in both whose owner set differs.
    pub moved: usize,
    /// Queues present in both.
    pub common: usize,
    /// Queues only in `after` (new queues, or queues that were orphaned before).
    pub appeared: usize,
    /// Queues only in `before`.
    pub disappeared: usize,
}

impl Movement {
    /// `moved / common`, 0 when nothing is common.
    pub fn moved_fraction(&self) -> f64 {
        if self.common == 0 {
            0.0
        } else {
            self.moved as f64 / self.common as f64
        }
    }
}

/// Counts the queues that change owner from `before` to `after`.
pub fn movement(before: &Ownership, after: &Ownership) -> Movement {
    let mut m = Movement::default();
    for (mq, owners) in &before.owners {
        match after.owners.get(mq) {
            Some(now) => {
                m.common += 1;
                if now != owners {
                    m.moved += 1;
                }
            }
            None => m.disappeared += 1,
        }
    }
    m.appeared = after.owners.keys().filter(|mq| !before.owners.contains_key(*mq)).count();
    m
}
