//! The release phase: mark every queue to give up as dropped, then release each
//! (`removeUnnecessaryMessageQueue` of the push and lite-pull implementations).

use std::collections::BTreeSet;

use super::report::{DeferReason, Deferred, ReleaseReason, Released, RoundReport, Warning};
use super::state::Entry;
use super::{ConsumeType, Host, Rebalancer};
use crate::queue::MessageQueue;

impl Rebalancer {
    /// Returns true when a queue left the table.
    pub(super) fn release_phase(
        &mut self,
        topic: &str,
        target: &BTreeSet<MessageQueue>,
        now_ms: u64,
        host: &mut dyn Host,
        report: &mut RoundReport,
        stand_down: bool,
    ) -> bool {
        let expire = self.config.timing.pull_expired_ms;
        let push = self.config.consume_type == ConsumeType::Push;
        let safe = self.safe();
        // Phase one: mark. Java marks every queue first, then releases them one by one.
        let mut to_release = Vec::new();
        for (queue, entry) in self.table.iter().filter(|(q, _)| &*q.topic == topic) {
            let earlier = entry.drop_reason.filter(|_| entry.dropped());
            let reason = if !target.contains(queue) {
                Some(earlier.unwrap_or(if stand_down { ReleaseReason::DuplicateClientId } else { ReleaseReason::NotAssigned }))
            } else if push && now_ms.saturating_sub(entry.flags.last_pull_ms()) > expire {
                Some(ReleaseReason::PullExpired)
            } else if safe && entry.dropped() {
                // A deferred release whose queue is ours again, or a lost lock: finish the old
                // state, re-acquire fresh (fixes 6 and 13).
                Some(if earlier == Some(ReleaseReason::LockLost) { ReleaseReason::LockLost } else { ReleaseReason::Restarted })
            } else {
                None
            };
            if let Some(reason) = reason {
                to_release.push((queue.clone(), reason));
            }
        }
        for (queue, reason) in &to_release {
            self.mark_dropped(queue, *reason, host);
        }
        let before = self.table.len();
        for (queue, reason) in to_release {
            self.release_queue(&queue, reason, now_ms, host, report);
        }
        self.table.len() != before
    }

    /// Marks a state dropped (nothing more may be consumed from it) and tells the host to stop
    /// pulling it, once per state.
    pub(super) fn mark_dropped(&mut self, queue: &MessageQueue, reason: ReleaseReason, host: &mut dyn Host) {
        let Some(entry) = self.table.get_mut(queue) else {
            return;
        };
        if entry.drop_reason.is_none() || !entry.dropped() {
            entry.drop_reason = Some(reason);
        }
        if !entry.dropped() {
            entry.flags.set_dropped();
            host.stop_pull(queue, entry.generation());
        }
    }

    /// Releases one held queue: commit its offset, forget the cached one, and for orderly queues
    /// unlock it on the broker under the consume lock. A release that cannot finish now leaves the
    /// queue in the table, dropped, for the next round.
    pub(super) fn release_queue(&mut self, queue: &MessageQueue, reason: ReleaseReason, now_ms: u64, host: &mut dyn Host, report: &mut RoundReport) {
        let Some(entry) = self.table.get(queue) else {
            return;
        };
        let released = Released::new(queue.clone(), entry.generation(), reason);
        self.mark_dropped(queue, reason, host);
        if !self.config.locks_queues() {
            // Concurrent (or pull, or broadcasting): best effort. Retrying the commit later could
            // move the offset back under the next owner's feet, so a failure is only reported.
            let mut released = released;
            released.persist_failed = host.persist_offset(queue).err().map(|e| e.0);
            host.remove_offset(queue);
            self.table.remove(queue);
            report.released.push(released);
            return;
        }
        if self.safe() {
            self.release_orderly_safe(queue, released, now_ms, host, report);
        } else {
            self.release_orderly_java(queue, released, now_ms, host, report);
        }
    }

