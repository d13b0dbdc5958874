//! The strategies a caller states for clients whose properties do not name theirs, parsed once for
//! every front end: the CLI's `--strategy-of KEY=STRATEGY[:PARAMS]`, C's JSON map and Python's dict
//! entries all end in [`override_from_value`], so a strategy spec means the same everywhere.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::Named;
use crate::Error;

/// Strategies by client id or by language (`GO`, `JAVA`, ...); a client id wins over its language.
pub type StrategyOverrides = BTreeMap<String, Named>;

/// One entry's value: `{"strategy": NAME, "params": {...}}` (params optional).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    strategy: String,
    #[serde(default)]
    params: Value,
}

fn invalid(key: &str, why: impl std::fmt::Display) -> Error {
    Error::InvalidSnapshot(format!("the strategy for {key:?}: {why}"))
}

/// One entry of the map: `spec` is `{"strategy": NAME, "params": {...}}`, NAME any name
/// `strategy_from_config` takes or a Go client's own (`go_consistent_hash`, `go_by_machine_room`).
pub fn override_from_value(key: &str, spec: &Value) -> crate::Result<Named> {
    let spec = Spec::deserialize(spec).map_err(|e| invalid(key, format!("expected {{\"strategy\": NAME, \"params\": {{...}}}}: {e}")))?;
    Named::from_config(&spec.strategy, &spec.params)
}

/// The map as JSON text: an object from client id or language to [`override_from_value`]'s spec.
pub fn overrides_from_json(json: &str) -> crate::Result<StrategyOverrides> {
    let map: BTreeMap<String, Value> = serde_json::from_str(json)
        .map_err(|e| Error::InvalidSnapshot(format!("the strategies: not a JSON object of client id or language to strategy: {e}")))?;
    map.iter().map(|(key, spec)| Ok((key.clone(), override_from_value(key, spec)?))).collect()
}

/// The command line's form, `KEY=STRATEGY[:PARAMS]` with PARAMS a JSON object
/// (`GO=go_consistent_hash:{"virtual_node_count":10}`): one entry of the same map.
pub fn override_from_spec(spec: &str) -> crate::Result<(String, Named)> {
    let (key, rest) = spec.split_once('=').ok_or_else(|| invalid(spec, "expected KEY=STRATEGY[:PARAMS]"))?;
    let (name, params) = match rest.split_once(':') {
        Some((name, params)) => (name, serde_json::from_str(params).map_err(|e| invalid(key, format!("the parameters are not JSON: {e}")))?),
        None => (rest, Value::Null),
    };
    let named = override_from_value(key, &serde_json::json!({"strategy": name, "params": params}))?;
    Ok((key.to_owned(), named))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_map_and_the_command_line_name_the_same_strategy() {
        let map = overrides_from_json(r#"{"GO": {"strategy": "go_consistent_hash", "params": {"virtual_node_count": 10}}, "a@1": {"strategy": "averagely"}}"#)
            .unwrap();
        let (key, named) = override_from_spec(r#"GO=go_consistent_hash:{"virtual_node_count":10}"#).unwrap();
        assert_eq!(key, "GO");
        assert_eq!(map["GO"].label, named.label);
        assert_eq!(map["a@1"].label, override_from_spec("a@1=averagely").unwrap().1.label);
    }

    #[test]
    fn a_malformed_entry_is_refused_naming_it() {
        let err = |r: crate::Result<StrategyOverrides>| r.unwrap_err().to_string();
        assert!(err(overrides_from_json("[1]")).contains("not a JSON object"));
        assert!(err(overrides_from_json(r#"{"GO": {"params": {}}}"#)).contains("\"GO\""));
        assert!(err(overrides_from_json(r#"{"GO": {"strategy": "averagely", "param": {}}}"#)).contains("unknown field `param`"));
        assert!(matches!(overrides_from_json(r#"{"GO": {"strategy": "nope"}}"#), Err(Error::UnknownStrategy { .. })));
        assert!(override_from_spec("GO").unwrap_err().to_string().contains("KEY=STRATEGY"));
        assert!(override_from_spec("GO=consistent_hash:{").unwrap_err().to_string().contains("not JSON"));
    }
}
