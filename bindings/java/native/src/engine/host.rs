//! The engine's [`Host`] over a Java `HostBridge` (io.github.rocketmqrebalance.engine), which
//! turns these primitive-typed calls into `RebalanceHost` calls with `MessageQueue` objects.
//!
//! A Java exception from a callback is that step's failure: the engine gets a [`HostError`] with
//! the exception's message, the exception is cleared, and the round goes on. Callbacks that
//! cannot report a failure to the engine (they return nothing) collect it in `failures`, which
//! the entry point adds to the report as `callback_failed` warnings. The bridge itself turns a
//! `java.lang.Error` into "stop the round" (every later callback fails without calling the host)
//! and rethrows it when the native call returns.
//!
//! Every callback runs in its own JNI local frame (pushed and popped around the call), so a round over thousands of queues never
//! grows the local reference table.

use jni::objects::{JObject, JString, JValue, JValueOwned};
use jni::JNIEnv;
use rocketmq_rebalance::engine::{Host, HostError, OffsetRead, ReadFrom};
use rocketmq_rebalance::MessageQueue;

use super::args::queues_out;
use crate::errors::Failure;

/// `HostBridge.readOffset`'s answer for "no committed offset".
const NOT_FOUND: i64 = i64::MIN;

pub(crate) struct JavaHost<'a, 'l> {
    pub(crate) env: &'a mut JNIEnv<'l>,
    pub(crate) bridge: &'a JObject<'l>,
    pub(crate) failures: Vec<String>,
}

/// A call's arguments, built inside the callback's local frame.
type Args<'l> = Vec<JValueOwned<'l>>;

impl<'l> JavaHost<'_, 'l> {
    /// Calls `bridge.<method>(args)` in a fresh local frame and converts the result with `read`
    /// (inside the frame, so object results are read before their references go).
    fn call<T>(
        &mut self,
        method: &str,
        sig: &str,
        args: impl FnOnce(&mut JNIEnv<'l>) -> Result<Args<'l>, Failure>,
        read: impl FnOnce(&mut JNIEnv<'l>, JValueOwned<'l>) -> Result<T, Failure>,
    ) -> Result<T, HostError> {
        let env = &mut *self.env;
        // Every reference the call creates dies with this frame.
        if let Err(e) = env.push_local_frame(16) {
            let _ = env.exception_clear();
            return Err(HostError::new(format!("{method}: {e}")));
        }
        let result = (|| -> Result<Result<T, HostError>, Failure> {
            let owned = args(env)?;
            let values: Vec<JValue> = owned.iter().map(|v| v.borrow()).collect();
            match env.call_method(self.bridge, method, sig, &values) {
                Ok(v) => Ok(Ok(read(env, v)?)),
                Err(jni::errors::Error::JavaException) => Ok(Err(take_exception(env, method))),
                Err(e) => Err(e.into()),
            }
        })();
        let result = result.unwrap_or_else(|failure| {
            // A JNI failure of our own (out of memory, a missing method): clear whatever is
            // pending so the round can go on, and fail the step with what happened.
            let _ = env.exception_clear();
            Err(HostError::new(format!("{method}: {failure:?}")))
        });
        // SAFETY: no reference created inside the frame is used after this point (results were
        // read into Rust values above).
        let _ = unsafe { env.pop_local_frame(&JObject::null()) };
        result
    }

    fn call_void(&mut self, method: &str, sig: &str, args: impl FnOnce(&mut JNIEnv<'l>) -> Result<Args<'l>, Failure>) {
        if let Err(e) = self.call(method, sig, args, |_, _| Ok(())) {
            self.failures.push(e.0);
        }
    }
}

/// The pending exception as a step failure: its message (the bridge's, which names the host
/// method and the cause), cleared.
fn take_exception(env: &mut JNIEnv, method: &str) -> HostError {
    let Ok(thrown) = env.exception_occurred() else {
        return HostError::new(format!("{method}: failed"));
    };
    let _ = env.exception_clear();
    let message = env
        .call_method(&thrown, "getMessage", "()Ljava/lang/String;", &[])
        .and_then(|m| m.l())
        .ok()
        .filter(|m| !m.is_null())
        .and_then(|m| env.get_string(&JString::from(m)).ok().map(String::from));
    let _ = env.exception_clear();
    HostError::new(message.unwrap_or_else(|| format!("{method}: threw")))
}

/// The three fields of one queue as call arguments.
fn queue<'l>(env: &mut JNIEnv<'l>, q: &MessageQueue) -> Result<Args<'l>, Failure> {
    Ok(vec![JValueOwned::Object(env.new_string(&*q.topic)?.into()), JValueOwned::Object(env.new_string(&*q.broker_name)?.into()), JValueOwned::Int(q.queue_id)])
}

