//! The safe-mode promises that an independent model of a cluster broke (issue findings 1-12), one
//! test or more each, with Java mode's behaviour alongside where it differs.

use super::*;
use crate::strategy::BalancedSticky;

fn with_offsets(mut host: Script, qs: &[MessageQueue], offset: i64) -> Script {
    for q in qs {
        host.offsets.insert(q.clone(), Ok(OffsetRead::Found(offset)));
    }
    host
}

/// c1 holds queues 0..n of T orderly, with committed offsets (so no start-offset commit).
pub(super) fn orderly(semantics: Semantics, n: i32) -> (Rebalancer, Script, Vec<MessageQueue>) {
    let qs = queues("T", n);
    let mut host = with_offsets(Script::default(), &qs, 5);
    let mut r = rebalancer(semantics, true);
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    host.log.clear();
    (r, host, qs)
}

// Finding 1: shutdown unlocked a queue whose listener call still ran, and unlocked after a
// failed commit.
#[test]
fn shutdown_never_unlocks_a_queue_whose_listener_runs_or_whose_commit_failed() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 3);
    host.consuming.insert(qs[0].clone());
    let report = r.shutdown(&mut host);
    assert_eq!(report.deferred.iter().map(|d| (&d.queue, &d.reason)).collect::<Vec<_>>(), [(&qs[0], &DeferReason::ConsumeInProgress)]);
    assert_eq!(host.calls("unlock"), ["unlock b b:1", "unlock b b:2"], "only queues whose consume lock was free");
    assert_eq!(host.calls("stop"), ["stop b:0 g1", "stop b:1 g2", "stop b:2 g3"]);
    assert!(!report.balanced && r.state(&qs[0]).is_some_and(|s| s.dropped));
    // While the call runs, lock_all keeps what shutdown left locked; the rest is refused.
    assert_eq!(r.lock_all(20_000, &mut host).unwrap().renewed, [qs[0].clone()]);
    assert_eq!(r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 20_000, &mut host).unwrap_err(), crate::Error::ShutDown);
    // The call ended, but the commit fails: still not unlocked.
    host.consuming.clear();
    host.persist_error = true;
    host.log.clear();
    let report = r.shutdown_at(21_000, &mut host);
    assert!(matches!(report.deferred[0].reason, DeferReason::PersistFailed(_)) && host.calls("unlock").is_empty());
    // Plain `shutdown` took the latest time any call gave (0, the acquiring round's).
    assert_eq!(report.deferred[0].waiting_ms, 21_000, "deferred since the first shutdown");
    host.persist_error = false;
    let report = r.shutdown_at(22_000, &mut host);
    assert_eq!(report.released.len(), 1);
    assert_eq!(host.calls("unlock"), ["unlock b b:0"]);
    assert!(report.balanced && r.held().next().is_none());

    // Java unlocks every queue at once, running call or not.
    let (mut r, mut host, qs) = orderly(Semantics::Java, 3);
    host.consuming.insert(qs[0].clone());
    let report = r.shutdown(&mut host);
    assert!(report.deferred.is_empty() && report.released.len() == 3);
    assert_eq!(host.calls("unlock"), ["unlock b b:0,b:1,b:2"]);
    assert_eq!(r.lock_all(1, &mut host).unwrap_err(), crate::Error::ShutDown);
}

// Finding 7: a shut-down rebalancer refused nothing.
#[test]
fn a_shut_down_rebalancer_refuses_every_call_but_shutdown() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = holding(semantics, false, 2);
        r.shutdown(&mut host);
        let views = BTreeMap::from([("T".to_owned(), TopicView { queues: Some(qs.clone()), client_ids: Some(ids(&["c1"])) })]);
        assert_eq!(r.rebalance_all(&views, 1, &mut host).unwrap_err(), crate::Error::ShutDown);
        assert_eq!(r.drop_queue(&qs[0], 1, &mut host).unwrap_err(), crate::Error::ShutDown);
        assert_eq!(r.subscribe("U").unwrap_err(), crate::Error::ShutDown);
        assert_eq!(r.lock_queue(&qs[0], 1, &mut host).unwrap_err(), crate::Error::ShutDown);
        assert!(r.start_offset(&qs[0], &mut host).is_err());
        assert!(r.is_shut_down() && r.held().next().is_none());
        assert!(r.shutdown(&mut host).released.is_empty(), "a second shutdown is harmless");
        assert!(host.calls("lock").is_empty(), "nothing was taken again");
    }
}

