//! The strategies: one base class (`Strategy`) holding a core strategy, one subclass per Java
//! strategy and one for the experimental BALANCED_STICKY, a Python machine-room resolver, and
//! `strategy_from_config`.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::PyClassInitializer;
use rocketmq_rebalance::strategy::{
    positions_by_counts, Allocation, Averagely, AveragelyByCircle, BalancedSticky, BalancedStickyV2, ByConfig, ByMachineRoom, ConsistentHash, CountStrategy,
    MachineRoomNearby, MachineRoomResolver, SeparatorResolver,
};
use rocketmq_rebalance::{Error, MessageQueue, Strategy, StrategyConfig};

use crate::errors::{to_py, IntoPy};
use crate::queue::{extract_ids, extract_queues, to_py_queue, type_name, PyMessageQueue, Queues};

/// Inputs above this size are allocated with the GIL released (below it, releasing costs more
/// than it frees).
const RELEASE_GIL_ABOVE: usize = 256;

#[pyclass(module = "rocketmq_rebalance", name = "Strategy", subclass, frozen)]
pub struct PyStrategy {
    pub inner: Arc<dyn Strategy>,
    /// AVG and AVG_BY_CIRCLE need only the sizes of the lists and the current id's index: no
    /// queue is converted (a Python caller's lists stay Python lists).
    pub by_counts: Option<CountStrategy>,
}

thread_local! {
    /// An exception raised by a Python resolver during the current thread's allocation: re-raised
    /// as is (so KeyboardInterrupt stays KeyboardInterrupt) instead of a CallbackError.
    static RESOLVER_ERROR: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

impl PyStrategy {
    /// Runs the core with the GIL released for large inputs, then maps a resolver's own exception
    /// back. `Ok(None)` is Java's null result (CONFIG without a list).
    pub fn run<T: Send>(&self, py: Python<'_>, size: usize, f: impl FnOnce(&dyn Strategy) -> Result<T, Error> + Send) -> PyResult<Option<T>> {
        let inner = Arc::clone(&self.inner);
        let result = if size > RELEASE_GIL_ABOVE { py.detach(move || f(inner.as_ref())) } else { f(inner.as_ref()) };
        match result {
            Ok(v) => Ok(Some(v)),
            Err(Error::NoConfiguredQueues) => Ok(None),
            Err(e @ Error::Callback(_)) => Err(RESOLVER_ERROR.with(|slot| slot.borrow_mut().take()).unwrap_or_else(|| to_py(py, &e))),
            Err(e) => Err(to_py(py, &e)),
        }
    }
}

/// The caller's own objects for an allocation; fresh `MessageQueue`s for CONFIG's fixed list.
pub fn allocation_to_list<'py>(py: Python<'py>, allocation: &Allocation, queues: &Queues<'py>) -> PyResult<Bound<'py, PyList>> {
    match (allocation.positions(), allocation) {
        (Some(p), _) => PyList::new(py, p.map(|i| queues.objects[i].clone())),
        (None, Allocation::Fixed(q)) => PyList::new(py, q.iter().map(|mq| to_py_queue(py, mq)).collect::<PyResult<Vec<_>>>()?),
        (None, _) => unreachable!("only Fixed has no positions"),
    }
}

/// The AVG / AVG_BY_CIRCLE answer straight from Python lists or tuples (`None` for other
/// iterables, which take the general path). Nothing is converted: the ids are type-checked and
/// searched with `list.index`; of the queues, only those handed back are type-checked.
fn allocate_by_counts<'py>(
    py: Python<'py>,
    kind: CountStrategy,
    current: Option<&str>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let as_seq = |o: Option<&Bound<'py, PyAny>>| -> Option<Option<Bound<'py, pyo3::types::PySequence>>> {
        match o {
            None => Some(None),
            Some(o) if o.is_instance_of::<PyList>() || o.is_instance_of::<pyo3::types::PyTuple>() => {
                o.cast::<pyo3::types::PySequence>().ok().cloned().map(Some)
            }
            Some(_) => None,
        }
    };
    let (Some(queues), Some(ids)) = (as_seq(mq_all), as_seq(cid_all)) else { return Ok(None) };
    let n = queues.as_ref().map_or(Ok(0), |q| q.len())?;
    let m = ids.as_ref().map_or(Ok(0), |i| i.len())?;
    if let Some(list) = &ids {
        for item in list.try_iter()? {
            let item = item?;
            if !item.is_instance_of::<pyo3::types::PyString>() {
                return Err(PyTypeError::new_err(format!("cid_all must contain str, got {}", type_name(&item))));
            }
        }
    }
    let current = current.unwrap_or("");
    // list.index: Java's indexOf (first occurrence, by equality), at C speed.
    let index = match &ids {
        Some(list) if !current.is_empty() => list.index(current).ok(),
        _ => None,
    };
    let positions = positions_by_counts(kind, current.is_empty(), n, m, index).py_err(py)?;
    let queues = queues.expect("positions are empty without queues");
    // These strategies never read a queue: only the ones handed back are type-checked.
    let mut out = Vec::with_capacity(positions.len());
    for i in positions {
        let item = queues.get_item(i)?;
        if !item.is_instance_of::<PyMessageQueue>() {
            return Err(PyTypeError::new_err(format!("mq_all must contain MessageQueue objects, got {}", type_name(&item))));
        }
        out.push(item);
    }
    PyList::new(py, out).map(Some)
}

