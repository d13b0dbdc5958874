//! What the CLI's integration tests share: the binary, a hand-built snapshot, temporary files.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output};

pub fn rmq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(args).output().expect("the binary runs")
}

/// Two AVG members over 4 queues (AVG gives the sorted first member queues 0-1, the second 2-3),
/// holding `a` and `b`.
pub fn snapshot(a: &[i32], b: &[i32]) -> String {
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

/// [`snapshot`] with the brokers' offsets: (committed, max) for queues 0-3.
pub fn snapshot_with_offsets(a: &[i32], b: &[i32], offsets: [(i64, i64); 4]) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&snapshot(a, b)).expect("JSON");
    let offsets: Vec<serde_json::Value> =
        offsets.iter().enumerate().map(|(i, (c, m))| serde_json::json!({"queue": ["T", "broker-a", i], "consumer_offset": c, "broker_offset": m})).collect();
    v["offsets"] = offsets.into();
    v.to_string()
}

/// A file in the temporary directory, removed when dropped.
pub struct TempFile(pub std::path::PathBuf);

impl TempFile {
    pub fn arg(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub fn file(text: &str) -> TempFile {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("rmq-inspect-test-{}-{n}.json", std::process::id()));
    std::fs::File::create(&p).and_then(|mut f| f.write_all(text.as_bytes())).expect("a temporary file");
    TempFile(p)
}
