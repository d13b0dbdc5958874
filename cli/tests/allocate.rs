//! The `allocate` command as a user runs it: the built binary, real stdin and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rmq-rebalance"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn answers(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn batch_answers_each_line_in_order() {
    // AVG, 3 queues over [c1, c2]: c1 gets the first two (3 % 2 = 1 extra for index 0).
    let input = concat!(
        r#"{"id": 1, "strategy": "averagely", "group": "g", "current": "c1", "mq_all": [["T","b",0],["T","b",1],["T","b",2]], "cid_all": ["c1","c2"]}"#,
        "\n",
        r#"{"id": "two", "strategy": "circle", "current": null, "mq_all": [["T","b",0]], "cid_all": ["c1"], "unknown_key": 5}"#,
        "\n",
        r#"{"id": 3, "strategy": "by_config", "params": {"config": null}}"#,
        "\n",
    );
    let out = run(&["allocate", "--cases", "-"], input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = answers(&out);
    assert_eq!(a.len(), 3);
    assert_eq!(a[0]["id"], 1);
    assert_eq!(a[0]["result"], serde_json::json!([["T", "b", 0], ["T", "b", 1]]));
    assert_eq!(a[1]["error"], "IllegalArgumentException: currentCID is empty");
    assert!(a[2]["result"].is_null() && a[2].get("result").is_some(), "CONFIG without a list returns null");
}

#[test]
fn malformed_lines_are_reported_with_their_number_and_the_rest_still_run() {
    let input = concat!(
        "not json\n",
        r#"{"id": 2, "strategy": "no_such_strategy", "current": "c", "mq_all": [], "cid_all": []}"#,
        "\n",
        r#"{"id": 3, "strategy": "consistent_hash", "params": {"virtual_node_count": "ten"}}"#,
        "\n",
        r#"{"id": 4, "strategy": "averagely", "current": "c", "mq_all": [["T","b",0]], "cid_all": ["c"]}"#,
        "\n",
        r#"{"id": 5, "strategy": "averagely", "mq_all": [["T","b"]]}"#,
        "\n",
    );
    let out = run(&["allocate", "--cases", "-"], input);
    assert_eq!(out.status.code(), Some(1), "malformed input gives a non-zero exit");
    let a = answers(&out);
    assert_eq!(a.len(), 5);
    assert!(a[0]["error"].as_str().unwrap().starts_with("malformed input line 1:"));
    assert!(a[1]["error"].as_str().unwrap().contains("unknown strategy \"no_such_strategy\""));
    assert_eq!(a[1]["id"], 2);
    assert!(a[2]["error"].as_str().unwrap().contains("virtual_node_count"));
    assert_eq!(a[3]["result"], serde_json::json!([["T", "b", 0]]));
    assert!(a[4]["error"].as_str().unwrap().starts_with("malformed input line 5:"));
}