#[pymethods]
impl PyStrategy {
    /// Java's `getName()`.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().into_owned()
    }

    /// The share of `current_id`, as Java's `allocate` computes it: the caller's own queue
    /// objects, in Java's order. `None` arguments are Java's null. Returns `None` only where
    /// Java returns null (ByConfig without a list).
    #[pyo3(signature = (group, current_id, mq_all, cid_all))]
    fn allocate<'py>(
        &self,
        py: Python<'py>,
        group: Option<String>,
        current_id: Option<String>,
        mq_all: Option<Bound<'py, PyAny>>,
        cid_all: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        if let Some(kind) = self.by_counts {
            if let Some(result) = allocate_by_counts(py, kind, current_id.as_deref(), mq_all.as_ref(), cid_all.as_ref())? {
                return Ok(Some(result));
            }
        }
        let queues = extract_queues(mq_all.as_ref(), "mq_all")?;
        let ids = extract_ids(cid_all.as_ref(), "cid_all")?;
        let (group, current) = (group.unwrap_or_default(), current_id.unwrap_or_default());
        let values = &queues.values;
        let result = self.run(py, values.len() + ids.len(), |s| s.allocate_positions(&group, &current, values, &ids))?;
        result.map(|a| allocation_to_list(py, &a, &queues)).transpose()
    }

    /// Every member's share at once: `{client_id: [queues]}`, members in order of first
    /// appearance, computed in one pass where the strategy allows.
    #[pyo3(signature = (group, mq_all, cid_all))]
    fn allocate_group<'py>(
        &self,
        py: Python<'py>,
        group: Option<String>,
        mq_all: Option<Bound<'py, PyAny>>,
        cid_all: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let queues = extract_queues(mq_all.as_ref(), "mq_all")?;
        let ids = extract_ids(cid_all.as_ref(), "cid_all")?;
        let group = group.unwrap_or_default();
        let values = &queues.values;
        let view = self.run(py, values.len() + ids.len(), |s| s.allocate_group(&group, values, &ids))?;
        let out = PyDict::new(py);
        for member in view.map(|v| v.members).unwrap_or_default() {
            out.set_item(member.client_id, allocation_to_list(py, &member.allocation, &queues)?)?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("<rocketmq_rebalance strategy {}>", self.inner.name())
    }
}

