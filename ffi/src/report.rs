//! What an engine call did, for C: a summary struct, the allocation as a list, everything as JSON.

use std::ffi::c_char;

use rocketmq_rebalance::engine::RoundReport;

use crate::args::{out_arg, ref_arg, write_out, write_text};
use crate::panic::{boundary, free_boxed, len_or_zero};
use crate::queue_list::rmq_queue_list;
use crate::result::rmq_result;

/// The report of one round for one topic (or of a drop, a clean-up, a shutdown). Immutable once
/// returned. Freed by `rmq_round_report_free`.
pub struct rmq_round_report {
    pub(crate) report: RoundReport,
}

/// Several reports: one per subscribed topic, then the clean-up of unsubscribed topics if any.
/// Freed by `rmq_round_report_list_free`, which frees the reports in it too.
pub struct rmq_round_report_list {
    pub(crate) reports: Vec<rmq_round_report>,
}

/// The counts of a round report; the details are in `rmq_round_report_to_json`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct rmq_round_summary {
    /// A queue was removed from or added to this client's table.
    pub changed: bool,
    /// The allocation equals the queues held (Java's `balanced`).
    pub balanced: bool,
    /// The round changed nothing because the route or the id list was unknown or the strategy
    /// failed (the reason is in the JSON).
    pub skipped_round: bool,
    /// Queues in this client's allocation.
    pub allocation: usize,
    /// Queues released.
    pub released: usize,
    /// Releases left for a later round (the queue was still being consumed, or a step failed).
    pub deferred: usize,
    /// Queues taken.
    pub acquired: usize,
    /// Queues of the allocation not taken this round (lock refused, offset unavailable).
    pub skipped: usize,
    /// Problems with the inputs or failed callbacks that change nothing.
    pub warnings: usize,
}

impl rmq_round_report {
    pub(crate) fn into_raw(report: RoundReport) -> *mut rmq_round_report {
        Box::into_raw(Box::new(rmq_round_report { report }))
    }
}

/// Frees a report. NULL does nothing. Do not free a report borrowed from a list.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_free(report: *mut rmq_round_report) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(report) }
}

/// The counts of `report`.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_summary(report: *const rmq_round_report, out: *mut rmq_round_summary) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handle.
        let r = unsafe { &ref_arg(report)?.report };
        let summary = rmq_round_summary {
            changed: r.changed,
            balanced: r.balanced,
            skipped_round: r.skipped_round.is_some(),
            allocation: r.allocation.len(),
            released: r.released.len(),
            deferred: r.deferred.len(),
            acquired: r.acquired.len(),
            skipped: r.skipped.len(),
            warnings: r.warnings.len(),
        };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, summary) };
        Ok(())
    })
}

/// This client's allocation for the round, as a new list (free with `rmq_queue_list_free`).
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_allocation(report: *const rmq_round_report, out: *mut *mut rmq_queue_list) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handle.
        let r = unsafe { &ref_arg(report)?.report };
        let list = rmq_queue_list::from_queues(r.allocation.iter().cloned());
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(list))) };
        Ok(())
    })
}

/// The whole report as JSON (the same fields as the Rust `RoundReport` and the Python report:
/// `topic`, `skipped_round`, `changed`, `balanced`, `allocation`, `released`, `deferred`,
/// `acquired`, `skipped`, `warnings`; a queue is `["topic", "broker", id]`; every key and reason
/// is documented in docs/engine-json.md), NUL-terminated, into
/// `buf[0..len]`, its length into `*out_n`. `RMQ_RESULT_BUFFER_TOO_SMALL` writes the length
/// needed (NUL included) into `*out_n`.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_to_json(report: *const rmq_round_report, buf: *mut c_char, len: usize, out_n: *mut usize) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's handle.
        let r = unsafe { &ref_arg(report)?.report };
        let text = serde_json::to_string(r).map_err(|_| rmq_result::Panic)?;
        // SAFETY: the caller's buffer of `len` bytes.
        unsafe { write_text(&text, buf, len, out_n) }
    })
}

/// Frees a list of reports and the reports in it. NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_list_free(list: *mut rmq_round_report_list) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(list) }
}

/// The number of reports in `list`; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_list_len(list: *const rmq_round_report_list) -> usize {
    // SAFETY: forwarded: NULL or a live handle.
    unsafe { len_or_zero(list, |l| l.reports.len()) }
}

/// Report `index` of `list`, borrowed: valid until the list is freed; do not free it.
#[no_mangle]
pub unsafe extern "C" fn rmq_round_report_list_get(list: *const rmq_round_report_list, index: usize, out: *mut *const rmq_round_report) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handle.
        let list = unsafe { ref_arg(list)? };
        let report = list.reports.get(index).ok_or(rmq_result::OutOfRange)?;
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, report as *const rmq_round_report) };
        Ok(())
    })
}
