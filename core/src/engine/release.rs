//! The release phase: mark every queue to give up as dropped, then release each
//! (`removeUnnecessaryMessageQueue` of the push and lite-pull implementations).

use std::collections::BTreeSet;

use super::report::{DeferReason, Deferred, ReleaseReason, Released, RoundReport};
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
        for (queue, state) in self.table.iter_mut().filter(|(q, _)| &*q.topic == topic) {
            let reason = if !target.contains(queue) {
                Some(if stand_down { ReleaseReason::DuplicateClientId } else { ReleaseReason::NotAssigned })
            } else if push && now_ms.saturating_sub(state.last_pull_ms) > expire {
                Some(ReleaseReason::PullExpired)
            } else if safe && state.dropped {
                // A deferred release whose queue is ours again: finish it, re-acquire fresh (fix 6).
                Some(ReleaseReason::NotAssigned)
            } else {
                None
            };
            if let Some(reason) = reason {
                state.dropped = true;
                to_release.push((queue.clone(), reason));
            }
        }
        let before = self.table.len();
        for (queue, reason) in to_release {
            self.release_queue(&queue, reason, now_ms, host, report);
        }
        self.table.len() != before
    }

    /// Releases one held queue: commit its offset, forget the cached one, and for orderly queues
    /// unlock it on the broker under the consume lock. A release that cannot finish now leaves the
    /// queue in the table, dropped, for the next round.
    pub(super) fn release_queue(&mut self, queue: &MessageQueue, reason: ReleaseReason, now_ms: u64, host: &mut dyn Host, report: &mut RoundReport) {
        let Some(state) = self.table.get_mut(queue) else { return };
        state.dropped = true;
        let generation = state.generation;
        let mut released = Released { queue: queue.clone(), generation, reason, forced: false, persist_failed: None };
        if !self.config.locks_queues() {
            // Concurrent (or pull, or broadcasting): best effort. Retrying the commit later could
            // move the offset back under the next owner's feet, so a failure is only reported.
            released.persist_failed = host.persist_offset(queue).err().map(|e| e.0);
            host.remove_offset(queue);
            self.table.remove(queue);
            report.released.push(released);
            return;
        }
        if self.safe() {
            self.release_orderly_safe(queue, released, host, report);
        } else {
            self.release_orderly_java(queue, released, now_ms, host, report);
        }
    }

    /// `tryRemoveOrderMessageQueue` as 5.3.x does it, forced unlock included.
    fn release_orderly_java(&mut self, queue: &MessageQueue, mut released: Released, now_ms: u64, host: &mut dyn Host, report: &mut RoundReport) {
        let generation = released.generation;
        let _ = host.persist_offset(queue);
        let state = self.table[queue];
        let force = state.dropped && now_ms > state.last_lock_ms + self.config.timing.force_unlock_ms;
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
            if let Some(s) = self.table.get_mut(queue) {
                s.try_unlock_times += 1;
            }
            report.deferred.push(Deferred { queue: queue.clone(), generation, reason: DeferReason::ConsumeInProgress });
        }
    }

    /// Safe orderly release: only under the consume lock (fix 2), only once the offset is
    /// committed (fix 3), and only once the broker lock is given back (fix 10). The commit happens after the lock is taken, so it includes whatever the
    /// last listener call consumed.
    fn release_orderly_safe(&mut self, queue: &MessageQueue, released: Released, host: &mut dyn Host, report: &mut RoundReport) {
        let generation = released.generation;
        let defer = |reason, report: &mut RoundReport| report.deferred.push(Deferred { queue: queue.clone(), generation, reason });
        if !host.try_consume_lock(queue, generation, self.config.timing.consume_lock_wait_ms) {
            if let Some(s) = self.table.get_mut(queue) {
                s.try_unlock_times += 1;
            }
            return defer(DeferReason::ConsumeInProgress, report);
        }
        if let Err(e) = host.persist_offset(queue) {
            host.release_consume_lock(queue, generation);
            return defer(DeferReason::PersistFailed(e.0), report);
        }
        host.remove_offset(queue);
        // A lock left on the broker would keep the next owner out for the broker's 60 s expiry:
        // the release completes only once the unlock went through (fix 10).
        if let Err(e) = host.unlock(&queue.broker_name, std::slice::from_ref(queue)) {
            host.release_consume_lock(queue, generation);
            return defer(DeferReason::UnlockFailed(e.0), report);
        }
        host.release_consume_lock(queue, generation);
        self.table.remove(queue);
        report.released.push(released);
    }
}
