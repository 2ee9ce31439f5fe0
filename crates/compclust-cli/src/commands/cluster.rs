//! `compclust cluster`: flat clustering from triplets or quadruplets (AddS-3/4 or MulK-3/4,
//! SDP, SPUR, k-means++ / spectral; papers 000/001).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use compclust::data::{
    ComparisonKind, Dataset, InputFormat, ReadOptions, read_comparisons_with_report, read_items,
    write_labels,
};
use compclust::flat::{FlatClustering, FlatParams, NClusters, PartitionMethod};
use compclust::similarity::SimilarityKind;
use serde::Serialize;

use super::CmdResult;

const HELP: &str = "\
Input: a comparisons file. CSV files with a header are detected by it:
  anchor,near,far      triplets: anchor is closer to near than to far
  a,b,c,d              quadruplets: pair (a,b) is more similar than pair (c,d)
  center,x,y           most-central answers (two triplets each)
  odd,x,y              odd-one-out answers (two triplets each)
Headerless files need --kind (or --format for the cblearn / car / food formats).
Item fields are labels (any text); --items fixes the item list and order.

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
    /// Similarity: `adds` (AddS-3 / AddS-4, 001 §4) or `mulk` (MulK-3 / MulK-4, 000 App. A).
    #[arg(long, default_value = "adds")]
    pub similarity: SimilarityKind,
    /// Number of clusters: `auto` (SPUR, 000 App. D) or a number k (SDP-k only).
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
    let label = match params.n_clusters {
        NClusters::Auto => "SPUR",
        NClusters::K(_) => "SDP-k",
    };
    // The trace writes its own lines to stderr; a bar redrawn between them would garble both.
    let pb = if params.spur.sdp.trace {
        indicatif::ProgressBar::hidden()
    } else {
        crate::progress::bar(0, label)
    };
    let mut cb = |done: usize, total: usize| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    };
    let res = params.fit(data, Some(&mut cb));
    pb.finish_and_clear();
    Ok(res?)
}

/// Build the report.
pub fn report<'a>(
    input: String,
    data: &Dataset,
    params: &FlatParams,
    fitted: &'a FlatClustering,
    input_s: f64,
) -> Report<'a> {
    Report {
        input,
        n_items: fitted.n_items,
        n_comparisons: fitted.n_comparisons,
        kind: data.comparisons.kind().to_string(),
        similarity: fitted.similarity,
        n_clusters: params.n_clusters.to_string(),
        partition: params.partition,
        seed: params.seed,
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

/// Write a report as pretty JSON.
pub fn write_report(path: &Path, report: &Report<'_>) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(report).context("serialising the report")?;
    std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

/// Run `compclust cluster`.
pub fn run(args: Args) -> CmdResult {
    let t0 = Instant::now();
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
    let read = read_comparisons_with_report(&args.input, &opts);
    sp.finish_and_clear();
    let (data, _) = read?;
    if data.comparisons.kind() == ComparisonKind::SameCluster {
        anyhow::bail!(
            "{}: same-cluster answers cannot be clustered with `compclust cluster` (it needs \
             triplets or quadruplets); use `compclust overlap`",
            args.input.display()
        );
    }
    let input_s = t0.elapsed().as_secs_f64();
    let mut params = FlatParams::new()
        .with_similarity(args.similarity)
        .with_n_clusters(args.n_clusters)
        .with_partition(args.partition)
        .with_seed(args.seed);
    params.spur.sdp.trace = args.trace_sdp;
    let fitted = fit_with_progress(&params, &data)
        .with_context(|| format!("clustering {}", args.input.display()))?;
    write_labels(&args.output, &data.items, &fitted.labels)?;
    let rep = report(
        args.input.display().to_string(),
        &data,
        &params,
        &fitted,
        input_s,
    );
    if let Some(p) = &args.report {
        write_report(p, &rep)?;
    }
    let how = match params.n_clusters {
        NClusters::Auto => "estimated by SPUR",
        NClusters::K(_) => "given",
    };
    println!(
        "{} items, {} {} comparisons, {}: k̂ = {} ({how})",
        fitted.n_items,
        fitted.n_comparisons,
        data.comparisons.kind(),
        fitted.similarity,
        fitted.k_hat
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
