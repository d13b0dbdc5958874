//! The rebalance engine for the JVM (its natives are in `io.github.rocketmqrebalance.internal.Native`).
//!
//! A rebalancer lives in a registry here and Java holds its id (a `long`), never a pointer: a
//! call with an id that was closed, or never existed, is an `IllegalStateException`, not a use
//! after free, and `close` while another thread's round runs frees the engine when that round
//! returns. Each rebalancer is the core's `engine::Session`: rounds serialised by its mutex, the
//! consume-thread queries through the engine's `ConsumeView` (never waiting for a round), and a
//! call of the same rebalancer from inside one of its own callbacks (same thread) refused with
//! `IllegalStateException` (`Error::Reentrant`) instead of waiting for itself.
//!
//! Reports return as the JSON of `docs/engine-json.md`; the Java side reads them into typed
//! classes. Every entry point runs behind the panic boundary of [`crate::errors`].

mod args;
mod bridge;
mod host;
mod registry;

use std::collections::BTreeMap;

use jni::objects::{JClass, JIntArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong, jobjectArray, jstring};
use jni::JNIEnv;
use rocketmq_rebalance::engine::{RebalanceConfig, Rebalancer, TopicView, Warning};
use rocketmq_rebalance::Error;
use serde::Serialize;

use self::args::{queue_in, queues_in, strings_in};
use self::bridge::BridgeMethods;
use self::host::JavaHost;
use self::registry::Engine;
use crate::errors::{boundary, Failure};
use crate::marshal::string;

/// The engine `id` names, entered (re-entry refused, its mutex locked), for `f`.
fn with_engine<T>(id: jlong, f: impl FnOnce(&mut Rebalancer) -> Result<T, Failure>) -> Result<T, Failure> {
    let engine = registry::get(id)?;
    let mut entered = engine.session.enter()?;
    f(&mut entered)
}

/// Runs `f` with the Java host over `bridge` and returns the report as JSON (a callback's
/// failures are already on it; a stopped call's `Error` is rethrown by the bridge).
fn with_host<'l, R: Serialize>(
    env: &mut JNIEnv<'l>,
    id: jlong,
    bridge: &JObject<'l>,
    f: impl FnOnce(&mut Rebalancer, &mut JavaHost<'_, 'l>) -> Result<R, Error>,
) -> Result<jstring, Failure> {
    if bridge.is_null() {
        return Err(Failure::Argument("null host".into()));
    }
    let engine = registry::get(id)?;
    let mut report = {
        let mut host = JavaHost::new(&mut *env, bridge, &engine.bridge);
        let mut entered = engine.session.enter()?;
        f(&mut entered, &mut host)?
    };
    json(env, &mut report)
}

fn json<R: Serialize>(env: &mut JNIEnv, report: &mut R) -> Result<jstring, Failure> {
    let text = serde_json::to_string(report).map_err(|e| Failure::Argument(e.to_string()))?;
    Ok(env.new_string(text)?.into_raw())
}

/// `long create(String configJson, int strategy, Class<?> bridge)`: a new rebalancer for a
/// registered strategy, whose host calls go to `bridge`'s methods (resolved here, once).
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_create<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    config: JString<'l>,
    strategy: jint,
    bridge: JClass<'l>,
) -> jlong {
    boundary(&mut env, 0, |env| {
        let config = RebalanceConfig::from_json(&string(env, &config)?)?;
        let rebalancer = Rebalancer::new(config, crate::cache::strategy(strategy)?)?;
        let methods = BridgeMethods::resolve(env, &bridge)?;
        Ok(registry::insert(Engine::new(rebalancer, methods)))
    })
}

/// `void close(long id)`: forgets the rebalancer (freed when a running call returns). Idempotent.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_close<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>, id: jlong) {
    boundary(&mut env, (), |_| {
        registry::remove(id);
        Ok(())
    })
}

/// `void subscribe(long id, String topic, boolean subscribe)`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_subscribe<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    on: jboolean,
) {
    boundary(&mut env, (), |env| {
        let topic = string(env, &topic)?;
        with_engine(id, |r| if on != 0 { r.subscribe(topic) } else { r.unsubscribe(&topic) }.map_err(Failure::from))
    })
}

