//! Test only (feature `panic-probe`): an entry point that panics, so the C tests can watch a
//! panic reach the boundary. Not in the header and not in a shipped build.

use std::ffi::c_char;

use crate::args::str_arg;
use crate::panic::boundary;
use crate::result::rmq_result;

/// Panics with `message` inside the panic boundary: returns `RMQ_RESULT_PANIC`, and
/// `rmq_last_error_message` then carries `message`.
#[no_mangle]
pub unsafe extern "C" fn rmq_test_panic(message: *const c_char) -> rmq_result {
    boundary(|| {
        // SAFETY: a NUL-terminated string, as for every string argument.
        let message = unsafe { str_arg(message) }?;
        panic!("{message}")
    })
}
