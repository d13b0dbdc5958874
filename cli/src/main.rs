//! `rmq-rebalance`: RocketMQ consumer rebalancing from the command line.

mod allocate;
mod compare;
mod inspect;
mod progress;
mod queue_spec;
mod sim_table;
mod simulate;
mod watch;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "rmq-rebalance", version = env!("RMQ_LONG_VERSION"), about = "Compute, inspect and check RocketMQ consumer rebalancing exactly as the Java client does")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Who owns which queue: a readable table, or JSON Lines cases in and answers out (--cases).
    Allocate(allocate::Args),
    /// Run the rebalance engine in a seeded model of a RocketMQ cluster with injected faults, and
    /// check that nothing is lost, orderly queues stay exclusive, and the group converges.
    Simulate(simulate::Args),
    /// What a running consumer group holds against what it should hold, read from the cluster
    /// (read-only): queues nobody holds, queues held twice, holders their strategy does not name.
    Inspect(inspect::Args),
    /// Every consumer group of a cluster (or those named) judged round after round: each queue's
    /// status (Burrow's OK/WARN/STALL/STOP/REWIND) with its cause in ownership, owner history as
    /// JSON lines, Prometheus metrics and pages over HTTP.
    Watch(watch::Args),
    /// Every strategy over a grid of group shapes: balance, idle members, and movement on one join
    /// and one leave relative to the fewest moves any balanced assignment needs, and to the fair
    /// share (Q/(C+1) for a join, Q/C for a leave).
    Compare(compare::Args),
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a closed pipe (`inspect --load big.json | head -1`) turned every
    // print into a panic. A command-line tool ends as `cat` does: killed by the signal, silently.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Allocate(args) => allocate::run(args),
        Command::Simulate(args) => simulate::run_cmd(args),
        Command::Compare(args) => compare::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Watch(args) => watch::run(args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("rmq-rebalance: {message}");
            ExitCode::from(2)
        }
    }
}
