//! How a rebalancer is configured: the consumer's settings and the Java client's timing constants.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// `MessageModel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageModel {
    /// Queues are split among the group's clients (the strategy decides who gets what).
    #[default]
    Clustering,
    /// Every client consumes every queue; no strategy, no locks.
    Broadcasting,
}

/// `ConsumeType`: push consumers are PASSIVE, pull and lite-pull consumers ACTIVE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsumeType {
    /// `DefaultMQPushConsumer`: pull-expired queues are released; start offsets read from the
    /// broker's store; orderly consumption possible.
    #[default]
    Push,
    /// `DefaultLitePullConsumer` / pull: start offsets read memory first, then store.
    Pull,
}

/// `ConsumeFromWhere`, where a queue with no committed offset starts. The deprecated Java values
/// (`CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST`, `CONSUME_FROM_MIN_OFFSET`,
/// `CONSUME_FROM_MAX_OFFSET`) behave as `LastOffset` in the Java client and are accepted as aliases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsumeFromWhere {
    #[default]
    #[serde(alias = "CONSUME_FROM_LAST_OFFSET", alias = "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST")]
    #[serde(alias = "CONSUME_FROM_MIN_OFFSET", alias = "CONSUME_FROM_MAX_OFFSET")]
    LastOffset,
    #[serde(alias = "CONSUME_FROM_FIRST_OFFSET")]
    FirstOffset,
    /// Search by `consume_timestamp_ms` (Java parses `consumeTimestamp`, `yyyyMMddHHmmss` in the
    /// client's time zone; the host converts).
    #[serde(alias = "CONSUME_FROM_TIMESTAMP")]
    Timestamp,
}

/// Which decisions the engine makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Semantics {
    /// The Java client's decisions, with the places where Java breaks its own invariants fixed
    /// (see the `engine` module documentation for the list).
    #[default]
    Safe,
    /// RocketMQ 5.3.x's decisions exactly, flaws included: for parity and for comparison.
    Java,
}

/// The Java client's timing constants, each overridable, plus the bounds safe mode adds.
/// Milliseconds. Unknown keys are rejected, so a misspelt key cannot silently fall back to its
/// default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timing {
    /// `rocketmq.client.pull.pullMaxIdleTime`: a push queue not pulled for this long is released.
    pub pull_expired_ms: u64,
    /// `REBALANCE_LOCK_MAX_LIVE_TIME`: how long the client trusts an orderly lock after renewal.
    pub lock_valid_ms: u64,
    /// `rocketmq.client.unlockDelayTimeMills`: Java force-unlocks a dropped orderly queue this long
    /// after its last lock renewal, even while it is being consumed (Java mode only).
    pub force_unlock_ms: u64,
    /// How long release waits for an orderly queue's consume lock (`tryLock(500 ms)`).
    pub consume_lock_wait_ms: u64,
    /// The round retried this soon after a lock was refused (`rebalanceLater(500)`).
    pub lock_retry_delay_ms: u64,
    /// Delay of the first pull of a newly acquired queue (`dispatchPullRequest(.., 500)`).
    pub pull_dispatch_delay_ms: u64,
    /// The broker's orderly lock expiry (`rocketmq.broker.rebalance.lockMaxLiveTime`). Safe mode:
    /// a lock not renewed for this long may belong to another client by now, so this client
    /// neither commits nor unlocks for it, and a renewal that succeeds after it starts a new
    /// generation.
    pub broker_lock_expiry_ms: u64,
    /// Safe mode: when a release is deferred (or a lock lost), the engine asks the host for a
    /// round this soon (`schedule_rebalance`) instead of waiting for the periodic one. 0 does not
    /// ask (the next round is the periodic one, as in Java).
    pub deferred_retry_ms: u64,
    /// Safe mode: a release still deferred after this long is given up (see the engine's fix 16):
    /// a hung listener or an offset store that keeps failing must not pin a queue forever. The
    /// default, 15 minutes, is the Java client's `consumeTimeout`, the longest a listener call is
    /// trusted to run. 0 never gives up.
    pub release_give_up_ms: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            pull_expired_ms: 120_000,
            lock_valid_ms: 30_000,
            force_unlock_ms: 20_000,
            consume_lock_wait_ms: 500,
            lock_retry_delay_ms: 500,
            pull_dispatch_delay_ms: 500,
            broker_lock_expiry_ms: 60_000,
            deferred_retry_ms: 1_000,
            release_give_up_ms: 900_000,
        }
    }
}

impl Timing {
    /// Every key with its value, in declaration order. Read from the serialised form, so a new
    /// field is listed without further work: the bindings' key lists and the docs are checked
    /// against this.
    pub fn entries(&self) -> Vec<(String, u64)> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map.into_iter().filter_map(|(k, v)| v.as_u64().map(|v| (k, v))).collect(),
            _ => Vec::new(),
        }
    }
}

/// Everything a rebalancer needs to know about its consumer. Unknown keys are rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebalanceConfig {
    pub group: String,
    /// This client's id, as the broker lists it (`ip@instanceName...`).
    pub client_id: String,
    #[serde(default)]
    pub model: MessageModel,
    #[serde(default)]
    pub consume_type: ConsumeType,
    /// Orderly consumption (push only): queues are locked on the broker before consuming.
    #[serde(default)]
    pub orderly: bool,
    #[serde(default)]
    pub consume_from: ConsumeFromWhere,
    /// For [`ConsumeFromWhere::Timestamp`]: milliseconds since the epoch.
    #[serde(default)]
    pub consume_timestamp_ms: i64,
    #[serde(default)]
    pub timing: Timing,
    #[serde(default)]
    pub semantics: Semantics,
}

impl RebalanceConfig {
    /// A clustering push consumer with Java's defaults and safe semantics.
    pub fn new(group: impl Into<String>, client_id: impl Into<String>) -> Self {
        RebalanceConfig {
            group: group.into(),
            client_id: client_id.into(),
            model: MessageModel::default(),
            consume_type: ConsumeType::default(),
            orderly: false,
            consume_from: ConsumeFromWhere::default(),
            consume_timestamp_ms: 0,
            timing: Timing::default(),
            semantics: Semantics::default(),
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        let bad = |reason: &str| Err(Error::InvalidConfiguration(reason.into()));
        if self.client_id.is_empty() {
            return bad("client_id must not be empty");
        }
        if self.orderly && self.consume_type == ConsumeType::Pull {
            return bad("orderly consumption exists for push consumers only");
        }
        let t = &self.timing;
        if t.lock_valid_ms > t.broker_lock_expiry_ms {
            return bad("timing.lock_valid_ms must not exceed timing.broker_lock_expiry_ms: the client would trust a lock the broker has already expired");
        }
        Ok(())
    }

    /// Parses the JSON form every binding accepts; an unknown key or a wrong type is an
    /// [`Error::InvalidConfiguration`] naming the key.
    pub fn from_json(text: &str) -> Result<Self> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            Error::InvalidConfiguration(if path == "." { inner.to_string() } else { format!("{path}: {inner}") })
        })
    }

    /// Orderly clustering push: queues are locked on the broker, released under the consume lock.
    pub(crate) fn locks_queues(&self) -> bool {
        self.orderly && self.model == MessageModel::Clustering && self.consume_type == ConsumeType::Push
    }
}
