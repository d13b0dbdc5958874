//! Strategies from a name plus parameters: the one configuration text shared by the CLI, the C
//! API and every binding.
//!
//! JSON form: `{"strategy": "consistent_hash", "params": {"virtual_node_count": 10}}`. Names are
//! the config names below or the Java `getName()` values (`AVG`, `CONSISTENT_HASH`, ...).
//! Missing or null `params` means "all defaults"; unknown parameter keys are ignored so that a
//! newer config still loads in an older client.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::queue::MessageQueue;
use crate::strategy::{
    Averagely, AveragelyByCircle, BalancedSticky, BalancedStickyV2, ByConfig, ByMachineRoom, ConsistentHash, MachineRoomNearby, SeparatorResolver, StableKey,
    Strategy,
};

/// Every name a strategy answers to, for error messages.
pub const KNOWN_NAMES: &str = "averagely (AVG), circle (AVG_BY_CIRCLE), consistent_hash (CONSISTENT_HASH), \
machine_room_nearby (MACHINE_ROOM_NEARBY), by_machine_room (MACHINE_ROOM), by_config (CONFIG), \
balanced_sticky (BALANCED_STICKY, experimental), balanced_sticky_v2 (BALANCED_STICKY_V2, experimental)";

/// A strategy and its parameters, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrategyConfig {
    Averagely,
    Circle,
    ConsistentHash {
        virtual_node_count: i64,
    },
    /// Rooms come from a [`SeparatorResolver`]; other resolvers are built in code.
    MachineRoomNearby {
        inner: Box<StrategyConfig>,
        broker_room_sep: String,
        consumer_room_sep: String,
    },
    ByMachineRoom {
        consume_idcs: Option<Vec<String>>,
    },
    ByConfig {
        config: Option<Vec<MessageQueue>>,
    },
    /// Experimental: not a Java strategy (see `strategy::balanced_sticky`).
    BalancedSticky {
        stable_key: StableKey,
        /// Weight by stable key; members not listed weigh 1.
        weights: BTreeMap<String, u32>,
        /// How far a member's total may stray from its share (0, the default: exact).
        total_slack: u32,
    },
    /// Experimental: balanced within a stated capacity (see `strategy::balanced_sticky::capacity`).
    BalancedStickyV2 {
        stable_key: StableKey,
        /// How far above and below the even share a member's total may go, in percent (checked
        /// at build).
        overload_percent: i64,
        underload_percent: i64,
    },
}

#[derive(Deserialize)]
struct BalancedStickyParams {
    #[serde(default)]
    stable_key: StableKey,
    #[serde(default)]
    weights: BTreeMap<String, u32>,
    #[serde(default)]
    total_slack: u32,
}

#[derive(Deserialize)]
struct BalancedStickyV2Params {
    #[serde(default)]
    stable_key: StableKey,
    overload_percent: Option<i64>,
    underload_percent: Option<i64>,
}

#[derive(Deserialize)]
struct ConsistentHashParams {
    virtual_node_count: Option<i64>,
}

#[derive(Deserialize)]
struct NearbyParams {
    inner: Option<String>,
    #[serde(default)]
    inner_params: Value,
    broker_room_sep: Option<String>,
    consumer_room_sep: Option<String>,
}

#[derive(Deserialize)]
struct ByMachineRoomParams {
    consume_idcs: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct ByConfigParams {
    config: Option<Vec<MessageQueue>>,
}

impl StrategyConfig {
    /// Parses a strategy name and its parameters (`Value::Null` for none).
    /// Every configuration name (each also answers to its Java name), for help texts and tests.
    pub const NAMES: &'static [&'static str] =
        &["averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config", "balanced_sticky", "balanced_sticky_v2"];

