//! `rmq_rebalancer`: one client's rebalancing state, driven through a C host.

use std::collections::BTreeMap;
use std::ffi::c_char;
use std::sync::Mutex;

use rocketmq_rebalance::engine::{ConsumeView, LockReport, RebalanceConfig, Rebalancer, Session, TopicView};
use rocketmq_rebalance::MessageQueue;

use crate::args::{out_arg, owned_ids, ref_arg, slice_arg, str_arg, write_out};
use crate::host::{rmq_host, rmq_host_ext, CHost, HostExt};
use crate::panic::{boundary, free_boxed};
use crate::queue_list::rmq_queue_list;
use crate::report::{rmq_round_report, rmq_round_report_list};
use crate::result::rmq_result;
use crate::strategy::rmq_strategy;

/// One consumer's rebalancing state (Java's `RebalanceImpl`): its subscriptions and the queues it
/// holds. Made by `rmq_rebalancer_new`, freed by `rmq_rebalancer_free`.
///
/// Thread-safe: calls from several threads are serialised by an internal mutex (a client
/// normally runs rounds on one thread). `rmq_rebalancer_is_consumable`, `_record_pull` and
/// `_generation` never take that mutex: consume threads ask them (under their consume lock)
/// without waiting for a running round, from any thread, even from inside a host callback. Any
/// other call made from inside one of the same rebalancer's host callbacks returns
/// `RMQ_RESULT_REENTRANT` instead of deadlocking.
pub struct rmq_rebalancer {
    session: Session,
    ext: Mutex<Option<HostExt>>,
}

/// What one client knows of one topic at the start of a round, for `rmq_rebalancer_rebalance_all`.
#[repr(C)]
pub struct rmq_topic_view {
    pub topic: *const c_char,
    /// The topic's readable queues; NULL when the route is unknown.
    pub queues: *const rmq_queue_list,
    /// The group's client ids; NULL (with `client_ids_len` 0) when they could not be fetched.
    pub client_ids: *const *const c_char,
    pub client_ids_len: usize,
}

/// The outcome of `rmq_rebalancer_lock_all`, `_lock_queue` and `_locks_lost`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct rmq_lock_summary {
    /// Queues whose orderly lock was renewed.
    pub renewed: usize,
    /// Queues whose lock is lost (refused, wiped by a restart, or in safe mode regained only after
    /// the broker's expiry): not consumable; safe mode restarts them with a new generation.
    pub lost: usize,
    /// Brokers whose lock call failed.
    pub failed_calls: usize,
}

/// Runs `f` on the rebalancer behind `r`, through its session (re-entry refused, rounds
/// serialised, a poisoned mutex taken over).
unsafe fn with_rebalancer<T>(r: *const rmq_rebalancer, f: impl FnOnce(&mut Rebalancer) -> Result<T, rmq_result>) -> Result<T, rmq_result> {
    // SAFETY: the caller's handle.
    let r = unsafe { ref_arg(r)? };
    f(&mut *r.session.enter()?)
}

/// The host of one call, with the rebalancer's extension callbacks.
unsafe fn host_arg<'a>(r: *const rmq_rebalancer, host: *const rmq_host) -> Result<CHost<'a>, rmq_result> {
    // SAFETY: the caller's handle and host struct, alive for the call.
    let (r, host) = unsafe { (ref_arg(r)?, ref_arg(host)?) };
    let ext = *r.ext.lock().unwrap_or_else(|e| e.into_inner());
    Ok(CHost::new(host)?.with_ext(ext))
}

/// The consume view of a handle (no mutex, no re-entry check: these queries never wait).
unsafe fn view_of<'a>(r: *const rmq_rebalancer) -> Result<&'a ConsumeView, rmq_result> {
    // SAFETY: the caller's handle.
    Ok(unsafe { ref_arg(r)?.session.view() })
}

