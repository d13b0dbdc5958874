//! Bad input on every command: exit code 2 and a message that says what is wrong and what is
//! allowed, never a panic (exit 101), an empty table or a NaN.

use std::process::Command;

/// Runs the binary; returns its exit code and stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(args).output().expect("the binary runs");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `args` must exit with 2 and print every one of `says`.
fn assert_refused(args: &[&str], says: &[&str]) {
    let (code, stderr) = refused(args);
    assert_eq!(code, Some(2), "{args:?} exited {code:?}: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{args:?}: {stderr:?} does not say {s:?}");
    }
}

#[test]
fn allocate_refuses_empty_lists_as_java_does() {
    assert_refused(&["allocate", "--queues", "T@b:0-3", "--consumers", ""], &["no client ids", "cidAll is null or cidAll empty"]);
    assert_refused(&["allocate", "--consumers", "a,b"], &["no queues", "mqAll is null or mqAll empty"]);
}

#[test]
fn allocate_explains_bad_queue_ids() {
    assert_refused(&["allocate", "--queues", "T@b:-3-2", "--consumers", "a"], &["not negative"]);
    assert_refused(&["allocate", "--queues", "T@b:0-2147483648", "--consumers", "a"], &["above 2147483647"]);
    assert_refused(&["allocate", "--queues", "T@b:7-3", "--consumers", "a"], &["LO <= HI"]);
    assert_refused(&["allocate", "--queues", "T@b:0-9", "T@b:5", "--consumers", "a"], &["listed more than once", "T@b:5 listed 2 times"]);
}

#[test]
fn allocate_help_lists_every_strategy() {
    let out = Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).args(["allocate", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for name in rocketmq_rebalance::StrategyConfig::NAMES {
        assert!(help.contains(name), "allocate --help does not list {name}");
    }
}

#[test]
fn compare_refuses_a_grid_without_a_join_and_a_leave() {
    assert_refused(&["compare", "--members", "0"], &["--members 0", "at least 2"]);
    assert_refused(&["compare", "--members", "1"], &["at least 2"]);
    assert_refused(&["compare", "--queues", "0"], &["--queues 0", "at least 1"]);
    assert_refused(&["compare", "--strategies", "nope"], &["--strategies", "nope"]);
    assert_refused(&["compare", "--random-groups", "100001"], &["--random-groups 100001", "at most 100000"]);
    assert_refused(&["compare", "--sticky-slack", "1001"], &["--sticky-slack", "total_slack 1001", "0 to 1000"]);
    assert_refused(&["compare", "--sticky-slack", "1,two"], &["--sticky-slack", "\"two\""]);
    assert_refused(&["compare", "--v2-caps", "20"], &["--v2-caps", "OVERLOAD:UNDERLOAD"]);
    assert_refused(&["compare", "--v2-caps", "20:101"], &["--v2-caps", "underload_percent 101", "0 to 100"]);
}

#[test]
fn simulate_says_what_is_wrong_with_a_seed_range() {
    assert_refused(&["simulate", "--seeds", "0"], &["at least 1", "0..=0"]);
    assert_refused(&["simulate", "--seeds", "10..5"], &["empty", "B must exceed A"]);
    assert_refused(&["simulate", "--seeds", "10..=5"], &["empty", "below its start"]);
    assert_refused(&["simulate", "--seeds", "x"], &["not a whole number"]);
    assert_refused(&["simulate", "--seeds", "0..99999999999"], &["at most 10000000"]);
}

/// `--version` gives the workspace version and, built in a git checkout, the commit.
#[test]
fn version_names_the_release_and_the_commit() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rmq-rebalance")).arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(&format!("rmq-rebalance {}", env!("CARGO_PKG_VERSION"))), "{text}");
    let in_checkout = std::process::Command::new("git").args(["rev-parse", "HEAD"]).output().is_ok_and(|o| o.status.success());
    if in_checkout {
        let commit = text.split("(commit ").nth(1).and_then(|rest| rest.strip_suffix(")\n")).unwrap_or_default();
        assert!(commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{text}");
    }
}