/// `String[] subscriptions(long id)`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_subscriptions<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>, id: jlong) -> jobjectArray {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let topics: Vec<String> = with_engine(id, |r| Ok(r.subscriptions().map(str::to_owned).collect()))?;
        let out = env.new_object_array(topics.len() as i32, "java/lang/String", JObject::null())?;
        for (i, t) in topics.iter().enumerate() {
            let s = env.new_string(t)?;
            env.set_object_array_element(&out, i as i32, &s)?;
            env.delete_local_ref(s)?;
        }
        Ok(out.into_raw())
    })
}

/// `boolean isShutDown(long id)`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_isShutDown<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>, id: jlong) -> jboolean {
    boundary(&mut env, 0, |_| with_engine(id, |r| Ok(r.is_shut_down().into())))
}

/// `String rebalanceTopic(long id, String topic, String[] topics, String[] brokers, int[] queueIds,
/// String[] clientIds, long nowMs, HostBridge host)`: null `topics` = route unknown, null
/// `clientIds` = ids unavailable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_rebalanceTopic<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    topics: JObjectArray<'l>,
    brokers: JObjectArray<'l>,
    queue_ids: JIntArray<'l>,
    client_ids: JObjectArray<'l>,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let topic = string(env, &topic)?;
        let queues = queues_in(env, &topics, &brokers, &queue_ids)?;
        let ids = strings_in(env, &client_ids)?;
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.rebalance_topic(&topic, queues.as_deref(), ids.as_deref(), now, h))
    })
}

/// `String rebalanceAll(long id, String[] viewTopics, int[] queueCounts, String[] topics,
/// String[] brokers, int[] queueIds, int[] idCounts, String[] clientIds, long nowMs, HostBridge
/// host)`: each view's queues and ids follow the previous view's in the flat arrays; a count of
/// -1 is "unknown" (route or ids).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_rebalanceAll<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    view_topics: JObjectArray<'l>,
    queue_counts: JIntArray<'l>,
    topics: JObjectArray<'l>,
    brokers: JObjectArray<'l>,
    queue_ids: JIntArray<'l>,
    id_counts: JIntArray<'l>,
    client_ids: JObjectArray<'l>,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let names = strings_in(env, &view_topics)?.ok_or_else(|| Failure::Argument("null view topics".into()))?;
        let queue_counts = crate::marshal::ints(env, &queue_counts)?;
        let id_counts = crate::marshal::ints(env, &id_counts)?;
        let all_queues = queues_in(env, &topics, &brokers, &queue_ids)?.unwrap_or_default();
        let all_ids = strings_in(env, &client_ids)?.unwrap_or_default();
        if queue_counts.len() != names.len() || id_counts.len() != names.len() {
            return Err(Failure::Argument("view arrays of different lengths".into()));
        }
        let mut views = BTreeMap::new();
        let (mut q_at, mut id_at) = (0usize, 0usize);
        for ((topic, qn), idn) in names.into_iter().zip(queue_counts).zip(id_counts) {
            let queues = take(&all_queues, &mut q_at, qn)?;
            let client_ids = take(&all_ids, &mut id_at, idn)?;
            views.insert(topic, TopicView { queues, client_ids });
        }
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.rebalance_all(&views, now, h))
    })
}

/// The next `count` items from `at` (`None` for -1).
fn take<T: Clone>(all: &[T], at: &mut usize, count: i32) -> Result<Option<Vec<T>>, Failure> {
    if count < 0 {
        return Ok(None);
    }
    let end = at.checked_add(count as usize).filter(|e| *e <= all.len()).ok_or_else(|| Failure::Argument("view counts exceed the arrays".into()))?;
    let out = all[*at..end].to_vec();
    *at = end;
    Ok(Some(out))
}

fn clock(now_ms: jlong) -> Result<u64, Failure> {
    u64::try_from(now_ms).map_err(|_| Failure::Argument(format!("nowMs must not be negative, got {now_ms}")))
}

/// `String lockAll(long id, long nowMs, HostBridge host)`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_lockAll<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.lock_all(now, h))
    })
}

/// `String lockQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_lockQueue<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.lock_queue(&q, now, h))
    })
}

/// `String locksLost(long id, String broker, long nowMs, HostBridge host)`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_locksLost<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    broker: JString<'l>,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let broker = string(env, &broker)?;
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.locks_lost(&broker, now, h))
    })
}

/// `String dropQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_dropQueue<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        let now = clock(now_ms)?;
        with_host(env, id, &bridge, |r, h| r.drop_queue(&q, now, h))
    })
}

