//! The metric contract of `watch`, and its exposition in Prometheus's text format 0.0.4.
//!
//! The contract is [`CONTRACT`]: names, types, labels and help, versioned by [`CONTRACT_VERSION`]
//! (exported in `rmq_rebalance_build_info`), and docs/watch.md's table is held to it by a test.
//! Labels follow the 5.x broker's own metrics (`cluster`, `consumer_group`, `topic`) so that a
//! PromQL join with `rocketmq_consumer_lag_messages` needs no `label_replace`.
//!
//! The text is written here rather than by `prometheus-client`, which writes OpenMetrics (a
//! counter's family named without `_total`, `# EOF`): Prometheus and `promtool check metrics` read
//! 0.0.4, where a family and its samples share one name. The format is a dozen lines: HELP, TYPE,
//! and samples with three characters escaped in label values.

use std::collections::BTreeMap;
use std::fmt::Write;

/// Bumped when a name, a label or a meaning changes; adding a metric does not bump it.
pub const CONTRACT_VERSION: &str = "1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Gauge,
    Counter,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Gauge => "gauge",
            Type::Counter => "counter",
        }
    }
}

pub struct Spec {
    pub name: &'static str,
    pub kind: Type,
    pub labels: &'static [&'static str],
    pub help: &'static str,
    /// Exported only with `--per-queue`.
    pub per_queue: bool,
}

