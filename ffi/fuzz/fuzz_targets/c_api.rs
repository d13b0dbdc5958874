//! Drives the C entry points with arbitrary bytes as strings (invalid UTF-8 included), arbitrary
//! numbers as lengths, indices, codes and parameters, and a host whose callbacks fail at random.
//! Nothing may crash, hang or leak; every call must return a code. The entry points come from the
//! `rocketmq-rebalance-ffi` crate, which cargo-fuzz builds with the same coverage instrumentation
//! as this target, so libFuzzer sees their branches.
#![no_main]

use std::ffi::{c_char, c_void, CString};
use std::ptr;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rocketmq_rebalance_ffi::*;

#[derive(Arbitrary, Debug)]
enum Op {
    FromConfig { name: Vec<u8>, params: Option<Vec<u8>> },
    Typed { kind: u8, virtual_nodes: i64, idcs: Option<Vec<Vec<u8>>> },
    Push { topic: Vec<u8>, broker: Vec<u8>, queue_id: i32 },
    Sort,
    Get { index: usize },
    Allocate { group: Vec<u8>, current: Vec<u8>, ids: Vec<Vec<u8>>, null_ids_with_len: Option<u16>, cap: u8 },
    Group { ids: Vec<Vec<u8>> },
    SortIds { ids: Vec<Vec<u8>> },
    Compare { a: Vec<u8>, b: Vec<u8> },
    Message { code: u32, cap: u8 },
    Rebalance { config: Vec<u8>, ids: Vec<Vec<u8>>, answers: Vec<u8>, rounds: u8 },
    /// The one-call form: arbitrary tables, offsets (valid or not), rooms and flags.
    Packed { strings: Vec<u8>, group: u32, current: u32, queues: Vec<(u32, u32, i32)>, clients: Vec<u32>, rooms: Option<(Vec<u32>, Vec<u32>)>, flags: u32, cap: u8 },
    ByCounts { current_empty: bool, queues: usize, ids: usize, index: usize },
}

#[derive(Arbitrary, Debug)]
struct Input {
    ops: Vec<Op>,
}

/// C strings stop at the first NUL, as a C caller's would.
fn c(bytes: &[u8]) -> CString {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    CString::new(&bytes[..end]).unwrap()
}

struct Ids {
    _owned: Vec<CString>,
    ptrs: Vec<*const c_char>,
}

fn ids(raw: &[Vec<u8>]) -> Ids {
    let owned: Vec<CString> = raw.iter().map(|b| c(b)).collect();
    let ptrs = owned.iter().map(|s| s.as_ptr()).collect();
    Ids { _owned: owned, ptrs }
}

/// Host answers come from the fuzz input, cyclically: success, failure, found or not.
struct Answers {
    bytes: Vec<u8>,
    next: usize,
}

impl Answers {
    fn take(&mut self) -> u8 {
        if self.bytes.is_empty() {
            return 0;
        }
        let b = self.bytes[self.next % self.bytes.len()];
        self.next += 1;
        b
    }
}

unsafe fn answers<'a>(ud: *mut c_void) -> &'a mut Answers {
    unsafe { &mut *(ud as *mut Answers) }
}

unsafe extern "C" fn h_lock(ud: *mut c_void, _b: *const c_char, _q: *const rmq_queue, len: usize, locked: *mut bool) -> i32 {
    let a = unsafe { answers(ud) };
    for i in 0..len {
        unsafe { *locked.add(i) = a.take() % 2 == 0 };
    }
    (a.take() % 4 == 3) as i32
}
unsafe extern "C" fn h_unlock(ud: *mut c_void, _b: *const c_char, _q: *const rmq_queue, _len: usize) -> i32 {
    (unsafe { answers(ud) }.take() % 3 == 2) as i32
}
unsafe extern "C" fn h_read(ud: *mut c_void, _q: *const rmq_queue, _from: u32, found: *mut bool, offset: *mut i64) -> i32 {
    let a = unsafe { answers(ud) };
    unsafe {
        *found = a.take() % 2 == 0;
        *offset = a.take() as i64 - 10;
    }
    (a.take() % 5 == 4) as i32
}
unsafe extern "C" fn h_persist(ud: *mut c_void, _q: *const rmq_queue) -> i32 {
    (unsafe { answers(ud) }.take() % 3 == 2) as i32
}
unsafe extern "C" fn h_offset(ud: *mut c_void, _q: *const rmq_queue, offset: *mut i64) -> i32 {
    let a = unsafe { answers(ud) };
    unsafe { *offset = a.take() as i64 - 5 };
    (a.take() % 4 == 3) as i32
}
unsafe extern "C" fn h_search(ud: *mut c_void, q: *const rmq_queue, _ts: i64, offset: *mut i64) -> i32 {
    unsafe { h_offset(ud, q, offset) }
}
unsafe extern "C" fn h_try(ud: *mut c_void, _q: *const rmq_queue, _g: u64, _w: u64) -> bool {
    unsafe { answers(ud) }.take() % 3 != 0
}

