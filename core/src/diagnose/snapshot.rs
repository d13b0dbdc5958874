//! What one inspection read from a live cluster, in the form `inspect --save` writes and
//! `--load` reads: every answer as it came (or why it did not), nothing judged yet.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::MessageQueue;

/// One consumer group as the cluster answered for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub group: String,
    /// Wall clock (ms since the epoch) when it was read: lock and pull ages are measured from it.
    pub taken_at_ms: i64,
    /// Each topic the group rebalances (its subscriptions and `%RETRY%<group>`) with its readable
    /// queues as the route lists them (a broker's `readQueueNums` queues); any order.
    pub topics: BTreeMap<String, Vec<MessageQueue>>,
    /// Each master broker's member list for the group. Clients ask a random broker, so every
    /// master is asked, and one that disagrees is a finding.
    pub brokers: Vec<BrokerMembers>,
    /// The group's connections, as a broker lists them.
    pub connections: Vec<ClientConnection>,
    /// Each connected client's running info (what it holds), or why it is missing.
    pub clients: Vec<ClientState>,
    /// The group's message model as the connection list gives it (`CLUSTERING`, `BROADCASTING`).
    /// Absent from snapshots saved before it was read, as every field below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_model: Option<String>,
    /// Every queue's offsets as its broker answered `GET_CONSUME_STATS` (lag).
    #[serde(default)]
    pub offsets: Vec<QueueOffsets>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueOffsets {
    pub queue: MessageQueue,
    /// The queue's max offset on the broker.
    pub broker_offset: i64,
    /// The group's committed offset (negative: none committed yet).
    pub consumer_offset: i64,
}

impl QueueOffsets {
    /// Messages not yet consumed (all of them when nothing is committed).
    pub fn lag(&self) -> i64 {
        lag(self.broker_offset, self.consumer_offset)
    }
}

/// Messages not yet consumed on a queue at `broker_offset` whose group committed `consumer_offset`
/// (negative: nothing committed, so all of them).
pub fn lag(broker_offset: i64, consumer_offset: i64) -> i64 {
    (broker_offset - consumer_offset.max(0)).max(0)
}

/// One subscription as a client's running info gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subscription {
    pub topic: String,
    /// The filter: `*`, a tag list `a || b`, or a SQL92 expression.
    pub expression: String,
    /// `TAG` or `SQL92`.
    pub expression_type: String,
    /// When the client last changed it: milliseconds from Java, nanoseconds from Go.
    pub sub_version: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerMembers {
    pub broker: String,
    pub addr: String,
    /// The ids in the broker's order, duplicates kept; `None` when it did not answer.
    pub consumer_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConnection {
    pub client_id: String,
    /// `ip:port` of the client's channel to the broker.
    pub client_addr: String,
    /// `JAVA`, `GO`, `CPP`, ...
    pub language: String,
    /// The client's version ordinal (Go always says 317).
    pub version: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientState {
    pub client_id: String,
    /// `None` when the client did not answer; `error` says why.
    pub running: Option<RunningState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunningState {
    /// The client's `properties` (a Java client names its `allocateMessageQueueStrategy` there).
    pub properties: BTreeMap<String, String>,
    /// Every entry of its `mqTable`.
    pub held: Vec<HeldQueue>,
    /// Its `subscriptionSet`: the topics it rebalances and their filters.
    #[serde(default)]
    pub subscriptions: Vec<Subscription>,
    /// Queues it consumes by POP (`mqPopTable`): the broker assigns their messages, no lock or
    /// allocation is involved.
    #[serde(default)]
    pub pop_queues: Vec<MessageQueue>,
    /// When this running info was read (ms since the epoch), if not when the snapshot was taken:
    /// `watch` asks clients only when something may have changed and reuses the last answer, and
    /// lock and pull ages are measured from when the answer was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at_ms: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldQueue {
    pub queue: MessageQueue,
    /// Given up, its handoff not finished (Java keeps such an entry while its consume lock is busy).
    pub dropped: bool,
    /// Orderly consumers: holds the broker's lock, as the client last heard.
    pub locked: bool,
    pub last_lock_ms: i64,
    pub last_pull_ms: i64,
}