    pub fn from_name(name: &str, params: &Value) -> Result<Self> {
        Ok(match name {
            "averagely" | "AVG" => StrategyConfig::Averagely,
            "circle" | "AVG_BY_CIRCLE" => StrategyConfig::Circle,
            "consistent_hash" | "CONSISTENT_HASH" => {
                let p: ConsistentHashParams = parse_params(name, params)?;
                StrategyConfig::ConsistentHash { virtual_node_count: p.virtual_node_count.unwrap_or(10) }
            }
            "machine_room_nearby" | "MACHINE_ROOM_NEARBY" => {
                let p: NearbyParams = parse_params(name, params)?;
                let inner = p.inner.ok_or_else(|| invalid(name, "missing `inner`: the strategy used inside each room"))?;
                StrategyConfig::MachineRoomNearby {
                    inner: Box::new(StrategyConfig::from_name(&inner, &p.inner_params)?),
                    broker_room_sep: p.broker_room_sep.unwrap_or_else(|| SeparatorResolver::DEFAULT_BROKER_SEPARATOR.into()),
                    consumer_room_sep: p.consumer_room_sep.unwrap_or_else(|| SeparatorResolver::DEFAULT_CONSUMER_SEPARATOR.into()),
                }
            }
            "by_machine_room" | "MACHINE_ROOM" => {
                let p: ByMachineRoomParams = parse_params(name, params)?;
                StrategyConfig::ByMachineRoom { consume_idcs: p.consume_idcs }
            }
            "by_config" | "CONFIG" => {
                let p: ByConfigParams = parse_params(name, params)?;
                StrategyConfig::ByConfig { config: p.config }
            }
            "balanced_sticky" | "BALANCED_STICKY" => {
                let p: BalancedStickyParams = parse_params(name, params)?;
                StrategyConfig::BalancedSticky { stable_key: p.stable_key, weights: p.weights, total_slack: p.total_slack }
            }
            "balanced_sticky_v2" | "BALANCED_STICKY_V2" => {
                let p: BalancedStickyV2Params = parse_params(name, params)?;
                use crate::strategy::balanced_sticky::{DEFAULT_OVERLOAD_PERCENT, DEFAULT_UNDERLOAD_PERCENT};
                StrategyConfig::BalancedStickyV2 {
                    stable_key: p.stable_key,
                    overload_percent: p.overload_percent.unwrap_or(i64::from(DEFAULT_OVERLOAD_PERCENT)),
                    underload_percent: p.underload_percent.unwrap_or(i64::from(DEFAULT_UNDERLOAD_PERCENT)),
                }
            }
            _ => return Err(Error::UnknownStrategy { name: name.to_owned(), known: KNOWN_NAMES }),
        })
    }

    /// [`StrategyConfig::from_name`] for a configuration a person wrote (Spring properties), where a
    /// key the strategy does not read is a mistake rather than a newer version's parameter: such a
    /// key is refused, naming it and the keys the strategy takes (MACHINE_ROOM_NEARBY's
    /// `inner_params` too).
    pub fn from_name_strict(name: &str, params: &Value) -> Result<Self> {
        let config = Self::from_name(name, params)?;
        if let Some(map) = params.as_object() {
            let takes = config.param_keys();
            if let Some(key) = map.keys().find(|k| !takes.contains(&k.as_str())) {
                let list = if takes.is_empty() { "none".to_owned() } else { takes.join(", ") };
                return Err(invalid(name, &format!("`{key}` is not one of its parameters (it takes: {list})")));
            }
            if let (Some(inner), Some(inner_params)) = (map.get("inner").and_then(Value::as_str), map.get("inner_params")) {
                Self::from_name_strict(inner, inner_params)?;
            }
        }
        Ok(config)
    }

