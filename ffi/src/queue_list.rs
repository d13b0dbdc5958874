//! `rmq_queue_list`: a list of message queues (a topic route, an allocation), and Java's orderings.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::{Arc, OnceLock};

use rocketmq_rebalance::{java_order, MessageQueue};

use crate::args::{mut_arg, out_arg, ref_arg, slice_arg, str_arg, write_out};
use crate::panic::{boundary, free_boxed, len_or_zero};
use crate::result::rmq_result;

/// A list of message queues (topic, broker name, queue id), in the order they were added.
///
/// Made by `rmq_queue_list_new` or returned by an allocation; freed by `rmq_queue_list_free`.
/// Not synchronised: one thread may change a list while no other uses it; any number of threads
/// may read (allocate with) a list nobody changes.
///
/// A list returned by an allocation shares the input list's storage (it holds positions into it,
/// not copies of every queue and name), yet is independent: it stays valid and unchanged after
/// the input list is changed or freed, and changing it leaves the input alone. It keeps the
/// input's storage alive until it is freed or changed: a share kept across rounds holds that
/// round's whole route in memory.
pub struct rmq_queue_list {
    storage: Arc<Storage>,
    /// `None`: the whole of `storage`, in order. `Some`: the entries at these positions.
    view: Option<View>,
}

/// The queues and their C names, as pushed.
#[derive(Clone, Default)]
struct Storage {
    queues: Vec<MessageQueue>,
    /// NUL-terminated copies of each queue's topic and broker name, for `rmq_queue_list_get`.
    names: Vec<(Arc<CStr>, Arc<CStr>)>,
    /// One shared copy of each distinct name.
    interned: HashMap<Arc<str>, Arc<CStr>>,
}

struct View {
    positions: Vec<usize>,
    /// The selected queues side by side, made the first time the list is read as a slice (when
    /// it is given back as an input); most selections are only read entry by entry and freed.
    queues: OnceLock<Vec<MessageQueue>>,
}

impl Storage {
    fn intern(&mut self, name: &Arc<str>) -> (Arc<str>, Arc<CStr>) {
        if let Some((k, v)) = self.interned.get_key_value(name) {
            return (k.clone(), v.clone());
        }
        // Names come from C strings or from earlier C strings, so they hold no NUL.
        let c: Arc<CStr> = CString::new(name.as_bytes()).unwrap_or_default().into();
        self.interned.insert(name.clone(), c.clone());
        (name.clone(), c)
    }

    fn push(&mut self, queue: MessageQueue) {
        let (topic, topic_c) = self.intern(&queue.topic);
        let (broker, broker_c) = self.intern(&queue.broker_name);
        self.queues.push(MessageQueue { topic, broker_name: broker, queue_id: queue.queue_id });
        self.names.push((topic_c, broker_c));
    }

    /// The entries at `positions`, with their names, as storage of their own.
    fn gather(&self, positions: impl Iterator<Item = usize>) -> Storage {
        let mut out = Storage::default();
        for i in positions {
            let (queue, names) = (self.queues[i].clone(), self.names[i].clone());
            out.interned.entry(queue.topic.clone()).or_insert_with(|| names.0.clone());
            out.interned.entry(queue.broker_name.clone()).or_insert_with(|| names.1.clone());
            out.queues.push(queue);
            out.names.push(names);
        }
        out
    }
}

impl rmq_queue_list {
    pub(crate) fn empty() -> Self {
        rmq_queue_list { storage: Arc::new(Storage::default()), view: None }
    }

    /// A list of `queues` that are new to C (a CONFIG list, the engine's table).
    pub(crate) fn from_queues(queues: impl IntoIterator<Item = MessageQueue>) -> Self {
        let mut storage = Storage::default();
        for q in queues {
            storage.push(q);
        }
        rmq_queue_list { storage: Arc::new(storage), view: None }
    }

