//! A small synchronous client of RocketMQ's remoting protocol that can send read-only requests
//! only: the network half of `rmq-rebalance inspect`. `core` stays free of I/O; what this crate reads
//! becomes a snapshot that core's diagnosis judges.
//!
//! - [`frame`]: the length-prefixed frame, read with a size limit;
//! - [`command`]: the remoting command, its JSON header (what we send) and both header
//!   encodings a server may answer with (JSON, and the binary `ROCKETMQ` one);
//! - [`fastjson`]: a tolerant reader of the bodies, which are fastjson output: maps keyed by JSON
//!   objects (`{{"brokerName":..}:{..}}`) and by bare numbers (`{0:"addr"}`);
//! - [`requests`]: the read-only requests and their decoders (route, members, connections, running info);
//! - [`read`]: one whole inspection into core's `diagnose::Snapshot`;
//! - [`connection`]: one TCP connection with timeouts, one request in flight, answers matched by
//!   `opaque`, and only the request codes of [`ReadOnly`] on the wire;
//! - [`signing`]: the Java client's request signature, for clusters with ACL;
//! - [`stats`]: requests sent and failed per request code, for `watch`'s own health.

pub mod command;
pub mod connection;
mod error;
pub mod fastjson;
pub mod frame;
pub mod read;
pub mod requests;
pub mod signing;
pub mod stats;

pub use command::RemotingCommand;
pub use connection::{Connection, ReadOnly};
pub use error::{Error, Result};
pub use signing::Credentials;
pub use stats::RequestStats;
