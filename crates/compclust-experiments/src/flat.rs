//! Experiments of Perrot et al. (2020) on the flat planted model (Perrot et al. 2020, §5, Figure 1; Perrot et al. 2020, App. E,
//! Figure 4): ARI of AddS-3 / AddS-4 (+ SPUR or a known k) against the MulK-3 / MulK-4
//! baselines as the number of comparisons, the crowd noise ε, the F_in/F_out family, n, δ and
//! k vary. See `docs/reproduction/flat.md`.
//!
//! The full grids are the paper's (n = 1000, k = 4, ε = 0.75, δ = 0.5, 10 repetitions). Two
//! flags make them cheaper:
//! - `--n N`: use `N` items instead of 1000 (the n sweep of `flat-grid` is 0.25N … 1.5N);
//! - `--known-k`: solve SDP-k with the planted k instead of running SPUR (rows are then
//!   labelled `k_mode=known`).
//!
//! As in the paper (Perrot et al. 2020, §5, "As baselines, we use SDP-k (using the number of clusters estimated
//! by our approaches)"), MulK-3 / MulK-4 use the k̂ chosen by SPUR on AddS-3 / AddS-4 of the
//! same comparisons, or the planted k when k is known.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use compclust::data::Dataset;
use compclust::flat::{FlatParams, NClusters};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::models::flat::{Family, PlantedInstance};
use compclust::similarity::SimilarityKind;
use compclust::simulate::{Budget, comparison_budget};
use rayon::prelude::*;

use crate::journal::trial_key;
use crate::plot::lines::LineChart;
use crate::{Ctx, Experiment, Row, collect_rows, curves, draw_both};

/// The experiments of this module, in listing order.
pub fn experiments() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(Comparisons1a),
        Box::new(Noise1b),
        Box::new(Distributions1c),
        Box::new(Grid4),
    ]
}

/// Paper defaults (Perrot et al. 2020, §5).
const N: usize = 1000;
const K: usize = 4;
const EPS: f64 = 0.75;
const DELTA: f64 = 0.5;
const SEEDS: usize = 10;
/// Quick runs: small n, known k, two seeds.
const QUICK_N: usize = 40;
const QUICK_K: usize = 3;
const QUICK_SEEDS: usize = 2;

/// Items: `--n`, else the quick or paper size.
fn base_n(ctx: &Ctx) -> anyhow::Result<usize> {
    Ok(ctx.n.unwrap_or(if ctx.quick { QUICK_N } else { N }))
}

/// One run of the planted model: the data it is drawn from and how k is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Trial {
    n: usize,
    k: usize,
    family: Family,
    delta: f64,
    eps: f64,
    /// |T| or |Q| = n (ln n)^p.
    p: f64,
    quadruplets: bool,
    /// SDP-k with the planted k (true) or SPUR (false).
    known_k: bool,
    /// SDP stopping tolerance, when not the default (`--sdp-tol`).
    sdp_tol: Option<f64>,
    /// SPUR's first-pass tolerance (`--spur-refine`; `None`: every solve at the SDP tolerance).
    spur_refine: Option<f64>,
    seed: u64,
}

impl Trial {
    /// The number of comparisons n (ln n)^p, capped at the number of distinct ones.
    fn comparisons(&self) -> usize {
        comparison_budget(self.n, self.p, self.quadruplets)
    }

    /// The planted instance this trial samples (its seed is the trial's).
    fn instance(&self) -> PlantedInstance {
        planted_instance(
            self.n,
            self.k,
            self.family,
            self.delta,
            self.eps,
            self.p,
            self.quadruplets,
        )
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = vec![
            ("n", self.n.to_string()),
            ("k", self.k.to_string()),
            ("family", self.family.name().to_string()),
            ("delta", self.delta.to_string()),
            ("eps", self.eps.to_string()),
            ("p", self.p.to_string()),
            ("comparisons", self.comparisons().to_string()),
            (
                "k_mode",
                if self.known_k { "known" } else { "spur" }.to_string(),
            ),
        ];
        if let Some(t) = self.sdp_tol {
            p.push(("sdp_tol", t.to_string()));
        }
        if let Some(t) = self.spur_refine {
            p.push(("spur_refine", t.to_string()));
        }
        p
    }
}

