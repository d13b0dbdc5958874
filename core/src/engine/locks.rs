//! Outside the round: lock renewal, re-locking one queue, lost locks, dropping one queue on
//! request, shutdown.

use std::collections::BTreeMap;

use super::host::report_callback_failures;
use super::report::{LockReport, ReleaseReason, Released, RoundReport, Warning};
use super::{Host, Rebalancer};
use crate::error::Result;
use crate::queue::MessageQueue;

impl Rebalancer {
    /// `lockAll`, every 20 s for orderly consumers: renew the broker lock of every held queue,
    /// broker by broker. A queue the broker refuses stops being consumable. Java renews non-dropped
    /// queues only, so a listener call that outlives a deferred release can outlive the broker's
    /// lock too (60 s) while another client takes the queue; safe mode renews deferred releases
    /// as well, until they complete (fix 9). Safe mode never resumes a lost lock: the state is
    /// dropped and the next round starts a new generation (fix 13).
    ///
    /// After `shutdown` this is the one call still accepted (besides `shutdown`): it renews only
    /// what shutdown left deferred, so a listener call still running keeps its lock until it ends
    /// (or the give-up bound passes) instead of losing it at the broker's expiry.
    pub fn lock_all(&mut self, now_ms: u64, host: &mut dyn Host) -> Result<LockReport> {
        self.enter_or_wind_down(now_ms)?;
        let mut report = LockReport::default();
        let mut by_broker: BTreeMap<String, Vec<MessageQueue>> = BTreeMap::new();
        let safe = self.safe();
        for (queue, entry) in self.table.iter() {
            // Safe: deferred releases too (fix 9), including one whose lock is known lost while it
            // waits for a running call: the lock is asked for again, and if the broker grants it
            // other clients stay out until that call ends. The state stays dropped either way: a
            // lost lock is never resumed (fix 13). So a `locks_lost` after a network blip (the
            // broker kept its table) cannot undo a protected handoff: the next renewal is granted.
            let waiting = entry.deferred_since_ms.is_some();
            let renew = if safe { !entry.dropped() || entry.flags.locked() || waiting } else { !entry.dropped() };
            if renew {
                by_broker.entry(queue.broker_name.to_string()).or_default().push(queue.clone());
            }
        }
        for (broker, queues) in by_broker {
            match host.lock(&broker, &queues) {
                Ok(locked) => {
                    for queue in queues {
                        let granted = locked.contains(&queue);
                        self.apply_lock(&queue, granted, now_ms, host, &mut report);
                    }
                }
                Err(e) => report.warnings.push(Warning::CallbackFailed(format!("lock on {broker}: {e}"))),
            }
        }
        self.finish_lock_call(&mut report, host);
        Ok(report)
    }

    /// `lockOneMQ`: the consume service found a held orderly queue unlocked or its lock expired
    /// and asks the broker again (Java does this 10-100 ms later, then every 3 s while it fails).
    /// Java mode resumes the old state when the lock is granted; safe mode has already dropped a
    /// lost state (the next round restarts it), so it only renews a lock that is still ours.
    pub fn lock_queue(&mut self, queue: &MessageQueue, now_ms: u64, host: &mut dyn Host) -> Result<LockReport> {
        self.enter(now_ms)?;
        let mut report = LockReport::default();
        if self.table.get(queue).is_none_or(|e| e.dropped()) {
            return Ok(report);
        }
        match host.lock(&queue.broker_name, std::slice::from_ref(queue)) {
            Ok(locked) => self.apply_lock(queue, locked.contains(queue), now_ms, host, &mut report),
            Err(e) => report.warnings.push(Warning::CallbackFailed(format!("lock {queue}: {e}"))),
        }
        self.finish_lock_call(&mut report, host);
        Ok(report)
    }

    /// The host saw `broker` restart (its lock table lives in memory and is now empty), or knows
    /// otherwise that every lock this client held there is gone. Safe mode stops consumption of
    /// that broker's orderly queues at once and restarts each with a new generation once re-locked
    /// (the next round, asked for early). Java has no such signal: in Java mode nothing changes
    /// until a renewal fails.
    ///
    /// Accepted after `shutdown` in safe mode, as `lock_all` is: a consumer winding down still
    /// fences the listener calls its deferred releases wait for.
    pub fn locks_lost(&mut self, broker: &str, now_ms: u64, host: &mut dyn Host) -> Result<LockReport> {
        self.enter_or_wind_down(now_ms)?;
        let mut report = LockReport::default();
        if !self.safe() || !self.config.locks_queues() {
            return Ok(report);
        }
        let queues: Vec<MessageQueue> = self.table.queues().filter(|q| *q.broker_name == *broker).cloned().collect();
        for queue in &queues {
            self.apply_lock(queue, false, now_ms, host, &mut report);
        }
        self.fence_dropped(broker, &queues, now_ms, host, &mut report);
        self.finish_lock_call(&mut report, host);
        Ok(report)
    }

