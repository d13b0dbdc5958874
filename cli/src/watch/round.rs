//! One round of `watch`: which groups, each read by a small pool of workers (each worker one request
//! at a time, so never more requests in flight than workers) and judged with its state carried to
//! the next round. A group that fails keeps its last good verdict, marked stale. A round waits for
//! its reads at most its budget (the interval): a group whose read outlives it (a frozen client's
//! running info costs the broker's 10 s relay timeout) keeps its last verdict until the read ends,
//! is not read again meanwhile, and delays no other group's rounds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rocketmq_rebalance::diagnose::watch::{GroupVerdict, GroupWatch, OwnerChange, QueueStatus, WatchRules};
use rocketmq_rebalance::diagnose::{diagnose_with, parse_snapshot, refused_nan, FindingKind, Snapshot, StrategyOverrides};
use rocketmq_rebalance_remoting::read::{cluster_info, list_groups, read_group_since, Options, Unreachable};
use rocketmq_rebalance_remoting::RequestStats;

/// Which groups a watch judges.
#[derive(Clone, Debug)]
pub enum Groups {
    /// These, whatever the cluster lists.
    Named(Vec<String>),
    /// Every group the brokers have a subscription group for (system groups too if `system`).
    All { system: bool },
    /// Snapshots written by `inspect --save`, each read again every round (group to file): the
    /// cluster is not asked.
    Loaded(BTreeMap<String, String>),
}

/// What a watch is pointed at and how it reads.
pub struct Target {
    pub namesrv: String,
    pub groups: Groups,
    pub topics: Vec<String>,
    pub overrides: StrategyOverrides,
    /// Per request; running info waits for the broker's own relay on top of it.
    pub options: Options,
    pub rules: WatchRules,
    /// Running info is asked at least every this many rounds (and whenever something may have
    /// changed what a client holds, or a queue is not OK).
    pub running_info_every: u64,
    /// Requests in flight at most: the number of workers.
    pub workers: usize,
    /// The `cluster` label; None: the cluster's own name when it has one, else the NameServer.
    pub cluster: Option<String>,
}

/// One group's state across rounds.
#[derive(Default)]
pub struct GroupState {
    watch: GroupWatch,
    last: Option<Snapshot>,
    rounds_since_running_info: u64,
    /// The last good verdict (stale when `error` is set).
    pub verdict: Option<GroupVerdict>,
    pub error: Option<String>,
    pub last_success_ms: Option<i64>,
    /// The latest owner changes, newest last, at most [`RECENT_CHANGES`].
    pub recent_changes: Vec<OwnerChange>,
}

impl GroupState {
    /// The last verdict's findings counted by kind.
    pub fn watch_findings(&self) -> BTreeMap<FindingKind, usize> {
        let mut out = BTreeMap::new();
        for f in self.verdict.iter().flat_map(|v| &v.findings) {
            *out.entry(f.finding.kind).or_default() += 1;
        }
        out
    }
}

/// Owner changes kept per group for the page.
pub const RECENT_CHANGES: usize = 20;

/// Everything a watch knows after a round.
pub struct Watcher {
    pub target: Arc<Target>,
    pub stats: Arc<RequestStats>,
    pub groups: BTreeMap<String, GroupState>,
    pub cluster: String,
    pub rounds: u64,
    pub last_round: Duration,
    /// Why the group list could not be read this round (the last list is kept), if it could not.
    pub discovery_error: Option<String>,
    /// Groups handed to the workers and not back yet (queued or being read).
    pub in_flight: BTreeSet<String>,
    reads: Sender<Read>,
    done: Receiver<Done>,
}

/// A group to read, with what its state says the read needs.
struct Read {
    group: String,
    /// The last snapshot, when this read may reuse its running info (None: ask every client).
    previous: Option<Snapshot>,
}

/// A read's outcome.
struct Done {
    group: String,
    read: Result<Snapshot, String>,
}

