//! The methods of the Java `HostBridge` the engine calls, resolved once when a rebalancer is
//! created: a jar whose Java classes and native library drifted apart fails there, naming the
//! method, instead of failing every callback of every round.

use jni::objects::{GlobalRef, JClass, JMethodID};
use jni::signature::{Primitive, ReturnType};
use jni::JNIEnv;

use crate::errors::Failure;

const Q: &str = "Ljava/lang/String;Ljava/lang/String;I";
const LIST: &str = "[Ljava/lang/String;[Ljava/lang/String;[I";

/// One `HostBridge` method: its name, its JNI signature's parameters and its return type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Callback {
    Lock,
    Unlock,
    ReadOffset,
    PersistOffset,
    RemoveOffset,
    MaxOffset,
    SearchOffset,
    TryConsumeLock,
    ReleaseConsumeLock,
    DispatchPull,
    QueueSetChanged,
    ScheduleRebalance,
    StopPull,
    CommitOffset,
}

impl Callback {
    const ALL: [Callback; 14] = [
        Callback::Lock,
        Callback::Unlock,
        Callback::ReadOffset,
        Callback::PersistOffset,
        Callback::RemoveOffset,
        Callback::MaxOffset,
        Callback::SearchOffset,
        Callback::TryConsumeLock,
        Callback::ReleaseConsumeLock,
        Callback::DispatchPull,
        Callback::QueueSetChanged,
        Callback::ScheduleRebalance,
        Callback::StopPull,
        Callback::CommitOffset,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Callback::Lock => "lock",
            Callback::Unlock => "unlock",
            Callback::ReadOffset => "readOffset",
            Callback::PersistOffset => "persistOffset",
            Callback::RemoveOffset => "removeOffset",
            Callback::MaxOffset => "maxOffset",
            Callback::SearchOffset => "searchOffset",
            Callback::TryConsumeLock => "tryConsumeLock",
            Callback::ReleaseConsumeLock => "releaseConsumeLock",
            Callback::DispatchPull => "dispatchPull",
            Callback::QueueSetChanged => "queueSetChanged",
            Callback::ScheduleRebalance => "scheduleRebalance",
            Callback::StopPull => "stopPull",
            Callback::CommitOffset => "commitOffset",
        }
    }

    fn signature(self) -> String {
        let (params, ret) = match self {
            Callback::Lock => (format!("Ljava/lang/String;{LIST}"), "[I"),
            Callback::Unlock => (format!("Ljava/lang/String;{LIST}"), "V"),
            Callback::ReadOffset => (format!("{Q}Z"), "J"),
            Callback::PersistOffset | Callback::RemoveOffset => (Q.to_owned(), "V"),
            Callback::MaxOffset => (Q.to_owned(), "J"),
            Callback::SearchOffset => (format!("{Q}J"), "J"),
            Callback::TryConsumeLock => (format!("{Q}JJ"), "Z"),
            Callback::ReleaseConsumeLock | Callback::StopPull => (format!("{Q}J"), "V"),
            Callback::DispatchPull => (format!("{Q}JJJ"), "V"),
            Callback::QueueSetChanged => (format!("Ljava/lang/String;{LIST}{LIST}"), "V"),
            Callback::ScheduleRebalance => ("J".to_owned(), "V"),
            Callback::CommitOffset => (format!("{Q}J"), "Z"),
        };
        format!("({params}){ret}")
    }

    pub(crate) fn return_type(self) -> ReturnType {
        match self {
            Callback::Lock => ReturnType::Array,
            Callback::ReadOffset | Callback::MaxOffset | Callback::SearchOffset => ReturnType::Primitive(Primitive::Long),
            Callback::TryConsumeLock | Callback::CommitOffset => ReturnType::Primitive(Primitive::Boolean),
            _ => ReturnType::Primitive(Primitive::Void),
        }
    }
}

/// The bridge class's methods, and the exception class by which a callback says "stop the call".
pub(crate) struct BridgeMethods {
    /// Keeps the class loaded, so that the method ids stay valid.
    _class: GlobalRef,
    stop_class: GlobalRef,
    ids: [JMethodID; Callback::ALL.len()],
}

/// The nested class a bridge throws for a callback that must stop the call (a `java.lang.Error`).
const STOP_CLASS: &str = "io/github/rocketmqrebalance/internal/HostBridge$RoundStopped";

impl BridgeMethods {
    /// Resolves every callback on `class`; a missing one is an `UnsatisfiedLinkError` naming it.
    pub(crate) fn resolve(env: &mut JNIEnv, class: &JClass) -> Result<Self, Failure> {
        if class.is_null() {
            return Err(Failure::Argument("null bridge class".into()));
        }
        let mut ids = Vec::with_capacity(Callback::ALL.len());
        for callback in Callback::ALL {
            let signature = callback.signature();
            match env.get_method_id(class, callback.name(), &signature) {
                Ok(id) => ids.push(id),
                Err(_) => {
                    let _ = env.exception_clear();
                    return Err(Failure::Link(format!(
                        "the engine's host bridge has no method {}{signature}: the jar's classes and its native library are from different versions",
                        callback.name()
                    )));
                }
            }
        }
        let stop = env.find_class(STOP_CLASS).map_err(|_| {
            let _ = env.exception_clear();
            Failure::Link(format!("the engine's host bridge has no class {STOP_CLASS}"))
        })?;
        Ok(BridgeMethods {
            _class: env.new_global_ref(class)?,
            stop_class: env.new_global_ref(&stop)?,
            ids: ids.try_into().map_err(|_| Failure::Argument("callback count".into()))?,
        })
    }

    pub(crate) fn id(&self, callback: Callback) -> JMethodID {
        // `ALL` lists the variants in declaration order (checked by the test below).
        self.ids[callback as usize]
    }

    pub(crate) fn stop_class(&self) -> &GlobalRef {
        &self.stop_class
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_callback_sits_at_its_own_index_once() {
        for (i, c) in Callback::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
    }
}
