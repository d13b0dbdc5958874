//! BALANCED_STICKY (experimental): a balanced, low-movement assignment that every client computes
//! alone from the *sets* of queues and client ids (config name `balanced_sticky`).
//!
//! 1. [`counts`]: per topic, every member gets the floor of its share (`Q_t / C`, or
//!    `Q_t * w / W` with weights) and the topic's remaining queues go one each to members chosen
//!    across topics, so that totals too are the floor or ceiling of each member's share
//!    (unweighted: within one of each other).
//! 2. [`ring`]: within a topic, queues are placed on a hash ring of members, nearest first, within
//!    the quotas from step 1.
//!
//! Cost, unweighted: about O(members x 64 x log + queues x log + extras), whatever the number of
//! topics (a topic held by few members searches their points alone); never queues x members.
//! Weighted, pass 1 ranks every member for every topic: topics x members x log members.
//! Hashes are FNV-1a 64 with a SplitMix64 finaliser ([`hash`]): fixed, the same everywhere.

mod capacity;
mod counts;
mod hash;
mod ring;
mod spread_sort;
#[cfg(test)]
mod tests;
mod topics;
mod v2;
#[cfg(test)]
mod v2_tests;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::{check, Allocation, Strategy};
use crate::error::{Error, Result};
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};
pub use capacity::{lower_cap, topic_cap, total_cap, Caps, MAX_OVERLOAD_PERCENT};
pub(crate) use hash::hash64;
pub use v2::{BalancedStickyV2, DEFAULT_OVERLOAD_PERCENT, DEFAULT_UNDERLOAD_PERCENT};

/// Which part of a client id ranks a member. Java's default id is `ip@pid#nanotime`, new at every
/// restart; ranking by a stable part gives a restarted consumer its queues back. Members with the
/// same stable part are told apart by their full ids, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StableKey {
    /// The whole id.
    #[default]
    ClientId,
    /// The part before the first `@` (the client's IP address).
    Host,
    /// The part before the first occurrence of this separator (the whole id when absent).
    Before(String),
}

impl StableKey {
    /// How the key shows in a strategy's name: nothing, `-host` or `-before:SEP`.
    fn name_suffix(&self) -> String {
        match self {
            StableKey::ClientId => String::new(),
            StableKey::Host => "-host".into(),
            StableKey::Before(sep) => format!("-before:{sep}"),
        }
    }

    /// From a binding's raw parts: the key by name (`client_id`, `host`, `before`) and a
    /// separator for `before` and for it alone; errors name `strategy`.
    pub(crate) fn from_parts(strategy: &str, stable_key: &str, separator: Option<&str>) -> Result<Self> {
        let invalid = |reason: String| Error::InvalidParameters { strategy: strategy.into(), reason };
        Ok(match (stable_key, separator) {
            ("client_id", None) => StableKey::ClientId,
            ("host", None) => StableKey::Host,
            ("before", Some(sep)) => StableKey::Before(sep.to_owned()),
            ("before", None) => return Err(invalid("stable_key \"before\" needs a separator".into())),
            ("client_id" | "host", Some(_)) => return Err(invalid("a separator is only for stable_key \"before\"".into())),
            (other, _) => return Err(invalid(format!("stable_key {other:?}: expected client_id, host or before"))),
        })
    }

    fn of<'a>(&self, id: &'a str) -> &'a str {
        let sep = match self {
            StableKey::ClientId => return id,
            StableKey::Host => "@",
            StableKey::Before(sep) => sep.as_str(),
        };
        if sep.is_empty() {
            return id;
        }
        id.find(sep).map_or(id, |at| &id[..at])
    }
}

/// Beyond this a slack is no longer a balance guarantee worth the name.
pub const MAX_TOTAL_SLACK: u32 = 1000;

/// The strategy: see the module documentation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BalancedSticky {
    stable_key: StableKey,
    /// Weight by stable key; members not listed weigh 1.
    weights: BTreeMap<String, u32>,
    /// How far a member's total may stray from the floor or ceiling of its share (0: exact).
    total_slack: u32,
}