fn run(op: &Op, strategy: &mut *mut rmq_strategy, list: *mut rmq_queue_list) {
    unsafe {
        match op {
            Op::FromConfig { name, params } => {
                let name = c(name);
                let params = params.as_ref().map(|p| c(p));
                let mut s = ptr::null_mut();
                if rmq_strategy_from_config(name.as_ptr(), params.as_ref().map_or(ptr::null(), |p| p.as_ptr()), &mut s) == rmq_result::Ok {
                    rmq_strategy_free(*strategy);
                    *strategy = s;
                }
            }
            Op::Typed { kind, virtual_nodes, idcs } => {
                let mut s = ptr::null_mut();
                let rc = match kind % 7 {
                    0 => rmq_strategy_averagely_new(&mut s),
                    1 => rmq_strategy_circle_new(&mut s),
                    2 => rmq_strategy_consistent_hash_new(*virtual_nodes % 2000, &mut s),
                    3 => match idcs {
                        None => rmq_strategy_by_machine_room_new(ptr::null(), 0, &mut s),
                        Some(raw) => {
                            let i = ids(raw);
                            rmq_strategy_by_machine_room_new(i.ptrs.as_ptr(), i.ptrs.len(), &mut s)
                        }
                    },
                    4 => rmq_strategy_by_config_new(list, &mut s),
                    5 => {
                        // Arbitrary key codes, separators and caps (in range and out of it).
                        let sep = idcs.as_ref().and_then(|raw| raw.first()).map(|b| c(b));
                        let key = (*virtual_nodes as u32) % 4;
                        let sep_ptr = if *virtual_nodes & 0x100 != 0 { sep.as_ref().map_or(ptr::null(), |s| s.as_ptr()) } else { ptr::null() };
                        rmq_strategy_balanced_sticky_v2_new(key, sep_ptr, (*virtual_nodes >> 16) % 600 - 100, (*virtual_nodes >> 32) % 200 - 50, &mut s)
                    }
                    _ => {
                        // Arbitrary key codes, separators, weight keys and weights (0 included).
                        let raw = idcs.clone().unwrap_or_default();
                        let sep = raw.first().map(|b| c(b));
                        let keys = ids(&raw);
                        let weights: Vec<u32> = (0..keys.ptrs.len()).map(|i| (*virtual_nodes >> (i % 8 * 8)) as u32 & 7).collect();
                        let key = (*virtual_nodes as u32) % 4;
                        let sep_ptr = if *virtual_nodes & 0x100 != 0 { sep.as_ref().map_or(ptr::null(), |s| s.as_ptr()) } else { ptr::null() };
                        rmq_strategy_balanced_sticky_new(key, sep_ptr, keys.ptrs.as_ptr(), weights.as_ptr(), keys.ptrs.len(), &mut s)
                    }
                };
                if rc == rmq_result::Ok {
                    rmq_strategy_free(*strategy);
                    *strategy = s;
                }
            }
            Op::Push { topic, broker, queue_id } => {
                if rmq_queue_list_len(list) < 2000 {
                    rmq_queue_list_push(list, c(topic).as_ptr(), c(broker).as_ptr(), *queue_id);
                }
            }
            Op::Sort => {
                rmq_queue_list_sort(list);
            }
            Op::Get { index } => {
                let (mut t, mut b, mut q) = (ptr::null(), ptr::null(), 0);
                rmq_queue_list_get(list, *index, &mut t, &mut b, &mut q);
            }
            Op::Allocate { group, current, ids: raw, null_ids_with_len, cap } => {
                let i = ids(raw);
                let (p, n) = match null_ids_with_len {
                    Some(n) => (ptr::null(), *n as usize),
                    None => (i.ptrs.as_ptr(), i.ptrs.len()),
                };
                let (g, cur) = (c(group), c(current));
                let mut out = ptr::null_mut();
                if rmq_strategy_allocate(*strategy, g.as_ptr(), cur.as_ptr(), list, p, n, &mut out) == rmq_result::Ok {
                    rmq_queue_list_free(out);
                }
                let mut positions = vec![0usize; *cap as usize];
                let mut len = 0;
                rmq_strategy_allocate_positions(*strategy, g.as_ptr(), cur.as_ptr(), list, p, n, positions.as_mut_ptr(), positions.len(), &mut len);
            }
            Op::Group { ids: raw } => {
                let i = ids(raw);
                let mut view = ptr::null_mut();
                if rmq_strategy_allocate_group(*strategy, c"g".as_ptr(), list, i.ptrs.as_ptr(), i.ptrs.len(), &mut view) == rmq_result::Ok {
                    let mut v = rmq_verification::default();
                    rmq_group_allocation_verify(view, &mut v);
                    let mut m = rmq_movement::default();
                    rmq_group_allocation_movement(view, view, &mut m);
                    let (mut id, mut share) = (ptr::null(), ptr::null_mut());
                    if rmq_group_allocation_member(view, 0, &mut id, &mut share) == rmq_result::Ok {
                        rmq_queue_list_free(share);
                    }
                    rmq_group_allocation_free(view);
                }
            }
            Op::SortIds { ids: raw } => {
                let mut i = ids(raw);
                rmq_sort_client_ids(i.ptrs.as_mut_ptr(), i.ptrs.len());
            }
            Op::Packed { strings, group, current, queues, clients, rooms, flags, cap } => {
                let topics: Vec<u32> = queues.iter().map(|q| q.0).collect();
                let brokers: Vec<u32> = queues.iter().map(|q| q.1).collect();
                let qids: Vec<i32> = queues.iter().map(|q| q.2).collect();
                // Room arrays must match the lists' lengths (the header's contract): pad or cut.
                let fit = |mut v: Vec<u32>, n: usize| {
                    v.resize(n, RMQ_NO_STRING);
                    v
                };
                let rooms = rooms.clone().map(|(q, c)| (fit(q, queues.len()), fit(c, clients.len())));
                let (qr, cr) = rooms.as_ref().map_or((ptr::null(), ptr::null()), |(q, c)| (q.as_ptr(), c.as_ptr()));
                let mut positions = vec![0usize; *cap as usize];
                let mut len = 0;
                rmq_strategy_allocate_packed(
                    *strategy,
                    strings.as_ptr().cast(),
                    strings.len(),
                    *group,
                    *current,
                    topics.as_ptr(),
                    brokers.as_ptr(),
                    qids.as_ptr(),
                    queues.len(),
                    clients.as_ptr(),
                    clients.len(),
                    qr,
                    cr,
                    *flags,
                    positions.as_mut_ptr(),
                    positions.len(),
                    &mut len,
                );
            }
            Op::ByCounts { current_empty, queues, ids, index } => {
                let (mut start, mut end, mut step) = (0, 0, 0);
                rmq_strategy_allocate_by_counts(*strategy, *current_empty, *queues, *ids, *index, &mut start, &mut end, &mut step);
            }
            Op::Compare { a, b } => {
                let mut out = 0;
                rmq_compare_strings(c(a).as_ptr(), c(b).as_ptr(), &mut out);
            }
            Op::Message { code, cap } => {
                let mut buf = vec![0 as c_char; *cap as usize];
                let mut n = 0;
                rmq_result_message(*code, buf.as_mut_ptr(), buf.len(), &mut n);
                rmq_result_java_exception(*code);
                // The last failure's detail, whatever earlier ops left (read into the same buffer).
                rmq_last_error_message(buf.as_mut_ptr(), buf.len(), &mut n);
                rmq_last_error_java_exception();
                rmq_last_error_code();
            }
            Op::Rebalance { config, ids: raw, answers, rounds } => {
                let mut r = ptr::null_mut();
                let text = c(config);
                let chosen = if text.as_bytes().first() == Some(&b'{') { text } else { c(br#"{"group":"g","client_id":"c1","orderly":true}"#) };
                if rmq_rebalancer_new(chosen.as_ptr(), *strategy, &mut r) != rmq_result::Ok {
                    return;
                }
                let mut a = Answers { bytes: answers.clone(), next: 0 };
                let host = rmq_host {
                    user_data: &mut a as *mut Answers as *mut c_void,
                    lock: Some(h_lock),
                    unlock: Some(h_unlock),
                    read_offset: Some(h_read),
                    persist_offset: Some(h_persist),
                    remove_offset: None,
                    max_offset: Some(h_offset),
                    search_offset: Some(h_search),
                    try_consume_lock: Some(h_try),
                    release_consume_lock: None,
                    dispatch_pull: None,
                    queue_set_changed: None,
                    schedule_rebalance: None,
                };
                let i = ids(raw);
                rmq_rebalancer_subscribe(r, c"T".as_ptr());
                for round in 0..(*rounds % 6) as u64 {
                    let mut report = ptr::null_mut();
                    let n = i.ptrs.len().saturating_sub(round as usize % 2);
                    if rmq_rebalancer_rebalance_topic(r, c"T".as_ptr(), list, i.ptrs.as_ptr(), n, round * 10_000, &host, &mut report) == rmq_result::Ok {
                        let mut s = rmq_round_summary::default();
                        rmq_round_report_summary(report, &mut s);
                        let mut len = 0;
                        rmq_round_report_to_json(report, ptr::null_mut(), 0, &mut len);
                        rmq_round_report_free(report);
                    }
                    let mut locks = rmq_lock_summary::default();
                    rmq_rebalancer_lock_all(r, round * 10_000 + 1, &host, &mut locks);
                }
                let mut report = ptr::null_mut();
                if rmq_rebalancer_shutdown(r, &host, &mut report) == rmq_result::Ok {
                    rmq_round_report_free(report);
                }
                rmq_rebalancer_free(r);
            }
        }
    }
}

fuzz_target!(|input: Input| {
    unsafe {
        let mut strategy = ptr::null_mut();
        rmq_strategy_averagely_new(&mut strategy);
        let mut list = ptr::null_mut();
        rmq_queue_list_new(&mut list);
        for op in input.ops.iter().take(64) {
            run(op, &mut strategy, list);
        }
        rmq_queue_list_free(list);
        rmq_strategy_free(strategy);
    }
});
