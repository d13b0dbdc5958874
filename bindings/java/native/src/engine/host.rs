//! The engine's [`Host`] over a Java `HostBridge` (io.github.rocketmqrebalance.engine), which
//! turns these primitive-typed calls into `RebalanceHost` calls with `MessageQueue` objects.
//!
//! A Java exception from a callback is that step's failure: the engine gets a [`HostError`] with
//! the exception's message, the exception is cleared, and the round goes on. The bookkeeping is
//! the core's [`CallbackLog`]: a callback that returns nothing has its failure reported on the
//! report of the round that made it, and a `HostBridge.RoundStopped` (the bridge's wrapper of a
//! `java.lang.Error`) stops the call: every later callback fails without calling Java, and the
//! bridge rethrows the `Error` when the native call returns.
//!
//! The methods are called by the ids resolved when the rebalancer was created
//! ([`BridgeMethods`]). Every callback runs in its own JNI local frame (pushed and popped around
//! the call), so a round over thousands of queues never grows the local reference table.

use jni::objects::{JObject, JString, JValueOwned};
use jni::sys::jvalue;
use jni::JNIEnv;
use rocketmq_rebalance::engine::{CallbackFailure, CallbackLog, Host, HostError, OffsetRead, ReadFrom};
use rocketmq_rebalance::MessageQueue;

use super::args::queues_out;
use super::bridge::{BridgeMethods, Callback};
use crate::errors::Failure;

/// `HostBridge.readOffset`'s answer for "no committed offset".
const NOT_FOUND: i64 = i64::MIN;

pub(crate) struct JavaHost<'a, 'l> {
    env: &'a mut JNIEnv<'l>,
    bridge: &'a JObject<'l>,
    methods: &'a BridgeMethods,
    log: CallbackLog,
}

/// A call's arguments, built inside the callback's local frame.
type Args<'l> = Vec<JValueOwned<'l>>;

impl<'a, 'l> JavaHost<'a, 'l> {
    pub(crate) fn new(env: &'a mut JNIEnv<'l>, bridge: &'a JObject<'l>, methods: &'a BridgeMethods) -> Self {
        JavaHost { env, bridge, methods, log: CallbackLog::default() }
    }

    /// Calls `bridge.<callback>(args)` in a fresh local frame and converts the result with `read`
    /// (inside the frame, so object results are read before their references go).
    fn call<T>(
        &mut self,
        callback: Callback,
        args: impl FnOnce(&mut JNIEnv<'l>) -> Result<Args<'l>, Failure>,
        read: impl FnOnce(&mut JNIEnv<'l>, JValueOwned<'l>) -> Result<T, Failure>,
    ) -> Result<T, HostError> {
        let (env, bridge, methods) = (&mut *self.env, self.bridge, self.methods);
        self.log.call(callback.name(), || {
            // Every reference the call creates dies with this frame.
            if let Err(e) = env.push_local_frame(16) {
                let _ = env.exception_clear();
                return Err(CallbackFailure::Step(HostError::new(e.to_string())));
            }
            let result = (|| -> Result<Result<T, CallbackFailure>, Failure> {
                let owned = args(env)?;
                let values: Vec<jvalue> = owned.iter().map(|v| v.as_jni()).collect();
                // SAFETY: the id was resolved on the bridge's class with this callback's signature,
                // and `values` follow that signature.
                match unsafe { env.call_method_unchecked(bridge, methods.id(callback), callback.return_type(), &values) } {
                    Ok(v) => Ok(Ok(read(env, v)?)),
                    Err(jni::errors::Error::JavaException) => Ok(Err(take_exception(env, methods))),
                    Err(e) => Err(e.into()),
                }
            })();
            let result = result.unwrap_or_else(|failure| {
                // A JNI failure of our own (out of memory): clear whatever is pending so the round
                // can go on, and fail the step with what happened.
                let _ = env.exception_clear();
                Err(CallbackFailure::Step(HostError::new(format!("{failure:?}"))))
            });
            // SAFETY: no reference created inside the frame is used after this point (results
            // were read into Rust values above).
            let _ = unsafe { env.pop_local_frame(&JObject::null()) };
            result
        })
    }

    fn call_void(&mut self, callback: Callback, args: impl FnOnce(&mut JNIEnv<'l>) -> Result<Args<'l>, Failure>) {
        if let Err(e) = self.call(callback, args, |_, _| Ok(())) {
            self.log.record(e);
        }
    }
}

/// The pending exception as a failure: its message (the bridge's, which names the cause),
/// cleared; a `RoundStopped` stops the call.
fn take_exception(env: &mut JNIEnv, methods: &BridgeMethods) -> CallbackFailure {
    let Ok(thrown) = env.exception_occurred() else {
        return CallbackFailure::Step(HostError::new("failed"));
    };
    let _ = env.exception_clear();
    let stop = env.is_instance_of(&thrown, methods.stop_class()).unwrap_or(false);
    let message = env
        .call_method(&thrown, "getMessage", "()Ljava/lang/String;", &[])
        .and_then(|m| m.l())
        .ok()
        .filter(|m| !m.is_null())
        .and_then(|m| env.get_string(&JString::from(m)).ok().map(String::from));
    let _ = env.exception_clear();
    let error = HostError::new(message.unwrap_or_else(|| "threw".into()));
    if stop {
        CallbackFailure::Stop(error)
    } else {
        CallbackFailure::Step(error)
    }
}

/// The three fields of one queue as call arguments.
fn queue<'l>(env: &mut JNIEnv<'l>, q: &MessageQueue) -> Result<Args<'l>, Failure> {
    Ok(vec![JValueOwned::Object(env.new_string(&*q.topic)?.into()), JValueOwned::Object(env.new_string(&*q.broker_name)?.into()), JValueOwned::Int(q.queue_id)])
}

