//! The engine's host given as a struct of C function pointers.

use std::ffi::{c_char, c_void, CString};

use rocketmq_rebalance::engine::{Host, HostError, OffsetRead, ReadFrom};
use rocketmq_rebalance::MessageQueue;

use crate::queue_list::rmq_queue_list;
use crate::result::rmq_result;

/// One message queue as a callback sees it. The strings are borrowed for the duration of the
/// callback only: copy what you keep.
#[repr(C)]
pub struct rmq_queue {
    pub topic: *const c_char,
    pub broker_name: *const c_char,
    pub queue_id: i32,
}

/// `read_offset`: the broker's committed offset (push consumers).
pub const RMQ_READ_FROM_STORE: u32 = 0;
/// `read_offset`: the client's cached offset if any, else the broker's (lite-pull consumers).
pub const RMQ_READ_FROM_MEMORY_THEN_STORE: u32 = 1;

/// The client around the engine: broker calls, the offset store and the consume service.
///
/// Passed to every engine call and used only during it (the engine keeps no pointer to it), on
/// the calling thread, in the order the engine documents. Callbacks that return `int32_t` return 0
/// for success and anything else for failure; the engine treats a failure as that step's failure
/// (the queue stays in a defined state that a later round repairs) and names the callback and the
/// number in the round report. Callbacks must not unwind (throw) into the library and must not
/// call the same rebalancer (that gives `RMQ_RESULT_REENTRANT`).
///
/// Required: `lock`, `unlock`, `read_offset`, `persist_offset`, `max_offset`, `search_offset`,
/// `try_consume_lock`. Optional (NULL means nothing to do): `remove_offset`,
/// `release_consume_lock`, `dispatch_pull`, `queue_set_changed`, `schedule_rebalance`.
#[repr(C)]
pub struct rmq_host {
    pub user_data: *mut c_void,
    /// `lockBatchMQ`: lock `queues[0..len]` (all on `broker_name`); set `locked[i]` to true for
    /// each queue now locked by this client (all start false).
    pub lock: Option<unsafe extern "C" fn(user_data: *mut c_void, broker_name: *const c_char, queues: *const rmq_queue, len: usize, locked: *mut bool) -> i32>,
    /// `unlockBatchMQ`.
    pub unlock: Option<unsafe extern "C" fn(user_data: *mut c_void, broker_name: *const c_char, queues: *const rmq_queue, len: usize) -> i32>,
    /// Reads the committed offset from `from` (`RMQ_READ_FROM_*`): on success set `*found` and,
    /// when found, `*offset`. "Not found" (a new group) and "could not ask" (return non-zero)
    /// differ: only the first lets ConsumeFromWhere apply.
    pub read_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, from: u32, found: *mut bool, offset: *mut i64) -> i32>,
    /// Commits the cached offset of `queue` to the broker.
    pub persist_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue) -> i32>,
    /// Forgets the cached offset of `queue`.
    pub remove_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue)>,
    /// The queue's max offset into `*offset`.
    pub max_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, offset: *mut i64) -> i32>,
    /// The offset of the first message stored at or after `timestamp_ms`, into `*offset`.
    pub search_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, timestamp_ms: i64, offset: *mut i64) -> i32>,
    /// Tries to take the consume lock of queue state `generation`, waiting at most `wait_ms`;
    /// true when taken (the engine then calls `release_consume_lock`).
    pub try_consume_lock: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, generation: u64, wait_ms: u64) -> bool>,
    pub release_consume_lock: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, generation: u64)>,
    /// Start pulling `queue` from `offset` after `delay_ms`, for queue state `generation`.
    pub dispatch_pull: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, offset: i64, delay_ms: u64, generation: u64)>,
    /// `MessageQueueListener.messageQueueChanged`: every queue of `topic`, and this client's share.
    pub queue_set_changed: Option<unsafe extern "C" fn(user_data: *mut c_void, topic: *const c_char, all: *const rmq_queue_list, mine: *const rmq_queue_list)>,
    /// Run another round after `delay_ms` (a lock was refused).
    pub schedule_rebalance: Option<unsafe extern "C" fn(user_data: *mut c_void, delay_ms: u64)>,
}

