//! `rmq-rebalance compare`: every strategy over a grid of group shapes, for balance and for
//! movement on one join and one leave relative to three yardsticks: the fewest moves any exactly
//! balanced assignment needs, the fewest under the strategy's own balance rule (BALANCED_STICKY_V2's
//! caps), and the fair share (Q/(C+1) for a join, Q/C for a leave).

mod measure;
mod realistic;
mod svg;

use std::process::ExitCode;

use std::sync::Arc;

use rocketmq_rebalance::strategy::balanced_sticky::Caps;
use rocketmq_rebalance::{MessageQueue, Strategy, StrategyConfig};
use serde::Serialize;

use self::measure::{measure, Rule};

#[derive(clap::Args)]
pub struct Args {
    /// Strategies to compare (config names).
    #[arg(long, value_delimiter = ',', default_value = "averagely,circle,consistent_hash,balanced_sticky,balanced_sticky_v2")]
    strategies: Vec<String>,
    /// BALANCED_STICKY again with each of these total slacks (how far a member's total may stray
    /// from its share), to show what balance buys in movement; empty or 0 for none.
    #[arg(long, value_parser = slack_list, default_value = "1,2,3")]
    sticky_slack: SlackList,
    /// BALANCED_STICKY_V2 again with each of these caps, as OVERLOAD:UNDERLOAD percent (how far
    /// above and below the even share a member's total may go): the curve of balance against
    /// movement; empty for none.
    #[arg(long, value_delimiter = ',', value_parser = cap_pair)]
    v2_caps: Vec<(u32, u32)>,
    /// Topic counts of the grid.
    #[arg(long, value_delimiter = ',', default_value = "1,4,50,200")]
    topics: Vec<usize>,
    /// Queues per topic.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,64")]
    queues: Vec<usize>,
    /// Group sizes.
    #[arg(long, value_delimiter = ',', default_value = "2,3,5,12,64")]
    members: Vec<usize>,
    /// Random groups shaped like real deployments, measured next to the grid (0: none).
    #[arg(long, default_value_t = 300)]
    random_groups: usize,
    /// Seed of the random groups (printed; the same seed gives the same groups).
    #[arg(long, default_value_t = 20261201)]
    seed: u64,
    /// Print every cell and the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Write a chart (movement vs balance, one point per strategy and cell) to this SVG file.
    #[arg(long)]
    svg: Option<std::path::PathBuf>,
}

/// One strategy on one cell.
#[derive(Serialize, Clone)]
struct Cell {
    strategy: String,
    topics: usize,
    queues_per_topic: usize,
    members: usize,
    /// Most-loaded member's queues over the average.
    max_over_avg: f64,
    /// Most-loaded member's queues over ceil(Q/C).
    max_over_ceil: f64,
    /// Largest difference between two members' counts within one topic.
    topic_spread: usize,
    idle_members: usize,
    join_moved: usize,
    join_bound: usize,
    leave_moved: usize,
    leave_bound: usize,
    /// The bounds under the strategy's own balance rule.
    join_own_bound: usize,
    leave_own_bound: usize,
    join_fair: f64,
    leave_fair: f64,
}

#[derive(Serialize)]
struct Summary {
    strategy: String,
    mean_max_over_avg: f64,
    worst_max_over_avg: f64,
    /// Largest member total over ceil(Q/C): mean and worst over the grid.
    mean_max_over_ceil: f64,
    worst_max_over_ceil: f64,
    worst_topic_spread: usize,
    idle_members: usize,
    /// Moved / lower bound, summed over the grid.
    join_ratio: f64,
    leave_ratio: f64,
    /// Moved / the bound under the strategy's own rule, summed over the grid.
    join_own_ratio: f64,
    leave_own_ratio: f64,
    /// Moved / fair share (Q/(C+1) for a join, Q/C for a leave), summed over the grid.
    join_fair_ratio: f64,
    leave_fair_ratio: f64,
}

fn cell(name: &str, strategy: &dyn Strategy, rule: Rule, topics: usize, per: usize, members: usize) -> Result<Cell, String> {
    let queues: Vec<MessageQueue> = (0..topics).flat_map(|t| (0..per).map(move |q| MessageQueue::new(format!("Topic{t}"), "broker-a", q as i32))).collect();
    let ids: Vec<String> = (0..members).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let m = measure(strategy, rule, &queues, &ids, "10.9.9.9@1", members / 2)?;
    Ok(Cell {
        strategy: name.to_owned(),
        topics,
        queues_per_topic: per,
        members,
        max_over_avg: m.max_over_avg,
        max_over_ceil: m.max_over_ceil,
        topic_spread: m.topic_spread,
        idle_members: m.idle_members,
        join_moved: m.join_moved,
        join_bound: m.join_bound,
        leave_moved: m.leave_moved,
        leave_bound: m.leave_bound,
        join_own_bound: m.join_own_bound,
        leave_own_bound: m.leave_own_bound,
        join_fair: m.join_fair,
        leave_fair: m.leave_fair,
    })
}

