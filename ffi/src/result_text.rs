//! The text of a result code, for C callers: its message and the Java exception it stands for.
//! (Apart from `result.rs`, which `args` and `panic` build on, so the dependencies run one way.)

use std::ffi::c_char;

use crate::args::write_text;
use crate::panic::{boundary, boundary_or};
use crate::result::rmq_result;

/// Writes the English message for `code` (NUL-terminated) into `buf` of `len` bytes and its length
/// without the NUL into `*out_n`.
///
/// Returns `RMQ_RESULT_OUT_OF_RANGE` for a number that is no code, `RMQ_RESULT_BUFFER_TOO_SMALL`
/// (with the length needed, NUL included, in `*out_n`) when `len` is too small.
#[no_mangle]
pub unsafe extern "C" fn rmq_result_message(code: u32, buf: *mut c_char, len: usize, out_n: *mut usize) -> rmq_result {
    boundary(|| {
        let code = rmq_result::from_raw(code).ok_or(rmq_result::OutOfRange)?;
        // SAFETY: the caller promises `buf` holds `len` bytes and `out_n` is writable.
        unsafe { write_text(code.message(), buf, len, out_n) }
    })
}

/// The simple name of the exception the Java client throws for the same input
/// (`"IllegalArgumentException"`, `"NullPointerException"`, `"RuntimeException"`), `""` for
/// `RMQ_RESULT_OK` and NULL for a number that is no code. Static: never freed.
#[no_mangle]
pub extern "C" fn rmq_result_java_exception(code: u32) -> *const c_char {
    boundary_or(std::ptr::null(), || match rmq_result::from_raw(code) {
        Some(code) => code.java_exception().as_ptr(),
        None => std::ptr::null(),
    })
}