// Finding 2: a release committed after lock_all had reported the lock lost.
#[test]
fn a_lost_lock_is_released_without_commit_or_unlock() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 1);
        host.refuse_lock.insert(qs[0].clone());
        let lost = r.lock_all(20_000, &mut host).unwrap();
        assert_eq!(lost.lost, [qs[0].clone()]);
        host.log.clear();
        // The queue moves to c0 (who holds the broker lock now).
        let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 21_000, &mut host).unwrap();
        match semantics {
            Semantics::Safe => {
                assert_eq!(report.released[0].reason, ReleaseReason::LockLost);
                assert!(report.released[0].lock_lost);
                assert!(host.calls("persist").is_empty() && host.calls("unlock").is_empty(), "{:?}", host.log);
            }
            Semantics::Java => assert_eq!(host.calls("persist").len(), 2, "Java commits over the new owner"),
        }
    }
}

#[test]
fn a_deferred_release_whose_lock_lapsed_commits_nothing() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    host.consuming.insert(qs[0].clone());
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
    // The broker cannot be reached for longer than its lock expiry; then the call ends.
    host.lock_error = true;
    r.lock_all(20_000, &mut host).unwrap();
    r.lock_all(40_000, &mut host).unwrap();
    host.consuming.clear();
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 61_000, &mut host).unwrap();
    assert!(report.released[0].lock_lost && host.calls("persist").is_empty() && host.calls("unlock").is_empty());
}

// Finding 3: a lost lock taken back resumed the old generation from its stale position.
#[test]
fn a_regained_lock_starts_a_new_generation_from_the_committed_offset() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 1);
        host.refuse_lock.insert(qs[0].clone());
        r.lock_all(20_000, &mut host).unwrap();
        assert!(!r.is_consumable(&qs[0], 1, 20_000));
        // Another client consumed and committed meanwhile; the lock is free again.
        host.refuse_lock.clear();
        host.offsets.insert(qs[0].clone(), Ok(OffsetRead::Found(90)));
        host.log.clear();
        let lock = r.lock_all(40_000, &mut host).unwrap();
        match semantics {
            Semantics::Safe => {
                assert!(lock.renewed.is_empty(), "a lost state is not renewed");
                assert!(!r.is_consumable(&qs[0], 1, 40_000));
                let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 41_000, &mut host).unwrap();
                assert_eq!(report.acquired.iter().map(|a| (a.generation, a.start_offset)).collect::<Vec<_>>(), [(2, 90)]);
            }
            Semantics::Java => {
                assert_eq!(lock.renewed, [qs[0].clone()]);
                assert!(r.is_consumable(&qs[0], 1, 40_000), "Java resumes the old state");
                assert!(host.calls("read").is_empty());
            }
        }
    }
}

// Simulator seed 796552040 (host-faults): a lock regained by `lock_queue` after it lapsed, for
// a queue that is no longer ours, was forgotten when its unlock failed; the broker kept the lock
// for its expiry and the queue's new owner waited 60 s.
#[test]
fn a_regained_lock_whose_unlock_fails_is_kept_until_the_unlock_goes_through() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    // Cut off from the broker for longer than its lock expiry, then the lock is granted again.
    host.lock_error = true;
    r.lock_all(20_000, &mut host).unwrap();
    r.lock_all(40_000, &mut host).unwrap();
    host.lock_error = false;
    assert_eq!(r.lock_queue(&qs[0], 61_000, &mut host).unwrap().lost, [qs[0].clone()]);
    host.unlock_error = true;
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 62_000, &mut host).unwrap();
    assert!(report.released.is_empty());
    assert!(matches!(&report.deferred[0].reason, DeferReason::UnlockFailed(_)));
    assert!(r.state(&qs[0]).is_some_and(|s| s.dropped), "kept, dropped, to unlock again");
    host.unlock_error = false;
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 63_000, &mut host).unwrap();
    assert!(report.released[0].lock_lost && host.calls("persist").is_empty());
    assert_eq!(host.calls("unlock"), ["unlock b b:0"]);
    assert!(r.state(&qs[0]).is_none());
}

