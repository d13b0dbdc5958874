//! The round-by-round table of `rmq-rebalance simulate` with one seed: who can consume each
//! queue, every 20 s and at every event, with a key a RocketMQ user can read without the source.

use std::collections::BTreeMap;

use rocketmq_rebalance::engine::Semantics;
use rocketmq_rebalance::StrategyConfig;
use rocketmq_rebalance_sim::{letter, run, Scenario, Snapshot, Summary};

/// Runs `scenario` with `seed`, printing the table as it goes, and returns the summary.
pub fn run_with_table(scenario: &Scenario, seed: u64, semantics: Semantics) -> Summary {
    print_key(scenario, seed, semantics);
    let mut table = Table { drain_at_ms: scenario.length_s * 1000, end_s: scenario.length_s + scenario.drain_s, ..Table::default() };
    let summary = run(scenario, seed, semantics, Some(&mut |snap: &Snapshot| table.row(snap)));
    table.flush_unchanged();
    table.explain_breaches(semantics);
    println!();
    summary
}

fn print_key(scenario: &Scenario, seed: u64, semantics: Semantics) {
    let strategy = StrategyConfig::from_name(&scenario.strategy, &scenario.strategy_params)
        .and_then(|c| c.build())
        .map_or_else(|_| scenario.strategy.clone(), |s| s.name().into_owned());
    let semantics = match semantics {
        Semantics::Safe => "safe semantics (the engine's fixes on; --semantics java shows RocketMQ 5.3.x's own decisions)",
        Semantics::Java => "java semantics (RocketMQ 5.3.x's decisions, flaws included; the default, safe, fixes them)",
    };
    println!("scenario {}, seed {seed}: {}", scenario.name, scenario.description);
    println!("strategy {strategy}, {semantics}\n");
    println!("cells   the consumer that consumes or may consume the queue (letters below); - nobody; x its broker is down;");
    println!("        * two consumers at once (in an orderly topic that breaks exclusivity: explained under the table)");
    println!("moved   queues whose consumers changed since the row above");
    println!("rows    every 20 s (a rebalance round) and at every event; identical rows are folded\n");
}

/// What the table has printed so far.
#[derive(Default)]
struct Table {
    drain_at_ms: u64,
    end_s: u64,
    /// Consumers named so far (instances 0..named).
    named: usize,
    /// The cells of the last row printed, to fold rows that repeat it.
    last_cells: Option<String>,
    /// Rows folded since the last one printed: (first time, last time, count).
    folded: Option<(u64, u64, usize)>,
    drain_marked: bool,
    breaches: Vec<String>,
}

impl Table {
    fn row(&mut self, snap: &Snapshot) {
        if self.last_cells.is_none() {
            self.header(snap);
        }
        if !self.drain_marked && snap.t_ms >= self.drain_at_ms && self.end_s * 1000 > self.drain_at_ms {
            self.flush_unchanged();
            println!(
                "  ---- {}s: the producer stops and no more faults are injected; the group drains its backlog until {}s ----",
                self.drain_at_ms / 1000,
                self.end_s
            );
            self.drain_marked = true;
        }
        let cells = cells(snap);
        let mut events = self.events(snap);
        // A breach goes on while the two calls overlap; it is listed (and keeps its row) once.
        let mut new_breach = false;
        for b in &snap.breaches {
            let what = b.split_once(' ').map_or(b.as_str(), |(_, what)| what);
            if !self.breaches.iter().any(|seen| seen.ends_with(what)) {
                self.breaches.push(b.clone());
                new_breach = true;
            }
        }
        if new_breach {
            events.push("orderly exclusivity broken (*, explained below)".into());
        }
        if snap.moved == 0 && events.is_empty() && !new_breach && self.last_cells.as_deref() == Some(cells.as_str()) {
            let t = snap.t_ms / 1000;
            self.folded = Some(self.folded.map_or((t, t, 1), |(first, _, n)| (first, t, n + 1)));
            return;
        }
        self.flush_unchanged();
        println!("{:>5}s  {:>5}{cells}  {}", snap.t_ms / 1000, snap.moved, events.join("; "));
        self.last_cells = Some(cells);
    }

