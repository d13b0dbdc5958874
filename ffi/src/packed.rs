//! One call per allocation for hosts whose every C call is expensive (Go's cgo, about 30-100 ns a
//! call plus a copy per C string): every string of the call travels in one table of
//! NUL-terminated strings, referred to by byte offset, and the answer comes back as positions.

use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::Arc;

use rocketmq_rebalance::strategy::{allocation_by_counts, Allocation, MachineRoomNearby, MachineRoomResolver};
use rocketmq_rebalance::{java_order, MessageQueue, Strategy};

use crate::args::{out_arg, ref_arg, slice_arg, write_out};
use crate::panic::boundary;
use crate::result::rmq_result;
use crate::strategy::{rmq_strategy, write_positions};

/// An offset that stands for "no string": a resolver that found no room.
pub const RMQ_NO_STRING: u32 = u32::MAX;

/// `rmq_strategy_allocate_packed` flag: sort the queues and the client ids as RebalanceImpl does
/// before allocating (positions still index the caller's arrays).
pub const RMQ_PACKED_SORT: u32 = 1;

/// The strings of one call: a table of NUL-terminated UTF-8 strings and offsets into it.
struct StringTable<'a> {
    bytes: &'a [u8],
    /// Strings already read, by offset (topics and brokers repeat on every queue).
    seen: HashMap<u32, Arc<str>>,
}

impl<'a> StringTable<'a> {
    fn get(&mut self, offset: u32) -> Result<Arc<str>, rmq_result> {
        if let Some(s) = self.seen.get(&offset) {
            return Ok(s.clone());
        }
        let rest = self.bytes.get(offset as usize..).ok_or(rmq_result::OutOfRange)?;
        let end = rest.iter().position(|b| *b == 0).ok_or(rmq_result::OutOfRange)?;
        let s: Arc<str> = std::str::from_utf8(&rest[..end]).map_err(|_| rmq_result::InvalidUtf8)?.into();
        self.seen.insert(offset, s.clone());
        Ok(s)
    }

    fn room(&mut self, offset: u32) -> Result<Option<String>, rmq_result> {
        if offset == RMQ_NO_STRING {
            return Ok(None);
        }
        Ok(Some(self.get(offset)?.to_string()).filter(|room| !room.is_empty()))
    }
}

/// Rooms the host resolved before the call (`MACHINE_ROOM_NEARBY` without callbacks).
#[derive(Debug)]
struct RoomTable {
    queues: HashMap<MessageQueue, Option<String>>,
    clients: HashMap<String, Option<String>>,
}

impl MachineRoomResolver for RoomTable {
    fn broker_room(&self, queue: &MessageQueue) -> rocketmq_rebalance::Result<Option<String>> {
        Ok(self.queues.get(queue).cloned().flatten())
    }

    fn consumer_room(&self, client_id: &str) -> rocketmq_rebalance::Result<Option<String>> {
        Ok(self.clients.get(client_id).cloned().flatten())
    }
}

