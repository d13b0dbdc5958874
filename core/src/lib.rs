//! RocketMQ consumer rebalancing, computed exactly as the Java client computes it.
//!
//! In a RocketMQ consumer group every client sorts the same queue list and client-id list and
//! runs the same strategy to find its own share; there is no coordinator. This crate is the one
//! implementation all client languages can share: the six Java strategies, bit for bit
//! ([`strategy`]), Java's orderings ([`java_order`]), the whole-group view ([`group`]) and the
//! configuration text every binding accepts ([`config`]). It does no I/O.
//!
//! ```
//! use rocketmq_rebalance::{java_order, strategy::{Averagely, Strategy}, MessageQueue};
//!
//! let mut queues: Vec<MessageQueue> = (0..8).map(|i| MessageQueue::new("TopicA", "broker-a", i)).collect();
//! let mut ids = vec!["c2".to_string(), "c1".to_string(), "c3".to_string()];
//! java_order::sort_queues(&mut queues);
//! java_order::sort_client_ids(&mut ids);
//! let mine = Averagely.allocate("group", "c1", &queues, &ids).unwrap();
//! assert_eq!(mine.iter().map(|q| q.queue_id).collect::<Vec<_>>(), [0, 1, 2]);
//! ```

pub mod batch;
pub mod config;
pub mod diagnose;
pub mod engine;
pub mod error;
pub mod group;
pub mod java_order;
pub mod md5_batch;
pub mod movement_bound;
pub mod queue;
pub mod strategy;

pub use config::{strategy_from_config, StrategyConfig};
pub use error::{Error, JavaException, Result};
pub use group::{allocate_group, movement, verify, GroupAllocation, MemberShare, Movement, Ownership, Verification};
pub use queue::MessageQueue;
pub use strategy::{Allocation, Strategy};

/// The README's Rust examples, compiled and run as doctests so they cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
