//! Outside the round: lock renewal, dropping one queue on request, shutdown.

use std::collections::BTreeMap;

use super::report::{LockReport, ReleaseReason, RoundReport, Warning};
use super::{Host, Rebalancer};
use crate::queue::MessageQueue;

impl Rebalancer {
    /// `lockAll`, every 20 s for orderly consumers: renew the broker lock of every held queue,
    /// broker by broker. A queue the broker refuses stops being consumable until a later renewal
    /// succeeds. Java renews non-dropped queues only, so a listener call that outlives a deferred
    /// release can outlive the broker's lock too (60 s) while another client takes the queue;
    /// safe mode renews deferred releases as well, until they complete (fix 9).
    pub fn lock_all(&mut self, now_ms: u64, host: &mut dyn Host) -> LockReport {
        let mut report = LockReport::default();
        let mut by_broker: BTreeMap<String, Vec<MessageQueue>> = BTreeMap::new();
        let safe = self.safe();
        for (queue, _) in self.table.iter().filter(|(_, s)| safe || !s.dropped) {
            by_broker.entry(queue.broker_name.to_string()).or_default().push(queue.clone());
        }
        for (broker, queues) in by_broker {
            match host.lock(&broker, &queues) {
                Ok(locked) => {
                    for queue in queues {
                        let Some(state) = self.table.get_mut(&queue) else { continue };
                        if locked.contains(&queue) {
                            state.locked = true;
                            state.last_lock_ms = now_ms;
                            report.renewed.push(queue);
                        } else {
                            state.locked = false;
                            report.lost.push(queue);
                        }
                    }
                }
                Err(e) => report.warnings.push(Warning::CallbackFailed(format!("lock on {broker}: {e}"))),
            }
        }
        report
    }

    /// Gives up one queue at the host's request (the broker answered OFFSET_ILLEGAL, or an offset
    /// reset): released like any other. Java removes it from the table whatever happens; safe mode
    /// keeps a deferred release in the table, dropped, for the next round to finish.
    pub fn drop_queue(&mut self, queue: &MessageQueue, now_ms: u64, host: &mut dyn Host) -> RoundReport {
        let mut report = RoundReport { topic: queue.topic.to_string(), balanced: false, ..RoundReport::default() };
        if !self.table.contains_key(queue) {
            return report;
        }
        self.release_queue(queue, ReleaseReason::Requested, now_ms, host, &mut report);
        if !self.safe() {
            self.table.remove(queue);
        }
        report.changed = !self.table.contains_key(queue);
        report
    }

    /// Shutdown. Safe mode commits every offset, then unlocks every orderly queue, dropped ones
    /// included, then forgets them (fix 5). Java unlocks the non-dropped queues first and commits
    /// afterwards.
    pub fn shutdown(&mut self, host: &mut dyn Host) -> RoundReport {
        let mut report = RoundReport { topic: String::new(), changed: !self.table.is_empty(), balanced: true, ..RoundReport::default() };
        let queues: Vec<(MessageQueue, super::QueueState)> = self.table.iter().map(|(q, s)| (q.clone(), *s)).collect();
        let unlock = |queues: &[&MessageQueue], host: &mut dyn Host, report: &mut RoundReport| {
            let mut by_broker: BTreeMap<&str, Vec<MessageQueue>> = BTreeMap::new();
            for q in queues {
                by_broker.entry(&*q.broker_name).or_default().push((*q).clone());
            }
            for (broker, qs) in by_broker {
                if let Err(e) = host.unlock(broker, &qs) {
                    report.warnings.push(Warning::CallbackFailed(format!("unlock on {broker}: {e}")));
                }
            }
        };
        let mut persist_failed = BTreeMap::new();
        if self.safe() {
            for (q, _) in &queues {
                if let Err(e) = host.persist_offset(q) {
                    persist_failed.insert(q.clone(), e.0);
                }
            }
            if self.config.locks_queues() {
                unlock(&queues.iter().map(|(q, _)| q).collect::<Vec<_>>(), host, &mut report);
            }
        } else {
            if self.config.locks_queues() {
                unlock(&queues.iter().filter(|(_, s)| !s.dropped).map(|(q, _)| q).collect::<Vec<_>>(), host, &mut report);
            }
            for (q, _) in &queues {
                if let Err(e) = host.persist_offset(q) {
                    persist_failed.insert(q.clone(), e.0);
                }
            }
        }
        for (queue, state) in queues {
            host.remove_offset(&queue);
            report.released.push(super::Released {
                persist_failed: persist_failed.remove(&queue),
                queue,
                generation: state.generation,
                reason: ReleaseReason::Shutdown,
                forced: false,
            });
        }
        self.table.clear();
        report
    }
}
