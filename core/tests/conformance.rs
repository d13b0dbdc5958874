//! Runs every committed conformance vector (produced by the real rocketmq-client jar, see
//! `tests/vectors/`) through the Rust strategies, per member and through the group view; and the
//! committed BALANCED_STICKY answers (`tests/golden/`), which pin that strategy across versions.

use std::path::PathBuf;

use rocketmq_rebalance::batch::{Case, Outcome};
use rocketmq_rebalance::md5_batch::Md5Path;
use rocketmq_rebalance::{java_order, MessageQueue, StrategyConfig};
use serde_json::Value;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/data")
}

fn lines(file: &str) -> Vec<Value> {
    read_lines(&data_dir().join(file))
}

fn read_lines(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|l| serde_json::from_str(l).expect("vector line is JSON")).collect()
}

/// Java's answer vs ours. IllegalArgumentException messages are ours to match; a
/// NullPointerException's message is written by the JVM (JEP 358), so only its class counts.
fn matches(expected: &Value, got: &Outcome) -> bool {
    match (expected.get("result"), expected.get("error"), got) {
        (Some(result), None, Outcome::Allocated(ours)) => {
            let theirs: Option<Vec<MessageQueue>> = serde_json::from_value(result.clone()).unwrap();
            theirs == *ours
        }
        (None, Some(Value::String(error)), Outcome::Threw { exception, message }) => {
            let (class, text) = error.split_once(": ").unwrap_or((error, ""));
            class == exception && (class == "NullPointerException" || text == message)
        }
        _ => false,
    }
}

fn run_file(file: &str) {
    run_vectors(file, &lines(file));
}

fn run_vectors(file: &str, vectors: &[Value]) {
    assert!(!vectors.is_empty(), "{file} has no vectors");
    let mut failures = Vec::new();
    for v in vectors {
        let case: Case = serde_json::from_value(v.clone()).expect("vector is a case");
        let got = case.run().unwrap_or_else(|e| panic!("{}: config rejected: {e}", case.id));
        if !matches(&v["expected"], &got) {
            failures.push(format!("{}: expected {}, got {:?}", case.id, v["expected"], got));
        }
        check_group_view_agrees(&case, &got, &mut failures);
    }
    assert!(failures.is_empty(), "{} of {} vectors in {file} differ:\n{}", failures.len(), vectors.len(), failures[..failures.len().min(10)].join("\n"));
    println!("{file}: {} vectors match their expected answers", vectors.len());
}

/// The one-pass group view must give the current member exactly its per-member (Java) answer.
fn check_group_view_agrees(case: &Case, got: &Outcome, failures: &mut Vec<String>) {
    let (Outcome::Allocated(Some(mine)), Some(mq_all), Some(cid_all), Some(current)) = (got, &case.mq_all, &case.cid_all, &case.current) else {
        return;
    };
    if !cid_all.contains(current) {
        return;
    }
    let strategy = StrategyConfig::from_name(&case.strategy, &case.params).unwrap().build().unwrap();
    match strategy.allocate_group("g", mq_all, cid_all) {
        Ok(view) => {
            let share = view.share_of(current).map(|a| a.to_queues(mq_all));
            if share.as_ref() != Some(mine) {
                failures.push(format!("{}: group view gives {current} {share:?}, per-member {mine:?}", case.id));
            }
        }
        Err(e) => failures.push(format!("{}: group view failed: {e}", case.id)),
    }
}

/// The test command runs this file once per MD5 path the CPU has (`RMQ_REBALANCE_MD5`): make
/// sure the path asked for is the one the strategies use, so a typo cannot pass as coverage.
#[test]
fn md5_path_is_the_one_asked_for() {
    let active = Md5Path::active();
    eprintln!("MD5 path: {} ({} lanes)", active.name(), active.lanes());
    match std::env::var(rocketmq_rebalance::md5_batch::PATH_VARIABLE).as_deref() {
        Ok("auto") | Err(_) => assert_eq!(active, Md5Path::best()),
        Ok(asked) => assert_eq!(active.name(), asked, "the path asked for is not available on this CPU"),
    }
}

