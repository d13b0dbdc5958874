//! BALANCED_STICKY_V2 (experimental, config name `balanced_sticky_v2`): balanced within a stated
//! capacity rather than exactly, for movement near the fair share when members come and go. The
//! rule and the placement are in [`super::capacity`]; members are ranked as BALANCED_STICKY ranks
//! them (a stable key gives a restarted client its queues back).

use std::borrow::Cow;

use super::capacity::{self, Caps, MAX_OVERLOAD_PERCENT};
use super::{group_shares, my_share, ranked, shares_of, StableKey};
use crate::error::{Error, Result};
use crate::queue::MessageQueue;
use crate::strategy::{Allocation, GroupAllocation, Strategy};

/// The default caps: no member above `ceil(1.2 * Q / C)` queues in total nor below
/// `floor(0.6 * Q / C)`. Chosen from the measured curve of caps against movement in
/// docs/balanced-sticky.md.
pub const DEFAULT_OVERLOAD_PERCENT: u32 = 20;
pub const DEFAULT_UNDERLOAD_PERCENT: u32 = 40;

/// The strategy: see [`super::capacity`] for its rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BalancedStickyV2 {
    stable_key: StableKey,
    caps: Caps,
}

impl Default for BalancedStickyV2 {
    fn default() -> Self {
        let caps = Caps { overload_percent: DEFAULT_OVERLOAD_PERCENT, underload_percent: DEFAULT_UNDERLOAD_PERCENT };
        BalancedStickyV2 { stable_key: StableKey::ClientId, caps }
    }
}

impl BalancedStickyV2 {
    pub fn new(stable_key: StableKey) -> Self {
        BalancedStickyV2 { stable_key, ..Self::default() }
    }

    /// From the raw parts every binding receives, every rule checked here: the stable key by name
    /// (`client_id`, `host`, `before`), a separator for `before` alone, and both caps.
    pub fn from_parts(stable_key: &str, separator: Option<&str>, overload_percent: i64, underload_percent: i64) -> Result<Self> {
        let key = StableKey::from_parts("balanced_sticky_v2", stable_key, separator)?;
        BalancedStickyV2::new(key).with_overload_percent(overload_percent)?.with_underload_percent(underload_percent)
    }

    /// How far above the even share `Q / C` a member's total may go, in percent (0 to
    /// [`MAX_OVERLOAD_PERCENT`]): the cap is `ceil(Q * (100 + p) / (100 * C))`. Takes any integer
    /// a binding was given, so the range is checked here alone.
    pub fn with_overload_percent(self, percent: i64) -> Result<Self> {
        let overload_percent = percent_in(percent, "overload_percent", MAX_OVERLOAD_PERCENT)?;
        Ok(BalancedStickyV2 { caps: Caps { overload_percent, ..self.caps }, ..self })
    }

    /// How far below the even share a member's total may go, in percent (0 to 100): the lower cap
    /// is `floor(Q * (100 - u) / (100 * C))`, and at 100 only "no member idle while another
    /// holds two" is left.
    pub fn with_underload_percent(self, percent: i64) -> Result<Self> {
        let underload_percent = percent_in(percent, "underload_percent", 100)?;
        Ok(BalancedStickyV2 { caps: Caps { underload_percent, ..self.caps }, ..self })
    }

    pub fn overload_percent(&self) -> u32 {
        self.caps.overload_percent
    }

    pub fn underload_percent(&self) -> u32 {
        self.caps.underload_percent
    }

    pub fn stable_key(&self) -> &StableKey {
        &self.stable_key
    }

    fn shares(&self, mq_all: &[MessageQueue], cid_all: &[String]) -> (Vec<String>, Vec<Vec<usize>>) {
        let members = ranked(cid_all, &self.stable_key);
        let names: Vec<String> = members.iter().map(|m| m.0.clone()).collect();
        let owner = capacity::owners(mq_all, &names, self.caps);
        (members.into_iter().map(|m| m.1.to_owned()).collect(), shares_of(owner, names.len()))
    }
}

impl Strategy for BalancedStickyV2 {
    /// `BALANCED_STICKY_V2[-host | -before:SEP][-overload:P][-underload:U]`, each cap only when
    /// not the default: clients configured differently are visible by name.
    fn name(&self) -> Cow<'_, str> {
        let mut name = format!("BALANCED_STICKY_V2{}", self.stable_key.name_suffix());
        if self.caps.overload_percent != DEFAULT_OVERLOAD_PERCENT {
            name.push_str(&format!("-overload:{}", self.caps.overload_percent));
        }
        if self.caps.underload_percent != DEFAULT_UNDERLOAD_PERCENT {
            name.push_str(&format!("-underload:{}", self.caps.underload_percent));
        }
        Cow::Owned(name)
    }

    fn balances_across_topics(&self) -> bool {
        true
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

/// `percent` if it lies in 0..=`max`, else the error naming the parameter.
fn percent_in(percent: i64, name: &str, max: u32) -> Result<u32> {
    u32::try_from(percent)
        .ok()
        .filter(|p| *p <= max)
        .ok_or_else(|| Error::InvalidParameters { strategy: "balanced_sticky_v2".into(), reason: format!("{name} {percent}: expected 0 to {max}") })
}
