//! Experiments of Huleihel et al. 2019 (overlapping clusters from same-cluster queries, §4); see
//! `docs/reproduction/overlap.md`.
//!
//! * `overlap-synthetic` (the shape of Huleihel et al. 2019, Fig. 1): gram-matrix error and failure rate versus
//!   the number of queries, for each algorithm with the oracle it is designed for, sweeping
//!   the sample size |S| over repeated trials. Every run goes through
//!   [`compclust::overlap::OverlapParams::run`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use compclust::active::RunOutcome;
use compclust::metrics::gram::gram_error;
use compclust::models::overlap::{UniformEnsemble, movielens_like, planted_row_types};
use compclust::overlap::response::{OracleKind, SimulatedOracle};
use compclust::overlap::triangle::Noise;
use compclust::overlap::{Membership, OverlapMethod, OverlapParams, SampleSize, StopReason};

use crate::plot::lines::{LineChart, Series};
use crate::{Ctx, Experiment, Row, draw_both, mean_std};

/// The experiments of this module, in listing order.
pub fn experiments() -> Vec<Box<dyn Experiment>> {
    vec![Box::new(Synthetic)]
}

/// One curve: an algorithm, the oracle answering it, and the sample sizes |S| swept.
struct Curve {
    method: OverlapMethod,
    oracle: String,
    kind: OracleKind,
    noise: Noise,
    sizes: Vec<usize>,
}

/// A planted truth and the curves run on it (one pair of figures).
struct Setting {
    /// Short name for file names and the CSV.
    slug: &'static str,
    /// Figure title.
    title: String,
    truth: Membership,
    curves: Vec<Curve>,
}

/// Quantizer threshold of the dithered oracle (the note's θ = 1/2).
const DITHER_THETA: f64 = 0.5;

fn quantized(q: f64) -> (OracleKind, Noise) {
    (OracleKind::Quantized { q }, Noise::Bsc { q: Some(q) })
}

fn curve(
    method: OverlapMethod,
    oracle: String,
    (kind, noise): (OracleKind, Noise),
    sizes: &[usize],
) -> Curve {
    Curve {
        method,
        oracle,
        kind,
        noise,
        sizes: sizes.to_vec(),
    }
}

fn direct() -> (OracleKind, Noise) {
    (OracleKind::Direct, Noise::Bsc { q: Some(0.0) })
}

fn dithered(sigma: f64) -> (OracleKind, Noise) {
    (
        OracleKind::Dithered {
            sigma,
            theta: DITHER_THETA,
        },
        Noise::Dither {
            sigma,
            theta: DITHER_THETA,
        },
    )
}

