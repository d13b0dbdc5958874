//! The seeded scheduler: one-second ticks of simulated time, scripted events and random faults,
//! the producer, each consumer's timers, and the checks after every tick.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rocketmq_rebalance::engine::{Semantics, TopicView};
use rocketmq_rebalance::{MessageQueue, Strategy, StrategyConfig};

use crate::check::{Checks, Summary};
use crate::consumer::{
    Call, GroupClient, Process, SimHost, LOCK_ONE_RETRY_MS, LOCK_RENEW_MS, ORDERLY_BATCH, PERSIST_INTERVAL_MS, PULL_BATCH, REBALANCE_INTERVAL_MS,
    UNBALANCED_RETRY_MS,
};
use crate::scenario::{EventKind, Scenario};
use crate::world::{broker_name, Topic, World};

pub use crate::time::TICK_MS;
/// Convergence is checked once views have agreed this long: 2 rounds, plus 5 s of slack.
pub const CONVERGENCE_AFTER_MS: u64 = 2 * REBALANCE_INTERVAL_MS + 5_000;

/// A queue and the consumer instances that can consume it.
pub type QueueOwners = (MessageQueue, Vec<usize>);

/// What the CLI prints round by round: every 20 s of simulated time, and whenever events fire.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub t_ms: u64,
    pub events: Vec<String>,
    /// Per topic: each queue and the instances that can consume it now.
    pub owners: Vec<(String, Vec<QueueOwners>)>,
    /// Queues whose owners changed since the previous snapshot.
    pub moved: usize,
    /// Orderly queues with a listener call running now, and whose: a consumer that lost a queue
    /// while its call runs still consumes it, which the owners alone would hide.
    pub running: BTreeMap<MessageQueue, Vec<usize>>,
    /// Brokers that are down now.
    pub brokers_down: Vec<String>,
    /// The client id of every instance so far (instance = index).
    pub clients: Vec<String>,
    /// Orderly exclusivity broken since the previous snapshot, explained.
    pub breaches: Vec<String>,
}

pub(crate) struct Sim<'a> {
    pub(crate) scenario: &'a Scenario,
    pub(crate) semantics: Semantics,
    pub(crate) world: World,
    pub(crate) strategy: Arc<dyn Strategy>,
    pub(crate) processes: Vec<Process>,
    pub(crate) pending_unregister: Vec<(u64, usize)>,
    /// Partitioned processes register again when they can reach the brokers.
    pub(crate) pending_register: Vec<(u64, usize)>,
    /// Brokers down at the previous tick (a broker coming back is signalled to the engines).
    broker_was_down: Vec<bool>,
    pub(crate) quiet_since: u64,
    convergence_checked: bool,
    pub(crate) events: Vec<String>,
}

