//! `rmq_strategy`: the six RocketMQ strategies and the experimental BALANCED_STICKY, by name +
//! JSON or by typed constructors, and allocation for one member.

use std::collections::HashSet;
use std::ffi::{c_char, CString};
use std::sync::Arc;

use rocketmq_rebalance::strategy::{
    allocation_by_counts, Allocation, Averagely, AveragelyByCircle, BalancedSticky, BalancedStickyV2, ByConfig, ByMachineRoom, ConsistentHash, CountStrategy,
    MachineRoomNearby,
};
use rocketmq_rebalance::{Error, Strategy, StrategyConfig};
use serde_json::Value;

use crate::args::{opt_str_arg, out_arg, owned_ids, ref_arg, slice_arg, str_arg, with_ids, write_out};
use crate::id_list::rmq_id_list;
use crate::panic::{boundary, boundary_or, free_boxed};
use crate::queue_list::rmq_queue_list;
use crate::resolver::{rmq_machine_room_resolver, CResolver};
use crate::result::rmq_result;

/// An allocation strategy (`AllocateMessageQueueStrategy`).
///
/// Immutable once made: one strategy may be used by any number of threads at once without
/// locking. Freed by `rmq_strategy_free`; a strategy used inside another (MACHINE_ROOM_NEARBY's
/// inner strategy) or by a rebalancer is shared, so it may be freed as soon as the outer one is made.
pub struct rmq_strategy {
    pub(crate) inner: Arc<dyn Strategy>,
    name: CString,
    /// AVG and AVG_BY_CIRCLE need only the list sizes and the current id's index, so the client
    /// ids are compared in place instead of being copied into Rust strings.
    pub(crate) by_counts: Option<CountStrategy>,
}

/// Writes a new strategy into `*out` once everything else has succeeded.
unsafe fn make(out: *mut *mut rmq_strategy, build: impl FnOnce() -> Result<Arc<dyn Strategy>, rmq_result>) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        let inner = build()?;
        let by_counts = inner.count_strategy();
        // Java names hold no NUL.
        let name = CString::new(inner.name().as_bytes()).unwrap_or_default();
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(rmq_strategy { inner, name, by_counts }))) };
        Ok(())
    })
}

fn general(strategy: impl Strategy + 'static) -> Result<Arc<dyn Strategy>, rmq_result> {
    Ok(Arc::new(strategy))
}

/// Makes a strategy from its name and parameters as JSON text: the names and parameters the CLI
/// and the Python package accept (`"averagely"` or `"AVG"`, `"consistent_hash"` with
/// `{"virtual_node_count": 10}`, ...). `params_json` may be NULL for no parameters.
/// `RMQ_RESULT_UNKNOWN_STRATEGY` for a name no strategy has, `RMQ_RESULT_INVALID_PARAMETERS` for
/// malformed JSON or parameters, `RMQ_RESULT_ILLEGAL_VIRTUAL_NODE_COUNT` where Java's constructor
/// throws.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_from_config(name: *const c_char, params_json: *const c_char, out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            let name = str_arg(name)?;
            let params = match opt_str_arg(params_json)? {
                None => Value::Null,
                Some(text) => serde_json::from_str(text)
                    .map_err(|e| Error::InvalidParameters { strategy: name.to_owned(), reason: format!("params are not JSON: {e}") })?,
            };
            Ok(StrategyConfig::from_name(name, &params)?.build()?)
        })
    }
}

/// AVG (`AllocateMessageQueueAveragely`): consecutive blocks.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_averagely_new(out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's out-parameter.
    unsafe { make(out, || general(Averagely)) }
}

/// AVG_BY_CIRCLE (`AllocateMessageQueueAveragelyByCircle`): queues dealt round-robin.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_circle_new(out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's out-parameter.
    unsafe { make(out, || general(AveragelyByCircle)) }
}

/// CONSISTENT_HASH (`AllocateMessageQueueConsistentHash(virtualNodeCnt)`); Java's default is 10.
/// `RMQ_RESULT_ILLEGAL_VIRTUAL_NODE_COUNT` when negative.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_consistent_hash_new(virtual_node_count: i64, out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's out-parameter.
    unsafe { make(out, || general(ConsistentHash::new(virtual_node_count)?)) }
}

