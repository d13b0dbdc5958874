//! The invariants, checked as the simulation runs, and the figures it reports.

use std::collections::BTreeMap;

use rocketmq_rebalance::MessageQueue;
use serde::Serialize;

use crate::time::TICK_MS;

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub semantics: String,
    pub messages_produced: u64,
    /// Listener deliveries, duplicates included.
    pub messages_consumed: u64,
    /// Deliveries beyond the first of a message.
    pub duplicates: u64,
    /// The longest time a queue had no consumer that could consume it.
    pub max_handoff_gap_ms: u64,
    /// Queue-milliseconds with no consumer that could consume (summed over queues and ticks):
    /// how long handoffs take altogether.
    pub unowned_queue_ms: u64,
    pub violations: Violations,
    pub observed: Observed,
    /// The first few violations, described (to replay: the same scenario and seed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_violations: Vec<String>,
}

/// Invariant violations. Safe mode must have none on every shipped scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Violations {
    /// Two consumers ran a listener call on the same orderly queue at the same time.
    pub orderly_exclusivity: u64,
    /// Messages never consumed once faults stopped and the group drained.
    pub lost_messages: u64,
    /// A committed offset moved backwards while a single consumer owned the queue.
    pub offset_regressions: u64,
    /// Queues without exactly one owner 2 rounds (+5 s) after the group's views agreed.
    pub convergence: u64,
    /// An orderly queue unlocked at the broker by a consumer while that consumer's own listener
    /// call on it still ran (the host contract: unlock only under the consume lock), a release
    /// given up past `release_give_up_ms` excepted. Seen directly, so a restart nearby cannot
    /// hide it behind the clashes a forgotten lock explains.
    pub unlock_under_call: u64,
}

impl Violations {
    pub fn total(&self) -> u64 {
        self.orderly_exclusivity + self.lost_messages + self.offset_regressions + self.convergence + self.unlock_under_call
    }

    /// Adds another run's counts (aggregates over seeds).
    pub fn add(&mut self, v: &Violations) {
        self.orderly_exclusivity += v.orderly_exclusivity;
        self.lost_messages += v.lost_messages;
        self.offset_regressions += v.offset_regressions;
        self.convergence += v.convergence;
        self.unlock_under_call += v.unlock_under_call;
    }
}

/// Counted, not forbidden.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Observed {
    /// Orderly clashes and offset regressions on a queue whose lock a restarting broker forgot
    /// (within 120 s, involving the forgotten holder): RocketMQ's lock table lives in broker
    /// memory, so after a restart nothing fences the old holder's running listener call or its
    /// last commits from a new owner. No client-side rule closes this; see docs/simulator.md.
    /// Offsets moved back by a consumer whose ownership overlapped, or directly followed, the
    /// previous writer's: two writers, which a concurrent handoff (the new owner reads the offset
    /// before the old one's last commit), stale views and duplicate ids cause in any client.
    pub regressions_two_writers: u64,
    pub after_broker_lock_loss: u64,
    /// Safe mode: releases given up after `release_give_up_ms` (a hung listener), and the
    /// orderly clashes with the hung call that this trade of exclusivity for liveness allows.
    pub releases_given_up: u64,
    pub clashes_after_give_up: u64,
    /// Orderly clashes with a listener call that was already running when its consumer was cut
    /// off from the brokers long enough for its lock to expire: nothing can fence such a call.
    pub clashes_after_partition: u64,
    /// Orderly clashes, and offset regressions, involving a process whose client id another
    /// process shared at the time (for a regression: within the last 120 s): the broker's lock is
    /// keyed by client id, so it cannot tell the two apart (one can renew or unlock the other's
    /// lock). The engine reports the duplicate and stands down while both are listed; what a
    /// twin cut off from the brokers, or still finishing a call, does is indistinguishable.
    pub clashes_duplicate_id: u64,
    pub forced_unlocks: u64,
    pub leaked_locks: u64,
    pub deferred_releases: u64,
    pub rebalance_rounds: u64,
    pub faults_injected: u64,
}

