//! Owner changes: every time a queue's holders change, and flapping (a queue that changes owner
//! too often). A queue nobody holds for a while keeps its last owner: a handoff A, nobody, B is one
//! change from A to B, stamped when B is seen, and a holder that misses one round's running info
//! and comes back is no change at all.

use serde::{Deserialize, Serialize};

/// One owner change, as a JSON line of `watch --events`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerChange {
    /// When the new owner was first seen (ms since the epoch).
    pub at_ms: i64,
    pub consumer_group: String,
    pub topic: String,
    pub broker: String,
    pub queue_id: i32,
    /// The holders before (sorted; two or more when it was held twice).
    pub from: Vec<String>,
    pub to: Vec<String>,
}

/// Flapping: `changes` owner changes or more within the last `rounds` rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlapRule {
    pub changes: usize,
    pub rounds: u64,
}

impl Default for FlapRule {
    /// Three changes in ten rounds: a join and a leave move a queue at most twice (to the newcomer
    /// and back), so a third within five minutes at the default 30 s is churn, not a deployment.
    fn default() -> Self {
        FlapRule { changes: 3, rounds: 10 }
    }
}

/// One queue's owner and the rounds in which it changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Ownership {
    pub owner: Vec<String>,
    change_rounds: Vec<u64>,
}

impl Ownership {
    /// Notes this round's `holders` (sorted); the owner before, when it changed from a known one.
    pub fn observe(&mut self, holders: &[String], round: u64, rule: FlapRule) -> Option<Vec<String>> {
        self.change_rounds.retain(|r| round.saturating_sub(*r) < rule.rounds);
        if holders.is_empty() || holders == self.owner {
            return None;
        }
        let before = std::mem::replace(&mut self.owner, holders.to_vec());
        if before.is_empty() {
            return None;
        }
        self.change_rounds.push(round);
        Some(before)
    }

    pub fn flapping(&self, rule: FlapRule) -> bool {
        rule.changes > 0 && self.change_rounds.len() >= rule.changes
    }
}