    /// Right after `locks_lost` (fix 18): asks the new broker at once for the locks of the states just
    /// dropped, instead of at the next `lock_all` (up to 20 s on). A listener call of such a state
    /// may still run, and the queue's next owner in a handoff, told of the restart too, would win
    /// the empty table in its next round and start beside that call. A granted lock keeps it out
    /// until this client's round releases the state, once its call has ended (and gives the lock
    /// back then, or keeps the queue under a new generation if it is still this client's). The
    /// states stay dropped either way: a lost lock is never resumed (fix 13). Not reported as
    /// renewed: nothing more is consumed under it.
    fn fence_dropped(&mut self, broker: &str, queues: &[MessageQueue], now_ms: u64, host: &mut dyn Host, report: &mut LockReport) {
        if queues.is_empty() {
            return;
        }
        match host.lock(broker, queues) {
            Ok(locked) => {
                for queue in queues.iter().filter(|q| locked.contains(q)) {
                    if let Some(entry) = self.table.get_mut(queue) {
                        entry.flags.set_locked(true, Some(now_ms));
                    }
                }
            }
            Err(e) => report.warnings.push(Warning::CallbackFailed(format!("lock on {broker}: {e}"))),
        }
    }

    /// One queue's lock answer. Refused, or (safe mode) granted only after the broker's expiry,
    /// when another client may have held it meanwhile: lost.
    fn apply_lock(&mut self, queue: &MessageQueue, granted: bool, now_ms: u64, host: &mut dyn Host, report: &mut LockReport) {
        let safe = self.safe();
        let expiry = self.config.timing.broker_lock_expiry_ms;
        let Some(entry) = self.table.get_mut(queue) else {
            return;
        };
        let lapsed = safe && now_ms.saturating_sub(entry.flags.last_lock_ms()) > expiry;
        // Known lost already: the answer only says whether this client fences the queue now.
        let known_lost = safe && entry.dropped() && entry.drop_reason == Some(ReleaseReason::LockLost);
        if granted {
            entry.flags.set_locked(true, Some(now_ms));
        } else {
            entry.flags.set_locked(false, None);
        }
        if known_lost && (!granted || lapsed) {
            return;
        }
        if granted && !lapsed {
            report.renewed.push(queue.clone());
            return;
        }
        report.lost.push(queue.clone());
        if safe {
            entry.drop_reason = Some(ReleaseReason::LockLost);
            self.mark_dropped(queue, ReleaseReason::LockLost, host);
        }
    }

    /// The end of a lock call. Safe mode: a lost lock is repaired by the next round; ask for it
    /// early (fix 17). Then the call's callback failures go on its report.
    fn finish_lock_call(&self, report: &mut LockReport, host: &mut dyn Host) {
        if self.safe() && !report.lost.is_empty() && self.config.timing.deferred_retry_ms > 0 {
            host.schedule_rebalance(self.config.timing.deferred_retry_ms);
        }
        report_callback_failures(host, &mut report.warnings);
    }

    /// Gives up one queue at the host's request (the broker answered OFFSET_ILLEGAL, or an offset
    /// reset): released like any other. Java removes it from the table whatever happens; safe mode
    /// keeps a deferred release in the table, dropped, for the next round to finish.
    pub fn drop_queue(&mut self, queue: &MessageQueue, now_ms: u64, host: &mut dyn Host) -> Result<RoundReport> {
        self.enter(now_ms)?;
        let mut report = RoundReport { topic: queue.topic.to_string(), balanced: false, ..RoundReport::default() };
        if !self.table.contains(queue) {
            return Ok(report);
        }
        self.release_queue(queue, ReleaseReason::Requested, now_ms, host, &mut report);
        if !self.safe() {
            self.table.remove(queue);
        }
        report.changed = !self.table.contains(queue);
        self.retry_deferred_early(&report, host);
        report_callback_failures(host, &mut report.warnings);
        Ok(report)
    }

