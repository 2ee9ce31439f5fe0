//! `compclust cluster`: flat clustering from triplets or quadruplets (AddS-3/4 or MulK-3/4,
//! SDP, SPUR, k-means++ / spectral; Perrot et al. (2020)).

use super::ExitCode;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use compclust::crowd::Aggregation;
use compclust::data::{
    ComparisonKind, Dataset, ItemIndex, ReadOptions, read_comparisons_with_report,
};
use compclust::flat::{FlatClustering, FlatParams, NClusters, PartitionMethod};
use compclust::observe::Observer;
use compclust::sdp::SdpCheck;
use compclust::similarity::{
    Similarity, SimilarityError, SimilarityKind, StreamError, similarity_from_file,
};
use serde::Serialize;

use super::CmdResult;
use super::read_args::ReadArgs;
use crate::output::Outputs;

const HELP: &str = "\
Input: a comparisons file. CSV files with a header are detected by it:
  anchor,near,far      triplets: anchor is closer to near than to far
  a,b,c,d              quadruplets: pair (a,b) is more similar than pair (c,d)
  center,x,y           most-central answers (two triplets each)
  odd,x,y              odd-one-out answers (two triplets each)
A headerless file of 3 or 4 item indices is cblearn's list-order; other headerless files
need --kind (or --format for the cblearn / car / food formats).
Item fields are labels (any text); --items fixes the item list and order.

The file is read in 16 MB chunks that go straight into the similarity, so memory does not
grow with the number of rows: AddS-3 / AddS-4 (the default) keep 4·n² bytes of counts,
MulK-3 / MulK-4 the net count of each distinct comparison (a list-count row is one entry,
whatever its count); then the solver's few n × n matrices. A file with a `worker` column,
or --aggregate, is read whole (repeated answers are combined first).

Output: LABELS.csv with header `item,cluster`, one row per item, clusters 0..k̂-1.
--report writes JSON with k̂, the SPUR table (k, θ_k, solver info per SDP), the
solver info of the final SDP, the partition info and timings.

Example:
  compclust cluster --input triplets.csv --output labels.csv --report report.json
  compclust cluster --input T_ALL_REDUCED.csv --kind most-central --n-clusters 4
    --output car.csv";

/// Arguments of `compclust cluster` (the format and example texts are in `HELP`).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// Comparisons file (or folder, for the food JSON format).
    #[arg(long, short)]
    pub input: PathBuf,
    /// How to read the input.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Similarity: `adds` (AddS-3 / AddS-4, Perrot et al. 2020, §4) or `mulk` (MulK-3 / MulK-4, Perrot et al. 2020, App. A).
    #[arg(long, default_value = "adds", ignore_case = true)]
    pub similarity: SimilarityKind,
    /// Number of clusters: `auto` (SPUR, Perrot et al. 2020, App. D) or a number k (SDP-k only).
    #[arg(long, default_value = "auto")]
    pub n_clusters: NClusters,
    /// How the partition is read off the SDP solution: `kmeans` (k-means++) or `spectral`.
    #[arg(long, default_value = "kmeans", ignore_case = true)]
    pub partition: PartitionMethod,
    /// Seed of the k-means++ restarts (the only random step).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output labels file (`item,cluster`).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Optional JSON report.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Draw the similarity as a heatmap (.svg or .png), items ordered by cluster, with the
    /// cluster boundaries and a colour bar.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Display names for the summary and the plot: a CSV `item,name` (header optional) or a
    /// JSON object from item to name or to `{"name": …}` (e.g. Food-100's `ingredients.json`).
    #[arg(long, value_name = "FILE")]
    pub items_meta: Option<PathBuf>,
    /// Print one line per residual check of every SDP solve to stderr (iteration, residuals,
    /// duality gap, ρ, eigendecompositions, seconds) instead of the progress bar: at
    /// n ≈ 10,000 a single solve takes tens of minutes.
    #[arg(long)]
    pub trace_sdp: bool,
    /// Stopping tolerance of the SDP solves: relative primal and dual residuals and duality
    /// gap (`docs/SOLVER.md`). With SPUR, the SDP-k solves are made to `--spur-refine` first
    /// and only those k̂ depends on are made to this tolerance (the SDP-λ solves always are).
    #[arg(long, default_value_t = 1e-4, value_name = "TOL", value_parser = sdp_tol)]
    pub sdp_tol: f64,
    /// SPUR's first pass: solve every SDP-k to this looser tolerance, then tighten to
    /// `--sdp-tol` only the solves whose θ_k could change k̂ or the early stop
    /// (`docs/SOLVER.md`, "Adaptive accuracy"); `off` solves every SDP to `--sdp-tol`.
    #[arg(long, default_value_t = SpurRefine::DEFAULT, value_name = "TOL|off", value_parser = spur_refine)]
    pub spur_refine: SpurRefine,
    /// Combine repeated answers to one question into one before clustering: `majority` (a
    /// tie drops the question) or `dawid-skene` (one-coin worker reliabilities by EM). The
    /// default is majority for a file with a `worker` column; other files are used row by row
    /// (AddS sums repeated answers, so contradicting ones cancel).
    #[arg(long)]
    pub aggregate: Option<Aggregation>,
}

