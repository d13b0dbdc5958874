//! A broker restart (its lock table lives in memory) and the `locks_lost` signal: what stops,
//! what is asked for again at once, and what waits for a listener call that ran across it; and a
//! lock answer lost on its way back.

use super::safety::orderly;
use super::*;

#[test]
fn a_broker_restart_signal_stops_consumption_until_relocked() {
    for semantics in BOTH {
        let (mut r, mut host, qs) = orderly(semantics, 2);
        let lost = r.locks_lost("b", 10_000, &mut host).unwrap();
        match semantics {
            Semantics::Safe => {
                assert_eq!(lost.lost, qs);
                assert!(!r.is_consumable(&qs[0], 1, 10_000) && !r.is_consumable(&qs[1], 2, 10_000));
                assert_eq!(host.calls("stop").len(), 2);
                let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 11_000, &mut host).unwrap();
                assert_eq!(report.acquired.iter().map(|a| a.generation).collect::<Vec<_>>(), [3, 4]);
                assert!(host.calls("persist").is_empty());
            }
            Semantics::Java => assert!(lost.lost.is_empty() && r.is_consumable(&qs[0], 1, 10_000)),
        }
    }
}

// A broker restart signalled while a slow orderly call ran: the next round forgot the lost state
// at once (without its consume lock), took the queue afresh (the empty table granted it), could
// not read the start offset and gave the fresh lock back, all while the old call still ran; a
// second client then took the queue beside it.
#[test]
fn a_lost_lock_waits_for_its_running_call_and_is_taken_again_meanwhile() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    host.consuming.insert(qs[0].clone());
    r.locks_lost("b", 10_000, &mut host).unwrap();
    assert!(!r.is_consumable(&qs[0], 1, 10_000), "nothing more is consumed from the lost state");
    host.offsets.insert(qs[0].clone(), Err(HostError::new("store down")));
    host.log.clear();
    let round = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 11_000, &mut host).unwrap();
    assert_eq!(round.deferred.iter().map(|d| &d.reason).collect::<Vec<_>>(), [&DeferReason::ConsumeInProgress]);
    assert!(round.acquired.is_empty() && round.skipped.is_empty(), "the queue is not taken afresh beside the running call");
    assert!(host.calls("unlock").is_empty() && host.calls("lock").is_empty(), "{:?}", host.log);
    // The renewal asks for the lock again (the restarted broker grants it): other clients stay out.
    let renewal = r.lock_all(20_000, &mut host).unwrap();
    assert_eq!(renewal.renewed, [qs[0].clone()]);
    assert!(!r.is_consumable(&qs[0], 1, 20_000), "taken again to fence, not resumed");
    // The call ends: the old state goes, the lock is given back under the consume lock, and the
    // queue starts afresh from the committed offset.
    host.consuming.clear();
    host.offsets.insert(qs[0].clone(), Ok(OffsetRead::Found(5)));
    host.log.clear();
    let after = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 21_000, &mut host).unwrap();
    assert!(after.released[0].lock_lost && host.calls("persist").is_empty());
    assert_eq!(after.acquired.iter().map(|a| (a.generation, a.start_offset)).collect::<Vec<_>>(), [(2, 5)]);
    let order: Vec<&String> = host.log.iter().filter(|l| l.starts_with("try_consume_lock") || l.starts_with("unlock") || l.starts_with("lock")).collect();
    assert_eq!(order, ["try_consume_lock b:0 g1", "unlock b b:0", "lock b b:0"]);
}

// A broker restart during an orderly handoff: the old owner's call ran across the restart, and the
// new owner, waiting for the queue, won the empty lock table in its first round (an independent
// model saw it in about half of such restarts). `locks_lost` now asks the new broker for the locks
// of the states it drops at once, so the old owner holds the queue's lock again before anyone's
// next round, and gives it back once its call has ended.
#[test]
fn a_restart_signal_asks_at_once_for_the_locks_it_drops_and_fences_the_running_call() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 2);
    host.consuming.insert(qs[0].clone());
    let handoff = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
    assert_eq!(handoff.deferred.len(), 1, "q0 moves to c0 while its call runs");
    host.log.clear();
    let lost = r.locks_lost("b", 2_000, &mut host).unwrap();
    assert_eq!(lost.lost.len(), 2, "every state of the restarted broker is lost");
    assert!(lost.renewed.is_empty(), "re-taken to fence, not to consume");
    assert_eq!(host.calls("lock"), ["lock b b:0,b:1"], "asked at once, not at the next lock_all");
    for q in &qs {
        let state = r.state(q).unwrap();
        assert!(state.dropped && state.locked == Some(true), "{q}: dropped, its lock held again");
        assert!(!r.is_consumable(q, state.generation, 2_000));
    }
    // The round: the idle q1 (still c1's) is given back and taken afresh; q0 waits for its call.
    host.log.clear();
    let round = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 3_000, &mut host).unwrap();
    assert_eq!(round.deferred.iter().map(|d| d.queue.clone()).collect::<Vec<_>>(), [qs[0].clone()]);
    assert_eq!(round.acquired.iter().map(|a| a.queue.clone()).collect::<Vec<_>>(), [qs[1].clone()]);
    assert!(host.calls("persist").is_empty(), "a lost state commits nothing");
    assert_eq!(host.calls("unlock"), ["unlock b b:1"], "q0's lock stays while its call runs");
    // Its call ends: q0 goes to c0, its lock given back.
    host.consuming.clear();
    host.log.clear();
    let done = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 4_000, &mut host).unwrap();
    assert_eq!(done.released.iter().map(|x| x.queue.clone()).collect::<Vec<_>>(), [qs[0].clone()]);
    assert_eq!(host.calls("unlock"), ["unlock b b:0"]);
}