/// Makes a rebalancer from a JSON configuration and a strategy (shared, not consumed):
/// `{"group": "g", "client_id": "10.0.0.1@1", "orderly": false, "consume_type": "push",
/// "model": "clustering", "consume_from": "last_offset", "consume_timestamp_ms": 0,
/// "semantics": "safe", "timing": {...}}`; only `group` and `client_id` are required.
/// `RMQ_RESULT_INVALID_PARAMETERS` for malformed or contradictory settings.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_new(config_json: *const c_char, strategy: *const rmq_strategy, out: *mut *mut rmq_rebalancer) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        let (text, strategy) = unsafe { (str_arg(config_json)?, ref_arg(strategy)?) };
        let config = RebalanceConfig::from_json(text)?;
        let rebalancer = Rebalancer::new(config, strategy.inner.clone())?;
        let handle = rmq_rebalancer { session: Session::new(rebalancer), ext: Mutex::new(None) };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out, Box::into_raw(Box::new(handle))) };
        Ok(())
    })
}

/// Frees a rebalancer without calling the host (call `rmq_rebalancer_shutdown` first to commit
/// offsets and unlock). NULL does nothing.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_free(rebalancer: *mut rmq_rebalancer) {
    // SAFETY: forwarded: NULL or a handle this library made, given back once.
    unsafe { free_boxed(rebalancer) }
}

/// Gives the rebalancer the optional host callbacks of `ext` (copied; NULL removes them). They
/// are used with every later call's `rmq_host`. `RMQ_RESULT_OUT_OF_RANGE` when `ext->struct_size`
/// is smaller than its first two fields.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_set_host_ext(rebalancer: *const rmq_rebalancer, ext: *const rmq_host_ext) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's arguments.
        let (r, ext) = unsafe { (ref_arg(rebalancer)?, ext.as_ref()) };
        let ext = ext.map(HostExt::read).transpose()?;
        *r.ext.lock().unwrap_or_else(|e| e.into_inner()) = ext;
        Ok(())
    })
}

/// Subscribes to `topic`: `rmq_rebalancer_rebalance_all` includes it from now on.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_subscribe(rebalancer: *const rmq_rebalancer, topic: *const c_char) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { on_topic(rebalancer, topic, |r, t| r.subscribe(t)) }
}

/// Unsubscribes: the topic's queues are released at the next `rmq_rebalancer_rebalance_all`.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_unsubscribe(rebalancer: *const rmq_rebalancer, topic: *const c_char) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { on_topic(rebalancer, topic, Rebalancer::unsubscribe) }
}

/// A change of subscriptions: `change` applied to the rebalancer with the topic as text.
unsafe fn on_topic(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    change: impl FnOnce(&mut Rebalancer, &str) -> rocketmq_rebalance::Result<()>,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's arguments.
        unsafe {
            let topic = str_arg(topic)?;
            with_rebalancer(rebalancer, |r| Ok(change(r, topic)?))
        }
    })
}

/// One round for one topic (`rebalanceByTopic`): compute this client's share, release queues no
/// longer ours, take new ones, calling `host` along the way. `queues` NULL means the route is
/// unknown; `client_ids` NULL (with length 0) means the id list could not be fetched; both are
/// sorted by the engine. `*out` receives the report (free with `rmq_round_report_free`).
/// A failing callback is not an error of this call: it shows in the report.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_rebalance_topic(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    queues: *const rmq_queue_list,
    client_ids: *const *const c_char,
    client_ids_len: usize,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut *mut rmq_round_report,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let topic = str_arg(topic)?;
            let view = topic_view(queues, client_ids, client_ids_len)?;
            let mut host = host_arg(rebalancer, host)?;
            let report =
                with_rebalancer(rebalancer, |r| Ok(r.rebalance_topic(topic, view.queues.as_deref(), view.client_ids.as_deref(), now_ms, &mut host)?))?;
            write_out(out, rmq_round_report::into_raw(report));
        }
        Ok(())
    })
}

unsafe fn topic_view(queues: *const rmq_queue_list, ids: *const *const c_char, ids_len: usize) -> Result<TopicView, rmq_result> {
    // SAFETY: NULL or a live list; the caller's id array.
    unsafe {
        let queues = queues.as_ref().map(|l| l.queues().to_vec());
        let client_ids = if ids.is_null() && ids_len == 0 { None } else { Some(owned_ids(ids, ids_len)?) };
        Ok(TopicView { queues, client_ids })
    }
}

