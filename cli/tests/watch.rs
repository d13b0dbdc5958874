//! `rmq-rebalance watch` and `inspect --watch` as a user runs them, on snapshot files instead of a
//! cluster (`--load`, read again every round): the metrics, the pages, the owner-change history,
//! SIGTERM. The rounds are driven by the files: a test changes a file and waits for what follows,
//! never for a time. The real cluster is tested by the e2e stage.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};

use common::{file, rmq, snapshot, snapshot_with_offsets, TempFile};

/// A running `rmq-rebalance`, its address read from its first line on stderr. A thread drains
/// stderr into a channel, so the child never blocks on a full pipe however many rounds it runs.
struct Running {
    child: Child,
    addr: String,
    stdout: BufReader<ChildStdout>,
    stderr: Receiver<String>,
}

impl Running {
    fn start(args: &[&str]) -> Self {
        let mut child =
            Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary runs");
        let (send, stderr) = channel();
        let lines = BufReader::new(child.stderr.take().expect("piped"));
        std::thread::spawn(move || lines.lines().map_while(Result::ok).try_for_each(|l| send.send(l)));
        let first = stderr.recv().expect("a line on stderr");
        let addr = first.split("http://").nth(1).and_then(|a| a.split('/').next()).unwrap_or_else(|| panic!("no address in {first:?}")).to_owned();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Running { child, addr, stdout, stderr }
    }

