//! The panic boundary around every entry point. A panic must never unwind into C (that is
//! undefined behaviour): it becomes `RMQ_RESULT_PANIC`, or a documented neutral value for the few
//! functions that return something else.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::last_error;
use crate::result::rmq_result;

/// Runs `body`, turning its error into a code and a panic into [`rmq_result::Panic`]; a failure
/// leaves its detail for `rmq_last_error_message`.
///
/// `AssertUnwindSafe` is sound here because after a panic the caller only gets a code: no state
/// the panicking code was changing is observed through this call. Handles whose state a panic
/// could leave half-changed sit behind a mutex, which records the panic (poisoning) and is
/// recovered explicitly.
pub(crate) fn boundary(body: impl FnOnce() -> Result<(), rmq_result>) -> rmq_result {
    let outer = last_error::begin();
    let (code, panic) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => (rmq_result::Ok, None),
        Ok(Err(code)) => (code, None),
        Err(payload) => (rmq_result::Panic, Some(panic_text(payload.as_ref()))),
    };
    last_error::finish(code, panic, outer);
    code
}

/// The boundary of the functions that read the last error: they must not replace it (a retry
/// with a larger buffer would otherwise read "buffer too small").
pub(crate) fn boundary_quiet(body: impl FnOnce() -> Result<(), rmq_result>) -> rmq_result {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => rmq_result::Ok,
        Ok(Err(code)) => code,
        Err(_) => rmq_result::Panic,
    }
}

/// A panic's message, when it has one (`panic!` with a literal or a format).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// For functions that return a value rather than a code: `fallback` after a panic.
pub(crate) fn boundary_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// The body of every `_free`: NULL does nothing; anything else is a handle this library boxed,
/// given back once.
pub(crate) unsafe fn free_boxed<T>(handle: *mut T) {
    boundary_or((), || {
        if !handle.is_null() {
            // SAFETY: the caller's promise above.
            drop(unsafe { Box::from_raw(handle) });
        }
    })
}

/// The body of every length query: `len` of the handle, 0 for NULL (or after a panic).
pub(crate) unsafe fn len_or_zero<T>(handle: *const T, len: impl FnOnce(&T) -> usize) -> usize {
    // SAFETY: NULL or a live handle, as the header requires.
    boundary_or(0, || unsafe { handle.as_ref() }.map_or(0, len))
}