#[test]
fn a_renewal_after_the_broker_expiry_counts_as_lost_and_keeps_the_lock_while_the_old_call_runs() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    host.consuming.insert(qs[0].clone());
    let lock = r.lock_all(61_000, &mut host).unwrap();
    assert_eq!(lock.lost, [qs[0].clone()], "granted, but 61 s after the last renewal");
    assert_eq!(host.calls("schedule"), ["schedule +1000ms"]);
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 62_000, &mut host).unwrap();
    assert_eq!(report.deferred[0].reason, DeferReason::ConsumeInProgress, "the old state's call still runs");
    assert_eq!(r.lock_all(80_000, &mut host).unwrap().renewed, [qs[0].clone()], "so the lock stays ours");
    host.consuming.clear();
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 81_000, &mut host).unwrap();
    assert!(report.released[0].lock_lost && host.calls("persist").is_empty());
    assert_eq!(report.acquired[0].generation, 2);
}

#[test]
fn lock_queue_resumes_in_java_mode_only() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 1);
        host.refuse_lock.insert(qs[0].clone());
        r.lock_all(20_000, &mut host).unwrap();
        host.refuse_lock.clear();
        let lock = r.lock_queue(&qs[0], 21_000, &mut host).unwrap();
        assert_eq!(r.is_consumable(&qs[0], 1, 21_000), semantics == Semantics::Java);
        assert_eq!(lock.renewed.len(), usize::from(semantics == Semantics::Java));
    }
}

// Finding 5: a queue with no committed offset started twice skipped the messages in between.
#[test]
fn a_start_offset_chosen_by_consume_from_is_committed_before_the_first_pull() {
    for semantics in BOTH {
        let mut host = Script { commit: Some(Ok(())), ..Script::default() };
        let qs = queues("T", 1);
        let mut r = rebalancer(semantics, false);
        let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
        assert_eq!(report.acquired[0].start_offset, 100);
        match semantics {
            Semantics::Safe => assert_eq!(host.calls("commit"), ["commit b:0 @100"]),
            Semantics::Java => assert!(host.calls("commit").is_empty()),
        }
        // A second owner: the committed 100 (safe) or consume_from again (Java: max is 160 now).
        host.max_offset = Some(Ok(160));
        let mut next = rebalancer(semantics, false);
        let report = next.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 1, &mut host).unwrap();
        let expected = if semantics == Semantics::Safe { 100 } else { 160 };
        assert_eq!(report.acquired[0].start_offset, expected);
    }
}

#[test]
fn a_failed_start_offset_commit_skips_the_queue_and_gives_the_lock_back() {
    let mut host = Script { commit: Some(Err(HostError::new("broker down"))), ..Script::default() };
    let qs = queues("T", 1);
    let mut r = rebalancer(Semantics::Safe, true);
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    assert!(matches!(report.skipped[0].reason, SkipReason::StartOffsetNotCommitted(_)) && report.acquired.is_empty());
    assert_eq!(host.calls("unlock"), ["unlock b b:0"]);
    assert!(host.calls("dispatch").is_empty());
    // Without the callback the queue starts as in Java, with a warning.
    let mut host = Script::default();
    let report = rebalancer(Semantics::Safe, false).rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    assert_eq!(report.acquired.len(), 1);
    assert_eq!(report.warnings, [Warning::StartOffsetNotCommitted(qs[0].to_string())]);
}

