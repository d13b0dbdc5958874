//! `rmq-rebalance inspect` as a user runs it, without a cluster: a saved snapshot diagnosed
//! offline (its answers derived by hand), and every way it can be given bad input. `--save` on a
//! live cluster is tested by the mixed-group real-broker test, which reads what it saved.

mod common;

use std::net::TcpListener;
use std::process::Command;

use common::{file, rmq, snapshot};

#[test]
fn a_healthy_snapshot_exits_0_and_says_so() {
    let f = file(&snapshot(&[0, 1], &[2, 3]));
    let out = rmq(&["inspect", "--load", f.arg()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("healthy") && text.contains("T@broker-a:0") && text.contains("a@1"), "{text}");
}

#[test]
fn findings_exit_1_and_their_json_names_queues_as_allocate_writes_them() {
    // a@1 holds 0-2, b@1 holds 2: queue 2 twice (and a@1's own AVG does not give it 2), queue 3 by nobody.
    let f = file(&snapshot(&[0, 1, 2], &[2]));
    let out = rmq(&["inspect", "--load", f.arg(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["orphaned", "double_held", "unexpected_holder"]);
    assert_eq!(v["findings"][0]["queues"], serde_json::json!(["T@broker-a:3"]));
    assert_eq!(v["findings"][1]["clients"], serde_json::json!(["a@1", "b@1"]));
    assert_eq!(v["queues"][2]["expected"], serde_json::json!(["b@1"]), "the Java class in the properties names AVG");
    // The CLI prints core's one schema: its strict reader takes it back whole.
    let d = rocketmq_rebalance::diagnose::parse_diagnosis(std::str::from_utf8(&out.stdout).unwrap()).unwrap();
    assert_eq!((d.group.as_str(), d.findings.len()), ("G", 3));
}

#[test]
fn a_strategy_given_for_a_language_overrides_the_properties() {
    // Under AVG_BY_CIRCLE a@1 gets 0 and 2, b@1 gets 1 and 3: the AVG holdings are now unexpected.
    let f = file(&snapshot(&[0, 1], &[2, 3]));
    let out = rmq(&["inspect", "--load", f.arg(), "--json", "--strategy-of", "JAVA=circle"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unexpected: Vec<&serde_json::Value> = v["findings"].as_array().unwrap().iter().filter(|f| f["kind"] == "unexpected_holder").collect();
    assert_eq!(unexpected.len(), 2, "{v}");
}

#[test]
fn bad_input_exits_2_with_a_reason() {
    let refused = |args: &[&str], says: &str| {
        let out = rmq(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err:?} does not say {says:?}");
    };
    refused(&["inspect"], "--namesrv");
    refused(&["inspect", "--load", "/no/such/snapshot.json"], "--load /no/such/snapshot.json");
    let garbage = file("{\"group\": 3}");
    refused(&["inspect", "--load", garbage.arg()], "not an inspect snapshot");
    let good = file(&snapshot(&[0, 1], &[2, 3]));
    refused(&["inspect", "--load", good.arg(), "--strategy-of", "JAVA"], "KEY=STRATEGY");
    refused(&["inspect", "--load", good.arg(), "--strategy-of", "JAVA=no_such"], "no_such");
    refused(&["inspect", "--load", good.arg(), "--strategy-of", "GO=consistent_hash:{oops"], "not JSON");
    // A NameServer address where nothing listens: refused at once, not after a hang.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    refused(&["inspect", "--namesrv", &format!("127.0.0.1:{port}"), "--group", "G"], "cannot inspect G");
}

/// A reader that stops early (`| head -1`) ends the command quietly, killed by SIGPIPE as `cat`
/// would be, in the table and in `--json`: never a panic. The snapshot's table is far larger than a
/// pipe's buffer, so the writes after the reader has gone meet a closed pipe.
#[cfg(unix)]
#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let queues: Vec<serde_json::Value> = (0..20_000).map(|i| serde_json::json!(["T", "broker-a", i])).collect();
    let big = serde_json::json!({
        "group": "G", "taken_at_ms": 0, "topics": {"T": queues},
        "brokers": [{"broker": "broker-a", "addr": "127.0.0.1:10911", "consumer_ids": ["a@1"]}],
        "connections": [{"client_id": "a@1", "client_addr": "10.0.0.1:1", "language": "JAVA", "version": 479}],
        "clients": [{"client_id": "a@1", "running": {"properties": {}, "held": []}}]
    });
    let f = file(&big.to_string());
    for json in [false, true] {
        let mut args = vec!["inspect", "--load", f.arg()];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "json {json}: {stderr}");
        assert_eq!(out.status.signal(), Some(libc_sigpipe()), "json {json}: {:?}", out.status);
    }
}

/// SIGPIPE's number on Linux and the BSDs.
#[cfg(unix)]
fn libc_sigpipe() -> i32 {
    13
}