/// The planted instance of the flat experiments: `n (ln n)^p` comparisons (capped) of the
/// planted model with crowd noise `eps`. A trial at seed `s` samples it with
/// [`PlantedInstance::sample`]`(s)`, the library's one seed rule, so its comparisons are those of
/// `compclust simulate planted` with `--seed s`.
pub fn planted_instance(
    n: usize,
    k: usize,
    family: Family,
    delta: f64,
    eps: f64,
    p: f64,
    quadruplets: bool,
) -> PlantedInstance {
    PlantedInstance {
        n,
        k,
        family,
        delta,
        eps,
        quadruplets,
        budget: Budget::LogPower(p),
    }
}

/// The result of one method on one trial.
struct MethodRun {
    method: &'static str,
    ari: f64,
    k_hat: usize,
    time_s: f64,
}

/// Draw the comparisons of `t`, cluster them with AddS (SPUR or known k) and with MulK (SDP-k
/// at AddS's k̂, or the known k), and score both against the planted clusters.
fn run_trial(t: &Trial) -> anyhow::Result<[MethodRun; 2]> {
    let (model, comparisons) = t
        .instance()
        .sample(t.seed)
        .with_context(|| format!("planted instance {t:?}"))?;
    let data = Dataset::numbered(t.n, comparisons)?;
    let n_clusters = if t.known_k {
        NClusters::K(t.k)
    } else {
        NClusters::Auto
    };
    let t0 = Instant::now();
    let flat = |kind, k| {
        let f = FlatParams::new()
            .with_similarity(kind)
            .with_n_clusters(k)
            .with_seed(t.seed)
            .with_spur_refine(t.spur_refine);
        match t.sdp_tol {
            Some(tol) => f.with_sdp_tol(tol),
            None => f,
        }
    };
    let adds = flat(SimilarityKind::AddS, n_clusters)
        .fit(&data, None)
        .with_context(|| format!("AddS on {t:?}"))?;
    let adds_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mulk = flat(SimilarityKind::MulK, NClusters::K(adds.k_hat))
        .fit(&data, None)
        .with_context(|| format!("MulK on {t:?}"))?;
    let mulk_s = t1.elapsed().as_secs_f64();
    let truth = model.labels();
    Ok([
        MethodRun {
            method: adds.similarity.paper_name(),
            ari: adjusted_rand_index(truth, &adds.labels),
            k_hat: adds.k_hat,
            time_s: adds_s,
        },
        MethodRun {
            method: mulk.similarity.paper_name(),
            ari: adjusted_rand_index(truth, &mulk.labels),
            k_hat: mulk.k_hat,
            time_s: mulk_s,
        },
    ])
}