/// One round for every subscribed topic, from `views[0..views_len]` (a subscribed topic without
/// a view counts as unknown), then the release of queues of unsubscribed topics. A strategy that
/// balances across topics (BALANCED_STICKY) is asked once for all topics sharing a client-id list. `*out` receives
/// the reports (free with `rmq_round_report_list_free`).
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_rebalance_all(
    rebalancer: *const rmq_rebalancer,
    views: *const rmq_topic_view,
    views_len: usize,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut *mut rmq_round_report_list,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let mut map = BTreeMap::new();
            for v in slice_arg(views, views_len)? {
                map.insert(str_arg(v.topic)?.to_owned(), topic_view(v.queues, v.client_ids, v.client_ids_len)?);
            }
            let mut host = host_arg(rebalancer, host)?;
            let reports = with_rebalancer(rebalancer, |r| Ok(r.rebalance_all(&map, now_ms, &mut host)?))?;
            let list = rmq_round_report_list { reports: reports.into_iter().map(|report| rmq_round_report { report }).collect() };
            write_out(out, Box::into_raw(Box::new(list)));
        }
        Ok(())
    })
}

/// `lockAll` (every 20 s for orderly consumers): renews the broker lock of every held queue.
/// Accepted after shutdown in safe mode: it renews what shutdown left locked.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_lock_all(
    rebalancer: *const rmq_rebalancer,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut rmq_lock_summary,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    boundary(|| unsafe { lock_call(rebalancer, host, out, |r, h| r.lock_all(now_ms, h)) })
}

/// `lockOneMQ`: locks one held queue found unlocked or expired. Java mode resumes the old state;
/// safe mode only renews a lock that is still this client's.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_lock_queue(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut rmq_lock_summary,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's arguments.
        let queue = unsafe { queue_arg(topic, broker_name, queue_id)? };
        // SAFETY: as above.
        unsafe { lock_call(rebalancer, host, out, |r, h| r.lock_queue(&queue, now_ms, h)) }
    })
}

/// The host saw `broker_name` restart (its lock table is empty): safe mode stops consuming that
/// broker's orderly queues until each is re-locked with a new generation (the next round, which it
/// asks for through `schedule_rebalance`), and asks that broker at once for the locks of the states
/// it drops, to fence the listener calls still running on them. Java mode: nothing changes.
/// Accepted after shutdown in safe mode: it fences what shutdown left.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_locks_lost(
    rebalancer: *const rmq_rebalancer,
    broker_name: *const c_char,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut rmq_lock_summary,
) -> rmq_result {
    boundary(|| {
        // SAFETY: the caller's arguments.
        let broker = unsafe { str_arg(broker_name)? };
        // SAFETY: as above.
        unsafe { lock_call(rebalancer, host, out, |r, h| r.locks_lost(broker, now_ms, h)) }
    })
}

unsafe fn queue_arg(topic: *const c_char, broker_name: *const c_char, queue_id: i32) -> Result<MessageQueue, rmq_result> {
    // SAFETY: the caller's strings.
    unsafe { Ok(MessageQueue::new(str_arg(topic)?, str_arg(broker_name)?, queue_id)) }
}

/// A call that answers with a lock report, summarised into `*out` (inside the caller's boundary).
unsafe fn lock_call(
    rebalancer: *const rmq_rebalancer,
    host: *const rmq_host,
    out: *mut rmq_lock_summary,
    f: impl FnOnce(&mut Rebalancer, &mut CHost<'_>) -> rocketmq_rebalance::Result<LockReport>,
) -> Result<(), rmq_result> {
    let out = out_arg(out)?;
    // SAFETY: the caller's arguments.
    unsafe {
        let mut host = host_arg(rebalancer, host)?;
        let report = with_rebalancer(rebalancer, |r| Ok(f(r, &mut host)?))?;
        write_out(out, rmq_lock_summary { renewed: report.renewed.len(), lost: report.lost.len(), failed_calls: report.warnings.len() });
    }
    Ok(())
}

/// Releases one queue at the host's request (the broker said OFFSET_ILLEGAL, an offset reset).
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_drop_queue(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut *mut rmq_round_report,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let queue = queue_arg(topic, broker_name, queue_id)?;
            let mut host = host_arg(rebalancer, host)?;
            let report = with_rebalancer(rebalancer, |r| Ok(r.drop_queue(&queue, now_ms, &mut host)?))?;
            write_out(out, rmq_round_report::into_raw(report));
        }
        Ok(())
    })
}