impl BalancedSticky {
    pub fn new(stable_key: StableKey) -> Self {
        BalancedSticky { stable_key, weights: BTreeMap::new(), total_slack: 0 }
    }

    /// From the raw parts every binding receives, with every rule checked here and only here: the
    /// stable key by name (`client_id`, `host`, `before`), a separator for `before` and for it
    /// alone, and `(stable key, weight)` pairs, each weight in 1..=2^32-1 and each key once.
    pub fn from_parts(stable_key: &str, separator: Option<&str>, weights: impl IntoIterator<Item = (String, i64)>) -> Result<Self> {
        let invalid = |reason: String| Error::InvalidParameters { strategy: "balanced_sticky".into(), reason };
        let key = StableKey::from_parts("balanced_sticky", stable_key, separator)?;
        let mut map = BTreeMap::new();
        for (k, w) in weights {
            let w = u32::try_from(w).map_err(|_| invalid(format!("weights.{k}: {w} is out of range")))?;
            if let Some(earlier) = map.insert(k.clone(), w) {
                return Err(invalid(format!("weights.{k}: listed twice ({earlier} and {w})")));
            }
        }
        BalancedSticky::with_weights(key, map)
    }

    /// With per-member weights, matched by stable key (members not listed weigh 1). A member's
    /// share is proportional to its weight. Every weight must be positive.
    pub fn with_weights(stable_key: StableKey, weights: BTreeMap<String, u32>) -> Result<Self> {
        if let Some((key, _)) = weights.iter().find(|(_, w)| **w == 0) {
            return Err(Error::InvalidParameters { strategy: "balanced_sticky".into(), reason: format!("weights.{key}: a weight must be at least 1") });
        }
        // A weight of 1 is the default: dropping it keeps equal configurations equal by name.
        Ok(BalancedSticky { stable_key, weights: weights.into_iter().filter(|(_, w)| *w != 1).collect(), total_slack: 0 })
    }

    /// The balance-for-movement trade: every member's total may be up to `slack` queues below
    /// the floor or above the ceiling of its share (totals within `1 + 2 x slack` of each other,
    /// unweighted), while every topic stays exactly balanced. Less balance buys less movement when
    /// members come and go (measured in docs/balanced-sticky.md). 0, the default, is exact.
    /// Takes any integer a binding was given, so the range is checked here alone.
    pub fn with_total_slack(self, slack: i64) -> Result<Self> {
        let total_slack = u32::try_from(slack).ok().filter(|s| *s <= MAX_TOTAL_SLACK).ok_or_else(|| Error::InvalidParameters {
            strategy: "balanced_sticky".into(),
            reason: format!("total_slack {slack}: expected 0 to {MAX_TOTAL_SLACK}"),
        })?;
        Ok(BalancedSticky { total_slack, ..self })
    }

    pub fn total_slack(&self) -> u32 {
        self.total_slack
    }

    pub fn stable_key(&self) -> &StableKey {
        &self.stable_key
    }

    /// The weights other than 1, by stable key.
    pub fn weights(&self) -> &BTreeMap<String, u32> {
        &self.weights
    }

    /// A hash of the weights (sorted by key): two clients configured alike have the same.
    pub fn weights_fingerprint(&self) -> u64 {
        let text: Vec<String> = self.weights.iter().map(|(k, w)| format!("{k}={w}")).collect();
        let parts: Vec<&[u8]> = text.iter().map(String::as_bytes).collect();
        hash64(&parts)
    }

    /// Every member's positions, members in order of first appearance in `cid_all`.
    fn shares(&self, mq_all: &[MessageQueue], cid_all: &[String]) -> (Vec<String>, Vec<Vec<usize>>) {
        let (members, owner) = assign_weighted(mq_all, cid_all, &self.stable_key, &self.weights, self.total_slack);
        let shares = shares_of(owner, members.len());
        (members, shares)
    }
}