/// The grid. Full: the MovieLens-like stand-in of Huleihel et al. 2019, §4 (Alg. 3, noiseless quantized
/// answers, |S| as in the paper's sweep), and the uniform ensembles of the note's targets
/// (n = 2000, k = 6; Δ = 2 for Alg. 2 and Alg. 6, Δ = 1 for Alg. 1). Quick: small n.
fn settings(quick: bool) -> anyhow::Result<Vec<Setting>> {
    use OverlapMethod::*;
    let (n, k) = if quick { (240, 6) } else { (2000, 6) };
    let uniform = |delta: usize| UniformEnsemble { n, k, delta }.sample(1);
    let (worst, worst_title, cc_sizes) = if quick {
        let types = [
            (vec![0], 60),
            (vec![1], 80),
            (vec![2], 50),
            (vec![0, 1], 6),
            (vec![1, 2], 6),
        ];
        (
            planted_row_types(3, &types, 1)?,
            "worst-case style (n = 202, k = 3)".to_string(),
            vec![10, 20, 40],
        )
    } else {
        (
            movielens_like(1),
            "MovieLens-like (n = 3470, k = 5, Δ ≤ 2)".to_string(),
            vec![20, 40, 60, 100, 150, 200, 300, 400],
        )
    };
    let (fs_sizes, tc_sizes, fm_sizes): (Vec<usize>, Vec<usize>, Vec<usize>) = if quick {
        (vec![12, 24], vec![160, 200], vec![4, 16])
    } else {
        (
            vec![8, 12, 16, 24, 39, 60],
            vec![400, 800, 1200, 1600],
            vec![2, 4, 8, 16, 32, 64],
        )
    };
    // Answer noise of Alg. 6: BSC q = 0.1 (the note's target) and dithering σ = 0.5. At the
    // quick size (n = 240) Alg. 6 cannot factor noisy samples of at most 240 items, so the
    // quick grid uses milder noise (q = 0, σ = 0.2) to exercise a successful run.
    let (q, sigma) = if quick { (0.0, 0.2) } else { (0.1, 0.5) };
    Ok(vec![
        Setting {
            slug: "worst-case",
            title: worst_title,
            truth: worst,
            curves: vec![curve(
                CliqueCover,
                "quantized q=0".into(),
                quantized(0.0),
                &cc_sizes,
            )],
        },
        Setting {
            slug: "uniform-d2",
            title: format!("uniform n = {n}, k = {k}, Δ = 2"),
            truth: uniform(2)?,
            curves: vec![
                curve(FindSimilarity, "direct".into(), direct(), &fs_sizes),
                curve(
                    TriangleCount,
                    format!("quantized q={q}"),
                    quantized(q),
                    &tc_sizes,
                ),
                curve(
                    TriangleCount,
                    format!("dithered σ={sigma} θ={DITHER_THETA}"),
                    dithered(sigma),
                    &tc_sizes,
                ),
            ],
        },
        Setting {
            slug: "uniform-d1",
            title: format!("uniform n = {n}, k = {k}, Δ = 1"),
            truth: uniform(1)?,
            curves: vec![curve(FindMembership, "direct".into(), direct(), &fm_sizes)],
        },
    ])
}

struct Synthetic;