fn summarise(name: &str, cells: &[Cell]) -> Summary {
    let sum = |f: fn(&Cell) -> usize| cells.iter().map(f).sum::<usize>() as f64;
    Summary {
        strategy: name.to_owned(),
        mean_max_over_avg: cells.iter().map(|c| c.max_over_avg).sum::<f64>() / cells.len().max(1) as f64,
        worst_max_over_avg: cells.iter().map(|c| c.max_over_avg).fold(0.0, f64::max),
        mean_max_over_ceil: cells.iter().map(|c| c.max_over_ceil).sum::<f64>() / cells.len().max(1) as f64,
        worst_max_over_ceil: cells.iter().map(|c| c.max_over_ceil).fold(0.0, f64::max),
        worst_topic_spread: cells.iter().map(|c| c.topic_spread).max().unwrap_or(0),
        idle_members: cells.iter().map(|c| c.idle_members).sum(),
        join_ratio: sum(|c| c.join_moved) / sum(|c| c.join_bound).max(1.0),
        leave_ratio: sum(|c| c.leave_moved) / sum(|c| c.leave_bound).max(1.0),
        join_own_ratio: sum(|c| c.join_moved) / sum(|c| c.join_own_bound).max(1.0),
        leave_own_ratio: sum(|c| c.leave_moved) / sum(|c| c.leave_own_bound).max(1.0),
        join_fair_ratio: realistic::fair_ratio(cells.iter().map(|c| (c.join_moved, c.join_fair))),
        leave_fair_ratio: realistic::fair_ratio(cells.iter().map(|c| (c.leave_moved, c.leave_fair))),
    }
}

/// The grid must describe groups a join and a leave can be measured on.
fn check_grid(args: &Args) -> Result<(), String> {
    let check = |name: &str, values: &[usize], least: usize, why: &str| match values.iter().find(|v| **v < least) {
        Some(v) => Err(format!("--{name} {v}: each must be at least {least} ({why})")),
        None => Ok(()),
    };
    check("topics", &args.topics, 1, "a group consumes at least one topic")?;
    check("queues", &args.queues, 1, "a topic has at least one queue")?;
    check("members", &args.members, 2, "a leave needs a member to remain")?;
    for (name, values) in [("topics", &args.topics), ("queues", &args.queues), ("members", &args.members)] {
        if let Some(v) = values.iter().find(|v| **v > 100_000) {
            return Err(format!("--{name} {v}: at most 100000 (a cell is computed three times per strategy)"));
        }
    }
    if args.random_groups > 100_000 {
        return Err(format!("--random-groups {}: at most 100000", args.random_groups));
    }
    if args.strategies.is_empty() {
        return Err("--strategies: name at least one strategy".into());
    }
    Ok(())
}

/// A comma-separated list of slacks, possibly empty (clap's own list form refuses an empty one).
#[derive(Clone)]
struct SlackList(Vec<u32>);

fn slack_list(text: &str) -> Result<SlackList, String> {
    let parts = text.split(',').map(str::trim).filter(|p| !p.is_empty());
    parts.map(|p| p.parse::<u32>().map_err(|e| format!("{p:?}: {e}"))).collect::<Result<_, _>>().map(SlackList)
}

/// A strategy to measure and the rule its own bound is computed under.
type Measured = (Arc<dyn Strategy>, Rule);

/// `OVERLOAD:UNDERLOAD`, two percentages.
fn cap_pair(text: &str) -> Result<(u32, u32), String> {
    let (o, u) = text.split_once(':').ok_or_else(|| format!("{text:?}: expected OVERLOAD:UNDERLOAD, say 20:40"))?;
    let number = |p: &str| p.trim().parse::<u32>().map_err(|e| format!("{p:?}: {e}"));
    Ok((number(o)?, number(u)?))
}