    /// The parameter keys this strategy reads ([`StrategyConfig::from_name_strict`] refuses others).
    pub fn param_keys(&self) -> &'static [&'static str] {
        match self {
            StrategyConfig::Averagely | StrategyConfig::Circle => &[],
            StrategyConfig::ConsistentHash { .. } => &["virtual_node_count"],
            StrategyConfig::MachineRoomNearby { .. } => &["inner", "inner_params", "broker_room_sep", "consumer_room_sep"],
            StrategyConfig::ByMachineRoom { .. } => &["consume_idcs"],
            StrategyConfig::ByConfig { .. } => &["config"],
            StrategyConfig::BalancedSticky { .. } => &["stable_key", "weights", "total_slack"],
            StrategyConfig::BalancedStickyV2 { .. } => &["stable_key", "overload_percent", "underload_percent"],
        }
    }

    /// Parses the JSON form `{"strategy": ..., "params": {...}}`.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text).map_err(|e| invalid("<config>", &e.to_string()))?;
        Self::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Self> {
        let name = value.get("strategy").and_then(Value::as_str).ok_or_else(|| invalid("<config>", "expected an object with a string field `strategy`"))?;
        Self::from_name(name, value.get("params").unwrap_or(&Value::Null))
    }

    /// The config name (`consistent_hash`, ...).
    pub fn config_name(&self) -> &'static str {
        match self {
            StrategyConfig::Averagely => "averagely",
            StrategyConfig::Circle => "circle",
            StrategyConfig::ConsistentHash { .. } => "consistent_hash",
            StrategyConfig::MachineRoomNearby { .. } => "machine_room_nearby",
            StrategyConfig::ByMachineRoom { .. } => "by_machine_room",
            StrategyConfig::ByConfig { .. } => "by_config",
            StrategyConfig::BalancedSticky { .. } => "balanced_sticky",
            StrategyConfig::BalancedStickyV2 { .. } => "balanced_sticky_v2",
        }
    }

    /// The parameters as JSON, in the form [`StrategyConfig::from_name`] reads.
    pub fn params(&self) -> Value {
        match self {
            StrategyConfig::Averagely | StrategyConfig::Circle => json!({}),
            StrategyConfig::ConsistentHash { virtual_node_count } => json!({ "virtual_node_count": virtual_node_count }),
            StrategyConfig::MachineRoomNearby { inner, broker_room_sep, consumer_room_sep } => json!({
                "inner": inner.config_name(),
                "inner_params": inner.params(),
                "broker_room_sep": broker_room_sep,
                "consumer_room_sep": consumer_room_sep,
            }),
            StrategyConfig::ByMachineRoom { consume_idcs } => json!({ "consume_idcs": consume_idcs }),
            StrategyConfig::ByConfig { config } => json!({ "config": config }),
            // The slack only when set, so configurations written before it read back unchanged.
            StrategyConfig::BalancedSticky { stable_key, weights, total_slack: 0 } => json!({ "stable_key": stable_key, "weights": weights }),
            StrategyConfig::BalancedSticky { stable_key, weights, total_slack } => {
                json!({ "stable_key": stable_key, "weights": weights, "total_slack": total_slack })
            }
            StrategyConfig::BalancedStickyV2 { stable_key, overload_percent, underload_percent } => {
                json!({ "stable_key": stable_key, "overload_percent": overload_percent, "underload_percent": underload_percent })
            }
        }
    }

    pub fn to_value(&self) -> Value {
        json!({ "strategy": self.config_name(), "params": self.params() })
    }

    /// Builds the strategy. Fails where Java's constructor throws (a negative virtual node count)
    /// for a BALANCED_STICKY weight of 0 and a BALANCED_STICKY_V2 cap out of range.
    pub fn build(&self) -> Result<Arc<dyn Strategy>> {
        Ok(match self {
            StrategyConfig::Averagely => Arc::new(Averagely),
            StrategyConfig::Circle => Arc::new(AveragelyByCircle),
            StrategyConfig::ConsistentHash { virtual_node_count } => Arc::new(ConsistentHash::new(*virtual_node_count)?),
            StrategyConfig::MachineRoomNearby { inner, broker_room_sep, consumer_room_sep } => {
                Arc::new(MachineRoomNearby::new(inner.build()?, Arc::new(SeparatorResolver::new(broker_room_sep.as_str(), consumer_room_sep.as_str())?)))
            }
            StrategyConfig::ByMachineRoom { consume_idcs } => {
                Arc::new(ByMachineRoom::new(consume_idcs.as_ref().map(|v| v.iter().cloned().collect::<HashSet<_>>())))
            }
            StrategyConfig::ByConfig { config } => Arc::new(ByConfig::new(config.clone())),
            StrategyConfig::BalancedSticky { stable_key, weights, total_slack } => {
                Arc::new(BalancedSticky::with_weights(stable_key.clone(), weights.clone())?.with_total_slack(i64::from(*total_slack))?)
            }
            StrategyConfig::BalancedStickyV2 { stable_key, overload_percent, underload_percent } => {
                Arc::new(BalancedStickyV2::new(stable_key.clone()).with_overload_percent(*overload_percent)?.with_underload_percent(*underload_percent)?)
            }
        })
    }
}

/// Builds a strategy from a name and JSON parameters in one step.
pub fn strategy_from_config(name: &str, params: &Value) -> Result<Arc<dyn Strategy>> {
    StrategyConfig::from_name(name, params)?.build()
}

fn parse_params<T: DeserializeOwned>(strategy: &str, params: &Value) -> Result<T> {
    let params = if params.is_null() { json!({}) } else { params.clone() };
    if !params.is_object() {
        return Err(invalid(strategy, &format!("params must be a JSON object, not {params}")));
    }
    // serde_path_to_error names the offending field ("virtual_node_count: invalid type ...").
    serde_path_to_error::deserialize(params).map_err(|e| invalid(strategy, &format!("{}: {}", e.path(), e.inner())))
}