fn base(inner: Arc<dyn Strategy>) -> PyClassInitializer<PyStrategy> {
    PyClassInitializer::from(wrap(inner))
}

/// Wraps a core strategy, noting (as the core says) whether it can be answered from counts alone.
pub fn wrap(inner: Arc<dyn Strategy>) -> PyStrategy {
    let by_counts = inner.count_strategy();
    PyStrategy { inner, by_counts }
}

#[pyclass(module = "rocketmq_rebalance", name = "Averagely", extends = PyStrategy, frozen)]
pub struct PyAveragely;

#[pymethods]
impl PyAveragely {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        base(Arc::new(Averagely)).add_subclass(PyAveragely)
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "AveragelyByCircle", extends = PyStrategy, frozen)]
pub struct PyAveragelyByCircle;

#[pymethods]
impl PyAveragelyByCircle {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        base(Arc::new(AveragelyByCircle)).add_subclass(PyAveragelyByCircle)
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "ConsistentHash", extends = PyStrategy, frozen)]
pub struct PyConsistentHash {
    virtual_node_count: u32,
}

#[pymethods]
impl PyConsistentHash {
    /// `virtual_node_count` is the parameter's one name in this package (`strategy_from_config`
    /// takes it too); `virtual_nodes`, its first name here, still works with a DeprecationWarning.
    #[new]
    #[pyo3(signature = (virtual_node_count = None, *, virtual_nodes = None))]
    fn new(py: Python<'_>, virtual_node_count: Option<i64>, virtual_nodes: Option<i64>) -> PyResult<PyClassInitializer<Self>> {
        let count = match (virtual_node_count, virtual_nodes) {
            (Some(_), Some(_)) => return Err(pyo3::exceptions::PyTypeError::new_err("give virtual_node_count only (virtual_nodes is its old name)")),
            (None, Some(old)) => {
                let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
                PyErr::warn(py, &category, c"ConsistentHash(virtual_nodes=...) is now ConsistentHash(virtual_node_count=...)", 1)?;
                old
            }
            (count, None) => count.unwrap_or(10),
        };
        let s = ConsistentHash::new(count).py_err(py)?;
        let virtual_node_count = s.virtual_nodes();
        Ok(base(Arc::new(s)).add_subclass(PyConsistentHash { virtual_node_count }))
    }

    #[getter]
    fn virtual_node_count(&self) -> u32 {
        self.virtual_node_count
    }

    /// The old name of `virtual_node_count`.
    #[getter]
    fn virtual_nodes(&self) -> u32 {
        self.virtual_node_count
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "ByMachineRoom", extends = PyStrategy, frozen)]
pub struct PyByMachineRoom;

#[pymethods]
impl PyByMachineRoom {
    /// `idcs`: the consumer's idc names (`setConsumeridcs`); `None` is Java's unset set.
    #[new]
    #[pyo3(signature = (idcs = None))]
    fn new(idcs: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
        let idcs = idcs.map(|i| extract_ids(Some(&i), "idcs").map(|v| v.into_iter().collect::<HashSet<_>>())).transpose()?;
        Ok(base(Arc::new(ByMachineRoom::new(idcs))).add_subclass(PyByMachineRoom))
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "ByConfig", extends = PyStrategy, frozen)]
pub struct PyByConfig;

#[pymethods]
impl PyByConfig {
    /// `queues`: the configured list (`setMessageQueueList`); `None` makes `allocate` return None.
    #[new]
    #[pyo3(signature = (queues = None))]
    fn new(queues: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
        let queues = queues.map(|q| extract_queues(Some(&q), "queues").map(|q| q.values)).transpose()?;
        Ok(base(Arc::new(ByConfig::new(queues))).add_subclass(PyByConfig))
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "BalancedSticky", extends = PyStrategy, frozen)]
pub struct PyBalancedSticky;

