//! Where a failing callback that returns nothing is reported: on the report of the round (topic)
//! or call that made it, never on another's, and not at all after the call that made it.

use super::*;
use crate::engine::{CallbackFailure, CallbackLog};

/// `Script`, with the bookkeeping a binding's host keeps: `dispatch_pull` fails for the queues of
/// `failing_topic`, `remove_offset` for every queue while `failing_remove`, and
/// `queue_set_changed` stops the whole call for `failing_notice`.
#[derive(Default)]
struct Failing {
    inner: Script,
    log: CallbackLog,
    failing_topic: Option<String>,
    failing_notice: Option<String>,
    failing_remove: bool,
}

impl Host for Failing {
    fn lock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<Vec<MessageQueue>, HostError> {
        self.log.call("lock", || self.inner.lock(broker, queues).map_err(CallbackFailure::Step))
    }
    fn unlock(&mut self, broker: &str, queues: &[MessageQueue]) -> Result<(), HostError> {
        self.log.call("unlock", || self.inner.unlock(broker, queues).map_err(CallbackFailure::Step))
    }
    fn read_offset(&mut self, queue: &MessageQueue, from: ReadFrom) -> Result<OffsetRead, HostError> {
        self.log.call("read_offset", || self.inner.read_offset(queue, from).map_err(CallbackFailure::Step))
    }
    fn persist_offset(&mut self, queue: &MessageQueue) -> Result<(), HostError> {
        self.log.call("persist_offset", || self.inner.persist_offset(queue).map_err(CallbackFailure::Step))
    }
    fn remove_offset(&mut self, queue: &MessageQueue) {
        let fails = self.failing_remove;
        self.log.call_void("remove_offset", || {
            self.inner.remove_offset(queue);
            if fails {
                Err(CallbackFailure::Step(HostError::new(format!("cannot forget {}", short(queue)))))
            } else {
                Ok(())
            }
        });
    }
    fn max_offset(&mut self, queue: &MessageQueue) -> Result<i64, HostError> {
        self.log.call("max_offset", || self.inner.max_offset(queue).map_err(CallbackFailure::Step))
    }
    fn search_offset(&mut self, queue: &MessageQueue, ts: i64) -> Result<i64, HostError> {
        self.log.call("search_offset", || self.inner.search_offset(queue, ts).map_err(CallbackFailure::Step))
    }
    fn try_consume_lock(&mut self, queue: &MessageQueue, generation: u64, wait: u64) -> bool {
        self.inner.try_consume_lock(queue, generation, wait)
    }
    fn release_consume_lock(&mut self, queue: &MessageQueue, generation: u64) {
        self.inner.release_consume_lock(queue, generation);
    }
    fn dispatch_pull(&mut self, queue: &MessageQueue, offset: i64, delay: u64, generation: u64) {
        let fails = self.failing_topic.as_deref() == Some(&*queue.topic);
        self.log.call_void("dispatch_pull", || {
            self.inner.dispatch_pull(queue, offset, delay, generation);
            if fails {
                Err(CallbackFailure::Step(HostError::new(format!("no pull thread for {}", short(queue)))))
            } else {
                Ok(())
            }
        });
    }
    fn queue_set_changed(&mut self, topic: &str, all: &[MessageQueue], divided: &[MessageQueue]) {
        let fails = self.failing_notice.as_deref() == Some(topic);
        self.log.call_void("queue_set_changed", || {
            self.inner.queue_set_changed(topic, all, divided);
            if fails {
                Err(CallbackFailure::Stop(HostError::new("interrupted")))
            } else {
                Ok(())
            }
        });
    }
    fn schedule_rebalance(&mut self, delay: u64) {
        self.inner.schedule_rebalance(delay);
    }
    fn take_callback_failures(&mut self) -> Vec<HostError> {
        self.log.take_failures()
    }
}

fn failures(report: &RoundReport) -> Vec<&str> {
    report.warnings.iter().filter_map(|w| if let Warning::CallbackFailed(m) = w { Some(m.as_str()) } else { None }).collect()
}

fn views(topics: &[&str]) -> BTreeMap<String, TopicView> {
    topics.iter().map(|t| (t.to_string(), TopicView { queues: Some(queues(t, 2)), client_ids: Some(ids(&["c1"])) })).collect()
}