/// The strategies to compare, each with the balance rule its own bound is computed under: the
/// named ones, then BALANCED_STICKY with each slack and BALANCED_STICKY_V2 with each pair of caps.
fn strategies(args: &Args) -> Result<Vec<Measured>, String> {
    let named = args.strategies.iter().map(|name| (name.as_str(), serde_json::Value::Null, "--strategies"));
    let slacks = args.sticky_slack.0.iter().filter(|s| **s > 0).map(|s| ("balanced_sticky", serde_json::json!({ "total_slack": s }), "--sticky-slack"));
    let overloads = args.v2_caps.iter().map(|(o, u)| ("balanced_sticky_v2", serde_json::json!({ "overload_percent": o, "underload_percent": u }), "--v2-caps"));
    named
        .chain(slacks)
        .chain(overloads)
        .map(|(name, params, flag)| {
            let config = StrategyConfig::from_name(name, &params).map_err(|e| format!("{flag}: {e}"))?;
            let rule = match &config {
                // Built below, which checks both are in range.
                StrategyConfig::BalancedStickyV2 { overload_percent, underload_percent, .. } => Rule::Capacity(Caps {
                    overload_percent: u32::try_from(*overload_percent).unwrap_or(0),
                    underload_percent: u32::try_from(*underload_percent).unwrap_or(0),
                }),
                _ => Rule::Exact,
            };
            Ok((config.build().map_err(|e| format!("{flag}: {e}"))?, rule))
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    check_grid(&args)?;
    let strategies = strategies(&args)?;
    let per_strategy = args.topics.len() * args.queues.len() * args.members.len() + args.random_groups;
    let bar = crate::progress::bar((strategies.len() * per_strategy) as u64, "cells");
    let mut cells = Vec::new();
    let mut summaries = Vec::new();
    let (mut groups, mut realistic_summaries) = (Vec::new(), Vec::new());
    for (strategy, rule) in &strategies {
        let rule = *rule;
        let mut mine = Vec::new();
        for &t in &args.topics {
            for &q in &args.queues {
                for &m in &args.members {
                    mine.push(cell(&strategy.name(), strategy.as_ref(), rule, t, q, m)?);
                    bar.inc(1);
                }
            }
        }
        summaries.push(summarise(&strategy.name(), &mine));
        cells.extend(mine);
        let mut random = Vec::new();
        for i in 0..args.random_groups {
            random.push(realistic::group(&strategy.name(), strategy.as_ref(), rule, args.seed, i)?);
            bar.inc(1);
        }
        realistic_summaries.push(realistic::summarise(&strategy.name(), &random));
        groups.extend(random);
    }
    bar.finish_and_clear();
    if let Some(path) = &args.svg {
        std::fs::write(path, svg::svg(&cells)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "summary": summaries, "cells": cells, "random": { "seed": args.seed, "summary": realistic_summaries, "groups": groups } })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} cells: topics {:?} x queues per topic {:?} x members {:?}",
        args.topics.len() * args.queues.len() * args.members.len(),
        args.topics,
        args.queues,
        args.members
    );
    println!("movement is queues moved, summed over the grid, over three yardsticks: the exact bound, the fewest any exactly balanced");
    println!("assignment must move (per-topic floor/ceil, totals within one) from the strategy's own last one; the own-rule bound, the same");
    println!("under the strategy's own balance rule (BALANCED_STICKY_V2's caps; the exact rule for the others); and the fair share, Q/(C+1)");
    println!("for a join and Q/C for a leave, which no stateless strategy beats in expectation, balanced or not. Balance: the largest");
    println!("member total over ceil(Q/C), what an exactly balanced member holds at most\n");
    println!("| strategy | largest / ceil(Q/C): mean, worst | worst per-topic spread | idle members | join / leave: moved / exact bound | join / leave: moved / own-rule bound | join / leave: moved / fair share |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for s in &summaries {
        println!(
            "| {} | {:.2}, {:.2} | {} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} |",
            s.strategy,
            s.mean_max_over_ceil,
            s.worst_max_over_ceil,
            s.worst_topic_spread,
            s.idle_members,
            s.join_ratio,
            s.leave_ratio,
            s.join_own_ratio,
            s.leave_own_ratio,
            s.join_fair_ratio,
            s.leave_fair_ratio
        );
    }
    if args.random_groups > 0 {
        println!(
            "\n{} random groups like real deployments (seed {}; --seed to change): 1-40 topics of 1-16 queues over 1-3 brokers, 2-24 members with ip@pid#nanotime ids\n",
            args.random_groups, args.seed
        );
        println!(
            "| strategy | largest / ceil(Q/C): mean, worst | worst per-topic spread | join / leave: moved / exact bound | join / leave: moved / own-rule bound | worst join / leave group (own rule) | groups over 3x own bound + 2 | join / leave: forced by the new per-topic counts / exact bound | join / leave: moved / fair share |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for s in &realistic_summaries {
            println!(
                "| {} | {:.2}, {:.2} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {} | {:.2} / {:.2} | {:.2} / {:.2} |",
                s.strategy,
                s.mean_max_over_ceil,
                s.worst_max_over_ceil,
                s.worst_topic_spread,
                s.join_ratio,
                s.leave_ratio,
                s.join_own_ratio,
                s.leave_own_ratio,
                s.worst_join,
                s.worst_leave,
                s.over_3x_plus_2,
                s.join_forced_ratio,
                s.leave_forced_ratio,
                s.join_fair_ratio,
                s.leave_fair_ratio
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
