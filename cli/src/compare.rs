//! `rmq-rebalance compare`: every strategy over a grid of group shapes, for balance and for
//! movement on one join and one leave relative to the fewest moves any balanced assignment needs.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::process::ExitCode;

use rocketmq_rebalance::movement_bound::lower_bound;
use rocketmq_rebalance::{java_order, strategy_from_config, MessageQueue, Strategy};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Strategies to compare (config names).
    #[arg(long, value_delimiter = ',', default_value = "averagely,circle,consistent_hash,balanced_sticky")]
    strategies: Vec<String>,
    /// Topic counts of the grid.
    #[arg(long, value_delimiter = ',', default_value = "1,4,50,200")]
    topics: Vec<usize>,
    /// Queues per topic.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,64")]
    queues: Vec<usize>,
    /// Group sizes.
    #[arg(long, value_delimiter = ',', default_value = "2,3,5,12,64")]
    members: Vec<usize>,
    /// Print every cell and the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Write a chart (movement vs balance, one point per strategy and cell) to this SVG file.
    #[arg(long)]
    svg: Option<std::path::PathBuf>,
}

type Owners = HashMap<MessageQueue, String>;

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
}

/// Owners as clients compute them: Java strategies per topic (RebalanceImpl), a strategy that
/// balances across topics once over every topic.
fn owners(strategy: &dyn Strategy, queues: &[MessageQueue], ids: &[String]) -> Result<Owners, String> {
    let mut ids = ids.to_vec();
    java_order::sort_client_ids(&mut ids);
    let mut calls: BTreeMap<&str, Vec<MessageQueue>> = BTreeMap::new();
    let whole = strategy.balances_across_topics();
    for q in queues {
        calls.entry(if whole { "" } else { &q.topic }).or_default().push(q.clone());
    }
    let mut out = Owners::new();
    for (_, mut qs) in calls {
        java_order::sort_queues(&mut qs);
        let view = strategy.allocate_group("compare", &qs, &ids).map_err(|e| e.to_string())?;
        for (q, owners) in view.ownership(&qs).queues() {
            if let Some(o) = owners.iter().next() {
                out.insert(q.clone(), o.clone());
            }
        }
    }
    Ok(out)
}

fn moved(before: &Owners, after: &Owners) -> usize {
    before.iter().filter(|(q, o)| after.get(*q) != Some(*o)).count()
}