/// `--sdp-tol`: a number in (0, 1).
pub fn sdp_tol(s: &str) -> Result<f64, String> {
    tolerance("--sdp-tol", s)
}

/// A stopping tolerance given to `flag`: a number in (0, 1), refused with the flag's name.
fn tolerance(flag: &'static str, s: &str) -> Result<f64, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))?;
    compclust::sdp::check_tol(flag, t).map_err(|e| e.to_string())
}

/// The first-pass tolerance of `compclust experiment --spur-refine` (a number in (0, 1)).
pub fn spur_refine_tol(s: &str) -> Result<f64, String> {
    tolerance("--spur-refine", s)
}

/// `--spur-refine`: a tolerance in (0, 1), or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpurRefine(pub Option<f64>);

impl SpurRefine {
    /// The library's default first pass ([`compclust::sdp::spur::DEFAULT_REFINE_TOL`]).
    pub const DEFAULT: SpurRefine = SpurRefine(Some(compclust::sdp::spur::DEFAULT_REFINE_TOL));
}

/// As [`spur_refine`] reads it: the tolerance, or `off`.
impl std::fmt::Display for SpurRefine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(t) => write!(f, "{t}"),
            None => f.write_str("off"),
        }
    }
}

/// Parses `--spur-refine`.
pub fn spur_refine(s: &str) -> Result<SpurRefine, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(SpurRefine(None));
    }
    spur_refine_tol(s)
        .map(|t| SpurRefine(Some(t)))
        .map_err(|e| format!("{e} (or \"off\")"))
}

/// One line on SPUR's decision: θ_k of every SDP-k solved (k̂ marked), the margin, and which
/// solves were tightened from the first pass.
pub fn spur_line(s: &compclust::flat::SpurSummary, sdp_tol: f64) -> String {
    let thetas: Vec<String> = s
        .table
        .iter()
        .map(|r| {
            let mark = if r.k == s.k_hat { "*" } else { "" };
            format!("{}{mark}: {:.4}", r.k, r.theta)
        })
        .collect();
    let margin = s.margin.map_or("-".into(), |m| format!("{m:.4}"));
    let how = match s.refine_tol {
        None => format!("every solve at {sdp_tol:e}"),
        Some(loose) => {
            let tight: Vec<String> = s
                .table
                .iter()
                .filter(|r| r.theta_loose.is_some())
                .map(|r| r.k.to_string())
                .collect();
            let tight = if tight.is_empty() {
                "none".to_string()
            } else {
                format!("k = {}", tight.join(", "))
            };
            let probes: Vec<_> = s
                .table
                .iter()
                .filter(|r| r.theta_loose.is_none() && r.tol > loose)
                .collect();
            let probed = match probes.first() {
                None => String::new(),
                Some(first) => {
                    let ks: Vec<String> = probes.iter().map(|r| r.k.to_string()).collect();
                    format!(
                        " (k = {} probed at {:e} beside a θ above the stop)",
                        ks.join(", "),
                        first.tol
                    )
                }
            };
            format!("first pass at {loose:e}{probed}, tightened to {sdp_tol:e}: {tight}")
        }
    };
    format!(
        "SPUR θ_k (k: θ): {}; margin {margin}; {how}",
        thetas.join(", ")
    )
}

