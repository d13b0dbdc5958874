//! MACHINE_ROOM_NEARBY-<inner>: `AllocateMachineRoomNearby`. Queues go to consumers of their own
//! machine room; the queues of a room without any consumer are shared by everybody.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use super::{check, check_group, Allocation, Strategy};
use crate::error::{Error, Result};
use crate::java_order::compare_strings;
use crate::queue::MessageQueue;
use crate::strategy::{GroupAllocation, MemberShare};

/// `AllocateMachineRoomNearby.MachineRoomResolver`: where a broker and a consumer are deployed.
///
/// `Ok(None)` and `Ok(Some(""))` both mean "no room", which Java rejects. An `Err` is the
/// resolver's own failure (a callback that raised) and is returned unchanged. The strategy asks
/// once per queue and once per client id, so a resolver should be deterministic.
pub trait MachineRoomResolver: Send + Sync + Debug {
    fn broker_room(&self, queue: &MessageQueue) -> Result<Option<String>>;
    fn consumer_room(&self, client_id: &str) -> Result<Option<String>>;
}

/// A resolver for names that carry their room as a prefix: the room is the part before the first
/// separator, or the whole name when it has none (`"hz-broker-a"` with `"-"` -> `"hz"`;
/// `"hz@10.0.0.1@123"` with `"@"` -> `"hz"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeparatorResolver {
    broker_separator: String,
    consumer_separator: String,
}

impl SeparatorResolver {
    pub const DEFAULT_BROKER_SEPARATOR: &'static str = "-";
    pub const DEFAULT_CONSUMER_SEPARATOR: &'static str = "@";

    /// Empty separators are rejected: every room would be "" and every call would fail.
    pub fn new(broker_separator: impl Into<String>, consumer_separator: impl Into<String>) -> Result<Self> {
        let (broker_separator, consumer_separator) = (broker_separator.into(), consumer_separator.into());
        if broker_separator.is_empty() || consumer_separator.is_empty() {
            return Err(Error::InvalidParameters { strategy: "MACHINE_ROOM_NEARBY".into(), reason: "room separators must not be empty".into() });
        }
        Ok(SeparatorResolver { broker_separator, consumer_separator })
    }

    fn prefix<'a>(name: &'a str, separator: &str) -> &'a str {
        name.split_once(separator).map_or(name, |(room, _)| room)
    }
}

impl Default for SeparatorResolver {
    fn default() -> Self {
        SeparatorResolver { broker_separator: Self::DEFAULT_BROKER_SEPARATOR.into(), consumer_separator: Self::DEFAULT_CONSUMER_SEPARATOR.into() }
    }
}

impl MachineRoomResolver for SeparatorResolver {
    fn broker_room(&self, queue: &MessageQueue) -> Result<Option<String>> {
        Ok(Some(Self::prefix(&queue.broker_name, &self.broker_separator).to_owned()))
    }

    fn consumer_room(&self, client_id: &str) -> Result<Option<String>> {
        Ok(Some(Self::prefix(client_id, &self.consumer_separator).to_owned()))
    }
}

#[derive(Debug, Clone)]
pub struct MachineRoomNearby {
    inner: Arc<dyn Strategy>,
    resolver: Arc<dyn MachineRoomResolver>,
}

impl MachineRoomNearby {
    pub fn new(inner: Arc<dyn Strategy>, resolver: Arc<dyn MachineRoomResolver>) -> Self {
        MachineRoomNearby { inner, resolver }
    }

    pub fn inner(&self) -> &Arc<dyn Strategy> {
        &self.inner
    }
}

/// The queues and consumers of each room, as Java's two `TreeMap`s hold them.
struct Rooms<'a> {
    /// (room, positions into mq_all), rooms in Java string order.
    queues: Vec<(String, Vec<usize>)>,
    /// room -> client ids in list order (duplicates kept).
    consumers: HashMap<String, Vec<String>>,
    /// The room of each id, for looking up the current one.
    room_of: HashMap<&'a str, String>,
}

impl MachineRoomNearby {
    /// Groups queues first, then ids, so a queue without a room is reported before an id.
    fn rooms<'a>(&self, mq_all: &[MessageQueue], cid_all: &'a [String]) -> Result<Rooms<'a>> {
        let mut by_room: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, mq) in mq_all.iter().enumerate() {
            match self.resolver.broker_room(mq)? {
                Some(room) if !room.is_empty() => by_room.entry(room).or_default().push(i),
                _ => return Err(Error::NoMachineRoomForQueue(mq.clone())),
            }
        }
        let mut queues: Vec<(String, Vec<usize>)> = by_room.into_iter().collect();
        queues.sort_by(|a, b| compare_strings(&a.0, &b.0));

        let mut consumers: HashMap<String, Vec<String>> = HashMap::new();
        let mut room_of = HashMap::new();
        for cid in cid_all {
            let room = match room_of.get(cid.as_str()) {
                Some(room) => String::clone(room),
                None => match self.resolver.consumer_room(cid)? {
                    Some(room) if !room.is_empty() => room,
                    _ => return Err(Error::NoMachineRoomForConsumer(cid.clone())),
                },
            };
            consumers.entry(room.clone()).or_default().push(cid.clone());
            room_of.insert(cid.as_str(), room);
        }
        Ok(Rooms { queues, consumers, room_of })
    }

    /// Calls the inner strategy on a subset of the queues and maps its answer back to positions
    /// of the full list. Java's `addAll(null)` becomes [`Error::InnerResultNull`].
    fn inner_share(&self, group: &str, current: &str, positions: &[usize], mq_all: &[MessageQueue], ids: &[String]) -> Result<Piece> {
        let subset: Vec<MessageQueue> = positions.iter().map(|&i| mq_all[i].clone()).collect();
        let allocation = self.inner.allocate_positions(group, current, &subset, ids).map_err(|e| self.null_is_npe(e))?;
        Ok(Piece::from_inner(allocation, positions))
    }

    /// Java's `addAll(null)`: an inner strategy's null result is a NullPointerException here.
    fn null_is_npe(&self, e: Error) -> Error {
        match e {
            Error::NoConfiguredQueues => Error::InnerResultNull(self.inner.name().into_owned()),
            e => e,
        }
    }
}

