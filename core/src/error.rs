//! The one error type of the library. Every binding maps it once (C result codes, Python
//! exceptions, Java exceptions); [`Error::java_exception`] names the exception the Java client
//! throws for the same input, so conformance can be checked class for class.

use crate::queue::MessageQueue;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The current client id is missing or empty (Java: `IllegalArgumentException`).
    #[error("currentCID is empty")]
    EmptyCurrentId,
    /// The queue list is missing or empty (Java: `IllegalArgumentException`).
    #[error("mqAll is null or mqAll empty")]
    EmptyQueueList,
    /// The client-id list is missing or empty (Java: `IllegalArgumentException`).
    #[error("cidAll is null or cidAll empty")]
    EmptyClientIdList,
    /// A negative consistent-hash virtual node count (Java throws at construction).
    #[error("illegal virtualNodeCnt :{0}")]
    IllegalVirtualNodeCount(i64),
    /// The machine-room resolver gave no room (None or "") for a queue.
    #[error("Machine room is null for mq {0}")]
    NoMachineRoomForQueue(MessageQueue),
    /// The machine-room resolver gave no room (None or "") for a client id.
    #[error("Machine room is null for consumer id {0}")]
    NoMachineRoomForConsumer(String),
    /// MACHINE_ROOM without an idc set met a broker name of the form `idc@name`
    /// (Java: `NullPointerException` on `consumeridcs.contains`).
    #[error("consumeridcs is null")]
    ConsumeIdcsUnset,
    /// An inner strategy of MACHINE_ROOM_NEARBY returned Java's null (Java: `NullPointerException`
    /// from `addAll(null)`).
    #[error("inner strategy {0} returned null")]
    InnerResultNull(String),
    /// CONFIG has no queue list configured: Java returns null. Bindings turn this into their null
    /// (`None`, `null`, a NULL list) rather than an exception; it is an error in Rust only because
    /// Rust has no null list.
    #[error("no message queue list is configured")]
    NoConfiguredQueues,
    /// A strategy name that no strategy answers to.
    #[error("unknown strategy {name:?}; known: {known}")]
    UnknownStrategy { name: String, known: &'static str },
    /// A parameter of a strategy configuration is missing, of the wrong type or out of range.
    #[error("invalid parameters for strategy {strategy}: {reason}")]
    InvalidParameters { strategy: String, reason: String },
    /// A callback supplied by the caller (a machine-room resolver, an engine host) failed; the
    /// text is its own message.
    #[error("callback failed: {0}")]
    Callback(String),
    /// A rebalancer configuration is malformed or contradictory: an unknown key, a wrong type, an
    /// empty client id, orderly pull. The text names the key.
    #[error("invalid rebalancer configuration: {0}")]
    InvalidConfiguration(String),
    /// The rebalancer was shut down: it refuses every call but `shutdown` (which finishes what an
    /// earlier shutdown left).
    #[error("the rebalancer was shut down")]
    ShutDown,
    /// A rebalancer was called from inside one of its own host callbacks (bindings detect this;
    /// the call would otherwise wait for itself).
    #[error("a rebalancer method was called from inside one of its own host callbacks")]
    Reentrant,
    /// An input larger than the library is willing to process (where Java would run out of memory
    /// or time).
    #[error("input too large: {0}")]
    TooLarge(String),
    /// A live group's snapshot (what `inspect --save` writes) that is not one: malformed JSON, a
    /// missing or misspelt field. The text says where.
    #[error("not an inspect snapshot: {0}")]
    InvalidSnapshot(String),
}

/// The Java exception classes the library's errors stand for: the class the Java client throws
/// for the same input. Every binding names them from here (C by `simple_name`, JNI by
/// `jni_class`, Go through the C API), never by strings of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JavaException {
    IllegalArgument,
    NullPointer,
    IllegalState,
    /// A callback's failure, and what a binding throws for a panic or an unknown error.
    Runtime,
}

impl JavaException {
    pub const ALL: [JavaException; 4] = [JavaException::IllegalArgument, JavaException::NullPointer, JavaException::IllegalState, JavaException::Runtime];

