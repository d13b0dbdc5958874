//! The JNI side of the Java strategies and engine (`io.github.rocketmqrebalance.internal.Native`).
//!
//! Marshalling is flat: queues cross as their distinct names plus `int` arrays (topic index,
//! broker index, queue id), string lists as one joined string plus lengths, and the answer comes
//! back as positions into the caller's list (or, for AVG and AVG_BY_CIRCLE, as one `long`
//! encoding a stride), so Java returns its own `MessageQueue` objects. No native handle outlives
//! a call: strategies are registered once by configuration and named by an `int` (see
//! [`cache`]), so nothing can leak or be freed twice. The queue tables and id lists of the last
//! calls stay converted, found by the identity of the jar's own immutable arrays
//! ([`sent_before`], bounded), so a repeated route is not read again.
//!
//! Every entry point runs behind a panic boundary: a Rust error becomes the Java exception the
//! original class throws for the same input, a panic becomes `java.lang.Error`.

mod cache;
mod engine;
mod errors;
mod marshal;
#[cfg(feature = "panic-probe")]
mod panic_probe;
mod sent_before;

use jni::objects::{JClass, JIntArray, JObject, JString};
use jni::sys::{jboolean, jint, jintArray, jlong, jobjectArray, jstring};
use jni::JNIEnv;
use rocketmq_rebalance::strategy::{allocation_by_counts, Allocation};
use rocketmq_rebalance::MessageQueue;

use crate::errors::{boundary, Failure};
use crate::marshal::{ints, positions_to_java, queues, split, string};
use crate::sent_before::SentBefore;

/// Bits per field of an encoded stride: start, end and step each below 2^21.
const STRIDE_BITS: u32 = 21;

/// `String Native.version()`: the library's version, to check against the jar's.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_version<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| Ok(env.new_string(env!("CARGO_PKG_VERSION"))?.into_raw()))
}

/// `int Native.register(String name, String paramsJson)`: the id of a strategy configuration
/// (the names and parameters of `StrategyConfig`), built on first use.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_register<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    name: JString<'l>,
    params: JString<'l>,
) -> jint {
    boundary(&mut env, -1, |env| {
        let (name, params) = (string(env, &name)?, string(env, &params)?);
        cache::register(&name, &params)
    })
}

/// `String[] Native.configure(String name, String paramsJson)`: a configuration a person wrote
/// (Spring properties) checked strictly by the core (`StrategyConfig::from_name_strict`: a key the
/// strategy does not read is refused) and built once, returned as its canonical config name and
/// parameters, `{name, paramsJson}`, which `register` then takes.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_configure<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    name: JString<'l>,
    params: JString<'l>,
) -> jobjectArray {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let (name, params) = (string(env, &name)?, string(env, &params)?);
        let value: serde_json::Value = serde_json::from_str(&params).map_err(|e| Failure::Argument(format!("parameters are not JSON: {e}")))?;
        let config = rocketmq_rebalance::StrategyConfig::from_name_strict(&name, &value)?;
        config.build()?;
        let out = env.new_object_array(2, "java/lang/String", JObject::null())?;
        let (n, p) = (env.new_string(config.config_name())?, env.new_string(config.params().to_string())?);
        env.set_object_array_element(&out, 0, &n)?;
        env.set_object_array_element(&out, 1, &p)?;
        Ok(out.into_raw())
    })
}

/// `String Native.name(int strategy)`: the registered strategy's `getName()`, which for
/// BALANCED_STICKY carries its parameters (`BALANCED_STICKY-host-weights:...`).
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_name<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, strategy: jint) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let strategy = cache::strategy(strategy)?;
        Ok(env.new_string(strategy.name())?.into_raw())
    })
}

/// `long Native.allocateByCounts(int strategy, boolean currentEmpty, int queues, int ids, int index)`:
/// a registered strategy that the core says is count-based (AVG, AVG_BY_CIRCLE) needs only the
/// sizes and the current id's index (-1
/// when absent). The share is a stride, returned as `start | end << 21 | step << 42`: no array
/// crosses the boundary. Sizes of 2^21 or more are refused (Java then takes no native path).
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_allocateByCounts<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    strategy: jint,
    current_empty: jboolean,
    queue_count: jint,
    id_count: jint,
    index: jint,
) -> jlong {
    boundary(&mut env, 0, |_| {
        let registered = cache::strategy(strategy)?;
        let kind = registered.count_strategy().ok_or_else(|| Failure::Argument(format!("{} is not a count strategy", registered.name())))?;
        let size = |n: jint| usize::try_from(n).ok().filter(|n| *n < 1 << STRIDE_BITS).ok_or_else(|| Failure::Argument(format!("size {n} out of range")));
        let (queues, ids) = (size(queue_count)?, size(id_count)?);
        let (start, end, step) = match allocation_by_counts(kind, current_empty != 0, queues, ids, usize::try_from(index).ok())? {
            Allocation::Stride { start, end, step } => (start, end.max(start), step.max(1)),
            _ => (0, 0, 1),
        };
        Ok((start | end << STRIDE_BITS | step << (2 * STRIDE_BITS)) as jlong)
    })
}

/// `int[] Native.allocate(int strategy, String currentCid, String names, int[] nameLengths,
/// int[] topicIndex, int[] brokerIndex, int[] queueIds, String cids, int[] cidLengths)`: the
/// registered strategy over the queue table and ids; positions into the table.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_github_rocketmqrebalance_internal_Native_allocate<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    strategy: jint,
    current_cid: JString<'l>,
    names: JString<'l>,
    name_lengths: JIntArray<'l>,
    topic_idx: JIntArray<'l>,
    broker_idx: JIntArray<'l>,
    queue_ids: JIntArray<'l>,
    cids: JString<'l>,
    cid_lengths: JIntArray<'l>,
) -> jintArray {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        static TABLES: SentBefore<Vec<MessageQueue>> = SentBefore::new();
        static ID_LISTS: SentBefore<Vec<String>> = SentBefore::new();
        let strategy = cache::strategy(strategy)?;
        let current = string(env, &current_cid)?;
        let table: [&jni::objects::JObject; 5] = [&names, &name_lengths, &topic_idx, &broker_idx, &queue_ids];
        let mq_all = TABLES.get_or_convert(
            env,
            &table,
            |env| {
                let names = split(env, &names, &name_lengths)?;
                let (topics, brokers, ids) = (ints(env, &topic_idx)?, ints(env, &broker_idx)?, ints(env, &queue_ids)?);
                queues(names, &topics, &brokers, &ids)
            },
            Vec::len,
        )?;
        let cid_all = ID_LISTS.get_or_convert(env, &[&cids, &cid_lengths], |env| split(env, &cids, &cid_lengths), Vec::len)?;
        match strategy.allocate_positions("", &current, &mq_all, &cid_all)?.positions() {
            Some(positions) => positions_to_java(env, positions),
            // CONFIG is answered in Java (it returns its own list); no other strategy gets here.
            None => Err(Failure::Argument(format!("{} answered with queues outside the input", strategy.name()))),
        }
    })
}
