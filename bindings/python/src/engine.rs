//! The rebalance engine with a host written in Python.
//!
//! The session (mutex, consume view, re-entry refusal) and the callback bookkeeping are the
//! core's (`engine::Session`, `engine::CallbackLog`); this module only says what a Python
//! failure is. A host method that raises an `Exception` is that step's failure, exactly like a
//! failing C callback; one that returns nothing has its failure reported as `callback_failed` on
//! the report of the round that called it. A `BaseException` that is not an `Exception`
//! (KeyboardInterrupt, SystemExit) stops the call instead: every later callback of the call fails
//! without calling Python, and the exception is raised when the engine returns, the table left in
//! its defined state.
//!
//! Threads: rounds are serialised by the session's mutex, waited for with the interpreter
//! detached. The queries a consume thread makes (`is_consumable`, `record_pull`, `generation`) go
//! through the engine's `ConsumeView` and never wait for a running round. A call of the same
//! rebalancer from inside one of its own host callbacks, on the same thread, raises
//! `ReentrantError` at once (it would wait for itself).

use std::collections::BTreeMap;

use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyDict, PyList};
use rocketmq_rebalance::engine::{CallbackFailure, CallbackLog, Host, HostError, OffsetRead, ReadFrom, RebalanceConfig, Rebalancer, Session, TopicView};
use rocketmq_rebalance::{Error, MessageQueue};
use serde::Serialize;

use crate::errors::IntoPy;
use crate::queue::{extract_ids, extract_queues, to_py_queue, type_name, PyMessageQueue};
use crate::strategy::PyStrategy;

/// A Python host for one engine call. Failures are kept by the core's [`CallbackLog`]; the
/// exception that stopped the call is kept here, to be raised once the engine returns.
struct PyHost<'py> {
    host: Bound<'py, PyAny>,
    log: CallbackLog,
    /// The `BaseException` that stopped the call.
    fatal: Option<PyErr>,
}

impl<'py> PyHost<'py> {
    fn new(host: Bound<'py, PyAny>) -> Self {
        PyHost { host, log: CallbackLog::default(), fatal: None }
    }

    fn py(&self) -> Python<'py> {
        self.host.py()
    }

    fn queues(&self, queues: &[MessageQueue]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(self.py(), queues.iter().map(|q| to_py_queue(self.py(), q)).collect::<PyResult<Vec<_>>>()?)
    }

    /// Calls `host.<method>(*args)`: an `Exception` is the step's failure, any other
    /// `BaseException` stops the call.
    fn call(&mut self, method: &str, args: impl FnOnce(Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>>) -> Result<Bound<'py, PyAny>, HostError> {
        let (host, fatal) = (&self.host, &mut self.fatal);
        self.log.call(method, || {
            let py = host.py();
            args(py).and_then(|a| host.call_method1(method, a)).map_err(|err| {
                let failure = HostError::new(err.to_string());
                if err.is_instance_of::<PyException>(py) {
                    CallbackFailure::Step(failure)
                } else {
                    *fatal = Some(err);
                    CallbackFailure::Stop(failure)
                }
            })
        })
    }

    fn call_void(&mut self, method: &str, args: impl FnOnce(Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>>) {
        if let Err(e) = self.call(method, args) {
            self.log.record(e);
        }
    }

    /// Whether the host implements an optional method.
    fn has(&self, method: &str) -> bool {
        self.host.hasattr(method).unwrap_or(false)
    }

    /// The engine's answer, or the exception that stopped the call.
    fn finish<T>(self, result: PyResult<T>) -> PyResult<T> {
        match self.fatal {
            Some(fatal) => Err(fatal),
            None => result,
        }
    }
}

fn tuple<'py>(py: Python<'py>, items: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    pyo3::types::PyTuple::new(py, items)
}

macro_rules! args {
    ($py:expr; $($x:expr),*) => { tuple($py, vec![$($x.into_pyobject($py)?.into_any()),*]) };
}