/// Run every trial (in parallel for small n, where the SDP solver itself is sequential) and
/// push two rows (ARI and k̂) per method and trial. `extra` adds experiment-specific parameters.
fn run_trials(
    ctx: &Ctx,
    trials: &[(Trial, Vec<(&'static str, String)>)],
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    ctx.progress.set_length(trials.len() as u64);
    let one = |(t, extra): &(Trial, Vec<(&'static str, String)>)| {
        let mut params = extra.clone();
        params.extend(t.params());
        let key = flat_trial_key(params.iter().map(|(k, v)| (*k, v)), t.quadruplets, t.seed);
        let r = ctx.trial(&key, || {
            let runs = run_trial(t)?;
            let mut out = Vec::new();
            for mr in runs {
                out.push(Row::new(
                    mr.method, &params, t.seed, "ari", mr.ari, mr.time_s,
                ));
                out.push(Row::new(
                    mr.method,
                    &params,
                    t.seed,
                    "k_hat",
                    mr.k_hat as f64,
                    mr.time_s,
                ));
            }
            Ok(out)
        });
        ctx.progress.inc(1);
        r
    };
    let small = trials.iter().all(|(t, _)| t.n < 256);
    let results: Vec<anyhow::Result<Vec<Row>>> = if small {
        trials.par_iter().map(one).collect()
    } else {
        trials.iter().map(one).collect()
    };
    collect_rows(results, rows)
}

/// The journal key of a flat trial: its rows' parameters, the kind of comparisons and the seed.
/// Triplet and quadruplet trials share their parameters (the rows tell them apart by method),
/// so the key names the kind.
fn flat_trial_key<'a>(
    params: impl Iterator<Item = (&'a str, &'a String)>,
    quadruplets: bool,
    seed: u64,
) -> String {
    let kind = if quadruplets {
        "quadruplets"
    } else {
        "triplets"
    };
    let mut key: Vec<(&str, String)> = params.map(|(k, v)| (k, v.clone())).collect();
    key.push(("kind", kind.to_string()));
    trial_key(&key, seed)
}

/// [`flat_trial_key`] of the trial a row came from (its method names the kind: "AddS-4" and
/// "MulK-4" are quadruplet methods).
fn row_trial_key(row: &Row) -> String {
    let params = row.params.iter().map(|(k, v)| (k.as_str(), v));
    flat_trial_key(params, row.method.ends_with("-4"), row.seed)
}

/// The default trial of Perrot et al. 2020, §5 at size `n` (quick: the small planted k).
fn base_trial(ctx: &Ctx, n: usize) -> anyhow::Result<Trial> {
    Ok(Trial {
        n,
        k: if ctx.quick { QUICK_K } else { K },
        family: Family::NormalNormal,
        delta: DELTA,
        eps: EPS,
        p: 4.0,
        quadruplets: false,
        known_k: ctx.quick || ctx.known_k,
        sdp_tol: ctx.sdp_tol,
        spur_refine: ctx.spur_refine,
        seed: 0,
    })
}

fn seeds(ctx: &Ctx) -> Vec<u64> {
    seeds_or(ctx, QUICK_SEEDS)
}

/// `trial` once per seed, without extra parameters (the shape of every grid but flat-grid's).
fn per_seed(
    seeds: Vec<u64>,
    trial: Trial,
) -> impl Iterator<Item = (Trial, Vec<(&'static str, String)>)> {
    seeds
        .into_iter()
        .map(move |seed| (Trial { seed, ..trial }, Vec::new()))
}

/// Seeds `0..R`: `--seeds`, else `quick` repetitions in quick runs and the paper's 10.
fn seeds_or(ctx: &Ctx, quick: usize) -> Vec<u64> {
    (0..ctx.n_seeds(if ctx.quick { quick } else { SEEDS }) as u64).collect()
}

fn k_label(rows: &[Row]) -> &'static str {
    if rows.iter().any(|r| r.param("k_mode") == Some("known")) {
        "known k"
    } else {
        "SPUR"
    }
}

fn setting(rows: &[Row]) -> String {
    let get = |p: &str| {
        rows.first()
            .and_then(|r| r.param(p))
            .unwrap_or("?")
            .to_string()
    };
    format!(
        "n = {}, k = {}, δ = {}, {}",
        get("n"),
        get("k"),
        get("delta"),
        k_label(rows)
    )
}

fn pow_label(p: &str) -> String {
    format!("n(ln n)^{p}")
}

/// Perrot et al. 2020, Figure 1a: ARI vs |T|, |Q| from n ln n to n (ln n)^6.
struct Comparisons1a;

impl Experiment for Comparisons1a {
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        Some(row_trial_key)
    }
    fn name(&self) -> &'static str {
        "flat-comparisons"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, Fig. 1a: ARI vs |T|, |Q| = n(ln n)^p, p = 1..6; AddS-3/4, MulK-3/4 (planted model)"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let base = base_trial(ctx, base_n(ctx)?)?;
        let ps: Vec<f64> = if ctx.quick {
            vec![2.0, 4.0]
        } else {
            (2..=12).map(|i| i as f64 / 2.0).collect()
        };
        let mut trials = Vec::new();
        for &quadruplets in &[false, true] {
            for &p in &ps {
                trials.extend(per_seed(
                    seeds(ctx),
                    Trial {
                        p,
                        quadruplets,
                        ..base
                    },
                ));
            }
        }
        run_trials(ctx, &trials, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let chart = LineChart {
            title: format!(
                "ARI vs number of comparisons (Perrot et al. 2020, Fig. 1a; {}, ε = {})",
                setting(rows),
                rows.first().and_then(|r| r.param("eps")).unwrap_or("?")
            ),
            x_label: "p, with |T| = |Q| = n (ln n)^p".into(),
            y_label: "ARI".into(),
            log_x: false,
            series: curves(rows, "ari", "p", |r| r.method.clone()),
        };
        draw_both(ctx, "flat-comparisons", &chart)
    }
}

/// Perrot et al. 2020, Figure 1b: ARI vs ε at n (ln n)^3 and n (ln n)^4 triplets.
struct Noise1b;

fn eps_grid(ctx: &Ctx) -> Vec<f64> {
    if ctx.quick {
        vec![0.5, 1.0]
    } else {
        vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    }
}

impl Experiment for Noise1b {
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        Some(row_trial_key)
    }
    fn name(&self) -> &'static str {
        "flat-noise"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, Fig. 1b: ARI vs crowd noise ε at |T| = n(ln n)^3 and n(ln n)^4; AddS-3, MulK-3"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let base = base_trial(ctx, base_n(ctx)?)?;
        let mut trials = Vec::new();
        for p in [3.0, 4.0] {
            for &eps in &eps_grid(ctx) {
                trials.extend(per_seed(seeds(ctx), Trial { p, eps, ..base }));
            }
        }
        run_trials(ctx, &trials, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let chart = LineChart {
            title: format!(
                "ARI vs crowd noise ε (Perrot et al. 2020, Fig. 1b; {})",
                setting(rows)
            ),
            x_label: "ε (answers correct with probability (1+ε)/2)".into(),
            y_label: "ARI".into(),
            log_x: false,
            series: curves(rows, "ari", "eps", |r| {
                format!("{}, {}", r.method, pow_label(r.param("p").unwrap_or("?")))
            }),
        };
        draw_both(ctx, "flat-noise", &chart)
    }
}

/// Perrot et al. 2020, Figure 1c: the F_in/F_out families of Perrot et al. 2020, App. E.3; ARI vs ε at n (ln n)^3 and ^4.
struct Distributions1c;

impl Experiment for Distributions1c {
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        Some(row_trial_key)
    }
    fn name(&self) -> &'static str {
        "flat-distributions"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, Fig. 1c / Perrot et al. 2020, App. E.3: ARI vs ε for the four F_in/F_out families; AddS-3, MulK-3"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let base = base_trial(ctx, base_n(ctx)?)?;
        let ps: &[f64] = if ctx.quick { &[4.0] } else { &[3.0, 4.0] };
        let mut trials = Vec::new();
        for family in Family::ALL {
            for &p in ps {
                for &eps in &eps_grid(ctx) {
                    trials.extend(per_seed(
                        seeds_or(ctx, 1),
                        Trial {
                            family,
                            p,
                            eps,
                            ..base
                        },
                    ));
                }
            }
        }
        run_trials(ctx, &trials, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for family in Family::ALL {
            let fam: Vec<Row> = rows
                .iter()
                .filter(|r| r.param("family") == Some(family.name()))
                .cloned()
                .collect();
            if fam.is_empty() {
                continue;
            }
            let chart = LineChart {
                title: format!(
                    "F_in/F_out = {} (Perrot et al. 2020, Fig. 1c; {})",
                    family_title(family),
                    setting(&fam)
                ),
                x_label: "ε".into(),
                y_label: "ARI".into(),
                log_x: false,
                series: curves(&fam, "ari", "eps", |r| {
                    format!("{}, {}", r.method, pow_label(r.param("p").unwrap_or("?")))
                }),
            };
            files.extend(draw_both(
                ctx,
                &format!("flat-distributions-{}", family.name()),
                &chart,
            )?);
        }
        Ok(files)
    }
}

