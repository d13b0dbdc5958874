//! Java values in, positions out, in as few JNI calls as possible: a list of strings crosses as
//! one `String` (the strings concatenated) plus an `int[]` of their lengths in UTF-16 units, so a
//! call costs the same handful of JNI transitions whether it carries 4 ids or 1,000.

use std::sync::Arc;

use jni::objects::{JIntArray, JString};
use jni::sys::jintArray;
use jni::JNIEnv;
use rocketmq_rebalance::MessageQueue;

use crate::errors::Failure;

/// A Java string as Rust text. (`get_string` would first look up `java.lang.String` to check the
/// type, leaving a local class reference behind per call; every argument here is a `String` by
/// the Java signature.)
pub(crate) fn string(env: &mut JNIEnv, s: &JString) -> Result<String, Failure> {
    if s.is_null() {
        return Err(Failure::Argument("null string".into()));
    }
    // SAFETY: `s` is a non-null java.lang.String, by the native method's signature.
    let text = unsafe { env.get_string_unchecked(s) }?;
    Ok(text.into())
}

pub(crate) fn ints(env: &mut JNIEnv, array: &JIntArray) -> Result<Vec<i32>, Failure> {
    let len = env.get_array_length(array)? as usize;
    let mut out = vec![0i32; len];
    env.get_int_array_region(array, 0, &mut out)?;
    Ok(out)
}

/// Splits `joined` into pieces of `lengths` UTF-16 units each (Java's `String.length()`).
pub(crate) fn split(env: &mut JNIEnv, joined: &JString, lengths: &JIntArray) -> Result<Vec<String>, Failure> {
    let text = string(env, joined)?;
    let lengths = ints(env, lengths)?;
    let mut out = Vec::with_capacity(lengths.len());
    let mut rest = text.as_str();
    for len in lengths {
        // Byte length of the next `len` UTF-16 units (ASCII: the same number of bytes).
        let mut units = 0;
        let mut bytes = 0;
        for c in rest.chars() {
            if units >= len {
                break;
            }
            units += c.len_utf16() as i32;
            bytes += c.len_utf8();
        }
        if units != len.max(0) {
            return Err(Failure::Argument("string lengths disagree with the joined text".into()));
        }
        let (piece, tail) = rest.split_at(bytes);
        out.push(piece.to_owned());
        rest = tail;
    }
    Ok(out)
}

/// The queue table (distinct names + one int per queue per field) as message queues; queues of
/// one topic share one string.
pub(crate) fn queues(names: Vec<String>, topics: &[i32], brokers: &[i32], ids: &[i32]) -> Result<Vec<MessageQueue>, Failure> {
    if topics.len() != ids.len() || brokers.len() != ids.len() {
        return Err(Failure::Argument("queue arrays of different lengths".into()));
    }
    let in_range = |i: &i32| (*i as usize) < names.len();
    if !topics.iter().all(in_range) || !brokers.iter().all(in_range) {
        return Err(Failure::Argument("name index out of range".into()));
    }
    let names: Vec<Arc<str>> = names.into_iter().map(Arc::from).collect();
    let mut out = Vec::with_capacity(ids.len());
    for i in 0..ids.len() {
        out.push(MessageQueue { topic: names[topics[i] as usize].clone(), broker_name: names[brokers[i] as usize].clone(), queue_id: ids[i] });
    }
    Ok(out)
}

/// Positions as a new `int[]`.
pub(crate) fn positions_to_java(env: &mut JNIEnv, positions: impl Iterator<Item = usize>) -> Result<jintArray, Failure> {
    let values: Vec<i32> = positions.map(|p| p as i32).collect();
    let array = env.new_int_array(values.len() as i32)?;
    env.set_int_array_region(&array, 0, &values)?;
    Ok(array.into_raw())
}
