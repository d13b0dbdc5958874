//! The one mapping from the core's error enum to Python exceptions. The classes themselves are
//! pure Python (`rocketmq_rebalance._errors`) so that they can derive from both `RebalanceError`
//! and `ValueError`/`RuntimeError`.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rocketmq_rebalance::Error;

fn class_of(e: &Error) -> &'static str {
    match e {
        Error::EmptyCurrentId
        | Error::EmptyQueueList
        | Error::EmptyClientIdList
        | Error::IllegalVirtualNodeCount(_)
        | Error::NoMachineRoomForQueue(_)
        | Error::NoMachineRoomForConsumer(_) => "IllegalArgumentError",
        Error::ConsumeIdcsUnset | Error::InnerResultNull(_) | Error::NoConfiguredQueues => "MissingConfigurationError",
        Error::UnknownStrategy { .. } => "UnknownStrategyError",
        Error::InvalidParameters { .. } | Error::InvalidConfiguration(_) | Error::InvalidSnapshot(_) => "InvalidParametersError",
        Error::ShutDown => "ShutDownError",
        Error::Reentrant => "ReentrantError",
        Error::TooLarge(_) => "InputTooLargeError",
        Error::Callback(_) => "CallbackError",
        _ => "RebalanceError",
    }
}

/// (core variant, Python class) for one error of every variant: what the tests hold docs/errors.md to.
#[pyfunction]
pub fn error_classes() -> Vec<(&'static str, &'static str)> {
    Error::examples().iter().map(|e| (e.variant_name(), class_of(e))).collect()
}

/// The Python exception for a core error, carrying Java's exception name as `java_exception`.
pub fn to_py(py: Python<'_>, e: &Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("rocketmq_rebalance._errors")?;
        let class = module.getattr(class_of(e))?;
        let instance = class.call1(PyTuple::new(py, [e.to_string()])?)?;
        instance.setattr("java_exception", e.java_exception())?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|err| err)
}

/// `Result<T, core::Error>` -> `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e))
    }
}