impl Host for PyHost<'_> {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        let list = self.queues(queues).map_err(|e| HostError::new(e.to_string()))?;
        let locked = self.call("lock", |py| args!(py; broker, list))?;
        extract_queues(Some(&locked), "lock() result").map(|q| q.values).map_err(|e| HostError::new(format!("lock: {e}")))
    }

    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        let list = self.queues(queues).map_err(|e| HostError::new(e.to_string()))?;
        self.call("unlock", |py| args!(py; broker, list)).map(drop)
    }

    fn read_offset(&mut self, queue: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError> {
        let from = match from {
            ReadFrom::Store => "store",
            ReadFrom::MemoryThenStore => "memory_then_store",
        };
        let q = queue.clone();
        let offset = self.call("read_offset", |py| args!(py; PyMessageQueue(q), from))?;
        if offset.is_none() {
            return Ok(OffsetRead::NotFound);
        }
        offset.extract::<i64>().map(OffsetRead::Found).map_err(|_| HostError::new(format!("read_offset must return int or None, got {}", type_name(&offset))))
    }

    fn persist_offset(&mut self, queue: &MessageQueue) -> Result<(), HostError> {
        let q = queue.clone();
        self.call("persist_offset", |py| args!(py; PyMessageQueue(q))).map(drop)
    }

    fn remove_offset(&mut self, queue: &MessageQueue) {
        let q = queue.clone();
        self.call_void("remove_offset", |py| args!(py; PyMessageQueue(q)));
    }

    fn max_offset(&mut self, queue: &MessageQueue) -> Result<i64, HostError> {
        let q = queue.clone();
        let v = self.call("max_offset", |py| args!(py; PyMessageQueue(q)))?;
        v.extract::<i64>().map_err(|_| HostError::new(format!("max_offset must return int, got {}", type_name(&v))))
    }

    fn search_offset(&mut self, queue: &MessageQueue, timestamp_ms: i64) -> Result<i64, HostError> {
        let q = queue.clone();
        let v = self.call("search_offset", |py| args!(py; PyMessageQueue(q), timestamp_ms))?;
        v.extract::<i64>().map_err(|_| HostError::new(format!("search_offset must return int, got {}", type_name(&v))))
    }

    fn try_consume_lock(&mut self, queue: &MessageQueue, generation: u64, wait_ms: u64) -> bool {
        let q = queue.clone();
        // A host that cannot answer is treated as busy: the release waits for a later round.
        match self.call("try_consume_lock", |py| args!(py; PyMessageQueue(q), generation, wait_ms)) {
            Ok(v) => v.is_truthy().unwrap_or(false),
            Err(e) => {
                self.log.record(e);
                false
            }
        }
    }

    fn release_consume_lock(&mut self, queue: &MessageQueue, generation: u64) {
        let q = queue.clone();
        self.call_void("release_consume_lock", |py| args!(py; PyMessageQueue(q), generation));
    }

    fn dispatch_pull(&mut self, queue: &MessageQueue, offset: i64, delay_ms: u64, generation: u64) {
        let q = queue.clone();
        self.call_void("dispatch_pull", |py| args!(py; PyMessageQueue(q), offset, delay_ms, generation));
    }

    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]) {
        let (Ok(all), Ok(divided)) = (self.queues(all), self.queues(divided)) else {
            return;
        };
        self.call_void("queue_set_changed", |py| args!(py; topic, all, divided));
    }

    fn schedule_rebalance(&mut self, delay_ms: u64) {
        self.call_void("schedule_rebalance", |py| args!(py; delay_ms));
    }

    fn stop_pull(&mut self, queue: &MessageQueue, generation: u64) {
        if self.has("stop_pull") {
            let q = queue.clone();
            self.call_void("stop_pull", |py| args!(py; PyMessageQueue(q), generation));
        }
    }

    fn commit_offset(&mut self, queue: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        if !self.has("commit_offset") {
            return None;
        }
        let q = queue.clone();
        Some(self.call("commit_offset", |py| args!(py; PyMessageQueue(q), offset)).map(drop))
    }

    fn take_callback_failures(&mut self) -> Vec<HostError> {
        self.log.take_failures()
    }
}

/// The native rebalancer; `rocketmq_rebalance.Rebalancer` wraps it with typed reports.
/// Calls from several threads are serialised by a mutex taken with the interpreter detached: a
/// round holds it while calling Python host methods, so a thread waiting for it must not hold
/// the GIL (that would deadlock).
#[pyclass(module = "rocketmq_rebalance._native", name = "Rebalancer", frozen)]
pub struct PyRebalancer {
    session: Session,
}