/// The optional callbacks added after the first release, given once per rebalancer with
/// `rmq_rebalancer_set_host_ext` (the `rmq_host` struct keeps its size, so hosts compiled against
/// the first header keep working). Set `struct_size` to `sizeof(rmq_host_ext)`: fields past the
/// size a caller was compiled with are read as NULL, so later versions can add more.
#[repr(C)]
pub struct rmq_host_ext {
    pub struct_size: usize,
    /// Passed to the callbacks below (not the `rmq_host`'s).
    pub user_data: *mut c_void,
    /// A queue state was dropped (released, or its lock lost): stop pulling it. Once per state.
    pub stop_pull: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, generation: u64)>,
    /// Set the group's committed offset of `queue` to `offset` on the broker, synchronously; 0 on
    /// success. Safe mode calls it when `consume_from` chose a start offset, so a queue is started
    /// once per group. NULL: the queue starts uncommitted, as in Java, and the round warns.
    pub commit_offset: Option<unsafe extern "C" fn(user_data: *mut c_void, queue: *const rmq_queue, offset: i64) -> i32>,
}

/// The extension as stored in a rebalancer.
#[derive(Clone, Copy)]
pub(crate) struct HostExt {
    user_data: *mut c_void,
    stop_pull: Option<unsafe extern "C" fn(*mut c_void, *const rmq_queue, u64)>,
    commit_offset: Option<unsafe extern "C" fn(*mut c_void, *const rmq_queue, i64) -> i32>,
}

// SAFETY: the pointers are the caller's; the C API documents that the callbacks may be called
// from whichever thread calls the rebalancer, as the `rmq_host` callbacks are.
unsafe impl Send for HostExt {}

impl HostExt {
    /// Copies the fields the caller's `struct_size` covers; the rest stay NULL.
    pub(crate) fn read(raw: &rmq_host_ext) -> Result<HostExt, rmq_result> {
        let base = raw as *const rmq_host_ext as usize;
        let covers = |field: usize| field - base + std::mem::size_of::<usize>() <= raw.struct_size;
        if raw.struct_size < std::mem::size_of::<usize>() * 2 {
            return Err(rmq_result::OutOfRange);
        }
        Ok(HostExt {
            user_data: raw.user_data,
            stop_pull: if covers(std::ptr::addr_of!(raw.stop_pull) as usize) { raw.stop_pull } else { None },
            commit_offset: if covers(std::ptr::addr_of!(raw.commit_offset) as usize) { raw.commit_offset } else { None },
        })
    }
}

type LockFn = unsafe extern "C" fn(*mut c_void, *const c_char, *const rmq_queue, usize, *mut bool) -> i32;
type UnlockFn = unsafe extern "C" fn(*mut c_void, *const c_char, *const rmq_queue, usize) -> i32;
type ReadOffsetFn = unsafe extern "C" fn(*mut c_void, *const rmq_queue, u32, *mut bool, *mut i64) -> i32;
type QueueFn = unsafe extern "C" fn(*mut c_void, *const rmq_queue) -> i32;
type OffsetFn = unsafe extern "C" fn(*mut c_void, *const rmq_queue, *mut i64) -> i32;
type SearchFn = unsafe extern "C" fn(*mut c_void, *const rmq_queue, i64, *mut i64) -> i32;
type TryLockFn = unsafe extern "C" fn(*mut c_void, *const rmq_queue, u64, u64) -> bool;

/// A host whose required callbacks were checked; implements the core's `Host`.
pub(crate) struct CHost<'a> {
    raw: &'a rmq_host,
    ext: Option<HostExt>,
    lock: LockFn,
    unlock: UnlockFn,
    read_offset: ReadOffsetFn,
    persist_offset: QueueFn,
    max_offset: OffsetFn,
    search_offset: SearchFn,
    try_consume_lock: TryLockFn,
}