fn list<'l>(env: &mut JNIEnv<'l>, queues: &[MessageQueue]) -> Result<Args<'l>, Failure> {
    let (t, b, i) = queues_out(env, queues)?;
    Ok(vec![JValueOwned::Object(t.into()), JValueOwned::Object(b.into()), JValueOwned::Object(i.into())])
}

const Q: &str = "Ljava/lang/String;Ljava/lang/String;I";
const LIST: &str = "[Ljava/lang/String;[Ljava/lang/String;[I";

fn sig(params: &str, ret: &str) -> String {
    format!("({params}){ret}")
}

fn long(v: JValueOwned) -> Result<i64, Failure> {
    Ok(v.j()?)
}

impl Host for JavaHost<'_, '_> {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        let positions = self.call(
            "lock",
            &sig(&format!("Ljava/lang/String;{LIST}"), "[I"),
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
            "unlock",
            &sig(&format!("Ljava/lang/String;{LIST}"), "V"),
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
            "readOffset",
            &sig(&format!("{Q}Z"), "J"),
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
        self.call("persistOffset", &sig(Q, "V"), |env| queue(env, q), |_, _| Ok(()))
    }

    fn remove_offset(&mut self, q: &MessageQueue) {
        self.call_void("removeOffset", &sig(Q, "V"), |env| queue(env, q));
    }

    fn max_offset(&mut self, q: &MessageQueue) -> Result<i64, HostError> {
        self.call("maxOffset", &sig(Q, "J"), |env| queue(env, q), |_, v| long(v))
    }

    fn search_offset(&mut self, q: &MessageQueue, timestamp_ms: i64) -> Result<i64, HostError> {
        self.call(
            "searchOffset",
            &sig(&format!("{Q}J"), "J"),
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
            "tryConsumeLock",
            &sig(&format!("{Q}JJ"), "Z"),
            |env| {
                let mut a = queue(env, q)?;
                a.extend([JValueOwned::Long(generation as i64), JValueOwned::Long(wait_ms as i64)]);
                Ok(a)
            },
            |_, v| Ok(v.z()?),
        );
        // A host that cannot answer counts as busy: the release waits for a later round.
        result.unwrap_or_else(|e| {
            self.failures.push(e.0);
            false
        })
    }

    fn release_consume_lock(&mut self, q: &MessageQueue, generation: u64) {
        self.call_void("releaseConsumeLock", &sig(&format!("{Q}J"), "V"), |env| {
            let mut a = queue(env, q)?;
            a.push(JValueOwned::Long(generation as i64));
            Ok(a)
        });
    }

    fn dispatch_pull(&mut self, q: &MessageQueue, offset: i64, delay_ms: u64, generation: u64) {
        self.call_void("dispatchPull", &sig(&format!("{Q}JJJ"), "V"), |env| {
            let mut a = queue(env, q)?;
            a.extend([JValueOwned::Long(offset), JValueOwned::Long(delay_ms as i64), JValueOwned::Long(generation as i64)]);
            Ok(a)
        });
    }

    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]) {
        self.call_void("queueSetChanged", &sig(&format!("Ljava/lang/String;{LIST}{LIST}"), "V"), |env| {
            let mut a = vec![JValueOwned::Object(env.new_string(topic)?.into())];
            a.extend(list(env, all)?);
            a.extend(list(env, divided)?);
            Ok(a)
        });
    }

    fn schedule_rebalance(&mut self, delay_ms: u64) {
        self.call_void("scheduleRebalance", "(J)V", |_| Ok(vec![JValueOwned::Long(delay_ms as i64)]));
    }

    fn stop_pull(&mut self, q: &MessageQueue, generation: u64) {
        self.call_void("stopPull", &sig(&format!("{Q}J"), "V"), |env| {
            let mut a = queue(env, q)?;
            a.push(JValueOwned::Long(generation as i64));
            Ok(a)
        });
    }

    fn commit_offset(&mut self, q: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        let result = self.call(
            "commitOffset",
            &sig(&format!("{Q}J"), "Z"),
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
}