/// Runs one scenario with one seed. `observer` sees a [`Snapshot`] every 20 s and on events.
pub fn run(scenario: &Scenario, seed: u64, semantics: Semantics, mut observer: Option<&mut dyn FnMut(&Snapshot)>) -> Summary {
    let strategy = StrategyConfig::from_name(&scenario.strategy, &scenario.strategy_params)
        .and_then(|c| c.build())
        .expect("scenario strategies are validated when parsed");
    let mut world = World {
        now: 0,
        rng: ChaCha8Rng::seed_from_u64(seed),
        broker_down_until: vec![0; scenario.brokers],
        topics: scenario.topics.iter().map(|t| Topic { name: t.name.clone(), orderly: t.orderly, queues: Vec::new() }).collect(),
        log: BTreeMap::new(),
        committed: BTreeMap::new(),
        locks: BTreeMap::new(),
        registry: Vec::new(),
        registry_history: Vec::new(),
        call_failure: 0.0,
        lost_lock_answer: 0.0,
        checks: Checks::default(),
    };
    for (i, t) in scenario.topics.iter().enumerate() {
        world.add_queues(i, scenario.brokers, t.queues_per_broker, scenario.new_queues_committed);
    }
    world.checks.summary.scenario = scenario.name.clone();
    world.checks.summary.seed = seed;
    world.checks.summary.semantics = format!("{semantics:?}").to_lowercase();
    let mut sim = Sim {
        scenario,
        semantics,
        world,
        strategy,
        processes: Vec::new(),
        pending_unregister: Vec::new(),
        pending_register: Vec::new(),
        broker_was_down: vec![false; scenario.brokers],
        quiet_since: 0,
        convergence_checked: false,
        events: Vec::new(),
    };
    for _ in 0..scenario.initial_consumers {
        sim.join(None);
    }
    sim.events.clear();
    let end = (scenario.length_s + scenario.drain_s) * 1_000;
    let mut previous: BTreeMap<MessageQueue, Vec<usize>> = BTreeMap::new();
    let mut t = 0;
    while t <= end {
        sim.tick(t);
        if let Some(observer) = observer.as_deref_mut() {
            let breaches = std::mem::take(&mut sim.world.checks.breaches);
            if t % REBALANCE_INTERVAL_MS == 0 || !sim.events.is_empty() || !breaches.is_empty() {
                let owners = &sim.world.checks.owners;
                let moved = owners.iter().filter(|(q, w)| previous.get(*q) != Some(*w)).count();
                let per_topic = sim
                    .world
                    .topics
                    .iter()
                    .map(|topic| (topic.name.clone(), topic.queues.iter().map(|q| (q.clone(), owners.get(q).cloned().unwrap_or_default())).collect()))
                    .collect();
                let running = sim
                    .world
                    .checks
                    .calls
                    .iter()
                    .map(|(q, calls)| (q.clone(), calls.iter().filter(|&&(_, start, end)| start <= t && t < end).map(|&(i, _, _)| i).collect::<Vec<_>>()))
                    .filter(|(_, who)| !who.is_empty())
                    .collect();
                let brokers_down = (0..scenario.brokers).map(broker_name).filter(|b| !sim.world.broker_up(b)).collect();
                observer(&Snapshot {
                    t_ms: t,
                    events: std::mem::take(&mut sim.events),
                    owners: per_topic,
                    moved,
                    running,
                    brokers_down,
                    clients: sim.world.checks.client_of.clone(),
                    breaches: breaches
                        .iter()
                        .map(|(at, q, starter, runner, since, until)| {
                            format!(
                                "{}s {}@{}:{}: {} starts a listener call while {}'s call ({}-{}s) still runs",
                                at / 1000,
                                q.topic,
                                q.broker_name,
                                q.queue_id,
                                letter(*starter),
                                letter(*runner),
                                since / 1000,
                                until / 1000
                            )
                        })
                        .collect(),
                });
                previous = owners.clone();
            }
        }
        sim.events.clear();
        t += TICK_MS;
    }
    let now = sim.world.now;
    sim.world.checks.check_convergence(now);
    let log = sim.world.log.clone();
    sim.world.checks.finish(&log);
    sim.world.checks.summary.clone()
}