#[test]
fn averagely() {
    run_file("averagely.jsonl");
}

#[test]
fn circle() {
    run_file("circle.jsonl");
}

#[test]
fn consistent_hash() {
    run_file("consistent_hash.jsonl");
}

#[test]
fn machine_room_nearby() {
    run_file("machine_room_nearby.jsonl");
}

#[test]
fn by_machine_room() {
    run_file("by_machine_room.jsonl");
}

#[test]
fn by_config() {
    run_file("by_config.jsonl");
}

/// BALANCED_STICKY has no Java original: its committed answers are the reference, so that a
/// change to the algorithm fails here instead of splitting a group of mixed client versions.
/// Its answers must also not depend on the order of the lists.
#[test]
fn balanced_sticky_matches_its_committed_answers_in_any_order() {
    committed_answers_in_any_order("balanced_sticky.jsonl");
}

/// BALANCED_STICKY_V2 likewise, pinned from its first version.
#[test]
fn balanced_sticky_v2_matches_its_committed_answers_in_any_order() {
    committed_answers_in_any_order("balanced_sticky_v2.jsonl");
}

fn committed_answers_in_any_order(file: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(file);
    let golden = read_lines(&path);
    assert!(golden.len() >= 400, "{} golden cases", golden.len());
    run_vectors(file, &golden);
    // The same queues, whatever the order of the lists (the answer lists them in input order).
    for v in &golden {
        let mut case: Case = serde_json::from_value(v.clone()).unwrap();
        let Outcome::Allocated(Some(mut want)) = case.run().unwrap() else { continue };
        case.mq_all.as_mut().unwrap().reverse();
        case.cid_all.as_mut().unwrap().reverse();
        let Outcome::Allocated(Some(mut got)) = case.run().unwrap() else { panic!("{}: reversed lists failed", case.id) };
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}: reversed lists", case.id);
    }
}

#[test]
fn sorting_matches_collections_sort() {
    let vectors = lines("sort.jsonl");
    assert!(!vectors.is_empty());
    for v in vectors {
        let mut queues: Vec<MessageQueue> = serde_json::from_value(v["mq_all"].clone()).unwrap();
        let mut ids: Vec<String> = serde_json::from_value(v["cid_all"].clone()).unwrap();
        java_order::sort_queues(&mut queues);
        java_order::sort_client_ids(&mut ids);
        let want_q: Vec<MessageQueue> = serde_json::from_value(v["expected"]["mq_all"].clone()).unwrap();
        let want_i: Vec<String> = serde_json::from_value(v["expected"]["cid_all"].clone()).unwrap();
        assert_eq!(queues, want_q, "{}", v["id"]);
        assert_eq!(ids, want_i, "{}", v["id"]);
    }
}

#[test]
fn vectors_cover_what_the_spec_lists() {
    let all: Vec<Value> = ["averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"]
        .iter()
        .flat_map(|s| lines(&format!("{s}.jsonl")))
        .collect();
    let errors: Vec<&str> = all.iter().filter_map(|v| v["expected"]["error"].as_str()).collect();
    for needle in [
        "currentCID is empty",
        "mqAll is null or mqAll empty",
        "cidAll is null or cidAll empty",
        "illegal virtualNodeCnt :-1",
        "Machine room is null for mq",
        "Machine room is null for consumer id",
        "NullPointerException",
    ] {
        assert!(errors.iter().any(|e| e.contains(needle)), "no vector throws {needle}");
    }
    let big = all.iter().filter(|v| v["mq_all"].as_array().is_some_and(|a| a.len() >= 5000)).count();
    assert!(big >= 6, "only {big} vectors with 5,000 queues");
    let null_result = all.iter().filter(|v| v["expected"]["result"].is_null() && v["expected"].get("result").is_some()).count();
    assert!(null_result > 0, "no vector where Java returns null");
}