impl Observed {
    /// Adds another run's counts (aggregates over seeds).
    pub fn add(&mut self, o: &Observed) {
        self.regressions_two_writers += o.regressions_two_writers;
        self.after_broker_lock_loss += o.after_broker_lock_loss;
        self.releases_given_up += o.releases_given_up;
        self.clashes_after_give_up += o.clashes_after_give_up;
        self.clashes_after_partition += o.clashes_after_partition;
        self.clashes_duplicate_id += o.clashes_duplicate_id;
        self.forced_unlocks += o.forced_unlocks;
        self.leaked_locks += o.leaked_locks;
        self.deferred_releases += o.deferred_releases;
        self.rebalance_rounds += o.rebalance_rounds;
        self.faults_injected += o.faults_injected;
    }
}

/// Running state of the checks.
#[derive(Debug, Default)]
pub struct Checks {
    /// Deliveries of each offset of each queue.
    pub consumed: BTreeMap<MessageQueue, Vec<u32>>,
    /// Listener calls on orderly queues: (instance, start, end).
    pub calls: BTreeMap<MessageQueue, Vec<(usize, u64, u64)>>,
    /// Consumers that can consume each queue right now.
    pub owners: BTreeMap<MessageQueue, Vec<usize>>,
    /// When each queue last had an owner.
    pub last_owned: BTreeMap<MessageQueue, u64>,
    /// Locks a broker restart wiped: queue -> (holder's client id, time, when the holder's engine
    /// was told through `locks_lost`). What the holder does after being told is its own fault.
    pub lock_loss: BTreeMap<MessageQueue, Vec<(String, u64, Option<u64>)>>,
    /// Orderly states given up while a listener call ran: queue -> every (instance, time).
    pub given_up: BTreeMap<MessageQueue, Vec<(usize, u64)>>,
    /// Unlocks under a running call this tick, not yet judged: (queue, instance, when, the call's start).
    pub pending_unlocks: Vec<(MessageQueue, usize, u64, u64)>,
    /// Pairs of processes sharing a client id: (a, b, from, until).
    pub duplicated: Vec<(usize, usize, u64, u64)>,
    /// Locks each consumer's engine reported lost (`LockReport::lost`), until it takes the queue
    /// again: (queue, instance) -> time. A commit over a newer offset after that is the engine's
    /// fault, whoever else wrote.
    pub known_lost: BTreeMap<(MessageQueue, usize), u64>,
    /// Locks held by a consumer when it was cut off from the brokers: queue -> (instance, time).
    pub partition_loss: BTreeMap<MessageQueue, Vec<(usize, u64)>>,
    /// The offset each queue was first started from: messages before it are not expected.
    pub first_start: BTreeMap<MessageQueue, i64>,
    /// Client id of each instance.
    pub client_of: Vec<String>,
    /// Exclusivity violations since the table last looked: (time, queue, starter, runner, its call's
    /// start and end). Only for display; the counts are in the summary.
    pub breaches: Vec<(u64, MessageQueue, usize, usize, u64, u64)>,
    /// The instance that last committed each queue's offset.
    pub last_writer: BTreeMap<MessageQueue, usize>,
    /// (queue, instance) -> (start of its current or last ownership stint, last time it owned).
    pub stints: BTreeMap<(MessageQueue, usize), (u64, u64)>,
    pub summary: Summary,
}

/// How long after a broker forgot a lock its consequences are attributed to that loss.
pub const LOCK_LOSS_WINDOW_MS: u64 = 120_000;

impl Checks {
    pub fn record_delivery(&mut self, queue: &MessageQueue, from: i64, to: i64) {
        let counts = self.consumed.entry(queue.clone()).or_default();
        for offset in from..to {
            let i = offset as usize;
            if counts.len() <= i {
                counts.resize(i + 1, 0);
            }
            counts[i] += 1;
        }
        self.summary.messages_consumed += (to - from).max(0) as u64;
    }