    fn get(&self, path: &str) -> String {
        let mut http = std::net::TcpStream::connect(&self.addr).expect("the listen port");
        write!(http, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
        let mut page = String::new();
        http.read_to_string(&mut page).unwrap();
        page
    }

    /// Waits for the round report `round N` on stderr.
    fn wait_round(&self, n: u64) {
        let prefix = format!("round {n}:");
        while !self.stderr.recv().unwrap_or_else(|_| panic!("ended before round {n}")).starts_with(&prefix) {}
    }

    /// `path` once it has a line `line`, asked again after each round (at most 600: the rounds,
    /// not a clock, bound the wait).
    fn until(&self, path: &str, line: &str) -> String {
        for _ in 0..600 {
            let page = self.get(path);
            if has(&page, line) {
                return page;
            }
            while !self.stderr.recv().expect("still running").starts_with("round ") {}
        }
        panic!("no line {line} in {path} after 600 rounds");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn has(page: &str, series: &str) -> bool {
    page.lines().any(|l| l == series)
}

/// Replaces `f`'s content at once (a reader never sees half a file).
fn rewrite(f: &TempFile, text: &str) {
    let tmp = f.0.with_extension("new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &f.0).unwrap();
}

/// a@1 on 0-2 and b@1 on 2 (AVG gives a@1 0-1, b@1 2-3): queue 3 orphaned with 50 waiting, 2 held
/// twice; 0 and 1 caught up. Three rounds of the same answer fill the window: 3 has had messages
/// and no commit all along, so STOP, caused by nobody holding it; its lag is stuck, not drainable.
#[test]
fn watch_serves_status_cause_and_lag_by_the_contract() {
    let snap = file(&snapshot_with_offsets(&[0, 1, 2], &[2], [(5, 5), (5, 5), (5, 5), (0, 50)]));
    let w = Running::start(&["watch", "--load", snap.arg(), "--interval", "50ms", "--listen", "127.0.0.1:0", "--per-queue"]);
    w.wait_round(4);
    let page = w.get("/metrics");
    assert!(page.starts_with("HTTP/1.") && page.contains("text/plain; version=0.0.4"), "{page}");
    let labels = r#"cluster="snapshot",consumer_group="G""#;
    for series in [
        format!("rmq_rebalance_group_up{{{labels}}} 1"),
        format!(r#"rmq_rebalance_group_status{{{labels},status="STOP"}} 1"#),
        format!(r#"rmq_rebalance_group_status{{{labels},status="OK"}} 0"#),
        format!("rmq_rebalance_group_members{{{labels}}} 2"),
        format!("rmq_rebalance_group_useful_members_max{{{labels}}} 4"),
        format!(r#"rmq_rebalance_group_findings{{{labels},kind="orphaned"}} 1"#),
        format!(r#"rmq_rebalance_group_findings{{{labels},kind="duplicate_client_id"}} 0"#),
        format!(r#"rmq_rebalance_topic_cause_queues{{{labels},topic="T",cause="orphaned"}} 1"#),
        format!(r#"rmq_rebalance_topic_cause_queues{{{labels},topic="T",cause="double_held"}} 1"#),
        format!(r#"rmq_rebalance_topic_cause_lag_messages{{{labels},topic="T",cause="orphaned"}} 50"#),
        format!(r#"rmq_rebalance_topic_cause_lag_messages{{{labels},topic="T",cause="double_held"}} 0"#),
        format!(r#"rmq_rebalance_topic_queues{{{labels},topic="T",status="STOP"}} 1"#),
        format!(r#"rmq_rebalance_topic_stuck_lag_messages{{{labels},topic="T"}} 50"#),
        format!(r#"rmq_rebalance_topic_drainable_lag_messages{{{labels},topic="T"}} 0"#),
        format!(r#"rmq_rebalance_queue_status{{{labels},topic="T",broker="broker-a",queue_id="3",status="STOP"}} 1"#),
        format!(r#"rmq_rebalance_queue_cause{{{labels},topic="T",broker="broker-a",queue_id="3",cause="orphaned"}} 1"#),
        format!(r#"rmq_rebalance_queue_holder_info{{{labels},topic="T",broker="broker-a",queue_id="2",client_id="b@1"}} 1"#),
    ] {
        assert!(has(&page, &series), "no line {series} in:\n{page}");
    }
    assert!(page.lines().any(|l| l.starts_with("rmq_rebalance_build_info{") && l.contains(r#"contract="1""#)), "{page}");
    let index = w.get("/");
    assert!(index.contains("text/html") && index.contains(r#"data-group="G""#) && index.contains("status-STOP"), "{index}");
    let group = w.get("/group/G");
    assert!(group.contains(r#"data-queue="T@broker-a:3""#) && group.contains("cause-orphaned"), "{group}");
    let missing = w.get("/group/nope");
    assert!(missing.lines().next().is_some_and(|l| l.contains(" 404 ")), "{missing}");
}

/// Holders that change between rounds are history: one JSON line per change on stdout, a counter,
/// and the page's list. A file that turns bad keeps the last good answer, marked stale.
#[test]
fn owner_changes_are_json_lines_and_a_failed_read_serves_the_last_good_answer_as_stale() {
    let snap = file(&snapshot(&[0, 1], &[2, 3]));
    let mut w = Running::start(&["watch", "--load", snap.arg(), "--interval", "50ms", "--listen", "127.0.0.1:0"]);
    w.wait_round(1);
    rewrite(&snap, &snapshot(&[0], &[1, 2, 3]));
    let mut line = String::new();
    w.stdout.read_line(&mut line).expect("an owner change");
    let change: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(change["consumer_group"], "G");
    assert_eq!((change["topic"].as_str(), change["queue_id"].as_i64()), (Some("T"), Some(1)), "{change}");
    assert_eq!((change["from"].clone(), change["to"].clone()), (serde_json::json!(["a@1"]), serde_json::json!(["b@1"])));
    assert_eq!(change["cluster"], "snapshot");
    // Published before the change is written: the counter is there already.
    assert!(has(&w.get("/metrics"), r#"rmq_rebalance_owner_changes_total{cluster="snapshot",consumer_group="G",topic="T"} 1"#));
    rewrite(&snap, "{ not json");
    let page = w.until("/metrics", r#"rmq_rebalance_group_up{cluster="snapshot",consumer_group="G"} 0"#);
    assert!(has(&page, r#"rmq_rebalance_group_members{cluster="snapshot",consumer_group="G"} 2"#), "the last good answer stays: {page}");
    let group = w.get("/group/G");
    assert!(group.contains(r#"id="stale""#) && group.contains(r#"class="change""#), "{group}");
}

#[cfg(unix)]
#[test]
fn sigterm_stops_it_cleanly() {
    let snap = file(&snapshot(&[0, 1], &[2, 3]));
    let mut w = Running::start(&["watch", "--load", snap.arg(), "--interval", "10m", "--listen", "127.0.0.1:0"]);
    w.wait_round(1);
    // SAFETY: a signal to a child this test started and has not yet reaped.
    unsafe {
        libc::kill(w.child.id() as i32, libc::SIGTERM);
    }
    let status = w.child.wait().expect("it ends");
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = w.stderr.iter().collect();
    assert!(rest.iter().any(|l| l == "stopping on a signal after 1 rounds"), "{rest:?}");
}

#[test]
fn bad_arguments_exit_2_naming_the_option() {
    let snap = file(&snapshot(&[0, 1], &[2, 3]));
    let refused = |args: &[&str], says: &str| {
        let out = rmq(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err:?} does not say {says:?}");
    };
    refused(&["watch"], "--namesrv");
    refused(&["watch", "--load", snap.arg(), "--interval", "0s"], "more than zero");
    refused(&["watch", "--load", snap.arg(), "--window", "2"], "--window");
    refused(&["watch", "--load", "/no/such/file.json"], "/no/such/file.json");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    refused(&["watch", "--load", snap.arg(), "--rounds", "1", "--listen", &addr], "--listen");
    refused(&["inspect", "--load", snap.arg(), "--watch", "0"], "--watch");
    refused(&["inspect", "--load", snap.arg(), "--watch", "1", "--watch-rounds", "1", "--metrics-addr", &addr], "--metrics-addr");
}

/// `inspect --watch` is the watch of one group, its findings still one JSON line per round.
#[test]
fn inspect_watch_prints_json_lines_and_serves_the_contract() {
    let snap = file(&snapshot(&[0, 1, 2], &[2]));
    let mut w = Running::start(&["inspect", "--load", snap.arg(), "--watch", "600", "--metrics-addr", "127.0.0.1:0"]);
    let mut first = String::new();
    w.stdout.read_line(&mut first).expect("a JSON line");
    let round: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!((round["group"].as_str(), round["healthy"].as_bool()), (Some("G"), Some(false)), "{round}");
    let kinds: Vec<&str> = round["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["orphaned", "double_held", "unexpected_holder"]);
    let page = w.get("/metrics");
    assert!(has(&page, r#"rmq_rebalance_group_findings{cluster="snapshot",consumer_group="G",kind="unexpected_holder"} 1"#), "{page}");
}