fn cell(name: &str, strategy: &dyn Strategy, topics: usize, per: usize, members: usize) -> Result<Cell, String> {
    let queues: Vec<MessageQueue> = (0..topics).flat_map(|t| (0..per).map(move |q| MessageQueue::new(format!("Topic{t}"), "broker-a", q as i32))).collect();
    let ids: Vec<String> = (0..members).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let mut joined = ids.clone();
    joined.push("10.9.9.9@1".into());
    let mut left = ids.clone();
    left.remove(members / 2);
    let before = owners(strategy, &queues, &ids)?;
    let (after_join, after_leave) = (owners(strategy, &queues, &joined)?, if left.is_empty() { Owners::new() } else { owners(strategy, &queues, &left)? });
    let mut load: HashMap<&str, usize> = ids.iter().map(|i| (i.as_str(), 0)).collect();
    let mut per_topic: HashMap<(&str, &str), usize> = HashMap::new();
    for (q, o) in &before {
        *load.entry(o).or_default() += 1;
        *per_topic.entry((&q.topic, o.as_str())).or_default() += 1;
    }
    let avg = queues.len() as f64 / members as f64;
    let spread = (0..topics)
        .map(|t| {
            let topic = format!("Topic{t}");
            let counts: Vec<usize> = ids.iter().map(|i| per_topic.get(&(topic.as_str(), i.as_str())).copied().unwrap_or(0)).collect();
            counts.iter().max().unwrap_or(&0) - counts.iter().min().unwrap_or(&0)
        })
        .max()
        .unwrap_or(0);
    Ok(Cell {
        strategy: name.to_owned(),
        topics,
        queues_per_topic: per,
        members,
        max_over_avg: *load.values().max().unwrap_or(&0) as f64 / avg,
        topic_spread: spread,
        idle_members: load.values().filter(|n| **n == 0).count(),
        join_moved: moved(&before, &after_join),
        join_bound: lower_bound(&before, &queues, &joined),
        leave_moved: moved(&before, &after_leave),
        leave_bound: if left.is_empty() { 0 } else { lower_bound(&before, &queues, &left) },
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
    if args.strategies.is_empty() {
        return Err("--strategies: name at least one strategy".into());
    }
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    check_grid(&args)?;
    let strategies = args
        .strategies
        .iter()
        .map(|name| strategy_from_config(name, &serde_json::Value::Null).map_err(|e| format!("--strategies: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let per_strategy = args.topics.len() * args.queues.len() * args.members.len();
    let bar = crate::progress::bar((strategies.len() * per_strategy) as u64, "cells");
    let mut cells = Vec::new();
    let mut summaries = Vec::new();
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
    }
    bar.finish_and_clear();
    if let Some(path) = &args.svg {
        std::fs::write(path, svg(&cells)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::json!({ "summary": summaries, "cells": cells }));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} cells: topics {:?} x queues per topic {:?} x members {:?}",
        args.topics.len() * args.queues.len() * args.members.len(),
        args.topics,
        args.queues,
        args.members
    );
    println!("movement is queues moved / the fewest any balanced assignment must move (per-topic floor/ceil, totals within one), summed over the grid\n");
    println!("| strategy | mean max/avg load | worst max/avg | worst per-topic spread | idle members | join: moved / bound | leave: moved / bound |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for s in &summaries {
        println!(
            "| {} | {:.2} | {:.2} | {} | {} | {:.2} | {:.2} |",
            s.strategy, s.mean_max_over_avg, s.worst_max_over_avg, s.worst_topic_spread, s.idle_members, s.join_ratio, s.leave_ratio
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Movement (x, log scale) against balance (y), one dot per strategy and cell.
fn svg(cells: &[Cell]) -> String {
    let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
    let mut names: Vec<&str> = cells.iter().map(|c| c.strategy.as_str()).collect();
    names.dedup();
    let (w, h, left, bottom) = (760.0, 480.0, 70.0, 50.0);
    let x_of = |ratio: f64| left + (ratio.max(0.1).log10() + 1.0) / 3.0 * (w - left - 180.0);
    // Cells with fewer queues than members have a max/avg of up to members/queues whatever the
    // strategy: the axis stops at 3 and such points sit on the top edge.
    let y_max = 3.0;
    let y_of = |v: f64| (h - bottom) - (v.min(y_max) / y_max) * (h - bottom - 20.0);
    let mut out = String::new();
    let _ = write!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#);
    let _ = write!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for tick in [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0] {
        let x = x_of(tick);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="20" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{tick}</text>"##,
            h - bottom,
            h - bottom + 16.0
        );
    }
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        let y = y_of(v);
        let _ = write!(
            out,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.1}</text>"##,
            w - 180.0,
            left - 6.0,
            y + 4.0
        );
        v += 0.25;
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">queues moved on a join and a leave / lower bound (log scale; 1 = optimal)</text>"#,
        (w - 180.0 + left) / 2.0,
        h - 12.0
    );
    let _ = write!(
        out,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">max load / average (1 = perfect; capped at 3)</text>"#,
        (h - bottom) / 2.0
    );
    for c in cells {
        let color = colors[names.iter().position(|n| *n == c.strategy).unwrap_or(0) % colors.len()];
        let ratio = (c.join_moved + c.leave_moved) as f64 / ((c.join_bound + c.leave_bound).max(1)) as f64;
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}" fill-opacity="0.55"><title>{} {}x{}x{}</title></circle>"#,
            x_of(ratio),
            y_of(c.max_over_avg),
            c.strategy,
            c.topics,
            c.queues_per_topic,
            c.members
        );
    }
    for (i, name) in names.iter().enumerate() {
        let y = 40.0 + 20.0 * i as f64;
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="{}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            w - 165.0,
            colors[i % colors.len()],
            w - 155.0,
            y + 4.0
        );
    }
    out.push_str("</svg>\n");
    out
}