    /// `tryRemoveOrderMessageQueue` as 5.3.x does it, forced unlock included.
    fn release_orderly_java(&mut self, queue: &MessageQueue, mut released: Released, now_ms: u64, host: &mut dyn Host, report: &mut RoundReport) {
        let generation = released.generation;
        let _ = host.persist_offset(queue);
        let Some(entry) = self.table.get(queue) else {
            return;
        };
        let force = entry.dropped() && now_ms > entry.flags.last_lock_ms() + self.config.timing.force_unlock_ms;
        if force || host.try_consume_lock(queue, generation, self.config.timing.consume_lock_wait_ms) {
            let _ = host.persist_offset(queue);
            host.remove_offset(queue);
            let _ = host.unlock(&queue.broker_name, std::slice::from_ref(queue));
            if !force {
                host.release_consume_lock(queue, generation);
            }
            released.forced = force;
            self.table.remove(queue);
            report.released.push(released);
        } else {
            if let Some(e) = self.table.get_mut(queue) {
                e.try_unlock_times += 1;
            }
            self.defer(queue, DeferReason::ConsumeInProgress, now_ms, report);
        }
    }

    /// Whether this client's broker lock on the state is known lost (fix 12): a renewal refused, a
    /// restart signalled, or no renewal for the broker's expiry.
    pub(super) fn lock_lost(&self, entry: &Entry, now_ms: u64) -> bool {
        entry.drop_reason == Some(ReleaseReason::LockLost)
            || !entry.flags.locked()
            || now_ms.saturating_sub(entry.flags.last_lock_ms()) > self.config.timing.broker_lock_expiry_ms
    }

    /// Safe orderly release: only under the consume lock (fix 2), only once the offset is
    /// committed (fix 3), and only once the broker lock is given back (fix 10). The commit happens
    /// after the consume lock is taken, so it includes whatever the last listener call consumed.
    /// A state whose lock is lost commits nothing (fix 12); a release deferred for too long is
    /// given up (fix 16).
    pub(super) fn release_orderly_safe(&mut self, queue: &MessageQueue, mut released: Released, now_ms: u64, host: &mut dyn Host, report: &mut RoundReport) {
        let generation = released.generation;
        let Some(entry) = self.table.get(queue) else {
            return;
        };
        let wait = self.config.timing.consume_lock_wait_ms;
        let lost = self.lock_lost(entry, now_ms);
        let held = self.holds_lock(entry, now_ms);
        let bound = self.config.timing.release_give_up_ms;
        let give_up = bound > 0 && entry.deferred_since_ms.is_some_and(|since| now_ms.saturating_sub(since) >= bound);
        if lost && !held {
            // Another client may own the queue and have committed further: commit nothing, and
            // there is no lock of ours to give back. But a listener call of this state may still
            // run: until it ends the state stays (dropped, its lock asked for again by `lock_all`),
            // so this client neither takes the queue afresh beside that call nor gives back a
            // lock it takes meanwhile.
            if !host.try_consume_lock(queue, generation, wait) {
                if give_up {
                    return self.give_up(queue, released, host, report);
                }
                return self.defer(queue, DeferReason::ConsumeInProgress, now_ms, report);
            }
            host.release_consume_lock(queue, generation);
            return self.forget_lost(queue, released, host, report);
        }
        if !host.try_consume_lock(queue, generation, wait) {
            if give_up {
                // A listener call has held the consume lock for the whole bound: forget the state
                // without committing or unlocking; nobody renews the lock, so the broker frees it.
                return self.give_up(queue, released, host, report);
            }
            if let Some(e) = self.table.get_mut(queue) {
                e.try_unlock_times += 1;
            }
            // The lock (even one regained after it lapsed) stays renewed while the call runs.
            return self.defer(queue, DeferReason::ConsumeInProgress, now_ms, report);
        }
        if lost {
            // Regained after it lapsed (fix 13): the old state's position may be stale, so it
            // commits nothing; the lock is ours, and no call runs, so give it back. As in fix 10,
            // forgetting the state before the unlock went through would leave the lock to keep
            // the queue's next owner out for the broker's expiry: a failed unlock waits a round.
            let unlocked = host.unlock(&queue.broker_name, std::slice::from_ref(queue));
            host.release_consume_lock(queue, generation);
            return match unlocked {
                Ok(()) => self.forget_lost(queue, released, host, report),
                Err(e) if give_up => {
                    report.warnings.push(Warning::CallbackFailed(format!("unlock {queue}: {e}")));
                    self.forget_lost(queue, released, host, report)
                }
                Err(e) => self.defer(queue, DeferReason::UnlockFailed(e.0), now_ms, report),
            };
        }
        if let Err(e) = host.persist_offset(queue) {
            if give_up {
                released.persist_failed = Some(e.0);
                self.unlock_or_warn(queue, host, report);
                host.release_consume_lock(queue, generation);
                return self.give_up(queue, released, host, report);
            }
            host.release_consume_lock(queue, generation);
            return self.defer(queue, DeferReason::PersistFailed(e.0), now_ms, report);
        }
        host.remove_offset(queue);
        // A lock left on the broker would keep the next owner out for the broker's 60 s expiry:
        // the release completes only once the unlock went through (fix 10).
        if let Err(e) = host.unlock(&queue.broker_name, std::slice::from_ref(queue)) {
            host.release_consume_lock(queue, generation);
            if give_up {
                report.warnings.push(Warning::CallbackFailed(format!("unlock {queue}: {e}")));
                return self.give_up(queue, released, host, report);
            }
            return self.defer(queue, DeferReason::UnlockFailed(e.0), now_ms, report);
        }
        host.release_consume_lock(queue, generation);
        self.table.remove(queue);
        report.released.push(released);
    }

