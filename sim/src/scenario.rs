//! Scenarios: the cluster, the group and the faults of one simulation, as TOML.

use rocketmq_rebalance::engine::Timing;
use serde::{Deserialize, Serialize};

/// A whole scenario. Times are seconds of simulated time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Faults and production happen in `[0, length_s)`; then `drain_s` of calm for the group to
    /// converge and consume everything.
    pub length_s: u64,
    #[serde(default = "default_drain")]
    pub drain_s: u64,
    pub brokers: usize,
    pub initial_consumers: usize,
    /// Strategy config name and parameters, as in the CLI batch form.
    #[serde(default = "default_strategy")]
    pub strategy: String,
    #[serde(default)]
    pub strategy_params: serde_json::Value,
    pub topics: Vec<TopicSpec>,
    #[serde(default = "default_rate")]
    pub messages_per_second: u32,
    #[serde(default)]
    pub events: Vec<Event>,
    #[serde(default)]
    pub faults: FaultRates,
    /// Whether the broker answers 0 for a queue with no committed offset (it does while the
    /// queue's first messages are still in memory). `false`: "no offset", so `consume_from`
    /// (last offset) applies, and messages before a queue's first start are not expected.
    #[serde(default = "default_true")]
    pub new_queues_committed: bool,
    /// Whether a consumer tells its engine when a broker comes back from a restart
    /// (`Rebalancer::locks_lost`). `false` plays a host that does not.
    #[serde(default = "default_true")]
    pub signal_broker_restarts: bool,
    /// The engine's timing (the Java defaults when absent).
    #[serde(default)]
    pub timing: Option<Timing>,
}

fn default_true() -> bool {
    true
}

fn default_drain() -> u64 {
    300
}
fn default_strategy() -> String {
    "averagely".into()
}
fn default_rate() -> u32 {
    20
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    pub name: String,
    pub queues_per_broker: u32,
    /// Consumed by an orderly group (queues locked on the broker).
    #[serde(default)]
    pub orderly: bool,
}

/// A scripted event at a fixed time. (Not `deny_unknown_fields`: serde cannot combine it with
/// the flattened kind.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at_s: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// A new consumer process starts.
    Join,
    /// A consumer shuts down cleanly (commits, unlocks, unregisters); `None` picks one by seed.
    Leave { consumer: Option<usize> },
    /// A consumer dies: no commit, no unlock; the broker notices within `detect_s`.
    Crash {
        consumer: Option<usize>,
        #[serde(default = "default_detect")]
        detect_s: u64,
    },
    /// A broker goes down for `down_s` and comes back with an empty lock table.
    BrokerRestart { broker: usize, down_s: u64 },
    /// Every topic gets `add_per_broker` more queues on each broker.
    ExpandTopics { add_per_broker: u32 },
    /// A consumer with the id of an existing one starts; it leaves after `stay_s`.
    DuplicateId { stay_s: u64 },
    /// Every orderly listener call that a consumer (`None`: one picked by seed) starts in this
    /// second lasts `duration_s`: slow listeners still running when a rebalance moves their queues.
    SlowConsume { consumer: Option<usize>, duration_s: u64 },
    /// A random consumer sees a stale or partial client-id list for `rounds` rounds.
    StaleView { rounds: u32 },
    /// A consumer cannot reach any broker for `duration_s` (a network partition, a long GC pause):
    /// its calls fail, its locks expire, the brokers drop it after `detect_s`; its running listener
    /// calls go on. Afterwards it registers again.
    Partition {
        consumer: Option<usize>,
        duration_s: u64,
        #[serde(default = "default_detect")]
        detect_s: u64,
    },
    /// A consumer cannot reach one broker (`None`: one picked by seed) for `duration_s`; the
    /// NameServer and the other brokers still answer. Its calls to that broker fail and its locks
    /// there expire. The model keeps one member list for all brokers, so that broker goes on
    /// listing the consumer (a real one drops it after 120 s without a heartbeat).
    BrokerPartition { consumer: Option<usize>, broker: Option<usize>, duration_s: u64 },
}

fn default_detect() -> u64 {
    10
}

/// Random faults: the probability of each per second of simulated time (per call for
/// `call_failure`), inside `[0, length_s)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultRates {
    pub join: f64,
    pub leave: f64,
    pub crash: f64,
    pub broker_restart: f64,
    pub expand_topics: f64,
    pub duplicate_id: f64,
    pub slow_consume: f64,
    pub stale_view: f64,
    /// Probability that one lock, unlock, offset or persist call fails.
    pub call_failure: f64,
    /// A consumer is cut off from the brokers for 30-120 s.
    pub partition: f64,
    /// A consumer's orderly listener calls started in this second hang for 150-400 s.
    pub hang: f64,
    /// A consumer is cut off from one broker for 30-120 s.
    pub broker_partition: f64,
    /// Probability that a lock call's answer is lost after the broker granted it (per call).
    pub lost_lock_answer: f64,
}