impl Watcher {
    pub fn new(mut target: Target) -> Self {
        let stats = Arc::new(RequestStats::default());
        target.options.stats = Some(Arc::clone(&stats));
        target.options.offline_groups = true;
        // A hung broker or NameServer costs one deadline per round, not one per group.
        target.options.unreachable = Some(Arc::new(Unreachable::default()));
        // Each worker asks one client at a time: the workers are the bound on requests in flight.
        target.options.parallel = 1;
        let default = if matches!(target.groups, Groups::Loaded(_)) { "snapshot".to_owned() } else { target.namesrv.clone() };
        let cluster = target.cluster.clone().unwrap_or(default);
        let named = target.cluster.is_some() || matches!(target.groups, Groups::Loaded(_));
        let target = Arc::new(target);
        let (reads, done) = spawn_readers(&target);
        let mut w = Watcher {
            target,
            stats,
            groups: BTreeMap::new(),
            cluster,
            rounds: 0,
            last_round: Duration::ZERO,
            discovery_error: None,
            in_flight: BTreeSet::new(),
            reads,
            done,
        };
        if !named {
            w.name_cluster();
        }
        w
    }

    /// The cluster's name from the NameServer, when it has exactly one cluster.
    fn name_cluster(&mut self) {
        if let Ok(info) = cluster_info(&self.target.namesrv, &self.target.options) {
            if let [only] = info.clusters.keys().collect::<Vec<_>>()[..] {
                self.cluster = only.clone();
            }
        }
    }

    /// Runs one round, waiting for its reads at most `budget` (None: until every read ends);
    /// returns the owner changes it saw (also those of reads that outlived the last round).
    pub fn round(&mut self, budget: Option<Duration>) -> Vec<(String, OwnerChange)> {
        let started = Instant::now();
        self.rounds += 1;
        if let Some(u) = &self.target.options.unreachable {
            u.clear();
        }
        let names = self.group_names();
        // Groups no longer listed are forgotten, with their series.
        self.groups.retain(|g, _| names.contains(g));
        let mut changes = Vec::new();
        // Reads that outlived the last round and ended since.
        while let Ok(done) = self.done.try_recv() {
            self.apply(done, &mut changes);
        }
        let rules = self.target.rules;
        for group in &names {
            // Still being read: it keeps its last verdict and is not asked twice at once.
            if self.in_flight.contains(group) {
                continue;
            }
            let state = self.groups.entry(group.clone()).or_insert_with(|| GroupState { watch: GroupWatch::new(rules), ..GroupState::default() });
            let previous = if asks_clients(&self.target, state) { None } else { state.last.clone() };
            if self.reads.send(Read { group: group.clone(), previous }).is_ok() {
                self.in_flight.insert(group.clone());
            }
        }
        let deadline = budget.map(|b| started + b);
        while !self.in_flight.is_empty() {
            let next = match deadline {
                Some(d) => self.done.recv_timeout(d.saturating_duration_since(Instant::now())).ok(),
                None => self.done.recv().ok(),
            };
            match next {
                Some(done) => self.apply(done, &mut changes),
                None => break,
            }
        }
        changes.sort_by(|a, b| (a.1.at_ms, &a.0).cmp(&(b.1.at_ms, &b.0)));
        self.last_round = started.elapsed();
        changes
    }

    /// A read's outcome judged into its group's state (dropped when the group left meanwhile).
    fn apply(&mut self, done: Done, changes: &mut Vec<(String, OwnerChange)>) {
        self.in_flight.remove(&done.group);
        if let Some(state) = self.groups.get_mut(&done.group) {
            let seen = judge(&self.target, &done.group, state, done.read);
            changes.extend(seen.into_iter().map(|c| (done.group.clone(), c)));
        }
    }

    fn group_names(&mut self) -> BTreeSet<String> {
        match &self.target.groups {
            Groups::Named(names) => names.iter().cloned().collect(),
            Groups::Loaded(files) => files.keys().cloned().collect(),
            Groups::All { system } => match list_groups(&self.target.namesrv, *system, &self.target.options) {
                Ok((groups, failures)) => {
                    self.discovery_error = (!failures.is_empty()).then(|| format!("some brokers did not list their groups: {}", failures.join("; ")));
                    // A broker that did not answer may know groups the others do not: keep those seen before.
                    if failures.is_empty() {
                        groups
                    } else {
                        groups.into_iter().chain(self.groups.keys().cloned()).collect()
                    }
                }
                Err(e) => {
                    self.discovery_error = Some(format!("cannot list the cluster's groups: {e}"));
                    self.groups.keys().cloned().collect()
                }
            },
        }
    }
}

/// Where in the `every`-round cycle a group's periodic running-info refresh falls, from its name:
/// every group's first read asks every client, and were their refreshes not spread out, every
/// `every`th round would ask every client of the cluster again (with 2,000 groups of 10 clients,
/// 20,000 relayed requests in one round).
fn stagger(group: &str, every: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    // DefaultHasher::new() has fixed keys: the same name falls in the same round on every run.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    group.hash(&mut h);
    h.finish() % every.max(1)
}