/// Shutdown: releases every queue. Safe mode commits and unlocks an orderly queue only under its
/// consume lock and after its commit; one whose listener call still runs (or whose commit or
/// unlock fails) stays locked and is reported deferred: keep calling `rmq_rebalancer_lock_all`
/// while those calls run, then shut down again (`rmq_rebalancer_shutdown_at`) to finish. Every
/// other call is refused from now on with `RMQ_RESULT_SHUT_DOWN`. Uses the latest `now_ms` any
/// call gave.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_shutdown(rebalancer: *const rmq_rebalancer, host: *const rmq_host, out: *mut *mut rmq_round_report) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { shutdown_call(rebalancer, None, host, out) }
}

/// `rmq_rebalancer_shutdown` at `now_ms` (a repeated shutdown judges lock expiry and the give-up
/// bound by it).
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_shutdown_at(
    rebalancer: *const rmq_rebalancer,
    now_ms: u64,
    host: *const rmq_host,
    out: *mut *mut rmq_round_report,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { shutdown_call(rebalancer, Some(now_ms), host, out) }
}

unsafe fn shutdown_call(rebalancer: *const rmq_rebalancer, now_ms: Option<u64>, host: *const rmq_host, out: *mut *mut rmq_round_report) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let mut host = host_arg(rebalancer, host)?;
            let report = with_rebalancer(rebalancer, |r| {
                Ok(match now_ms {
                    Some(now) => r.shutdown_at(now, &mut host),
                    None => r.shutdown(&mut host),
                })
            })?;
            write_out(out, rmq_round_report::into_raw(report));
        }
        Ok(())
    })
}

/// Whether `rmq_rebalancer_shutdown` was called, into `*out`.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_is_shut_down(rebalancer: *const rmq_rebalancer, out: *mut bool) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let value = with_rebalancer(rebalancer, |r| Ok(r.is_shut_down()))?;
            write_out(out, value);
        }
        Ok(())
    })
}

/// The queues held now (releases still pending included), in Java order, as a new list.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_held(rebalancer: *const rmq_rebalancer, out: *mut *mut rmq_queue_list) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments.
        unsafe {
            let list = with_rebalancer(rebalancer, |r| Ok(rmq_queue_list::from_queues(r.held().map(|(q, _)| q.clone()))))?;
            write_out(out, Box::into_raw(Box::new(list)));
        }
        Ok(())
    })
}

/// The generation of the held state of a queue (given to `dispatch_pull`), into `*out`; 0 when the
/// queue is not held. Never waits for a running round.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_generation(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    out: *mut u64,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { query(rebalancer, topic, broker_name, queue_id, out, |v, q| v.generation(q).unwrap_or(0)) }
}

/// Whether the consume service may consume the queue for state `generation` now (held, not
/// released, and for orderly consumers locked recently enough), into `*out`. Never waits for a
/// running round: ask it from the consume thread while holding the queue's consume lock.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_is_consumable(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    generation: u64,
    now_ms: u64,
    out: *mut bool,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { query(rebalancer, topic, broker_name, queue_id, out, |r, q| r.is_consumable(q, generation, now_ms)) }
}

/// Records a pull of the queue for state `generation` (keeps a push queue from expiring);
/// `*out` is false for a stale generation. Never waits for a running round.
#[no_mangle]
pub unsafe extern "C" fn rmq_rebalancer_record_pull(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    generation: u64,
    now_ms: u64,
    out: *mut bool,
) -> rmq_result {
    // SAFETY: the caller's arguments.
    unsafe { query(rebalancer, topic, broker_name, queue_id, out, |r, q| r.record_pull(q, generation, now_ms)) }
}

unsafe fn query<T>(
    rebalancer: *const rmq_rebalancer,
    topic: *const c_char,
    broker_name: *const c_char,
    queue_id: i32,
    out: *mut T,
    f: impl FnOnce(&ConsumeView, &MessageQueue) -> T,
) -> rmq_result {
    boundary(|| {
        let out = out_arg(out)?;
        // SAFETY: the caller's arguments (the public wrappers are `unsafe extern "C"`).
        unsafe {
            let queue = queue_arg(topic, broker_name, queue_id)?;
            let value = f(view_of(rebalancer)?, &queue);
            write_out(out, value);
        }
        Ok(())
    })
}
