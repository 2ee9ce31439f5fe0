//! `compclust experiment NAME [--quick] [--seeds R] --out DIR`: reproduce a paper experiment
//! over its parameter grid and repetitions, write a tidy CSV (`runs.csv`, one row per run and
//! metric) and draw its figure(s) (SVG and PNG, mean ± std as in the papers).
//!
//! The experiments live in the `compclust-experiments` crate; this command parses the
//! arguments, shows the progress bar and prints the outcome.

use super::ExitCode;
use std::path::PathBuf;

use compclust_experiments::{Options, Progress, registry};
use indicatif::ProgressBar;

use super::CmdResult;

const HELP: &str = "\
Runs one experiment of the papers over its grid and seeds. `compclust experiment list` shows
the experiments with the figure each reproduces. --quick runs a reduced grid (seconds) for
tests; without it the full grid of docs/REPRODUCTION.md runs.

Writes into --out: runs.csv (experiment,method,<parameters...>,seed,metric,value,time_s; one
row per run and metric) and the figure(s) as .svg and .png. Each file is replaced only once
it is complete. When a trial fails, the rows that finished go to runs.partial.csv and the
folder's earlier runs.csv and figures stay as they were.

Long runs (flat-comparisons, flat-noise, flat-distributions, flat-grid, mnist) also write each
finished trial to runs.journal in --out. If the run stops (Ctrl-C, a crash), run the same
command with --resume: the finished trials are read back and only the others run. --resume with
a larger --seeds adds seeds to an interrupted run. The journal is deleted when the run finishes,
unless it holds trials that run did not write (fewer --seeds, or another --only or --shard).
To add seeds to a finished run, pass its runs.csv with --resume-from and a larger --seeds: the
trials found there are reused and only the new ones run.

To spread a long run over machines, run `--shard I/M` for I = 0..M-1 (each into its own --out),
then merge: the same command with `--resume-from` given every shard's runs.csv (or, for a
shard that stopped, its runs.journal: only its missing trials run). The Python module
compclust.distributed does this on a Dask cluster (docs/REPRODUCTION.md). --only NAME=VALUE
runs the trials of one setting or seed the same way (e.g. --only seed=7).

Real data (mnist, car, food, hierarchy-zoo, hierarchy-car) is read from --data (default: the
first of $COMPCLUST_DATA, ../shared/data, ./shared/data that exists).

Example:
  compclust experiment flat-comparisons --quick --out results/flat-comparisons";

