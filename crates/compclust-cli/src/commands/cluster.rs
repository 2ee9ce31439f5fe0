//! `compclust cluster`: flat clustering from triplets or quadruplets (AddS-3/4 or MulK-3/4,
//! SDP, SPUR, k-means++ / spectral; Perrot et al. (2020)).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use compclust::data::{
    Batch, ComparisonKind, DataError, Dataset, InputFormat, ItemIndex, Location, ReadOptions,
    read_comparisons_with_report, read_items, stream_comparisons,
};
use compclust::flat::{FlatClustering, FlatParams, NClusters, PartitionMethod};
use compclust::sdp::CheckObserver;
use compclust::similarity::{AddS3Accumulator, AddS4Accumulator, SimilarityKind};
use faer::Mat;
use serde::Serialize;

use super::CmdResult;
use crate::output::Outputs;

const HELP: &str = "\
Input: a comparisons file. CSV files with a header are detected by it:
  anchor,near,far      triplets: anchor is closer to near than to far
  a,b,c,d              quadruplets: pair (a,b) is more similar than pair (c,d)
  center,x,y           most-central answers (two triplets each)
  odd,x,y              odd-one-out answers (two triplets each)
Headerless files need --kind (or --format for the cblearn / car / food formats).
Item fields are labels (any text); --items fixes the item list and order.

With --similarity adds (the default) the file is read in 16 MB chunks that go straight
into AddS-3 / AddS-4, so memory does not grow with the number of rows (4·n² bytes of counts,
then the solver's few n × n matrices); MulK keeps every row.

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
    /// Kind of answers in a headerless file: triplets, quadruplets, most-central, odd-one-out.
    #[arg(long)]
    pub kind: Option<ComparisonKind>,
    /// Input format (default: detected): csv, list-order, list-boolean, list-count, salmon,
    /// car-survey, car-ordinal, food-json.
    #[arg(long)]
    pub format: Option<InputFormat>,
    /// Items file (one label per line): fixes the item list and its order.
    #[arg(long)]
    pub items: Option<PathBuf>,
    /// Similarity: `adds` (AddS-3 / AddS-4, Perrot et al. 2020, §4) or `mulk` (MulK-3 / MulK-4, Perrot et al. 2020, App. A).
    #[arg(long, default_value = "adds")]
    pub similarity: SimilarityKind,
    /// Number of clusters: `auto` (SPUR, Perrot et al. 2020, App. D) or a number k (SDP-k only).
    #[arg(long, default_value = "auto")]
    pub n_clusters: NClusters,
    /// How the partition is read off the SDP solution: `kmeans` (k-means++) or `spectral`.
    #[arg(long, default_value = "kmeans")]
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
    /// Print one line per residual check of every SDP solve to stderr (iteration, residuals,
    /// duality gap, ρ, eigendecompositions, seconds) instead of the progress bar: at
    /// n ≈ 10,000 a single solve takes tens of minutes.
    #[arg(long)]
    pub trace_sdp: bool,
    /// Stopping tolerance of every SDP solve: relative primal and dual residuals and duality
    /// gap (`docs/SOLVER.md`). SPUR's θ needs accurate solutions; 1e-3 is about 4× faster at
    /// n = 1000 and gave the same k̂ on the paper's model (docs/BENCHMARKS.md).
    #[arg(long, default_value_t = 1e-4, value_name = "TOL", value_parser = sdp_tol)]
    pub sdp_tol: f64,
}

/// `--sdp-tol`: a number in (0, 1).
pub fn sdp_tol(s: &str) -> Result<f64, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))?;
    compclust::sdp::check_tol("--sdp-tol", t).map_err(|e| e.to_string())
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

/// Fit with a progress bar on stderr for the SDP solves.
pub fn fit_with_progress(params: &FlatParams, data: &Dataset) -> anyhow::Result<FlatClustering> {
    with_sdp_progress(params, |p, cb| p.fit(data, Some(cb)))
}