impl PyRebalancer {
    /// The engine, for `f`; `ReentrantError` from inside one of its own callbacks.
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&mut Rebalancer) -> Result<T, Error>) -> PyResult<T> {
        let mut entered = self.session.enter_with(|m| m.lock_py_attached(py)).py_err(py)?;
        f(&mut entered).py_err(py)
    }

    /// Runs `f` with a host, then raises the exception that stopped the call, or returns the
    /// report as plain Python data (dicts, lists, `MessageQueue`s as 3-tuples).
    fn with_host<'py, R: Serialize>(
        &self,
        host: Bound<'py, PyAny>,
        f: impl FnOnce(&mut Rebalancer, &mut PyHost<'py>) -> Result<R, Error>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = host.py();
        let mut host = PyHost::new(host);
        let report = self.with(py, |r| f(r, &mut host));
        let report = host.finish(report)?;
        pythonize::pythonize(py, &report).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

#[pymethods]
impl PyRebalancer {
    /// `config`: a dict in the engine's configuration form (group, client_id, model, consume_type,
    /// orderly, consume_from, consume_timestamp_ms, timing, semantics).
    /// The configuration is read by the core's one parser (unknown keys and wrong types are
    /// `InvalidParametersError` naming the key).
    #[new]
    fn new(py: Python<'_>, config: Bound<'_, PyDict>, strategy: PyRef<'_, PyStrategy>) -> PyResult<Self> {
        let value: serde_json::Value =
            pythonize::depythonize(config.as_any()).map_err(|e| crate::errors::to_py(py, &Error::InvalidConfiguration(e.to_string())))?;
        let config = RebalanceConfig::from_json(&value.to_string()).py_err(py)?;
        let inner = Rebalancer::new(config, std::sync::Arc::clone(&strategy.inner)).py_err(py)?;
        Ok(PyRebalancer { session: Session::new(inner) })
    }

    fn subscribe(&self, py: Python<'_>, topic: String) -> PyResult<()> {
        self.with(py, |r| r.subscribe(topic))
    }

    fn unsubscribe(&self, py: Python<'_>, topic: &str) -> PyResult<()> {
        self.with(py, |r| r.unsubscribe(topic))
    }

    fn subscriptions(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with(py, |r| Ok(r.subscriptions().map(str::to_owned).collect()))
    }

    fn is_shut_down(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |r| Ok(r.is_shut_down()))
    }

    #[pyo3(signature = (topic, queues, client_ids, now_ms, host))]
    fn rebalance_topic<'py>(
        &self,
        topic: &str,
        queues: Option<Bound<'py, PyAny>>,
        client_ids: Option<Bound<'py, PyAny>>,
        now_ms: u64,
        host: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let queues = queues.map(|q| extract_queues(Some(&q), "queues").map(|q| q.values)).transpose()?;
        let ids = client_ids.map(|c| extract_ids(Some(&c), "client_ids")).transpose()?;
        self.with_host(host, |r, h| r.rebalance_topic(topic, queues.as_deref(), ids.as_deref(), now_ms, h))
    }

    /// `views`: {topic: (queues or None, client ids or None)}.
    fn rebalance_all<'py>(&self, views: Bound<'py, PyDict>, now_ms: u64, host: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let mut map = BTreeMap::new();
        for (topic, view) in views.iter() {
            let topic: String = topic.extract()?;
            let (queues, ids): (Option<Bound<'py, PyAny>>, Option<Bound<'py, PyAny>>) =
                view.extract().map_err(|_| PyTypeError::new_err("each view must be a (queues, client_ids) pair"))?;
            let queues = queues.map(|q| extract_queues(Some(&q), "queues").map(|q| q.values)).transpose()?;
            let client_ids = ids.map(|c| extract_ids(Some(&c), "client_ids")).transpose()?;
            map.insert(topic, TopicView { queues, client_ids });
        }
        self.with_host(host, |r, h| r.rebalance_all(&map, now_ms, h))
    }

    fn lock_all<'py>(&self, now_ms: u64, host: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.with_host(host, |r, h| r.lock_all(now_ms, h))
    }

    fn lock_queue<'py>(&self, queue: PyRef<'py, PyMessageQueue>, now_ms: u64, host: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let q = queue.0.clone();
        self.with_host(host, |r, h| r.lock_queue(&q, now_ms, h))
    }

    fn locks_lost<'py>(&self, broker: &str, now_ms: u64, host: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.with_host(host, |r, h| r.locks_lost(broker, now_ms, h))
    }

    /// (offset, from_consume_from); a failing callback raises `CallbackError`.
    fn start_offset<'py>(&self, queue: PyRef<'py, PyMessageQueue>, host: Bound<'py, PyAny>) -> PyResult<(i64, bool)> {
        let q = queue.0.clone();
        let py = host.py();
        let mut host = PyHost::new(host);
        let start = self.with(py, |r| r.start_offset(&q, &mut host));
        let start = host.finish(start)?;
        Ok((start.offset, start.from_consume_from))
    }

    fn drop_queue<'py>(&self, queue: PyRef<'py, PyMessageQueue>, now_ms: u64, host: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let q = queue.0.clone();
        self.with_host(host, |r, h| r.drop_queue(&q, now_ms, h))
    }

    #[pyo3(signature = (host, now_ms=None))]
    fn shutdown<'py>(&self, host: Bound<'py, PyAny>, now_ms: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
        self.with_host(host, |r, h| {
            Ok(match now_ms {
                Some(now) => r.shutdown_at(now, h),
                None => r.shutdown(h),
            })
        })
    }

    /// Never waits for a running round; callable from a host callback and any thread.
    fn is_consumable(&self, queue: PyRef<'_, PyMessageQueue>, generation: u64, now_ms: u64) -> bool {
        self.session.view().is_consumable(&queue.0, generation, now_ms)
    }

    /// Never waits for a running round; callable from a host callback and any thread.
    fn record_pull(&self, queue: PyRef<'_, PyMessageQueue>, generation: u64, now_ms: u64) -> bool {
        self.session.view().record_pull(&queue.0, generation, now_ms)
    }

    /// Never waits for a running round.
    fn generation(&self, queue: PyRef<'_, PyMessageQueue>) -> Option<u64> {
        self.session.view().generation(&queue.0)
    }

    /// [(queue, state dict)] of every held queue, in Java order.
    fn held<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let held: Vec<(MessageQueue, rocketmq_rebalance::engine::QueueState)> = self.with(py, |r| Ok(r.held().map(|(q, s)| (q.clone(), s)).collect()))?;
        let out = PyList::empty(py);
        for (q, s) in held {
            let state = pythonize::pythonize(py, &s).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            out.append((to_py_queue(py, &q)?, state))?;
        }
        Ok(out)
    }
}
