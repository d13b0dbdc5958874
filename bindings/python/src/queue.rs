//! `MessageQueue`: immutable, hashable, ordered exactly like Java's `compareTo`.

use pyo3::prelude::*;
use pyo3::types::{PyAny, PyString};
use rocketmq_rebalance::MessageQueue;

#[pyclass(module = "rocketmq_rebalance", name = "MessageQueue", frozen, eq, hash, ord, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd)]
pub struct PyMessageQueue(pub MessageQueue);

#[pymethods]
impl PyMessageQueue {
    #[new]
    fn new(topic: String, broker_name: String, queue_id: i32) -> Self {
        PyMessageQueue(MessageQueue::new(topic, broker_name, queue_id))
    }

    #[getter]
    fn topic(&self) -> &str {
        &self.0.topic
    }

    #[getter]
    fn broker_name(&self) -> &str {
        &self.0.broker_name
    }

    #[getter]
    fn queue_id(&self) -> i32 {
        self.0.queue_id
    }

    /// Java's `toString()`, the consistent-hash key.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let topic = PyString::new(py, &self.0.topic).repr()?;
        let broker = PyString::new(py, &self.0.broker_name).repr()?;
        Ok(format!("MessageQueue(topic={topic}, broker_name={broker}, queue_id={})", self.0.queue_id))
    }

    /// Pickling and `copy` rebuild the queue from its three fields.
    fn __getnewargs__(&self) -> (&str, &str, i32) {
        (&self.0.topic, &self.0.broker_name, self.0.queue_id)
    }
}

/// A Python sequence of `MessageQueue`s, kept with the original objects so that results can hand
/// back the caller's own instances. `None` is Java's null: an empty list to the core.
pub struct Queues<'py> {
    pub values: Vec<MessageQueue>,
    pub objects: Vec<Bound<'py, PyAny>>,
}

pub fn extract_queues<'py>(seq: Option<&Bound<'py, PyAny>>, what: &str) -> PyResult<Queues<'py>> {
    let mut out = Queues { values: Vec::new(), objects: Vec::new() };
    let Some(seq) = seq else { return Ok(out) };
    if seq.is_instance_of::<PyString>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!("{what} must be a sequence of MessageQueue, not str")));
    }
    for item in seq.try_iter()? {
        let item = item?;
        let mq = item
            .cast::<PyMessageQueue>()
            .map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("{what} must contain MessageQueue objects, got {}", type_name(&item))))?
            .get()
            .0
            .clone();
        out.values.push(mq);
        out.objects.push(item);
    }
    Ok(out)
}

/// A Python iterable of str; `None` is Java's null (empty). A lone str is refused: iterating it
/// would give characters, which is never what the caller meant.
pub fn extract_ids(seq: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Vec<String>> {
    let Some(seq) = seq else { return Ok(Vec::new()) };
    if seq.is_instance_of::<PyString>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!("{what} must be a sequence of str, not a str")));
    }
    seq.try_iter()?
        .map(|item| {
            let item = item?;
            item.extract::<String>().map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("{what} must contain str, got {}", type_name(&item))))
        })
        .collect()
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

pub fn to_py_queue<'py>(py: Python<'py>, mq: &MessageQueue) -> PyResult<Bound<'py, PyMessageQueue>> {
    Bound::new(py, PyMessageQueue(mq.clone()))
}
