//! The text of a result code and of the last failed call, for C callers: messages and the Java
//! exception they stand for. (Apart from `result.rs` and `last_error.rs`, which `args` and
//! `panic` build on, so the dependencies run one way.)

use std::ffi::{c_char, CStr};

use rocketmq_rebalance::JavaException;

use crate::args::write_text;
use crate::last_error;
use crate::panic::{boundary, boundary_or, boundary_quiet};
use crate::result::rmq_result;

/// A Java exception's simple name as a static C string (`""` for none): the core names it.
fn c_name(class: Option<JavaException>) -> &'static CStr {
    class.map_or(c"", JavaException::c_name)
}

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
/// (`"IllegalArgumentException"`, `"NullPointerException"`, `"IllegalStateException"`,
/// `"RuntimeException"`), `""` for `RMQ_RESULT_OK` and NULL for a number that is no code.
/// Static: never freed.
#[no_mangle]
pub extern "C" fn rmq_result_java_exception(code: u32) -> *const c_char {
    boundary_or(std::ptr::null(), || match rmq_result::from_raw(code) {
        Some(code) => c_name(code.java_class()).as_ptr(),
        None => std::ptr::null(),
    })
}

/// Writes the full message of the last call on this thread that failed (NUL-terminated) into
/// `buf` of `len` bytes and its length without the NUL into `*out_n`: the core's own text, with
/// what `rmq_result_message` cannot say (which parameter is invalid and why, which queue has no
/// machine room, the message a callback gave, a panic's message). `""` when no call on this
/// thread has failed. Like `errno`, successful calls leave it unchanged, and so do the
/// `rmq_last_error_*` functions themselves (a retry with a larger buffer reads the same text).
///
/// Returns `RMQ_RESULT_BUFFER_TOO_SMALL` (with the length needed, NUL included, in `*out_n`) when
/// `len` is too small.
#[no_mangle]
pub unsafe extern "C" fn rmq_last_error_message(buf: *mut c_char, len: usize, out_n: *mut usize) -> rmq_result {
    boundary_quiet(|| {
        let text = last_error::last().map(|d| d.message).unwrap_or_default();
        // SAFETY: the caller promises `buf` holds `len` bytes and `out_n` is writable.
        unsafe { write_text(&text, buf, len, out_n) }
    })
}

/// The code of the last call on this thread that failed, `RMQ_RESULT_OK` when none has.
#[no_mangle]
pub extern "C" fn rmq_last_error_code() -> rmq_result {
    boundary_or(rmq_result::Ok, || last_error::last().map_or(rmq_result::Ok, |d| d.code))
}

/// The simple name of the Java exception for the last call on this thread that failed, as the
/// core names it for that error (`""` when no call has failed). Static: never freed.
#[no_mangle]
pub extern "C" fn rmq_last_error_java_exception() -> *const c_char {
    boundary_or(c"".as_ptr(), || c_name(last_error::last().and_then(|d| d.java_exception)).as_ptr())
}
