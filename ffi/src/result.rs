//! Result codes: the core's one `Error` enum mapped once, plus the conditions only a C caller can
//! create (NULL, invalid UTF-8, a small buffer).

use rocketmq_rebalance::{Error, JavaException};
use strum::VariantArray;

/// What a call did. Numbers are part of the ABI: a released code is never renumbered or reused.
/// 0 is success, 1-99 are misuse of the C API, 100 and up mirror the library's errors.
// `VARIANTS`, every code in declaration order, is derived from this list by strum: one list.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray)]
pub enum rmq_result {
    /// Success: out-parameters were written.
    Ok = 0,
    /// A required pointer argument (handle, string, out-parameter, callback) was NULL.
    NullParameter = 1,
    /// A string argument, or a string a callback returned, is not valid UTF-8.
    InvalidUtf8 = 2,
    /// An array pointer and its length disagree: NULL with a non-zero length.
    LengthMismatch = 3,
    /// An index or enumeration value outside its range.
    OutOfRange = 4,
    /// The caller's buffer is too small; the length needed was written to the length out-parameter.
    BufferTooSmall = 5,
    /// A rebalancer was called from inside one of its own host callbacks.
    Reentrant = 6,
    /// The strategy answered with queues that are not positions of the input (CONFIG returns its
    /// own list): use `rmq_strategy_allocate`, which returns queues.
    NotPositional = 7,
    /// The rebalancer was shut down: every call but `rmq_rebalancer_shutdown`/`_shutdown_at` (and
    /// `rmq_rebalancer_lock_all` and `rmq_rebalancer_locks_lost` in safe mode, which fence what
    /// shutdown left) is refused.
    ShutDown = 8,
    /// A bug in the library: it panicked. The handles involved stay valid.
    Panic = 99,
    /// The current client id is empty (Java: IllegalArgumentException "currentCID is empty").
    EmptyCurrentId = 100,
    /// The queue list is empty (Java: IllegalArgumentException "mqAll is null or mqAll empty").
    EmptyQueueList = 101,
    /// The client-id list is empty (Java: IllegalArgumentException "cidAll is null or cidAll empty").
    EmptyClientIdList = 102,
    /// A negative consistent-hash virtual node count (Java: IllegalArgumentException).
    IllegalVirtualNodeCount = 103,
    /// The machine-room resolver gave no room for a queue (Java: IllegalArgumentException).
    NoMachineRoomForQueue = 104,
    /// The machine-room resolver gave no room for a client id (Java: IllegalArgumentException).
    NoMachineRoomForConsumer = 105,
    /// MACHINE_ROOM without an idc set met a broker named `idc@name` (Java: NullPointerException).
    ConsumeIdcsUnset = 106,
    /// An inner strategy of MACHINE_ROOM_NEARBY returned null (Java: NullPointerException).
    InnerResultNull = 107,
    /// CONFIG has no queue list (Java returns null). `rmq_strategy_allocate` reports this as a
    /// NULL list and `RMQ_RESULT_OK`; functions that cannot say null return this code.
    NoConfiguredQueues = 108,
    /// No strategy answers to the name.
    UnknownStrategy = 109,
    /// A strategy or rebalancer configuration is malformed (bad JSON, a missing or wrong parameter).
    InvalidParameters = 110,
    /// A callback supplied by the caller reported failure or returned something unusable.
    CallbackFailed = 111,
    /// An input larger than the library accepts (a consistent-hash ring beyond 2^24 entries).
    TooLarge = 112,
    /// An error of a newer library version this build does not know how to name.
    Unknown = 199,
}

impl rmq_result {
    /// The one mapping of the core's errors to codes (the conversions that also note the error's
    /// text for `rmq_last_error_message` are in `last_error`).
    pub(crate) fn code_of(e: &Error) -> rmq_result {
        match e {
            Error::EmptyCurrentId => rmq_result::EmptyCurrentId,
            Error::EmptyQueueList => rmq_result::EmptyQueueList,
            Error::EmptyClientIdList => rmq_result::EmptyClientIdList,
            Error::IllegalVirtualNodeCount(_) => rmq_result::IllegalVirtualNodeCount,
            Error::NoMachineRoomForQueue(_) => rmq_result::NoMachineRoomForQueue,
            Error::NoMachineRoomForConsumer(_) => rmq_result::NoMachineRoomForConsumer,
            Error::ConsumeIdcsUnset => rmq_result::ConsumeIdcsUnset,
            Error::InnerResultNull(_) => rmq_result::InnerResultNull,
            Error::NoConfiguredQueues => rmq_result::NoConfiguredQueues,
            Error::UnknownStrategy { .. } => rmq_result::UnknownStrategy,
            Error::InvalidParameters { .. } | Error::InvalidConfiguration(_) | Error::InvalidSnapshot(_) => rmq_result::InvalidParameters,
            Error::ShutDown => rmq_result::ShutDown,
            Error::Reentrant => rmq_result::Reentrant,
            Error::Callback(_) => rmq_result::CallbackFailed,
            Error::TooLarge(_) => rmq_result::TooLarge,
            _ => rmq_result::Unknown,
        }
    }
}

impl rmq_result {
    pub(crate) fn from_raw(code: u32) -> Option<rmq_result> {
        Self::VARIANTS.iter().copied().find(|c| *c as u32 == code)
    }

