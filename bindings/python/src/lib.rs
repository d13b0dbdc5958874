//! `rocketmq_rebalance._native`: the PyO3 module behind the pure-Python package
//! `rocketmq_rebalance`. Conversions live here; every decision is the core crate's.

mod engine;
mod errors;
mod group;
mod queue;
mod strategy;

use pyo3::prelude::*;

/// The serialised names of every report reason, from the core: the Python `Literal` types are
/// tested against these, so a new variant in Rust fails the Python tests until it is typed.
#[pyfunction]
fn report_names() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    use rocketmq_rebalance::engine::{DeferReason, ReleaseReason, RoundSkipped, SkipReason, Warning};
    [
        ("release_reason", ReleaseReason::NAMES),
        ("defer_reason", DeferReason::NAMES),
        ("skip_reason", SkipReason::NAMES),
        ("warning", Warning::NAMES),
        ("round_skipped", RoundSkipped::NAMES),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_vec()))
    .collect()
}

/// The engine's timing keys with their defaults in milliseconds, from the core (`Timing`), so
/// the Python facade lists exactly the keys the core accepts.
#[pyfunction]
fn timing_defaults() -> Vec<(String, u64)> {
    rocketmq_rebalance::engine::Timing::default().entries()
}

/// The core's example reports (every field filled) as the native calls return them: a round
/// report, a lock report and a queue state. The tests read them through the typed facade, which
/// refuses a field it does not read.
#[pyfunction]
fn report_examples(py: Python<'_>) -> PyResult<(Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>)> {
    use rocketmq_rebalance::engine::{LockReport, QueueState, RoundReport};
    let convert = |e: pythonize::PythonizeError| pyo3::exceptions::PyRuntimeError::new_err(e.to_string());
    Ok((
        pythonize::pythonize(py, &RoundReport::example()).map_err(convert)?,
        pythonize::pythonize(py, &LockReport::example()).map_err(convert)?,
        pythonize::pythonize(py, &QueueState::example()).map_err(convert)?,
    ))
}

/// Core's example diagnosis (every field filled) in its JSON schema, for the test that holds the
/// facade's `Diagnosis` reader to it.
#[pyfunction]
fn diagnosis_example() -> String {
    serde_json::to_string(&rocketmq_rebalance::diagnose::Diagnosis::example()).expect("a diagnosis always serialises")
}

/// Test only (feature `panic-probe`, never in a shipped wheel): panics with `message`, so a test
/// can show a panic arriving in Python as an exception (PyO3's `PanicException`), not an abort.
#[cfg(feature = "panic-probe")]
#[pyfunction]
fn panic_probe(message: &str) {
    panic!("{message}")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<queue::PyMessageQueue>()?;
    strategy::register(m)?;
    group::register(m)?;
    m.add_class::<engine::PyRebalancer>()?;
    m.add_function(wrap_pyfunction!(report_names, m)?)?;
    m.add_function(wrap_pyfunction!(timing_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(errors::error_classes, m)?)?;
    m.add_function(wrap_pyfunction!(report_examples, m)?)?;
    m.add_function(wrap_pyfunction!(diagnosis_example, m)?)?;
    #[cfg(feature = "panic-probe")]
    m.add_function(wrap_pyfunction!(panic_probe, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