/// Run `fit` with a progress bar over the SDP solves on stderr, whose message follows the
/// solver's residual checks (hidden while the solver traces: a bar redrawn between the trace
/// lines would garble both). `fit` gets `params` with the bar's observer added.
fn with_sdp_progress(
    params: &FlatParams,
    fit: impl FnOnce(
        &FlatParams,
        &mut dyn FnMut(usize, usize),
    ) -> Result<FlatClustering, compclust::flat::FlatError>,
) -> anyhow::Result<FlatClustering> {
    let label = match params.n_clusters {
        NClusters::Auto => "SPUR",
        NClusters::K(_) => "SDP-k",
    };
    let mut params = params.clone();
    let pb = if params.spur.sdp.trace {
        indicatif::ProgressBar::hidden()
    } else {
        let pb = crate::progress::solver_bar(label);
        let bar = pb.clone();
        params.spur.sdp.observer = Some(CheckObserver::new(move |c| {
            bar.set_message(crate::progress::solver_message(c));
        }));
        pb
    };
    let mut cb = |done: usize, total: usize| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    };
    let res = fit(&params, &mut cb);
    pb.finish_and_clear();
    Ok(res?)
}

/// Build the report (`kind`: the kind of the comparison rows, triplets or quadruplets).
pub fn report<'a>(
    input: String,
    kind: ComparisonKind,
    params: &FlatParams,
    fitted: &'a FlatClustering,
    input_s: f64,
) -> Report<'a> {
    Report {
        input,
        n_items: fitted.n_items,
        n_comparisons: fitted.n_comparisons,
        kind: kind.to_string(),
        similarity: fitted.similarity,
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
            similarity_s: fitted.timings.similarity_s,
            sdp_s: fitted.timings.sdp_s,
            partition_s: fitted.timings.partition_s,
            total_s: input_s + fitted.timings.total_s,
        },
    }
}

/// Items, similarity and rows read from the input, before the SDP.
struct Input {
    items: ItemIndex,
    s: Mat<f64>,
    kind: ComparisonKind,
    rows: usize,
    /// Paper name of the similarity.
    similarity: &'static str,
    /// Seconds spent in the similarity (the rest of the reading time is parsing).
    similarity_s: f64,
}

/// The error for same-cluster answers, which `cluster` cannot use.
fn same_cluster_error(input: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: same-cluster answers cannot be clustered with `compclust cluster` (it needs \
         triplets or quadruplets); use `compclust overlap`",
        input.display()
    )
}

/// The AddS accumulator of a stream, chosen by its first batch.
enum AddsAcc {
    Empty,
    Three(AddS3Accumulator),
    Four(AddS4Accumulator),
}

impl AddsAcc {
    /// Grow to `n` items and add a batch (Perrot et al. 2020, §4). Same-cluster answers are refused.
    fn add(&mut self, batch: Batch<'_>, n: usize) -> Result<(), DataError> {
        let fail = |e: compclust::similarity::SimilarityError| DataError::Format {
            at: Location::default(),
            message: e.to_string(),
        };
        if let AddsAcc::Empty = self {
            *self = match batch {
                Batch::Triplets(_) => AddsAcc::Three(AddS3Accumulator::new(n).map_err(fail)?),
                Batch::Quadruplets(_) => AddsAcc::Four(AddS4Accumulator::new(n).map_err(fail)?),
                Batch::SameCluster(_) => {
                    return Err(DataError::Unsupported("same-cluster answers".into()));
                }
            };
        }
        match (self, batch) {
            (AddsAcc::Three(a), Batch::Triplets(t)) => {
                a.grow(n).map_err(fail)?;
                a.add(t).map_err(fail)
            }
            (AddsAcc::Four(a), Batch::Quadruplets(q)) => {
                a.grow(n).map_err(fail)?;
                a.add(q).map_err(fail)
            }
            _ => unreachable!("a file holds one kind of rows"),
        }
    }
}

