//! The whole-group view: every member's share in one call, whether the shares partition the
//! queues, and how many queues move between two views.

use std::ffi::{c_char, CString};

use rocketmq_rebalance::{movement, verify, GroupAllocation, Ownership};

use crate::args::{out_arg, owned_ids, ref_arg, str_arg, write_out};
use crate::panic::{boundary, free_boxed, len_or_zero};
use crate::queue_list::rmq_queue_list;
use crate::result::rmq_result;
use crate::strategy::{rmq_strategy, share_list};

/// Every member's share, members in order of first appearance in the id list. Immutable: safe
/// to read from several threads. Freed by `rmq_group_allocation_free`.
pub struct rmq_group_allocation {
    queues: rmq_queue_list,
    ids: Vec<String>,
    view: GroupAllocation,
    /// NUL-terminated member ids for `rmq_group_allocation_member`.
    member_ids: Vec<CString>,
}

impl rmq_group_allocation {
    fn ownership(&self) -> Ownership {
        self.view.ownership(self.queues.queues())
    }
}

/// Whether a view is a partition: every queue owned exactly once, by a listed id.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct rmq_verification {
    /// Queues nobody owns.
    pub orphaned: usize,
    /// Queues owned by more than one client.
    pub double_owned: usize,
    /// Client ids listed more than once.
    pub duplicate_client_ids: usize,
    /// Owned queues that are not in the queue list.
    pub unknown: usize,
    /// No orphaned, double-owned or unknown queue and no duplicate id.
    pub is_partition: bool,
}

/// How many queues change owner between two views.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct rmq_movement {
    /// Queues in both views whose owner set differs.
    pub moved: usize,
    /// Queues in both views.
    pub common: usize,
    /// Queues only in the later view.
    pub appeared: usize,
    /// Queues only in the earlier view.
    pub disappeared: usize,
}

/// Every member's share at once, as if each distinct id in `ids[0..ids_len]` called
/// `rmq_strategy_allocate` with the same inputs (one pass where the strategy allows it). The
/// inputs are copied. `*out` receives the view (free with `rmq_group_allocation_free`). Fails
/// with the first member's error, or `RMQ_RESULT_NO_CONFIGURED_QUEUES` for CONFIG without a list.
#[no_mangle]
pub unsafe extern "C" fn rmq_strategy_allocate_group(
    strategy: *const rmq_strategy,
    group: *const c_char,
    queues: *const rmq_queue_list,
    ids: *const *const c_char,
    ids_len: usize,
    out: *mut *mut rmq_group_allocation,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        let (strategy, group, queues, ids) = unsafe { (ref_arg(strategy)?, str_arg(group)?, ref_arg(queues)?, owned_ids(ids, ids_len)?) };
        let view = strategy.inner.allocate_group(group, queues.queues(), &ids)?;
        let member_ids = view.members.iter().map(|m| CString::new(m.client_id.as_bytes()).unwrap_or_default()).collect();
        let queues = queues.share();
        let handle = rmq_group_allocation { queues, ids, view, member_ids };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(handle))) };
        Ok(())
    })
}

/// Frees a group view. NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_group_allocation_free(view: *mut rmq_group_allocation) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(view) }
}

/// The number of distinct members; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn rmq_group_allocation_member_count(view: *const rmq_group_allocation) -> usize {
    // SAFETY: forwarded: NULL or a live handle.
    unsafe { len_or_zero(view, |v| v.view.members.len()) }
}

/// Member `index`: its id (borrowed from the view, may be NULL when not wanted) and its share as
/// a new list in `*share` (free with `rmq_queue_list_free`; may be NULL when not wanted).
/// `RMQ_RESULT_OUT_OF_RANGE` past the last member.
#[no_mangle]
pub unsafe extern "C" fn rmq_group_allocation_member(
    view: *const rmq_group_allocation,
    index: usize,
    client_id: *mut *const c_char,
    share: *mut *mut rmq_queue_list,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's handle.
        let view = unsafe { ref_arg(view)? };
        let member = view.view.members.get(index).ok_or(rmq_result::OutOfRange)?;
        // SAFETY: each out-parameter is NULL (skipped) or writable.
        unsafe {
            if !client_id.is_null() {
                write_out(client_id, view.member_ids[index].as_ptr());
            }
            if !share.is_null() {
                write_out(share, Box::into_raw(Box::new(share_list(&member.allocation, &view.queues))));
            }
        }
        Ok(())
    })
}

/// Checks that the view partitions its queues among its ids.
#[no_mangle]
pub unsafe extern "C" fn rmq_group_allocation_verify(view: *const rmq_group_allocation, out: *mut rmq_verification) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handle.
        let view = unsafe { ref_arg(view)? };
        let v = verify(view.queues.queues(), &view.ids, &view.ownership());
        let result = rmq_verification {
            orphaned: v.orphaned.len(),
            double_owned: v.double_owned.len(),
            duplicate_client_ids: v.duplicate_client_ids.len(),
            unknown: v.unknown.len(),
            is_partition: v.is_partition(),
        };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, result) };
        Ok(())
    })
}

/// What changes owner from `before` to `after` (say, before and after a member joins).
#[no_mangle]
pub unsafe extern "C" fn rmq_group_allocation_movement(
    before: *const rmq_group_allocation,
    after: *const rmq_group_allocation,
    out: *mut rmq_movement,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handles.
        let (before, after) = unsafe { (ref_arg(before)?, ref_arg(after)?) };
        let m = movement(&before.ownership(), &after.ownership());
        let result = rmq_movement { moved: m.moved, common: m.common, appeared: m.appeared, disappeared: m.disappeared };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, result) };
        Ok(())
    })
}
