//! MACHINE_ROOM_NEARBY's resolver given as C callbacks.

use std::ffi::{c_char, c_void, CStr, CString};

use rocketmq_rebalance::strategy::MachineRoomResolver;
use rocketmq_rebalance::{Error, MessageQueue};

/// Where brokers and consumers are deployed, answered by the caller
/// (`AllocateMachineRoomNearby.MachineRoomResolver`).
///
/// Each callback returns 0 on success and anything else on failure (the allocation then fails
/// with `RMQ_RESULT_CALLBACK_FAILED`). On success it sets `*room` to the room as a NUL-terminated
/// UTF-8 string, or to NULL for "no room" (Java's null, which the strategy rejects). The string is
/// copied before the library calls any callback again, so it may live in `user_data` or be static.
///
/// The strategy made from this resolver owns `user_data`: it calls `free_user_data(user_data)`
/// (when not NULL) once, when the last strategy using the resolver is freed. Callbacks may be
/// called from any thread that allocates with the strategy, concurrently if several do: they must
/// be thread-safe. They must not unwind (throw a C++ exception) into the library.
#[repr(C)]
pub struct rmq_machine_room_resolver {
    pub user_data: *mut c_void,
    pub broker_room:
        Option<unsafe extern "C" fn(user_data: *mut c_void, topic: *const c_char, broker_name: *const c_char, queue_id: i32, room: *mut *const c_char) -> i32>,
    pub consumer_room: Option<unsafe extern "C" fn(user_data: *mut c_void, client_id: *const c_char, room: *mut *const c_char) -> i32>,
    pub free_user_data: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
}

/// The resolver copied into a strategy. Both callbacks are present (checked at construction).
pub(crate) struct CResolver {
    user_data: *mut c_void,
    broker_room: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, i32, *mut *const c_char) -> i32,
    consumer_room: unsafe extern "C" fn(*mut c_void, *const c_char, *mut *const c_char) -> i32,
    free_user_data: Option<unsafe extern "C" fn(*mut c_void)>,
}

// SAFETY: the header requires the callbacks and `user_data` to be usable from any thread at once.
unsafe impl Send for CResolver {}
// SAFETY: as above.
unsafe impl Sync for CResolver {}

impl std::fmt::Debug for CResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CResolver")
    }
}

impl CResolver {
    /// `None` when a callback is missing.
    pub(crate) fn new(r: &rmq_machine_room_resolver) -> Option<Self> {
        Some(CResolver { user_data: r.user_data, broker_room: r.broker_room?, consumer_room: r.consumer_room?, free_user_data: r.free_user_data })
    }
}

impl Drop for CResolver {
    fn drop(&mut self) {
        if let Some(free) = self.free_user_data {
            // SAFETY: called once, as documented, with the caller's own pointer.
            unsafe { free(self.user_data) };
        }
    }
}

fn c_string(what: &str, s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::Callback(format!("{what} {s:?} contains a NUL byte and cannot be passed to C")))
}

/// Reads the room a callback returned.
fn room(callback: &str, status: i32, room: *const c_char) -> Result<Option<String>, Error> {
    if status != 0 {
        return Err(Error::Callback(format!("{callback} returned {status}")));
    }
    if room.is_null() {
        return Ok(None);
    }
    // SAFETY: the callback promises a NUL-terminated string valid until it is called again.
    let text = unsafe { CStr::from_ptr(room) }.to_str().map_err(|_| Error::Callback(format!("{callback} returned a room that is not UTF-8")))?;
    Ok(Some(text.to_owned()))
}

impl MachineRoomResolver for CResolver {
    fn broker_room(&self, queue: &MessageQueue) -> Result<Option<String>, Error> {
        let topic = c_string("topic", &queue.topic)?;
        let broker = c_string("broker name", &queue.broker_name)?;
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: a caller-supplied callback with the documented arguments.
        let status = unsafe { (self.broker_room)(self.user_data, topic.as_ptr(), broker.as_ptr(), queue.queue_id, &mut out) };
        room("broker_room", status, out)
    }

    fn consumer_room(&self, client_id: &str) -> Result<Option<String>, Error> {
        let id = c_string("client id", client_id)?;
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: as above.
        let status = unsafe { (self.consumer_room)(self.user_data, id.as_ptr(), &mut out) };
        room("consumer_room", status, out)
    }
}
