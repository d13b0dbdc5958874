//! `rmq-rebalance simulate`: run the engine in the seeded cluster model and report invariants.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use rocketmq_rebalance::engine::Semantics;
use rocketmq_rebalance_sim::{built_in_names, run, Observed, Scenario, Summary, Violations};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// A built-in scenario (default, orderly-handoff, stale-views, chaos, balanced-sticky, balanced-sticky-v2, host-faults, restart-handoff, partial-partitions) or a TOML file.
    #[arg(long, default_value = "default")]
    scenario: String,
    /// How many seeds (1..=N), or a range A..B (B excluded) or A..=B.
    #[arg(long, default_value = "1")]
    seeds: String,
    /// safe (the default engine) or java (RocketMQ 5.3.x decisions, flaws included).
    #[arg(long, default_value = "safe", value_parser = ["safe", "java"])]
    semantics: String,
    /// Which host the consumers have in safe mode: `on`, one that tells the engine when a broker
    /// comes back from a restart (`locks_lost`, as SafeOrderlyConsumer's broker watch does), or
    /// `off`, one that does not. Default: the scenario's `signal_broker_restarts` (on unless it says).
    /// `off` is outside the host contract: its violations are reported and the exit status is 0.
    #[arg(long, value_parser = ["on", "off"])]
    restart_signal: Option<String>,
    /// Print a machine-readable summary (JSON) instead of tables.
    #[arg(long)]
    json: bool,
    /// Print the names of the built-in scenarios, one a line, and exit (scripts read the list here).
    #[arg(long)]
    list: bool,
    /// Worker threads for many seeds (results do not depend on it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

/// More seeds than this in one run is a typo, not a plan (10,000 take about a minute).
const MAX_SEEDS: u64 = 10_000_000;

/// `N` (seeds 1 to N), `A..B` (A to B-1) or `A..=B` (A to B), as a list of seeds.
fn seeds(spec: &str) -> Result<Vec<u64>, String> {
    let forms = "N (seeds 1 to N), A..B (A to B-1) or A..=B (A to B)";
    let num = |s: &str| s.trim().parse::<u64>().map_err(|_| format!("--seeds {spec:?}: {:?} is not a whole number 0 or more; expected {forms}", s.trim()));
    let (first, last) = if let Some((a, b)) = spec.split_once("..=") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(format!("--seeds {spec}: the range is empty, its end {b} is below its start {a}"));
        }
        (a, b)
    } else if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (num(a)?, num(b)?);
        if b <= a {
            return Err(format!("--seeds {spec}: the range is empty, A..B runs from A to B-1 so B must exceed A (A..=B includes B)"));
        }
        (a, b - 1)
    } else {
        let n = num(spec)?;
        if n == 0 {
            return Err("--seeds 0: no seeds to run; N runs seeds 1 to N, so N must be at least 1 (seed 0 alone: --seeds 0..=0)".into());
        }
        (1, n)
    };
    if last - first >= MAX_SEEDS {
        return Err(format!("--seeds {spec}: {} seeds; at most {MAX_SEEDS} in one run", u128::from(last - first) + 1));
    }
    Ok((first..=last).collect())
}

fn load(name: &str) -> Result<Scenario, String> {
    if let Some(s) = Scenario::built_in(name) {
        return Ok(s);
    }
    let text = std::fs::read_to_string(name).map_err(|e| {
        let known: Vec<&str> = built_in_names().collect();
        format!("scenario {name:?} is neither built in ({}) nor a readable file: {e}", known.join(", "))
    })?;
    Scenario::parse(&text)
}

/// The figures over many seeds.
#[derive(Serialize, Default)]
struct Aggregate {
    scenario: String,
    semantics: String,
    /// Whether the hosts told the engine of broker restarts (java semantics never does).
    restart_signal: bool,
    seeds: usize,
    first_seed: u64,
    last_seed: u64,
    messages_produced: u64,
    messages_consumed: u64,
    duplicates: u64,
    max_handoff_gap_ms: u64,
    unowned_queue_ms: u64,
    violations: Violations,
    observed: Observed,
    /// Up to 20 seeds that violated something, to replay with --seeds S..=S.
    violating_seeds: Vec<u64>,
    seeds_with_violations: usize,
    /// What the first violating seed did wrong.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    first_violations: Vec<String>,
}

impl Aggregate {
    fn add(&mut self, s: &Summary) {
        self.seeds += 1;
        self.messages_produced += s.messages_produced;
        self.messages_consumed += s.messages_consumed;
        self.duplicates += s.duplicates;
        self.max_handoff_gap_ms = self.max_handoff_gap_ms.max(s.max_handoff_gap_ms);
        self.unowned_queue_ms += s.unowned_queue_ms;
        self.violations.add(&s.violations);
        self.observed.add(&s.observed);
        if s.violations.total() > 0 {
            self.seeds_with_violations += 1;
            if self.first_violations.is_empty() {
                self.first_violations = s.first_violations.iter().map(|n| format!("seed {}: {n}", s.seed)).collect();
            }
            if self.violating_seeds.len() < 20 {
                self.violating_seeds.push(s.seed);
            }
        }
    }

