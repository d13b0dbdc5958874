//! `rmq-rebalance inspect`: what a running consumer group holds against what it should hold,
//! read from the cluster with read-only requests (crate `rocketmq-rebalance-remoting`) and judged
//! by core's diagnosis. Exit status 0 healthy, 1 findings, 2 could not inspect.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

use rocketmq_rebalance::diagnose::{
    diagnose_with, override_from_spec, parse_snapshot, queue_text, Diagnosis, Finding, FindingKind, Snapshot, StrategyOverrides,
};
use rocketmq_rebalance::MessageQueue;
use rocketmq_rebalance_remoting::read::{read_group, Options};
use rocketmq_rebalance_remoting::Credentials;

use crate::queue_spec;

#[derive(clap::Args)]
pub struct Args {
    /// NameServer address(es), HOST:PORT[;HOST:PORT]. Required unless --load.
    #[arg(long, required_unless_present = "load")]
    namesrv: Option<String>,
    /// The consumer group. Required unless --load.
    #[arg(long, required_unless_present = "load")]
    group: Option<String>,
    /// A topic to judge (repeat); default: every topic the group subscribes to, and its retry topic.
    #[arg(long)]
    topic: Vec<String>,
    /// The strategy of clients that do not name theirs (or to override): KEY=STRATEGY[:PARAMS],
    /// KEY a language (GO, CPP, ...) or a client id, STRATEGY as `allocate --strategy` takes it
    /// or a Go client's own go_consistent_hash / go_by_machine_room, PARAMS its JSON parameters,
    /// e.g. 'GO=go_consistent_hash:{"virtual_node_count":10}'. Others are fingerprinted.
    #[arg(long = "strategy-of", value_name = "KEY=STRATEGY[:PARAMS]")]
    strategy_of: Vec<String>,
    /// Print the findings and the per-queue table as JSON.
    #[arg(long)]
    json: bool,
    /// Also write what the cluster answered to FILE (JSON), for a later --load.
    #[arg(long, value_name = "FILE", conflicts_with = "load")]
    save: Option<String>,
    /// Diagnose a snapshot written by --save instead of reading the cluster.
    #[arg(long, value_name = "FILE")]
    load: Option<String>,
    /// Read the group twice, SECONDS apart, and report only findings present both times (a
    /// rebalance round runs every 20 s: 25 lets one pass). --save keeps the second snapshot.
    #[arg(long, value_name = "SECONDS", conflicts_with = "load")]
    settle: Option<u64>,
    /// Inspect again every SECONDS: `watch` for this one group (docs/watch.md), each round's
    /// findings as one JSON line on stdout. With --load the file is read again each round.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "json")]
    watch: Option<u64>,
    /// Where --watch serves GET /metrics and its pages (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9464", requires = "watch")]
    metrics_addr: String,
    /// Sign every request with this access key, for a cluster with ACL (1.0, or 2.0's default
    /// authentication). The secret key comes from the environment variable
    /// RMQ_REBALANCE_SECRET_KEY, never from an argument, so that it stays out of `ps`.
    #[arg(long, value_name = "KEY", conflicts_with = "load")]
    access_key: Option<String>,
    /// Stop --watch after N rounds (default: run until killed).
    #[arg(long, value_name = "N", requires = "watch")]
    watch_rounds: Option<u64>,
}

/// Where `--access-key`'s secret comes from.
const SECRET_KEY_VARIABLE: &str = "RMQ_REBALANCE_SECRET_KEY";

/// The request signing `--access-key` asks for: none without it, an error without its secret.
fn credentials(access_key: Option<&str>, secret: Option<String>) -> Result<Option<Credentials>, String> {
    match (access_key, secret) {
        (None, _) => Ok(None),
        (Some(""), _) => Err("--access-key is empty".into()),
        (Some(_), None) => Err(format!("--access-key needs its secret key in the environment variable {SECRET_KEY_VARIABLE}")),
        (Some(_), Some(secret)) if secret.is_empty() => Err(format!("{SECRET_KEY_VARIABLE} is empty")),
        (Some(key), Some(secret)) => Ok(Some(Credentials::new(key, secret))),
    }
}

/// `--access-key`'s signing, its secret from the environment.
pub(crate) fn credentials_from_env(access_key: Option<&str>) -> Result<Option<Credentials>, String> {
    credentials(access_key, std::env::var(SECRET_KEY_VARIABLE).ok())
}