impl<'a> CHost<'a> {
    pub(crate) fn new(raw: &'a rmq_host) -> Result<Self, rmq_result> {
        let missing = rmq_result::NullParameter;
        Ok(CHost {
            raw,
            ext: None,
            lock: raw.lock.ok_or(missing)?,
            unlock: raw.unlock.ok_or(missing)?,
            read_offset: raw.read_offset.ok_or(missing)?,
            persist_offset: raw.persist_offset.ok_or(missing)?,
            max_offset: raw.max_offset.ok_or(missing)?,
            search_offset: raw.search_offset.ok_or(missing)?,
            try_consume_lock: raw.try_consume_lock.ok_or(missing)?,
        })
    }
}

impl CHost<'_> {
    pub(crate) fn with_ext(mut self, ext: Option<HostExt>) -> Self {
        self.ext = ext;
        self
    }
}

/// NUL-terminated copies of queues and the `rmq_queue` views of them, alive for one callback.
struct CQueues {
    _names: Vec<(CString, CString)>,
    views: Vec<rmq_queue>,
}

fn c_text(s: &str) -> Result<CString, HostError> {
    CString::new(s).map_err(|_| HostError::new(format!("{s:?} contains a NUL byte and cannot be passed to C")))
}

impl CQueues {
    fn new(queues: &[MessageQueue]) -> Result<Self, HostError> {
        let names = queues.iter().map(|q| Ok((c_text(&q.topic)?, c_text(&q.broker_name)?))).collect::<Result<Vec<_>, HostError>>()?;
        let views = names.iter().zip(queues).map(|((t, b), q)| rmq_queue { topic: t.as_ptr(), broker_name: b.as_ptr(), queue_id: q.queue_id }).collect();
        Ok(CQueues { _names: names, views })
    }

    fn one(queue: &MessageQueue) -> Result<Self, HostError> {
        Self::new(std::slice::from_ref(queue))
    }
}

fn status(callback: &str, code: i32) -> Result<(), HostError> {
    if code == 0 {
        Ok(())
    } else {
        Err(HostError::new(format!("{callback} callback returned {code}")))
    }
}

