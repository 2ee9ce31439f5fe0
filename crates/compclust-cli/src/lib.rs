//! `compclust`: clustering from comparisons on the command line.
//!
//! Each subcommand lives in its own module under `commands/`. The `compclust` binary and the
//! Python package's `compclust` console script both call [`run`].

mod answers;
mod commands;
mod output;
mod progress;
mod study;
mod summary;

use clap::{Parser, Subcommand};

/// The exit statuses of every subcommand (also in docs/CLI.md).
const EXIT_STATUS: &str = "\
EXIT STATUS
  0  success: every output was written
  2  error: bad input, a bad option, an output that cannot be written, or no result (e.g.
     `overlap` found no factorisation of its sample's answers); no output was replaced. Also
     a round whose flags or items file disagree with its --study file (docs/ROUNDS.md)
  3  `overlap --answers`: answers are missing; only --missing was written
  4  `overlap`: a partial estimate was written; stdout and the report (`complete`: false,
     `unresolved`) say which items it could not place

Outputs are written to temporary files next to their targets and moved into place only when
the run succeeds: a failed run leaves every earlier output as it was.";

/// Cluster items from crowd comparisons (triplets, quadruplets, most-central, odd-one-out,
/// same-cluster answers).
#[derive(Parser, Debug)]
#[command(
    name = "compclust",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = EXIT_STATUS
)]
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
    Hierarchy(Box<commands::hierarchy::Args>),
    /// Overlapping clusters from same-cluster queries (Huleihel et al. 2019).
    Overlap(Box<commands::overlap::Args>),
    /// Ordinal embedding of triplets (t-STE, SOE, FORTE): item coordinates as CSV.
    Embed(commands::embed::Args),
    /// The random questions of a passive study (triplets or quadruplets), without repeats.
    Design(commands::design::Args),
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
    /// Serve studies over HTTP: ask people the algorithms' questions, keep every answer.
    Serve(commands::serve::Args),
    /// Simulated participants answering a served study over HTTP (demos, tests, benchmarks).
    Crowd(commands::crowd::Args),
    /// Measure the speed targets (SPUR at the paper default, 4-AL) on this machine.
    Bench(commands::bench::Args),
}

/// Run the command line `args` (the program name first, as `std::env::args_os` gives it) and
/// return its exit status (EXIT STATUS in `--help`). Usage errors print clap's message and
/// return 2; `--help` and `--version` print and return 0.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    let result = match cli.command {
        Command::Demo(a) => commands::demo::run(a),
        Command::Cluster(a) => commands::cluster::run(a),
        Command::Hierarchy(a) => commands::hierarchy::run(*a),
        Command::Overlap(a) => commands::overlap::run(*a),
        Command::Embed(a) => commands::embed::run(a),
        Command::Design(a) => commands::design::run(a),
        Command::Simulate(c) => commands::simulate::run(c),
        Command::Eval(c) => commands::eval::run(c),
        Command::Convert(a) => commands::convert::run(a),
        Command::Experiment(a) => commands::experiment::run(a),
        Command::Serve(a) => commands::serve::run(a),
        Command::Crowd(a) => commands::crowd::run(a),
        Command::Bench(a) => commands::bench::run(a),
    };
    match result {
        Ok(code) => code.0,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            2
        }
    }
}

/// One sentence for an error and its causes: each cause is appended once (a cause whose text
/// the message already holds, such as the I/O error inside "file: reason", is not repeated),
/// and `(os error N)` is dropped after the reason in words.
pub(crate) fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = output::strip_os_codes(&cause.to_string());
        if c.is_empty() || text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}