impl FaultRates {
    /// Every rate by name, for validation and for "may a fault strike now".
    pub fn named(&self) -> [(&'static str, f64); 13] {
        [
            ("join", self.join),
            ("leave", self.leave),
            ("crash", self.crash),
            ("broker_restart", self.broker_restart),
            ("expand_topics", self.expand_topics),
            ("duplicate_id", self.duplicate_id),
            ("slow_consume", self.slow_consume),
            ("stale_view", self.stale_view),
            ("call_failure", self.call_failure),
            ("partition", self.partition),
            ("hang", self.hang),
            ("broker_partition", self.broker_partition),
            ("lost_lock_answer", self.lost_lock_answer),
        ]
    }
}

/// The scenarios that ship with the tool (`--scenario NAME`).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("default", include_str!("../scenarios/default.toml")),
    ("orderly-handoff", include_str!("../scenarios/orderly-handoff.toml")),
    ("stale-views", include_str!("../scenarios/stale-views.toml")),
    ("chaos", include_str!("../scenarios/chaos.toml")),
    ("balanced-sticky", include_str!("../scenarios/balanced-sticky.toml")),
    ("balanced-sticky-v2", include_str!("../scenarios/balanced-sticky-v2.toml")),
    ("host-faults", include_str!("../scenarios/host-faults.toml")),
    ("restart-handoff", include_str!("../scenarios/restart-handoff.toml")),
    ("partial-partitions", include_str!("../scenarios/partial-partitions.toml")),
];

/// The names of the shipped scenarios, in order (the scripts and the CLI list these).
pub fn built_in_names() -> impl Iterator<Item = &'static str> {
    BUILT_IN.iter().map(|(name, _)| *name)
}

impl Scenario {
    pub fn parse(text: &str) -> Result<Scenario, String> {
        let s: Scenario = toml::from_str(text).map_err(|e| e.to_string())?;
        s.validate()?;
        Ok(s)
    }

    pub fn built_in(name: &str) -> Option<Scenario> {
        BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, text)| Scenario::parse(text).expect("built-in scenarios parse"))
    }

    fn validate(&self) -> Result<(), String> {
        let bad = |why: String| Err(format!("scenario {}: {why}", self.name));
        if self.brokers == 0 || self.topics.is_empty() || self.initial_consumers == 0 {
            return bad("needs at least one broker, one topic and one initial consumer".into());
        }
        if self.length_s == 0 || self.length_s > 86_400 || self.drain_s > 86_400 {
            return bad("length_s must be in 1..=86400 and drain_s at most 86400".into());
        }
        for e in &self.events {
            let (what, broker) = match e.kind {
                EventKind::BrokerRestart { broker, .. } => ("broker_restart", Some(broker)),
                EventKind::BrokerPartition { broker, .. } => ("broker_partition", broker),
                _ => ("", None),
            };
            if let Some(broker) = broker.filter(|&b| b >= self.brokers) {
                return bad(format!("{what} of broker {broker}, but there are {}", self.brokers));
            }
        }
        for (name, p) in self.faults.named() {
            if !(0.0..=1.0).contains(&p) {
                return bad(format!("fault rate {name} = {p} is not a probability"));
            }
        }
        rocketmq_rebalance::StrategyConfig::from_name(&self.strategy, &self.strategy_params).map_err(|e| e.to_string())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_scenario_parses() {
        for (name, text) in BUILT_IN {
            let s = Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&s.name, name);
        }
    }

    #[test]
    fn bad_scenarios_say_what_is_wrong() {
        let base = "name = \"x\"\nlength_s = 10\nbrokers = 1\ninitial_consumers = 1\n[[topics]]\nname = \"T\"\nqueues_per_broker = 2\n";
        assert!(Scenario::parse(base).is_ok());
        let err = Scenario::parse(&format!("{base}[faults]\ncrash = 2.0\n")).unwrap_err();
        assert!(err.contains("crash"), "{err}");
        let err = Scenario::parse(&base.replace("brokers = 1", "brokers = 0")).unwrap_err();
        assert!(err.contains("at least one broker"), "{err}");
        let err = Scenario::parse(&format!("{base}strategy = \"nope\"\n")).unwrap_err();
        assert!(err.contains("unknown strategy") || err.contains("strategy"), "{err}");
        let err = Scenario::parse(&format!("{base}[[events]]\nat_s = 1\nkind = \"broker_restart\"\nbroker = 3\ndown_s = 1\n")).unwrap_err();
        assert!(err.contains("broker 3"), "{err}");
    }
}