#[test]
fn java_lite_pull_dispatches_nothing_and_lets_the_pull_task_compute_its_offset() {
    for semantics in BOTH {
        let mut config = RebalanceConfig::new("g", "c1");
        config.semantics = semantics;
        config.consume_type = ConsumeType::Pull;
        let mut r = Rebalancer::new(config, Arc::new(Averagely)).unwrap();
        let mut host = Script::default();
        let qs = queues("T", 1);
        r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
        assert_eq!(host.calls("dispatch").len(), usize::from(semantics == Semantics::Safe));
        let start = r.start_offset(&qs[0], &mut host).unwrap();
        assert_eq!((start.offset, start.from_consume_from), (100, true));
    }
}

// Finding 6: one topic's failed id fetch moved the other topics of a joint round.
#[test]
fn a_missing_view_in_a_joint_round_does_not_move_the_other_topics() {
    // Four one-queue topics over three members: leaving T1 out of the joint call changes c1's
    // share of the other three (2 of them with T1 counted, 1 without), found by trying shapes.
    let topics = ["T0", "T1", "T2", "T3"];
    let members = ids(&["c1", "c2", "c3"]);
    let full: BTreeMap<String, TopicView> =
        topics.iter().map(|t| (t.to_string(), TopicView { queues: Some(queues(t, 1)), client_ids: Some(members.clone()) })).collect();
    let share = |views: &[BTreeMap<String, TopicView>]| {
        let mut config = RebalanceConfig::new("g", "c1");
        config.semantics = Semantics::Safe;
        let mut r = Rebalancer::new(config, Arc::new(BalancedSticky::new(crate::strategy::balanced_sticky::StableKey::ClientId))).unwrap();
        for t in topics {
            r.subscribe(t).unwrap();
        }
        let mut host = with_offsets(Script::default(), &[], 0);
        let mut last = Vec::new();
        for (i, v) in views.iter().enumerate() {
            last = r.rebalance_all(v, i as u64 * 1_000, &mut host).unwrap();
        }
        let held: Vec<MessageQueue> = r.held().filter(|(_, s)| !s.dropped).map(|(q, _)| q.clone()).collect();
        (held, last)
    };
    let (peer_view, _) = share(&[full.clone(), full.clone()]);
    let mut broken = full.clone();
    broken.get_mut("T1").unwrap().client_ids = None;
    let (with_failure, reports) = share(&[full.clone(), broken]);
    assert_eq!(reports[1].skipped_round, Some(RoundSkipped::ClientIdsUnavailable));
    assert_eq!(with_failure, peer_view, "every topic, T1 included, stays as peers compute it");
}

/// Five topics of two queues, every id list `members` but those of `missing` (a failed fetch).
const JOINT_TOPICS: [&str; 5] = ["T0", "T1", "T2", "T3", "T4"];

fn joint_views(members: &[&str], missing: &[&str]) -> BTreeMap<String, TopicView> {
    JOINT_TOPICS
        .iter()
        .map(|t| {
            let ids = if missing.contains(t) { None } else { Some(ids(members)) };
            (t.to_string(), TopicView { queues: Some(queues(t, 2)), client_ids: ids })
        })
        .collect()
}

/// What c1 holds (dropped states left out) after BALANCED_STICKY joint rounds over `rounds`.
fn joint_held(rounds: &[BTreeMap<String, TopicView>]) -> Vec<MessageQueue> {
    let mut r = Rebalancer::new(RebalanceConfig::new("g", "c1"), Arc::new(BalancedSticky::new(crate::strategy::balanced_sticky::StableKey::ClientId))).unwrap();
    for t in JOINT_TOPICS {
        r.subscribe(t).unwrap();
    }
    let mut host = with_offsets(Script::default(), &[], 0);
    for (i, v) in rounds.iter().enumerate() {
        r.rebalance_all(v, i as u64 * 1_000, &mut host).unwrap();
    }
    r.held().filter(|(_, s)| !s.dropped).map(|(q, _)| q.clone()).collect()
}

