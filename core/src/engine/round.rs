//! The round: compute the allocation, then release and acquire (`rebalanceByTopic` and
//! `updateProcessQueueTableInRebalance`).

use std::collections::{BTreeMap, BTreeSet};

use super::host::report_callback_failures;
use super::joint::JointShare;
use super::report::{ReleaseReason, RoundReport, RoundSkipped, Warning};
use super::view::TopicView;
use super::{Host, MessageModel, Rebalancer, RETRY_TOPIC_PREFIX};
use crate::error::Result;
use crate::java_order;
use crate::queue::MessageQueue;

impl Rebalancer {
    /// One round for one topic. See the module documentation for the differences between modes.
    /// The strategy is asked for this topic alone, as RebalanceImpl does, even when it balances
    /// across topics: [`Rebalancer::rebalance_all`] asks such a strategy for all topics at once.
    pub fn rebalance_topic(
        &mut self,
        topic: &str,
        queues: Option<&[MessageQueue]>,
        client_ids: Option<&[String]>,
        now_ms: u64,
        host: &mut dyn Host,
    ) -> Result<RoundReport> {
        self.enter(now_ms)?;
        Ok(self.round(topic, queues, client_ids, None, now_ms, host))
    }

    /// The round, with this topic's share already computed by a joint call (`given`) or not. The
    /// failures of callbacks that return nothing go on this topic's report, whatever round comes
    /// next.
    fn round(
        &mut self,
        topic: &str,
        queues: Option<&[MessageQueue]>,
        client_ids: Option<&[String]>,
        given: Option<JointShare>,
        now_ms: u64,
        host: &mut dyn Host,
    ) -> RoundReport {
        let mut report = self.round_steps(topic, queues, client_ids, given, now_ms, host);
        report_callback_failures(host, &mut report.warnings);
        report
    }

    fn round_steps(
        &mut self,
        topic: &str,
        queues: Option<&[MessageQueue]>,
        client_ids: Option<&[String]>,
        given: Option<JointShare>,
        now_ms: u64,
        host: &mut dyn Host,
    ) -> RoundReport {
        let mut report = RoundReport { topic: topic.to_owned(), balanced: true, ..RoundReport::default() };
        let Some(queues) = queues else {
            // Java tells the listener "nothing" although it released nothing (fix 8).
            if !self.safe() && !topic.starts_with(RETRY_TOPIC_PREFIX) {
                host.queue_set_changed(topic, &[], &[]);
            }
            report.skipped_round = Some(RoundSkipped::RouteUnknown);
            return report;
        };
        // The route is a set in Java: duplicates collapse, then the list is sorted.
        let mq_all: Vec<MessageQueue> = queues.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect();
        let (target, lock) = match self.config.model {
            MessageModel::Broadcasting => (mq_all.iter().cloned().collect::<BTreeSet<_>>(), false),
            MessageModel::Clustering => {
                let Some(ids) = client_ids else {
                    report.skipped_round = Some(RoundSkipped::ClientIdsUnavailable);
                    return report;
                };
                match self.allocation(&mq_all, ids, given, &mut report) {
                    Some(target) => (target, self.config.locks_queues()),
                    None => {
                        report.balanced = false;
                        return report;
                    }
                }
            }
        };
        report.allocation = target.iter().cloned().collect();
        let stand_down = self.stood_down(&report);
        // Standing down, this client holds nothing although the strategy gives it a share: the
        // listener hears what it holds, and the round is unbalanced until the ids differ.
        let target = if stand_down {
            report.warnings.push(Warning::StoodDown);
            BTreeSet::new()
        } else {
            target
        };

        let released = self.release_phase(topic, &target, now_ms, host, &mut report, stand_down);
        let acquired = self.acquire_phase(topic, &target, lock, now_ms, host, &mut report);
        report.changed = released || acquired;
        if report.changed {
            let intended: Vec<MessageQueue> = target.iter().cloned().collect();
            host.queue_set_changed(topic, &mq_all, &intended);
        }
        let working: BTreeSet<&MessageQueue> = self.table.iter().filter(|(q, e)| &*q.topic == topic && !e.dropped()).map(|(q, _)| q).collect();
        report.balanced = !stand_down && working.len() == target.len() && target.iter().all(|q| working.contains(q));
        self.retry_deferred_early(&report, host);
        report
    }

