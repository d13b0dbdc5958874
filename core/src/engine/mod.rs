//! The rebalance round of `RebalanceImpl`, as an I/O-free engine driven through a [`Host`].
//!
//! A [`Rebalancer`] is one client's view: its configuration, its strategy, its subscriptions and
//! its table of held queues. Each call takes `now` (milliseconds) and a host, performs the round's
//! decisions through the host's callbacks, and returns a report of what happened.
//!
//! Two [`Semantics`]. `Java` makes the decisions of the RocketMQ 5.3.2/5.3.3 push consumer
//! (`RebalancePushImpl`), flaws included; the differences that remain are listed under "Java
//! mode" below. `Safe` (the default) makes the same decisions, and fixes the places where Java
//! breaks its own invariants:
//!
//! 1. A broker lock taken while acquiring a queue is released when its start offset cannot be
//!    computed (Java keeps it until the broker expires it, 60 s).
//! 2. An orderly queue is never unlocked while its consume callback is still running (Java forces
//!    the unlock 20 s after the last renewal, and a second client starts consuming).
//! 3. Releasing an orderly queue whose offset cannot be committed is deferred, lock kept, and
//!    retried (Java unlocks anyway, and the next owner replays from the older offset).
//! 4. Clean-up of unsubscribed topics commits offsets and unlocks (Java drops the queues only).
//! 5. Shutdown releases orderly queues like a round does: under the consume lock, commit first,
//!    unlock only after a commit (Java unlocks first, while listener calls may run, and leaves
//!    its dropped queues locked). What cannot be released yet is reported deferred and stays
//!    locked; calling `shutdown` again finishes it, or the broker's expiry frees it.
//! 6. A dropped queue assigned to us again is released and re-acquired with a new generation
//!    (Java leaves the dead state in its table until the pull expires, 120 s).
//! 7. When this client's own id is listed twice (two processes, one id), it takes no orderly queue
//!    of the topic: the broker cannot tell the two apart, so both would consume.
//! 8. No "empty" queue-set notification when a route is unknown: nothing was released.
//! 9. Lock renewal (`lock_all`) includes queues whose release is deferred, so a listener call
//!    still running keeps its broker lock (Java stops renewing them and the broker's lock
//!    expires under the running call after 60 s).
//! 10. An orderly release whose unlock fails stays deferred and retries the unlock next round
//!     (Java's unlock is one-way: when it is lost, the next owner waits for the broker's 60 s
//!     expiry).
//! 11. A shut-down rebalancer refuses every further call that changes it but `shutdown` (and, in
//!     safe mode, `lock_all`) with [`Error::ShutDown`]; the read-only calls still answer;
//!     Java's racing rebalance could re-take and lock queues after shutdown.
//! 12. A queue whose broker lock is known lost (a renewal refused, [`Rebalancer::locks_lost`], or
//!     no renewal for `broker_lock_expiry_ms`) is released without committing or unlocking: by
//!     then another client may own it and have committed further (Java commits, and the offset
//!     moves back). The release still waits under the consume lock for a running listener call,
//!     and `lock_all` asks for the lock again meanwhile, so neither this client's fresh start of
//!     the queue nor another client's joins that call, and a `locks_lost` after a blip (the broker
//!     kept its table) leaves a protected handoff protected.
//! 13. A lost lock is never resumed: the state is dropped at once (nothing more is consumed from
//!     it) and the next round, which safe mode asks for early, starts a new generation that reads
//!     the committed offset (Java's `lockOneMQ` and `lockAll` resume the old state from its stale
//!     position).
//! 14. A start offset chosen by `consume_from` (no committed offset) is committed before the
//!     queue's first pull (`Host::commit_offset`), so a queue is started once per group (Java
//!     applies `consume_from` again when a queue moves before its first commit, and skips
//!     messages).
//! 15. `rebalance_all` with a cross-topic strategy keeps a topic whose current view is missing in
//!     its joint call (its last route; the id list that the topics that shared its last list and
//!     have a current one agree on, else its last list), so one topic's failed fetch does not move
//!     the others, even right after a join (Java isolates a failed fetch to its topic; a joint
//!     call must do the same).
//! 16. A release deferred for `release_give_up_ms` (a hung listener, an offset store that keeps
//!     failing) is given up instead of renewing its lock forever; every round reports how long
//!     each deferred release has waited. A queue given up while its listener call still runs is
//!     never unlocked until that call has ended, whatever a later round decides (a re-acquisition
//!     that fails leaves the lock to the broker's expiry instead of giving it back under the call).
//! 17. A deferred release (in a round, in the clean-up of unsubscribed topics or in `drop_queue`) or
//!     a lost lock asks the host for an early round (`deferred_retry_ms`)
//!     instead of waiting 20 s for the periodic one.
//! 18. `locks_lost` asks the restarted broker at once for the locks of the states it drops, so a
//!     listener call that ran across the restart is fenced before the next owner's round.
//! 19. A lock call that fails during acquisition is followed by an unlock of its queues: its
//!     answer may have been lost after the broker granted it (a one-way partition).
//!
//! Both modes report duplicate and missing client ids, iterate queues in sorted order (Java
//! iterates hash maps) and key every queue state by a generation ([`QueueState`]).
//!
//! Java mode reproduces, besides the fixed flaws: `lockOneMQ` through [`Rebalancer::lock_queue`]
//! (the host calls it as `ConsumeMessageOrderlyService` does, for a queue found unlocked or
//! expired), and the lite-pull consumer's no-op `dispatchPullRequest` (a pull consumer in Java
//! mode gets no `dispatch_pull`; its pull task computes its own offset with
//! [`Rebalancer::start_offset`]). It does not reproduce: pull requests dispatched after the loop
//! instead of inside it (the order of callbacks within a round differs, not the decisions); the
//! empty notification for an unknown route of a retry topic in broadcasting; `remove_offset` of
//! every queue at shutdown (Java's `persistAll` then `unregister`); and `lock_all` is offered
//! to every consumer, where Java runs it for orderly clustering consumers only. 5.3.0/5.3.1
//! also lock in broadcasting and query assignments from the broker: not modelled.
//!
//! RocketMQ 5.5.0 (the newest on Maven Central) changes `rebalanceByTopic` in three places, none
//! followed here yet: an *empty* route counts as unknown (the empty notification, no strategy
//! call; here it is a strategy failure, no notification), an *empty* id list counts as a failed
//! fetch (the round stays "balanced"; here it is a strategy failure, unbalanced), and the id list
//! is fetched only once the route is known. Its `lockAll` batches by the broker that serves a
//! queue (`getBrokerNameFromMessageQueue`, for static topics); here by the queue's broker name, so
//! a host with static topics maps the name in `lock`. The allocation strategies did not change
//! (the committed vectors are reproduced by 5.5.0, and by 5.4.0 when checked on 2026-12-01 with
//! `tests/vectors/run.sh --client 5.4.0`).

