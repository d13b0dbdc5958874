//! What happens to the group: joins, leaves, crashes, partitions, broker restarts and the other
//! scripted or random faults of a scenario.

use rand::Rng;
use rocketmq_rebalance::MessageQueue;

use crate::consumer::{Process, SimHost};
use crate::run::{letter, Sim};
use crate::scenario::EventKind;
use crate::world::broker_name;

impl Sim<'_> {
    pub(crate) fn join(&mut self, same_id_as: Option<usize>) -> usize {
        let instance = self.processes.len();
        let client_id = match same_id_as {
            Some(twin) => self.processes[twin].client_id.clone(),
            None => format!("10.0.0.{}@{}", instance + 1, 4000 + instance),
        };
        self.world.register(client_id.clone(), instance);
        self.world.checks.client_of.push(client_id.clone());
        let process = Process::new(instance, client_id, &self.world, &self.strategy, self.semantics, self.scenario.timing);
        self.processes.push(process);
        self.notify_all();
        instance
    }

    /// A clean leave: `shutdown()` while listener calls may still run (a real process's consume
    /// threads go on), then unregister. The process finishes its shutdown once its calls ended
    /// (see `step_leaving`).
    pub(crate) fn leave(&mut self, instance: usize) {
        let now = self.world.now;
        let process = &mut self.processes[instance];
        process.leaving = true;
        let cut_off = process.cut_off(now);
        for g in &mut process.groups {
            let mut host = SimHost::new(&mut self.world, &mut g.offsets, &mut g.pulls, &g.calls, &process.client_id, instance, cut_off);
            let report = g.rebalancer.shutdown(&mut host);
            host.world.checks.summary.observed.deferred_releases += report.deferred.len() as u64;
        }
        self.world.unregister(instance);
        self.notify_all();
    }

    /// A leaving process follows the shutdown contract: while listener calls run it keeps renewing
    /// what shutdown left (`lock_all` on its cadence) and retries `shutdown` every round interval
    /// (past the give-up bound a hung call is given up); once its calls have ended, a last
    /// `shutdown` finishes, and it is gone.
    pub(crate) fn step_leaving(&mut self, p: usize) {
        let now = self.world.now;
        let process = &mut self.processes[p];
        let running = process.groups.iter().any(|g| g.calls.values().any(|c| c.end > now));
        let cut_off = process.cut_off(now);
        let cut_from = process.cut_from(now);
        let instance = process.instance;
        for g in &mut process.groups {
            if g.rebalancer.held().next().is_none() {
                continue;
            }
            let mut host = SimHost::new(&mut self.world, &mut g.offsets, &mut g.pulls, &g.calls, &process.client_id, instance, cut_off);
            host.cut_from = cut_from.clone();
            if running && now >= g.next_lock {
                if let Ok(report) = g.rebalancer.lock_all(now, &mut host) {
                    host.world.checks.note_lost(&report.lost, instance, now);
                }
                g.next_lock = now + crate::consumer::LOCK_RENEW_MS;
            }
            if !running || now >= g.next_rebalance {
                let report = g.rebalancer.shutdown_at(now, &mut host);
                for given_up in report.released.iter().filter(|r| r.gave_up) {
                    host.world.checks.note_given_up(&given_up.queue, instance, now);
                }
                g.next_rebalance = now + crate::consumer::REBALANCE_INTERVAL_MS;
            }
        }
        if !running {
            process.alive = false;
        }
    }

    /// A broker that comes back up has an empty lock table: every process that can see it says
    /// so to its engine (safe mode stops consuming that broker's orderly queues until re-locked,
    /// and asks for the locks of the states it drops at once). A process shutting down says so
    /// too: its deferred releases wait for listener calls that the signal fences.
    pub(crate) fn signal_broker_back(&mut self, broker: usize) {
        let now = self.world.now;
        let name = broker_name(broker);
        // Java mode has no `locks_lost` signal: its consumers never "know".
        let told_mode = self.semantics == rocketmq_rebalance::engine::Semantics::Safe;
        for p in 0..self.processes.len() {
            let process = &mut self.processes[p];
            // A process that cannot reach the broker cannot see it come back.
            if !process.alive || process.cut_off(now) || process.cut_from(now).contains(&name) {
                continue;
            }
            for g in &mut process.groups {
                if !g.rebalancer.config().orderly {
                    continue;
                }
                let mut host = SimHost::new(&mut self.world, &mut g.offsets, &mut g.pulls, &g.calls, &process.client_id, process.instance, false);
                if let Ok(report) = g.rebalancer.locks_lost(&name, now, &mut host) {
                    host.world.checks.note_lost(&report.lost, process.instance, now);
                    let told: Vec<MessageQueue> = host.world.checks.lock_loss.keys().filter(|q| *q.broker_name == *name).cloned().collect();
                    for q in told {
                        for entry in host.world.checks.lock_loss.get_mut(&q).into_iter().flatten() {
                            if entry.0 == process.client_id && entry.2.is_none() && told_mode {
                                entry.2 = Some(now);
                            }
                        }
                    }
                }
                if let Some(at) = host.scheduled {
                    g.next_rebalance = g.next_rebalance.min(at);
                }
            }
        }
    }

    pub(crate) fn apply(&mut self, kind: EventKind) {
        self.world.checks.summary.observed.faults_injected += 1;
        let now = self.world.now;
        match kind {
            EventKind::Join => {
                let i = self.join(None);
                self.events.push(format!("{} joins", letter(i)));
            }
            EventKind::Leave { consumer } => {
                if self.alive().len() > 1 {
                    if let Some(i) = consumer.filter(|&c| self.alive().contains(&c)).or_else(|| self.pick_alive()) {
                        self.leave(i);
                        self.events.push(format!("{} leaves", letter(i)));
                    }
                }
            }
            EventKind::Crash { consumer, detect_s } => {
                if self.alive().len() > 1 {
                    if let Some(i) = consumer.filter(|&c| self.alive().contains(&c)).or_else(|| self.pick_alive()) {
                        self.processes[i].alive = false;
                        self.world.checks.abandon_calls(i, now);
                        self.pending_unregister.push((now + detect_s * 1_000, i));
                        self.events.push(format!("{} crashes", letter(i)));
                    }
                }
            }
            EventKind::Partition { consumer, duration_s, detect_s } => {
                if self.alive().len() > 1 {
                    if let Some(i) = consumer.filter(|&c| self.alive().contains(&c)).or_else(|| self.pick_alive()) {
                        let until = now + duration_s * 1_000;
                        let id = self.processes[i].client_id.clone();
                        let held: Vec<MessageQueue> = self.world.locks.iter().filter(|(_, l)| l.client_id == id).map(|(q, _)| q.clone()).collect();
                        for q in held {
                            self.world.checks.partition_loss.entry(q).or_default().push((i, now));
                        }
                        self.processes[i].partitioned_until = until;
                        if detect_s < duration_s {
                            self.pending_unregister.push((now + detect_s * 1_000, i));
                        }
                        self.pending_register.push((until, i));
                        self.events.push(format!("{} is cut off from the brokers for {duration_s} s", letter(i)));
                    }
                }
            }
            EventKind::BrokerPartition { consumer, broker, duration_s } => {
                if let Some(i) = consumer.filter(|&c| self.alive().contains(&c)).or_else(|| self.pick_alive()) {
                    let b = broker.unwrap_or_else(|| self.world.rng.gen_range(0..self.scenario.brokers));
                    let name = broker_name(b);
                    let id = self.processes[i].client_id.clone();
                    let held: Vec<MessageQueue> =
                        self.world.locks.iter().filter(|(q, l)| l.client_id == id && *q.broker_name == *name).map(|(q, _)| q.clone()).collect();
                    for q in held {
                        self.world.checks.partition_loss.entry(q).or_default().push((i, now));
                    }
                    self.processes[i].partitioned_from.insert(name.clone(), now + duration_s * 1_000);
                    self.events.push(format!("{} is cut off from {name} for {duration_s} s", letter(i)));
                }
            }
            EventKind::BrokerRestart { broker, down_s } => {
                let name = broker_name(broker);
                self.world.broker_down_until[broker] = now + down_s * 1_000;
                // The lock table lives in the broker's memory.
                let wiped: Vec<(MessageQueue, String)> =
                    self.world.locks.iter().filter(|(q, _)| *q.broker_name == *name).map(|(q, l)| (q.clone(), l.client_id.clone())).collect();
                for (q, holder) in wiped {
                    self.world.checks.lock_loss.entry(q).or_default().push((holder, now, None));
                }
                self.world.locks.retain(|q, _| *q.broker_name != *name);
                self.events.push(format!("{name} restarts ({down_s} s down)"));
            }
            EventKind::ExpandTopics { add_per_broker } => {
                for topic in 0..self.world.topics.len() {
                    self.world.add_queues(topic, self.scenario.brokers, add_per_broker, self.scenario.new_queues_committed);
                }
                self.events.push(format!("topics expand by {add_per_broker} queue(s) per broker"));
            }
            EventKind::DuplicateId { stay_s } => {
                if let Some(twin) = self.pick_alive() {
                    let i = self.join(Some(twin));
                    self.processes[i].leave_at = Some(now + stay_s * 1_000);
                    self.world.checks.duplicated.push((twin, i, now, now + stay_s * 1_000));
                    self.events.push(format!("{} starts with {}'s client id", letter(i), letter(twin)));
                }
            }
            EventKind::SlowConsume { consumer, duration_s } => {
                // A call must end two minutes before the run does, or its queue's tail would
                // count as lost when it is only late.
                let end_s = self.scenario.length_s + self.scenario.drain_s;
                let duration_s = duration_s.min(end_s.saturating_sub(now / 1_000 + 120)).max(1);
                if let Some(i) = consumer.filter(|&c| self.alive().contains(&c)).or_else(|| self.pick_alive()) {
                    self.processes[i].slow = Some((now, duration_s * 1_000));
                    self.events.push(format!("{}'s orderly listener calls take {duration_s} s", letter(i)));
                }
            }
            EventKind::StaleView { rounds } => {
                if let Some(i) = self.pick_alive() {
                    self.processes[i].stale_rounds = rounds;
                    self.events.push(format!("{} sees stale client ids for {rounds} round(s)", letter(i)));
                }
            }
        }
        self.quiet_since = now;
    }

    pub(crate) fn random_faults(&mut self) {
        let f = self.scenario.faults.clone();
        let brokers = self.scenario.brokers;
        let rng = &mut self.world.rng;
        let mut fire = Vec::new();
        if rng.gen_bool(f.join) {
            fire.push(EventKind::Join);
        }
        if rng.gen_bool(f.leave) {
            fire.push(EventKind::Leave { consumer: None });
        }
        if rng.gen_bool(f.crash) {
            fire.push(EventKind::Crash { consumer: None, detect_s: rng.gen_range(0..=10) });
        }
        if rng.gen_bool(f.broker_restart) {
            fire.push(EventKind::BrokerRestart { broker: rng.gen_range(0..brokers), down_s: rng.gen_range(5..=30) });
        }
        if rng.gen_bool(f.expand_topics) {
            fire.push(EventKind::ExpandTopics { add_per_broker: 1 });
        }
        if rng.gen_bool(f.duplicate_id) {
            fire.push(EventKind::DuplicateId { stay_s: rng.gen_range(30..=120) });
        }
        if rng.gen_bool(f.slow_consume) {
            fire.push(EventKind::SlowConsume { consumer: None, duration_s: rng.gen_range(25..=45) });
        }
        if rng.gen_bool(f.stale_view) {
            fire.push(EventKind::StaleView { rounds: rng.gen_range(1..=4) });
        }
        // The two below draw only when enabled, so scenarios without them replay as before.
        if f.partition > 0.0 && rng.gen_bool(f.partition) {
            fire.push(EventKind::Partition { consumer: None, duration_s: rng.gen_range(30..=120), detect_s: rng.gen_range(10..=30) });
        }
        if f.hang > 0.0 && rng.gen_bool(f.hang) {
            fire.push(EventKind::SlowConsume { consumer: None, duration_s: rng.gen_range(150..=400) });
        }
        if f.broker_partition > 0.0 && rng.gen_bool(f.broker_partition) {
            fire.push(EventKind::BrokerPartition { consumer: None, broker: None, duration_s: rng.gen_range(30..=120) });
        }
        for kind in fire {
            self.apply(kind);
        }
    }
}