const fn spec(name: &'static str, kind: Type, labels: &'static [&'static str], help: &'static str) -> Spec {
    Spec { name, kind, labels, help, per_queue: false }
}

const fn per_queue(name: &'static str, labels: &'static [&'static str], help: &'static str) -> Spec {
    Spec { name, kind: Type::Gauge, labels, help, per_queue: true }
}

const CLUSTER: &[&str] = &["cluster"];
const GROUP: &[&str] = &["cluster", "consumer_group"];
const TOPIC: &[&str] = &["cluster", "consumer_group", "topic"];
const QUEUE: &[&str] = &["cluster", "consumer_group", "topic", "broker", "queue_id"];

pub const CONTRACT: &[Spec] = &[
    spec(
        "rmq_rebalance_build_info",
        Type::Gauge,
        &["version", "commit", "contract"],
        "Always 1: the rmq-rebalance version and commit, and the version of this metric contract",
    ),
    spec("rmq_rebalance_groups", Type::Gauge, CLUSTER, "Consumer groups watched"),
    spec("rmq_rebalance_rounds_total", Type::Counter, CLUSTER, "Rounds run"),
    spec(
        "rmq_rebalance_round_duration_seconds",
        Type::Gauge,
        CLUSTER,
        "How long the last round waited for its reads and judged them (at most the round budget)",
    ),
    spec("rmq_rebalance_requests_total", Type::Counter, &["cluster", "request", "code"], "Requests sent, by request name and code"),
    spec(
        "rmq_rebalance_request_failures_total",
        Type::Counter,
        &["cluster", "request", "code"],
        "Requests that failed: no answer within the deadline, no connection, or a refusal",
    ),
    spec("rmq_rebalance_group_up", Type::Gauge, GROUP, "1 if the last round read the group; 0 if it failed, its other series then being the last good round's"),
    spec("rmq_rebalance_group_last_success_timestamp_seconds", Type::Gauge, GROUP, "When the group was last read (seconds since the epoch)"),
    spec(
        "rmq_rebalance_group_status",
        Type::Gauge,
        &["cluster", "consumer_group", "status"],
        "1 for the group's status (its worst queue's: OK, WARN, STALL, STOP, REWIND), 0 for the others",
    ),
    spec("rmq_rebalance_group_members", Type::Gauge, GROUP, "Client ids connected"),
    spec(
        "rmq_rebalance_group_useful_members_max",
        Type::Gauge,
        GROUP,
        "The most members that can each hold a queue: the largest queue count of the group's topics",
    ),
    spec("rmq_rebalance_group_findings", Type::Gauge, &["cluster", "consumer_group", "kind"], "Findings of the last round by kind, as inspect names them"),
    spec("rmq_rebalance_topic_queues", Type::Gauge, &["cluster", "consumer_group", "topic", "status"], "Queues of the topic in each status"),
    spec("rmq_rebalance_topic_cause_queues", Type::Gauge, &["cluster", "consumer_group", "topic", "cause"], "Queues of the topic with each cause"),
    spec(
        "rmq_rebalance_topic_cause_lag_messages",
        Type::Gauge,
        &["cluster", "consumer_group", "topic", "cause"],
        "Messages not yet consumed on the topic's queues with each cause",
    ),
    spec(
        "rmq_rebalance_topic_flapping_queues",
        Type::Gauge,
        TOPIC,
        "Queues of the topic that changed owner --flap-changes times within --flap-rounds rounds (3 in 10 by default)",
    ),
    spec("rmq_rebalance_topic_lag_messages", Type::Gauge, TOPIC, "Messages not yet consumed on the topic's queues"),
    spec(
        "rmq_rebalance_topic_drainable_lag_messages",
        Type::Gauge,
        TOPIC,
        "Lag on queues held once and soundly: what more consumers can share out (scale on this)",
    ),
    spec(
        "rmq_rebalance_topic_stuck_lag_messages",
        Type::Gauge,
        TOPIC,
        "Lag on queues no added consumer can drain: orphaned, waiting for a lock, not pulled, holder down",
    ),
    spec("rmq_rebalance_owner_changes_total", Type::Counter, TOPIC, "Owner changes of the topic's queues since the watch began"),
    per_queue(
        "rmq_rebalance_queue_status",
        &["cluster", "consumer_group", "topic", "broker", "queue_id", "status"],
        "1 for the queue's status, 0 for the others",
    ),
    per_queue(
        "rmq_rebalance_queue_cause",
        &["cluster", "consumer_group", "topic", "broker", "queue_id", "cause"],
        "1 for the queue's cause, 0 for the others (all 0: none)",
    ),
    per_queue("rmq_rebalance_queue_lag_messages", QUEUE, "Messages not yet consumed on the queue"),
    per_queue(
        "rmq_rebalance_queue_holder_info",
        &["cluster", "consumer_group", "topic", "broker", "queue_id", "client_id"],
        "Always 1: a client holding the queue",
    ),
];

/// Series gathered for one exposition: each family's sample lines, rendered as they are added.
/// (Holding the labels as strings until the end cost eight times the text: 40 KB a group.)
#[derive(Default)]
pub struct Exposition {
    families: BTreeMap<&'static str, String>,
}

impl Exposition {
    /// Adds one sample; `labels` in the order of the metric's spec.
    pub fn add(&mut self, name: &'static str, labels: &[&str], value: f64) {
        let Some(spec) = CONTRACT.iter().find(|s| s.name == name && s.labels.len() == labels.len()) else {
            debug_assert!(false, "{name} is not in the contract with {} labels", labels.len());
            return;
        };
        let out = self.families.entry(name).or_default();
        out.push_str(name);
        if !labels.is_empty() {
            out.push('{');
            for (i, (k, v)) in spec.labels.iter().zip(labels).enumerate() {
                // Writing into a String cannot fail.
                let _ = write!(out, "{}{k}=\"", if i > 0 { "," } else { "" });
                escape_into(out, v);
                out.push('"');
            }
            out.push('}');
        }
        let _ = writeln!(out, " {value}");
    }

    /// The text format: every family of the contract (per-queue ones only if asked) with its samples.
    pub fn text(&self, per_queue: bool) -> String {
        let specs: Vec<&Spec> = CONTRACT.iter().filter(|s| per_queue || !s.per_queue).collect();
        let size = specs.iter().map(|s| s.help.len() + 2 * s.name.len() + 32 + self.families.get(s.name).map_or(0, String::len)).sum();
        let mut out = String::with_capacity(size);
        for spec in specs {
            let _ = writeln!(out, "# HELP {} {}", spec.name, spec.help);
            let _ = writeln!(out, "# TYPE {} {}", spec.name, spec.kind.name());
            out.push_str(self.families.get(spec.name).map_or("", String::as_str));
        }
        out
    }
}

/// A label value as the text format quotes it: backslash, double quote and newline escaped.
fn escape_into(out: &mut String, v: &str) {
    for ch in v.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prometheus_practice() {
        for s in CONTRACT {
            assert!(s.name.starts_with("rmq_rebalance_"), "{}", s.name);
            assert_eq!(s.kind == Type::Counter, s.name.ends_with("_total"), "{}: counters and only counters end in _total", s.name);
            assert!(!s.name.contains("millis") && !s.name.ends_with("_ms"), "{}: base units", s.name);
            assert!(s.labels.iter().all(|l| l.chars().all(|c| c.is_ascii_lowercase() || c == '_')), "{}", s.name);
        }
    }

    #[test]
    fn label_values_are_escaped_and_per_queue_series_only_when_asked() {
        let mut e = Exposition::default();
        e.add("rmq_rebalance_group_members", &["c", "G\"x\\\n"], 2.0);
        e.add("rmq_rebalance_queue_lag_messages", &["c", "G", "T", "b", "0"], 5.0);
        let text = e.text(false);
        assert!(text.contains("rmq_rebalance_group_members{cluster=\"c\",consumer_group=\"G\\\"x\\\\\\n\"} 2\n"), "{text}");
        assert!(!text.contains("rmq_rebalance_queue_lag_messages"), "{text}");
        assert!(e.text(true).contains("rmq_rebalance_queue_lag_messages{cluster=\"c\",consumer_group=\"G\",topic=\"T\",broker=\"b\",queue_id=\"0\"} 5\n"));
    }
}

#[cfg(test)]
mod docs {
    use super::*;

    /// docs/watch.md's contract table and [`CONTRACT`] agree row for row: name, type and labels.
    #[test]
    fn the_documented_contract_is_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/watch.md");
        let text = std::fs::read_to_string(path).expect("docs/watch.md");
        let table = text.split("<!-- contract -->").nth(1).and_then(|t| t.split("<!-- /contract -->").next()).expect("the contract markers");
        let rows: Vec<(String, String, Vec<String>)> = table
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (cells[1].trim_matches('`').to_owned(), cells[2].to_owned(), cells[3].split(", ").map(str::to_owned).collect())
            })
            .collect();
        let code: Vec<(String, String, Vec<String>)> =
            CONTRACT.iter().map(|s| (s.name.to_owned(), s.kind.name().to_owned(), s.labels.iter().map(|l| (*l).to_owned()).collect())).collect();
        assert_eq!(rows, code);
    }
}