fn list<'l>(env: &mut JNIEnv<'l>, queues: &[MessageQueue]) -> Result<Args<'l>, Failure> {
    let (t, b, i) = queues_out(env, queues)?;
    Ok(vec![JValueOwned::Object(t.into()), JValueOwned::Object(b.into()), JValueOwned::Object(i.into())])
}

fn long(v: JValueOwned) -> Result<i64, Failure> {
    Ok(v.j()?)
}

impl Host for JavaHost<'_, '_> {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        let positions = self.call(
            Callback::Lock,
            |env| {
                let mut args = vec![JValueOwned::Object(env.new_string(broker)?.into())];
                args.extend(list(env, queues)?);
                Ok(args)
            },
            |env, v| {
                let array = jni::objects::JIntArray::from(v.l()?);
                crate::marshal::ints(env, &array)
            },
        )?;
        positions
            .into_iter()
            .map(|p| usize::try_from(p).ok().and_then(|p| queues.get(p)).cloned().ok_or_else(|| HostError::new(format!("lock: position {p} out of range"))))
            .collect()
    }

    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        self.call(
            Callback::Unlock,
            |env| {
                let mut args = vec![JValueOwned::Object(env.new_string(broker)?.into())];
                args.extend(list(env, queues)?);
                Ok(args)
            },
            |_, _| Ok(()),
        )
    }

    fn read_offset(&mut self, q: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError> {
        let memory_first = from == ReadFrom::MemoryThenStore;
        let offset = self.call(
            Callback::ReadOffset,
            |env| {
                let mut a = queue(env, q)?;
                a.push(JValueOwned::Bool(memory_first.into()));
                Ok(a)
            },
            |_, v| long(v),
        )?;
        Ok(if offset == NOT_FOUND { OffsetRead::NotFound } else { OffsetRead::Found(offset) })
    }

    fn persist_offset(&mut self, q: &MessageQueue) -> Result<(), HostError> {
        self.call(Callback::PersistOffset, |env| queue(env, q), |_, _| Ok(()))
    }

    fn remove_offset(&mut self, q: &MessageQueue) {
        self.call_void(Callback::RemoveOffset, |env| queue(env, q));
    }

    fn max_offset(&mut self, q: &MessageQueue) -> Result<i64, HostError> {
        self.call(Callback::MaxOffset, |env| queue(env, q), |_, v| long(v))
    }

    fn search_offset(&mut self, q: &MessageQueue, timestamp_ms: i64) -> Result<i64, HostError> {
        self.call(
            Callback::SearchOffset,
            |env| {
                let mut a = queue(env, q)?;
                a.push(JValueOwned::Long(timestamp_ms));
                Ok(a)
            },
            |_, v| long(v),
        )
    }

    fn try_consume_lock(&mut self, q: &MessageQueue, generation: u64, wait_ms: u64) -> bool {
        let result = self.call(
            Callback::TryConsumeLock,
            |env| {
                let mut a = queue(env, q)?;
                a.extend([JValueOwned::Long(generation as i64), JValueOwned::Long(wait_ms as i64)]);
                Ok(a)
            },
            |_, v| Ok(v.z()?),
        );
        // A host that cannot answer counts as busy: the release waits for a later round.
        result.unwrap_or_else(|e| {
            self.log.record(e);
            false
        })
    }

    fn release_consume_lock(&mut self, q: &MessageQueue, generation: u64) {
        self.call_void(Callback::ReleaseConsumeLock, |env| {
            let mut a = queue(env, q)?;
            a.push(JValueOwned::Long(generation as i64));
            Ok(a)
        });
    }

    fn dispatch_pull(&mut self, q: &MessageQueue, offset: i64, delay_ms: u64, generation: u64) {
        self.call_void(Callback::DispatchPull, |env| {
            let mut a = queue(env, q)?;
            a.extend([JValueOwned::Long(offset), JValueOwned::Long(delay_ms as i64), JValueOwned::Long(generation as i64)]);
            Ok(a)
        });
    }

    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]) {
        self.call_void(Callback::QueueSetChanged, |env| {
            let mut a = vec![JValueOwned::Object(env.new_string(topic)?.into())];
            a.extend(list(env, all)?);
            a.extend(list(env, divided)?);
            Ok(a)
        });
    }

    fn schedule_rebalance(&mut self, delay_ms: u64) {
        self.call_void(Callback::ScheduleRebalance, |_| Ok(vec![JValueOwned::Long(delay_ms as i64)]));
    }

    fn stop_pull(&mut self, q: &MessageQueue, generation: u64) {
        self.call_void(Callback::StopPull, |env| {
            let mut a = queue(env, q)?;
            a.push(JValueOwned::Long(generation as i64));
            Ok(a)
        });
    }

    fn commit_offset(&mut self, q: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        let result = self.call(
            Callback::CommitOffset,
            |env| {
                let mut a = queue(env, q)?;
                a.push(JValueOwned::Long(offset));
                Ok(a)
            },
            |_, v| Ok(v.z()?),
        );
        match result {
            Ok(true) => Some(Ok(())),
            // The host's default: it cannot commit (the engine then warns, as documented).
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    fn take_callback_failures(&mut self) -> Vec<HostError> {
        self.log.take_failures()
    }
}