#[pymethods]
impl PyBalancedSticky {
    /// `stable_key`: "client_id", "host" (the part before `@`) or "before" (the part before
    /// `separator`); `weights`: {stable key: weight >= 1}, members not listed weighing 1;
    /// `total_slack`: how many queues a member's total may stray from its share (0: exact).
    #[new]
    #[pyo3(signature = (stable_key = "client_id", *, separator = None, weights = None, total_slack = 0))]
    fn new(
        py: Python<'_>,
        stable_key: &str,
        separator: Option<String>,
        weights: Option<Bound<'_, PyDict>>,
        total_slack: i64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let mut pairs = Vec::new();
        for (k, w) in weights.iter().flat_map(|d| d.iter()) {
            let k: String = k.extract().map_err(|_| PyTypeError::new_err(format!("weights: keys are stable keys (str), not {}", type_name(&k))))?;
            let w: i64 = w.extract().map_err(|_| PyTypeError::new_err(format!("weights.{k}: an int, not {}", type_name(&w))))?;
            pairs.push((k, w));
        }
        let s = BalancedSticky::from_parts(stable_key, separator.as_deref(), pairs).and_then(|s| s.with_total_slack(total_slack)).py_err(py)?;
        Ok(base(Arc::new(s)).add_subclass(PyBalancedSticky))
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "BalancedStickyV2", extends = PyStrategy, frozen)]
pub struct PyBalancedStickyV2;

#[pymethods]
impl PyBalancedStickyV2 {
    /// `stable_key` and `separator` as for BalancedSticky; `overload_percent` (0-400) and
    /// `underload_percent` (0-100): how far above and below the even share Q/C a member's total
    /// may go.
    #[new]
    #[pyo3(signature = (stable_key = "client_id", *, separator = None, overload_percent = 20, underload_percent = 40))]
    fn new(py: Python<'_>, stable_key: &str, separator: Option<String>, overload_percent: i64, underload_percent: i64) -> PyResult<PyClassInitializer<Self>> {
        let s = BalancedStickyV2::from_parts(stable_key, separator.as_deref(), overload_percent, underload_percent).py_err(py)?;
        Ok(base(Arc::new(s)).add_subclass(PyBalancedStickyV2))
    }
}

/// A resolver written in Python: `broker_room(queue) -> str | None` and
/// `consumer_room(client_id) -> str | None`, as methods of one object or as two callables.
#[derive(Debug)]
struct PyResolver {
    broker_room: Py<PyAny>,
    consumer_room: Py<PyAny>,
}

impl PyResolver {
    fn call(&self, f: &Py<PyAny>, arg: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>) -> Result<Option<String>, Error> {
        Python::attach(|py| {
            let outcome = arg(py).and_then(|a| f.bind(py).call1((a,))).and_then(|room| {
                if room.is_none() {
                    Ok(None)
                } else {
                    room.extract::<String>()
                        .map(Some)
                        .map_err(|_| PyTypeError::new_err(format!("a machine room must be str or None, got {}", type_name(&room))))
                }
            });
            outcome.map_err(|err| {
                let message = err.to_string();
                RESOLVER_ERROR.with(|slot| *slot.borrow_mut() = Some(err));
                Error::Callback(message)
            })
        })
    }
}

impl MachineRoomResolver for PyResolver {
    fn broker_room(&self, queue: &MessageQueue) -> Result<Option<String>, Error> {
        self.call(&self.broker_room, |py| to_py_queue(py, queue).map(Bound::into_any))
    }

    fn consumer_room(&self, client_id: &str) -> Result<Option<String>, Error> {
        self.call(&self.consumer_room, |py| Ok(pyo3::types::PyString::new(py, client_id).into_any()))
    }
}

#[pyclass(module = "rocketmq_rebalance", name = "MachineRoomNearby", extends = PyStrategy, frozen)]
pub struct PyMachineRoomNearby;

