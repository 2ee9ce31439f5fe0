//! `compclust demo`: the paper's default experiment (Perrot et al. 2020, §5) end to end, with no input files.

use super::ExitCode;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use compclust::data::Dataset;
use compclust::flat::{FlatClustering, FlatParams, NClusters};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::models::flat::{Family, PlantedFlat, PlantedInstance};
use compclust::similarity::{self, SimilarityKind};
use compclust::simulate::Budget;

use super::CmdResult;
use super::cluster::{fit_with_progress, report};
use crate::output::{OutDir, Outputs};
use compclust_experiments::plot::heatmap::{self, Heatmap, Scale};

const HELP: &str = "\
Simulates the planted model of Perrot et al. 2020, §5 (k clusters of equal size, w_ij ~ N(μ_in, σ²) within
and N(0, σ²) across clusters, P(w_in > w_out) = (1+δ)/2), draws n·(ln n)³ triplets uniformly
without replacement, answered correctly with probability (1+ε)/2, and clusters them with
AddS-3 + SPUR + k-means++. Prints k̂, the ARI against the planted clusters and the time.

Writes into --out: labels.csv (item,cluster), truth.csv, report.json, and heatmaps of the
AddS similarity and of the SDP solution X, rows and columns ordered by predicted cluster:
similarity.png, similarity.svg, x.png, x.svg.

The default is the paper's own setting, n = 1000 (k̂ = 4 and ARI 1.0 on seeds 0-9). SPUR
solves its SDPs to 2e-3 first and tightens only what k̂ depends on (--spur-refine); as a
release build on two cores of an AMD EPYC guest it took 9.0 to 11.4 s in the median of
seeds 0-9 (2026-11-30, three hours as the machine's speed drifted), around the 10 s it aims
at, and about 17 s on two cores of an Intel Xeon guest at 2.0 GHz (2026-12-01;
docs/BENCHMARKS.md).
`--n 400` runs in about a fifth of that.

Example:
  compclust demo --n 1000 --k 4 --eps 0.75 --delta 0.5 --seed 0 --out demo/";

/// Arguments of `compclust demo` (the format and example texts are in `HELP`).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// Number of items (the paper's default, Perrot et al. 2020, §5).
    #[arg(long, default_value_t = 1000)]
    pub n: usize,
    /// Number of planted clusters.
    #[arg(long, default_value_t = 4)]
    pub k: usize,
    /// Crowd noise ε: each answer is correct with probability (1+ε)/2.
    #[arg(long, default_value_t = 0.75)]
    pub eps: f64,
    /// Intrinsic noise δ: P(w_in > w_out) = (1+δ)/2.
    #[arg(long, default_value_t = 0.5)]
    pub delta: f64,
    /// Seed of the model, the sampling and k-means++.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of comparisons (default n·(ln n)³, capped at the number of distinct ones).
    #[arg(long)]
    pub comparisons: Option<usize>,
    /// Stopping tolerance of every SDP solve (as `compclust cluster --sdp-tol`).
    #[arg(long, default_value_t = 1e-4, value_name = "TOL", value_parser = super::cluster::sdp_tol)]
    pub sdp_tol: f64,
    /// SPUR's first-pass tolerance, or `off` (as `compclust cluster --spur-refine`).
    #[arg(long, default_value_t = super::cluster::SpurRefine::DEFAULT, value_name = "TOL|off", value_parser = super::cluster::spur_refine)]
    pub spur_refine: super::cluster::SpurRefine,
    /// Use quadruplets (AddS-4) instead of triplets (AddS-3).
    #[arg(long)]
    pub quadruplets: bool,
    /// Output folder (created if missing).
    #[arg(long, default_value = "compclust-demo")]
    pub out: PathBuf,
}

