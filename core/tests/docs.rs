//! The manual against the core: every key, reason and timing default the core has is on the
//! pages that document it, so a page cannot fall behind the code.

use std::collections::BTreeSet;

use rocketmq_rebalance::engine::*;
use serde_json::Value;

fn page(name: &str) -> String {
    let path = format!("{}/../docs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every object key in `value`, recursively.
fn keys(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.insert(k.clone());
                keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

/// Every binding's report and configuration is the core's JSON: docs/engine-json.md must name
/// every key a reader can meet and every reason, so a new field or variant in the core fails here
/// until it is documented.
#[test]
fn engine_json_page_names_every_key_and_reason() {
    let page = page("engine-json.md");
    let (report, locks) = (RoundReport::example(), LockReport::example());
    let config = RebalanceConfig::new("g", "c");
    let mut all = BTreeSet::new();
    for value in [serde_json::to_value(&report), serde_json::to_value(&locks), serde_json::to_value(config)] {
        keys(&value.unwrap(), &mut all);
    }
    let names = [ReleaseReason::NAMES, DeferReason::NAMES, SkipReason::NAMES, Warning::NAMES, RoundSkipped::NAMES];
    all.extend(names.iter().flat_map(|n| n.iter().map(|s| s.to_string())));
    let missing: Vec<_> = all.iter().filter(|k| !page.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "docs/engine-json.md does not name: {missing:?}");
}

/// The diagnosis is one schema for the CLI, C and Python: docs/inspect.md must name every field
/// of its JSON and every finding kind, and give the schema version in force.
#[test]
fn inspect_page_names_every_field_and_kind_of_the_diagnosis() {
    use rocketmq_rebalance::diagnose::{Diagnosis, FindingKind, StrategySource, DIAGNOSIS_SCHEMA_VERSION};
    let page = page("inspect.md");
    let mut all = BTreeSet::new();
    keys(&serde_json::to_value(Diagnosis::example()).unwrap(), &mut all);
    all.extend(FindingKind::ALL.iter().map(|k| k.name().to_owned()));
    for source in [StrategySource::Stated, StrategySource::Fingerprint, StrategySource::Foreign, StrategySource::Unknown] {
        all.insert(serde_json::to_value(source).unwrap().as_str().unwrap().to_owned());
    }
    let missing: Vec<_> = all.iter().filter(|k| !page.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "docs/inspect.md does not name: {missing:?}");
    assert!(
        page.contains(&format!("`schema_version` ({DIAGNOSIS_SCHEMA_VERSION})")),
        "docs/inspect.md does not give `schema_version` ({DIAGNOSIS_SCHEMA_VERSION})"
    );
}

/// The timing keys and their defaults come from `Timing` itself; both pages that list them must
/// give each key with its current default.
#[test]
fn timing_keys_and_defaults_are_stated_where_they_are_documented() {
    let entries = Timing::default().entries();
    assert_eq!(entries.len(), 9, "a timing key was added or removed: document it, then update this count");
    let (json, contract) = (page("engine-json.md"), page("host-contract.md"));
    for (key, default) in &entries {
        assert!(json.contains(&format!("`{key}` ({default})")), "docs/engine-json.md lacks `{key}` ({default})");
        assert!(contract.contains(&format!("| `{key}` | {default} |")), "docs/host-contract.md lacks the row `{key}` | {default}");
    }
}

/// The cells of docs/errors.md's row for a core variant.
fn error_row<'p>(page: &'p str, variant: &str) -> Option<Vec<&'p str>> {
    let line = page.lines().find(|l| l.starts_with(&format!("| `{variant}` |")))?;
    Some(line.trim_matches('|').split('|').map(|c| c.trim().trim_matches('`')).collect())
}

/// docs/errors.md has a row for every variant of the core's error, with the Java class the core
/// names for it, and no row for a variant that does not exist.
#[test]
fn the_error_table_lists_every_variant_with_its_java_class() {
    let page = page("errors.md");
    let examples = rocketmq_rebalance::Error::examples();
    for e in &examples {
        let row = error_row(&page, e.variant_name()).unwrap_or_else(|| panic!("docs/errors.md has no row for Error::{}", e.variant_name()));
        assert_eq!(row[1], e.java_exception(), "Error::{}'s Java class", e.variant_name());
    }
    let rows = page.lines().filter(|l| l.starts_with("| `") && l.split('|').nth(3).is_some_and(|c| c.contains("RMQ_RESULT_"))).count();
    assert_eq!(rows, examples.len(), "docs/errors.md's core table has a row for a variant the core does not have");
}
