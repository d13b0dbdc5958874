//! Reading C arguments into Rust values, each check giving its own code. Every function here is
//! `unsafe` for the same reason: it trusts that a non-NULL pointer points to what the header says.

use std::cell::RefCell;
use std::ffi::{c_char, CStr};

use crate::result::rmq_result;

/// Lists longer than this are refused with `RMQ_RESULT_TOO_LARGE` before anything is read: no
/// RocketMQ topic or group comes near it, and a garbage length must not turn into a huge read.
pub(crate) const MAX_LIST_LEN: usize = 1 << 28;

/// A required NUL-terminated UTF-8 string.
pub(crate) unsafe fn str_arg<'a>(p: *const c_char) -> Result<&'a str, rmq_result> {
    if p.is_null() {
        return Err(rmq_result::NullParameter);
    }
    // SAFETY: non-NULL, and the caller promises a NUL-terminated string that outlives the call.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    // Ids and names are nearly always ASCII, which `is_ascii` checks a word at a time; the full
    // UTF-8 validation goes byte by byte on short strings and dominated small allocations.
    if bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|_| rmq_result::InvalidUtf8)
}

/// An optional string: NULL is `None`.
pub(crate) unsafe fn opt_str_arg<'a>(p: *const c_char) -> Result<Option<&'a str>, rmq_result> {
    if p.is_null() {
        Ok(None)
    } else {
        // SAFETY: as for `str_arg`.
        unsafe { str_arg(p) }.map(Some)
    }
}

/// A required handle.
pub(crate) unsafe fn ref_arg<'a, T>(p: *const T) -> Result<&'a T, rmq_result> {
    // SAFETY: the caller promises a non-NULL pointer is a live handle of this type.
    unsafe { p.as_ref() }.ok_or(rmq_result::NullParameter)
}

/// A required mutable handle.
pub(crate) unsafe fn mut_arg<'a, T>(p: *mut T) -> Result<&'a mut T, rmq_result> {
    // SAFETY: the caller promises a non-NULL pointer is a live handle used by one thread at a time.
    unsafe { p.as_mut() }.ok_or(rmq_result::NullParameter)
}

/// An array and its length. A NULL array is fine only when empty.
pub(crate) unsafe fn slice_arg<'a, T>(p: *const T, len: usize) -> Result<&'a [T], rmq_result> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(rmq_result::LengthMismatch);
    }
    if len > MAX_LIST_LEN {
        return Err(rmq_result::TooLarge);
    }
    // SAFETY: non-NULL, and the caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Checks an out-parameter before any work, so a NULL one costs nothing and leaks nothing.
pub(crate) fn out_arg<T>(p: *mut T) -> Result<*mut T, rmq_result> {
    if p.is_null() {
        Err(rmq_result::NullParameter)
    } else {
        Ok(p)
    }
}

/// Writes a value through an out-parameter checked by [`out_arg`].
pub(crate) unsafe fn write_out<T>(p: *mut T, value: T) {
    // SAFETY: checked non-NULL by `out_arg`; the caller promises it is writable. `write` because
    // the target may be uninitialised.
    unsafe { p.write(value) }
}

/// Copies `text` and a NUL into `buf` (`len` bytes), its length into `*out_n`; or, when it does
/// not fit, `RMQ_RESULT_BUFFER_TOO_SMALL` with the length needed (NUL included) in `*out_n`.
pub(crate) unsafe fn write_text(text: &str, buf: *mut c_char, len: usize, out_n: *mut usize) -> Result<(), rmq_result> {
    let out_n = out_arg(out_n)?;
    if buf.is_null() && len > 0 {
        return Err(rmq_result::LengthMismatch);
    }
    let needed = text.len() + 1;
    if len < needed {
        // SAFETY: checked above.
        unsafe { write_out(out_n, needed) };
        return Err(rmq_result::BufferTooSmall);
    }
    // SAFETY: `buf` holds at least `needed` bytes (checked), and a Rust string cannot overlap it.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
        write_out(out_n, text.len());
    }
    Ok(())
}

/// How many reusable id strings a thread keeps between calls.
const SCRATCH_KEEP: usize = 4096;

thread_local! {
    /// Reused client-id strings: converting `const char *const *` to the `&[String]` the core
    /// takes would otherwise allocate every id on every call, which dominates small allocations.
    static ID_SCRATCH: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with the client ids `ids[0..len]` as Rust strings. An entry that is NULL is
/// `RMQ_RESULT_NULL_PARAMETER`; one that is not UTF-8 is `RMQ_RESULT_INVALID_UTF8`.
pub(crate) unsafe fn with_ids<R>(ids: *const *const c_char, len: usize, f: impl FnOnce(&[String]) -> Result<R, rmq_result>) -> Result<R, rmq_result> {
    // SAFETY: forwarded from the caller.
    let raw = unsafe { slice_arg(ids, len) }?;
    // Taken out of the cell rather than borrowed: a callback may re-enter the library on this
    // thread (a resolver calling an allocation) and then gets a fresh vector.
    let mut scratch = ID_SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let filled = fill_ids(&mut scratch, raw);
    let result = filled.and_then(|()| f(&scratch[..raw.len()]));
    // Keep enough for ordinary groups, not the peak of the largest call ever made.
    scratch.truncate(SCRATCH_KEEP);
    ID_SCRATCH.with(|s| *s.borrow_mut() = scratch);
    result
}

fn fill_ids(scratch: &mut Vec<String>, raw: &[*const c_char]) -> Result<(), rmq_result> {
    if scratch.len() < raw.len() {
        scratch.resize(raw.len(), String::new());
    }
    for (slot, &p) in scratch.iter_mut().zip(raw) {
        // SAFETY: each entry is a string argument of the caller's.
        let id = unsafe { str_arg(p) }?;
        slot.clear();
        slot.push_str(id);
    }
    Ok(())
}

/// Owned copies of `ids[0..len]`, for values that outlive the call.
pub(crate) unsafe fn owned_ids(ids: *const *const c_char, len: usize) -> Result<Vec<String>, rmq_result> {
    // SAFETY: forwarded from the caller.
    unsafe { with_ids(ids, len, |ids| Ok(ids.to_vec())) }
}