/// `String shutdown(long id, long nowMs, HostBridge host)`: a negative `nowMs` uses the latest
/// clock any call was given.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_shutdown<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    now_ms: jlong,
    bridge: JObject<'l>,
) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let now = u64::try_from(now_ms).ok();
        with_host(env, id, &bridge, |r, h| {
            Ok(match now {
                Some(now) => r.shutdown_at(now, h),
                None => r.shutdown(h),
            })
        })
    })
}

/// `long[] startOffset(long id, String topic, String broker, int queueId, HostBridge host)`:
/// {offset, 1 if it came from consume_from else 0}; a failing callback throws.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_startOffset<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    bridge: JObject<'l>,
) -> jni::sys::jlongArray {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        let engine = registry::get(id)?;
        let start = {
            let mut host = JavaHost::new(&mut *env, &bridge, &engine.bridge);
            engine.session.enter()?.start_offset(&q, &mut host)?
        };
        let out = env.new_long_array(2)?;
        env.set_long_array_region(&out, 0, &[start.offset, start.from_consume_from as i64])?;
        Ok(out.into_raw())
    })
}

/// `boolean isConsumable(long id, String topic, String broker, int queueId, long generation,
/// long nowMs)`: never waits for a running round.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_isConsumable<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    generation: jlong,
    now_ms: jlong,
) -> jboolean {
    boundary(&mut env, 0, |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        Ok(registry::get(id)?.session.view().is_consumable(&q, generation as u64, clock(now_ms)?).into())
    })
}

/// `long consumableUntil(long id, String topic, String broker, int queueId, long generation)`:
/// until when `isConsumable` stays true (ms, inclusive; `Long.MAX_VALUE` for no limit), -1 when it
/// is false at any time. Never waits for a running round.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_consumableUntil<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    generation: jlong,
) -> jlong {
    boundary(&mut env, -1, |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        let until = registry::get(id)?.session.view().consumable_until(&q, generation as u64);
        Ok(until.map_or(-1, |t| jlong::try_from(t).unwrap_or(jlong::MAX)))
    })
}

/// `boolean recordPull(long id, String topic, String broker, int queueId, long generation, long
/// nowMs)`: never waits for a running round.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_recordPull<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
    generation: jlong,
    now_ms: jlong,
) -> jboolean {
    boundary(&mut env, 0, |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        Ok(registry::get(id)?.session.view().record_pull(&q, generation as u64, clock(now_ms)?).into())
    })
}

/// `long generation(long id, String topic, String broker, int queueId)`: -1 when not held; never
/// waits for a running round.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_generation<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    id: jlong,
    topic: JString<'l>,
    broker: JString<'l>,
    queue_id: jint,
) -> jlong {
    boundary(&mut env, -1, |env| {
        let q = queue_in(env, &topic, &broker, queue_id)?;
        Ok(registry::get(id)?.session.view().generation(&q).map_or(-1, |g| g as i64))
    })
}

/// `String held(long id)`: [[queue, state], ...] in Java order, as JSON.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_held<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>, id: jlong) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let mut held: Vec<_> = with_engine(id, |r| Ok(r.held().map(|(q, s)| (q.clone(), s)).collect()))?;
        json(env, &mut held)
    })
}

/// `String reportExample(int which)`: the core's example report with every field filled, as a
/// call returns it (0: a round report, 1: a lock report, 2: `held`), so a Java test can check
/// that the reader reads every field.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_reportExample<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>, which: jint) -> jstring {
    use rocketmq_rebalance::engine::{LockReport, QueueState, RoundReport};
    use rocketmq_rebalance::MessageQueue;
    boundary(&mut env, std::ptr::null_mut(), |env| match which {
        0 => json(env, &mut RoundReport::example()),
        1 => json(env, &mut LockReport::example()),
        2 => json(env, &mut vec![(MessageQueue::new("T", "b", 0), QueueState::example())]),
        _ => Err(Failure::Argument(format!("no example {which}"))),
    })
}

/// `String reasonNames()`: every reason and warning name the reports can carry, as JSON
/// ({"release": [...], ...}), so a Java test can check its enums know each one.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_reasonNames<'l>(mut env: JNIEnv<'l>, _c: JClass<'l>) -> jstring {
    use rocketmq_rebalance::engine::{DeferReason, ReleaseReason, RoundSkipped, SkipReason};
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let mut names = serde_json::json!({
            "release": ReleaseReason::NAMES,
            "defer": DeferReason::NAMES,
            "skip": SkipReason::NAMES,
            "warning": Warning::NAMES,
            "round_skipped": RoundSkipped::NAMES,
        });
        json(env, &mut names)
    })
}
