//! Module functions: Java-order sorting, `verify` and `movement` over ownership mappings, and the
//! diagnosis of a live group's snapshot.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rocketmq_rebalance::diagnose::{diagnose_with, override_from_value, parse_diagnosis, parse_queue_text, parse_snapshot, Named, Snapshot, StrategyOverrides};
use rocketmq_rebalance::Error;
use rocketmq_rebalance::{java_order, movement as core_movement, verify as core_verify, MessageQueue, Ownership};

use crate::queue::{extract_ids, extract_queues, to_py_queue, PyMessageQueue};
use crate::strategy::PyStrategy;

/// A new list sorted the way `RebalanceImpl` sorts: `MessageQueue`s by Java's `compareTo`, `str`s
/// by Java's UTF-16 order (Python's own order is code points, which differs for some characters).
#[pyfunction]
fn sort_like_java<'py>(py: Python<'py>, items: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
    if items.iter().all(|i| i.is_instance_of::<PyString>()) {
        let mut ids: Vec<(String, Bound<'py, PyAny>)> = items.into_iter().map(|i| Ok((i.extract::<String>()?, i))).collect::<PyResult<_>>()?;
        ids.sort_by(|a, b| java_order::compare_strings(&a.0, &b.0));
        return PyList::new(py, ids.into_iter().map(|(_, o)| o));
    }
    if items.iter().all(|i| i.is_instance_of::<PyMessageQueue>()) {
        let mut queues: Vec<(MessageQueue, Bound<'py, PyAny>)> =
            items.into_iter().map(|i| (i.cast::<PyMessageQueue>().expect("checked").get().0.clone(), i)).collect();
        queues.sort_by(|a, b| a.0.cmp(&b.0));
        return PyList::new(py, queues.into_iter().map(|(_, o)| o));
    }
    Err(PyTypeError::new_err("sort_like_java sorts a sequence of MessageQueue, or a sequence of str"))
}

fn ownership(mapping: &Bound<'_, PyAny>, what: &str) -> PyResult<Ownership> {
    let mapping = mapping.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("{what} must be a dict of client id -> queues")))?;
    let mut out = Ownership::default();
    for (id, queues) in mapping.iter() {
        let id: String = id.extract().map_err(|_| PyTypeError::new_err(format!("{what} keys must be client ids (str)")))?;
        let queues = extract_queues(Some(&queues), what)?;
        out.add(&id, &queues.values);
    }
    Ok(out)
}

fn queue_list<'py>(py: Python<'py>, queues: &[MessageQueue]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, queues.iter().map(|q| to_py_queue(py, q)).collect::<PyResult<Vec<_>>>()?)
}

/// Checks that `ownership` ({client id: queues}) gives every queue of `mq_all` exactly one owner.
#[pyfunction]
fn verify<'py>(py: Python<'py>, mq_all: Bound<'py, PyAny>, cid_all: Bound<'py, PyAny>, ownership: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let queues = extract_queues(Some(&mq_all), "mq_all")?;
    let ids = extract_ids(Some(&cid_all), "cid_all")?;
    let owned = self::ownership(&ownership, "ownership")?;
    let report = py.detach(|| core_verify(&queues.values, &ids, &owned));
    let out = PyDict::new(py);
    out.set_item("orphaned", queue_list(py, &report.orphaned)?)?;
    let double = PyList::empty(py);
    for (q, owners) in &report.double_owned {
        double.append((to_py_queue(py, q)?, owners.clone()))?;
    }
    out.set_item("double_owned", double)?;
    out.set_item("duplicate_client_ids", report.duplicate_client_ids.clone())?;
    out.set_item("unknown", queue_list(py, &report.unknown)?)?;
    Ok(out)
}

/// Counts the queues whose owners differ between two ownerships ({client id: queues}).
#[pyfunction]
fn movement<'py>(py: Python<'py>, before: Bound<'py, PyAny>, after: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let (before, after) = (ownership(&before, "before")?, ownership(&after, "after")?);
    let m = py.detach(|| core_movement(&before, &after));
    let out = PyDict::new(py);
    out.set_item("moved", m.moved)?;
    out.set_item("common", m.common)?;
    out.set_item("appeared", m.appeared)?;
    out.set_item("disappeared", m.disappeared)?;
    Ok(out)
}

/// Judges a snapshot of a live group: the JSON `rmq-rebalance inspect --save` writes, as its text
/// or as the dict it parses to. `strategies` maps client ids or languages (`GO`, `JAVA`) to the
/// strategy those clients run, for those whose properties do not say: a `Strategy`, or a dict
/// `{"strategy": NAME, "params": {...}}` (which also names Go's own `go_consistent_hash` and
/// `go_by_machine_room`), read by core as the CLI and C read theirs. Clients left out are
/// fingerprinted. Returns the diagnosis in core's one schema, as JSON text (docs/inspect.md).
#[pyfunction]
#[pyo3(signature = (snapshot, strategies=None))]
fn diagnose<'py>(py: Python<'py>, snapshot: Bound<'py, PyAny>, strategies: Option<Bound<'py, PyDict>>) -> PyResult<String> {
    let snap: Snapshot = match snapshot.extract::<String>() {
        Ok(text) => parse_snapshot(&text),
        Err(_) => pythonize::depythonize(&snapshot).map_err(|e| Error::InvalidSnapshot(e.to_string())),
    }
    .map_err(|e| crate::errors::to_py(py, &e))?;
    let mut given = StrategyOverrides::new();
    for (key, strategy) in strategies.iter().flat_map(|d| d.iter()) {
        let key: String = key.extract().map_err(|_| PyTypeError::new_err("strategies keys must be client ids or languages (str)"))?;
        let named = if let Ok(s) = strategy.cast::<PyStrategy>() {
            Named::from_strategy(s.get().inner.clone())
        } else if strategy.is_instance_of::<PyDict>() {
            let spec: serde_json::Value = pythonize::depythonize(&strategy).map_err(|e| PyValueError::new_err(format!("strategies[{key:?}]: {e}")))?;
            override_from_value(&key, &spec).map_err(|e| crate::errors::to_py(py, &e))?
        } else {
            return Err(PyTypeError::new_err(format!("strategies[{key:?}] must be a Strategy or a {{\"strategy\": NAME, \"params\": {{...}}}} dict")));
        };
        given.insert(key, named);
    }
    let d = py.detach(|| diagnose_with(&snap, &given));
    serde_json::to_string(&d).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Reads a diagnosis in core's schema strictly (an unknown or missing field, another version, a
/// malformed queue raise `InvalidParametersError`) and returns it as plain Python values, queues
/// still `Topic@broker:id` text.
#[pyfunction]
fn read_diagnosis<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let d = parse_diagnosis(text).map_err(|e| crate::errors::to_py(py, &e))?;
    pythonize::pythonize(py, &d).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `Topic@broker:id`, as the diagnosis writes a queue, read into a `MessageQueue`.
#[pyfunction]
fn parse_queue<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyMessageQueue>> {
    let q = parse_queue_text(text).map_err(|e| crate::errors::to_py(py, &e))?;
    to_py_queue(py, &q)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(diagnose, m)?)?;
    m.add_function(wrap_pyfunction!(read_diagnosis, m)?)?;
    m.add_function(wrap_pyfunction!(parse_queue, m)?)?;
    m.add_function(wrap_pyfunction!(sort_like_java, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(movement, m)?)?;
    Ok(())
}