    /// The class's simple name, as `Class.getSimpleName()` gives it.
    pub fn simple_name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("RuntimeException")
    }

    /// The simple name as a C string (static, for the C API).
    pub fn c_name(self) -> &'static std::ffi::CStr {
        match self {
            JavaException::IllegalArgument => c"IllegalArgumentException",
            JavaException::NullPointer => c"NullPointerException",
            JavaException::IllegalState => c"IllegalStateException",
            JavaException::Runtime => c"RuntimeException",
        }
    }

    /// The class's binary name in JNI's form (`java/lang/...`).
    pub fn jni_class(self) -> &'static str {
        match self {
            JavaException::IllegalArgument => "java/lang/IllegalArgumentException",
            JavaException::NullPointer => "java/lang/NullPointerException",
            JavaException::IllegalState => "java/lang/IllegalStateException",
            JavaException::Runtime => "java/lang/RuntimeException",
        }
    }
}

impl Error {
    /// The exception the Java client throws for the same input. Errors Java has no counterpart
    /// for (configuration errors) are `IllegalArgumentException`, which is what a Java user would
    /// expect for bad arguments.
    pub fn java_class(&self) -> JavaException {
        match self {
            Error::ConsumeIdcsUnset | Error::InnerResultNull(_) => JavaException::NullPointer,
            Error::Callback(_) => JavaException::Runtime,
            Error::ShutDown | Error::Reentrant => JavaException::IllegalState,
            _ => JavaException::IllegalArgument,
        }
    }

    /// The simple name of [`Error::java_class`] (`"IllegalArgumentException"`, ...).
    pub fn java_exception(&self) -> &'static str {
        self.java_class().simple_name()
    }

    /// The variant's name (`"EmptyCurrentId"`), as docs/errors.md lists it.
    pub fn variant_name(&self) -> &'static str {
        match self {
            Error::EmptyCurrentId => "EmptyCurrentId",
            Error::EmptyQueueList => "EmptyQueueList",
            Error::EmptyClientIdList => "EmptyClientIdList",
            Error::IllegalVirtualNodeCount(_) => "IllegalVirtualNodeCount",
            Error::NoMachineRoomForQueue(_) => "NoMachineRoomForQueue",
            Error::NoMachineRoomForConsumer(_) => "NoMachineRoomForConsumer",
            Error::ConsumeIdcsUnset => "ConsumeIdcsUnset",
            Error::InnerResultNull(_) => "InnerResultNull",
            Error::NoConfiguredQueues => "NoConfiguredQueues",
            Error::UnknownStrategy { .. } => "UnknownStrategy",
            Error::InvalidParameters { .. } => "InvalidParameters",
            Error::Callback(_) => "Callback",
            Error::InvalidConfiguration(_) => "InvalidConfiguration",
            Error::ShutDown => "ShutDown",
            Error::Reentrant => "Reentrant",
            Error::TooLarge(_) => "TooLarge",
            Error::InvalidSnapshot(_) => "InvalidSnapshot",
        }
    }

    /// One error of every variant, for the tests that hold each binding's mapping and
    /// docs/errors.md to the core (a new variant fails to compile here until it is added).
    #[doc(hidden)]
    pub fn examples() -> Vec<Error> {
        let s = String::new;
        let all = vec![
            Error::EmptyCurrentId,
            Error::EmptyQueueList,
            Error::EmptyClientIdList,
            Error::IllegalVirtualNodeCount(-1),
            Error::NoMachineRoomForQueue(MessageQueue::new("T", "b", 0)),
            Error::NoMachineRoomForConsumer(s()),
            Error::ConsumeIdcsUnset,
            Error::InnerResultNull(s()),
            Error::NoConfiguredQueues,
            Error::UnknownStrategy { name: s(), known: "" },
            Error::InvalidParameters { strategy: s(), reason: s() },
            Error::Callback(s()),
            Error::InvalidConfiguration(s()),
            Error::ShutDown,
            Error::Reentrant,
            Error::TooLarge(s()),
            Error::InvalidSnapshot(s()),
        ];
        // variant_name's match is exhaustive: every variant has a name, and each is listed once.
        let mut names: Vec<&str> = all.iter().map(Error::variant_name).collect();
        names.sort_unstable();
        names.dedup();
        debug_assert_eq!(names.len(), all.len());
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_java_class_is_named_alike_in_each_form() {
        for class in JavaException::ALL {
            let simple = class.simple_name();
            assert!(simple.ends_with("Exception"), "{class:?}");
            assert_eq!(class.jni_class(), format!("java/lang/{simple}"));
        }
    }
}