impl Sim<'_> {
    fn tick(&mut self, t: u64) {
        self.world.now = t;
        let in_window = t < self.scenario.length_s * 1_000;
        self.world.call_failure = if in_window { self.scenario.faults.call_failure } else { 0.0 };
        self.world.lost_lock_answer = if in_window { self.scenario.faults.lost_lock_answer } else { 0.0 };
        let scripted: Vec<EventKind> = self.scenario.events.iter().filter(|e| e.at_s * 1_000 == t).map(|e| e.kind.clone()).collect();
        for kind in scripted {
            self.apply(kind);
        }
        if in_window {
            self.random_faults();
            self.produce();
        }
        self.departures();
        for b in 0..self.scenario.brokers {
            let down = !self.world.broker_up(&broker_name(b));
            if self.broker_was_down[b] && !down {
                self.events.push(format!("{} is back with an empty lock table", broker_name(b)));
                if self.scenario.signal_broker_restarts {
                    self.signal_broker_back(b);
                }
            }
            self.broker_was_down[b] = down;
        }
        for p in 0..self.processes.len() {
            if !self.processes[p].alive {
                continue;
            }
            if self.processes[p].leaving {
                self.end_calls(p);
                self.step_leaving(p);
                continue;
            }
            for g in 0..self.processes[p].groups.len() {
                self.step_group(p, g);
            }
        }
        self.observe();
    }

    /// Processes that can be picked for a fault: running, not leaving, not a short-lived twin.
    pub(crate) fn alive(&self) -> Vec<usize> {
        self.processes.iter().filter(|p| p.alive && !p.leaving && p.leave_at.is_none()).map(|p| p.instance).collect()
    }

    pub(crate) fn pick_alive(&mut self) -> Option<usize> {
        let alive = self.alive();
        alive.choose(&mut self.world.rng).copied()
    }

    pub(crate) fn notify_all(&mut self) {
        for p in self.processes.iter_mut().filter(|p| p.alive) {
            for g in &mut p.groups {
                g.next_rebalance = g.next_rebalance.min(self.world.now);
            }
        }
    }

    fn produce(&mut self) {
        for topic in 0..self.world.topics.len() {
            for _ in 0..self.scenario.messages_per_second {
                let queues = &self.world.topics[topic].queues;
                let q = queues[self.world.rng.gen_range(0..queues.len())].clone();
                *self.world.log.get_mut(&q).expect("every queue has a log") += 1;
                self.world.checks.summary.messages_produced += 1;
            }
        }
    }

    fn departures(&mut self) {
        let now = self.world.now;
        let due: Vec<usize> = self.pending_unregister.iter().filter(|(at, _)| *at <= now).map(|(_, i)| *i).collect();
        self.pending_unregister.retain(|(at, _)| *at > now);
        for i in due {
            self.world.unregister(i);
            self.notify_all();
            self.quiet_since = now;
        }
        let back: Vec<usize> = self.pending_register.iter().filter(|(at, _)| *at <= now).map(|(_, i)| *i).collect();
        self.pending_register.retain(|(at, _)| *at > now);
        for i in back {
            let p = &self.processes[i];
            if p.alive && !p.leaving && !self.world.registry.iter().any(|(_, inst)| *inst == i) {
                let id = p.client_id.clone();
                self.world.register(id, i);
                self.notify_all();
            }
            self.quiet_since = now;
        }
        let leaving: Vec<usize> = self.processes.iter().filter(|p| p.alive && p.leave_at.is_some_and(|at| at <= now)).map(|p| p.instance).collect();
        for i in leaving {
            self.leave(i);
            self.events.push(format!("{} (duplicate id) leaves", letter(i)));
            self.quiet_since = now;
        }
    }

    /// The client ids this process sees this round: usually the registry, sometimes stale or
    /// partial; `None` when no broker can be asked.
    fn view_of_ids(&mut self, p: usize) -> Option<Vec<String>> {
        if (0..self.scenario.brokers).all(|b| !self.world.broker_up(&broker_name(b))) {
            return None;
        }
        if self.processes[p].stale_rounds == 0 {
            return Some(self.world.client_ids());
        }
        self.processes[p].stale_rounds -= 1;
        if self.world.rng.gen_bool(0.5) {
            Some(self.world.client_ids_at(30_000))
        } else {
            let mut ids = self.world.client_ids();
            let me = self.processes[p].client_id.clone();
            let others: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] != me).collect();
            if let Some(&drop) = others.choose(&mut self.world.rng) {
                ids.remove(drop);
            }
            Some(ids)
        }
    }

    /// Listener calls that ended: their progress is recorded unless the state was dropped
    /// meanwhile (as Java's ConsumeMessageOrderlyService does).
    fn end_calls(&mut self, p: usize) {
        let now = self.world.now;
        for group in &mut self.processes[p].groups {
            let ended: Vec<MessageQueue> = group.calls.iter().filter(|(_, c)| c.end <= now).map(|(q, _)| q.clone()).collect();
            for q in ended {
                let call = group.calls.remove(&q).expect("listed above");
                if group.rebalancer.state(&q).is_some_and(|s| s.generation == call.generation && !s.dropped) {
                    group.offsets.insert(q, call.to);
                }
            }
        }
    }

    fn step_group(&mut self, p: usize, g: usize) {
        let now = self.world.now;
        if g == 0 {
            self.end_calls(p);
        }
        let cut_off = self.processes[p].cut_off(now);
        let cut_from = self.processes[p].cut_from(now);
        let ids = if now >= self.processes[p].groups[g].next_rebalance { Some(if cut_off { None } else { self.view_of_ids(p) }) } else { None };
        let instance = self.processes[p].instance;
        let process = &mut self.processes[p];
        let client_id = process.client_id.clone();
        let group: &mut GroupClient = &mut process.groups[g];
        let orderly = self.world.topics[g].orderly;
        let safe = self.semantics == Semantics::Safe;

        let mut host = SimHost::new(&mut self.world, &mut group.offsets, &mut group.pulls, &group.calls, &client_id, instance, cut_off);
        host.cut_from = cut_from.clone();
        if let Some(ids) = ids {
            let topic = &host.world.topics[g];
            let queues = if cut_off { None } else { Some(topic.queues.clone()) };
            let views: BTreeMap<String, TopicView> = [(topic.name.clone(), TopicView { queues, client_ids: ids })].into();
            let reports = group.rebalancer.rebalance_all(&views, now, &mut host).expect("a running process's rebalancer is not shut down");
            let observed = &mut host.world.checks.summary.observed;
            observed.rebalance_rounds += 1;
            let mut balanced = true;
            let mut given_up = Vec::new();
            for r in &reports {
                balanced &= r.balanced;
                observed.forced_unlocks += r.released.iter().filter(|x| x.forced).count() as u64;
                observed.leaked_locks += r.skipped.iter().filter(|x| x.lock_leaked).count() as u64;
                observed.deferred_releases += r.deferred.len() as u64;
                for acquired in &r.acquired {
                    host.world.checks.known_lost.remove(&(acquired.queue.clone(), instance));
                }
                given_up.extend(r.released.iter().filter(|x| x.gave_up).map(|x| x.queue.clone()));
            }
            for q in &given_up {
                host.world.checks.note_given_up(q, instance, now);
            }
            let next = now + if balanced { REBALANCE_INTERVAL_MS } else { UNBALANCED_RETRY_MS };
            group.next_rebalance = host.scheduled.map_or(next, |s| s.min(next));
        }
        if orderly && now >= group.next_lock {
            if let Ok(report) = group.rebalancer.lock_all(now, &mut host) {
                host.world.checks.note_lost(&report.lost, instance, now);
            }
            group.next_lock = now + LOCK_RENEW_MS;
        }
        if orderly {
            // ConsumeMessageOrderlyService: a held queue found unlocked or expired is locked again
            // (`lockOneMQ`), then every 3 s while that fails.
            let stale: Vec<MessageQueue> =
                group.rebalancer.held().filter(|(q, s)| !s.dropped && !group.rebalancer.is_consumable(q, s.generation, now)).map(|(q, _)| q.clone()).collect();
            for q in stale {
                if group.next_lock_one.get(&q).is_none_or(|&at| at <= now) {
                    if let Ok(report) = group.rebalancer.lock_queue(&q, now, &mut host) {
                        host.world.checks.note_lost(&report.lost, instance, now);
                    }
                    group.next_lock_one.insert(q, now + LOCK_ONE_RETRY_MS);
                }
            }
        }
        if now >= group.next_persist {
            // Java's persistAll commits every cached offset; a host that follows the safe
            // contract commits only queues it may consume (never one whose lock is known lost).
            let held: Vec<(MessageQueue, u64)> = group.rebalancer.held().map(|(q, s)| (q.clone(), s.generation)).collect();
            for (q, generation) in held {
                if !safe || group.rebalancer.is_consumable(&q, generation, now) {
                    let _ = host.commit(&q);
                }
            }
            group.next_persist = now + PERSIST_INTERVAL_MS;
        }
        if let Some(at) = host.scheduled {
            group.next_rebalance = group.next_rebalance.min(at);
        }

        // The pull loop and the listener.
        let queues: Vec<MessageQueue> = group.pulls.keys().cloned().collect();
        for q in queues {
            let pull = group.pulls[&q].clone();
            let Some(state) = group.rebalancer.state(&q) else {
                group.pulls.remove(&q);
                continue;
            };
            if state.generation != pull.generation {
                group.pulls.remove(&q);
                continue;
            }
            if state.dropped || now < pull.start_at {
                continue;
            }
            if cut_off || cut_from.contains(&q.broker_name.to_string()) {
                continue;
            }
            group.rebalancer.record_pull(&q, pull.generation, now);
            if !self.world.broker_up(&q.broker_name) || !group.rebalancer.is_consumable(&q, pull.generation, now) {
                continue;
            }
            let available = self.world.log[&q] - pull.next_offset;
            if available <= 0 {
                continue;
            }
            if !orderly {
                let take = available.min(PULL_BATCH);
                self.world.checks.record_delivery(&q, pull.next_offset, pull.next_offset + take);
                let next = pull.next_offset + take;
                group.pulls.get_mut(&q).expect("present").next_offset = next;
                group.offsets.insert(q, next);
                continue;
            }
            if group.calls.get(&q).is_some_and(|c| c.end > now) {
                continue;
            }
            let take = available.min(ORDERLY_BATCH);
            let duration = match process.slow {
                Some((at, slow)) if at == now => slow,
                _ => TICK_MS,
            };
            let to = pull.next_offset + take;
            self.world.checks.start_call(&q, instance, now, now + duration);
            self.world.checks.record_delivery(&q, pull.next_offset, to);
            group.calls.insert(q.clone(), Call { generation: pull.generation, to, start: now, end: now + duration });
            group.pulls.get_mut(&q).expect("present").next_offset = to;
        }
    }

    /// Owners now, handoff gaps, and the convergence check once the group has been quiet.
    fn observe(&mut self) {
        self.world.checks.settle_unlocks();
        let now = self.world.now;
        let mut owners: BTreeMap<MessageQueue, Vec<usize>> = BTreeMap::new();
        for (t, topic) in self.world.topics.iter().enumerate() {
            for q in &topic.queues {
                let who = self
                    .processes
                    .iter()
                    .filter(|p| p.alive)
                    .filter(|p| p.groups[t].rebalancer.state(q).is_some_and(|s| p.groups[t].rebalancer.is_consumable(q, s.generation, now)))
                    .map(|p| p.instance)
                    .collect();
                owners.insert(q.clone(), who);
            }
        }
        self.world.checks.observe_owners(owners, now);
        if self.disturbed() {
            self.quiet_since = now;
            self.convergence_checked = false;
        } else if !self.convergence_checked && now >= self.quiet_since + CONVERGENCE_AFTER_MS {
            self.world.checks.check_convergence(now);
            self.convergence_checked = true;
        }
    }

    /// Whether the group's views cannot agree right now: faults may strike, a consumer sees a
    /// stale list, a death is not yet noticed, two processes share an id, a broker is down, a
    /// dead consumer still holds a broker lock, or a slow listener call runs.
    fn disturbed(&self) -> bool {
        let now = self.world.now;
        let f = &self.scenario.faults;
        let random_faults = f.named().iter().any(|(_, p)| *p > 0.0);
        let ids = self.world.client_ids();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        (random_faults && now < self.scenario.length_s * 1_000)
            || self.processes.iter().any(|p| p.alive && (p.stale_rounds > 0 || p.groups.iter().any(|g| g.calls.values().any(|c| c.end > now + TICK_MS))))
            || !self.pending_unregister.is_empty()
            || !self.pending_register.is_empty()
            || self.world.checks.given_up.values().flatten().any(|&(_, at)| now <= at + crate::world::BROKER_LOCK_EXPIRY_MS + TICK_MS)
            || self.processes.iter().any(|p| p.alive && (p.leaving || p.cut_off(now) || !p.cut_from(now).is_empty()))
            || sorted.len() != ids.len()
            || self.world.broker_down_until.iter().any(|&until| now < until)
            || self.world.locks.values().any(|l| !ids.contains(&l.client_id) && now.saturating_sub(l.renewed_at) <= crate::world::BROKER_LOCK_EXPIRY_MS)
    }
}

/// Consumer instances are shown as letters: A, B, ..., Z, then a27, a28, ...
pub fn letter(instance: usize) -> String {
    if instance < 26 {
        ((b'A' + instance as u8) as char).to_string()
    } else {
        format!("a{}", instance + 1)
    }
}