// A topic's id fetch failed right after a member joined: its last known view still carried the
// id list from before the join, so it formed a joint call of its own while the other topics were
// balanced with the new list; peers, who saw every topic with the new list, disagreed.
#[test]
fn a_missing_view_right_after_a_join_does_not_move_the_other_topics() {
    let before = joint_views(&["c1", "c2"], &[]);
    let peers = joint_held(&[before.clone(), joint_views(&["c1", "c2", "c3"], &[])]);
    let alone = joint_held(&[joint_views(&["c1", "c2", "c3"], &[])]);
    assert_eq!(alone, peers, "the fixture: the join's answer does not depend on the round before");
    // A precondition that makes the test able to fail: balancing T1 apart changes c1's share.
    let others = |qs: &[MessageQueue]| qs.iter().filter(|q| *q.topic != *"T1").cloned().collect::<Vec<_>>();
    let split = joint_held(&[joint_views(&["c1", "c2", "c3"], &["T1"])]);
    assert_ne!(others(&split), others(&peers));
    let with_failure = joint_held(&[before, joint_views(&["c1", "c2", "c3"], &["T1"])]);
    assert_eq!(others(&with_failure), others(&peers), "the topics whose views are complete move as peers compute them");
}

// Two topics' id fetches failed right after a join: each is the other's companion, with no list
// of its own, so both fell back to the list from before the join and formed a joint call no peer
// forms. The companions that have a current list, and agree on it, decide.
#[test]
fn two_missing_views_right_after_a_join_take_the_list_their_current_companions_agree_on() {
    let before = joint_views(&["c1", "c2"], &[]);
    let peers = joint_held(&[before.clone(), joint_views(&["c1", "c2", "c3"], &[])]);
    let others = |qs: &[MessageQueue]| qs.iter().filter(|q| !matches!(&*q.topic, "T1" | "T2")).cloned().collect::<Vec<_>>();
    // A precondition that makes the test able to fail: T1 and T2 balanced apart, on the list from
    // before the join, change c1's share of the other topics.
    let mut split = joint_views(&["c1", "c2", "c3"], &[]);
    for t in ["T1", "T2"] {
        split.get_mut(t).unwrap().client_ids = Some(ids(&["c1", "c2"]));
    }
    assert_ne!(others(&joint_held(&[split])), others(&peers), "the fixture: balancing T1 and T2 apart moves the others");
    let with_failure = joint_held(&[before, joint_views(&["c1", "c2", "c3"], &["T1", "T2"])]);
    assert_eq!(others(&with_failure), others(&peers), "the topics whose views are complete move as peers compute them");
    assert_eq!(with_failure, peers, "and T1 and T2 keep the share peers give them");
}

// Finding 9: a hung listener or a commit that keeps failing pinned a queue forever.
#[test]
fn a_release_deferred_past_the_bound_is_given_up_and_reports_its_wait() {
    let mut config = RebalanceConfig::new("g", "c1");
    config.orderly = true;
    config.timing.release_give_up_ms = 100_000;
    let mut r = Rebalancer::new(config, Arc::new(Averagely)).unwrap();
    let qs = queues("T", 1);
    let mut host = with_offsets(Script::default(), &qs, 5);
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    host.consuming.insert(qs[0].clone());
    let mut waits = Vec::new();
    for t in [10_000, 50_000, 109_000] {
        let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), t, &mut host).unwrap();
        waits.push(report.deferred[0].waiting_ms);
        r.lock_all(t, &mut host).unwrap();
    }
    assert_eq!(waits, [0, 40_000, 99_000]);
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 110_000, &mut host).unwrap();
    assert!(report.released[0].gave_up && report.deferred.is_empty());
    assert!(host.calls("unlock").is_empty() && host.calls("persist").is_empty(), "the call still runs: the lock lapses at the broker");
    assert!(r.lock_all(120_000, &mut host).unwrap().renewed.is_empty());
}