fn read(args: &Args) -> Result<Snapshot, String> {
    let (namesrv, group) = (args.namesrv.as_deref().unwrap_or_default(), args.group.as_deref().unwrap_or_default());
    let options = Options { credentials: credentials_from_env(args.access_key.as_deref())?, ..Options::default() };
    read_group(namesrv, group, &args.topic, &options).map_err(|e| format!("cannot inspect {group}: {e}"))
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let overrides = parse_overrides(&args.strategy_of)?;
    if let Some(seconds) = args.watch {
        crate::watch::inspect_watch(crate::watch::InspectWatch {
            namesrv: args.namesrv.clone().unwrap_or_default(),
            group: args.group.clone().unwrap_or_default(),
            topics: args.topic.clone(),
            load: args.load.clone(),
            overrides,
            credentials: credentials_from_env(args.access_key.as_deref())?,
            listen: &args.metrics_addr,
            interval: Duration::from_secs(seconds),
            rounds: args.watch_rounds,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let (snapshot, d) = diagnosis(&args, &overrides)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?);
    } else {
        print_table(&snapshot, &d);
    }
    Ok(if d.healthy() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// One inspection as the options ask: loaded or read (twice with --settle), saved, judged, and
/// cut to the --topic list.
fn diagnosis(args: &Args, overrides: &StrategyOverrides) -> Result<(Snapshot, Diagnosis), String> {
    let mut first = None;
    let snapshot = match &args.load {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| format!("--load {file}: {e}"))?;
            parse_snapshot(&text).map_err(|e| format!("--load {file}: {e}"))?
        }
        None => {
            if let Some(seconds) = args.settle {
                first = Some(diagnose_with(&read(args)?, overrides));
                std::thread::sleep(Duration::from_secs(seconds));
            }
            read(args)?
        }
    };
    if let Some(file) = &args.save {
        let text = serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())?;
        std::fs::write(file, text + "\n").map_err(|e| format!("--save {file}: {e}"))?;
    }
    let mut d = diagnose_with(&snapshot, overrides);
    if let Some(first) = first {
        let before: BTreeSet<_> = first.findings.iter().map(Finding::identity).collect();
        d.findings.retain(|f| before.contains(&f.identity()));
    }
    if !args.topic.is_empty() {
        d.findings.retain(|f| f.topic.as_ref().is_none_or(|t| args.topic.contains(t)));
        d.queues.retain(|r| args.topic.iter().any(|t| **t == *r.queue.topic));
    }
    Ok((snapshot, d))
}

pub(crate) fn parse_overrides(specs: &[String]) -> Result<StrategyOverrides, String> {
    specs.iter().map(|spec| override_from_spec(spec).map_err(|e| format!("--strategy-of {spec:?}: {e}"))).collect()
}

fn queues(q: &[MessageQueue]) -> String {
    queue_spec::format(&q.iter().collect::<Vec<_>>())
}

fn print_table(s: &Snapshot, d: &Diagnosis) {
    let members = s.connections.len();
    println!("group {}: {members} connected clients, {} brokers asked", s.group, s.brokers.len());
    let width = d.queues.iter().map(|r| queue_text(&r.queue).len()).max().unwrap_or(5).max(5);
    for c in &d.strategies {
        let how = serde_json::to_value(c.source).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let also = if c.also_matches.is_empty() { String::new() } else { format!(" (also matches {})", c.also_matches.join(", ")) };
        println!("  {}: {} [{how}]{also}", c.client_id, c.strategy.as_deref().unwrap_or("?"));
    }
    // "?": no member's strategy is known; "none": the known strategies give the queue to nobody.
    let any_known = d.strategies.iter().any(|c| c.strategy.is_some());
    let mixed = d.findings.iter().any(|f| f.kind == FindingKind::MixedStrategies);
    let names = |ids: &[String]| {
        if !ids.is_empty() {
            ids.join(", ")
        } else if any_known {
            "none".to_owned()
        } else {
            "?".to_owned()
        }
    };
    let agreed_head = if mixed { format!("{:40}  ", "if every member agreed") } else { String::new() };
    println!("{:width$}  {:40}  {:40}  {agreed_head}lag", "queue", "held by", "expected by own strategy");
    for r in &d.queues {
        let mut held = r.holders.join(", ");
        if !r.handing_off.is_empty() {
            held += &format!(" (giving up: {})", r.handing_off.join(", "));
        }
        let held = if held.is_empty() { "-".to_owned() } else { held };
        let expected = names(&r.expected);
        let agreed = if mixed { format!("{:40}  ", names(&r.if_agreed)) } else { String::new() };
        let lag = r.lag.map_or("-".to_owned(), |l| l.to_string());
        println!("{:width$}  {held:40}  {expected:40}  {agreed}{lag}", queue_text(&r.queue));
    }
    if d.findings.is_empty() {
        println!("healthy: every queue held once, by the member its strategy names");
        return;
    }
    println!("{} findings:", d.findings.len());
    for f in &d.findings {
        let on = if f.queues.is_empty() { String::new() } else { format!(" {}", queues(&f.queues)) };
        let kind = f.kind.name();
        let lag = f.lag.map_or(String::new(), |l| format!(" [lag {l}]"));
        println!("  {kind}{on}: {}{lag}", f.detail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_access_key_needs_its_secret_and_neither_may_be_empty() {
        assert_eq!(credentials(None, Some("s".into())), Ok(None));
        assert_eq!(credentials(Some("ak"), Some("s".into())), Ok(Some(Credentials::new("ak", "s"))));
        assert!(credentials(Some("ak"), None).unwrap_err().contains(SECRET_KEY_VARIABLE));
        assert!(credentials(Some("ak"), Some(String::new())).unwrap_err().contains("is empty"));
        assert!(credentials(Some(""), Some("s".into())).unwrap_err().contains("--access-key is empty"));
    }
}