/// Run `compclust demo`.
pub fn run(args: Args) -> CmdResult {
    let mut outs = Outputs::new();
    let dir = outs.folder("--out", &args.out)?;
    let t0 = Instant::now();
    let (model, data) = simulate(&args)?;
    let input_s = t0.elapsed().as_secs_f64();

    let params = FlatParams::new()
        .with_n_clusters(NClusters::Auto)
        .with_seed(args.seed)
        .with_sdp_tol(args.sdp_tol)
        .with_spur_refine(args.spur_refine.0);
    let fitted = fit_with_progress(&params, &data)?;
    let ari = adjusted_rand_index(model.labels(), &fitted.labels);
    let total = t0.elapsed().as_secs_f64();

    let labels = outs.file_in(dir, "labels.csv")?;
    outs.write_labels(labels, &data.items, &fitted.labels)?;
    let truth = outs.file_in(dir, "truth.csv")?;
    outs.write_labels(truth, &data.items, model.labels())?;
    let rep = report(
        "simulated".into(),
        data.comparisons.kind(),
        &params,
        &fitted,
        input_s,
        0.0,
    );
    let report_out = outs.file_in(dir, "report.json")?;
    outs.write_json(report_out, &rep)?;
    draw_heatmaps(&mut outs, dir, &data, &fitted)?;
    outs.commit()?;
    println!(
        "planted model: n = {}, k = {}, δ = {}, ε = {}, {} {} (seed {})",
        args.n,
        args.k,
        args.delta,
        args.eps,
        fitted.n_comparisons,
        data.comparisons.kind(),
        args.seed
    );
    println!(
        "{} + SPUR + k-means++: k̂ = {}",
        fitted.similarity, fitted.k_hat
    );
    if let Some(sp) = &fitted.spur {
        println!("{}", super::cluster::spur_line(sp, args.sdp_tol));
    }
    println!("ARI vs planted clusters: {ari:.4}");
    println!(
        "time: {total:.2} s (sampling {:.2} s, similarity {:.2} s, SPUR {:.2} s, partition {:.2} s)",
        input_s, fitted.timings.similarity_s, fitted.timings.sdp_s, fitted.timings.partition_s
    );
    println!(
        "wrote {}/{{labels.csv,truth.csv,report.json,similarity.png,similarity.svg,x.png,x.svg}}",
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The planted model of Perrot et al. 2020, §5 and its comparisons: n·ln³n of them by default (capped at the
/// number of distinct ones), or `--comparisons`; the library's one seed rule, so that `--seed`
/// gives the comparisons of `compclust simulate planted` with the same seed.
fn simulate(args: &Args) -> anyhow::Result<(PlantedFlat, Dataset)> {
    let instance = PlantedInstance {
        n: args.n,
        k: args.k,
        family: Family::NormalNormal,
        delta: args.delta,
        eps: args.eps,
        quadruplets: args.quadruplets,
        budget: args.comparisons.map_or(Budget::DEFAULT, Budget::Exactly),
    };
    let sp = crate::progress::spinner("sampling comparisons");
    let sampled = instance.sample(args.seed);
    sp.finish_and_clear();
    let (model, comparisons) = sampled.context("simulating the planted model")?;
    let data = Dataset::numbered(args.n, comparisons)?;
    Ok((model, data))
}

/// Heatmaps of the AddS similarity and of the SDP solution `X`, rows and columns ordered by
/// predicted cluster, as PNG and SVG.
fn draw_heatmaps(
    outs: &mut Outputs,
    dir: OutDir,
    data: &Dataset,
    fitted: &FlatClustering,
) -> anyhow::Result<()> {
    // The similarity is rebuilt for the picture (cheap: one pass over the comparisons).
    let s = similarity::compute(SimilarityKind::AddS, data)?;
    let (order, boundaries) = heatmap::order_by_labels(&fitted.labels);
    let sv = |i: usize, j: usize| s[(i, j)];
    let xv = |i: usize, j: usize| fitted.x[(i, j)];
    let s_title = format!(
        "{} similarity, ordered by predicted cluster",
        fitted.similarity
    );
    let x_title = format!(
        "SDP solution X (k̂ = {}), ordered by predicted cluster",
        fitted.k_hat
    );
    for ext in ["png", "svg"] {
        let o = outs.file_in(dir, &format!("similarity.{ext}"))?;
        outs.write_path(o, |p| {
            heatmap::draw(
                p,
                &Heatmap {
                    value: &sv,
                    order: &order,
                    boundaries: &boundaries,
                    title: &s_title,
                    scale: Scale::Diverging,
                },
            )
        })?;
        let o = outs.file_in(dir, &format!("x.{ext}"))?;
        outs.write_path(o, |p| {
            heatmap::draw(
                p,
                &Heatmap {
                    value: &xv,
                    order: &order,
                    boundaries: &boundaries,
                    title: &x_title,
                    scale: Scale::Sequential,
                },
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo samples the library's planted instance with its seed: the same comparisons as
    /// `compclust simulate planted --seed` (tests/same_seed.rs) and the experiments.
    #[test]
    fn demo_samples_the_librarys_instance_at_its_seed() {
        let args = Args {
            n: 40,
            k: 2,
            eps: 0.75,
            delta: 0.5,
            seed: 5,
            comparisons: None,
            sdp_tol: 1e-4,
            spur_refine: crate::commands::cluster::SpurRefine::DEFAULT,
            quadruplets: false,
            out: PathBuf::from("unused"),
        };
        let (model, data) = simulate(&args).unwrap();
        let instance = PlantedInstance {
            n: 40,
            k: 2,
            family: Family::NormalNormal,
            delta: 0.5,
            eps: 0.75,
            quadruplets: false,
            budget: Budget::DEFAULT,
        };
        let (want_model, want) = instance.sample(5).unwrap();
        assert_eq!(data.comparisons, want);
        assert_eq!(model.labels(), want_model.labels());
        let other = simulate(&Args { seed: 6, ..args }).unwrap().1;
        assert_ne!(other.comparisons, want);
    }
}