    /// Registers a listener call on an orderly queue and flags an overlap with another
    /// consumer's call.
    pub fn start_call(&mut self, queue: &MessageQueue, instance: usize, start: u64, end: u64) {
        let calls = self.calls.entry(queue.clone()).or_default();
        calls.retain(|&(_, _, e)| e > start);
        let clash = calls.iter().find(|&&(i, _, _)| i != instance).copied();
        calls.push((instance, start, end));
        if let Some((other, since, until)) = clash {
            let same_id = self.client_of.get(instance).is_some_and(|id| self.client_of.get(other) == Some(id));
            if same_id || self.shares_id(other, since, start) || self.shares_id(instance, since, start) {
                self.summary.observed.clashes_duplicate_id += 1;
                return;
            }
            // A call that was running when a restart wiped its consumer's lock cannot be fenced,
            // however long it runs on.
            let wiped_under_call =
                self.lock_loss.get(queue).is_some_and(|v| v.iter().any(|(holder, at, _)| self.client_of.get(other) == Some(holder) && since <= *at));
            if wiped_under_call || self.after_lock_loss(queue, start, &[instance, other], Some(instance)) {
                self.summary.observed.after_broker_lock_loss += 1;
                return;
            }
            if self.gave_up(queue, other, since, start) {
                self.summary.observed.clashes_after_give_up += 1;
                return;
            }
            if self.partition_loss.get(queue).is_some_and(|v| v.iter().any(|&(i, at)| i == other && since <= at)) {
                self.summary.observed.clashes_after_partition += 1;
                return;
            }
            self.summary.violations.orderly_exclusivity += 1;
            self.breaches.push((start, queue.clone(), instance, other, since, until));
            self.note(format!("t={start}ms {queue}: instance {instance} starts a listener call while instance {other} runs one ({since}..{until}ms)"));
        }
    }

    /// A consumer unlocked `queue` while its own listener call on it (begun at `call_start`)
    /// ran; judged at the end of the tick ([`Checks::settle_unlocks`]), once a give-up in the same
    /// engine call has been recorded.
    pub fn unlock_under_call(&mut self, queue: &MessageQueue, instance: usize, now: u64, call_start: u64) {
        self.pending_unlocks.push((queue.clone(), instance, now, call_start));
    }

    /// Counts every unlock under a running call of this tick, except those of a call whose
    /// release this consumer gave up (past `release_give_up_ms`, now or while it ran): a
    /// given-up call is abandoned on purpose, and a later state of the queue (taken again, then
    /// given back) cannot wait for it either.
    pub fn settle_unlocks(&mut self) {
        for (queue, instance, at, call_start) in std::mem::take(&mut self.pending_unlocks) {
            if self.gave_up(&queue, instance, call_start, at) {
                continue;
            }
            self.summary.violations.unlock_under_call += 1;
            self.note(format!("t={at}ms {queue}: instance {instance} unlocks the queue while its own listener call on it runs"));
        }
    }

    /// `instance` gave up its release of `queue` at some moment in `[from, to]`: a call of its begun
    /// at `from` or earlier was abandoned on purpose by then. Every give-up is kept: a later one
    /// by another consumer must not hide an earlier one's abandoned call.
    pub fn gave_up(&self, queue: &MessageQueue, instance: usize, from: u64, to: u64) -> bool {
        self.given_up.get(queue).is_some_and(|v| v.iter().any(|&(i, at)| i == instance && from <= at && at <= to))
    }

    /// Records (and counts) that `instance` gave up its release of `queue` now.
    pub fn note_given_up(&mut self, queue: &MessageQueue, instance: usize, now: u64) {
        self.summary.observed.releases_given_up += 1;
        self.given_up.entry(queue.clone()).or_default().push((instance, now));
    }

    /// What an engine reported lost (see `known_lost`).
    pub fn note_lost(&mut self, lost: &[MessageQueue], instance: usize, now: u64) {
        for q in lost {
            self.known_lost.entry((q.clone(), instance)).or_insert(now);
        }
    }

    /// A listener call of a consumer that died ends now.
    pub fn abandon_calls(&mut self, instance: usize, now: u64) {
        for calls in self.calls.values_mut() {
            for call in calls.iter_mut().filter(|c| c.0 == instance && c.2 > now) {
                call.2 = now;
            }
        }
    }