/// The JSON report of `compclust cluster` and `compclust demo`.
#[derive(Serialize)]
pub struct Report<'a> {
    /// Input path (or "simulated").
    pub input: String,
    /// Number of items.
    pub n_items: usize,
    /// Number of comparison rows.
    pub n_comparisons: usize,
    /// Comparison kind after conversion (triplets / quadruplets).
    pub kind: String,
    /// Similarity used (paper name).
    pub similarity: &'a str,
    /// `auto` or k.
    pub n_clusters: String,
    /// Partition method.
    pub partition: PartitionMethod,
    /// Seed.
    pub seed: u64,
    /// Stopping tolerance of the SDP solves (`--sdp-tol`).
    pub sdp_tol: f64,
    /// Number of clusters found.
    pub k_hat: usize,
    /// Size of each cluster 0..k̂-1.
    pub cluster_sizes: Vec<usize>,
    /// SPUR table (when k was estimated).
    pub spur: Option<&'a compclust::flat::SpurSummary>,
    /// Solver info of the SDP whose X was partitioned.
    pub sdp: Option<&'a compclust::sdp::SdpInfo>,
    /// Partition diagnostics.
    pub partition_info: Option<&'a compclust::flat::PartitionInfo>,
    /// Seconds per step (reading included).
    pub timings: TimingsOut,
    /// Repeated answers: answers, distinct questions, disagreements, and each worker's
    /// agreement with the aggregate (when answers were aggregated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answers: Option<serde_json::Value>,
}

/// Timings in the report.
#[derive(Serialize)]
pub struct TimingsOut {
    /// Reading / simulating the input.
    pub input_s: f64,
    /// Similarity.
    pub similarity_s: f64,
    /// SDP / SPUR.
    pub sdp_s: f64,
    /// Partition.
    pub partition_s: f64,
    /// Everything, input included.
    pub total_s: f64,
}

/// Cluster sizes of labels in `0..k`.
pub fn cluster_sizes(labels: &[usize], k: usize) -> Vec<usize> {
    let mut sizes = vec![0; k.max(labels.iter().max().map_or(0, |m| m + 1))];
    for &l in labels {
        sizes[l] += 1;
    }
    sizes
}

/// What the command line shows of a flat fit on stderr: a bar over the SDP solves whose
/// message follows the solver's residual checks, or, with `--trace-sdp`, one line per check
/// (the bar is hidden then: redrawn between the trace lines it would garble both).
pub struct SdpProgress {
    bar: indicatif::ProgressBar,
    trace: bool,
    /// The share of the bar drawn so far (of [`crate::progress::BAR_SCALE`]).
    shown: u64,
    /// Solves done and known so far, e.g. `solve 3/6`.
    solves: String,
}