impl Host for CHost<'_> {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        let c = CQueues::new(queues)?;
        let broker_c = c_text(broker)?;
        let mut locked = vec![false; queues.len()];
        // SAFETY: the caller's callback, with arrays of `queues.len()` entries.
        let code = unsafe { (self.lock)(self.raw.user_data, broker_c.as_ptr(), c.views.as_ptr(), c.views.len(), locked.as_mut_ptr()) };
        status("lock", code)?;
        Ok(queues.iter().zip(locked).filter(|(_, l)| *l).map(|(q, _)| q.clone()).collect())
    }

    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        let c = CQueues::new(queues)?;
        let broker_c = c_text(broker)?;
        // SAFETY: as above.
        status("unlock", unsafe { (self.unlock)(self.raw.user_data, broker_c.as_ptr(), c.views.as_ptr(), c.views.len()) })
    }

    fn read_offset(&mut self, queue: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError> {
        let c = CQueues::one(queue)?;
        let from = match from {
            ReadFrom::Store => RMQ_READ_FROM_STORE,
            ReadFrom::MemoryThenStore => RMQ_READ_FROM_MEMORY_THEN_STORE,
        };
        let (mut found, mut offset) = (false, 0i64);
        // SAFETY: as above.
        status("read_offset", unsafe { (self.read_offset)(self.raw.user_data, c.views.as_ptr(), from, &mut found, &mut offset) })?;
        Ok(if found { OffsetRead::Found(offset) } else { OffsetRead::NotFound })
    }

    fn persist_offset(&mut self, queue: &MessageQueue) -> Result<(), HostError> {
        let c = CQueues::one(queue)?;
        // SAFETY: as above.
        status("persist_offset", unsafe { (self.persist_offset)(self.raw.user_data, c.views.as_ptr()) })
    }

    fn remove_offset(&mut self, queue: &MessageQueue) {
        if let (Some(f), Ok(c)) = (self.raw.remove_offset, CQueues::one(queue)) {
            // SAFETY: as above.
            unsafe { f(self.raw.user_data, c.views.as_ptr()) }
        }
    }

    fn max_offset(&mut self, queue: &MessageQueue) -> Result<i64, HostError> {
        let c = CQueues::one(queue)?;
        let mut offset = 0i64;
        // SAFETY: as above.
        status("max_offset", unsafe { (self.max_offset)(self.raw.user_data, c.views.as_ptr(), &mut offset) })?;
        Ok(offset)
    }

    fn search_offset(&mut self, queue: &MessageQueue, timestamp_ms: i64) -> Result<i64, HostError> {
        let c = CQueues::one(queue)?;
        let mut offset = 0i64;
        // SAFETY: as above.
        status("search_offset", unsafe { (self.search_offset)(self.raw.user_data, c.views.as_ptr(), timestamp_ms, &mut offset) })?;
        Ok(offset)
    }

    fn try_consume_lock(&mut self, queue: &MessageQueue, generation: u64, wait_ms: u64) -> bool {
        // A queue that cannot be named to C cannot be consumed either: its lock is free.
        let Ok(c) = CQueues::one(queue) else {
            return true;
        };
        // SAFETY: as above.
        unsafe { (self.try_consume_lock)(self.raw.user_data, c.views.as_ptr(), generation, wait_ms) }
    }

    fn release_consume_lock(&mut self, queue: &MessageQueue, generation: u64) {
        if let (Some(f), Ok(c)) = (self.raw.release_consume_lock, CQueues::one(queue)) {
            // SAFETY: as above.
            unsafe { f(self.raw.user_data, c.views.as_ptr(), generation) }
        }
    }

    fn dispatch_pull(&mut self, queue: &MessageQueue, offset: i64, delay_ms: u64, generation: u64) {
        if let (Some(f), Ok(c)) = (self.raw.dispatch_pull, CQueues::one(queue)) {
            // SAFETY: as above.
            unsafe { f(self.raw.user_data, c.views.as_ptr(), offset, delay_ms, generation) }
        }
    }

    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]) {
        let Some(f) = self.raw.queue_set_changed else {
            return;
        };
        let Ok(topic) = c_text(topic) else { return };
        let all = rmq_queue_list::from_queues(all.iter().cloned());
        let mine = rmq_queue_list::from_queues(divided.iter().cloned());
        // SAFETY: as above; the lists live until the callback returns.
        unsafe { f(self.raw.user_data, topic.as_ptr(), &all, &mine) }
    }

    fn schedule_rebalance(&mut self, delay_ms: u64) {
        if let Some(f) = self.raw.schedule_rebalance {
            // SAFETY: as above.
            unsafe { f(self.raw.user_data, delay_ms) }
        }
    }

    fn stop_pull(&mut self, queue: &MessageQueue, generation: u64) {
        let Some(ext) = self.ext else { return };
        if let (Some(f), Ok(c)) = (ext.stop_pull, CQueues::one(queue)) {
            // SAFETY: the caller's callback from `rmq_rebalancer_set_host_ext`.
            unsafe { f(ext.user_data, c.views.as_ptr(), generation) }
        }
    }

    fn commit_offset(&mut self, queue: &MessageQueue, offset: i64) -> Option<Result<(), HostError>> {
        let ext = self.ext?;
        let f = ext.commit_offset?;
        Some(CQueues::one(queue).and_then(|c| {
            // SAFETY: as above.
            status("commit_offset", unsafe { f(ext.user_data, c.views.as_ptr(), offset) })
        }))
    }
}
