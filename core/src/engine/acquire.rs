//! The acquire phase: lock (orderly), drop the dirty cached offset, compute the start offset,
//! create the queue state and dispatch its first pull.

use std::collections::BTreeSet;

use super::report::{Acquired, RoundReport, SkipReason, Skipped, Warning};
use super::{ConsumeFromWhere, ConsumeType, Host, HostError, OffsetRead, ReadFrom, Rebalancer, RETRY_TOPIC_PREFIX};
use crate::error::Result;
use crate::queue::MessageQueue;

/// A start offset, and whether it came from `consume_from` (no committed offset existed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartOffset {
    pub offset: i64,
    pub from_consume_from: bool,
}

impl Rebalancer {
    /// Returns true when a queue entered the table.
    pub(super) fn acquire_phase(
        &mut self,
        topic: &str,
        target: &BTreeSet<MessageQueue>,
        lock: bool,
        now_ms: u64,
        host: &mut dyn Host,
        report: &mut RoundReport,
    ) -> bool {
        let mut all_locked = true;
        let mut changed = false;
        // A queue whose release was deferred is still "present": it is not taken twice.
        let missing: Vec<&MessageQueue> = target.iter().filter(|q| &*q.topic == topic && !self.table.contains(q)).collect();
        for queue in missing {
            if lock {
                match host.lock(&queue.broker_name, std::slice::from_ref(queue)) {
                    Ok(locked) if locked.contains(queue) => {}
                    Ok(_) => {
                        all_locked = false;
                        report.skipped.push(Skipped { queue: queue.clone(), reason: SkipReason::LockRefused, lock_leaked: false });
                        continue;
                    }
                    Err(e) => {
                        all_locked = false;
                        // The request may have reached the broker and only its answer been lost
                        // (a one-way partition): then the broker holds the lock for this client,
                        // which does not know it, and the queue's owner waits for the 60 s expiry.
                        // Safe mode gives it back at once (fix 19); the broker unlocks only a lock
                        // of this client's, so this frees nobody else's. Not under a listener call
                        // given up on this queue (fix 16), whose lock the broker's expiry frees.
                        if self.safe() && self.may_unlock(queue, host) {
                            if let Err(e) = host.unlock(&queue.broker_name, std::slice::from_ref(queue)) {
                                report.warnings.push(Warning::CallbackFailed(format!("unlock {queue} after its lock failed: {e}")));
                            }
                        }
                        report.skipped.push(Skipped { queue: queue.clone(), reason: SkipReason::LockFailed(e.0), lock_leaked: false });
                        continue;
                    }
                }
            }
            host.remove_offset(queue);
            let skip = |rebalancer: &mut Self, host: &mut dyn Host, report: &mut RoundReport, reason: SkipReason| {
                // Java keeps the broker lock it just took; safe mode gives it back (fix 1), unless a
                // listener call given up on this queue still runs (fix 16): then the broker's
                // expiry frees it.
                let lock_leaked = lock && !rebalancer.safe();
                if lock && rebalancer.safe() && rebalancer.may_unlock(queue, host) {
                    if let Err(e) = host.unlock(&queue.broker_name, std::slice::from_ref(queue)) {
                        report.warnings.push(Warning::CallbackFailed(format!("unlock {queue}: {e}")));
                    }
                }
                report.skipped.push(Skipped { queue: queue.clone(), reason, lock_leaked });
            };
            let start = match self.compute_start_offset(queue, host) {
                Ok(start) => start,
                Err(why) => {
                    skip(self, host, report, SkipReason::OffsetUnavailable(why));
                    continue;
                }
            };
            let offset = start.offset;
            if start.from_consume_from && self.safe() {
                // Start the queue once per group (fix 14): a later owner finds this offset instead
                // of applying consume_from again past messages nobody consumed.
                match host.commit_offset(queue, offset) {
                    Some(Ok(())) => {}
                    Some(Err(e)) => {
                        skip(self, host, report, SkipReason::StartOffsetNotCommitted(e.0));
                        continue;
                    }
                    None => report.warnings.push(Warning::StartOffsetNotCommitted(queue.to_string())),
                }
            }
            let generation = self.next_generation;
            self.next_generation += 1;
            self.table.insert(queue.clone(), generation, now_ms);
            // Java's lite-pull consumer ignores the pull requests of a round (its
            // `dispatchPullRequest` is empty): its pull task computes its own start offset.
            if self.config.consume_type != ConsumeType::Pull || self.safe() {
                host.dispatch_pull(queue, offset, self.config.timing.pull_dispatch_delay_ms, generation);
            }
            report.acquired.push(Acquired { queue: queue.clone(), generation, start_offset: offset });
            changed = true;
        }
        if !all_locked {
            host.schedule_rebalance(self.config.timing.lock_retry_delay_ms);
        }
        changed
    }

    /// `computePullFromWhereWithException`, for a host's own pull task (Java's lite-pull consumer
    /// computes its start offset itself; see the module documentation). Refused after shutdown.
    /// A callback failure is [`Error::Callback`](crate::Error::Callback) with its message.
    pub fn start_offset(&self, queue: &MessageQueue, host: &mut dyn Host) -> Result<StartOffset> {
        self.running()?;
        self.compute_start_offset(queue, host).map_err(crate::Error::Callback)
    }

    /// A committed offset wins; only a definite "no offset" lets `ConsumeFromWhere` apply; a store
    /// that cannot be read is an error, never "no offset".
    fn compute_start_offset(&self, queue: &MessageQueue, host: &mut dyn Host) -> std::result::Result<StartOffset, String> {
        let from = match self.config.consume_type {
            ConsumeType::Push => ReadFrom::Store,
            ConsumeType::Pull => ReadFrom::MemoryThenStore,
        };
        let retry = queue.topic.starts_with(RETRY_TOPIC_PREFIX);
        let describe = |what: &str, e: HostError| format!("{what}: {e}");
        let read = host.read_offset(queue, from).map_err(|e| describe("read offset", e))?;
        let from_consume_from = read == OffsetRead::NotFound;
        let offset = match read {
            OffsetRead::Found(n) => n,
            OffsetRead::NotFound => match self.config.consume_from {
                ConsumeFromWhere::LastOffset if retry => 0,
                ConsumeFromWhere::LastOffset => host.max_offset(queue).map_err(|e| describe("max offset", e))?,
                ConsumeFromWhere::FirstOffset => 0,
                ConsumeFromWhere::Timestamp if retry => host.max_offset(queue).map_err(|e| describe("max offset", e))?,
                ConsumeFromWhere::Timestamp => host.search_offset(queue, self.config.consume_timestamp_ms).map_err(|e| describe("search offset", e))?,
            },
        };
        if offset < 0 {
            return Err(format!("unexpected offset {offset}"));
        }
        Ok(StartOffset { offset, from_consume_from })
    }
}