    pub fn record_commit(&mut self, queue: &MessageQueue, old: i64, new: i64, writer: usize, now: u64) {
        let previous = self.last_writer.insert(queue.clone(), writer);
        if new < old && self.known_lost.contains_key(&(queue.clone(), writer)) {
            self.summary.violations.offset_regressions += 1;
            self.note(format!("t={now}ms {queue}: instance {writer} commits {new} over {old} after its engine reported the lock lost"));
            return;
        }
        if new < old {
            // The forgotten holder may be this writer, or the one whose higher commit is undone.
            let involved: Vec<usize> = std::iter::once(writer).chain(previous).collect();
            if self.after_lock_loss(queue, now, &involved, Some(writer)) {
                self.summary.observed.after_broker_lock_loss += 1;
            } else if involved.iter().any(|&i| self.shares_id(i, now.saturating_sub(LOCK_LOSS_WINDOW_MS), now)) {
                // A twin renewed or took "this client's" lock: the broker cannot tell them apart.
                self.summary.observed.clashes_duplicate_id += 1;
            } else if previous.is_some_and(|p| p != writer && self.overlapping(queue, p, writer)) {
                self.summary.observed.regressions_two_writers += 1;
            } else {
                self.summary.violations.offset_regressions += 1;
                let owners = self.owners.get(queue).cloned().unwrap_or_default();
                self.note(format!(
                    "t={now}ms {queue}: instance {writer} commits {new} over {old} (owners now {owners:?}, lock lost: {:?})",
                    self.lock_loss.get(queue)
                ));
            }
        }
    }

    /// Whether instance `i` shared its client id with another process at some time in `from..=to`.
    fn shares_id(&self, i: usize, from: u64, to: u64) -> bool {
        self.duplicated.iter().any(|&(a, b, start, end)| (i == a || i == b) && from <= end && to >= start)
    }

    /// Whether `earlier` still owned `queue` when `later`'s latest ownership stint began (or one
    /// tick before: a handoff inside one tick).
    fn overlapping(&self, queue: &MessageQueue, earlier: usize, later: usize) -> bool {
        let (Some(&(_, earlier_last)), Some(&(later_start, _))) = (self.stints.get(&(queue.clone(), earlier)), self.stints.get(&(queue.clone(), later))) else {
            return false;
        };
        earlier_last + TICK_MS >= later_start
    }

    /// Whether a restart wiped the lock of `queue`, held by one of `instances`, shortly before.
    /// Not when `actor` is the holder and its engine had been told (`locks_lost`) before `now`:
    /// what an engine does after it knows is its own fault.
    fn after_lock_loss(&self, queue: &MessageQueue, now: u64, instances: &[usize], actor: Option<usize>) -> bool {
        self.lock_loss.get(queue).is_some_and(|v| {
            v.iter().any(|(holder, at, told)| {
                let actor_knew = actor.is_some_and(|a| self.client_of.get(a) == Some(holder)) && told.is_some_and(|t| t <= now);
                now.saturating_sub(*at) <= LOCK_LOSS_WINDOW_MS && instances.iter().any(|&i| self.client_of.get(i) == Some(holder)) && !actor_knew
            })
        })
    }

    fn note(&mut self, text: String) {
        if self.summary.first_violations.len() < 5 {
            self.summary.first_violations.push(text);
        }
    }

    /// Updates owners and handoff gaps for this instant.
    pub fn observe_owners(&mut self, owners: BTreeMap<MessageQueue, Vec<usize>>, now: u64) {
        for (queue, who) in &owners {
            for &i in who {
                let stint = self.stints.entry((queue.clone(), i)).or_insert((now, now));
                if stint.1 + TICK_MS < now {
                    stint.0 = now;
                }
                stint.1 = now;
            }
            let last = self.last_owned.entry(queue.clone()).or_insert(now);
            if who.is_empty() {
                self.summary.unowned_queue_ms += TICK_MS;
                self.summary.max_handoff_gap_ms = self.summary.max_handoff_gap_ms.max(now - *last);
            } else {
                *last = now;
            }
        }
        self.owners = owners;
    }

    /// Every queue has exactly one owner (called once views have agreed for 2 rounds).
    pub fn check_convergence(&mut self, now: u64) {
        let bad: Vec<(MessageQueue, Vec<usize>)> = self.owners.iter().filter(|(_, w)| w.len() != 1).map(|(q, w)| (q.clone(), w.clone())).collect();
        self.summary.violations.convergence += bad.len() as u64;
        for (q, w) in bad {
            self.note(format!("t={now}ms {q}: owners {w:?} after the views agreed"));
        }
    }

