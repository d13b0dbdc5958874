//! CONSISTENT_HASH: `AllocateMessageQueueConsistentHash` with its default MD5 ring.
//!
//! The ring is rebuilt exactly as `ConsistentHashRouter` builds it, overwrites and all (see
//! [`Ring::build`]). Building it costs `ids x virtual nodes` MD5 digests, so the last ring is
//! kept and reused while the id list is unchanged: a rebalance round asks for the same ids every
//! 20 s, and the whole-group view asks once per member otherwise. The queue keys' digests are
//! remembered the same way, for the last queue lists ([`KeyDigests`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::key_digests::KeyDigests;
use super::{check, check_group, distinct_in_order, Allocation, Strategy};
use crate::error::{Error, Result};
use crate::md5_batch::{ring_hash, ring_hashes, Md5Path};
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};

/// Java's default: 10 virtual nodes per client id.
pub const DEFAULT_VIRTUAL_NODES: u32 = 10;

/// The most ring entries (ids x virtual nodes) we build. Java would spend minutes and gigabytes
/// well before this; we answer with [`Error::TooLarge`] instead.
pub const MAX_RING_ENTRIES: u64 = 1 << 24;

#[derive(Debug)]
pub struct ConsistentHash {
    virtual_nodes: u32,
    last_ring: Mutex<Option<Arc<Ring>>>,
    digests: KeyDigests,
}

impl Default for ConsistentHash {
    fn default() -> Self {
        ConsistentHash { virtual_nodes: DEFAULT_VIRTUAL_NODES, last_ring: Mutex::new(None), digests: KeyDigests::default() }
    }
}

impl ConsistentHash {
    /// Java's constructor: a negative count is an error; 0 gives an empty ring (nobody gets
    /// anything, no error).
    pub fn new(virtual_nodes: i64) -> Result<Self> {
        if virtual_nodes < 0 {
            return Err(Error::IllegalVirtualNodeCount(virtual_nodes));
        }
        let virtual_nodes = u32::try_from(virtual_nodes).ok().filter(|&v| i32::try_from(v).is_ok()).ok_or_else(|| Error::InvalidParameters {
            strategy: "CONSISTENT_HASH".into(),
            reason: format!("virtual_node_count {virtual_nodes} does not fit Java's int"),
        })?;
        Ok(ConsistentHash { virtual_nodes, last_ring: Mutex::new(None), digests: KeyDigests::default() })
    }

    pub fn virtual_nodes(&self) -> u32 {
        self.virtual_nodes
    }

    fn ring_for(&self, cid_all: &[String]) -> Result<Arc<Ring>> {
        // A poisoned cache only means another thread panicked mid-update; the Option is still
        // either a complete ring or None, so use it.
        let mut cached = self.last_ring.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ring) = cached.as_ref().filter(|r| r.ids == cid_all) {
            return Ok(Arc::clone(ring));
        }
        let ring = Arc::new(Ring::build(cid_all, self.virtual_nodes)?);
        *cached = Some(Arc::clone(&ring));
        Ok(ring)
    }

    /// Routes every queue: `owner[i]` is the index (into `ring.members`) of the owner of
    /// `mq_all[i]`, or None on an empty ring (then nothing is hashed).
    fn route_all(&self, ring: &Ring, mq_all: &[MessageQueue]) -> Vec<Option<u32>> {
        if ring.points.is_empty() {
            return vec![None; mq_all.len()];
        }
        self.digests.of(mq_all).iter().map(|&hash| Some(ring.route(hash))).collect()
    }
}

/// The sorted ring: `points[k] = (hash, member)`, where `member` indexes `members`.
#[derive(Debug)]
struct Ring {
    /// The id list the ring was built from (the cache key).
    ids: Vec<String>,
    /// Distinct ids in order of first appearance.
    members: Vec<String>,
    points: Vec<(u32, u32)>,
    /// `buckets[b]` = the first point whose hash's top bits are >= b, so a lookup searches only
    /// the few points of one bucket (about one per bucket) instead of the whole ring.
    buckets: Vec<u32>,
    /// Hash bits below the bucket number.
    shift: u32,
}