#[test]
fn a_failed_dispatch_pull_of_topic_a_is_on_a_report_and_nowhere_else() {
    for semantics in BOTH {
        let mut r = rebalancer(semantics, false);
        for t in ["A", "M", "Z"] {
            r.subscribe(t).unwrap();
        }
        let mut host = Failing { failing_topic: Some("A".into()), ..Failing::default() };
        let reports = r.rebalance_all(&views(&["A", "M", "Z"]), 0, &mut host).unwrap();
        let by_topic: Vec<(&str, Vec<&str>)> = reports.iter().map(|r| (r.topic.as_str(), failures(r))).collect();
        assert_eq!(
            by_topic,
            [("A", vec!["dispatch_pull: no pull thread for b:0", "dispatch_pull: no pull thread for b:1"]), ("M", vec![]), ("Z", vec![])],
            "{semantics:?}"
        );
        assert!(host.log.take_failures().is_empty(), "every failure was handed over once");
    }
}

#[test]
fn failures_of_the_clean_up_of_an_unsubscribed_topic_go_on_its_own_report() {
    let mut r = rebalancer(Semantics::Safe, false);
    r.subscribe("A").unwrap();
    r.subscribe("Z").unwrap();
    let mut host = Failing::default();
    r.rebalance_all(&views(&["A", "Z"]), 0, &mut host).unwrap();
    r.unsubscribe("A").unwrap();
    host.failing_remove = true;
    let reports = r.rebalance_all(&views(&["Z"]), 1_000, &mut host).unwrap();
    assert_eq!(reports.len(), 2, "Z's round, then the clean-up of A");
    assert_eq!(reports[0].topic, "Z");
    assert!(failures(&reports[0]).is_empty(), "Z changed nothing and called nothing that failed");
    assert_eq!(reports[1].released.len(), 2);
    assert_eq!(failures(&reports[1]), ["remove_offset: cannot forget b:0", "remove_offset: cannot forget b:1"]);
}

#[test]
fn a_stop_refuses_the_rest_of_the_call_and_the_table_stays_defined() {
    let mut r = rebalancer(Semantics::Safe, false);
    r.subscribe("A").unwrap();
    r.subscribe("Z").unwrap();
    // A's notice stops the call: Z's round then runs without a single callback reaching the host.
    let mut host = Failing { failing_notice: Some("A".into()), ..Failing::default() };
    let reports = r.rebalance_all(&views(&["A", "Z"]), 0, &mut host).unwrap();
    assert!(host.log.is_stopped());
    assert_eq!(failures(&reports[0]), ["queue_set_changed: interrupted"]);
    assert!(reports[1].acquired.is_empty() && !reports[1].skipped.is_empty(), "Z's start offsets could not be read");
    assert!(host.inner.log.iter().all(|l| !l.contains('Z')), "no callback for Z reached the host: {:?}", host.inner.log);
    // The next call (a new log, as bindings make one per call) repairs what was skipped.
    host.log = CallbackLog::default();
    host.failing_notice = None;
    let again = r.rebalance_all(&views(&["A", "Z"]), 1_000, &mut host).unwrap();
    assert_eq!(again[1].acquired.len(), 2);
}

#[test]
fn each_call_reports_the_failures_of_its_own_callbacks() {
    let mut r = rebalancer(Semantics::Safe, false);
    let mut host = Failing { failing_topic: Some("A".into()), ..Failing::default() };
    let round = r.rebalance_topic("A", Some(&queues("A", 1)), Some(&ids(&["c1"])), 0, &mut host).unwrap();
    assert_eq!(failures(&round), ["dispatch_pull: no pull thread for b:0"]);
    let locks = r.lock_all(1, &mut host).unwrap();
    assert!(locks.warnings.is_empty(), "the round's failure is not carried into the next call");
    host.failing_remove = true;
    let dropped = r.drop_queue(&queues("A", 1)[0], 2, &mut host).unwrap();
    assert_eq!(failures(&dropped), ["remove_offset: cannot forget b:0"]);
    let shutdown = r.shutdown(&mut host);
    assert!(failures(&shutdown).is_empty(), "nothing was left to release");
}
