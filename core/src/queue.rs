//! The message queue, with Java's identity, order and string form.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::java_order::compare_strings;

/// One queue of a topic on one broker: `org.apache.rocketmq.common.message.MessageQueue`.
///
/// Equality and hashing use all three fields, as Java's `equals`/`hashCode` do. The order is
/// Java's `compareTo`: topic, then broker name (both by UTF-16 code units), then queue id.
///
/// Java compares queue ids as `this.queueId - o.queueId` in `int` arithmetic, which wraps when
/// the ids are more than `i32::MAX` apart (only possible with negative ids, which brokers never
/// assign). There Java's comparator is not an order at all and its sort result depends on
/// TimSort's internals; we compare ids numerically so that [`Ord`] stays a total order.
/// [`MessageQueue::java_compare_to`] gives Java's exact value for anyone who needs it.
///
/// Serialized (serde) as the tuple `["topic", "broker", 0]`, the form every binding and the CLI
/// batch format use.
///
/// The names are shared (`Arc<str>`): queues are cloned into every allocation, group view,
/// engine table and binding call, and a clone is then two reference-count increments rather than
/// two string copies.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MessageQueue {
    pub topic: Arc<str>,
    pub broker_name: Arc<str>,
    pub queue_id: i32,
}

impl MessageQueue {
    pub fn new(topic: impl Into<Arc<str>>, broker_name: impl Into<Arc<str>>, queue_id: i32) -> Self {
        MessageQueue { topic: topic.into(), broker_name: broker_name.into(), queue_id }
    }

    /// Java's `compareTo` value sign-for-sign, including the wrapping queue-id subtraction.
    pub fn java_compare_to(&self, other: &Self) -> i32 {
        use crate::java_order::compare_strings_value;
        let topic = compare_strings_value(&self.topic, &other.topic);
        if topic != 0 {
            return topic;
        }
        let broker = compare_strings_value(&self.broker_name, &other.broker_name);
        if broker != 0 {
            return broker;
        }
        self.queue_id.wrapping_sub(other.queue_id)
    }

    /// Appends the bytes of Java's `toString()` (UTF-8, as `String.getBytes()` gives them with
    /// `file.encoding=UTF-8`) to `out`, without an intermediate `String`.
    pub fn write_java_bytes(&self, out: &mut Vec<u8>) {
        self.write_java_prefix(out);
        self.write_java_suffix(out);
    }

    /// The bytes of `toString()` before the queue id: the same for a broker's queues of a topic.
    pub(crate) fn write_java_prefix(&self, out: &mut Vec<u8>) {
        for part in self.java_prefix_parts() {
            out.extend_from_slice(part);
        }
    }

    /// [`MessageQueue::write_java_prefix`] in its parts, the topic's first: hashes can share
    /// work between queues of one topic and of one broker.
    pub(crate) fn java_prefix_parts(&self) -> [&[u8]; 5] {
        [b"MessageQueue [topic=", self.topic.as_bytes(), b", brokerName=", self.broker_name.as_bytes(), b", queueId="]
    }

    /// The rest: the queue id and the closing bracket.
    pub(crate) fn write_java_suffix(&self, out: &mut Vec<u8>) {
        push_decimal(out, self.queue_id);
        out.push(b']');
    }

    /// Writes Java's `toString()` form into `out` (cleared first), so that loops can reuse one
    /// buffer.
    pub fn write_java_string(&self, out: &mut String) {
        use fmt::Write;
        out.clear();
        // Writing to a String cannot fail.
        let _ = write!(out, "{self}");
    }
}

/// `Integer.toString(n)`: the formatter's machinery costs as much as the rest of a key, and
/// consistent hash writes one key per queue.
fn push_decimal(out: &mut Vec<u8>, n: i32) {
    let mut digits = [0u8; 11];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        digits[at] = b'-';
    }
    out.extend_from_slice(&digits[at..]);
}

/// Java's `toString()`: `MessageQueue [topic=T, brokerName=B, queueId=N]`.
impl fmt::Display for MessageQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MessageQueue [topic={}, brokerName={}, queueId={}]", self.topic, self.broker_name, self.queue_id)
    }
}

impl Ord for MessageQueue {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_strings(&self.topic, &other.topic)
            .then_with(|| compare_strings(&self.broker_name, &other.broker_name))
            .then_with(|| self.queue_id.cmp(&other.queue_id))
    }
}

impl PartialOrd for MessageQueue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Serialize for MessageQueue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.topic, &self.broker_name, self.queue_id).serialize(s)
    }
}

impl<'de> Deserialize<'de> for MessageQueue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (topic, broker_name, queue_id) = <(String, String, i32)>::deserialize(d)?;
        Ok(MessageQueue { topic: topic.into(), broker_name: broker_name.into(), queue_id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_to_string_form() {
        let q = MessageQueue::new("TopicA", "broker-a", 3);
        assert_eq!(q.to_string(), "MessageQueue [topic=TopicA, brokerName=broker-a, queueId=3]");
    }

    /// The byte writer and `Display` are two spellings of one Java `toString()`.
    #[test]
    fn java_bytes_are_the_java_string() {
        let mut bytes = Vec::new();
        for id in [i32::MIN, -10, -1, 0, 9, 10, 99, 100, 12_345, i32::MAX] {
            for (topic, broker) in [("TopicA", "broker-a"), ("主题", "hz@b"), ("", "")] {
                let q = MessageQueue::new(topic, broker, id);
                bytes.clear();
                q.write_java_bytes(&mut bytes);
                assert_eq!(bytes, q.to_string().into_bytes());
            }
        }
    }

    #[test]
    fn order_is_topic_then_broker_then_id() {
        let a = MessageQueue::new("A", "b", 9);
        let b = MessageQueue::new("A", "c", 0);
        let c = MessageQueue::new("B", "a", 0);
        assert!(a < b && b < c);
        assert!(MessageQueue::new("A", "b", 2) < MessageQueue::new("A", "b", 10));
    }

    #[test]
    fn java_compare_to_wraps_like_int_subtraction() {
        let lo = MessageQueue::new("t", "b", i32::MIN);
        let hi = MessageQueue::new("t", "b", 1);
        // i32::MIN - 1 wraps to i32::MAX in Java: "lo > hi" there, while Ord stays numeric.
        assert_eq!(lo.java_compare_to(&hi), i32::MAX);
        assert!(lo < hi);
    }

    #[test]
    fn serde_tuple_form() {
        let q = MessageQueue::new("t", "b", 7);
        let text = serde_json::to_string(&q).unwrap();
        assert_eq!(text, r#"["t","b",7]"#);
        assert_eq!(serde_json::from_str::<MessageQueue>(&text).unwrap(), q);
    }
}