    /// The queues, side by side.
    pub(crate) fn queues(&self) -> &[MessageQueue] {
        match &self.view {
            None => &self.storage.queues,
            Some(view) => view.queues.get_or_init(|| view.positions.iter().map(|&i| self.storage.queues[i].clone()).collect()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.view.as_ref().map_or(self.storage.queues.len(), |v| v.positions.len())
    }

    /// The storage position of entry `index`, if there is one.
    fn position(&self, index: usize) -> Option<usize> {
        match &self.view {
            None => (index < self.storage.queues.len()).then_some(index),
            Some(view) => view.positions.get(index).copied(),
        }
    }

    /// The entries at `positions` of this list, sharing its storage.
    pub(crate) fn select(&self, positions: impl Iterator<Item = usize>) -> Self {
        let positions = match &self.view {
            None => positions.collect(),
            Some(view) => positions.map(|i| view.positions[i]).collect(),
        };
        rmq_queue_list { storage: self.storage.clone(), view: Some(View { positions, queues: OnceLock::new() }) }
    }

    /// The same entries, sharing this list's storage (for a value that keeps its input).
    pub(crate) fn share(&self) -> Self {
        match &self.view {
            None => rmq_queue_list { storage: self.storage.clone(), view: None },
            Some(_) => self.select(0..self.len()),
        }
    }

    /// Storage of this list's own, before it changes: a selection stops sharing its parent's.
    fn storage_mut(&mut self) -> &mut Storage {
        if let Some(view) = self.view.take() {
            self.storage = Arc::new(self.storage.gather(view.positions.into_iter()));
        }
        Arc::make_mut(&mut self.storage)
    }

    pub(crate) fn push(&mut self, queue: MessageQueue) {
        self.storage_mut().push(queue);
    }

    fn sort(&mut self) {
        let storage = self.storage_mut();
        let mut order: Vec<usize> = (0..storage.queues.len()).collect();
        order.sort_by(|&a, &b| storage.queues[a].cmp(&storage.queues[b]));
        let sorted = storage.gather(order.into_iter());
        *storage = sorted;
    }
}

/// Makes an empty list; `*out` receives it (free with `rmq_queue_list_free`).
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_new(out: *mut *mut rmq_queue_list) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(rmq_queue_list::empty()))) };
        Ok(())
    })
}

/// Frees a list made by this library. NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_free(list: *mut rmq_queue_list) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(list) }
}

/// Appends the queue (`topic`, `broker_name`, `queue_id`); both strings are copied.
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_push(list: *mut rmq_queue_list, topic: *const c_char, broker_name: *const c_char, queue_id: i32) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's arguments, as documented.
        let (list, topic, broker) = unsafe { (mut_arg(list)?, str_arg(topic)?, str_arg(broker_name)?) };
        list.push(MessageQueue::new(topic, broker, queue_id));
        Ok(())
    })
}

/// The number of queues in `list`; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_len(list: *const rmq_queue_list) -> usize {
    // SAFETY: forwarded: NULL or a live handle.
    unsafe { len_or_zero(list, rmq_queue_list::len) }
}

/// The queue at `index`. `*topic` and `*broker_name` are borrowed from the list: valid until the
/// list is changed or freed. Any of the three out-parameters may be NULL when not wanted.
/// `RMQ_RESULT_OUT_OF_RANGE` when `index >= rmq_queue_list_len(list)`.
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_get(
    list: *const rmq_queue_list,
    index: usize,
    topic: *mut *const c_char,
    broker_name: *mut *const c_char,
    queue_id: *mut i32,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's handle.
        let list = unsafe { ref_arg(list)? };
        let at = list.position(index).ok_or(rmq_result::OutOfRange)?;
        let (queue, (t, b)) = (&list.storage.queues[at], &list.storage.names[at]);
        // SAFETY: each out-parameter is NULL (skipped) or writable.
        unsafe {
            if !topic.is_null() {
                write_out(topic, t.as_ptr());
            }
            if !broker_name.is_null() {
                write_out(broker_name, b.as_ptr());
            }
            if !queue_id.is_null() {
                write_out(queue_id, queue.queue_id);
            }
        }
        Ok(())
    })
}

/// Sorts the list as `Collections.sort` sorts `MessageQueue`s in Java (topic, then broker name,
/// both in UTF-16 order, then queue id), which is what every client must do before allocating.
#[no_mangle]
pub unsafe extern "C" fn rmq_queue_list_sort(list: *mut rmq_queue_list) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's handle.
        unsafe { mut_arg(list)? }.sort();
        Ok(())
    })
}

/// Sorts `ids[0..len]` in place (the pointers are permuted) in Java's `String.compareTo` order,
/// which differs from `strcmp` for characters outside the Basic Multilingual Plane.
#[no_mangle]
pub unsafe extern "C" fn rmq_sort_client_ids(ids: *mut *const c_char, len: usize) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's array of `len` strings.
        let raw = unsafe { slice_arg(ids.cast_const(), len) }?;
        let mut keyed: Vec<(&str, *const c_char)> = Vec::with_capacity(raw.len());
        for &p in raw {
            // SAFETY: each entry is a string argument.
            keyed.push((unsafe { str_arg(p) }?, p));
        }
        keyed.sort_by(|a, b| java_order::compare_strings(a.0, b.0));
        for (i, (_, p)) in keyed.into_iter().enumerate() {
            // SAFETY: `ids` has `len` writable entries (non-NULL: `slice_arg` checked it).
            unsafe { ids.add(i).write(p) };
        }
        Ok(())
    })
}

/// Java's `a.compareTo(b)` for two strings: negative, zero or positive, in UTF-16 order. Writes
/// the result into `*out`.
#[no_mangle]
pub unsafe extern "C" fn rmq_compare_strings(a: *const c_char, b: *const c_char, out: *mut i32) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's strings; `out` checked.
        unsafe {
            let value = java_order::compare_strings_value(str_arg(a)?, str_arg(b)?);
            write_out(out, value);
        }
        Ok(())
    })
}