impl Experiment for Synthetic {
    fn name(&self) -> &'static str {
        "overlap-synthetic"
    }

    fn about(&self) -> &'static str {
        "Huleihel et al. 2019, Fig. 1 shape: gram error and failure rate vs queries; Alg. 3 (MovieLens-like), \
         Alg. 2 / Alg. 6 (BSC, dithered) on uniform n=2000 k=6 Δ=2, Alg. 1 on Δ=1; 50 trials"
    }

    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let settings = settings(ctx.quick)?;
        // Huleihel et al. 2019, §4 runs 50 trials per |S|; the truth is fixed and each trial draws a new sample
        // (and new answer noise), as in the paper.
        let trials = ctx.n_seeds(if ctx.quick { 2 } else { 50 });
        let total: usize = settings
            .iter()
            .flat_map(|s| s.curves.iter().map(|c| c.sizes.len() * trials))
            .sum();
        ctx.progress.set_length(total as u64);
        for st in &settings {
            let truth = &st.truth;
            let n = truth.n_items();
            let w = truth.weights();
            let delta = w.iter().all(|&x| x == w[0]).then_some(w[0]);
            for c in &st.curves {
                for &m in &c.sizes {
                    let params = [
                        ("setting", st.slug.to_string()),
                        ("oracle", c.oracle.clone()),
                        ("sample_size", m.to_string()),
                    ];
                    for t in 0..trials as u64 {
                        let p = OverlapParams {
                            method: c.method,
                            k: Some(truth.n_clusters()),
                            delta,
                            noise: c.noise,
                            sample_size: SampleSize::Fixed(m),
                            probes: SampleSize::Auto,
                            seed: t,
                            ..OverlapParams::default()
                        };
                        let mut oracle = SimulatedOracle::new(truth, c.kind, t ^ 0x5EED);
                        let t0 = Instant::now();
                        let est = match p.run(n, &mut oracle)? {
                            RunOutcome::Finished { output, .. } => output,
                            RunOutcome::Missing { .. } => {
                                bail!("a simulated oracle cannot miss answers")
                            }
                        };
                        let secs = t0.elapsed().as_secs_f64();
                        let e = gram_error(truth, &est.membership)? as f64;
                        let name = c.method.name();
                        rows.push(Row::new(name, &params, t, "gram_error", e, secs));
                        let failed = if e > 0.0 { 1.0 } else { 0.0 };
                        rows.push(Row::new(name, &params, t, "failed", failed, secs));
                        // 1 when the algorithm reports a complete run (StopReason::Completed)
                        let done = if est.stop == StopReason::Completed {
                            1.0
                        } else {
                            0.0
                        };
                        rows.push(Row::new(name, &params, t, "completed", done, secs));
                        rows.push(Row::new(
                            name,
                            &params,
                            t,
                            "queries",
                            est.queries as f64,
                            secs,
                        ));
                        ctx.progress.inc(1);
                    }
                }
            }
        }
        Ok(())
    }

    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        // (setting) -> (series) -> (|S|) -> (queries, errors, failures) over trials
        type Acc = (Vec<f64>, Vec<f64>, Vec<f64>);
        type SeriesAcc = (String, BTreeMap<usize, Acc>);
        let mut groups: BTreeMap<String, Vec<SeriesAcc>> = BTreeMap::new();
        for r in rows {
            let (Some(st), Some(o), Some(m)) = (
                r.param("setting"),
                r.param("oracle"),
                r.param("sample_size").and_then(|m| m.parse::<usize>().ok()),
            ) else {
                continue;
            };
            let series = format!("{} ({o})", r.method);
            let list = groups.entry(st.to_string()).or_default();
            let idx = match list.iter().position(|(s, _)| *s == series) {
                Some(i) => i,
                None => {
                    list.push((series, BTreeMap::new()));
                    list.len() - 1
                }
            };
            let acc = list[idx].1.entry(m).or_default();
            match r.metric.as_str() {
                "queries" => acc.0.push(r.value),
                "gram_error" => acc.1.push(r.value),
                "failed" => acc.2.push(r.value),
                _ => {}
            }
        }
        let titles: BTreeMap<&str, String> = settings(ctx.quick)?
            .into_iter()
            .map(|s| (s.slug, s.title))
            .collect();
        let mut files = Vec::new();
        for (st, list) in &groups {
            let title = titles.get(st.as_str()).map_or(st.as_str(), String::as_str);
            let mut err = Vec::new();
            let mut fail = Vec::new();
            for (name, by_m) in list {
                let mut pe = Vec::new();
                let mut pf = Vec::new();
                for (q, e, f) in by_m.values() {
                    let (mq, _) = mean_std(q);
                    let (me, se) = mean_std(e);
                    let (mf, _) = mean_std(f);
                    pe.push((mq, me, se));
                    pf.push((mq, mf, 0.0));
                }
                err.push(Series {
                    name: name.clone(),
                    points: pe,
                });
                fail.push(Series {
                    name: name.clone(),
                    points: pf,
                });
            }
            let chart = LineChart {
                title: format!("Huleihel et al. 2019, Fig. 1 shape, {title}: gram error"),
                x_label: "queries (mean over trials)".into(),
                y_label: "entries of AAᵀ wrong (mean ± std)".into(),
                log_x: true,
                series: err,
            };
            files.extend(draw_both(
                ctx,
                &format!("overlap-synthetic-{st}-error"),
                &chart,
            )?);
            let chart = LineChart {
                title: format!("Huleihel et al. 2019, Fig. 1 shape, {title}: failures"),
                x_label: "queries (mean over trials)".into(),
                y_label: "fraction of trials not exact".into(),
                log_x: true,
                series: fail,
            };
            files.extend(draw_both(
                ctx,
                &format!("overlap-synthetic-{st}-failures"),
                &chart,
            )?);
        }
        Ok(files)
    }
}
