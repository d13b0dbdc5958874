//! `rmq-rebalance allocate`: the human form (a table of owners) and the batch form (JSON Lines).

use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

use rocketmq_rebalance::{batch, java_order, verify, MessageQueue, StrategyConfig};
use serde_json::Value;

use crate::queue_spec;

#[derive(clap::Args)]
pub struct Args {
    /// JSON Lines cases to answer, one output line per input line; `-` reads stdin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["queues", "consumers"])]
    cases: Option<String>,
    /// Queues as TOPIC@BROKER:IDS (e.g. TopicA@broker-a:0-7); repeat or separate with spaces.
    #[arg(long, value_delimiter = ' ', num_args = 1..)]
    queues: Vec<String>,
    /// Client ids, comma-separated.
    #[arg(long, value_delimiter = ',')]
    consumers: Vec<String>,
    /// Strategy: averagely, circle, consistent_hash, machine_room_nearby, by_machine_room,
    /// by_config, balanced_sticky, balanced_sticky_v2, or its Java name (AVG, AVG_BY_CIRCLE,
    /// CONSISTENT_HASH, ...).
    #[arg(long, default_value = "averagely")]
    strategy: String,
    /// Strategy parameters as a JSON object, e.g. '{"virtual_node_count": 20}'.
    #[arg(long, default_value = "{}")]
    params: String,
    /// Keep the given order instead of sorting like RebalanceImpl (strategies depend on order).
    #[arg(long)]
    no_sort: bool,
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    match &args.cases {
        Some(path) => run_batch(path),
        None => run_table(args),
    }
}

