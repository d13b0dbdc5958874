//! `rmq_diagnose`: a live group's snapshot judged without the cluster, JSON in and JSON out, so a
//! C or C++ operator tool gets `rmq-rebalance inspect`'s findings from a saved snapshot.

use std::ffi::c_char;

use rocketmq_rebalance::diagnose::{diagnose_with, overrides_from_json, parse_snapshot, StrategyOverrides};

use crate::args::{opt_str_arg, str_arg, write_text};
use crate::panic::boundary;
use crate::result::rmq_result;

/// Judges `snapshot_json` (the JSON `rmq-rebalance inspect --save` writes; docs/inspect.md) and
/// writes the diagnosis as JSON, NUL-terminated, into `buf[0..len]` and its length into `*out_n`:
/// the one diagnosis schema `rmq-rebalance inspect --json` prints (docs/inspect.md, "Output":
/// `schema_version`, `group`, `healthy`, `findings`, `queues` written `Topic@broker:id`,
/// `strategies`). `RMQ_RESULT_BUFFER_TOO_SMALL` writes the length needed (NUL included) into
/// `*out_n`: call again with a buffer that large.
///
/// `strategies_json` (NULL: none) names the strategy of clients whose properties do not: a JSON
/// object from a client id or a language (`"GO"`, `"JAVA"`) to `{"strategy": NAME, "params": {...}}`,
/// NAME as `rmq_strategy_from_config` takes it, or a Go client's own `go_consistent_hash`
/// (`virtual_node_count`) or `go_by_machine_room` (`consume_idcs`). Clients it does not cover are
/// fingerprinted. A malformed snapshot or strategy map is
/// `RMQ_RESULT_INVALID_PARAMETERS` (the message says where); NULL `snapshot_json` is
/// `RMQ_RESULT_NULL_PARAMETER`. Pure and thread-safe: it touches no shared state.
#[no_mangle]
pub unsafe extern "C" fn rmq_diagnose(
    snapshot_json: *const c_char,
    strategies_json: *const c_char,
    buf: *mut c_char,
    len: usize,
    out_n: *mut usize,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's strings.
        let (text, strategies) = unsafe { (str_arg(snapshot_json)?, opt_str_arg(strategies_json)?) };
        let snapshot = parse_snapshot(text)?;
        let given = match strategies {
            None => StrategyOverrides::new(),
            Some(s) => overrides_from_json(s)?,
        };
        let d = diagnose_with(&snapshot, &given);
        let out = serde_json::to_string(&d).map_err(|_| rmq_result::Panic)?;
        // SAFETY: the caller's buffer of `len` bytes.
        unsafe { write_text(&out, buf, len, out_n) }
    })
}