/// Every member's positions from every position's owner.
fn shares_of(owner: Vec<usize>, members: usize) -> Vec<Vec<usize>> {
    // Sized first: growing a thousand vectors push by push costs more than counting.
    let mut counts = vec![0usize; members];
    for &o in &owner {
        counts[o] += 1;
    }
    let mut shares: Vec<Vec<usize>> = counts.into_iter().map(Vec::with_capacity).collect();
    for (position, o) in owner.into_iter().enumerate() {
        shares[o].push(position);
    }
    shares
}

/// `current_id`'s share, from every member's (`members` as [`ranked`] orders them): Java's
/// argument checks first; an id not in the list gets nothing.
fn my_share(current_id: &str, mq_all: &[MessageQueue], cid_all: &[String], shares: impl FnOnce() -> (Vec<String>, Vec<Vec<usize>>)) -> Result<Allocation> {
    if check(current_id, mq_all, cid_all)?.is_none() {
        return Ok(Allocation::Positions(Vec::new()));
    }
    let (members, mut shares) = shares();
    // `check` found the id, so it is a member.
    let me = members.iter().position(|m| m == current_id);
    Ok(Allocation::Positions(me.map(|me| std::mem::take(&mut shares[me])).unwrap_or_default()))
}

/// The whole group's shares, each distinct id once in order of first appearance.
fn group_shares(mq_all: &[MessageQueue], cid_all: &[String], shares: impl FnOnce() -> (Vec<String>, Vec<Vec<usize>>)) -> Result<GroupAllocation> {
    super::check_group(mq_all, cid_all)?;
    let (members, mut shares) = shares();
    let index: HashMap<&str, usize> = members.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    // Each distinct id once: its share moves out rather than being copied.
    let members = super::distinct_in_order(cid_all)
        .into_iter()
        .map(|id| MemberShare { client_id: id.to_owned(), allocation: Allocation::Positions(std::mem::take(&mut shares[index[id]])) })
        .collect();
    Ok(GroupAllocation { members })
}

impl Strategy for BalancedSticky {
    fn name(&self) -> Cow<'_, str> {
        // The parameters are part of the name, so clients configured differently are visible:
        // `BALANCED_STICKY[-host | -before:SEP][-weights:FINGERPRINT]`.
        let mut name = format!("BALANCED_STICKY{}", self.stable_key.name_suffix());
        if !self.weights.is_empty() {
            name.push_str(&format!("-weights:{:016x}", self.weights_fingerprint()));
        }
        if self.total_slack > 0 {
            name.push_str(&format!("-slack:{}", self.total_slack));
        }
        Cow::Owned(name)
    }

    fn balances_across_topics(&self) -> bool {
        true
    }

    fn share_weight(&self, client_id: &str) -> u64 {
        self.weights.get(self.stable_key.of(client_id)).map_or(1, |w| u64::from(*w))
    }

    /// Java's argument checks; an id not in the list gets nothing. Input order does not matter.
    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        my_share(current_id, mq_all, cid_all, || self.shares(mq_all, cid_all))
    }

    /// One computation for the whole group.
    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        group_shares(mq_all, cid_all, || self.shares(mq_all, cid_all))
    }
}

/// The owner (an index into the sorted distinct ids returned) of every queue of `mq_all`, members
/// ranked by their whole ids (the tests' shorthand).
#[cfg(test)]
pub(crate) fn assign(mq_all: &[MessageQueue], cid_all: &[String]) -> (Vec<String>, Vec<usize>) {
    assign_keyed(mq_all, cid_all, &StableKey::ClientId)
}

/// [`assign`] with members ranked by `key`: a member's hash name is its stable part plus its
/// ordinal among the members sharing that part (in full-id order).
#[cfg(test)]
pub(crate) fn assign_keyed(mq_all: &[MessageQueue], cid_all: &[String], key: &StableKey) -> (Vec<String>, Vec<usize>) {
    assign_weighted(mq_all, cid_all, key, &BTreeMap::new(), 0)
}