#[test]
fn a_restart_signal_whose_relock_is_refused_or_fails_leaves_the_states_lost() {
    for failing in [false, true] {
        let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
        host.consuming.insert(qs[0].clone());
        if failing {
            host.lock_error = true;
        } else {
            host.refuse_lock.insert(qs[0].clone());
        }
        let lost = r.locks_lost("b", 2_000, &mut host).unwrap();
        assert_eq!(lost.lost, qs);
        assert_eq!(lost.warnings.len(), usize::from(failing), "a failed lock call is reported: {:?}", lost.warnings);
        let state = r.state(&qs[0]).unwrap();
        assert!(state.dropped && state.locked == Some(false), "failing={failing}: not ours, nothing more consumed");
    }
}

// `locks_lost` after a network blip (the broker kept its lock table) during a protected handoff:
// the engine stopped renewing the deferred state's lock, and 60 s later the new owner consumed
// beside the old call.
#[test]
fn a_locks_lost_after_a_blip_keeps_a_protected_handoff_protected() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 1);
    host.consuming.insert(qs[0].clone());
    let handoff = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 1_000, &mut host).unwrap();
    assert_eq!(handoff.deferred.len(), 1, "q0 moves to c0 while its call runs");
    r.locks_lost("b", 2_000, &mut host).unwrap();
    for now in [20_000, 40_000, 60_000, 80_000] {
        host.log.clear();
        let renewal = r.lock_all(now, &mut host).unwrap();
        assert_eq!(host.calls("lock"), ["lock b b:0"], "renewed at {now}");
        assert_eq!(renewal.renewed, [qs[0].clone()], "the broker still grants it at {now}");
    }
    host.consuming.clear();
    let done = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c0", "c1"])), 81_000, &mut host).unwrap();
    assert_eq!(done.released.len(), 1);
    assert_eq!(host.calls("unlock"), ["unlock b b:0"], "given back once the call ended");
}

// A consumer shutting down while a listener call runs, and its broker restarts: the deferred
// release waits for the call, and the restart signal must still fence it (a shut-down rebalancer
// refused `locks_lost`, so the next owner won the empty table beside the call).
#[test]
fn a_shut_down_rebalancer_still_takes_the_restart_signal_and_fences_its_deferred_releases() {
    let (mut r, mut host, qs) = orderly(Semantics::Safe, 2);
    host.consuming.insert(qs[0].clone());
    let down = r.shutdown_at(1_000, &mut host);
    assert_eq!(down.deferred.len(), 1, "q0's call runs; q1 is released");
    host.log.clear();
    let lost = r.locks_lost("b", 2_000, &mut host).unwrap();
    assert_eq!(lost.lost, [qs[0].clone()]);
    assert_eq!(host.calls("lock"), ["lock b b:0"], "asked at once for the deferred release's lock");
    assert_eq!(r.state(&qs[0]).unwrap().locked, Some(true));
    host.consuming.clear();
    host.log.clear();
    let done = r.shutdown_at(3_000, &mut host);
    assert_eq!(done.released.len(), 1, "released once its call ended");
    assert!(host.calls("persist").is_empty(), "a lost lock commits nothing");
    assert_eq!(host.calls("unlock"), ["unlock b b:0"], "the fencing lock is given back");
    assert_eq!(r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 4_000, &mut host).unwrap_err(), crate::Error::ShutDown);
}

// A one-way partition: the lock request reached the broker, which granted it, and the answer was
// lost. The client skips the queue; the broker holds its lock for this client until its 60 s
// expiry, and a peer the queue moves to meanwhile waits that long. Safe mode gives the lock back
// at once (the broker unlocks only this client's locks); Java keeps it (fix 19).
#[test]
fn a_lock_whose_answer_is_lost_is_given_back_in_safe_mode() {
    for semantics in BOTH {
        let qs = queues("T", 2);
        let mut r = rebalancer(semantics, true);
        let mut host = Script { lock_error: true, ..Script::default() };
        let report = r.rebalance_topic("T", Some(&qs), Some(&ids(&["c1"])), 0, &mut host).unwrap();
        assert!(report.acquired.is_empty() && !report.balanced);
        let unlocks = host.calls("unlock");
        match semantics {
            Semantics::Safe => assert_eq!(unlocks, ["unlock b b:0", "unlock b b:1"], "each failed lock given back"),
            Semantics::Java => assert!(unlocks.is_empty(), "{unlocks:?}"),
        }
        assert_eq!(host.calls("schedule"), ["schedule +500ms"], "and asked for again soon");
    }
}
