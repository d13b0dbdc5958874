//! `rmq_id_list`: a client-id list checked and copied once, for clients that allocate many times
//! with the same list (every topic of a rebalance round). Calls taking one skip the per-call
//! `strlen` and UTF-8 check of every id that a `const char *const *` array costs.

use std::ffi::{c_char, CString};

use rocketmq_rebalance::java_order;

use crate::args::{mut_arg, out_arg, owned_ids, ref_arg, write_out};
use crate::panic::{boundary, free_boxed, len_or_zero};
use crate::result::rmq_result;

/// An immutable-unless-sorted list of client ids. Made by `rmq_id_list_new`, freed by
/// `rmq_id_list_free`. Readable by any number of threads while no thread sorts it.
pub struct rmq_id_list {
    pub(crate) ids: Vec<String>,
    c_ids: Vec<CString>,
}

/// Copies `ids[0..len]` (each checked: NULL_PARAMETER, INVALID_UTF8) into a new list in `*out`.
#[no_mangle]
pub unsafe extern "C" fn rmq_id_list_new(ids: *const *const c_char, len: usize, out: *mut *mut rmq_id_list) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's array of `len` strings.
        let ids = unsafe { owned_ids(ids, len)? };
        // Ids came from C strings, so they hold no NUL.
        let c_ids = ids.iter().map(|s| CString::new(s.as_bytes()).unwrap_or_default()).collect();
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(rmq_id_list { ids, c_ids }))) };
        Ok(())
    })
}

/// Frees a list. NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_id_list_free(list: *mut rmq_id_list) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(list) }
}

/// The number of ids; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn rmq_id_list_len(list: *const rmq_id_list) -> usize {
    // SAFETY: forwarded: NULL or a live handle.
    unsafe { len_or_zero(list, |l| l.ids.len()) }
}

/// Id `index`, borrowed from the list (valid until it is sorted or freed).
#[no_mangle]
pub unsafe extern "C" fn rmq_id_list_get(list: *const rmq_id_list, index: usize, out: *mut *const c_char) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's handle.
        let list = unsafe { ref_arg(list)? };
        let id = list.c_ids.get(index).ok_or(rmq_result::OutOfRange)?;
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, id.as_ptr()) };
        Ok(())
    })
}

/// Sorts the ids in Java's `String.compareTo` order, as every client must before allocating.
#[no_mangle]
pub unsafe extern "C" fn rmq_id_list_sort(list: *mut rmq_id_list) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's handle, used by no other thread meanwhile.
        let list = unsafe { mut_arg(list)? };
        java_order::sort_client_ids(&mut list.ids);
        list.c_ids = list.ids.iter().map(|s| CString::new(s.as_bytes()).unwrap_or_default()).collect();
        Ok(())
    })
}
