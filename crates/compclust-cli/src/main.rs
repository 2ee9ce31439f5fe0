//! `compclust`: clustering from comparisons on the command line.
//!
//! Each subcommand lives in its own module under `commands/`.

mod commands;
mod progress;

use clap::{Parser, Subcommand};

/// Cluster items from crowd comparisons (triplets, quadruplets, most-central, odd-one-out,
/// same-cluster answers).
#[derive(Parser, Debug)]
#[command(name = "compclust", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Simulate the paper's default planted model, cluster it, report k̂, ARI and time.
    Demo(commands::demo::Args),
    /// Flat clustering (AddS-3/4 or MulK + SDP + SPUR).
    Cluster(commands::cluster::Args),
    /// Hierarchical clustering (4-AL, 4K-AL, SL, CL).
    Hierarchy(commands::hierarchy::Args),
    /// Overlapping clusters from same-cluster queries (Huleihel et al. 2019).
    Overlap(Box<commands::overlap::Args>),
    /// Write simulated comparisons (or memberships) and the truth to a folder.
    #[command(subcommand)]
    Simulate(commands::simulate::Command),
    /// Compare a prediction with the truth (ARI, AARI, Dasgupta cost, gram error).
    #[command(subcommand)]
    Eval(commands::eval::Command),
    /// Convert any supported input format into any supported output format.
    Convert(commands::convert::Args),
    /// Reproduce a paper experiment (grid, seeds, tidy CSV, figures); `experiment list`.
    Experiment(commands::experiment::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(a) => commands::demo::run(a),
        Command::Cluster(a) => commands::cluster::run(a),
        Command::Hierarchy(a) => commands::hierarchy::run(a),
        Command::Overlap(a) => commands::overlap::run(*a),
        Command::Simulate(c) => commands::simulate::run(c),
        Command::Eval(c) => commands::eval::run(c),
        Command::Convert(a) => commands::convert::run(a),
        Command::Experiment(a) => commands::experiment::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
