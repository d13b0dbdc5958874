//! `rmq-rebalance watch`: every consumer group of a cluster (or the ones named), judged round after
//! round by core's `diagnose::watch` (Burrow's status per queue, a cause from ownership, owner
//! history), served as Prometheus metrics and as pages, owner changes written as JSON lines.
//! `inspect --watch` is this for one group. docs/watch.md is the user's side of it.
//!
//! - `round`: which groups, read and judged by a pool of workers (the bound on requests in flight);
//! - `metrics`: the metric contract and the text format; `export`: a round's state as series;
//! - `server` and `page`: `GET /metrics`, `GET /`, `GET /group/<name>`.

mod export;
mod metrics;
mod page;
mod round;
mod server;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rocketmq_rebalance::diagnose::watch::{FlapRule, QueueStatus, WatchRules, WindowRules};
use rocketmq_rebalance::diagnose::StrategyOverrides;
use rocketmq_rebalance_remoting::read::Options;
use rocketmq_rebalance_remoting::Credentials;

use page::GroupView;
use round::Watcher;
pub use round::{Groups, Target};
use server::Published;

#[derive(clap::Args)]
pub struct Args {
    /// NameServer address(es), HOST:PORT[;HOST:PORT]. Required unless --load.
    #[arg(long, required_unless_present = "load")]
    namesrv: Option<String>,
    /// A consumer group to watch (repeat); default: every group the brokers know.
    #[arg(long, conflicts_with = "load")]
    group: Vec<String>,
    /// With no --group: system groups (TOOLS_CONSUMER, CID_RMQ_SYS_*, ...) too.
    #[arg(long)]
    system_groups: bool,
    /// Snapshot files written by `inspect --save` (repeat), each read again every round instead
    /// of the cluster: a replay, or a test.
    #[arg(long, value_name = "FILE")]
    load: Vec<String>,
    /// Time between rounds: 30s, 2m, 500ms, or seconds.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    interval: Duration,
    /// How long a round waits for its groups' reads (default: the interval). A group whose read
    /// outlives it keeps its last verdict until the read ends and delays no other group.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    round_budget: Option<Duration>,
    /// Where GET /metrics, / and /group/<name> are served (port 0: any free port, printed on stderr).
    /// Loopback by default: the series name groups, topics and client ids.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9464")]
    listen: String,
    /// Also export per-queue series (status, cause, lag, holder): about 16 series per queue.
    #[arg(long)]
    per_queue: bool,
    /// Append owner changes as JSON lines to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    events: Option<String>,
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    read: ReadArgs,
    /// Stop after N rounds (default: until SIGTERM or SIGINT).
    #[arg(long, value_name = "N")]
    rounds: Option<u64>,
}

#[derive(clap::Args)]
struct RuleArgs {
    /// Rounds in each queue's window (Burrow's intervals); a queue is judged once 3 are in.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(3..=1000))]
    window: u64,
    /// Flapping: this many owner changes ...
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    flap_changes: u64,
    /// ... within this many rounds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    flap_rounds: u64,
}

#[derive(clap::Args)]
struct ReadArgs {
    /// Deadline of each request (running info: the broker's 10 s relay on top).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    timeout: Duration,
    /// Requests in flight at most.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=64))]
    max_in_flight: u64,
    /// Ask each client for its running info at least every N rounds (also whenever the members,
    /// the queues or a queue's state changed).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    running_info_every: u64,
    /// The `cluster` label (default: the cluster's name when the NameServer knows exactly one).
    #[arg(long)]
    cluster: Option<String>,
    /// Sign requests with this access key; its secret comes from RMQ_REBALANCE_SECRET_KEY.
    #[arg(long, value_name = "KEY")]
    access_key: Option<String>,
    /// As inspect's --strategy-of: KEY=STRATEGY[:PARAMS], KEY a language or a client id.
    #[arg(long = "strategy-of", value_name = "KEY=STRATEGY[:PARAMS]")]
    strategy_of: Vec<String>,
}

/// `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = t.find(|c: char| !c.is_ascii_digit()).map_or((t, "s"), |i| t.split_at(i));
    let n: u64 = number.parse().map_err(|_| format!("{text:?}: expected a duration like 30s, 2m or 500ms"))?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => return Err(format!("{text:?}: the unit is ms, s, m or h")),
    };
    if d.is_zero() {
        return Err(format!("{text:?}: must be more than zero"));
    }
    Ok(d)
}

