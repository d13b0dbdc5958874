//! `rmq-rebalance simulate` as a user runs it.

use std::process::Command;

fn rmq(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(args).output().expect("the binary runs")
}

#[test]
fn default_run_prints_rounds_and_a_clean_summary() {
    let out = rmq(&["simulate"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("D joins") && text.contains("B crashes") && text.contains("broker-0 restarts"), "{text}");
    assert!(text.contains("invariant violations: orderly exclusivity 0, lost messages 0, offset regressions 0, convergence 0"), "{text}");
}

#[test]
fn json_summary_has_the_documented_fields() {
    let out = rmq(&["simulate", "--scenario", "default", "--seeds", "3", "--semantics", "java", "--json"]);
    // Java mode violates invariants but that is what it is for: exit 0.
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["seeds"], 3);
    for key in ["messages_produced", "messages_consumed", "duplicates", "max_handoff_gap_ms"] {
        assert!(v[key].is_u64(), "{key} in {v}");
    }
    for key in ["orderly_exclusivity", "lost_messages", "offset_regressions", "convergence"] {
        assert!(v["violations"][key].is_u64(), "{key} in {v}");
    }
    assert!(v["violations"]["orderly_exclusivity"].as_u64().unwrap() > 0, "seed 1 forces an unlock in java mode");
}

#[test]
fn bad_arguments_are_explained() {
    let out = rmq(&["simulate", "--seeds", "5..2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--seeds"));
    let out = rmq(&["simulate", "--scenario", "/no/such/file.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither built in"));
}

#[test]
fn scenario_files_are_read() {
    let dir = std::env::temp_dir().join(format!("rmq-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tiny.toml");
    std::fs::write(
        &file,
        "name = \"tiny\"\nlength_s = 30\ndrain_s = 60\nbrokers = 1\ninitial_consumers = 2\n[[topics]]\nname = \"T\"\nqueues_per_broker = 2\norderly = true\n",
    )
    .unwrap();
    let out = rmq(&["simulate", "--scenario", file.to_str().unwrap(), "--seeds", "2", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenario"], "tiny");
    std::fs::remove_dir_all(dir).unwrap();
}