impl SdpProgress {
    /// A bar labelled by what is solved (SPUR or one SDP-k), or a trace.
    pub fn new(n_clusters: NClusters, trace: bool) -> Self {
        let label = match n_clusters {
            NClusters::Auto => "SPUR",
            NClusters::K(_) => "SDP-k",
        };
        let bar = if trace {
            indicatif::ProgressBar::hidden()
        } else {
            crate::progress::solver_bar(label)
        };
        SdpProgress {
            bar,
            trace,
            shown: 0,
            solves: String::new(),
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for SdpProgress {
    /// SPUR learns how many SDP-k solves it needs only after its two SDP-λ solves, so its
    /// total grows: the bar shows the largest share reached, never less.
    fn progress(&mut self, done: usize, total: usize) {
        self.shown = crate::progress::monotone_share(self.shown, done, total);
        self.bar.set_position(self.shown);
        self.solves = format!("solve {}/{total}", (done + 1).min(total.max(1)));
    }

    fn sdp_check(&mut self, check: &SdpCheck) {
        if self.trace {
            eprintln!("{check}");
        } else {
            let solve = crate::progress::solver_message(check);
            let msg = if self.solves.is_empty() {
                solve
            } else {
                format!("{} · {solve}", self.solves)
            };
            self.bar.set_message(msg);
        }
    }
}

/// Fit with a progress bar on stderr for the SDP solves.
pub fn fit_with_progress(params: &FlatParams, data: &Dataset) -> anyhow::Result<FlatClustering> {
    let mut obs = SdpProgress::new(params.n_clusters, false);
    let fit = params.fit(data, Some(&mut obs));
    obs.finish();
    Ok(fit?)
}

/// Build the report (`kind`: the kind of the comparison rows, triplets or quadruplets).
/// `input_s` and `similarity_s` are the seconds spent before the fit reading the input and
/// building a similarity while reading (0 when the fit built it).
pub fn report<'a>(
    input: String,
    kind: ComparisonKind,
    params: &FlatParams,
    fitted: &'a FlatClustering,
    input_s: f64,
    similarity_s: f64,
) -> Report<'a> {
    Report {
        input,
        n_items: fitted.n_items,
        n_comparisons: fitted.n_comparisons,
        kind: kind.to_string(),
        similarity: fitted.similarity.paper_name(),
        n_clusters: params.n_clusters.to_string(),
        partition: params.partition,
        seed: params.seed,
        sdp_tol: params.spur.sdp.tol,
        k_hat: fitted.k_hat,
        cluster_sizes: cluster_sizes(&fitted.labels, fitted.k_hat),
        spur: fitted.spur.as_ref(),
        sdp: fitted.sdp_info.as_ref(),
        partition_info: fitted.partition.as_ref(),
        timings: TimingsOut {
            input_s,
            similarity_s: similarity_s + fitted.timings.similarity_s,
            sdp_s: fitted.timings.sdp_s,
            partition_s: fitted.timings.partition_s,
            total_s: input_s + similarity_s + fitted.timings.total_s,
        },
        answers: None,
    }
}

/// The similarity as a heatmap, items ordered by predicted cluster (`--plot`).
fn draw_similarity(path: &Path, s: &Similarity, fitted: &FlatClustering) -> anyhow::Result<()> {
    use compclust_experiments::plot::heatmap::{self, Heatmap, Scale};
    let (order, boundaries) = heatmap::order_by_labels(&fitted.labels);
    let title = format!(
        "{} similarity of {} comparisons; {} clusters",
        fitted.similarity, s.n_comparisons, fitted.k_hat
    );
    heatmap::draw(
        path,
        &Heatmap {
            value: &|i, j| s.matrix[(i, j)],
            order: &order,
            boundaries: &boundaries,
            title: &title,
            scale: Scale::Diverging,
        },
    )
}

/// Items and similarity read from the input, before the SDP.
struct Input {
    items: ItemIndex,
    s: Similarity,
    kind: ComparisonKind,
    /// Seconds spent in the similarity (the rest of the reading time is parsing).
    similarity_s: f64,
    /// The aggregation of repeated answers, for the report.
    answers: Option<serde_json::Value>,
}

/// The error for same-cluster answers, which `cluster` cannot use.
fn same_cluster_error(input: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: same-cluster answers cannot be clustered with `compclust cluster` (it needs \
         triplets or quadruplets); use `compclust overlap`",
        input.display()
    )
}

/// AddS-3 / AddS-4 (Perrot et al. 2020, §4) or MulK-3 / MulK-4 (App. A) straight from the
/// file, chunk by chunk: memory is the similarity's counts and one 16 MB chunk of text,
/// whatever the number of rows.
fn read_streamed(input: &Path, opts: &ReadOptions, kind: SimilarityKind) -> anyhow::Result<Input> {
    let (s, similarity_s, summary) =
        match similarity_from_file(kind, input, opts, compclust::flat::SDP_MATRICES) {
            Err(StreamError::Similarity(SimilarityError::UnsupportedKind { .. })) => {
                return Err(same_cluster_error(input));
            }
            // The reader's errors name the file and line; the similarity's are about the rows.
            Err(StreamError::Similarity(e)) => {
                return Err(anyhow::Error::new(e).context(input.display().to_string()));
            }
            r => r?,
        };
    if summary.report.workers > 0 {
        // A file with a worker column: its repeated answers are aggregated first, which
        // needs every row.
        return read_rows(input, opts, kind, Some(Aggregation::Majority));
    }
    Ok(Input {
        items: summary.items,
        s,
        kind: summary.kind,
        similarity_s,
        answers: None,
    })
}