pub fn run(args: Args) -> Result<std::process::ExitCode, String> {
    let overrides = crate::inspect::parse_overrides(&args.read.strategy_of)?;
    let credentials = crate::inspect::credentials_from_env(args.read.access_key.as_deref())?;
    let groups = if !args.load.is_empty() {
        Groups::Loaded(args.load.iter().map(|f| round::load(f).map(|s| (s.group, f.clone()))).collect::<Result<_, _>>()?)
    } else if args.group.is_empty() {
        Groups::All { system: args.system_groups }
    } else {
        Groups::Named(args.group.clone())
    };
    let rules = WatchRules {
        window: WindowRules { samples: args.rules.window as usize, ..WindowRules::default() },
        flapping: FlapRule { changes: args.rules.flap_changes as usize, rounds: args.rules.flap_rounds },
    };
    let target = target(args.namesrv.clone().unwrap_or_default(), groups, Vec::new(), overrides, credentials, rules, &args.read);
    let events = Events::open(args.events.as_deref())?;
    let listen = Listen { addr: &args.listen, flag: "--listen" };
    let pace = Pace { interval: args.interval, rounds: args.rounds, budget: Some(args.round_budget.unwrap_or(args.interval)) };
    watch(target, listen, pace, args.per_queue, events, &mut |_| Ok(()))?;
    Ok(std::process::ExitCode::SUCCESS)
}

fn target(
    namesrv: String,
    groups: Groups,
    topics: Vec<String>,
    overrides: StrategyOverrides,
    credentials: Option<Credentials>,
    rules: WatchRules,
    read: &ReadArgs,
) -> Target {
    Target {
        namesrv,
        groups,
        topics,
        overrides,
        options: Options { timeout: read.timeout, credentials, ..Options::default() },
        rules,
        running_info_every: read.running_info_every,
        workers: read.max_in_flight as usize,
        cluster: read.cluster.clone(),
    }
}

/// `inspect --watch` for one group, with inspect's own options.
pub struct InspectWatch<'a> {
    pub namesrv: String,
    pub group: String,
    pub topics: Vec<String>,
    pub load: Option<String>,
    pub overrides: StrategyOverrides,
    pub credentials: Option<Credentials>,
    pub listen: &'a str,
    pub interval: Duration,
    pub rounds: Option<u64>,
}

