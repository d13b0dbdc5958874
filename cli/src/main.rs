//! `rmq-rebalance`: RocketMQ consumer rebalancing from the command line.

mod allocate;
mod queue_spec;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "rmq-rebalance", version, about = "Compute, inspect and check RocketMQ consumer rebalancing exactly as the Java client does")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Who owns which queue: a readable table, or JSON Lines cases in and answers out (--cases).
    Allocate(allocate::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Allocate(args) => allocate::run(args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("rmq-rebalance: {message}");
            ExitCode::from(2)
        }
    }
}
