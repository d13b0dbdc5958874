//! What Java sent in earlier calls, converted once, found again by the identity of the Java
//! objects it came in.
//!
//! A consumer asks with the same route and the same client ids every 20 s, and the jar keeps the
//! queue table and the joined ids it built for the last call (`NativeStrategy`), so it sends the
//! very same `String` and `int[]` objects again. Those objects are immutable once built and never
//! leave the jar; while a global reference here keeps one alive, no other object can be the same
//! (`IsSameObject`). So a call that brings them again skips reading and converting them, without
//! comparing a single queue.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use jni::objects::{GlobalRef, JObject};
use jni::JNIEnv;

use crate::errors::Failure;

/// Entries kept per kind: a consumer's topics and their retry topics, a few strategies.
const ENTRIES: usize = 16;
/// Larger conversions are not kept (they would pin that much Java and Rust memory).
pub(crate) const MAX_ITEMS: usize = 1 << 18;

struct Entry<T> {
    sent: Vec<GlobalRef>,
    value: Arc<T>,
}

/// Most recently used first.
pub(crate) struct SentBefore<T> {
    recent: Mutex<VecDeque<Entry<T>>>,
}

impl<T> SentBefore<T> {
    pub(crate) const fn new() -> Self {
        SentBefore { recent: Mutex::new(VecDeque::new()) }
    }

    /// The conversion of `sent` from an earlier call that passed these very objects, or
    /// `convert`'s, kept for later calls when it has at most [`MAX_ITEMS`] items (`size`).
    pub(crate) fn get_or_convert(
        &self,
        env: &mut JNIEnv,
        sent: &[&JObject],
        convert: impl FnOnce(&mut JNIEnv) -> Result<T, Failure>,
        size: impl FnOnce(&T) -> usize,
    ) -> Result<Arc<T>, Failure> {
        {
            // A poisoned lock only means a panic between complete updates of the deque.
            let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            let mut found = None;
            for (i, entry) in recent.iter().enumerate() {
                if same_objects(env, &entry.sent, sent)? {
                    found = Some(i);
                    break;
                }
            }
            if let Some(i) = found {
                let entry = recent.remove(i).expect("found above");
                let value = Arc::clone(&entry.value);
                recent.push_front(entry);
                return Ok(value);
            }
        }
        let value = Arc::new(convert(env)?);
        if size(&value) <= MAX_ITEMS {
            let refs = sent.iter().map(|o| env.new_global_ref(o)).collect::<Result<Vec<_>, _>>()?;
            let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            recent.push_front(Entry { sent: refs, value: Arc::clone(&value) });
            recent.truncate(ENTRIES);
        }
        Ok(value)
    }
}

fn same_objects(env: &mut JNIEnv, kept: &[GlobalRef], sent: &[&JObject]) -> Result<bool, Failure> {
    if kept.len() != sent.len() {
        return Ok(false);
    }
    for (k, s) in kept.iter().zip(sent) {
        if !env.is_same_object(k, *s)? {
            return Ok(false);
        }
    }
    Ok(true)
}