    /// Shutdown. Afterwards every call that changes the rebalancer (rounds, `subscribe`,
    /// `unsubscribe`, `lock_queue`, `drop_queue`, `start_offset`) but `shutdown` and (safe mode)
    /// `lock_all` and `locks_lost` is refused with [`Error::ShutDown`](crate::Error::ShutDown); the
    /// read-only ones (`held`, `state`, `subscriptions`, `is_consumable`, `record_pull`,
    /// `is_shut_down`) still answer.
    ///
    /// Safe mode releases every queue as a round would (fix 5): concurrent queues are committed
    /// (best effort) and forgotten; an orderly queue is committed and unlocked only under its
    /// consume lock, and unlocked only after its commit went through; a queue whose lock is lost
    /// is neither committed nor unlocked. An orderly queue whose listener call still runs, or
    /// whose commit or unlock fails, is reported in `deferred` and stays locked: keep calling
    /// `lock_all` on its cadence while those listener calls run, and `shutdown` again once they
    /// have ended (or every round's interval: past `release_give_up_ms` a hung call is given up).
    /// A host that exits instead leaves the lock to the broker, which expires it 60 s after the
    /// last renewal.
    ///
    /// Java mode unlocks the non-dropped orderly queues first, then commits, and forgets them all.
    pub fn shutdown(&mut self, host: &mut dyn Host) -> RoundReport {
        self.shutdown_at(self.last_now_ms, host)
    }

    /// [`Rebalancer::shutdown`] with the current time, which a repeated shutdown needs to judge
    /// lock expiry and the give-up bound (plain `shutdown` uses the latest time any call gave).
    pub fn shutdown_at(&mut self, now_ms: u64, host: &mut dyn Host) -> RoundReport {
        self.last_now_ms = self.last_now_ms.max(now_ms);
        let now_ms = self.last_now_ms;
        self.shut_down = true;
        let before = self.table.len();
        let mut report = RoundReport { topic: String::new(), balanced: true, ..RoundReport::default() };
        if self.safe() {
            let queues: Vec<MessageQueue> = self.table.queues().cloned().collect();
            for queue in queues {
                self.release_queue(&queue, ReleaseReason::Shutdown, now_ms, host, &mut report);
            }
        } else {
            self.shutdown_java(host, &mut report);
        }
        report.changed = self.table.len() != before;
        report.balanced = self.table.is_empty();
        report_callback_failures(host, &mut report.warnings);
        report
    }

    fn shutdown_java(&mut self, host: &mut dyn Host, report: &mut RoundReport) {
        let queues: Vec<(MessageQueue, u64, bool)> = self.table.iter().map(|(q, e)| (q.clone(), e.generation(), e.dropped())).collect();
        if self.config.locks_queues() {
            let mut by_broker: BTreeMap<&str, Vec<MessageQueue>> = BTreeMap::new();
            for (q, _, dropped) in &queues {
                if !dropped {
                    by_broker.entry(&*q.broker_name).or_default().push(q.clone());
                }
            }
            for (broker, qs) in by_broker {
                if let Err(e) = host.unlock(broker, &qs) {
                    report.warnings.push(Warning::CallbackFailed(format!("unlock on {broker}: {e}")));
                }
            }
        }
        for (queue, generation, _) in queues {
            let mut released = Released::new(queue.clone(), generation, ReleaseReason::Shutdown);
            released.persist_failed = host.persist_offset(&queue).err().map(|e| e.0);
            host.remove_offset(&queue);
            self.table.remove(&queue);
            report.released.push(released);
        }
    }

    /// [`Self::enter`], except that a safe-mode rebalancer that is shut down still takes the
    /// calls that fence what shutdown left deferred (`lock_all`, `locks_lost`).
    fn enter_or_wind_down(&mut self, now_ms: u64) -> Result<()> {
        if self.shut_down && self.safe() {
            self.last_now_ms = self.last_now_ms.max(now_ms);
            Ok(())
        } else {
            self.enter(now_ms)
        }
    }

    /// Every call but `shutdown` starts here: refused after shutdown; remembers the latest time
    /// (shutdown takes no clock and judges lock expiry by it).
    pub(super) fn enter(&mut self, now_ms: u64) -> Result<()> {
        self.running()?;
        self.last_now_ms = self.last_now_ms.max(now_ms);
        Ok(())
    }
}
