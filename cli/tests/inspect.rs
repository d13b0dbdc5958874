//! `rmq-rebalance inspect` as a user runs it, without a cluster: a saved snapshot diagnosed
//! offline (its answers derived by hand), and every way it can be given bad input. `--save` on a
//! live cluster is tested by the mixed-group real-broker test, which reads what it saved.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output};

fn rmq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(args).output().expect("the binary runs")
}

/// Two AVG members over 4 queues (AVG gives the sorted first member queues 0-1, the second 2-3),
/// holding `a` and `b`.
fn snapshot(a: &[i32], b: &[i32]) -> String {
    let held = |ids: &[i32]| -> Vec<serde_json::Value> {
        ids.iter()
            .map(|i| serde_json::json!({"queue": ["T", "broker-a", i], "dropped": false, "locked": false, "last_lock_ms": 0, "last_pull_ms": 0}))
            .collect()
    };
    let avg = serde_json::json!({"allocateMessageQueueStrategy": "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1b6d3586"});
    serde_json::json!({
        "group": "G",
        "taken_at_ms": 0,
        "topics": {"T": [["T", "broker-a", 0], ["T", "broker-a", 1], ["T", "broker-a", 2], ["T", "broker-a", 3]]},
        "brokers": [{"broker": "broker-a", "addr": "127.0.0.1:10911", "consumer_ids": ["b@1", "a@1"]}],
        "connections": [
            {"client_id": "a@1", "client_addr": "10.0.0.1:1", "language": "JAVA", "version": 479},
            {"client_id": "b@1", "client_addr": "10.0.0.2:1", "language": "JAVA", "version": 479}
        ],
        "clients": [
            {"client_id": "a@1", "running": {"properties": avg, "held": held(a)}},
            {"client_id": "b@1", "running": {"properties": avg, "held": held(b)}}
        ]
    })
    .to_string()
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn arg(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn file(text: &str) -> TempFile {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("rmq-inspect-test-{}-{n}.json", std::process::id()));
    std::fs::File::create(&p).and_then(|mut f| f.write_all(text.as_bytes())).expect("a temporary file");
    TempFile(p)
}

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

/// `--watch`: each round one JSON line, and the latest served as Prometheus gauges. The snapshot
/// is the one above with a@1 on 0-2 and b@1 on 2: queue 3 orphaned, 2 held twice, a@1 holding 2
/// against AVG. The interval is long, so the metrics are read while the process sleeps.
#[test]
fn watch_prints_json_lines_and_serves_the_findings_as_metrics() {
    use std::io::{BufRead, BufReader, Read};
    let snap = file(&snapshot(&[0, 1, 2], &[2]));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rmq-rebalance"))
        .args(["inspect", "--load", snap.arg(), "--watch", "600", "--watch-rounds", "2", "--metrics-addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut err = BufReader::new(child.stderr.take().expect("piped"));
    let mut line = String::new();
    err.read_line(&mut line).expect("a line on stderr");
    let addr = line.trim().trim_start_matches("serving metrics on http://").trim_end_matches("/metrics").to_owned();
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut first = String::new();
    out.read_line(&mut first).expect("a JSON line");
    let round: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!((round["group"].as_str(), round["healthy"].as_bool()), (Some("G"), Some(false)), "{round}");
    let kinds: Vec<&str> = round["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["orphaned", "double_held", "unexpected_holder"]);
    let mut http = std::net::TcpStream::connect(&addr).expect("the metrics port");
    http.write_all(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
    let mut page = String::new();
    http.read_to_string(&mut page).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(page.starts_with("HTTP/1.") && page.contains("text/plain"), "{page}");
    for series in [
        r#"rmq_rebalance_inspect_up{group="G"} 1"#,
        r#"rmq_rebalance_orphaned_queues{group="G",topic="T"} 1"#,
        r#"rmq_rebalance_double_held_queues{group="G",topic="T"} 1"#,
        r#"rmq_rebalance_unexpected_holders{group="G",topic="T"} 1"#,
        r#"rmq_rebalance_stuck_orderly_locks{group="G",topic="T"} 0"#,
        r#"rmq_rebalance_findings{group="G",kind="duplicate_client_id"} 0"#,
        r#"rmq_rebalance_findings{group="G",kind="orphaned"} 1"#,
        r#"rmq_rebalance_foreign_strategy_members{group="G"} 0"#,
    ] {
        assert!(page.lines().any(|l| l == series), "no line {series} in:\n{page}");
    }
}

#[test]
fn watch_refuses_a_zero_interval_and_a_port_it_cannot_bind() {
    let snap = file(&snapshot(&[0, 1], &[2, 3]));
    let out = rmq(&["inspect", "--load", snap.arg(), "--watch", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = rmq(&["inspect", "--load", snap.arg(), "--watch", "1", "--watch-rounds", "1", "--metrics-addr", &addr]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metrics-addr"), "{}", String::from_utf8_lossy(&out.stderr));
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