impl Ring {
    /// `ConsistentHashRouter`'s constructor: for each id in list order, `existing` = how many ring
    /// entries the id owns now (a duplicated id gets further virtual nodes), then put
    /// `id + "-" + (existing + k)` for k in 0..count. A colliding hash overwrites the earlier
    /// owner (`TreeMap.put`), which also lowers that owner's `existing` count.
    fn build(cid_all: &[String], virtual_nodes: u32) -> Result<Ring> {
        let entries = cid_all.len() as u64 * u64::from(virtual_nodes);
        if entries > MAX_RING_ENTRIES {
            return Err(Error::TooLarge(format!(
                "consistent-hash ring of {} ids x {virtual_nodes} virtual nodes exceeds {MAX_RING_ENTRIES} entries",
                cid_all.len()
            )));
        }
        let members: Vec<String> = distinct_in_order(cid_all).into_iter().map(str::to_owned).collect();
        let member_of: HashMap<&str, u32> = members.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();
        let vnodes = u64::from(virtual_nodes);
        // Every key is hashed up front, many at once, with the replica numbers it has when no
        // two ring keys collide: each occurrence of an id continues where the previous stopped.
        // The Java walk below uses a precomputed hash only where its own count agrees (a 32-bit
        // collision between earlier keys can shift a repeated id's numbers).
        let mut planned = vec![0u64; members.len()];
        let first_replica: Vec<u64> = cid_all
            .iter()
            .map(|id| {
                let count = &mut planned[member_of[id.as_str()] as usize];
                *count += vnodes;
                *count - vnodes
            })
            .collect();
        let per_id = virtual_nodes as usize;
        let hashes = ring_hashes(Md5Path::active(), entries as usize, |i, key| {
            use std::io::Write;
            let (at, k) = (i / per_id, i % per_id);
            let _ = write!(key, "{}-{}", cid_all[at], first_replica[at] + k as u64);
        });
        let mut owned = vec![0u64; members.len()];
        let mut ring: HashMap<u32, u32> = HashMap::with_capacity(entries as usize);
        for (at, id) in cid_all.iter().enumerate() {
            let member = member_of[id.as_str()];
            let existing = owned[member as usize];
            for k in 0..vnodes {
                // Java's replica index is an int; it cannot exceed MAX_RING_ENTRIES here.
                let hash =
                    if existing == first_replica[at] { hashes[at * per_id + k as usize] } else { ring_hash(format!("{id}-{}", existing + k).as_bytes()) };
                if let Some(previous) = ring.insert(hash, member) {
                    owned[previous as usize] -= 1;
                }
                owned[member as usize] += 1;
            }
        }
        let mut points: Vec<(u32, u32)> = ring.into_iter().collect();
        points.sort_unstable_by_key(|&(hash, _)| hash);
        let (buckets, shift) = bucket_index(&points);
        Ok(Ring { ids: cid_all.to_vec(), members, points, buckets, shift })
    }

    /// `routeNode`: the first point with hash >= `hash`, wrapping to the smallest.
    fn route(&self, hash: u32) -> u32 {
        let bucket = (u64::from(hash) >> self.shift) as usize;
        let (from, to) = (self.buckets[bucket] as usize, self.buckets[bucket + 1] as usize);
        // Every point before `from` is in a lower bucket (smaller hash), every point from `to`
        // on in a higher one, so the answer is in from..=to.
        let at = from + self.points[from..to].partition_point(|&(h, _)| h < hash);
        self.points.get(at).unwrap_or(&self.points[0]).1
    }
}

/// About one bucket per point (a power of two, at most 2^20), each the index of its first point;
/// one more entry closes the last bucket.
fn bucket_index(points: &[(u32, u32)]) -> (Vec<u32>, u32) {
    let bits = (points.len().max(1).next_power_of_two().trailing_zeros()).min(20);
    let shift = 32 - bits;
    let mut buckets = Vec::with_capacity((1 << bits) + 1);
    let mut at = 0;
    for bucket in 0..(1u64 << bits) {
        while at < points.len() && (u64::from(points[at].0) >> shift) < bucket {
            at += 1;
        }
        buckets.push(at as u32);
    }
    buckets.push(points.len() as u32);
    (buckets, shift)
}

/// The MD5 ring hash of an arbitrary key, exposed for tests and benchmarks.
pub fn md5_ring_hash(key: &str) -> u32 {
    ring_hash(key.as_bytes())
}