    pub(crate) fn message(self) -> &'static str {
        match self {
            rmq_result::Ok => "success",
            rmq_result::NullParameter => "a required pointer argument was NULL",
            rmq_result::InvalidUtf8 => "a string is not valid UTF-8",
            rmq_result::LengthMismatch => "an array pointer is NULL but its length is not zero",
            rmq_result::OutOfRange => "an index or enumeration value is out of range",
            rmq_result::BufferTooSmall => "the buffer is too small; the length needed was written",
            rmq_result::Reentrant => "a rebalancer was called from inside one of its own callbacks",
            rmq_result::NotPositional => "the strategy's answer is not a subset of the input queues (CONFIG): use rmq_strategy_allocate",
            rmq_result::ShutDown => "the rebalancer was shut down",
            rmq_result::Panic => "internal error: the library panicked (please report it)",
            rmq_result::EmptyCurrentId => "currentCID is empty",
            rmq_result::EmptyQueueList => "mqAll is null or mqAll empty",
            rmq_result::EmptyClientIdList => "cidAll is null or cidAll empty",
            rmq_result::IllegalVirtualNodeCount => "illegal virtualNodeCnt: the virtual node count is negative",
            rmq_result::NoMachineRoomForQueue => "Machine room is null for a message queue",
            rmq_result::NoMachineRoomForConsumer => "Machine room is null for a consumer id",
            rmq_result::ConsumeIdcsUnset => "consumeridcs is null",
            rmq_result::InnerResultNull => "the inner strategy of MACHINE_ROOM_NEARBY returned null",
            rmq_result::NoConfiguredQueues => "no message queue list is configured",
            rmq_result::UnknownStrategy => "unknown strategy name",
            rmq_result::InvalidParameters => "invalid strategy or rebalancer parameters",
            rmq_result::CallbackFailed => "a callback reported failure",
            rmq_result::TooLarge => "input too large",
            rmq_result::Unknown => "an error this version of the library cannot name",
        }
    }

    /// A core error this code stands for, so that the Java exception of a code is the core's
    /// decision, not a second table. `None` for the codes only the C API has.
    fn representative(self) -> Option<Error> {
        Some(match self {
            rmq_result::EmptyCurrentId => Error::EmptyCurrentId,
            rmq_result::EmptyQueueList => Error::EmptyQueueList,
            rmq_result::EmptyClientIdList => Error::EmptyClientIdList,
            rmq_result::IllegalVirtualNodeCount => Error::IllegalVirtualNodeCount(-1),
            rmq_result::NoMachineRoomForQueue => Error::NoMachineRoomForQueue(rocketmq_rebalance::MessageQueue::new("", "", 0)),
            rmq_result::NoMachineRoomForConsumer => Error::NoMachineRoomForConsumer(String::new()),
            rmq_result::ConsumeIdcsUnset => Error::ConsumeIdcsUnset,
            rmq_result::InnerResultNull => Error::InnerResultNull(String::new()),
            rmq_result::NoConfiguredQueues => Error::NoConfiguredQueues,
            rmq_result::UnknownStrategy => Error::UnknownStrategy { name: String::new(), known: "" },
            rmq_result::InvalidParameters => Error::InvalidConfiguration(String::new()),
            rmq_result::CallbackFailed => Error::Callback(String::new()),
            rmq_result::TooLarge => Error::TooLarge(String::new()),
            rmq_result::ShutDown => Error::ShutDown,
            rmq_result::Reentrant => Error::Reentrant,
            _ => return None,
        })
    }

    /// The simple name of the Java exception for this code: the core's answer for the error the
    /// code stands for; for the C-only codes, what a Java user gets for the same misuse (a bad
    /// argument) or for a bug (`RuntimeException`); `""` for success.
    pub(crate) fn java_class(self) -> Option<JavaException> {
        match (self, self.representative()) {
            (rmq_result::Ok, _) => None,
            (_, Some(error)) => Some(error.java_class()),
            (rmq_result::Panic | rmq_result::Unknown, None) => Some(JavaException::Runtime),
            (_, None) => Some(JavaException::IllegalArgument),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_found_by_its_number() {
        for code in rmq_result::VARIANTS {
            assert_eq!(rmq_result::from_raw(*code as u32), Some(*code));
        }
        assert_eq!(rmq_result::from_raw(98), None);
    }

    /// The representative of a code converts back to that code: the inverse table cannot drift
    /// from the one mapping.
    #[test]
    fn representatives_map_back_to_their_code() {
        for &code in rmq_result::VARIANTS {
            if let Some(error) = code.representative() {
                assert_eq!(rmq_result::code_of(&error), code, "{error}");
            }
        }
    }

    /// The C name cbindgen gives a code (`RMQ_RESULT_` and the variant in upper snake case).
    fn c_name(code: rmq_result) -> String {
        let mut out = String::from("RMQ_RESULT_");
        for (i, ch) in format!("{code:?}").chars().enumerate() {
            if ch.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_uppercase());
        }
        out
    }

    /// docs/errors.md's C column is the code each core error maps to.
    #[test]
    fn the_error_table_gives_each_core_error_its_code() {
        let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/errors.md")).expect("docs/errors.md");
        for e in Error::examples() {
            let row = page.lines().find(|l| l.starts_with(&format!("| `{}` |", e.variant_name()))).expect("a row per core error");
            let c = row.split('|').nth(3).unwrap().trim().trim_matches('`');
            assert_eq!(c, c_name(rmq_result::code_of(&e)), "Error::{}", e.variant_name());
        }
        assert!(page.contains(&format!("`{}`", c_name(rmq_result::NullParameter))), "the name rule matches the header");
    }
}