    /// Whether this client holds the broker lock now: granted at the last answer and renewed
    /// within the broker's expiry.
    fn holds_lock(&self, entry: &Entry, now_ms: u64) -> bool {
        entry.flags.locked() && now_ms.saturating_sub(entry.flags.last_lock_ms()) <= self.config.timing.broker_lock_expiry_ms
    }

    fn forget_lost(&mut self, queue: &MessageQueue, mut released: Released, host: &mut dyn Host, report: &mut RoundReport) {
        host.remove_offset(queue);
        self.table.remove(queue);
        released.lock_lost = true;
        report.released.push(released);
    }

    fn unlock_or_warn(&self, queue: &MessageQueue, host: &mut dyn Host, report: &mut RoundReport) {
        if let Err(e) = host.unlock(&queue.broker_name, std::slice::from_ref(queue)) {
            report.warnings.push(Warning::CallbackFailed(format!("unlock {queue}: {e}")));
        }
    }

    fn give_up(&mut self, queue: &MessageQueue, mut released: Released, host: &mut dyn Host, report: &mut RoundReport) {
        // The call may run on (a hung listener): no later round may unlock under it (fix 16).
        self.abandoned.insert(queue.clone(), released.generation);
        host.remove_offset(queue);
        self.table.remove(queue);
        released.gave_up = true;
        report.released.push(released);
    }

    /// Whether this client may give `queue`'s broker lock back: not while a listener call of a state
    /// given up on it (fix 16) may still run. Such a call is over once its consume lock can be taken
    /// at once; from then on the queue is forgotten here.
    pub(super) fn may_unlock(&mut self, queue: &MessageQueue, host: &mut dyn Host) -> bool {
        let Some(&generation) = self.abandoned.get(queue) else {
            return true;
        };
        if !host.try_consume_lock(queue, generation, 0) {
            return false;
        }
        host.release_consume_lock(queue, generation);
        self.abandoned.remove(queue);
        true
    }

    /// The release waits: the entry stays in the table, dropped; the report says how long it has.
    pub(super) fn defer(&mut self, queue: &MessageQueue, reason: DeferReason, now_ms: u64, report: &mut RoundReport) {
        let Some(entry) = self.table.get_mut(queue) else {
            return;
        };
        let since = *entry.deferred_since_ms.get_or_insert(now_ms);
        report.deferred.push(Deferred { queue: queue.clone(), generation: entry.generation(), reason, waiting_ms: now_ms.saturating_sub(since) });
    }
}