impl Strategy for ConsistentHash {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("CONSISTENT_HASH")
    }

    fn allocate_positions(&self, _group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        if check(current_id, mq_all, cid_all)?.is_none() {
            return Ok(Allocation::Positions(Vec::new()));
        }
        let ring = self.ring_for(cid_all)?;
        let me = ring.members.iter().position(|m| m == current_id).map(|i| i as u32);
        let positions = self.route_all(&ring, mq_all).into_iter().enumerate().filter(|&(_, owner)| owner.is_some() && owner == me).map(|(i, _)| i).collect();
        Ok(Allocation::Positions(positions))
    }

    /// One pass: each queue is hashed and routed once, whoever owns it.
    fn allocate_group(&self, _group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        check_group(mq_all, cid_all)?;
        if cid_all.is_empty() {
            return Ok(GroupAllocation { members: Vec::new() });
        }
        let ring = self.ring_for(cid_all)?;
        let mut shares: Vec<Vec<usize>> = vec![Vec::new(); ring.members.len()];
        for (i, owner) in self.route_all(&ring, mq_all).into_iter().enumerate() {
            if let Some(owner) = owner {
                shares[owner as usize].push(i);
            }
        }
        let members = ring
            .members
            .iter()
            .zip(shares)
            .map(|(id, positions)| MemberShare { client_id: id.clone(), allocation: Allocation::Positions(positions) })
            .collect();
        Ok(GroupAllocation { members })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MD5("a") = 0cc175b9c0f1b6a831c399e269772661 (RFC 1321 test suite): first four bytes.
    #[test]
    fn ring_hash_is_first_four_md5_bytes_big_endian() {
        assert_eq!(md5_ring_hash("a"), 0x0cc1_75b9);
        assert_eq!(md5_ring_hash(""), 0xd41d_8cd9);
    }

    /// One instance shared by threads over interleaved routes (each remembered, some equal, some
    /// differing by one queue) answers as a fresh instance, which hashes everything, does.
    #[test]
    fn remembered_digests_give_the_answers_of_a_fresh_instance() {
        let shared = ConsistentHash::default();
        let ids: Vec<String> = (0..7).map(|i| format!("10.0.0.{i}@{i}")).collect();
        let lists: Vec<Vec<MessageQueue>> = (0..5).map(|t| (0..20).map(|q| MessageQueue::new(format!("T{}", t % 3), "b", q + t)).collect()).collect();
        std::thread::scope(|s| {
            for k in 0..4 {
                let (shared, ids, lists) = (&shared, &ids, &lists);
                s.spawn(move || {
                    for round in 0..30 {
                        let l = &lists[(round + k) % lists.len()];
                        for id in ids {
                            let fresh = ConsistentHash::default().allocate_positions("g", id, l, ids).unwrap();
                            assert_eq!(shared.allocate_positions("g", id, l, ids).unwrap(), fresh);
                        }
                    }
                });
            }
        });
    }

    /// The bucketed lookup answers as a search of the whole ring does, at bucket edges, past
    /// the last point (wrap) and on rings of 1 to 3,000 points.
    #[test]
    fn bucketed_route_equals_a_search_of_the_whole_ring() {
        for ids in [1usize, 2, 7, 300] {
            let ids: Vec<String> = (0..ids).map(|i| format!("10.0.0.{i}@{i}")).collect();
            let ring = Ring::build(&ids, 10).unwrap();
            let whole = |hash: u32| {
                let at = ring.points.partition_point(|&(h, _)| h < hash);
                ring.points.get(at).unwrap_or(&ring.points[0]).1
            };
            let edges = ring.points.iter().flat_map(|&(h, _)| [h.wrapping_sub(1), h, h.wrapping_add(1)]);
            let bucket_edges = (0..ring.buckets.len() as u64).map(|b| ((b << ring.shift) & u64::from(u32::MAX)) as u32);
            let spread = (0..10_000u32).map(|i| i.wrapping_mul(429_497));
            for hash in edges.chain(bucket_edges).chain(spread).chain([0, u32::MAX]) {
                assert_eq!(ring.route(hash), whole(hash), "hash {hash:#x}, {} points", ring.points.len());
            }
        }
    }

    #[test]
    fn negative_count_is_javas_error() {
        assert_eq!(ConsistentHash::new(-1).unwrap_err(), Error::IllegalVirtualNodeCount(-1));
        assert_eq!(ConsistentHash::new(-1).unwrap_err().to_string(), "illegal virtualNodeCnt :-1");
    }

    #[test]
    fn duplicated_id_gets_further_virtual_nodes() {
        let ids = vec!["c".to_string(), "c".to_string()];
        let ring = Ring::build(&ids, 3).unwrap();
        // Keys c-0..c-2 then c-3..c-5: six distinct keys, all owned by the one member.
        assert_eq!(ring.members, vec!["c".to_string()]);
        assert_eq!(ring.points.len(), 6);
    }

    #[test]
    fn zero_virtual_nodes_gives_nothing_to_anyone() {
        let s = ConsistentHash::new(0).unwrap();
        let mqs = vec![MessageQueue::new("t", "b", 0)];
        let ids = vec!["c".to_string()];
        assert!(s.allocate("g", "c", &mqs, &ids).unwrap().is_empty());
    }

    #[test]
    fn huge_ring_is_refused_not_built() {
        let s = ConsistentHash::new(i32::MAX as i64).unwrap();
        let mqs = vec![MessageQueue::new("t", "b", 0)];
        // One id with i32::MAX virtual nodes: 2^31 ring entries, refused before any is built.
        let ids = vec!["c".to_string()];
        assert!(matches!(s.allocate("g", "c", &mqs, &ids), Err(Error::TooLarge(_))));
    }
}