    /// The column labels (topic; broker index and queue id per column) and the consumers so far.
    fn header(&mut self, snap: &Snapshot) {
        let brokers = broker_indexes(snap);
        let key: Vec<String> = brokers.iter().map(|(name, i)| format!("{i} = {name}")).collect();
        println!("brokers    {}", key.join(", "));
        let consumers: Vec<String> = snap.clients.iter().enumerate().map(|(i, id)| format!("{} = {id}", letter(i))).collect();
        println!("consumers  {} (later ones are named where they join)\n", consumers.join(", "));
        self.named = snap.clients.len();
        let (mut topics, mut broker_row, mut queue_row) = (String::new(), String::new(), String::new());
        for (topic, queues) in &snap.owners {
            let width = column_width(queues);
            topics.push_str(&format!("  {:<w$}", topic, w = width * queues.len()));
            broker_row.push_str("  ");
            queue_row.push_str("  ");
            for (q, _) in queues {
                broker_row.push_str(&format!("{:<width$}", brokers[&*q.broker_name]));
                queue_row.push_str(&format!("{:<width$}", q.queue_id));
            }
        }
        println!("{:>6}  {:>5}{topics}  events", "time", "moved");
        println!("{:>6}  {:>5}{broker_row}", "broker", "");
        println!("{:>6}  {:>5}{queue_row}", "queue", "");
    }

    /// The snapshot's events, with newly seen consumers named.
    fn events(&mut self, snap: &Snapshot) -> Vec<String> {
        let mut events = snap.events.clone();
        for i in self.named..snap.clients.len() {
            let name = letter(i);
            match events.iter_mut().find(|e| e.starts_with(&format!("{name} "))) {
                Some(e) => e.push_str(&format!(" ({})", snap.clients[i])),
                None => events.push(format!("{name} = {}", snap.clients[i])),
            }
        }
        self.named = snap.clients.len();
        events
    }

    fn flush_unchanged(&mut self) {
        if let Some((first, last, n)) = self.folded.take() {
            let rows = if n == 1 { "1 row".to_string() } else { format!("{n} rows") };
            let span = if first == last { format!("{first}s") } else { format!("{first}s-{last}s") };
            println!("{:>6}  {:>5}  ... {rows} unchanged ({span})", "", "");
        }
    }

    fn explain_breaches(&self, semantics: Semantics) {
        if self.breaches.is_empty() {
            return;
        }
        println!("\norderly exclusivity broken (* in an orderly topic): two consumers ran listener calls on one queue at once");
        for b in &self.breaches {
            println!("  {b}");
        }
        if semantics == Semantics::Java {
            println!("  (Java force-unlocks a queue 20 s after its last lock renewal even while its listener runs; safe semantics keeps the lock until the call ends)");
        }
    }
}

/// One row's cells, every topic's block padded to its header.
fn cells(snap: &Snapshot) -> String {
    let mut row = String::new();
    for (_, queues) in &snap.owners {
        let width = column_width(queues);
        row.push_str("  ");
        for (q, owners) in queues {
            let mut who = owners.clone();
            who.extend(snap.running.get(q).into_iter().flatten().copied());
            who.sort_unstable();
            who.dedup();
            let cell = match who.as_slice() {
                [_, _, ..] => "*".to_string(),
                _ if snap.brokers_down.iter().any(|b| *b == *q.broker_name) => "x".to_string(),
                [] => "-".to_string(),
                [one] => letter(*one),
            };
            row.push_str(&format!("{cell:<width$}"));
        }
    }
    row
}

/// Wide enough for the longest queue id or broker index, plus a space.
fn column_width(queues: &[(rocketmq_rebalance::MessageQueue, Vec<usize>)]) -> usize {
    queues.iter().map(|(q, _)| q.queue_id.to_string().len()).max().unwrap_or(1) + 1
}

/// Brokers numbered in the order their queues first appear.
fn broker_indexes(snap: &Snapshot) -> BTreeMap<String, usize> {
    let mut indexes = BTreeMap::new();
    for (q, _) in snap.owners.iter().flat_map(|(_, queues)| queues) {
        let next = indexes.len();
        indexes.entry(q.broker_name.to_string()).or_insert(next);
    }
    indexes
}