/// Read every row, aggregate repeated answers (`aggregate`, or majority vote for a file with
/// a `worker` column), then build the similarity (MulK needs the rows of each item together).
fn read_rows(
    input: &Path,
    opts: &ReadOptions,
    kind: SimilarityKind,
    aggregate: Option<Aggregation>,
) -> anyhow::Result<Input> {
    let (mut data, _) = read_comparisons_with_report(input, opts)?;
    if data.comparisons.kind() == ComparisonKind::SameCluster {
        return Err(same_cluster_error(input));
    }
    let mut answers = None;
    let how = aggregate.or(data.workers.is_some().then_some(Aggregation::Majority));
    if let Some(how) = how {
        let (agg, names) =
            crate::answers::aggregate_file(input, &data.comparisons, data.workers.take(), how);
        answers = Some(crate::answers::answers_json(&agg.report, &names));
        data.comparisons = agg.comparisons;
    }
    let t = Instant::now();
    // The similarity and the SDP's matrices, before the first of them is built.
    compclust::limits::reserve_dense(data.n_items(), 1 + compclust::flat::SDP_MATRICES)
        .with_context(|| input.display().to_string())?;
    let s = Similarity::compute(kind, &data).with_context(|| input.display().to_string())?;
    Ok(Input {
        kind: data.comparisons.kind(),
        items: data.items,
        s,
        similarity_s: t.elapsed().as_secs_f64(),
        answers,
    })
}

/// Run `compclust cluster`.
pub fn run(args: Args) -> CmdResult {
    let t0 = Instant::now();
    let mut outs = Outputs::new();
    args.read.register(&mut outs, "--input", &args.input)?;
    let labels_out = outs.file("--output", &args.output)?;
    let report_out = outs.file_opt("--report", args.report.as_deref())?;
    if let Some(p) = &args.plot {
        compclust_experiments::plot::format_of(p).context("--plot")?;
    }
    let plot_out = outs.file_opt("--plot", args.plot.as_deref())?;
    outs.input_opt("--items-meta", args.items_meta.as_deref())?;
    let opts = args.read.options()?;
    let sp = crate::progress::spinner(format!("reading {}", args.input.display()));
    let read = match args.aggregate {
        None => read_streamed(&args.input, &opts, args.similarity),
        how => read_rows(&args.input, &opts, args.similarity, how),
    };
    sp.finish_and_clear();
    let input = read?;
    let names = crate::summary::display_names(&input.items, args.items_meta.as_deref())?;
    let input_s = t0.elapsed().as_secs_f64() - input.similarity_s;
    let params = FlatParams::new()
        .with_similarity(args.similarity)
        .with_n_clusters(args.n_clusters)
        .with_partition(args.partition)
        .with_seed(args.seed)
        .with_sdp_tol(args.sdp_tol)
        .with_spur_refine(args.spur_refine.0);
    let mut obs = SdpProgress::new(params.n_clusters, args.trace_sdp);
    let fitted = params.fit_similarity(&input.s, Some(&mut obs));
    obs.finish();
    let fitted = fitted.with_context(|| format!("clustering {}", args.input.display()))?;
    outs.write_labels(labels_out, &input.items, &fitted.labels)?;
    let mut rep = report(
        args.input.display().to_string(),
        input.kind,
        &params,
        &fitted,
        input_s,
        input.similarity_s,
    );
    rep.answers = input.answers.clone();
    if let Some(o) = report_out {
        outs.write_json(o, &rep)?;
    }
    if let Some(o) = plot_out {
        outs.write_path(o, |p| draw_similarity(p, &input.s, &fitted))?;
    }
    outs.commit()?;
    let how = match params.n_clusters {
        NClusters::Auto => "estimated by SPUR",
        NClusters::K(_) => "given",
    };
    println!(
        "{} items, {} {} comparisons, {}: k̂ = {} ({how})",
        fitted.n_items, fitted.n_comparisons, input.kind, fitted.similarity, fitted.k_hat
    );
    if let Some(sp) = &fitted.spur {
        println!("{}", spur_line(sp, args.sdp_tol));
    }
    print!("{}", crate::summary::clusters(&names, &fitted.labels));
    if let Some(info) = &fitted.sdp_info
        && !info.converged
    {
        eprintln!(
            "warning: the SDP solver stopped before reaching its tolerance ({} iterations)",
            info.iterations
        );
    }
    println!(
        "time: {:.2} s; wrote {}",
        rep.timings.total_s,
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