/// A queue got messages since `last` and its committed offset did not move: a holder that
/// froze or hangs looks exactly like this while its running info is being reused, so the clients
/// are asked again at once rather than after `running_info_every` rounds. (A consumer under
/// traffic commits every 5 s, so at the default 30 s interval a healthy one never triggers it.)
fn stopped_committing(last: &Snapshot, now: &Snapshot) -> bool {
    let before: BTreeMap<_, _> = last.offsets.iter().map(|o| (&o.queue, o)).collect();
    now.offsets.iter().any(|o| before.get(&o.queue).is_some_and(|b| o.broker_offset > b.broker_offset && o.consumer_offset == b.consumer_offset))
}

/// A Go client that refused to encode a NaN statistic answered: it is alive and holds what it
/// held, which its last running info says (stamped with when it was read), rather than nothing,
/// which would make its queues orphaned or its holder down for a round.
fn stand_in_for_nan(snapshot: &mut Snapshot, last: Option<&Snapshot>) {
    let Some(last) = last else { return };
    for c in snapshot.clients.iter_mut().filter(|c| c.running.is_none() && c.error.as_deref().is_some_and(refused_nan)) {
        if let Some(before) = last.clients.iter().find(|b| b.client_id == c.client_id).and_then(|b| b.running.as_ref()) {
            let mut running = before.clone();
            running.read_at_ms.get_or_insert(last.taken_at_ms);
            c.running = Some(running);
            c.error = None;
        }
    }
}

/// The workers: each takes the next group to read, reads it (one request at a time) and hands the
/// outcome back. They end when the watcher, and with it the sender, is dropped.
fn spawn_readers(target: &Arc<Target>) -> (Sender<Read>, Receiver<Done>) {
    let (reads, queue) = mpsc::channel::<Read>();
    let (done_tx, done) = mpsc::channel::<Done>();
    let queue = Arc::new(Mutex::new(queue));
    for _ in 0..target.workers.max(1) {
        let (target, queue, done_tx) = (Arc::clone(target), Arc::clone(&queue), done_tx.clone());
        thread::spawn(move || loop {
            // The lock is held only while waiting for the next read, not while reading.
            let next = queue.lock().map_err(|_| ()).and_then(|q| q.recv().map_err(|_| ()));
            let Ok(Read { group, previous }) = next else { return };
            // A read that panics is that group's error, not a worker gone and its group left
            // waiting for a result forever.
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&target, &group, previous.as_ref())))
                .unwrap_or_else(|_| Err(format!("{group}: the read failed unexpectedly (a bug: please report it)")));
            if done_tx.send(Done { group, read }).is_err() {
                return;
            }
        });
    }
    (reads, done)
}

/// Whether this round's read asks every client for its running info: the first read, a group not
/// settled, or its periodic refresh.
fn asks_clients(target: &Target, state: &GroupState) -> bool {
    let unsettled = state.verdict.as_ref().is_some_and(|v| v.status != QueueStatus::Ok || v.queues.iter().any(|q| q.cause.is_some()));
    state.last.is_none() || unsettled || state.rounds_since_running_info + 1 >= target.running_info_every.max(1)
}

/// Reads one group, reusing `previous`'s running info when given.
fn read(target: &Target, group: &str, previous: Option<&Snapshot>) -> Result<Snapshot, String> {
    let read_once = |previous: Option<&Snapshot>| match &target.groups {
        Groups::Loaded(files) => files.get(group).map_or_else(|| Err(format!("{group}: no snapshot file")), |f| load(f)),
        _ => read_group_since(&target.namesrv, group, &target.topics, &target.options, previous).map_err(|e| e.to_string()),
    };
    let read = read_once(previous);
    // Running info reused while a holder stopped committing: ask the clients now, in this round,
    // so that a frozen or hung member is named at once rather than `running_info_every` rounds on.
    if let (Ok(snapshot), Some(last)) = (&read, previous) {
        if stopped_committing(last, snapshot) {
            return read_once(None);
        }
    }
    read
}

