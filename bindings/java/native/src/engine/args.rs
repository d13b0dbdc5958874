//! Queues across the engine's JNI calls: a list is three parallel arrays (`String[]` topics,
//! `String[]` broker names, `int[]` queue ids), one queue is its three fields. Rounds run every
//! 20 s over a topic's route, so clarity wins over the strategies' flatter table here.

use std::sync::Arc;

use jni::objects::{JIntArray, JObject, JObjectArray, JString};
use jni::JNIEnv;
use rocketmq_rebalance::MessageQueue;

use crate::errors::Failure;
use crate::marshal::{ints, string};

/// A queue list from Java, or `None` when the topics array is null ("unknown").
pub(crate) fn queues_in(env: &mut JNIEnv, topics: &JObjectArray, brokers: &JObjectArray, ids: &JIntArray) -> Result<Option<Vec<MessageQueue>>, Failure> {
    if topics.is_null() {
        return Ok(None);
    }
    let topics = strings_in(env, topics)?.ok_or_else(|| Failure::Argument("null topics".into()))?;
    let brokers = strings_in(env, brokers)?.ok_or_else(|| Failure::Argument("null broker names".into()))?;
    if ids.is_null() {
        return Err(Failure::Argument("null queue ids".into()));
    }
    let ids = ints(env, ids)?;
    if topics.len() != ids.len() || brokers.len() != ids.len() {
        return Err(Failure::Argument("queue arrays of different lengths".into()));
    }
    // Queues of one topic (or broker) share one string, as in the core's own lists.
    let mut shared: Vec<Arc<str>> = Vec::new();
    let mut intern = |s: String| -> Arc<str> {
        match shared.iter().find(|x| ***x == *s) {
            Some(x) => x.clone(),
            None => {
                let x: Arc<str> = Arc::from(s);
                shared.push(x.clone());
                x
            }
        }
    };
    Ok(Some(topics.into_iter().zip(brokers).zip(ids).map(|((t, b), id)| MessageQueue { topic: intern(t), broker_name: intern(b), queue_id: id }).collect()))
}

/// A `String[]` as Rust strings, `None` for null; a null element is refused.
pub(crate) fn strings_in(env: &mut JNIEnv, array: &JObjectArray) -> Result<Option<Vec<String>>, Failure> {
    if array.is_null() {
        return Ok(None);
    }
    let len = env.get_array_length(array)?;
    let mut out = Vec::with_capacity(len as usize);
    for i in 0..len {
        let element = JString::from(env.get_object_array_element(array, i)?);
        let text = string(env, &element);
        env.delete_local_ref(element)?;
        out.push(text?);
    }
    Ok(Some(out))
}

/// One queue from its fields.
pub(crate) fn queue_in(env: &mut JNIEnv, topic: &JString, broker: &JString, id: i32) -> Result<MessageQueue, Failure> {
    Ok(MessageQueue::new(string(env, topic)?, string(env, broker)?, id))
}

/// A queue list as the three arrays, in a caller's local frame.
pub(crate) fn queues_out<'l>(env: &mut JNIEnv<'l>, queues: &[MessageQueue]) -> Result<(JObjectArray<'l>, JObjectArray<'l>, JIntArray<'l>), Failure> {
    let n = i32::try_from(queues.len()).map_err(|_| Failure::Argument("too many queues for a Java array".into()))?;
    let topics = env.new_object_array(n, "java/lang/String", JObject::null())?;
    let brokers = env.new_object_array(n, "java/lang/String", JObject::null())?;
    for (i, q) in queues.iter().enumerate() {
        let t = env.new_string(&*q.topic)?;
        env.set_object_array_element(&topics, i as i32, &t)?;
        env.delete_local_ref(t)?;
        let b = env.new_string(&*q.broker_name)?;
        env.set_object_array_element(&brokers, i as i32, &b)?;
        env.delete_local_ref(b)?;
    }
    let ids = env.new_int_array(n)?;
    let values: Vec<i32> = queues.iter().map(|q| q.queue_id).collect();
    env.set_int_array_region(&ids, 0, &values)?;
    Ok((topics, brokers, ids))
}