/// AddS-3 / AddS-4 straight from the file, chunk by chunk (Perrot et al. 2020, §4): memory is the `n × n`
/// counts and one 16 MB chunk of text, whatever the number of rows.
fn read_adds(input: &Path, opts: &ReadOptions) -> anyhow::Result<Input> {
    let mut acc = AddsAcc::Empty;
    let mut similarity_s = 0.0;
    let mut sink = |batch: Batch<'_>, n: usize| -> Result<(), DataError> {
        let t = Instant::now();
        let r = acc.add(batch, n);
        similarity_s += t.elapsed().as_secs_f64();
        r
    };
    let summary = match stream_comparisons(input, opts, &mut sink) {
        Err(DataError::Unsupported(_)) => return Err(same_cluster_error(input)),
        r => r?,
    };
    let n = summary.items.len();
    let t = Instant::now();
    let (s, similarity) = match acc {
        AddsAcc::Three(mut a) => {
            a.grow(n)?;
            (a.finish(), "AddS-3")
        }
        AddsAcc::Four(mut a) => {
            a.grow(n)?;
            (a.finish(), "AddS-4")
        }
        AddsAcc::Empty => unreachable!("a read without rows is an error"),
    };
    Ok(Input {
        items: summary.items,
        s,
        kind: summary.kind,
        rows: summary.rows,
        similarity,
        similarity_s: similarity_s + t.elapsed().as_secs_f64(),
    })
}

/// Read every row, then build the similarity (MulK needs the rows of each item together).
fn read_rows(input: &Path, opts: &ReadOptions, kind: SimilarityKind) -> anyhow::Result<Input> {
    let (data, _) = read_comparisons_with_report(input, opts)?;
    if data.comparisons.kind() == ComparisonKind::SameCluster {
        return Err(same_cluster_error(input));
    }
    let t = Instant::now();
    let s = compclust::similarity::compute(kind, &data)?;
    Ok(Input {
        similarity: kind.paper_name(&data.comparisons),
        kind: data.comparisons.kind(),
        rows: data.comparisons.len(),
        items: data.items,
        s,
        similarity_s: t.elapsed().as_secs_f64(),
    })
}

/// Fit with a progress bar on stderr for the SDP solves, from a similarity already built.
fn fit_similarity_with_progress(
    params: &FlatParams,
    input: &Input,
) -> anyhow::Result<FlatClustering> {
    let mut fitted = with_sdp_progress(params, |p, cb| {
        p.fit_similarity(input.s.as_ref(), input.rows, Some(cb))
    })?;
    fitted.similarity = input.similarity;
    fitted.timings.similarity_s = input.similarity_s;
    fitted.timings.total_s += input.similarity_s;
    Ok(fitted)
}

/// Run `compclust cluster`.
pub fn run(args: Args) -> CmdResult {
    let t0 = Instant::now();
    let mut outs = Outputs::new();
    outs.comparisons_input("--input", &args.input, args.format)?;
    outs.input_opt("--items", args.items.as_deref())?;
    let labels_out = outs.file("--output", &args.output)?;
    let report_out = outs.file_opt("--report", args.report.as_deref())?;
    let items = match &args.items {
        Some(p) => {
            Some(read_items(p).with_context(|| format!("reading the items file {}", p.display()))?)
        }
        None => None,
    };
    let opts = ReadOptions {
        kind: args.kind,
        format: args.format,
        items,
    };
    let sp = crate::progress::spinner(format!("reading {}", args.input.display()));
    let read = match args.similarity {
        SimilarityKind::AddS => read_adds(&args.input, &opts),
        SimilarityKind::MulK => read_rows(&args.input, &opts, args.similarity),
    };
    sp.finish_and_clear();
    let input = read?;
    let input_s = t0.elapsed().as_secs_f64() - input.similarity_s;
    let mut params = FlatParams::new()
        .with_similarity(args.similarity)
        .with_n_clusters(args.n_clusters)
        .with_partition(args.partition)
        .with_seed(args.seed)
        .with_sdp_tol(args.sdp_tol);
    params.spur.sdp.trace = args.trace_sdp;
    let fitted = fit_similarity_with_progress(&params, &input)
        .with_context(|| format!("clustering {}", args.input.display()))?;
    outs.write_labels(labels_out, &input.items, &fitted.labels)?;
    let rep = report(
        args.input.display().to_string(),
        input.kind,
        &params,
        &fitted,
        input_s,
    );
    if let Some(o) = report_out {
        outs.write_json(o, &rep)?;
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
    println!("cluster sizes: {:?}", rep.cluster_sizes);
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