    fn total_violations(&self) -> u64 {
        self.violations.total()
    }
}

pub fn run_cmd(args: Args) -> Result<ExitCode, String> {
    if args.list {
        built_in_names().for_each(|name| println!("{name}"));
        return Ok(ExitCode::SUCCESS);
    }
    let mut scenario = load(&args.scenario)?;
    if let Some(signal) = &args.restart_signal {
        scenario.signal_broker_restarts = signal == "on";
    }
    let seeds = seeds(&args.seeds)?;
    let semantics = if args.semantics == "java" { Semantics::Java } else { Semantics::Safe };
    let summaries = if seeds.len() == 1 && !args.json {
        vec![crate::sim_table::run_with_table(&scenario, seeds[0], semantics)]
    } else {
        run_many(&scenario, &seeds, semantics, args.threads.max(1))
    };
    let mut agg = Aggregate {
        scenario: scenario.name.clone(),
        semantics: args.semantics.clone(),
        restart_signal: semantics == Semantics::Safe && scenario.signal_broker_restarts,
        first_seed: seeds[0],
        last_seed: *seeds.last().expect("non-empty"),
        ..Aggregate::default()
    };
    for s in &summaries {
        agg.add(s);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&agg).map_err(|e| e.to_string())?);
    } else {
        print_summary(&agg);
    }
    if agg.total_violations() > 0 && semantics == Semantics::Safe {
        if !scenario.signal_broker_restarts {
            // Outside the host contract: the violations are what the signal is for, shown, not failed.
            eprintln!(
                "rmq-rebalance: invariants violated in safe mode by hosts that do not signal broker restarts, which the host contract asks for (seeds {:?})",
                agg.violating_seeds
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("rmq-rebalance: invariants violated in safe mode (seeds {:?})", agg.violating_seeds);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_many(scenario: &Scenario, seeds: &[u64], semantics: Semantics, threads: usize) -> Vec<Summary> {
    let bar = crate::progress::bar(seeds.len() as u64, "seeds");
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Summary>> = vec![None; seeds.len()];
    let chunks: Vec<Vec<(usize, Summary)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= seeds.len() {
                            return done;
                        }
                        done.push((i, run(scenario, seeds[i], semantics, None)));
                        bar.inc(1);
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a simulation thread panicked")).collect()
    });
    bar.finish_and_clear();
    for (i, s) in chunks.into_iter().flatten() {
        results[i] = Some(s);
    }
    results.into_iter().map(|s| s.expect("every seed ran")).collect()
}

fn print_summary(a: &Aggregate) {
    let seeds = if a.seeds == 1 { format!("seed {}", a.first_seed) } else { format!("{} seeds ({}..={})", a.seeds, a.first_seed, a.last_seed) };
    let host = if a.restart_signal { "hosts signal broker restarts" } else { "hosts do not signal broker restarts" };
    println!("summary: scenario {}, {} semantics, {host}, {seeds}", a.scenario, a.semantics);
    println!("  messages: {} produced, {} delivered, {} duplicate deliveries", a.messages_produced, a.messages_consumed, a.duplicates);
    println!(
        "  longest handoff gap: {:.1} s; queues without a consumer: {:.0} queue-seconds",
        a.max_handoff_gap_ms as f64 / 1000.0,
        a.unowned_queue_ms as f64 / 1000.0
    );
    let v = &a.violations;
    println!(
        "  invariant violations: orderly exclusivity {}, lost messages {}, offset regressions {}, convergence {}, unlocks under a running call {}",
        v.orderly_exclusivity, v.lost_messages, v.offset_regressions, v.convergence, v.unlock_under_call
    );
    let o = &a.observed;
    println!(
        "  observed: {} forced unlocks, {} leaked locks, {} deferred releases, {} given up, {} regressions by two writers, {} rounds, {} faults",
        o.forced_unlocks, o.leaked_locks, o.deferred_releases, o.releases_given_up, o.regressions_two_writers, o.rebalance_rounds, o.faults_injected
    );
    println!(
        "  clashes no client can fence: {} after a broker forgot its locks, {} after a partition outlived the lock, {} with a duplicated client id, {} after a release was given up",
        o.after_broker_lock_loss, o.clashes_after_partition, o.clashes_duplicate_id, o.clashes_after_give_up
    );
    if a.seeds_with_violations > 0 {
        println!("  {} seed(s) violated an invariant; first: {:?}", a.seeds_with_violations, a.violating_seeds);
        for note in &a.first_violations {
            println!("    {note}");
        }
    }
}
