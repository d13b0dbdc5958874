//! The one JSON form of a [`Diagnosis`]: what `rmq-rebalance inspect --json` prints, what C's
//! `rmq_diagnose` writes and what Python's `diagnose` reads, so the three cannot drift apart.
//!
//! Versioned (`schema_version`) and strict on read: an unknown field, a missing one, a version this
//! build does not know or a `healthy` that contradicts the findings is refused, naming where. Queues
//! are written `Topic@broker:id`, the form `allocate` and the findings' sentences use; the snapshot
//! (the cluster's raw answers, `inspect --save`) keeps the `["topic", "broker", id]` form of every
//! other input. docs/inspect.md lists every field, and `core/tests/docs.rs` holds it to this file.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{ClientStrategy, Diagnosis, Finding, QueueRow};
use crate::MessageQueue;

/// The version written into every diagnosis. A reader refuses any other: raise it when a field
/// changes meaning or goes; a field added with a default keeps it.
pub const DIAGNOSIS_SCHEMA_VERSION: u32 = 1;

/// A queue as the diagnosis writes it: `Topic@broker:id`.
pub fn queue_text(q: &MessageQueue) -> String {
    format!("{}@{}:{}", q.topic, q.broker_name, q.queue_id)
}

/// Reads `Topic@broker:id`. The topic ends at the first `@` (RocketMQ refuses `@` in a topic
/// name), the queue id starts after the last `:`; the broker name is what lies between, so a
/// machine-room broker (`idc1@broker-a`) reads back whole.
pub fn parse_queue_text(text: &str) -> crate::Result<MessageQueue> {
    let bad = |why: &str| crate::Error::InvalidSnapshot(format!("queue {text:?}: {why} (expected Topic@broker:id)"));
    let (topic, rest) = text.split_once('@').ok_or_else(|| bad("no '@'"))?;
    let (broker, id) = rest.rsplit_once(':').ok_or_else(|| bad("no ':'"))?;
    if topic.is_empty() || broker.is_empty() {
        return Err(bad("an empty topic or broker name"));
    }
    let id: i32 = id.parse().map_err(|_| bad("the queue id is not a 32-bit integer"))?;
    Ok(MessageQueue::new(topic, broker, id))
}

/// Reads a diagnosis from its JSON (strict: see the module's documentation).
pub fn parse_diagnosis(json: &str) -> crate::Result<Diagnosis> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        crate::Error::InvalidSnapshot(if path == "." { format!("diagnosis: {inner}") } else { format!("diagnosis at {path}: {inner}") })
    })
}

/// The diagnosis as it crosses languages: [`Diagnosis`] plus its version and the derived `healthy`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DiagnosisJson {
    schema_version: u32,
    group: String,
    healthy: bool,
    findings: Vec<Finding>,
    queues: Vec<QueueRow>,
    strategies: Vec<ClientStrategy>,
}

impl From<Diagnosis> for DiagnosisJson {
    fn from(d: Diagnosis) -> Self {
        DiagnosisJson {
            schema_version: DIAGNOSIS_SCHEMA_VERSION,
            healthy: d.healthy(),
            group: d.group,
            findings: d.findings,
            queues: d.queues,
            strategies: d.strategies,
        }
    }
}

impl TryFrom<DiagnosisJson> for Diagnosis {
    type Error = String;

    fn try_from(j: DiagnosisJson) -> Result<Self, String> {
        if j.schema_version != DIAGNOSIS_SCHEMA_VERSION {
            return Err(format!("schema_version {} is not {DIAGNOSIS_SCHEMA_VERSION}, the one this build reads", j.schema_version));
        }
        if j.healthy != j.findings.is_empty() {
            return Err(format!("healthy is {} with {} findings", j.healthy, j.findings.len()));
        }
        Ok(Diagnosis { group: j.group, findings: j.findings, queues: j.queues, strategies: j.strategies })
    }
}

/// `#[serde(with = "queue")]`: one queue as `Topic@broker:id`.
pub(super) mod queue {
    use super::*;

    pub fn serialize<S: Serializer>(q: &MessageQueue, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&queue_text(q))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<MessageQueue, D::Error> {
        let text = String::deserialize(d)?;
        parse_queue_text(&text).map_err(serde::de::Error::custom)
    }
}

/// `#[serde(with = "queues")]`: a list of queues, each as `Topic@broker:id`.
pub(super) mod queues {
    use super::*;

    pub fn serialize<S: Serializer>(list: &[MessageQueue], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(list.iter().map(queue_text))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<MessageQueue>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts.iter().map(|t| parse_queue_text(t).map_err(serde::de::Error::custom)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::FindingKind;

    #[test]
    fn a_queue_reads_back_whole_even_with_a_machine_room_broker() {
        for q in [MessageQueue::new("T", "broker-a", 7), MessageQueue::new("%RETRY%G", "idc1@broker-a", 0), MessageQueue::new("T", "b", -1)] {
            assert_eq!(parse_queue_text(&queue_text(&q)).unwrap(), q);
        }
        for bad in ["T", "T@b", "@b:1", "T@:1", "T@b:x", "T@b:99999999999"] {
            assert!(parse_queue_text(bad).is_err(), "{bad} was read");
        }
    }

    #[test]
    fn a_diagnosis_round_trips_and_a_reader_refuses_what_it_does_not_know() {
        let d = Diagnosis::example();
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(parse_diagnosis(&text).unwrap(), d);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["schema_version"], DIAGNOSIS_SCHEMA_VERSION);
        assert_eq!(value["healthy"], false);
        assert_eq!(value["findings"][0]["queues"][0], "T@broker-a:0");
        let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = value.clone();
            edit(&mut v);
            parse_diagnosis(&v.to_string()).unwrap_err().to_string()
        };
        assert!(edited(&|v| v["schema_version"] = 2.into()).contains("schema_version 2"));
        assert!(edited(&|v| v["healthy"] = true.into()).contains("healthy is true with 1 findings"));
        assert!(edited(&|v| v["surprise"] = 1.into()).contains("surprise"));
        assert!(edited(&|v| v["findings"][0]["queues"][0] = "T-broker-a-0".into()).contains("findings[0].queues"));
        assert!(edited(&|v| v["queues"][0]["extra"] = 1.into()).contains("queues[0]"));
        assert!(edited(&|v| {
            v.as_object_mut().unwrap().remove("group");
        })
        .contains("group"));
        assert_eq!(d.findings[0].kind, FindingKind::Orphaned);
    }
}
