//! What every binding needs around one [`Rebalancer`]: the session its threads share, and the
//! bookkeeping of a host whose callbacks can fail in ways the [`Host`] trait cannot return.
//!
//! Each binding (C, Python, Java) hands one rebalancer to many threads and runs host callbacks
//! written in another language. Three rules follow, kept here once:
//! - rounds are serialised by a mutex, and a mutex poisoned by a panic in an earlier call is taken
//!   over (the table is consistent between steps, so the state is kept rather than abandoned);
//! - a call of the same rebalancer from inside one of its own callbacks, on the same thread, is
//!   refused with [`Error::Reentrant`](crate::Error::Reentrant) instead of waiting for itself forever;
//! - the consume queries go through a [`ConsumeView`] outside the mutex and never wait.
//!
//! [`CallbackLog`] is the fourth: how a callback's failure reaches the report. A callback that
//! returns a value fails as that step's failure ([`HostError`]); one that returns nothing (such
//! as `dispatch_pull`) cannot, so its failure is kept in the log and the engine puts it on the
//! report of the round that made the call (through [`Host::take_callback_failures`]). A failure
//! that must stop the whole call (a Java `Error`, a Python `KeyboardInterrupt`) is
//! [`CallbackFailure::Stop`]: every later callback of the call fails at once without running,
//! and the binding raises its own exception once the engine has returned, the table left in its
//! defined state.

use std::sync::{LockResult, Mutex, MutexGuard};

use super::{ConsumeView, HostError, Rebalancer, ReentryGuard};
use crate::error::Result;

/// One rebalancer shared by a binding's threads (see the module documentation).
#[derive(Debug)]
pub struct Session {
    inner: Mutex<Rebalancer>,
    view: ConsumeView,
}

/// The rebalancer of a [`Session`], entered by this thread: refused re-entry on this thread and
/// the session's mutex both last until it is dropped.
pub struct Entered<'s> {
    rebalancer: MutexGuard<'s, Rebalancer>,
    _reentry: ReentryGuard,
}

impl std::ops::Deref for Entered<'_> {
    type Target = Rebalancer;

    fn deref(&self) -> &Rebalancer {
        &self.rebalancer
    }
}

impl std::ops::DerefMut for Entered<'_> {
    fn deref_mut(&mut self) -> &mut Rebalancer {
        &mut self.rebalancer
    }
}

impl Session {
    pub fn new(rebalancer: Rebalancer) -> Self {
        let view = rebalancer.consume_view();
        Session { inner: Mutex::new(rebalancer), view }
    }

    /// The consume queries, which never wait for a running round and may be asked from any
    /// thread, host callbacks included.
    pub fn view(&self) -> &ConsumeView {
        &self.view
    }

    /// Enters the rebalancer, waiting for a round another thread runs; [`Error::Reentrant`](crate::Error::Reentrant) from
    /// inside one of its own callbacks on this thread.
    pub fn enter(&self) -> Result<Entered<'_>> {
        self.enter_with(Mutex::lock)
    }

    /// [`Session::enter`] with the binding's own way of waiting for the mutex (Python detaches
    /// from the interpreter while it waits, so the round it waits for can call Python).
    pub fn enter_with<'s>(&'s self, lock: impl FnOnce(&'s Mutex<Rebalancer>) -> LockResult<MutexGuard<'s, Rebalancer>>) -> Result<Entered<'s>> {
        // The re-entry check comes first: on the thread that holds the mutex, waiting would
        // never end.
        let reentry = ReentryGuard::enter(self)?;
        let rebalancer = lock(&self.inner).unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(Entered { rebalancer, _reentry: reentry })
    }
}

/// How a binding's callback failed.
#[derive(Debug)]
pub enum CallbackFailure {
    /// This step failed; the round goes on (the engine's usual handling of a failed step).
    Step(HostError),
    /// The whole call must stop: this and every later callback of the call fail without running.
    Stop(HostError),
}

/// A binding host's record of one engine call (see the module documentation). Make one per call.
#[derive(Debug, Default)]
pub struct CallbackLog {
    failures: Vec<HostError>,
    stopped: bool,
}

impl CallbackLog {
    /// Runs the callback `method` through `f`, unless an earlier one stopped the call; a failure is
    /// that step's failure, named by `method`.
    pub fn call<T>(&mut self, method: &str, f: impl FnOnce() -> std::result::Result<T, CallbackFailure>) -> std::result::Result<T, HostError> {
        if self.stopped {
            return Err(HostError::new(format!("{method}: not called, the call was stopped by an earlier callback")));
        }
        f().map_err(|failure| {
            let error = match failure {
                CallbackFailure::Step(e) => e,
                CallbackFailure::Stop(e) => {
                    self.stopped = true;
                    e
                }
            };
            HostError::new(format!("{method}: {error}"))
        })
    }

    /// [`CallbackLog::call`] for a callback whose failure the engine cannot be told: it is kept
    /// for the report of the round that made the call.
    pub fn call_void(&mut self, method: &str, f: impl FnOnce() -> std::result::Result<(), CallbackFailure>) {
        if let Err(e) = self.call(method, f) {
            self.record(e);
        }
    }

    /// Keeps a failure the caller handled itself (a `try_consume_lock` that could not answer,
    /// counted as busy) for the report.
    pub fn record(&mut self, failure: HostError) {
        self.failures.push(failure);
    }

    /// Whether a [`CallbackFailure::Stop`] stopped this call.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// The failures kept since the last take: what [`Host::take_callback_failures`] returns.
    pub fn take_failures(&mut self) -> Vec<HostError> {
        std::mem::take(&mut self.failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_refuses_every_later_callback_and_a_void_failure_waits_for_the_report() {
        let mut log = CallbackLog::default();
        let mut ran = 0;
        log.call_void("dispatch_pull", || Err(CallbackFailure::Step(HostError::new("boom"))));
        assert_eq!(log.call("lock", || Ok::<_, CallbackFailure>(7)), Ok(7));
        assert_eq!(log.take_failures(), [HostError::new("dispatch_pull: boom")]);
        assert!(log.take_failures().is_empty(), "taken once");
        let stop = log.call("unlock", || Err::<(), _>(CallbackFailure::Stop(HostError::new("interrupted"))));
        assert_eq!(stop, Err(HostError::new("unlock: interrupted")));
        assert!(log.is_stopped());
        let later = log.call("persist_offset", || {
            ran += 1;
            Ok::<_, CallbackFailure>(())
        });
        assert!(later.is_err());
        log.call_void("remove_offset", || {
            ran += 1;
            Ok(())
        });
        assert_eq!(ran, 0, "nothing runs after a stop");
        assert_eq!(log.take_failures().len(), 1, "the refused void callback is reported");
    }
}
