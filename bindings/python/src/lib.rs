//! `rocketmq_rebalance._native`: the PyO3 module behind the pure-Python package
//! `rocketmq_rebalance`. Conversions live here; every decision is the core crate's.

mod engine;
mod errors;
mod group;
mod queue;
mod strategy;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<queue::PyMessageQueue>()?;
    strategy::register(m)?;
    group::register(m)?;
    m.add_class::<engine::PyRebalancer>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