/// One inner strategy's answer, already mapped to positions of the full list where possible.
enum Piece {
    Positions(Vec<usize>),
    Fixed(Arc<[MessageQueue]>),
}

impl Piece {
    fn from_inner(allocation: Allocation, positions: &[usize]) -> Piece {
        match (allocation.positions(), &allocation) {
            (Some(p), _) => Piece::Positions(p.map(|i| positions[i]).collect()),
            (None, Allocation::Fixed(q)) => Piece::Fixed(Arc::clone(q)),
            (None, _) => unreachable!("only Fixed has no positions"),
        }
    }

    /// Concatenates pieces; the result is positional unless an inner strategy returned queues of
    /// its own (CONFIG).
    fn concat(pieces: Vec<Piece>, mq_all: &[MessageQueue]) -> Allocation {
        if pieces.iter().all(|p| matches!(p, Piece::Positions(_))) {
            let mut out = Vec::new();
            for piece in pieces {
                if let Piece::Positions(p) = piece {
                    out.extend(p);
                }
            }
            return Allocation::Positions(out);
        }
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Positions(p) => out.extend(p.into_iter().map(|i| mq_all[i].clone())),
                Piece::Fixed(q) => out.extend(q.iter().cloned()),
            }
        }
        Allocation::Fixed(out.into())
    }
}

impl Strategy for MachineRoomNearby {
    fn name(&self) -> Cow<'_, str> {
        Cow::Owned(format!("MACHINE_ROOM_NEARBY-{}", self.inner.name()))
    }

    fn allocate_positions(&self, group: &str, current_id: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<Allocation> {
        if check(current_id, mq_all, cid_all)?.is_none() {
            return Ok(Allocation::Positions(Vec::new()));
        }
        let rooms = self.rooms(mq_all, cid_all)?;
        let my_room = &rooms.room_of[current_id];
        let mut pieces = Vec::new();
        // 1. The queues of my room, shared by the consumers of my room.
        if let Some((_, mine)) = rooms.queues.iter().find(|(room, _)| room == my_room) {
            pieces.push(self.inner_share(group, current_id, mine, mq_all, &rooms.consumers[my_room])?);
        }
        // 2. Rooms without any consumer, in room order: shared by everybody.
        for (room, positions) in &rooms.queues {
            if room != my_room && !rooms.consumers.contains_key(room) {
                pieces.push(self.inner_share(group, current_id, positions, mq_all, cid_all)?);
            }
        }
        Ok(Piece::concat(pieces, mq_all))
    }

    /// Resolves every room once and asks the inner strategy for its group view per room, which
    /// gives each member exactly its per-member answer (for a deterministic resolver).
    fn allocate_group(&self, group: &str, mq_all: &[MessageQueue], cid_all: &[String]) -> Result<GroupAllocation> {
        check_group(mq_all, cid_all)?;
        if cid_all.is_empty() {
            return Ok(GroupAllocation { members: Vec::new() });
        }
        let rooms = self.rooms(mq_all, cid_all)?;
        let members: Vec<&str> = super::distinct_in_order(cid_all);
        let index: HashMap<&str, usize> = members.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let mut pieces: Vec<Vec<Piece>> = members.iter().map(|_| Vec::new()).collect();
        let add_room = |positions: &[usize], ids: &[String], pieces: &mut Vec<Vec<Piece>>| -> Result<()> {
            let subset: Vec<MessageQueue> = positions.iter().map(|&i| mq_all[i].clone()).collect();
            let view = self.inner.allocate_group(group, &subset, ids).map_err(|e| self.null_is_npe(e))?;
            for share in view.members {
                pieces[index[share.client_id.as_str()]].push(Piece::from_inner(share.allocation, positions));
            }
            Ok(())
        };
        // 1. Rooms with both queues and consumers: each member's share of its own room.
        for (room, positions) in &rooms.queues {
            if let Some(ids) = rooms.consumers.get(room) {
                add_room(positions, ids, &mut pieces)?;
            }
        }
        // 2. Consumer-less rooms in room order, shared by everybody.
        for (room, positions) in &rooms.queues {
            if !rooms.consumers.contains_key(room) {
                add_room(positions, cid_all, &mut pieces)?;
            }
        }
        let members = members.into_iter().zip(pieces).map(|(id, p)| MemberShare { client_id: id.to_owned(), allocation: Piece::concat(p, mq_all) }).collect();
        Ok(GroupAllocation { members })
    }
}