#[test]
fn table_form_shows_owners_and_checks() {
    let out = run(&["allocate", "--queues", "TopicA@broker-a:0-7", "--consumers", "c2,c1", "--strategy", "AVG"], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<String> = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    // Sorted like RebalanceImpl: c1 first, taking queues 0-3.
    assert!(rows.contains(&"c1 4 TopicA@broker-a:0-3".to_string()), "{text}");
    assert!(rows.contains(&"c2 4 TopicA@broker-a:4-7".to_string()), "{text}");
    assert!(text.contains("0 orphaned queue(s), 0 double-owned queue(s)"), "{text}");
}

#[test]
fn table_form_rejects_bad_specs_clearly() {
    let out = run(&["allocate", "--queues", "TopicA:0-7", "--consumers", "c1"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad queue spec"));
    let out = run(&["allocate", "--queues", "T@b:0", "--consumers", "c1", "--strategy", "nope"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown strategy"));
}

#[test]
fn weighted_balance_is_reported_against_each_share() {
    // 8 queues, host 10.0.0.1 weighing 3 and 10.0.0.2 weighing 1: shares of exactly 6 and 2, so
    // the largest count/share is 1.00 (queues/consumers would call 6 "1.50 of ideal").
    let params = r#"{"stable_key": "host", "weights": {"10.0.0.1": 3}}"#;
    let out = run(&["allocate", "--queues", "T@b:0-7", "--consumers", "10.0.0.1@5,10.0.0.2@7", "--strategy", "balanced_sticky", "--params", params], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("balance (weighted): min 2, max 6, largest count/share 1.00"), "{text}");
}

#[test]
fn balanced_sticky_table_balances_across_topics() {
    // T: 8 queues over 3 (3/3/2), U: 2 queues over 3 (1/1/0): asked per topic, two members could
    // end with 4 and one with 2; asked once with both topics, totals differ by at most one.
    let out = run(&["allocate", "--queues", "T@b:0-7 U@b:0-1", "--consumers", "c1,c2,c3", "--strategy", "balanced_sticky"], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("balance: min 3, max 4"), "{text}");
}

/// `--sticky-slack` empty (or 0) leaves the slack rows out, as its help says.
#[test]
fn compare_without_slack_rows() {
    for none in ["", "0"] {
        let out = run(&["compare", "--topics", "1", "--queues", "4", "--members", "3", "--random-groups", "0", "--sticky-slack", none, "--json"], "");
        assert!(out.status.success(), "{none:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: Vec<&str> = v["summary"].as_array().unwrap().iter().map(|s| s["strategy"].as_str().unwrap()).collect();
        assert_eq!(names, ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "BALANCED_STICKY", "BALANCED_STICKY_V2"], "{none:?}");
    }
}

/// The fair-share yardstick, derived by hand for AVG on one topic of 4 queues and 2 members
/// (10.0.0.0@4000 holds 0-1, 10.0.0.1@4001 holds 2-3). The newcomer 10.9.9.9@1 sorts last: AVG
/// over 3 gives 0-1, 2 and 3, so 1 queue moves against a fair share of 4/3 (0.75). The second
/// member leaves: the first takes 2 and 3, 2 moves against a fair share of 4/2 (1.00).
#[test]
fn compare_reports_movement_against_the_fair_share() {
    let out = run(&["compare", "--topics", "1", "--queues", "4", "--members", "2", "--random-groups", "0", "--sticky-slack", "", "--json"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let avg = v["summary"].as_array().unwrap().iter().find(|s| s["strategy"] == "AVG").unwrap();
    assert_eq!((avg["join_fair_ratio"].as_f64().unwrap(), avg["leave_fair_ratio"].as_f64().unwrap()), (0.75, 1.0), "{avg}");
    let cell = v["cells"].as_array().unwrap().iter().find(|c| c["strategy"] == "AVG").unwrap();
    assert_eq!((cell["join_moved"].as_u64(), cell["leave_moved"].as_u64()), (Some(1), Some(2)), "{cell}");
    let out = run(&["compare", "--topics", "1", "--queues", "4", "--members", "2", "--random-groups", "0", "--sticky-slack", ""], "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("join / leave: moved / fair share") && text.contains("| 0.75 / 1.00 |"), "{text}");
}

#[test]
fn compare_reports_every_strategy_with_movement_against_the_bound() {
    let svg = std::env::temp_dir().join(format!("rmq-compare-{}.svg", std::process::id()));
    let out = run(
        &[
            "compare",
            "--topics",
            "1,4",
            "--queues",
            "4,8",
            "--members",
            "3,5",
            "--random-groups",
            "0",
            "--sticky-slack",
            "2",
            "--json",
            "--svg",
            svg.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = v["summary"].as_array().unwrap();
    let names: Vec<&str> = summary.iter().map(|s| s["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "BALANCED_STICKY", "BALANCED_STICKY_V2", "BALANCED_STICKY-slack:2"]);
    assert_eq!(v["cells"].as_array().unwrap().len(), 6 * 8);
    // BALANCED_STICKY keeps every topic within floor/ceil and, being balanced, can never move fewer
    // queues than the bound; no bound exceeds the cell's queues.
    // With a total slack too: the slack is in totals only, every topic stays exact.
    for name in ["BALANCED_STICKY", "BALANCED_STICKY-slack:2"] {
        let sticky = summary.iter().find(|s| s["strategy"] == name).unwrap();
        assert!(sticky["worst_topic_spread"].as_u64().unwrap() <= 1, "{name}");
    }
    for cell in v["cells"].as_array().unwrap() {
        let queues = cell["topics"].as_u64().unwrap() * cell["queues_per_topic"].as_u64().unwrap();
        assert!(cell["join_bound"].as_u64().unwrap() <= queues);
        if cell["strategy"] == "BALANCED_STICKY" {
            assert!(cell["join_moved"].as_u64().unwrap() >= cell["join_bound"].as_u64().unwrap());
            assert!(cell["leave_moved"].as_u64().unwrap() >= cell["leave_bound"].as_u64().unwrap());
        }
    }
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg") && chart.matches("<circle").count() >= 40);
    let _ = std::fs::remove_file(svg);
}

/// The random groups: seeded (same seed, same figures; another seed, other groups), shaped as
/// documented; no strategy moves fewer queues than its counts force, and an exactly balanced one
/// never forces fewer than the bound.
#[test]
fn compare_measures_seeded_random_groups_shaped_like_deployments() {
    let random = |seed: &str| {
        let out = run(&["compare", "--topics", "1", "--queues", "2", "--members", "2", "--random-groups", "6", "--seed", seed, "--json"], "");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["random"].clone()
    };
    let (a, again, other) = (random("7"), random("7"), random("8"));
    assert_eq!(a, again);
    assert_ne!(a["groups"], other["groups"]);
    assert_eq!(a["seed"], 7);
    // The five strategies and BALANCED_STICKY with the default slacks 1, 2 and 3.
    assert_eq!(a["summary"].as_array().unwrap().len(), 8);
    let groups = a["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 8 * 6);
    for g in groups {
        let (topics, queues, members) = (g["topics"].as_u64().unwrap(), g["queues"].as_u64().unwrap(), g["members"].as_u64().unwrap());
        assert!((1..=40).contains(&topics) && (topics..=16 * topics).contains(&queues) && (2..=24).contains(&members), "{g}");
        for way in ["join", "leave"] {
            let (moved, bound, forced) =
                (g[format!("{way}_moved")].as_u64().unwrap(), g[format!("{way}_bound")].as_u64().unwrap(), g[format!("{way}_forced")].as_u64().unwrap());
            // The counts' changes are made by moves, whatever the strategy.
            assert!(forced <= moved, "{g}");
            // An exactly balanced strategy's new counts are one of the choices the bound minimises over.
            if g["strategy"] == "BALANCED_STICKY" {
                assert!(bound <= forced, "{g}");
            }
        }
    }
}

/// The bound under a strategy's own rule is a lower bound on the moves of any assignment that keeps
/// the rule, so BALANCED_STICKY_V2 (which keeps its caps, with every pair `--v2-caps` names)
/// never moves fewer; for a strategy without a rule of its own it is the exact bound. The balance
/// column is the largest total over ceil(Q/C), which V2's total cap keeps within
/// ceil(Q * 1.2 / C) / ceil(Q / C).
#[test]
fn compare_measures_v2_against_the_bound_of_its_own_rule() {
    let out = run(
        &[
            "compare",
            "--strategies",
            "balanced_sticky,balanced_sticky_v2",
            "--sticky-slack",
            "",
            "--v2-caps",
            "0:0,50:100",
            "--topics",
            "1,5",
            "--queues",
            "3,16",
            "--members",
            "2,7",
            "--random-groups",
            "20",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["summary"].as_array().unwrap().iter().map(|s| s["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["BALANCED_STICKY", "BALANCED_STICKY_V2", "BALANCED_STICKY_V2-overload:0-underload:0", "BALANCED_STICKY_V2-overload:50-underload:100"]);
    let rows = v["cells"].as_array().unwrap().iter().chain(v["random"]["groups"].as_array().unwrap());
    for row in rows {
        let n = |k: &str| row[k].as_u64().unwrap();
        if row["strategy"] == "BALANCED_STICKY" {
            assert_eq!((n("join_own_bound"), n("leave_own_bound")), (n("join_bound"), n("leave_bound")), "{row}");
        } else {
            assert!(n("join_moved") >= n("join_own_bound") && n("leave_moved") >= n("leave_own_bound"), "{row}");
        }
        assert!(row["max_over_ceil"].as_f64().unwrap() >= 1.0, "{row}");
    }
    for s in v["summary"].as_array().unwrap() {
        let worst = s["worst_max_over_ceil"].as_f64().unwrap();
        match s["strategy"].as_str().unwrap() {
            // Exact totals, also with no overload: the largest is ceil(Q/C).
            "BALANCED_STICKY" | "BALANCED_STICKY_V2-overload:0-underload:0" => assert_eq!(worst, 1.0, "{s}"),
            _ => assert!(worst <= 2.0, "{s}"),
        }
    }
}