fn family_title(f: Family) -> &'static str {
    match f {
        Family::NormalNormal => "N(μ, σ²) / N(0, σ²)",
        Family::UniformUniform => "U(a, 1+a) / U(0, 1)",
        Family::BetaBeta => "Beta(α, 2) / U(0, 1)",
        Family::NormalUniform => "N(μ, σ²) / U(0, 1)",
    }
}

/// Perrot et al. 2020, App. E.4, Figure 4: sweeps of n, δ, ε and k for three settings
/// (n (ln n)^3 with SPUR, n (ln n)^3 with known k, n (ln n)^4 with SPUR).
struct Grid4;

/// A swept parameter of Figure 4.
#[derive(Clone, Copy)]
enum Sweep {
    N,
    Delta,
    Eps,
    K,
}

impl Sweep {
    const ALL: [Sweep; 4] = [Sweep::N, Sweep::Delta, Sweep::Eps, Sweep::K];
    fn name(self) -> &'static str {
        match self {
            Sweep::N => "n",
            Sweep::Delta => "delta",
            Sweep::Eps => "eps",
            Sweep::K => "k",
        }
    }
    /// The swept values; the n sweep is relative to the base size `n0` (the paper's
    /// 250, 500, …, 1500 for n0 = 1000).
    fn values(self, quick: bool, n0: usize) -> Vec<f64> {
        let ns = |f: &[f64]| f.iter().map(|x| (x * n0 as f64).round()).collect();
        match (self, quick) {
            (Sweep::N, false) => ns(&[0.25, 0.5, 0.75, 1.0, 1.25, 1.5]),
            (Sweep::N, true) => ns(&[0.75, 1.0]),
            (Sweep::Delta, false) => vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
            (Sweep::Delta, true) => vec![0.5, 0.8],
            (Sweep::Eps, false) => vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            (Sweep::Eps, true) => vec![0.5, 1.0],
            (Sweep::K, false) => (2..=10).map(|k| k as f64).collect(),
            (Sweep::K, true) => vec![2.0, 3.0],
        }
    }
    fn apply(self, t: Trial, v: f64) -> Trial {
        match self {
            Sweep::N => Trial { n: v as usize, ..t },
            Sweep::Delta => Trial { delta: v, ..t },
            Sweep::Eps => Trial { eps: v, ..t },
            Sweep::K => Trial { k: v as usize, ..t },
        }
    }
}

