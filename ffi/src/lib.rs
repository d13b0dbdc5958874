//! The C ABI of rocketmq-rebalance.
//!
//! Conventions (the header repeats them where they apply):
//! - Every symbol starts with `rmq_`; types are `rmq_noun`, functions `rmq_noun_verb`.
//! - Handles are opaque, made by a `_new` (or a function that hands one back) and released by the
//!   matching `_free`; `_free(NULL)` does nothing.
//! - Fallible functions return an [`rmq_result`]; outputs go through out-parameters that are
//!   written only when the result is `RMQ_RESULT_OK` (the one exception, `RMQ_RESULT_BUFFER_TOO_SMALL`,
//!   writes the length needed and nothing else).
//! - Strings are NUL-terminated UTF-8. A returned `const char *` is borrowed from the handle it
//!   came from and lives as long as that handle (or until the handle is changed).
//! - Every entry point runs behind a panic boundary: a bug in the library is `RMQ_RESULT_PANIC`,
//!   never an unwind into C.
//! - Java's null lists are empty lists here; Java's null result (CONFIG with no list) is a NULL
//!   output list.
//!
//! Safety, for every `unsafe extern "C"` function: pointers are NULL or point to what the
//! header says (a live handle of that type, a NUL-terminated string, an array of the stated
//! length, a writable out-parameter), and handles are used as their thread-safety notes allow.
#![allow(non_camel_case_types)]
// The safety contract is the one above and the header's, stated once rather than per function.
#![allow(clippy::missing_safety_doc)]
#![deny(unsafe_op_in_unsafe_fn)]

mod args;
mod diagnose;
mod engine;
mod group;
mod host;
mod id_list;
mod last_error;
mod packed;
mod panic;
#[cfg(feature = "panic-probe")]
mod panic_probe;
mod queue_list;
mod report;
mod resolver;
mod result;
mod result_text;
mod strategy;
mod version;

pub use engine::*;
pub use group::*;
pub use host::*;
pub use id_list::*;
pub use packed::*;
#[cfg(feature = "panic-probe")]
pub use panic_probe::*;
pub use queue_list::*;
pub use report::*;
pub use resolver::*;
pub use result::*;
pub use result_text::*;
pub use strategy::*;
pub use version::*;