    /// Final accounting: loss and duplicates.
    pub fn finish(&mut self, log: &BTreeMap<MessageQueue, i64>) {
        let mut notes = Vec::new();
        for (queue, &max) in log {
            let counts = self.consumed.get(queue).map(Vec::as_slice).unwrap_or(&[]);
            // A queue never started expects everything (its consumer never came).
            let floor = self.first_start.get(queue).copied().unwrap_or(0).clamp(0, max) as usize;
            let missing: Vec<usize> = (floor..max as usize).filter(|&i| counts.get(i).copied().unwrap_or(0) == 0).collect();
            if let (Some(first), Some(last)) = (missing.first(), missing.last()) {
                notes.push(format!("{queue}: {} message(s) never delivered, offsets {first}..={last} (first start {floor}, max {max})", missing.len()));
            }
            self.summary.violations.lost_messages += missing.len() as u64;
            self.summary.duplicates += counts.iter().map(|&c| u64::from(c.saturating_sub(1))).sum::<u64>();
        }
        for text in notes {
            self.note(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: i32) -> MessageQueue {
        MessageQueue::new("T", "broker-0", id)
    }

    #[test]
    fn loss_and_duplicates_are_counted_per_offset() {
        let mut c = Checks::default();
        c.record_delivery(&q(0), 0, 3);
        c.record_delivery(&q(0), 2, 4);
        c.record_delivery(&q(0), 6, 7);
        c.finish(&[(q(0), 8)].into());
        // 0..8 produced; 4, 5 and 7 never delivered; 2 delivered twice.
        assert_eq!(c.summary.violations.lost_messages, 3);
        assert_eq!(c.summary.duplicates, 1);
        assert_eq!(c.summary.messages_consumed, 6);
    }

    #[test]
    fn an_unlock_under_a_running_call_is_a_violation_unless_the_release_was_given_up() {
        let mut c = Checks::default();
        c.unlock_under_call(&q(0), 1, 5_000, 1_000);
        c.unlock_under_call(&q(1), 2, 5_000, 1_000);
        // The same tick's report gave up queue 1's release (a hung call past release_give_up_ms).
        c.note_given_up(&q(1), 2, 5_000);
        c.settle_unlocks();
        assert_eq!(c.summary.violations.unlock_under_call, 1);
        assert!(c.summary.first_violations[0].contains("instance 1 unlocks"), "{:?}", c.summary.first_violations);
        c.settle_unlocks();
        assert_eq!(c.summary.violations.unlock_under_call, 1, "judged once");
        // Queue 1 taken again and given back later, the abandoned call still running: excused;
        // a call begun after the give-up is not.
        c.unlock_under_call(&q(1), 2, 9_000, 1_000);
        c.unlock_under_call(&q(1), 2, 9_000, 6_000);
        c.settle_unlocks();
        assert_eq!(c.summary.violations.unlock_under_call, 2);
    }

    /// host-faults seed 796232251 in short: A's hung call runs from 220 s, A gives its release up
    /// at 380 s, J takes the queue and gives up its own release at 546 s; a call L begins at 558 s
    /// beside A's call is A's give-up's doing, not hidden by J's later one.
    #[test]
    fn a_later_give_up_does_not_hide_an_earlier_ones_abandoned_call() {
        let mut c = Checks::default();
        c.start_call(&q(0), 0, 220_000, 586_000);
        c.note_given_up(&q(0), 0, 380_000);
        c.note_given_up(&q(0), 9, 546_000);
        c.start_call(&q(0), 11, 558_000, 559_000);
        assert_eq!(c.summary.violations.orderly_exclusivity, 0, "{:?}", c.summary.first_violations);
        assert_eq!(c.summary.observed.clashes_after_give_up, 1);
        assert_eq!(c.summary.observed.releases_given_up, 2);
    }

    #[test]
    fn overlapping_listener_calls_of_two_consumers_clash() {
        let mut c = Checks::default();
        c.start_call(&q(0), 1, 0, 5_000);
        c.start_call(&q(0), 1, 5_000, 6_000);
        assert_eq!(c.summary.violations.orderly_exclusivity, 0, "back to back, same consumer");
        c.start_call(&q(0), 2, 6_000, 7_000);
        assert_eq!(c.summary.violations.orderly_exclusivity, 0, "the first consumer's call ended at 6 s");
        c.start_call(&q(0), 3, 6_500, 7_000);
        assert_eq!(c.summary.violations.orderly_exclusivity, 1);
        assert_eq!(c.summary.first_violations.len(), 1);
    }

    #[test]
    fn a_single_writer_going_back_is_a_violation_two_writers_are_observed() {
        let mut c = Checks::default();
        c.observe_owners([(q(0), vec![1])].into(), 0);
        c.record_commit(&q(0), 0, 10, 1, 0);
        c.record_commit(&q(0), 10, 8, 1, 1_000);
        assert_eq!(c.summary.violations.offset_regressions, 1);
        // Instance 2 takes over in the next tick and writes an older offset: a handoff race.
        c.observe_owners([(q(0), vec![2])].into(), 1_000);
        c.record_commit(&q(0), 8, 5, 2, 1_000);
        assert_eq!(c.summary.observed.regressions_two_writers, 1);
        assert_eq!(c.summary.violations.offset_regressions, 1);
    }

    #[test]
    fn consequences_of_a_forgotten_lock_are_attributed_to_it() {
        let mut c = Checks { client_of: vec!["a".into(), "b".into()], ..Checks::default() };
        c.lock_loss.insert(q(0), vec![("a".into(), 10_000, None)]);
        c.start_call(&q(0), 0, 10_000, 40_000);
        c.start_call(&q(0), 1, 20_000, 21_000);
        assert_eq!((c.summary.violations.orderly_exclusivity, c.summary.observed.after_broker_lock_loss), (0, 1));
        // Long after the loss, a clash is a violation again.
        c.start_call(&q(0), 0, 200_000, 240_000);
        c.start_call(&q(0), 1, 210_000, 211_000);
        assert_eq!(c.summary.violations.orderly_exclusivity, 1);
    }

    #[test]
    fn a_holder_told_of_its_lost_lock_is_not_excused() {
        let mut c = Checks { client_of: vec!["a".into(), "b".into()], ..Checks::default() };
        c.lock_loss.insert(q(0), vec![("a".into(), 10_000, Some(12_000))]);
        c.observe_owners([(q(0), vec![1])].into(), 11_000);
        c.record_commit(&q(0), 50, 40, 0, 13_000);
        assert_eq!(c.summary.violations.offset_regressions, 1, "a commits after its engine was told");
        c.record_commit(&q(0), 60, 55, 0, 11_000);
        assert_eq!(c.summary.observed.after_broker_lock_loss, 1, "before it was told, it could not know");
    }

    #[test]
    fn a_regression_by_a_process_sharing_its_id_is_counted_apart() {
        let mut c = Checks { client_of: vec!["a".into(), "b".into(), "a".into()], ..Checks::default() };
        c.duplicated.push((0, 2, 10_000, 60_000));
        c.observe_owners([(q(0), vec![0])].into(), 100_000);
        c.record_commit(&q(0), 50, 40, 0, 100_000);
        assert_eq!((c.summary.violations.offset_regressions, c.summary.observed.clashes_duplicate_id), (0, 1), "its twin left 40 s ago");
        c.record_commit(&q(0), 60, 55, 0, 300_000);
        assert_eq!(c.summary.violations.offset_regressions, 1, "long after the twin, a regression is a violation again");
    }

    #[test]
    fn a_commit_after_the_engine_reported_the_lock_lost_is_a_violation_whoever_wrote_before() {
        let mut c = Checks::default();
        c.observe_owners([(q(0), vec![1, 2])].into(), 0);
        c.record_commit(&q(0), 0, 50, 2, 0);
        c.record_commit(&q(0), 50, 40, 1, 1_000);
        assert_eq!((c.summary.violations.offset_regressions, c.summary.observed.regressions_two_writers), (0, 1), "two writers");
        c.known_lost.insert((q(0), 1), 1_500);
        c.record_commit(&q(0), 50, 45, 1, 2_000);
        assert_eq!(c.summary.violations.offset_regressions, 1, "instance 1 knew");
    }

    #[test]
    fn messages_before_the_first_start_are_not_expected() {
        let mut c = Checks::default();
        c.first_start.insert(q(0), 5);
        c.record_delivery(&q(0), 5, 8);
        c.finish(&[(q(0), 10)].into());
        // 5..8 delivered, 8 and 9 not; 0..5 came before anyone started the queue at its end.
        assert_eq!(c.summary.violations.lost_messages, 2);
    }

    #[test]
    fn convergence_needs_exactly_one_owner_per_queue() {
        let mut c = Checks::default();
        c.observe_owners([(q(0), vec![1]), (q(1), vec![]), (q(2), vec![1, 2])].into(), 0);
        c.check_convergence(0);
        assert_eq!(c.summary.violations.convergence, 2);
    }
}