/// MACHINE_ROOM_NEARBY (`AllocateMachineRoomNearby(inner, resolver)`). The resolver struct is
/// copied; on success the new strategy owns `resolver->user_data` (see `rmq_machine_room_resolver`),
/// on failure the caller still does. `inner` is shared, not consumed.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_machine_room_nearby_new(
    inner: *const rmq_strategy,
    resolver: *const rmq_machine_room_resolver,
    out: *mut *mut rmq_strategy,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            let inner = ref_arg(inner)?.inner.clone();
            let resolver = CResolver::new(ref_arg(resolver)?).ok_or(rmq_result::NullParameter)?;
            general(MachineRoomNearby::new(inner, Arc::new(resolver)))
        })
    }
}

/// Which part of a client id ranks a member of BALANCED_STICKY (`rmq_strategy_balanced_sticky_new`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum rmq_stable_key {
    /// The whole id.
    ClientId = 0,
    /// The part before the first `@` (the client's IP address): a restarted consumer, whose
    /// default id `ip@pid#nanotime` changes, gets its queues back.
    Host = 1,
    /// The part before the first occurrence of a separator (the whole id when absent).
    Before = 2,
}

/// BALANCED_STICKY (experimental, not a Java strategy; see the README): balanced per topic and,
/// when one call is given several topics' queues, across topics; few queues move when a member
/// joins or leaves; the answer does not depend on the order of the lists.
///
/// `stable_key` is an `rmq_stable_key` value (others give `RMQ_RESULT_OUT_OF_RANGE`);
/// `separator` is required for `RMQ_STABLE_KEY_BEFORE` and must be NULL otherwise
/// (`RMQ_RESULT_INVALID_PARAMETERS`). `weight_keys[i]` (a stable key) weighs `weights[i]`, for
/// `i < weights_len`; members not listed weigh 1, a weight of 0 or a key listed twice is
/// `RMQ_RESULT_INVALID_PARAMETERS`. Both arrays may be NULL when `weights_len` is 0. Nothing is
/// kept of the arguments after the call.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_balanced_sticky_new(
    stable_key: u32,
    separator: *const c_char,
    weight_keys: *const *const c_char,
    weights: *const u32,
    weights_len: usize,
    out: *mut *mut rmq_strategy,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            let key = stable_key_name(stable_key)?;
            let keys = owned_ids(weight_keys, weights_len)?;
            let values = slice_arg(weights, weights_len)?;
            let pairs = keys.into_iter().zip(values.iter().map(|w| i64::from(*w)));
            general(BalancedSticky::from_parts(key, opt_str_arg(separator)?, pairs)?)
        })
    }
}

/// The overload BALANCED_STICKY_V2 takes by default (`rmq_strategy_balanced_sticky_v2_new`).
pub const RMQ_BALANCED_STICKY_V2_DEFAULT_OVERLOAD_PERCENT: i64 = 20;
/// The underload BALANCED_STICKY_V2 takes by default.
pub const RMQ_BALANCED_STICKY_V2_DEFAULT_UNDERLOAD_PERCENT: i64 = 40;

/// BALANCED_STICKY_V2 (experimental, not a Java strategy; see docs/balanced-sticky.md): balanced
/// within stated caps rather than exactly, so that few queues move when members come and go. No
/// member holds more than `ceil(Q * (100 + overload_percent) / (100 * C))` queues in total nor
/// fewer than `floor(Q * (100 - underload_percent) / (100 * C))` (none idle while another holds
/// two), nor more than `ceil(Q_t / C) + 1` of one topic; the answer does not depend on the order
/// of the lists.
///
/// `stable_key` and `separator` as for `rmq_strategy_balanced_sticky_new`. `overload_percent`
/// must be 0 to 400 and `underload_percent` 0 to 100 (`RMQ_RESULT_INVALID_PARAMETERS`); pass
/// `RMQ_BALANCED_STICKY_V2_DEFAULT_OVERLOAD_PERCENT` and `..._UNDERLOAD_PERCENT` for the defaults.
/// Nothing is kept of the arguments after the call.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_balanced_sticky_v2_new(
    stable_key: u32,
    separator: *const c_char,
    overload_percent: i64,
    underload_percent: i64,
    out: *mut *mut rmq_strategy,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            let key = stable_key_name(stable_key)?;
            general(BalancedStickyV2::from_parts(key, opt_str_arg(separator)?, overload_percent, underload_percent)?)
        })
    }
}

/// The C enum's values, as the names the core decides on.
fn stable_key_name(stable_key: u32) -> Result<&'static str, rmq_result> {
    Ok(match stable_key {
        k if k == rmq_stable_key::ClientId as u32 => "client_id",
        k if k == rmq_stable_key::Host as u32 => "host",
        k if k == rmq_stable_key::Before as u32 => "before",
        _ => return Err(rmq_result::OutOfRange),
    })
}