fn run_batch(path: &str) -> Result<ExitCode, String> {
    let input: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
        Box::new(std::io::BufReader::new(file))
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut malformed = 0usize;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("reading {path}: {e}"))?;
        let (answer, bad) = batch::answer_line(&line, i + 1);
        malformed += usize::from(bad);
        writeln!(out, "{answer}").map_err(|e| format!("writing output: {e}"))?;
    }
    out.flush().map_err(|e| format!("writing output: {e}"))?;
    if malformed > 0 {
        eprintln!("rmq-rebalance: {malformed} malformed input line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A small built-in group, so that `rmq-rebalance allocate` alone shows what the tool does.
const DEMO_QUEUES: &[&str] = &["TopicA@broker-a:0-3", "TopicA@broker-b:0-3", "TopicB@broker-a:0-1"];
const DEMO_CONSUMERS: &[&str] = &["10.0.0.1@4242", "10.0.0.2@4242", "10.0.0.3@4242"];

/// What RebalanceImpl never passes a strategy: refused with what was expected (Java throws for the
/// empty lists; a queue listed twice would be counted twice and owned twice).
fn check_inputs(queues: &[MessageQueue], consumers: &[String]) -> Result<(), String> {
    if queues.is_empty() {
        return Err("no queues: give --queues TOPIC@BROKER:IDS, e.g. --queues TopicA@broker-a:0-7 \
                    (Java: IllegalArgumentException: mqAll is null or mqAll empty)"
            .into());
    }
    if consumers.is_empty() {
        return Err("no client ids: give --consumers ID,ID,..., e.g. --consumers 10.0.0.1@4242,10.0.0.2@4242 \
                    (Java: IllegalArgumentException: cidAll is null or cidAll empty)"
            .into());
    }
    let mut seen = std::collections::HashMap::with_capacity(queues.len());
    for q in queues {
        *seen.entry(q).or_insert(0usize) += 1;
    }
    if seen.len() < queues.len() {
        let mut repeated: Vec<(&MessageQueue, usize)> = seen.into_iter().filter(|(_, n)| *n > 1).collect();
        repeated.sort_by(|a, b| a.0.cmp(b.0));
        let (q, n) = repeated[0];
        return Err(format!(
            "{} queue(s) listed more than once (first: {}@{}:{} listed {n} times): each queue must appear once in --queues",
            repeated.len(),
            q.topic,
            q.broker_name,
            q.queue_id
        ));
    }
    Ok(())
}

fn run_table(args: Args) -> Result<ExitCode, String> {
    let demo = args.queues.is_empty() && args.consumers.is_empty();
    let specs: Vec<String> = if demo { DEMO_QUEUES.iter().map(|s| s.to_string()).collect() } else { args.queues };
    let mut consumers: Vec<String> = if demo { DEMO_CONSUMERS.iter().map(|s| s.to_string()).collect() } else { args.consumers };
    if demo {
        println!("(no --queues/--consumers given: a built-in example group; see --help)\n");
    }
    let mut queues: Vec<MessageQueue> = Vec::new();
    for spec in specs.iter().filter(|s| !s.is_empty()) {
        queues.extend(queue_spec::parse(spec)?);
    }
    consumers.retain(|c| !c.is_empty());
    check_inputs(&queues, &consumers)?;
    let params: Value = serde_json::from_str(&args.params).map_err(|e| format!("--params is not JSON: {e}"))?;
    let config = StrategyConfig::from_name(&args.strategy, &params).map_err(|e| e.to_string())?;
    let strategy = config.build().map_err(|e| e.to_string())?;
    if !args.no_sort {
        java_order::sort_queues(&mut queues);
        java_order::sort_client_ids(&mut consumers);
    }

    // RebalanceImpl allocates per topic: one group view for each.
    let mut topics: Vec<&str> = queues.iter().map(|q| &*q.topic).collect();
    topics.sort_unstable();
    topics.dedup();
    let mut per_consumer: Vec<Vec<&MessageQueue>> = vec![Vec::new(); consumers.len()];
    let slot_of: std::collections::HashMap<&str, usize> = consumers.iter().enumerate().rev().map(|(i, c)| (c.as_str(), i)).collect();
    let (mut orphaned, mut double_owned, mut duplicates) = (0, 0, Vec::new());
    // RebalanceImpl asks per topic; a strategy that balances across topics is asked once with
    // every queue, as its whole-group view is meant to be used.
    let calls: Vec<Vec<usize>> = if strategy.balances_across_topics() {
        vec![(0..queues.len()).collect()]
    } else {
        topics.iter().map(|topic| (0..queues.len()).filter(|&i| &*queues[i].topic == *topic).collect()).collect()
    };
    for positions in calls {
        let topic_queues: Vec<MessageQueue> = positions.iter().map(|&i| queues[i].clone()).collect();
        let view = strategy.allocate_group("cli", &topic_queues, &consumers).map_err(|e| format!("{}: {e}", e.java_exception()))?;
        let report = verify(&topic_queues, &consumers, &view.ownership(&topic_queues));
        orphaned += report.orphaned.len();
        double_owned += report.double_owned.len();
        duplicates = report.duplicate_client_ids;
        for share in &view.members {
            let owned = &mut per_consumer[slot_of[share.client_id.as_str()]];
            match share.allocation.positions() {
                Some(p) => owned.extend(p.map(|i| &queues[positions[i]])),
                // CONFIG hands out queues of its own, the same list for every topic.
                None => return Err("by_config ignores the queue list; use --cases to see its answer".into()),
            }
        }
    }

    println!("strategy {} ({} queues, {} consumers, {} topic(s))\n", strategy.name(), queues.len(), consumers.len(), topics.len());
    let width = consumers.iter().map(|c| c.chars().count()).max().unwrap_or(8).max(8);
    println!("{:<width$}  {:>6}  queues", "consumer", "count");
    let mut seen = std::collections::HashSet::new();
    for (id, owned) in consumers.iter().zip(&per_consumer) {
        if !seen.insert(id) {
            println!("{id:<width$}  {:>6}  (duplicate id: computes the same share as above)", "-");
            continue;
        }
        println!("{id:<width$}  {:>6}  {}", owned.len(), queue_spec::format(owned));
    }
    let loads: Vec<(usize, u64)> =
        consumers.iter().zip(&per_consumer).filter(|(id, _)| seen.remove(id)).map(|(id, owned)| (owned.len(), strategy.share_weight(id))).collect();
    if let (Some(min), Some(max)) = (loads.iter().map(|l| l.0).min(), loads.iter().map(|l| l.0).max()) {
        let idle = loads.iter().filter(|l| l.0 == 0).count();
        let total_weight: u64 = loads.iter().map(|l| l.1).sum();
        if loads.iter().all(|l| l.1 == 1) {
            let mean = queues.len() as f64 / loads.len() as f64;
            println!("\nbalance: min {min}, max {max}, ideal {mean:.2} (queues/consumers), max/ideal {:.2}, idle consumers {idle}", max as f64 / mean);
        } else {
            // Each consumer's fair share is queues x weight / total weight.
            let worst = loads.iter().map(|(n, w)| *n as f64 * total_weight as f64 / (queues.len() as f64 * *w as f64)).fold(0.0, f64::max);
            println!(
                "\nbalance (weighted): min {min}, max {max}, largest count/share {worst:.2} (share: queues x weight / total weight), idle consumers {idle}"
            );
        }
    }
    println!("check: {orphaned} orphaned queue(s), {double_owned} double-owned queue(s)");
    if !duplicates.is_empty() {
        println!("warning: duplicate client id(s) {}: two processes with one id both consume the same share", duplicates.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