mod acquire;
mod config;
mod host;
mod joint;
mod locks;
mod reentry;
mod release;
mod report;
mod round;
mod session;
mod state;
mod view;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use acquire::StartOffset;
pub use config::{ConsumeFromWhere, ConsumeType, MessageModel, RebalanceConfig, Semantics, Timing};
pub use host::{Host, HostError, OffsetRead, ReadFrom};
pub use reentry::ReentryGuard;
pub use report::{Acquired, DeferReason, Deferred, LockReport, ReleaseReason, Released, RoundReport, RoundSkipped, SkipReason, Skipped, Warning};
pub use session::{CallbackFailure, CallbackLog, Entered, Session};
pub use state::{ConsumeView, QueueState};
pub use view::TopicView;

use crate::error::{Error, Result};
use crate::queue::MessageQueue;
use crate::strategy::Strategy;

/// `%RETRY%<group>` topics start from 0 (LAST) or max (TIMESTAMP) and get no "route unknown"
/// notification.
pub const RETRY_TOPIC_PREFIX: &str = "%RETRY%";

/// One client's rebalancing state. Not thread-safe by itself (`&mut self`): a client runs its
/// rounds on one thread, as `RebalanceService` does; wrap it in a mutex to share it, and give
/// consume threads a [`ConsumeView`], which never waits for a running round.
#[derive(Debug)]
pub struct Rebalancer {
    config: RebalanceConfig,
    strategy: Arc<dyn Strategy>,
    subscriptions: BTreeSet<String>,
    table: state::Table,
    next_generation: u64,
    /// The last complete view of each topic, for joint rounds (fix 15).
    last_views: BTreeMap<String, TopicView>,
    shut_down: bool,
    /// The latest `now_ms` any call was given (shutdown takes no clock).
    last_now_ms: u64,
    /// Queues whose release was given up while a listener call still ran (fix 16), with the given-up
    /// state's generation: none of them is unlocked until that call is seen to have ended.
    abandoned: BTreeMap<MessageQueue, u64>,
}

