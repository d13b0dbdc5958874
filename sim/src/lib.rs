//! A deterministic, seeded model of a RocketMQ cluster that runs the real rebalance engine.
//!
//! Brokers hold message logs, the group's committed offsets, the orderly lock table (60 s expiry)
//! and the consumer registry; a producer appends messages; consumer processes run the engine
//! ([`rocketmq_rebalance::engine`]) with hosts that talk to the model, pull, and call a listener.
//! A seeded scheduler injects faults. [`run`] checks the invariants as it goes and returns a
//! [`Summary`]: orderly exclusivity, no loss, no offset regression by a single owner, convergence
//! within two rounds once views agree; duplicates and handoff gaps are counted.

mod check;
mod consumer;
mod faults;
mod run;
mod scenario;
mod time;
mod world;

pub use check::{Observed, Summary, Violations};
pub use run::{letter, run, Snapshot, CONVERGENCE_AFTER_MS, TICK_MS};
pub use scenario::{built_in_names, Event, EventKind, FaultRates, Scenario, TopicSpec, BUILT_IN};