fn invalid(strategy: &str, reason: &str) -> Error {
    Error::InvalidParameters { strategy: strategy.to_owned(), reason: reason.to_owned() }
}

impl Serialize for StrategyConfig {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for StrategyConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        StrategyConfig::from_value(&value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_json() {
        let text = r#"{"strategy":"machine_room_nearby","params":{"inner":"consistent_hash","inner_params":{"virtual_node_count":3}}}"#;
        let config = StrategyConfig::from_json(text).unwrap();
        assert_eq!(StrategyConfig::from_value(&config.to_value()).unwrap(), config);
        assert_eq!(config.build().unwrap().name(), "MACHINE_ROOM_NEARBY-CONSISTENT_HASH");
    }

    /// NAMES is the list help texts show: every name in it is one `from_name` knows, and every
    /// name `KNOWN_NAMES` (the error text) offers is in it.
    #[test]
    fn names_are_the_known_ones() {
        for name in StrategyConfig::NAMES {
            let known = !matches!(StrategyConfig::from_name(name, &Value::Null), Err(Error::UnknownStrategy { .. }));
            assert!(known, "{name}");
            assert!(KNOWN_NAMES.contains(&format!("{name} (")), "{name} missing from KNOWN_NAMES");
        }
        assert_eq!(KNOWN_NAMES.matches(" (").count(), StrategyConfig::NAMES.len());
    }

    #[test]
    fn java_names_are_accepted() {
        for (java, config) in [("AVG", "averagely"), ("AVG_BY_CIRCLE", "circle"), ("CONFIG", "by_config"), ("MACHINE_ROOM", "by_machine_room")] {
            assert_eq!(StrategyConfig::from_name(java, &Value::Null).unwrap().config_name(), config);
        }
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = StrategyConfig::from_name("avg", &Value::Null).unwrap_err();
        assert!(matches!(err, Error::UnknownStrategy { .. }));
        assert!(err.to_string().contains("averagely (AVG)"), "{err}");
    }

    #[test]
    fn bad_parameter_says_which() {
        let err = StrategyConfig::from_name("consistent_hash", &json!({"virtual_node_count": "ten"})).unwrap_err();
        assert!(err.to_string().contains("virtual_node_count"), "{err}");
        let err = StrategyConfig::from_name("consistent_hash", &json!([1])).unwrap_err();
        assert!(err.to_string().contains("must be a JSON object"), "{err}");
        let err = StrategyConfig::from_name("machine_room_nearby", &json!({})).unwrap_err();
        assert!(err.to_string().contains("inner"), "{err}");
    }

    #[test]
    fn strict_parsing_refuses_a_key_the_strategy_does_not_read_and_plain_parsing_ignores_it() {
        let misplaced = json!({"virtual_node_count": 3});
        assert!(StrategyConfig::from_name("averagely", &misplaced).is_ok(), "a newer config loads in an older client");
        let err = StrategyConfig::from_name_strict("averagely", &misplaced).unwrap_err().to_string();
        assert!(err.contains("`virtual_node_count` is not one of its parameters (it takes: none)"), "{err}");
        let err = StrategyConfig::from_name_strict("BALANCED_STICKY_V2", &json!({"total_slack": 1})).unwrap_err().to_string();
        assert!(err.contains("it takes: stable_key, overload_percent, underload_percent"), "{err}");
        let nearby = json!({"inner": "consistent_hash", "inner_params": {"virtual_node_count": 3, "weights": {}}});
        assert!(StrategyConfig::from_name_strict("machine_room_nearby", &nearby).unwrap_err().to_string().contains("`weights`"));
        // Every key a strategy writes back (`params()`) is one it takes: a configuration round-trips strictly.
        for name in StrategyConfig::NAMES {
            let params = match *name {
                "machine_room_nearby" => json!({"inner": "averagely"}),
                _ => Value::Null,
            };
            let config = StrategyConfig::from_name(name, &params).unwrap();
            assert_eq!(StrategyConfig::from_name_strict(name, &config.params()).unwrap(), config, "{name}");
        }
    }

    #[test]
    fn negative_virtual_nodes_fail_at_build_like_java() {
        let config = StrategyConfig::from_name("consistent_hash", &json!({"virtual_node_count": -3})).unwrap();
        assert_eq!(config.build().unwrap_err().to_string(), "illegal virtualNodeCnt :-3");
    }
}