/// The three columns of Figure 4: (name, p, known k). With `--known-k` the SPUR columns are
/// replaced by known-k ones at n (ln n)^3 and n (ln n)^4.
fn grid_settings(quick: bool, known_k: bool) -> Vec<(&'static str, f64, bool)> {
    if quick {
        vec![("p3-known", 3.0, true)]
    } else if known_k {
        vec![("p3-known", 3.0, true), ("p4-known", 4.0, true)]
    } else {
        vec![
            ("p3-spur", 3.0, false),
            ("p3-known", 3.0, true),
            ("p4-spur", 4.0, false),
        ]
    }
}

impl Experiment for Grid4 {
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        Some(row_trial_key)
    }
    fn name(&self) -> &'static str {
        "flat-grid"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, App. E.4 Fig. 4: ARI vs n, δ, ε, k at n(ln n)^3 (SPUR, known k) and n(ln n)^4 (SPUR)"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let base = base_trial(ctx, base_n(ctx)?)?;
        // Quick runs use triplets only (AddS-3, MulK-3); the paper also shows AddS-4 / MulK-4.
        let kinds: &[bool] = if ctx.quick { &[false] } else { &[false, true] };
        let mut trials = Vec::new();
        for (name, p, known) in grid_settings(ctx.quick, ctx.known_k) {
            for sweep in Sweep::ALL {
                for v in sweep.values(ctx.quick, base.n) {
                    for &quadruplets in kinds {
                        for s in seeds(ctx) {
                            let t = Trial {
                                p,
                                quadruplets,
                                known_k: known,
                                seed: s,
                                ..base
                            };
                            trials.push((
                                sweep.apply(t, v),
                                vec![
                                    ("setting", name.to_string()),
                                    ("sweep", sweep.name().into()),
                                ],
                            ));
                        }
                    }
                }
            }
        }
        run_trials(ctx, &trials, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for (name, p, _) in grid_settings(ctx.quick, ctx.known_k) {
            for sweep in Sweep::ALL {
                let sel: Vec<Row> = rows
                    .iter()
                    .filter(|r| r.param("setting") == Some(name))
                    .filter(|r| r.param("sweep") == Some(sweep.name()))
                    .cloned()
                    .collect();
                if sel.is_empty() {
                    continue;
                }
                let chart = LineChart {
                    title: format!(
                        "Perrot et al. 2020, Fig. 4: vary {}; |T| = |Q| = n(ln n)^{p}, {}",
                        sweep.name(),
                        k_label(&sel)
                    ),
                    x_label: match sweep {
                        Sweep::N => "n",
                        Sweep::Delta => "δ",
                        Sweep::Eps => "ε",
                        Sweep::K => "k",
                    }
                    .into(),
                    y_label: "ARI".into(),
                    log_x: false,
                    series: curves(&sel, "ari", sweep.name(), |r| r.method.clone()),
                };
                files.extend(draw_both(
                    ctx,
                    &format!("flat-grid-{}-{name}", sweep.name()),
                    &chart,
                )?);
            }
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compclust::simulate::n_distinct_triplets;

    #[test]
    fn comparisons_follow_n_ln_n_power_and_are_capped() {
        let t = Trial {
            n: 100,
            k: 2,
            family: Family::NormalNormal,
            delta: 0.5,
            eps: 1.0,
            p: 2.0,
            quadruplets: false,
            known_k: true,
            sdp_tol: None,
            spur_refine: None,
            seed: 0,
        };
        let want = (100.0 * 100f64.ln().powi(2)).round() as usize;
        assert_eq!(t.comparisons(), want);
        let capped = Trial { n: 10, p: 6.0, ..t };
        assert_eq!(capped.comparisons() as u128, n_distinct_triplets(10));
    }

    #[test]
    fn a_noiseless_easy_trial_recovers_the_planted_clusters() {
        // Perrot et al. 2020, §5: n (ln n)^4 triplets at ε = 1 and δ = 0.8 recover the planted partition.
        let t = Trial {
            n: 40,
            k: 2,
            family: Family::NormalNormal,
            delta: 0.8,
            eps: 1.0,
            p: 4.0,
            quadruplets: false,
            known_k: true,
            sdp_tol: None,
            spur_refine: None,
            seed: 1,
        };
        let [adds, mulk] = run_trial(&t).unwrap();
        assert_eq!(adds.method, "AddS-3");
        assert_eq!(mulk.method, "MulK-3");
        assert_eq!(adds.k_hat, 2);
        assert!((adds.ari - 1.0).abs() < 1e-12, "AddS-3 ARI {}", adds.ari);
    }
}