/// MACHINE_ROOM (`AllocateMessageQueueByMachineRoom` after `setConsumeridcs`). `idcs` NULL (with
/// `idcs_len` 0) leaves the idc set unset, as Java's default null; a non-NULL empty array sets an
/// empty set.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_by_machine_room_new(idcs: *const *const c_char, idcs_len: usize, out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            let set = if idcs.is_null() && idcs_len == 0 { None } else { Some(owned_ids(idcs, idcs_len)?.into_iter().collect::<HashSet<_>>()) };
            general(ByMachineRoom::new(set))
        })
    }
}

/// CONFIG (`AllocateMessageQueueByConfig` after `setMessageQueueList`): every member gets this
/// list, whatever it asks. `queues` is copied; NULL leaves the list unset (Java's null: allocation
/// then returns a NULL list).
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_by_config_new(queues: *const rmq_queue_list, out: *mut *mut rmq_strategy) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe {
        make(out, || {
            // SAFETY: NULL or a live list.
            let list = queues.as_ref().map(|l| l.queues().to_vec());
            general(ByConfig::new(list))
        })
    }
}

/// Frees a strategy. NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_free(strategy: *mut rmq_strategy) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(strategy) }
}

/// Java's `getName()` (`"AVG"`, `"CONSISTENT_HASH"`, ...), borrowed from the strategy; NULL for
/// a NULL strategy.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_name(strategy: *const rmq_strategy) -> *const c_char {
    // SAFETY: NULL or a live strategy.
    boundary_or(std::ptr::null(), || unsafe { strategy.as_ref() }.map_or(std::ptr::null(), |s| s.name.as_ptr()))
}

/// Where the client ids of a call come from.
#[derive(Clone, Copy)]
enum Ids {
    Array(*const *const c_char, usize),
    List(*const rmq_id_list),
}

/// Runs the strategy for `current_id` and hands the answer to `done`, mapping CONFIG's null.
unsafe fn run(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: Ids,
    done: impl FnOnce(Result<Allocation, Error>, &rmq_queue_list) -> Result<(), rmq_result>,
) -> Result<(), rmq_result> {
    // SAFETY: the caller's arguments.
    unsafe {
        let strategy = ref_arg(strategy)?;
        let group = str_arg(group)?;
        let current = str_arg(current_id)?;
        let queues = ref_arg(queues)?;
        match ids {
            Ids::List(list) => {
                let ids = &ref_arg(list)?.ids;
                if let Some(kind) = strategy.by_counts {
                    let index = ids.iter().position(|id| id == current);
                    return done(allocation_by_counts(kind, current.is_empty(), queues.len(), ids.len(), index), queues);
                }
                done(strategy.inner.allocate_positions(group, current, queues.queues(), ids), queues)
            }
            Ids::Array(ids, ids_len) => {
                if let Some(kind) = strategy.by_counts {
                    let index = index_of(current, ids, ids_len)?;
                    return done(allocation_by_counts(kind, current.is_empty(), queues.len(), ids_len, index), queues);
                }
                with_ids(ids, ids_len, |ids| done(strategy.inner.allocate_positions(group, current, queues.queues(), ids), queues))
            }
        }
    }
}

/// The first position of `current` in `ids[0..len]`, checking every entry as `with_ids` would
/// (NULL, UTF-8) without copying any.
unsafe fn index_of(current: &str, ids: *const *const c_char, len: usize) -> Result<Option<usize>, rmq_result> {
    // SAFETY: the caller's array of `len` strings.
    let raw = unsafe { slice_arg(ids, len) }?;
    let mut found = None;
    for (i, &p) in raw.iter().enumerate() {
        // SAFETY: each entry is a string argument.
        let id = unsafe { str_arg(p) }?;
        if found.is_none() && id == current {
            found = Some(i);
        }
    }
    Ok(found)
}

/// The share of `current_id`, as Java's `allocate(group, currentCID, mqAll, cidAll)` computes it
/// from `queues` and `ids[0..ids_len]` as given (sort both first, as every client must:
/// `rmq_queue_list_sort`, `rmq_sort_client_ids`). Java's null lists are empty lists here.
///
/// `*out` receives a new list (free with `rmq_queue_list_free`), in Java's order; or NULL for
/// Java's null result (CONFIG with no list), still with `RMQ_RESULT_OK`. Errors are Java's
/// exceptions as codes (`RMQ_RESULT_EMPTY_CURRENT_ID`, ...).
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_allocate(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: *const *const c_char,
    ids_len: usize,
    out: *mut *mut rmq_queue_list,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { allocate_list(strategy, group, current_id, queues, Ids::Array(ids, ids_len), out) }
}

