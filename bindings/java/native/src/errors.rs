//! The one mapping from the core's errors to Java exceptions, and the panic boundary.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::JNIEnv;
use rocketmq_rebalance::Error;

/// Why a call failed, before it becomes a Java exception.
#[derive(Debug)]
pub(crate) enum Failure {
    /// An error of the library: thrown as the exception the Java client throws.
    Core(Error),
    /// Bad arguments from the Java side of this binding (a bug there): IllegalArgumentException.
    Argument(String),
    /// A JNI call failed; usually a Java exception is already pending.
    Jni(jni::errors::Error),
    /// A closed (or unknown) native object was used: IllegalStateException.
    Closed(String),
    /// The Java classes do not match this native library (a method the engine calls is missing):
    /// UnsatisfiedLinkError.
    Link(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

fn throw(env: &mut JNIEnv, failure: Failure) {
    // An exception already pending (from a failed JNI call) is the more precise one: keep it.
    if env.exception_check().unwrap_or(true) {
        return;
    }
    let _ = match failure {
        Failure::Core(e) => env.throw_new(e.java_class().jni_class(), e.to_string()),
        Failure::Argument(message) => env.throw_new("java/lang/IllegalArgumentException", message),
        Failure::Jni(e) => env.throw_new("java/lang/IllegalStateException", format!("JNI call failed: {e}")),
        Failure::Closed(message) => env.throw_new("java/lang/IllegalStateException", message),
        Failure::Link(message) => env.throw_new("java/lang/UnsatisfiedLinkError", message),
    };
}

/// Runs `body`; an error is thrown as its Java exception and a panic as `java.lang.Error`, and
/// `fallback` (null) is returned to the JVM, which then raises the pending exception.
pub(crate) fn boundary<'l, T>(env: &mut JNIEnv<'l>, fallback: T, body: impl FnOnce(&mut JNIEnv<'l>) -> Result<T, Failure>) -> T {
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(value)) => value,
        Ok(Err(failure)) => {
            throw(env, failure);
            fallback
        }
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            if !env.exception_check().unwrap_or(true) {
                let _ = env.throw_new("java/lang/Error", format!("rocketmq-rebalance panicked: {message}"));
            }
            fallback
        }
    }
}