#[pymethods]
impl PyMachineRoomNearby {
    /// `inner`: the strategy used within a room. The rooms come from `resolver` (an object with
    /// `broker_room(queue)` and `consumer_room(client_id)` methods, or a `SeparatorResolver`), or
    /// from the two callables `broker_room=` and `consumer_room=`.
    #[new]
    #[pyo3(signature = (inner, resolver = None, *, broker_room = None, consumer_room = None))]
    fn new(
        inner: PyRef<'_, PyStrategy>,
        resolver: Option<Bound<'_, PyAny>>,
        broker_room: Option<Bound<'_, PyAny>>,
        consumer_room: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let resolver: Arc<dyn MachineRoomResolver> = match (resolver, broker_room, consumer_room) {
            (Some(r), None, None) => match r.cast::<PySeparatorResolver>() {
                Ok(sep) => Arc::new(sep.get().0.clone()),
                Err(_) => Arc::new(PyResolver { broker_room: r.getattr("broker_room")?.unbind(), consumer_room: r.getattr("consumer_room")?.unbind() }),
            },
            (None, Some(b), Some(c)) if b.is_callable() && c.is_callable() => Arc::new(PyResolver { broker_room: b.unbind(), consumer_room: c.unbind() }),
            _ => return Err(PyTypeError::new_err("give either a resolver object, or both broker_room= and consumer_room= callables")),
        };
        let strategy = MachineRoomNearby::new(Arc::clone(&inner.inner), resolver);
        Ok(base(Arc::new(strategy)).add_subclass(PyMachineRoomNearby))
    }
}

/// The room is the part of the broker name / client id before the first separator (or all of it).
#[pyclass(module = "rocketmq_rebalance", name = "SeparatorResolver", frozen)]
pub struct PySeparatorResolver(SeparatorResolver);

#[pymethods]
impl PySeparatorResolver {
    #[new]
    #[pyo3(signature = (broker_separator = "-", consumer_separator = "@"))]
    fn new(py: Python<'_>, broker_separator: &str, consumer_separator: &str) -> PyResult<Self> {
        SeparatorResolver::new(broker_separator, consumer_separator).py_err(py).map(PySeparatorResolver)
    }

    fn broker_room(&self, queue: PyRef<'_, PyMessageQueue>) -> Option<String> {
        self.0.broker_room(&queue.0).ok().flatten()
    }

    fn consumer_room(&self, client_id: &str) -> Option<String> {
        self.0.consumer_room(client_id).ok().flatten()
    }
}

/// Builds a strategy from its config name (or Java name) and parameters, the same config text the
/// CLI and the C API take: `strategy_from_config("consistent_hash", virtual_node_count=20)`.
#[pyfunction]
#[pyo3(signature = (name, **params))]
fn strategy_from_config(py: Python<'_>, name: &str, params: Option<Bound<'_, PyDict>>) -> PyResult<PyStrategy> {
    let params: serde_json::Value = match params {
        Some(p) => pythonize::depythonize(p.as_any())
            .map_err(|e| to_py(py, &Error::InvalidParameters { strategy: name.to_owned(), reason: format!("parameters are not JSON-like: {e}") }))?,
        None => serde_json::Value::Null,
    };
    let inner = StrategyConfig::from_name(name, &params).and_then(|c| c.build()).py_err(py)?;
    Ok(wrap(inner))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStrategy>()?;
    m.add_class::<PyAveragely>()?;
    m.add_class::<PyAveragelyByCircle>()?;
    m.add_class::<PyConsistentHash>()?;
    m.add_class::<PyMachineRoomNearby>()?;
    m.add_class::<PyByMachineRoom>()?;
    m.add_class::<PyByConfig>()?;
    m.add_class::<PyBalancedSticky>()?;
    m.add_class::<PyBalancedStickyV2>()?;
    m.add_class::<PySeparatorResolver>()?;
    m.add_function(wrap_pyfunction!(strategy_from_config, m)?)?;
    Ok(())
}