/// Runs `inspect --watch`: the watch of one group, and each round's diagnosis as a JSON line on
/// stdout as before (`{"at_ms", "schema_version", "group", "healthy", "findings"}`, or `"error"`).
pub fn inspect_watch(w: InspectWatch<'_>) -> Result<(), String> {
    let groups = match &w.load {
        Some(file) => Groups::Loaded([(round::load(file)?.group, file.clone())].into()),
        None => Groups::Named(vec![w.group.clone()]),
    };
    let read = ReadArgs { timeout: Duration::from_secs(5), max_in_flight: 8, running_info_every: 1, cluster: None, access_key: None, strategy_of: Vec::new() };
    let target = target(w.namesrv, groups, w.topics, w.overrides, w.credentials, WatchRules::default(), &read);
    let mut line = |watcher: &Watcher| -> Result<(), String> {
        let mut out = std::io::stdout().lock();
        for (group, state) in &watcher.groups {
            let line = match (&state.error, &state.verdict) {
                (None, Some(v)) => {
                    let findings: Vec<_> = v.findings.iter().map(|f| &f.finding).collect();
                    serde_json::json!({"at_ms": v.at_ms, "schema_version": rocketmq_rebalance::diagnose::DIAGNOSIS_SCHEMA_VERSION, "group": group, "healthy": findings.is_empty(), "findings": findings})
                }
                (e, _) => serde_json::json!({"at_ms": now_ms(), "group": group, "error": e.clone().unwrap_or_default()}),
            };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    // One line per round for the one group, each from this round's read: the round waits for it.
    let pace = Pace { interval: w.interval, rounds: w.rounds, budget: None };
    watch(target, Listen { addr: w.listen, flag: "--metrics-addr" }, pace, false, Events::Nowhere, &mut line)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Where owner changes go.
enum Events {
    Stdout,
    File(std::fs::File),
    Nowhere,
}

impl Events {
    fn open(file: Option<&str>) -> Result<Self, String> {
        match file {
            None => Ok(Events::Stdout),
            Some(f) => std::fs::OpenOptions::new().create(true).append(true).open(f).map(Events::File).map_err(|e| format!("--events {f}: {e}")),
        }
    }

    fn write(&mut self, lines: &str) -> Result<(), String> {
        let result = match self {
            Events::Stdout => std::io::stdout().lock().write_all(lines.as_bytes()),
            Events::File(f) => f.write_all(lines.as_bytes()).and_then(|()| f.flush()),
            Events::Nowhere => Ok(()),
        };
        result.map_err(|e| format!("writing owner changes: {e}"))
    }
}

/// The address to serve on, and the option that gave it.
struct Listen<'a> {
    addr: &'a str,
    flag: &'a str,
}

/// How rounds follow each other.
struct Pace {
    interval: Duration,
    /// Stop after this many rounds (None: until a signal).
    rounds: Option<u64>,
    /// How long each round waits for its reads (None: for every read it began), so that a slow
    /// group delays no other group's next round.
    budget: Option<Duration>,
}

/// The loop: a round, its events, its publication, then a wait that SIGTERM or SIGINT cuts short.
fn watch(
    target: Target,
    listen: Listen<'_>,
    pace: Pace,
    per_queue: bool,
    mut events: Events,
    after: &mut dyn FnMut(&Watcher) -> Result<(), String>,
) -> Result<(), String> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(signal, Arc::clone(&stop)).map_err(|e| format!("cannot handle signal {signal}: {e}"))?;
    }
    let shared: server::Shared = Arc::new(Mutex::new(Arc::new(Published::default())));
    let bound = server::serve(listen.addr, listen.flag, Arc::clone(&shared))?;
    eprintln!("serving http://{bound}/metrics and http://{bound}/");
    let mut watcher = Watcher::new(target);
    loop {
        let started = Instant::now();
        let changes = watcher.round(pace.budget);
        let mut lines = String::new();
        for (_, change) in &changes {
            let mut v = serde_json::to_value(change).map_err(|e| e.to_string())?;
            if let Some(o) = v.as_object_mut() {
                o.insert("cluster".into(), watcher.cluster.clone().into());
            }
            lines.push_str(&format!("{v}\n"));
        }
        // Published first: whoever reads a change finds the metrics that count it.
        publish(&watcher, per_queue, &shared);
        events.write(&lines)?;
        after(&watcher)?;
        report(&watcher);
        if pace.rounds.is_some_and(|r| watcher.rounds >= r) {
            break;
        }
        while started.elapsed() < pace.interval && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100).min(pace.interval));
        }
        if stop.load(Ordering::Relaxed) {
            eprintln!("stopping on a signal after {} rounds", watcher.rounds);
            break;
        }
    }
    Ok(())
}

fn publish(w: &Watcher, per_queue: bool, shared: &server::Shared) {
    let views = w
        .groups
        .iter()
        .map(|(name, s)| GroupView {
            name: name.clone(),
            verdict: s.verdict.clone(),
            error: s.error.clone(),
            last_success_ms: s.last_success_ms,
            recent_changes: s.recent_changes.clone(),
        })
        .collect();
    let published = Published { cluster: w.cluster.clone(), metrics: export::exposition(w).text(per_queue), views };
    if let Ok(mut p) = shared.lock() {
        *p = Arc::new(published);
    }
}

/// One line on stderr per round: what an operator tailing the log needs.
fn report(w: &Watcher) {
    let unread = w.groups.values().filter(|s| s.error.is_some()).count();
    // The first failure in full: a log line that says why, not only how many.
    let first = w.groups.iter().find_map(|(g, s)| Some(format!(" (first: {g}: {})", s.error.as_ref()?))).unwrap_or_default();
    let not_ok = w.groups.values().filter(|s| s.verdict.as_ref().is_some_and(|v| v.status != QueueStatus::Ok)).count();
    let also = w.discovery_error.as_deref().map_or(String::new(), |e| format!("; {e}"));
    // Reads that outlived the round: their groups keep their last verdict until the read ends.
    let slow = match w.in_flight.len() {
        0 => String::new(),
        n => format!(", {n} still being read ({})", w.in_flight.iter().take(3).cloned().collect::<Vec<_>>().join(", ")),
    };
    eprintln!("round {}: {} groups, {not_ok} not OK, {unread} not read{first}{slow}, {:.1} s{also}", w.rounds, w.groups.len(), w.last_round.as_secs_f64());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_operators_write_them() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("15"), Ok(Duration::from_secs(15)));
        assert!(parse_duration("0s").unwrap_err().contains("more than zero"));
        assert!(parse_duration("5d").unwrap_err().contains("unit"));
        assert!(parse_duration("s").is_err());
    }
}