impl Rebalancer {
    pub fn new(config: RebalanceConfig, strategy: Arc<dyn Strategy>) -> Result<Self> {
        config.validate()?;
        let table = state::Table::new(config.locks_queues(), config.timing.lock_valid_ms);
        Ok(Rebalancer {
            config,
            strategy,
            subscriptions: BTreeSet::new(),
            table,
            next_generation: 1,
            last_views: BTreeMap::new(),
            shut_down: false,
            last_now_ms: 0,
            abandoned: BTreeMap::new(),
        })
    }

    pub fn config(&self) -> &RebalanceConfig {
        &self.config
    }

    pub fn strategy(&self) -> &Arc<dyn Strategy> {
        &self.strategy
    }

    pub fn subscribe(&mut self, topic: impl Into<String>) -> Result<()> {
        self.running()?;
        self.subscriptions.insert(topic.into());
        Ok(())
    }

    /// The topic's queues are released at the next [`Rebalancer::rebalance_all`].
    pub fn unsubscribe(&mut self, topic: &str) -> Result<()> {
        self.running()?;
        self.subscriptions.remove(topic);
        Ok(())
    }

    pub fn subscriptions(&self) -> impl Iterator<Item = &str> {
        self.subscriptions.iter().map(String::as_str)
    }

    /// Every held queue (dropped ones included, until their release completes), in Java order,
    /// with a snapshot of its state.
    pub fn held(&self) -> impl Iterator<Item = (&MessageQueue, QueueState)> + '_ {
        self.table.iter().map(|(q, e)| (q, self.table.snapshot(e)))
    }

    pub fn state(&self, queue: &MessageQueue) -> Option<QueueState> {
        self.table.get(queue).map(|e| self.table.snapshot(e))
    }

    /// The consume service's view: `is_consumable` and `record_pull` from any thread, without
    /// waiting for a running round.
    pub fn consume_view(&self) -> ConsumeView {
        self.table.view().clone()
    }

    /// See [`ConsumeView::is_consumable`].
    pub fn is_consumable(&self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        self.table.view().is_consumable(queue, generation, now_ms)
    }

    /// See [`ConsumeView::record_pull`].
    pub fn record_pull(&self, queue: &MessageQueue, generation: u64, now_ms: u64) -> bool {
        self.table.view().record_pull(queue, generation, now_ms)
    }

    /// Whether `shutdown` was called.
    pub fn is_shut_down(&self) -> bool {
        self.shut_down
    }

    fn running(&self) -> Result<()> {
        if self.shut_down {
            Err(Error::ShutDown)
        } else {
            Ok(())
        }
    }

    fn safe(&self) -> bool {
        self.config.semantics == Semantics::Safe
    }
}

#[cfg(test)]
mod tests;
