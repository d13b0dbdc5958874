//! The foreign strategies against the answers of the real rocketmq-client-go
//! (`tests/vectors/go-data`, written by `bindings/go/cmd/go-vectors` from the Java cases' inputs).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::diagnostic_strategy;
use crate::MessageQueue;

fn lines(dir: &str, file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(dir).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn queues(v: &Value) -> Vec<MessageQueue> {
    serde_json::from_value(v.clone()).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).unwrap()
}

/// Runs every case of `file` through `strategy` (its params from the case); returns how many
/// answers differ from Java's for the same input, which must be some: otherwise the Go strategy
/// is not foreign at all.
fn run_go_file(file: &str, strategy: &str, java_file: &str) -> usize {
    let java: BTreeMap<String, Value> = lines("data", java_file).into_iter().map(|c| (c["id"].as_str().unwrap().to_owned(), c["expected"].clone())).collect();
    let cases = lines("go-data", file);
    assert!(cases.len() > 200, "{file}: only {} cases", cases.len());
    let mut differs_from_java = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let s = diagnostic_strategy(strategy, &case["params"]).unwrap_or_else(|e| panic!("{id}: {e}"));
        let mq_all = queues(&case["mq_all"]);
        let answer = s.allocate(case["group"].as_str().unwrap(), case["current"].as_str().unwrap(), &mq_all, &strings(&case["cid_all"]));
        let expected = &case["expected"];
        match (&answer, expected.get("result")) {
            (Ok(got), Some(want)) => assert_eq!(*got, queues(want), "{id}"),
            (Err(_), None) => assert!(expected["panic"].as_str().is_some(), "{id}: expected {expected}"),
            _ => panic!("{id}: got {answer:?}, Go answered {expected}"),
        }
        if java.get(id.trim_start_matches("go_")) != Some(expected) {
            differs_from_java += 1;
        }
    }
    differs_from_java
}

#[test]
fn go_consistent_hash_matches_rocketmq_client_go() {
    let differ = run_go_file("go_consistent_hash.jsonl", "go_consistent_hash", "consistent_hash.jsonl");
    eprintln!("go_consistent_hash: {differ} cases differ from Java's consistent hash");
    assert!(differ > 100);
}

#[test]
fn go_machine_room_matches_rocketmq_client_go() {
    let differ = run_go_file("go_by_machine_room.jsonl", "go_by_machine_room", "by_machine_room.jsonl");
    eprintln!("go_by_machine_room: {differ} cases differ from Java's machine room");
    assert!(differ > 50);
}

/// Go's AVG and AVG_BY_CIRCLE give Java's answer on every case, so `inspect` judges Go clients
/// on them with Java's strategies.
#[test]
fn go_averagely_and_circle_are_javas() {
    for (file, java) in [("go_averagely.jsonl", "averagely"), ("go_circle.jsonl", "circle")] {
        assert_eq!(run_go_file(file, java, &format!("{java}.jsonl")), 0, "{file}");
    }
}

#[test]
fn parameters_are_required_and_checked() {
    for (name, params) in [
        ("go_consistent_hash", serde_json::json!({})),
        ("go_consistent_hash", serde_json::json!({"virtual_node_count": 1u64 << 40})),
        ("go_by_machine_room", serde_json::json!({"consume_idcs": 3})),
        ("go_by_machine_room", serde_json::json!({"idcs": []})),
    ] {
        let err = diagnostic_strategy(name, &params).unwrap_err();
        assert!(matches!(err, crate::Error::InvalidParameters { .. }), "{name} {params}: {err}");
    }
    assert!(diagnostic_strategy("averagely", &Value::Null).is_ok());
    assert!(diagnostic_strategy("go_nonsense", &Value::Null).is_err());
}

/// The one-pass group view gives each member what asking it alone gives, on every Go case.
#[test]
fn go_ring_group_view_is_each_members_answer() {
    for case in lines("go-data", "go_consistent_hash.jsonl") {
        let s = diagnostic_strategy("go_consistent_hash", &case["params"]).unwrap();
        let (mq_all, cid_all) = (queues(&case["mq_all"]), strings(&case["cid_all"]));
        if mq_all.len() * cid_all.len() > 100_000 {
            continue; // the three 5,000 x 500 cases: per-member answers would take minutes unoptimised
        }
        match s.allocate_group("G", &mq_all, &cid_all) {
            Ok(group) => {
                for m in &group.members {
                    let alone = s.allocate_positions("G", &m.client_id, &mq_all, &cid_all).unwrap();
                    assert_eq!(m.allocation.to_queues(&mq_all), alone.to_queues(&mq_all), "{} {}", case["id"], m.client_id);
                }
            }
            // Every member of the list would panic on a ring of 0 (an absent current id returns first).
            Err(_) => assert_eq!(case["params"]["virtual_node_count"], 0, "{}", case["id"]),
        }
    }
}