/// [`assign_keyed`] with weights by stable key (members not listed weigh 1; a weight of 0 counts
/// as 1, [`BalancedSticky::with_weights`] refuses it) and a total slack.
pub(crate) fn assign_weighted(
    mq_all: &[MessageQueue],
    cid_all: &[String],
    key: &StableKey,
    weights: &BTreeMap<String, u32>,
    total_slack: u32,
) -> (Vec<String>, Vec<usize>) {
    let members: Vec<(String, u64, &str)> =
        ranked(cid_all, key).into_iter().map(|(name, id)| (name, weights.get(key.of(id)).map_or(1, |w| u64::from(*w).max(1)), id)).collect();
    let names: Vec<String> = members.iter().map(|m| m.0.clone()).collect();
    let shares = counts::Weights::new(members.iter().map(|m| m.1).collect()).with_total_slack(total_slack as usize);
    let owner = owners(mq_all, &names, &shares);
    (members.into_iter().map(|m| m.2.to_owned()).collect(), owner)
}

/// The distinct ids as `(hash name, id)`, sorted by hash name: a member's hash name is its stable
/// part plus its ordinal among the members sharing that part (in full-id order).
fn ranked<'a>(cid_all: &'a [String], key: &StableKey) -> Vec<(String, &'a str)> {
    let mut ids: Vec<&str> = cid_all.iter().map(String::as_str).collect();
    ids.sort_by(|a, b| (key.of(a), a).cmp(&(key.of(b), b)));
    ids.dedup();
    let mut members: Vec<(String, &str)> = Vec::with_capacity(ids.len());
    let mut ordinal = 0;
    for (i, id) in ids.iter().enumerate() {
        let stable = key.of(id);
        ordinal = if i > 0 && key.of(ids[i - 1]) == stable { ordinal + 1 } else { 0 };
        members.push((format!("{stable}#{ordinal}"), id));
    }
    members.sort();
    members
}

/// The owner of every queue: an index into `names` (sorted, distinct).
fn owners(mq_all: &[MessageQueue], names: &[String], weights: &counts::Weights) -> Vec<usize> {
    if names.is_empty() {
        return Vec::new();
    }
    let topics = topics::Topics::new(mq_all);
    let sizes: Vec<usize> = topics.queues.iter().map(<[_]>::len).collect();
    let ring = ring::Ring::new(names);
    // Where each queue meets the ring, and the members nearest to each topic's queues.
    let starts = ring.starts(topics.queues.all());
    let natural = ring.natural_counts(&starts, &sizes);
    let extra_in = counts::distribute(&sizes, &topics.hashes, names, weights, &natural, &ring);
    let mut owner = vec![usize::MAX; mq_all.len()];
    // One quota buffer for every topic: filling a topic uses its quotas up, back to all zero.
    let mut quota = vec![0usize; names.len()];
    let mut scratch = ring::Scratch::default();
    let mut everyone_alive = Vec::new();
    let mut at = 0;
    for (t, queues) in topics.queues.iter().enumerate() {
        let starts = &starts[at..at + queues.len()];
        at += queues.len();
        // Unweighted, a topic smaller than the group has quota only where its extras went (and
        // touching every member would make many small topics cost topics x members).
        let small = weights.uniform && queues.len() < names.len();
        if !small {
            for (m, q) in quota.iter_mut().enumerate() {
                *q = weights.floor(queues.len(), m);
            }
        }
        for &m in &extra_in[t] {
            quota[m] += 1;
        }
        let alive: &[usize] = if small {
            &extra_in[t]
        } else {
            everyone_alive.clear();
            everyone_alive.extend((0..names.len()).filter(|&m| quota[m] > 0));
            &everyone_alive
        };
        if !ring.fill_nearest(&mut quota, &natural[t], queues, starts, &mut owner) {
            ring.fill(&mut quota, alive, queues, starts, &mut owner, &mut scratch);
        }
    }
    for (copy, kept) in topics.copy_of {
        owner[copy] = owner[kept];
    }
    owner
}