/// Judges one group's read into its state; the owner changes seen.
fn judge(target: &Target, group: &str, state: &mut GroupState, read: Result<Snapshot, String>) -> Vec<OwnerChange> {
    match read {
        Ok(mut snapshot) => {
            let asked = snapshot.clients.iter().all(|c| c.running.as_ref().is_none_or(|r| r.read_at_ms.is_none()));
            state.rounds_since_running_info = match (asked, state.last.is_none()) {
                (true, true) => stagger(group, target.running_info_every),
                (true, false) => 0,
                (false, _) => state.rounds_since_running_info + 1,
            };
            stand_in_for_nan(&mut snapshot, state.last.as_ref());
            let d = diagnose_with(&snapshot, &target.overrides);
            let verdict = state.watch.observe(&snapshot, &d);
            let changes = verdict.changes.clone();
            state.recent_changes.extend(changes.iter().cloned());
            let excess = state.recent_changes.len().saturating_sub(RECENT_CHANGES);
            state.recent_changes.drain(..excess);
            state.verdict = Some(verdict);
            state.error = None;
            state.last_success_ms = Some(snapshot.taken_at_ms);
            state.last = Some(snapshot);
            changes
        }
        Err(e) => {
            state.error = Some(e);
            Vec::new()
        }
    }
}

/// A snapshot file, read now.
pub fn load(file: &str) -> Result<Snapshot, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    parse_snapshot(&text).map_err(|e| format!("{file}: {e}"))
}

#[cfg(test)]
mod tests {
    use rocketmq_rebalance::diagnose::QueueOffsets;
    use rocketmq_rebalance::MessageQueue;

    use super::*;

    fn offsets(pairs: &[(i64, i64)]) -> Snapshot {
        let offsets = pairs
            .iter()
            .enumerate()
            .map(|(i, &(consumer_offset, broker_offset))| QueueOffsets { queue: MessageQueue::new("T", "broker-a", i as i32), consumer_offset, broker_offset })
            .collect();
        Snapshot { offsets, ..Snapshot::default() }
    }

    #[test]
    fn a_go_client_refusing_a_nan_keeps_its_last_running_info() {
        use rocketmq_rebalance::diagnose::{ClientState, RunningState};
        let client = |running: Option<RunningState>, error: Option<&str>| ClientState { client_id: "go@1".into(), running, error: error.map(Into::into) };
        let last = Snapshot { taken_at_ms: 1_000, clients: vec![client(Some(RunningState::default()), None)], ..Snapshot::default() };
        let nan = "json marshal error: json: unsupported value: NaN";
        let mut now = Snapshot { clients: vec![client(None, Some(nan))], ..Snapshot::default() };
        stand_in_for_nan(&mut now, Some(&last));
        assert_eq!(now.clients[0].running.as_ref().and_then(|r| r.read_at_ms), Some(1_000));
        assert_eq!(now.clients[0].error, None);
        // A client that did not answer at all is not stood in for: it may be down.
        let mut now = Snapshot { clients: vec![client(None, Some("timeout, 10000(ms)"))], ..Snapshot::default() };
        stand_in_for_nan(&mut now, Some(&last));
        assert!(now.clients[0].running.is_none());
    }

    #[test]
    fn periodic_refreshes_are_spread_over_the_cycle() {
        let mut per_round = [0usize; 10];
        for n in 0..1000 {
            per_round[stagger(&format!("g{n}"), 10) as usize] += 1;
        }
        // 100 a round if spread evenly: every round gets some, none more than twice its share.
        assert!(per_round.iter().all(|&n| n > 0 && n < 200), "{per_round:?}");
        assert_eq!(stagger("g1", 10), stagger("g1", 10));
        assert_eq!(stagger("g1", 0), 0);
    }

    #[test]
    fn a_queue_that_got_messages_and_no_commit_asks_the_clients_again() {
        // Queue 1 got 5 messages and its commit stayed at 10: its holder may have stopped.
        assert!(stopped_committing(&offsets(&[(0, 0), (10, 10)]), &offsets(&[(0, 0), (10, 15)])));
        // Messages and a commit, or neither: nothing to ask.
        assert!(!stopped_committing(&offsets(&[(0, 0), (10, 10)]), &offsets(&[(0, 0), (12, 15)])));
        assert!(!stopped_committing(&offsets(&[(0, 0), (10, 10)]), &offsets(&[(0, 0), (10, 10)])));
        // A queue new since the last read is compared with nothing.
        assert!(!stopped_committing(&offsets(&[(0, 0)]), &offsets(&[(0, 0), (10, 15)])));
    }
}
