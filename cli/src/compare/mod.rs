//! `rmq-rebalance compare`: every strategy over a grid of group shapes, for balance and for
//! movement on one join and one leave relative to the fewest moves any balanced assignment needs
//! and to the fair share (Q/(C+1) for a join, Q/C for a leave).

mod measure;
mod realistic;
mod svg;

use std::process::ExitCode;

use rocketmq_rebalance::{strategy_from_config, MessageQueue, Strategy};
use serde::Serialize;

use self::measure::measure;

#[derive(clap::Args)]
pub struct Args {
    /// Strategies to compare (config names).
    #[arg(long, value_delimiter = ',', default_value = "averagely,circle,consistent_hash,balanced_sticky")]
    strategies: Vec<String>,
    /// BALANCED_STICKY again with each of these total slacks (how far a member's total may stray
    /// from its share), to show what balance buys in movement; empty or 0 for none.
    #[arg(long, value_parser = slack_list, default_value = "1,2,3")]
    sticky_slack: SlackList,
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
    /// Largest difference between two members' counts within one topic.
    topic_spread: usize,
    idle_members: usize,
    join_moved: usize,
    join_bound: usize,
    leave_moved: usize,
    leave_bound: usize,
    join_fair: f64,
    leave_fair: f64,
}

#[derive(Serialize)]
struct Summary {
    strategy: String,
    mean_max_over_avg: f64,
    worst_max_over_avg: f64,
    worst_topic_spread: usize,
    idle_members: usize,
    /// Moved / lower bound, summed over the grid.
    join_ratio: f64,
    leave_ratio: f64,
    /// Moved / fair share (Q/(C+1) for a join, Q/C for a leave), summed over the grid.
    join_fair_ratio: f64,
    leave_fair_ratio: f64,
}

fn cell(name: &str, strategy: &dyn Strategy, topics: usize, per: usize, members: usize) -> Result<Cell, String> {
    let queues: Vec<MessageQueue> = (0..topics).flat_map(|t| (0..per).map(move |q| MessageQueue::new(format!("Topic{t}"), "broker-a", q as i32))).collect();
    let ids: Vec<String> = (0..members).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let m = measure(strategy, &queues, &ids, "10.9.9.9@1", members / 2)?;
    Ok(Cell {
        strategy: name.to_owned(),
        topics,
        queues_per_topic: per,
        members,
        max_over_avg: m.max_over_avg,
        topic_spread: m.topic_spread,
        idle_members: m.idle_members,
        join_moved: m.join_moved,
        join_bound: m.join_bound,
        leave_moved: m.leave_moved,
        leave_bound: m.leave_bound,
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
        worst_topic_spread: cells.iter().map(|c| c.topic_spread).max().unwrap_or(0),
        idle_members: cells.iter().map(|c| c.idle_members).sum(),
        join_ratio: sum(|c| c.join_moved) / sum(|c| c.join_bound).max(1.0),
        leave_ratio: sum(|c| c.leave_moved) / sum(|c| c.leave_bound).max(1.0),
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

pub fn run(args: Args) -> Result<ExitCode, String> {
    check_grid(&args)?;
    let strategies = args
        .strategies
        .iter()
        .map(|name| strategy_from_config(name, &serde_json::Value::Null).map_err(|e| format!("--strategies: {e}")))
        .chain(
            args.sticky_slack
                .0
                .iter()
                .filter(|s| **s > 0)
                .map(|s| strategy_from_config("balanced_sticky", &serde_json::json!({ "total_slack": s })).map_err(|e| format!("--sticky-slack: {e}"))),
        )
        .collect::<Result<Vec<_>, _>>()?;
    let per_strategy = args.topics.len() * args.queues.len() * args.members.len() + args.random_groups;
    let bar = crate::progress::bar((strategies.len() * per_strategy) as u64, "cells");
    let mut cells = Vec::new();
    let mut summaries = Vec::new();
    let (mut groups, mut realistic_summaries) = (Vec::new(), Vec::new());
    for strategy in &strategies {
        let mut mine = Vec::new();
        for &t in &args.topics {
            for &q in &args.queues {
                for &m in &args.members {
                    mine.push(cell(&strategy.name(), strategy.as_ref(), t, q, m)?);
                    bar.inc(1);
                }
            }
        }
        summaries.push(summarise(&strategy.name(), &mine));
        cells.extend(mine);
        let mut random = Vec::new();
        for i in 0..args.random_groups {
            random.push(realistic::group(&strategy.name(), strategy.as_ref(), args.seed, i)?);
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
    println!("movement is queues moved, summed over the grid, over two yardsticks: the bound, the fewest any balanced assignment must move");
    println!("(per-topic floor/ceil, totals within one) from the strategy's own last one; and the fair share, Q/(C+1) for a join and Q/C for a");
    println!("leave, which no stateless strategy beats in expectation, balanced or not\n");
    println!("| strategy | mean max/avg load | worst max/avg | worst per-topic spread | idle members | join: moved / bound | leave: moved / bound | join: moved / fair share | leave: moved / fair share |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for s in &summaries {
        println!(
            "| {} | {:.2} | {:.2} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            s.strategy,
            s.mean_max_over_avg,
            s.worst_max_over_avg,
            s.worst_topic_spread,
            s.idle_members,
            s.join_ratio,
            s.leave_ratio,
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
            "| strategy | join: moved / bound | worst join group | leave: moved / bound | worst leave group | groups over 3x bound + 2 | join / leave: forced by the new per-topic counts / bound | join / leave: moved / fair share |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for s in &realistic_summaries {
            println!(
                "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {:.2} / {:.2} | {:.2} / {:.2} |",
                s.strategy,
                s.join_ratio,
                s.worst_join,
                s.leave_ratio,
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