// A release given up on a hung call, re-acquired in the same round (the queue is still this
// client's), whose start offset could not then be read: the give-back of fix 1 unlocked the queue
// while the hung call still ran, and another client could lock it and consume beside that call.
#[test]
fn a_queue_given_up_on_a_hung_call_is_not_unlocked_while_that_call_runs() {
    let mut config = RebalanceConfig::new("g", "c1");
    config.orderly = true;
    config.timing.release_give_up_ms = 100_000;
    let mut r = Rebalancer::new(config, Arc::new(Averagely)).unwrap();
    let qs = queues("T", 1);
    let mut host = with_offsets(Script::default(), &qs, 5);
    let mine = ids(&["c1"]);
    r.rebalance_topic("T", Some(&qs), Some(&mine), 0, &mut host).unwrap();
    host.consuming.insert(qs[0].clone());
    // The broker refuses the renewal: the lock is lost and the state is released, deferred while
    // its listener call runs, and given up once the bound has passed.
    host.refuse_lock.insert(qs[0].clone());
    r.lock_all(10_000, &mut host).unwrap();
    r.rebalance_topic("T", Some(&qs), Some(&mine), 11_000, &mut host).unwrap();
    host.refuse_lock.clear();
    host.offsets.insert(qs[0].clone(), Err(HostError::new("store down")));
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&mine), 112_000, &mut host).unwrap();
    assert!(report.released[0].gave_up, "{report:?}");
    assert!(matches!(report.skipped[0].reason, SkipReason::OffsetUnavailable(_)), "re-acquired in the same round: {report:?}");
    assert!(host.calls("unlock").is_empty(), "the given-up call still runs: {:?}", host.log);
    // Once that call has ended, a skip gives the lock back as fix 1 says.
    host.consuming.clear();
    host.log.clear();
    r.rebalance_topic("T", Some(&qs), Some(&mine), 113_000, &mut host).unwrap();
    assert_eq!(host.calls("unlock").len(), 1, "{:?}", host.log);
}

#[test]
fn a_commit_that_keeps_failing_is_given_up_with_an_unlock() {
    let mut config = RebalanceConfig::new("g", "c1");
    config.orderly = true;
    config.timing.release_give_up_ms = 30_000;
    let mut r = Rebalancer::new(config, Arc::new(Averagely)).unwrap();
    let qs = queues("T", 1);
    let mut host = with_offsets(Script::default(), &qs, 5);
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    host.persist_error = true;
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
    r.lock_all(20_000, &mut host).unwrap();
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 31_000, &mut host).unwrap();
    assert!(report.released[0].gave_up && report.released[0].persist_failed.is_some());
    assert_eq!(host.calls("unlock"), ["unlock b b:0"]);
}

// Finding 11: reports that said something other than what happened.
#[test]
fn a_stood_down_client_reports_what_it_holds() {
    let mut r = rebalancer(Semantics::Safe, true);
    let qs = queues("T", 2);
    let mut host = with_offsets(Script::default(), &qs, 5);
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    host.log.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1", "c1"])), 1_000, &mut host).unwrap();
    assert!(report.warnings.contains(&Warning::StoodDown) && !report.balanced);
    assert_eq!(host.calls("changed"), ["changed T 2 0"], "the listener hears that it holds nothing");
    assert!(report.released.iter().all(|x| x.reason == ReleaseReason::DuplicateClientId));
}

#[test]
fn a_restarted_state_is_reported_as_restarted() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    host.consuming.insert(qs[0].clone());
    r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
    host.consuming.clear();
    let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 2_000, &mut host).unwrap();
    assert_eq!(report.released[0].reason, ReleaseReason::Restarted);
    assert_eq!(report.acquired[0].generation, 2);
}

// Host-author items: early rounds, stop_pull once per state, strict timing keys.
#[test]
fn a_deferred_release_asks_for_an_early_round_in_safe_mode() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 1);
        host.consuming.insert(qs[0].clone());
        r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
        assert_eq!(host.calls("schedule"), if semantics == Semantics::Safe { vec!["schedule +1000ms"] } else { Vec::<&str>::new() });
        r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 2_000, &mut host).unwrap();
        assert_eq!(host.calls("stop").len(), 1, "stop_pull once per state, however often it is retried");
    }
}