    /// A release waits under the consume lock or for a retry: ask for the next round early rather
    /// than in 20 s, so the handoff completes sooner (fix 17). Every call that can defer a release
    /// (a round, the clean-up of unsubscribed topics, `drop_queue`) ends here.
    pub(super) fn retry_deferred_early(&self, report: &RoundReport, host: &mut dyn Host) {
        if self.safe() && !report.deferred.is_empty() && self.config.timing.deferred_retry_ms > 0 {
            host.schedule_rebalance(self.config.timing.deferred_retry_ms);
        }
    }

    /// Sorts like `RebalanceImpl`, runs the strategy (unless a joint call already did), and notes
    /// what is wrong with the id list.
    fn allocation(&self, mq_all: &[MessageQueue], ids: &[String], given: Option<JointShare>, report: &mut RoundReport) -> Option<BTreeSet<MessageQueue>> {
        let mut cid_all = ids.to_vec();
        java_order::sort_client_ids(&mut cid_all);
        let duplicates = duplicated(&cid_all);
        if !duplicates.is_empty() {
            report.warnings.push(Warning::DuplicateClientIds(duplicates));
        }
        if !cid_all.contains(&self.config.client_id) {
            report.warnings.push(Warning::ClientIdAbsent);
        }
        let share = match given {
            Some(share) => share,
            None => self
                .strategy
                .allocate(&self.config.group, &self.config.client_id, mq_all, &cid_all)
                .map(|mine| mine.into_iter().collect())
                .map_err(|e| format!("{}: {e}", e.java_exception())),
        };
        share.map_err(|failure| report.skipped_round = Some(RoundSkipped::StrategyFailed(failure))).ok()
    }

    /// Safe mode, orderly: our own id listed twice means another process shares our broker lock.
    fn stood_down(&self, report: &RoundReport) -> bool {
        self.safe()
            && self.config.locks_queues()
            && report.warnings.iter().any(|w| matches!(w, Warning::DuplicateClientIds(ids) if ids.contains(&self.config.client_id)))
    }

    /// One round per subscribed topic (views of topics missing from `views` count as unknown),
    /// then the clean-up of queues whose topic is no longer subscribed. A strategy that balances
    /// across topics is asked once for all topics that share an id list (see `engine::joint`).
    pub fn rebalance_all(&mut self, views: &BTreeMap<String, TopicView>, now_ms: u64, host: &mut dyn Host) -> Result<Vec<RoundReport>> {
        self.enter(now_ms)?;
        let topics: Vec<String> = self.subscriptions.iter().cloned().collect();
        let mut joint = self.joint_shares(&topics, views);
        let mut reports: Vec<RoundReport> = topics
            .iter()
            .map(|topic| {
                let view = views.get(topic);
                let queues = view.and_then(|v| v.queues.as_deref());
                let ids = view.and_then(|v| v.client_ids.as_deref());
                self.round(topic, queues, ids, joint.remove(topic), now_ms, host)
            })
            .collect();
        if let Some(cleanup) = self.truncate_unsubscribed(now_ms, host) {
            reports.push(cleanup);
        }
        Ok(reports)
    }

    /// `truncateMessageQueueNotMyTopic`. Java drops the queues without committing or unlocking;
    /// safe mode releases them properly (fix 4).
    fn truncate_unsubscribed(&mut self, now_ms: u64, host: &mut dyn Host) -> Option<RoundReport> {
        let stale: Vec<MessageQueue> = self.table.queues().filter(|q| !self.subscriptions.contains(&*q.topic)).cloned().collect();
        if stale.is_empty() {
            return None;
        }
        let mut report = RoundReport { topic: String::new(), changed: true, balanced: true, ..RoundReport::default() };
        for queue in stale {
            if self.safe() {
                self.release_queue(&queue, ReleaseReason::Unsubscribed, now_ms, host, &mut report);
            } else if let Some(entry) = self.table.remove(&queue) {
                report.released.push(super::Released::new(queue, entry.generation(), ReleaseReason::Unsubscribed));
            }
        }
        // Balanced only once every queue of the unsubscribed topics is gone.
        report.balanced = report.deferred.is_empty();
        self.retry_deferred_early(&report, host);
        report_callback_failures(host, &mut report.warnings);
        Some(report)
    }
}

/// Ids that occur more than once in a sorted list.
fn duplicated(sorted: &[String]) -> Vec<String> {
    let mut out: Vec<String> = sorted.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0].clone()).collect();
    out.dedup();
    out
}
