//! The detail of the last failed call on each thread, as the core words it.
//!
//! A result code says what kind of failure happened; the core's error also says which parameter,
//! which queue, which key. The code conversion (`From<&Error> for rmq_result`, defined here) notes
//! that text while the call runs, and the panic boundary keeps it when the call returns the same code,
//! so C callers read the same message Rust, Python and Java users see
//! (`rmq_last_error_message`). Like `errno`, it is per thread and a later successful call leaves
//! it alone.

use std::cell::RefCell;

use rocketmq_rebalance::{Error, JavaException};

use crate::result::rmq_result;

/// What a failed call left for `rmq_last_error_*`.
#[derive(Clone, Debug)]
pub(crate) struct Detail {
    pub(crate) code: rmq_result,
    pub(crate) message: String,
    /// The Java exception, as the core names it (none for success).
    pub(crate) java_exception: Option<JavaException>,
}

thread_local! {
    /// Noted by the error conversion during the call that is running on this thread.
    static PENDING: RefCell<Option<Detail>> = const { RefCell::new(None) };
    /// Kept from the last call on this thread that failed.
    static LAST: RefCell<Option<Detail>> = const { RefCell::new(None) };
}

/// Notes the text of `error`, which the running call is about to return as `code`.
fn note(error: &Error, code: rmq_result) {
    let detail = Detail { code, message: error.to_string(), java_exception: Some(error.java_class()) };
    PENDING.with(|p| *p.borrow_mut() = Some(detail));
}

/// The conversion every path from a core error to C takes: the code, with the error's full text
/// noted for `rmq_last_error_message`, so no path loses the detail.
impl From<&Error> for rmq_result {
    fn from(e: &Error) -> Self {
        let code = rmq_result::code_of(e);
        note(e, code);
        code
    }
}

impl From<Error> for rmq_result {
    fn from(e: Error) -> Self {
        rmq_result::from(&e)
    }
}

/// Starts a call: what an outer call noted is set aside (a host callback may call in again) and
/// returned, to be given back by [`finish`].
pub(crate) fn begin() -> Option<Detail> {
    PENDING.with(|p| p.borrow_mut().take())
}

/// Ends a call that returned `code`: a failure keeps the detail noted for that code, or the
/// code's own text (failures only C can cause: NULL, invalid UTF-8, a small buffer), or `panic`.
pub(crate) fn finish(code: rmq_result, panic: Option<String>, outer: Option<Detail>) {
    let noted = PENDING.with(|p| std::mem::replace(&mut *p.borrow_mut(), outer));
    if code == rmq_result::Ok {
        return;
    }
    let detail = match (noted, panic) {
        (_, Some(text)) => Detail { code, message: format!("{}: {text}", code.message()), java_exception: code.java_class() },
        (Some(detail), None) if detail.code == code => detail,
        _ => Detail { code, message: code.message().to_owned(), java_exception: code.java_class() },
    };
    LAST.with(|l| *l.borrow_mut() = Some(detail));
}

/// The last failure on this thread, if any.
pub(crate) fn last() -> Option<Detail> {
    LAST.with(|l| l.borrow().clone())
}
