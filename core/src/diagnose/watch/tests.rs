//! Burrow's rules on fixtures derived by hand from the rule descriptions (each fixture says which
//! rule decides it and why), then whole rounds of hand-built snapshots: AVG over the sorted members
//! ["a@1", "b@1"] and 4 queues gives a@1 queues 0-1 and b@1 queues 2-3.

use std::sync::Arc;

use super::super::{diagnose, BrokerMembers, ClientConnection, ClientState, FindingKind, HeldQueue, Named, QueueOffsets, RunningState};
use super::*;
use crate::strategy::Averagely;

/// Samples 10 s apart from t = 0, committed each, from (consumer offset, broker offset) pairs.
fn samples(points: &[(i64, i64)]) -> Vec<Sample> {
    points.iter().enumerate().map(|(i, &(c, b))| Sample { at_ms: i as i64 * 10_000, consumer_offset: c, broker_offset: b, committed: true }).collect()
}

fn at_last(s: &[Sample]) -> i64 {
    s.last().map_or(0, |x| x.at_ms)
}

#[test]
fn each_rule_decides_its_fixture() {
    let ok = QueueStatus::Ok;
    // Rule 1: no lag now, whatever came before (here the offset even went backwards).
    let s = samples(&[(50, 60), (40, 60), (60, 60)]);
    assert_eq!(evaluate(&s, at_last(&s)), ok);
    // Rule 3: the offset went from 30 to 20, lag all along, commits up to now.
    let s = samples(&[(10, 100), (30, 100), (20, 100)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Rewind);
    // Rule 4: lag 0 at the second sample, 5 now, offsets advancing: was caught up in the window.
    let s = samples(&[(10, 20), (20, 20), (25, 30)]);
    assert_eq!(evaluate(&s, at_last(&s)), ok);
    // Rule 5: the same offset committed three times while 40 messages wait.
    let s = samples(&[(60, 100), (60, 100), (60, 100)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Stall);
    // Rule 6: offsets advance but the lag goes 50, 50, 60: never down.
    let s = samples(&[(10, 60), (20, 70), (30, 90)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Warn);
    // Rule 7: offsets advance and the lag went down once (50 to 40).
    let s = samples(&[(10, 60), (30, 70), (40, 90)]);
    assert_eq!(evaluate(&s, at_last(&s)), ok);
}

#[test]
fn stop_is_the_time_since_the_last_commit_against_the_committed_span() {
    // Commits at 0, 10, 20 s; nothing committed at 30..70 s (nobody holds it).
    let mut s = samples(&[(10, 100), (20, 110), (30, 120)]);
    for t in 3..8 {
        s.push(Sample { at_ms: t * 10_000, consumer_offset: 30, broker_offset: 130, committed: false });
    }
    // At 40 s: 20 s since the last commit, not more than the 20 s span from the first: not yet.
    assert_ne!(evaluate(&s[..5], 40_000), QueueStatus::Stop);
    // At 70 s: 50 s since, more than 20: stopped, and STOP is checked before REWIND.
    s[4].consumer_offset = 5;
    assert_eq!(evaluate(&s, 70_000), QueueStatus::Stop);
    // Nothing committed in the whole window, messages waiting: stopped.
    let idle: Vec<Sample> = samples(&[(0, 10), (0, 10), (0, 10)]).into_iter().map(|x| Sample { committed: false, ..x }).collect();
    assert_eq!(evaluate(&idle, 20_000), QueueStatus::Stop);
    // Burrow's exemption: the broker's offset was at the last commit within the window (caught
    // up recently), so not STOP; the window's lag then was 0, so OK by rule 4.
    let mut caught = samples(&[(30, 30), (30, 30)]);
    caught.push(Sample { at_ms: 60_000, consumer_offset: 30, broker_offset: 40, committed: false });
    assert_eq!(evaluate(&caught, 60_000), QueueStatus::Ok);
}

#[test]
fn the_order_is_stop_rewind_ok_stall_warn() {
    // A rewind in a window whose lag was once 0 is still REWIND (said before rule 4).
    let s = samples(&[(50, 50), (40, 60), (45, 60)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Rewind);
    // A constant offset whose lag was 0 at first is OK (rule 4 before STALL).
    let s = samples(&[(50, 50), (50, 60), (50, 70)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Ok);
    // A constant offset with growing lag is STALL, not WARN.
    let s = samples(&[(50, 60), (50, 70), (50, 80)]);
    assert_eq!(evaluate(&s, at_last(&s)), QueueStatus::Stall);
}

#[test]
fn a_window_is_judged_only_when_full_enough_and_keeps_its_size() {
    let rules = WindowRules { samples: 4, min_samples: 3 };
    let mut w = Window::default();
    for (i, s) in samples(&[(5, 10), (5, 10), (5, 10), (5, 10), (5, 10), (5, 10)]).into_iter().enumerate() {
        w.push(s, rules);
        let expected = if i < 2 { QueueStatus::Ok } else { QueueStatus::Stall };
        assert_eq!(w.status(rules, s.at_ms), expected, "after {} samples", i + 1);
    }
    assert_eq!(w.samples().len(), 4);
}

fn q(id: i32) -> MessageQueue {
    MessageQueue::new("T", "broker-a", id)
}

fn entry(id: i32, locked: bool, at: i64) -> HeldQueue {
    HeldQueue { queue: q(id), dropped: false, locked, last_lock_ms: at, last_pull_ms: at }
}

/// A group of `members` (connected, on AVG) where each client holds `held`'s queues; `offsets`
/// (consumer, broker) for queues 0-3.
fn round(at: i64, members: &[&str], held: &[(&str, &[i32])], offsets: [(i64, i64); 4]) -> (Snapshot, Diagnosis) {
    let clients = held
        .iter()
        .map(|(id, qs)| ClientState {
            client_id: (*id).into(),
            running: Some(RunningState { held: qs.iter().map(|&i| entry(i, false, at)).collect(), ..RunningState::default() }),
            error: None,
        })
        .collect();
    let ids: Vec<String> = members.iter().map(|m| (*m).to_owned()).collect();
    let snapshot = Snapshot {
        group: "G".into(),
        taken_at_ms: at,
        topics: [("T".to_owned(), (0..4).map(q).collect())].into(),
        brokers: vec![BrokerMembers { broker: "broker-a".into(), addr: "127.0.0.1:10911".into(), consumer_ids: Some(ids.clone()), error: None }],
        connections: ids
            .iter()
            .map(|id| ClientConnection { client_id: id.clone(), client_addr: format!("{id}:1"), language: "JAVA".into(), version: 479 })
            .collect(),
        clients,
        offsets: offsets.iter().enumerate().map(|(i, &(c, b))| QueueOffsets { queue: q(i as i32), consumer_offset: c, broker_offset: b }).collect(),
        ..Snapshot::default()
    };
    let d = diagnose(&snapshot, &avg);
    (snapshot, d)
}

/// `s` with `id` connected but not answering for its running info, judged again (AVG).
fn silent(mut s: Snapshot, id: &str) -> (Snapshot, Diagnosis) {
    s.clients.push(ClientState { client_id: id.into(), running: None, error: Some("timeout".into()) });
    let d = diagnose(&s, &avg);
    (s, d)
}

/// Every member on AVG.
fn avg(_: &str) -> Option<Named> {
    Some(Named::from_strategy(Arc::new(Averagely)))
}

fn verdict_of(v: &GroupVerdict, id: i32) -> &QueueVerdict {
    v.queues.iter().find(|r| r.queue == q(id)).expect("a row per queue")
}

#[test]
fn an_orphaned_queue_stops_and_says_why_while_a_slow_holder_is_not_blamed_on_ownership() {
    let mut watch = GroupWatch::new(WatchRules::default());
    let mut last = None;
    // a@1 holds 0-1 and keeps up; b@1 holds 2 only, and slowly (lag 10, 15, 20, 25); 3 is held by nobody.
    for r in 0..4i64 {
        let (s, d) = round(r * 30_000, &["a@1", "b@1"], &[("a@1", &[0, 1]), ("b@1", &[2])], [(r, r), (r, r), (r * 5, r * 10 + 10), (0, 50)]);
        last = Some(watch.observe(&s, &d));
    }
    let v = last.unwrap();
    assert_eq!((verdict_of(&v, 0).status, verdict_of(&v, 0).cause), (QueueStatus::Ok, None));
    assert_eq!((verdict_of(&v, 2).status, verdict_of(&v, 2).cause), (QueueStatus::Warn, Some(Cause::Unknown)));
    assert_eq!((verdict_of(&v, 3).status, verdict_of(&v, 3).cause), (QueueStatus::Stop, Some(Cause::Orphaned)));
    assert_eq!(v.status, QueueStatus::Stop, "the group's status is its worst queue's");
    assert_eq!((v.drainable_lag, v.stuck_lag, v.lag), (25, 50, 75));
    assert_eq!((v.members, v.useful_members_max), (2, 4));
    // The orphaned finding has held since the first round.
    let orphaned = v.findings.iter().find(|f| f.finding.kind == FindingKind::Orphaned).expect("orphaned");
    assert_eq!(orphaned.since_ms, 0);
    assert_eq!(verdict_of(&v, 3).status_since_ms, 60_000, "STOP from the third round, when the window was judged");
}

#[test]
fn owner_changes_are_history_a_gap_is_not_a_change_and_three_in_ten_rounds_flap() {
    let mut watch = GroupWatch::new(WatchRules::default());
    let zero = [(0, 0); 4];
    let holders: [&[(&str, &[i32])]; 6] = [
        &[("a@1", &[0, 1]), ("b@1", &[2, 3])],
        &[("a@1", &[1]), ("b@1", &[2, 3])],    // 0 held by nobody: no change yet
        &[("a@1", &[0, 1]), ("b@1", &[2, 3])], // back to a@1: still no change
        &[("a@1", &[1]), ("b@1", &[0, 2, 3])],
        &[("a@1", &[0, 1]), ("b@1", &[2, 3])],
        &[("a@1", &[1]), ("b@1", &[0, 2, 3])],
    ];
    let mut changes = Vec::new();
    let mut last = None;
    for (r, h) in holders.iter().enumerate() {
        let (s, d) = round(r as i64 * 30_000, &["a@1", "b@1"], h, zero);
        let v = watch.observe(&s, &d);
        changes.extend(v.changes.iter().map(|c| (c.at_ms, c.queue_id, c.from.clone(), c.to.clone())));
        last = Some(v);
    }
    let (a, b) = (vec!["a@1".to_owned()], vec!["b@1".to_owned()]);
    assert_eq!(changes, [(90_000, 0, a.clone(), b.clone()), (120_000, 0, b.clone(), a.clone()), (150_000, 0, a, b)]);
    let v = last.unwrap();
    assert_eq!(v.changes_total.get("T"), Some(&3));
    assert!(verdict_of(&v, 0).flapping);
    assert!(!verdict_of(&v, 1).flapping);
    assert_eq!(verdict_of(&v, 0).cause, Some(Cause::StaleView), "b@1 holds 0 against AVG over the same members");
}

#[test]
fn a_queue_whose_holder_went_silent_is_member_down_and_an_unlocked_orderly_one_waits_for_its_lock() {
    let mut watch = GroupWatch::new(WatchRules::default());
    let (s, d) = round(0, &["a@1", "b@1"], &[("a@1", &[0, 1]), ("b@1", &[2, 3])], [(0, 5); 4]);
    watch.observe(&s, &d);
    // b@1 stays connected but does not answer: its queues are held by nobody anyone can see.
    let (s, d) = silent(round(30_000, &["a@1", "b@1"], &[("a@1", &[0, 1])], [(0, 5); 4]).0, "b@1");
    let v = watch.observe(&s, &d);
    assert_eq!(verdict_of(&v, 2).cause, Some(Cause::MemberDown));
    assert_eq!(verdict_of(&v, 0).cause, None);
    // An orderly a@1 holding 0 without its lock (not yet 60 s): lock_wait, stuck lag.
    let (mut s, _) = round(60_000, &["a@1", "b@1"], &[("a@1", &[0, 1]), ("b@1", &[2, 3])], [(0, 5); 4]);
    let running = s.clients[0].running.as_mut().unwrap();
    running.properties.insert("PROP_CONSUMEORDERLY".into(), "true".into());
    running.held[1].locked = true;
    let d = diagnose(&s, &avg);
    let v = watch.observe(&s, &d);
    assert_eq!(verdict_of(&v, 0).cause, Some(Cause::LockWait));
    // Queue 1, locked and held as AVG says, committed 0 for three rounds with 5 waiting: STALL,
    // and not ownership's fault, so `unknown`, its lag drainable rather than stuck.
    assert_eq!((verdict_of(&v, 1).status, verdict_of(&v, 1).cause), (QueueStatus::Stall, Some(Cause::Unknown)));
    assert_eq!(v.stuck_lag, 5);
}

#[test]
fn a_share_whose_new_member_went_silent_before_a_round_saw_it_held_is_member_down() {
    // a@1 alone holds 0-3; b@1 joins and a@1 hands it 2 and 3 (AVG over [a@1, b@1]), but b@1
    // freezes before any round reads what it took: 2 and 3 were last seen with a@1, which answers.
    let mut watch = GroupWatch::new(WatchRules::default());
    let (s, d) = round(0, &["a@1"], &[("a@1", &[0, 1, 2, 3])], [(0, 5); 4]);
    watch.observe(&s, &d);
    let (s, d) = silent(round(30_000, &["a@1", "b@1"], &[("a@1", &[0, 1])], [(0, 5); 4]).0, "b@1");
    let v = watch.observe(&s, &d);
    assert_eq!(verdict_of(&v, 2).cause, Some(Cause::MemberDown), "b@1's share, b@1 silent");
    assert_eq!(verdict_of(&v, 3).cause, Some(Cause::MemberDown));
    // The same share with b@1 answering and holding nothing: a@1 handed it over and nobody took it.
    let (s, d) = round(60_000, &["a@1", "b@1"], &[("a@1", &[0, 1]), ("b@1", &[])], [(0, 5); 4]);
    let v = watch.observe(&s, &d);
    assert_eq!(verdict_of(&v, 2).cause, Some(Cause::Orphaned), "b@1 answers: nobody holds its share");
}

#[test]
fn a_share_of_a_member_silent_since_before_the_first_round_is_member_down() {
    // As above, but the first round already finds b@1 frozen: it never stated its strategy, so no
    // stated strategy gives 2 and 3 to anyone; a@1's (AVG, the majority's) gives them to b@1.
    let only_a = |id: &str| (id == "a@1").then(|| Named::from_strategy(Arc::new(Averagely)));
    let (mut s, _) = round(0, &["a@1", "b@1"], &[("a@1", &[0, 1])], [(0, 5); 4]);
    s.clients.push(ClientState { client_id: "b@1".into(), running: None, error: Some("timeout".into()) });
    let d = diagnose(&s, &only_a);
    assert!(d.queues.iter().all(|r| r.queue != q(2) || r.expected.is_empty()), "b@1's strategy is unknown");
    let v = GroupWatch::new(WatchRules::default()).observe(&s, &d);
    assert_eq!(verdict_of(&v, 2).cause, Some(Cause::MemberDown), "b@1's share under the majority's strategy, b@1 silent");
    assert_eq!(verdict_of(&v, 3).cause, Some(Cause::MemberDown));
}

#[test]
fn what_a_duplicated_id_holds_is_double_held_and_the_share_it_leaves_is_orphaned() {
    // Two processes are a@1. AVG over the sorted list [a@1, a@1, b@1] gives a@1 (index 0) queues
    // 0 and 1, the second a@1 slot queue 2 and b@1 queue 3; both a@1 processes take 0 and 1 (the
    // running info, relayed to one of them, shows them once) and nobody takes 2.
    let mut watch = GroupWatch::new(WatchRules::default());
    let (mut s, _) = round(0, &["a@1", "a@1", "b@1"], &[("a@1", &[0, 1]), ("b@1", &[3])], [(0, 5); 4]);
    s.clients.truncate(2);
    s.connections[1].client_addr = "a@1:2".into();
    let d = diagnose(&s, &avg);
    let v = watch.observe(&s, &d);
    let causes: Vec<_> = (0..4).map(|i| verdict_of(&v, i).cause).collect();
    assert_eq!(causes, [Some(Cause::DoubleHeld), Some(Cause::DoubleHeld), Some(Cause::Orphaned), None]);
}