/// `rmq_strategy_allocate` with the ids from an `rmq_id_list`.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_allocate_ids(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: *const rmq_id_list,
    out: *mut *mut rmq_queue_list,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { allocate_list(strategy, group, current_id, queues, Ids::List(ids), out) }
}

unsafe fn allocate_list(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: Ids,
    out: *mut *mut rmq_queue_list,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            run(strategy, group, current_id, queues, ids, |result, queues| {
                let list = match result {
                    Ok(allocation) => Box::into_raw(Box::new(share_list(&allocation, queues))),
                    Err(Error::NoConfiguredQueues) => std::ptr::null_mut(),
                    Err(e) => return Err(e.into()),
                };
                write_out(out, list);
                Ok(())
            })
        }
    })
}

/// An allocation as a new list: positions share the input's names, CONFIG's list is new.
pub(crate) fn share_list(allocation: &Allocation, queues: &rmq_queue_list) -> rmq_queue_list {
    match allocation.positions() {
        Some(positions) => queues.select(positions),
        None => rmq_queue_list::from_queues(allocation.to_queues(queues.queues())),
    }
}

/// The same share as `rmq_strategy_allocate`, as positions into `queues`, written into the
/// caller's array `positions[0..positions_cap]` with the count in `*out_len`: no allocation, for
/// hot paths. A share never has more entries than `queues`, so `positions_cap =
/// rmq_queue_list_len(queues)` always suffices; a smaller array that is too small gives
/// `RMQ_RESULT_BUFFER_TOO_SMALL` with the count needed in `*out_len`. CONFIG answers with its own
/// list, not positions: `RMQ_RESULT_NOT_POSITIONAL` (or `RMQ_RESULT_NO_CONFIGURED_QUEUES`).
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_allocate_positions(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: *const *const c_char,
    ids_len: usize,
    positions: *mut usize,
    positions_cap: usize,
    out_len: *mut usize,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { allocate_into(strategy, group, current_id, queues, Ids::Array(ids, ids_len), positions, positions_cap, out_len) }
}

/// `rmq_strategy_allocate_positions` with the ids from an `rmq_id_list`: the fastest call, for a
/// client that allocates every topic of a round with one id list.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_allocate_positions_ids(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: *const rmq_id_list,
    positions: *mut usize,
    positions_cap: usize,
    out_len: *mut usize,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { allocate_into(strategy, group, current_id, queues, Ids::List(ids), positions, positions_cap, out_len) }
}

/// Writes an allocation's positions (through `map`) into the caller's array, or the count needed
/// with `RMQ_RESULT_BUFFER_TOO_SMALL`; CONFIG's own list is `RMQ_RESULT_NOT_POSITIONAL`.
///
/// Safety: `positions` holds `positions_cap` entries (or is NULL with 0), `out_len` is a checked,
/// writable out-parameter.
pub(crate) unsafe fn write_positions(
    allocation: &Allocation,
    map: impl Fn(usize) -> usize,
    positions: *mut usize,
    positions_cap: usize,
    out_len: *mut usize,
) -> Result<(), rmq_result> {
    let iter = allocation.positions().ok_or(rmq_result::NotPositional)?;
    let needed = allocation.len();
    if needed > positions_cap {
        // SAFETY: the caller's out-parameter.
        unsafe { write_out(out_len, needed) };
        return Err(rmq_result::BufferTooSmall);
    }
    for (i, p) in iter.enumerate() {
        // SAFETY: `positions` holds `positions_cap >= needed` entries.
        unsafe { positions.add(i).write(map(p)) };
    }
    // SAFETY: the caller's out-parameter.
    unsafe { write_out(out_len, needed) };
    Ok(())
}

#[allow(clippy::too_many_arguments)]
unsafe fn allocate_into(
    strategy: *const rmq_strategy,
    group: *const c_char,
    current_id: *const c_char,
    queues: *const rmq_queue_list,
    ids: Ids,
    positions: *mut usize,
    positions_cap: usize,
    out_len: *mut usize,
) -> rmq_result {
    boundary(|| {
        let out_len = out_arg(out_len)?;
        if positions.is_null() && positions_cap > 0 {
            return Err(rmq_result::LengthMismatch);
        }
        // SAFETY: the caller's arguments; `positions` holds `positions_cap` entries.
        unsafe { run(strategy, group, current_id, queues, ids, |result, _| write_positions(&result?, |p| p, positions, positions_cap, out_len)) }
    })
}