/// One member's share, as positions into the queue arrays, with every string in one table.
///
/// `strings[0..strings_len]` holds NUL-terminated UTF-8 strings; `group`, `current_id`, each
/// `queue_topics[i]`, `queue_brokers[i]` and `client_ids[j]` are byte offsets of strings in it.
/// Queue `i` is (`queue_topics[i]`, `queue_brokers[i]`, `queue_ids[i]`); the three arrays have
/// `queues_len` entries. An offset outside the table or without a NUL after it is
/// `RMQ_RESULT_OUT_OF_RANGE`.
///
/// `queue_rooms` and `client_rooms` (both NULL, or `queues_len` and `client_ids_len` offsets) make
/// the call MACHINE_ROOM_NEARBY around `strategy`, with each queue's broker room and each client's
/// room given as data (`RMQ_NO_STRING` or an empty string: no room, which is Java's
/// `IllegalArgumentException`). The positions, count and `RMQ_RESULT_BUFFER_TOO_SMALL` behave as
/// in `rmq_strategy_allocate_positions` (`positions_cap = queues_len` always suffices); CONFIG is
/// `RMQ_RESULT_NOT_POSITIONAL`. `flags`: 0, or `RMQ_PACKED_SORT` to sort both lists in Java's order
/// first (as RebalanceImpl does), the positions still indexing the caller's arrays; other bits are
/// `RMQ_RESULT_OUT_OF_RANGE`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rmq_strategy_allocate_packed(
    strategy: *const rmq_strategy,
    strings: *const c_char,
    strings_len: usize,
    group: u32,
    current_id: u32,
    queue_topics: *const u32,
    queue_brokers: *const u32,
    queue_ids: *const i32,
    queues_len: usize,
    client_ids: *const u32,
    client_ids_len: usize,
    queue_rooms: *const u32,
    client_rooms: *const u32,
    flags: u32,
    positions: *mut usize,
    positions_cap: usize,
    out_len: *mut usize,
) -> rmq_result {
    boundary(|| {
        let out_len = out_arg(out_len)?;
        if flags & !RMQ_PACKED_SORT != 0 {
            return Err(rmq_result::OutOfRange);
        }
        // SAFETY: the caller's arguments, as the header states them: arrays of the given lengths.
        let (strategy, bytes, topics, brokers, ids, clients) = unsafe {
            (
                ref_arg(strategy)?,
                slice_arg(strings.cast::<u8>(), strings_len)?,
                slice_arg(queue_topics, queues_len)?,
                slice_arg(queue_brokers, queues_len)?,
                slice_arg(queue_ids, queues_len)?,
                slice_arg(client_ids, client_ids_len)?,
            )
        };
        if positions.is_null() && positions_cap > 0 {
            return Err(rmq_result::LengthMismatch);
        }
        let mut table = StringTable { bytes, seen: HashMap::new() };
        let group = table.get(group)?;
        let current = table.get(current_id)?;
        let mut mq_all = Vec::with_capacity(queues_len);
        for i in 0..queues_len {
            mq_all.push(MessageQueue::new(table.get(topics[i])?, table.get(brokers[i])?, ids[i]));
        }
        let mut cid_all = clients.iter().map(|&c| table.get(c).map(|s| s.to_string())).collect::<Result<Vec<_>, _>>()?;
        // Rooms as data, read while both lists are still in the caller's order (the room arrays').
        let rooms = match (queue_rooms.is_null(), client_rooms.is_null()) {
            (true, true) => None,
            (false, false) => {
                // SAFETY: as above: one room offset per queue and per client id.
                let (q_rooms, c_rooms) = unsafe { (slice_arg(queue_rooms, queues_len)?, slice_arg(client_rooms, client_ids_len)?) };
                let mut rooms = RoomTable { queues: HashMap::with_capacity(queues_len), clients: HashMap::with_capacity(client_ids_len) };
                for (q, &room) in mq_all.iter().zip(q_rooms) {
                    rooms.queues.insert(q.clone(), table.room(room)?);
                }
                for (c, &room) in cid_all.iter().zip(c_rooms) {
                    rooms.clients.insert(c.clone(), table.room(room)?);
                }
                Some(rooms)
            }
            _ => return Err(rmq_result::NullParameter),
        };
        // Sorted: the allocation's positions index `mq_all` as sorted; `order` maps them back.
        let mut order: Vec<usize> = (0..queues_len).collect();
        if flags & RMQ_PACKED_SORT != 0 {
            order.sort_by(|&a, &b| mq_all[a].cmp(&mq_all[b]));
            mq_all = order.iter().map(|&i| mq_all[i].clone()).collect();
            java_order::sort_client_ids(&mut cid_all);
        }
        let nearby = rooms.map(|rooms| MachineRoomNearby::new(strategy.inner.clone(), Arc::new(rooms)));
        let chosen: &dyn Strategy = match &nearby {
            Some(nearby) => nearby,
            None => strategy.inner.as_ref(),
        };
        let allocation = chosen.allocate_positions(&group, &current, &mq_all, &cid_all)?;
        // SAFETY: the caller's array of `positions_cap` entries.
        unsafe { write_positions(&allocation, |p| order[p], positions, positions_cap, out_len) }
    })
}

/// The share of a strategy that depends only on the list sizes (AVG, AVG_BY_CIRCLE; the core says
/// which), without passing the lists: `current_index` is the first position of the current id in
/// the caller's id list, `SIZE_MAX` when absent. The share is every `*step`-th position from
/// `*start` up to `*end` (excluded); an absent id gets `start == end`. Same checks and errors as
/// the other calls (an empty current id or list is Java's `IllegalArgumentException`).
/// `RMQ_RESULT_NOT_POSITIONAL` for a strategy that needs the lists themselves: ask once and
/// remember. The fastest call, for bindings whose calls are expensive.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rmq_strategy_allocate_by_counts(
    strategy: *const rmq_strategy,
    current_empty: bool,
    queues_len: usize,
    client_ids_len: usize,
    current_index: usize,
    start: *mut usize,
    end: *mut usize,
    step: *mut usize,
) -> rmq_result {
    boundary(|| {
        let (start, end, step) = (out_arg(start)?, out_arg(end)?, out_arg(step)?);
        // SAFETY: the caller's handle.
        let strategy = unsafe { ref_arg(strategy)? };
        let kind = strategy.by_counts.ok_or(rmq_result::NotPositional)?;
        let index = (current_index != usize::MAX).then_some(current_index);
        if index.is_some_and(|i| i >= client_ids_len) {
            return Err(rmq_result::OutOfRange);
        }
        let stride = match allocation_by_counts(kind, current_empty, queues_len, client_ids_len, index)? {
            Allocation::Stride { start, end, step } => (start, end, step),
            // No index: nothing (the id is absent, Java's "[BUG]" case).
            _ => (0, 0, 1),
        };
        // SAFETY: checked non-NULL.
        unsafe {
            write_out(start, stride.0);
            write_out(end, stride.1);
            write_out(step, stride.2);
        }
        Ok(())
    })
}