#[test]
fn unknown_timing_keys_and_contradictions_are_named() {
    let err = RebalanceConfig::from_json(r#"{"group":"g","client_id":"c","timing":{"lock_valid_msec":1}}"#).unwrap_err();
    assert!(err.to_string().contains("lock_valid_msec") && err.to_string().contains("timing"), "{err}");
    let err = RebalanceConfig::from_json(r#"{"group":"g","client_id":"c","timing":{"pull_expired_ms":"x"}}"#).unwrap_err();
    assert!(err.to_string().contains("timing.pull_expired_ms"), "{err}");
    let err = RebalanceConfig::from_json(r#"{"group":"g","client_id":"c","ordrly":true}"#).unwrap_err();
    assert!(err.to_string().contains("ordrly"), "{err}");
    let mut config = RebalanceConfig::new("g", "c1");
    config.timing.lock_valid_ms = 70_000;
    let err = Rebalancer::new(config, Arc::new(Averagely)).unwrap_err();
    assert!(matches!(err, crate::Error::InvalidConfiguration(ref why) if why.contains("broker_lock_expiry_ms")), "{err}");
}

// A release deferred outside a topic's round (the clean-up of an unsubscribed topic, a host's
// `drop_queue`) asked for no early round, so the queue's next owner waited a whole period; and
// the clean-up's report said balanced while a release was still pending.
#[test]
fn a_release_deferred_by_the_clean_up_or_drop_queue_asks_for_an_early_round() {
    // c1 holds T (never subscribed, so rebalance_all cleans it up) while q0's listener runs.
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 2);
    host.consuming.insert(qs[0].clone());
    let reports = r.rebalance_all(&BTreeMap::new(), 1_000, &mut host).unwrap();
    let cleanup = reports.last().unwrap();
    assert_eq!(cleanup.deferred.iter().map(|d| &d.queue).collect::<Vec<_>>(), [&qs[0]]);
    assert!(!cleanup.balanced, "a pending release is not balanced");
    assert_eq!(host.calls("schedule"), ["schedule +1000ms"]);

    let (mut r, mut host, qs) = orderly(Semantics::Safe, 2);
    host.consuming.insert(qs[1].clone());
    let dropped = r.drop_queue(&qs[1], 1_000, &mut host).unwrap();
    assert_eq!(dropped.deferred.len(), 1);
    assert_eq!(host.calls("schedule"), ["schedule +1000ms"]);
    // Java asks for nothing (its periodic round retries), as before.
    let (mut r, mut host, qs) = orderly(Semantics::Java, 2);
    host.consuming.insert(qs[1].clone());
    r.drop_queue(&qs[1], 1_000, &mut host).unwrap();
    assert!(host.calls("schedule").is_empty());
}

/// The answer a consume service may keep (the Java consumer asks once per lock renewal, not once
/// per call): `consumable_until` is the renewal time plus `lock_valid_ms` (30 s by default), agrees
/// with `is_consumable` at and after that end, moves on with each renewal, and is `None` for a
/// dropped state; under safe semantics a refused renewal drops the state and calls `stop_pull`
/// first, so a service that stops there and asks again at the end never consumes what
/// `is_consumable` would refuse.
#[test]
fn consumable_until_is_where_is_consumable_turns_false_and_a_drop_stops_the_pull_first() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 1);
        let view = r.consume_view();
        assert_eq!(view.consumable_until(&qs[0], 1), Some(30_000));
        assert!(view.is_consumable(&qs[0], 1, 30_000) && !view.is_consumable(&qs[0], 1, 30_001));
        assert_eq!(view.consumable_until(&qs[0], 2), None, "another generation");
        r.lock_all(20_000, &mut host).unwrap();
        assert_eq!(view.consumable_until(&qs[0], 1), Some(50_000), "renewed at 20 s");
        host.refuse_lock.insert(qs[0].clone());
        r.lock_all(40_000, &mut host).unwrap();
        assert!(!view.is_consumable(&qs[0], 1, 40_000));
        assert_eq!(view.consumable_until(&qs[0], 1), None, "{semantics:?}: refused");
        match semantics {
            Semantics::Safe => assert_eq!(host.calls("stop"), ["stop b:0 g1"], "the drop told the host"),
            Semantics::Java => assert!(host.calls("stop").is_empty(), "Java keeps the state: only asking shows the refusal"),
        }
    }
}
