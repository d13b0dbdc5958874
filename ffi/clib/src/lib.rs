//! The C library: every `rmq_*` entry point of the `rocketmq-rebalance-ffi` crate (ffi/src), linked
//! into librocketmq_rebalance.so and librocketmq_rebalance.a. A cdylib or staticlib exports the
//! `#[no_mangle]` functions of the crates it links, so this crate only names the one that holds
//! them; build.rs gives the shared library its version script and soname.

pub use rocketmq_rebalance_ffi::*;
