//! MACHINE_ROOM: `AllocateMessageQueueByMachineRoom`. Only queues of brokers named `idc@name`
//! whose idc is in the consumer's idc set are shared, in blocks plus a dealt remainder.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use super::averagely::first_indices;
use super::{check, check_group, Allocation, Strategy};
use crate::error::{Error, Result};
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ByMachineRoom {
    /// `consumeridcs`; `None` is Java's unset (null) set.
    consume_idcs: Option<HashSet<String>>,
}

impl ByMachineRoom {
    pub fn new(consume_idcs: Option<HashSet<String>>) -> Self {
        ByMachineRoom { consume_idcs }
    }

    pub fn consume_idcs(&self) -> Option<&HashSet<String>> {
        self.consume_idcs.as_ref()
    }

    /// Positions of the queues this strategy shares out, in input order.
    /// A sorted route lists each broker's queues together, so the broker name is parsed and
    /// looked up once per run of equal names, not once per queue.
    fn eligible(&self, mq_all: &[MessageQueue]) -> Result<Vec<usize>> {
        let mut kept = Vec::new();
        let mut last: Option<(&Arc<str>, bool)> = None;
        for (i, mq) in mq_all.iter().enumerate() {
            let keep = match last {
                // Queues of one route usually share the name's allocation: no bytes to compare.
                Some((broker, keep)) if Arc::ptr_eq(broker, &mq.broker_name) || broker == &mq.broker_name => keep,
                _ => {
                    let keep = self.keeps(&mq.broker_name)?;
                    last = Some((&mq.broker_name, keep));
                    keep
                }
            };
            if keep {
                kept.push(i);
            }
        }
        Ok(kept)
    }

    /// Java's per-queue test: a broker named "idc@broker" is kept when its idc is consumed here;
    /// asking with the idcs unset is Java's error.
    fn keeps(&self, broker_name: &str) -> Result<bool> {
        let Some(idc) = idc_of(broker_name) else { return Ok(false) };
        let idcs = self.consume_idcs.as_ref().ok_or(Error::ConsumeIdcsUnset)?;
        Ok(idcs.contains(idc))
    }
}

/// Java's `String.split` with a one-character literal separator and limit 0: no separator gives
/// the whole string; otherwise the parts minus trailing empty ones (`"a@b@"` -> 2 parts,
/// `"@b"` -> `["", "b"]`, `"@"` -> no parts at all). The reference [`idc_of`] is tested against.
#[cfg(test)]
pub(crate) fn java_split(s: &str, separator: char) -> Vec<&str> {
    if !s.contains(separator) {
        return vec![s];
    }
    let mut parts: Vec<&str> = s.split(separator).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// The first part of `broker_name.split("@")` when there are exactly two parts, without building
/// the parts: trailing empty parts are dropped by Java, so exactly two parts means exactly one `@`
/// once the trailing `@`s are stripped.
pub(crate) fn idc_of(broker_name: &str) -> Option<&str> {
    let (idc, rest) = broker_name.trim_end_matches('@').split_once('@')?;
    (!rest.contains('@')).then_some(idc)
}

fn share(kept: &[usize], m: usize, idx: usize) -> Vec<usize> {
    let (q, r) = (kept.len() / m, kept.len() % m);
    let mut out: Vec<usize> = kept[q * idx..q * idx + q].to_vec();
    if idx < r {
        out.push(kept[idx + q * m]);
    }
    out
}

impl Strategy for ByMachineRoom {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("MACHINE_ROOM")
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        let Some(idx) = check(current_id, mq_all, cid_all)? else {
            return Ok(Allocation::Positions(Vec::new()));
        };
        let kept = self.eligible(mq_all)?;
        Ok(Allocation::Positions(share(&kept, cid_all.len(), idx)))
    }

    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        check_group(mq_all, cid_all)?;
        if cid_all.is_empty() {
            return Ok(GroupAllocation { members: Vec::new() });
        }
        let kept = self.eligible(mq_all)?;
        let members = first_indices(cid_all)
            .map(|(idx, id)| MemberShare { client_id: id.to_owned(), allocation: Allocation::Positions(share(&kept, cid_all.len(), idx)) })
            .collect();
        Ok(GroupAllocation { members })
    }
}

#[cfg(test)]
mod tests {
    use super::{idc_of, java_split};

    /// `idc_of` is "exactly two parts, the first" of the full split, on every short string.
    #[test]
    fn idc_of_agrees_with_the_full_split() {
        let alphabet = ['a', '@', 'b'];
        let mut words = vec![String::new()];
        for _ in 0..5 {
            let next: Vec<String> = words.iter().flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}"))).collect();
            words.extend(next);
        }
        for w in &words {
            let parts = java_split(w, '@');
            let want = (parts.len() == 2).then(|| parts[0]);
            assert_eq!(idc_of(w), want, "{w:?}");
        }
    }

    /// Expected values from the Java documentation of `String.split(regex)` (limit 0).
    #[test]
    fn split_like_java() {
        assert_eq!(java_split("a@b", '@'), ["a", "b"]);
        assert_eq!(java_split("a@b@", '@'), ["a", "b"]);
        assert_eq!(java_split("@b", '@'), ["", "b"]);
        assert!(java_split("@", '@').is_empty());
        assert!(java_split("@@", '@').is_empty());
        assert_eq!(java_split("", '@'), [""]);
        assert_eq!(java_split("a@@b", '@'), ["a", "", "b"]);
    }
}