/// Arguments of `compclust experiment`.
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// Experiment name, or `list` to list them.
    pub name: String,
    /// Reduced grid and repetitions, for tests (each experiment well under a minute).
    #[arg(long)]
    pub quick: bool,
    /// Number of repetitions (seeds 0..R); default: the experiment's own (paper's) choice.
    #[arg(long)]
    pub seeds: Option<usize>,
    /// Output folder (created if missing).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Folder holding the shared real data sets (see `--help`).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Number of items instead of the paper's: the planted experiments' n (flat-grid sweeps
    /// 0.25n … 1.5n around it), or a seeded subsample of each MNIST subset.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(4..))]
    pub n: Option<u64>,
    /// Do not run: redraw the experiment's figures from this runs.csv (written by an earlier
    /// run) into --out, or next to the CSV when --out is not given.
    #[arg(long, value_name = "RUNS_CSV")]
    pub replot: Option<PathBuf>,
    /// Give the flat methods the planted (or true) number of clusters instead of running SPUR
    /// (rows are labelled `k_mode=known`; mnist skips "AddS-3, SPUR").
    #[arg(long)]
    pub known_k: bool,
    /// Continue an interrupted run from the trials in --out/runs.journal (same options; more
    /// --seeds adds seeds). Flat experiments and mnist only.
    #[arg(long)]
    pub resume: bool,
    /// Reuse the trials of an earlier run: its runs.csv (same experiment and options), or the
    /// runs.journal of one that stopped (same experiment and options, as for --resume). Only
    /// trials not found there run, so a larger --seeds adds seeds to it. May be given several
    /// times (e.g. the runs.csv or runs.journal of every --shard); the first file that holds a
    /// trial gives its rows.
    #[arg(long, value_name = "RUNS_CSV|RUNS_JOURNAL", conflicts_with = "replot")]
    pub resume_from: Vec<PathBuf>,
    /// Run only share INDEX of COUNT disjoint shares of the trials (0-based; a trial's share
    /// is a hash of its key) and write their rows to --out/runs.csv without figures. Run every
    /// share (on as many machines), then once more with every share's runs.csv as
    /// --resume-from: that run computes nothing and writes the whole runs.csv and the figures.
    /// Flat experiments and mnist only.
    #[arg(long, value_name = "INDEX/COUNT", conflicts_with = "replot")]
    pub shard: Option<compclust_experiments::Shard>,
    /// Run only the trials with parameter NAME at VALUE (e.g. `--only seed=2 --only eps=1`; a
    /// trial must match every parameter named, and `--only eps=0.5,1` or a repeated `--only
    /// eps=…` lists alternatives), spelt as in the trial keys and the columns of runs.csv,
    /// and write their rows to --out/runs.csv without figures, as --shard does (e.g. one more
    /// seed: `--seeds 8 --only seed=7`). Flat experiments and mnist only.
    #[arg(long, value_name = "NAME=VALUE[,VALUE...]", conflicts_with = "replot")]
    pub only: Vec<compclust_experiments::TrialFilter>,
    /// Stopping tolerance of every SDP solve (default 1e-4, as `compclust cluster
    /// --sdp-tol`); the rows then carry an `sdp_tol` column. Flat experiments and mnist only.
    #[arg(long, value_name = "TOL", value_parser = crate::commands::cluster::sdp_tol)]
    pub sdp_tol: Option<f64>,
    /// SPUR's first pass at this looser tolerance, tightening only the solves k̂ needs (as
    /// `compclust cluster --spur-refine`); the rows then carry a `spur_refine` column. Without
    /// it every SPUR solve is made at the SDP tolerance, as in the committed runs. Flat
    /// experiments and mnist only.
    #[arg(long, value_name = "TOL", value_parser = crate::commands::cluster::spur_refine_tol)]
    pub spur_refine: Option<f64>,
}

/// The experiment's progress on a bar on stderr (hidden when stderr is not a terminal).
struct Bar(ProgressBar);

impl Progress for Bar {
    fn set_length(&self, len: u64) {
        self.0.set_length(len);
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn set_message(&self, msg: &str) {
        self.0.set_message(msg.to_string());
    }
    fn note(&self, msg: &str) {
        self.0.suspend(|| eprintln!("{msg}"));
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// Run `compclust experiment`.
pub fn run(args: Args) -> CmdResult {
    if args.name == "list" {
        for e in registry() {
            println!("{:<22} {}", e.name(), e.about());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = compclust_experiments::find(&args.name)?.name();
    let opts = Options {
        name: args.name,
        quick: args.quick,
        seeds: args.seeds,
        out: args.out,
        data: args.data,
        n: args.n.map(|n| n as usize),
        replot: args.replot,
        known_k: args.known_k,
        resume: args.resume,
        resume_from: args.resume_from,
        shard: args.shard,
        only: args.only,
        sdp_tol: args.sdp_tol,
        spur_refine: args.spur_refine,
    };
    let outcome =
        compclust_experiments::run(&opts, Box::new(Bar(crate::progress::trials_bar(name))))?;
    if !outcome.replot {
        eprintln!(
            "{}: {} rows in {:.1} s -> {}",
            outcome.experiment,
            outcome.rows,
            outcome.seconds,
            outcome.csv.display()
        );
    }
    for f in outcome.figures {
        eprintln!("  figure {}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}
