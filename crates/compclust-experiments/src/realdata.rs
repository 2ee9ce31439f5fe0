//! Real-data experiments of Perrot et al. (2020) (Perrot et al. 2020, §5, Figure 2; Perrot et al. 2020, App. F): MNIST triplets
//! simulated from the t-SNE coordinates (`mnist`), the crowdsourced car triplets (`car`) and the
//! food triplets (`food`). See `docs/reproduction/flat.md`.
//!
//! The MNIST subsets have 2,163 (1 vs 7) and 2,000 (all digits) points; two flags make the run
//! cheaper:
//! - `--n N`: a seeded random subsample of `N` points of each subset;
//! - `--known-k`: skip "AddS-3, SPUR" (the known-k methods still run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, anyhow};
use compclust::data::datasets::load_mnist_tsne;
use compclust::data::{
    Comparisons, Dataset, InputFormat, ItemIndex, ReadOptions, Triplet, read_comparisons,
};
use compclust::embed::tste::TsteParams;
use compclust::flat::{FlatParams, KMeansParams, NClusters, Points, kmeans};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::similarity::SimilarityKind;
use compclust::simulate::{FeatureSimilarity, Kernel, sample_triplets};
use plotters::coord::Shift;
use plotters::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::journal::trial_key;
use crate::plot::lines::LineChart;
use crate::plot::{Format, format_of, init_fonts};
use crate::{Ctx, Experiment, Row, collect_rows, curves, draw_both, mean_std};

/// The experiments of this module, in listing order.
pub fn experiments() -> Vec<Box<dyn Experiment>> {
    vec![Box::new(Mnist), Box::new(Car), Box::new(Food)]
}

// ---------------------------------------------------------------------------------------------
// Shared steps: cluster a triplet data set with each method of Perrot et al. 2020, §5.

/// A clustering method of Perrot et al. 2020, §5 on triplets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Method {
    /// AddS-3 / AddS-4 (the latter on the triplets written as quadruplets) with SPUR.
    AddsSpur { quadruplets: bool },
    /// AddS-3 / AddS-4 + SDP-k with k given.
    Adds { quadruplets: bool, k: usize },
    /// MulK-3 / MulK-4 + SDP-k with k given.
    Mulk { quadruplets: bool, k: usize },
    /// t-STE embedding in 2 dimensions (van der Maaten & Weinberger 2012), then k-means++.
    Tste { k: usize, max_iter: usize },
}

impl Method {
    fn name(self) -> String {
        let arity = |q: bool| if q { 4 } else { 3 };
        match self {
            Method::AddsSpur { quadruplets } => format!("AddS-{}, SPUR", arity(quadruplets)),
            Method::Adds { quadruplets, k } => format!("AddS-{}, k={k}", arity(quadruplets)),
            Method::Mulk { quadruplets, k } => format!("MulK-{}, k={k}", arity(quadruplets)),
            Method::Tste { k, .. } => format!("t-STE, k={k}"),
        }
    }
}

/// A partition found by a method, with its k̂ and time.
struct Found {
    labels: Vec<usize>,
    k_hat: usize,
    time_s: f64,
}

/// Run `method` on `data` (triplets over `0..n`) with `seed` (k-means++ and t-STE start).
fn cluster_with(method: Method, data: &Dataset, seed: u64) -> anyhow::Result<Found> {
    cluster_with_tol(method, data, seed, Tolerances::default())
}

/// The SDP tolerances of a real-data run: `sdp_tol` for every SDP (None: the default) and,
/// with `spur_refine`, SPUR's two passes (its first at that tolerance, tightening only what
/// k̂ needs); without it every SDP of SPUR is solved to `sdp_tol`, as in the committed runs.
#[derive(Clone, Copy, Debug, Default)]
struct Tolerances {
    sdp_tol: Option<f64>,
    spur_refine: Option<f64>,
}

/// The row parameters (and trial-key words) that [`Tolerances`] adds, in this order, when set.
const TOLERANCE_PARAMS: [&str; 2] = ["sdp_tol", "spur_refine"];

impl Tolerances {
    /// The parameters these tolerances give a trial's rows and key (only those set).
    fn params(self) -> Vec<(&'static str, String)> {
        let [sdp, refine] = TOLERANCE_PARAMS;
        [(sdp, self.sdp_tol), (refine, self.spur_refine)]
            .into_iter()
            .filter_map(|(name, t)| t.map(|t| (name, t.to_string())))
            .collect()
    }
}

/// [`cluster_with`], with the SDP tolerances `tol`.
fn cluster_with_tol(
    method: Method,
    data: &Dataset,
    seed: u64,
    tol: Tolerances,
) -> anyhow::Result<Found> {
    let t0 = Instant::now();
    let quad_data = |q: bool| -> anyhow::Result<Option<Dataset>> {
        if !q {
            return Ok(None);
        }
        let qs = data
            .comparisons
            .as_quadruplets()
            .context("same-cluster answers cannot be written as quadruplets")?;
        Ok(Some(Dataset::new(
            data.items.clone(),
            Comparisons::Quadruplets(qs),
        )?))
    };
    let flat = |q: bool, kind: SimilarityKind, k: NClusters| -> anyhow::Result<Found> {
        let qd = quad_data(q)?;
        let d = qd.as_ref().unwrap_or(data);
        let params = FlatParams::new()
            .with_similarity(kind)
            .with_n_clusters(k)
            .with_seed(seed)
            .with_spur_refine(tol.spur_refine);
        let params = match tol.sdp_tol {
            Some(tol) => params.with_sdp_tol(tol),
            None => params,
        };
        let fitted = params.fit(d, None)?;
        Ok(Found {
            labels: fitted.labels,
            k_hat: fitted.k_hat,
            time_s: t0.elapsed().as_secs_f64(),
        })
    };
    match method {
        Method::AddsSpur { quadruplets } => {
            flat(quadruplets, SimilarityKind::AddS, NClusters::Auto)
        }
        Method::Adds { quadruplets, k } => flat(quadruplets, SimilarityKind::AddS, NClusters::K(k)),
        Method::Mulk { quadruplets, k } => flat(quadruplets, SimilarityKind::MulK, NClusters::K(k)),
        Method::Tste { k, max_iter } => {
            let Comparisons::Triplets(t) = &data.comparisons else {
                anyhow::bail!("t-STE needs triplets");
            };
            let n = data.n_items();
            let emb = TsteParams::new(2)
                .with_seed(seed)
                .with_max_iter(max_iter)
                .fit(n, t, None)?;
            let pts = Points::new(n, 2, emb.rows())?;
            let km = kmeans(&pts, &KMeansParams::new(k).with_seed(seed))?;
            Ok(Found {
                labels: km.labels,
                k_hat: k,
                time_s: t0.elapsed().as_secs_f64(),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// MNIST (Perrot et al. 2020, Figure 2a-b, Perrot et al. 2020, App. F.3 Figure 6).

struct Mnist;

/// Points of one MNIST subset, normalised to [-1, 1]², with their digits.
struct MnistSet {
    name: &'static str,
    k: usize,
    points: Vec<[f64; 2]>,
    labels: Vec<usize>,
}

/// Seeded subsample of `m` of the indices `0..n` (partial Fisher-Yates), in increasing order.
fn subsample(n: usize, m: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let m = m.min(n);
    for i in 0..m {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    idx.truncate(m);
    idx.sort_unstable();
    idx
}

/// Load the t-SNE points, normalise every coordinate to [-1, 1] over all 10,000 points (Perrot et al. 2020, §5)
/// and build "MNIST 1vs7" (all ones and sevens) and "MNIST 10" (2,000 points drawn without
/// replacement, seed 0), each optionally subsampled to `sub` points.
fn mnist_sets(dir: &Path, sub: Option<usize>) -> anyhow::Result<Vec<MnistSet>> {
    let (pts, labels) = load_mnist_tsne(
        &dir.join("mnist_tsne/reduced_test_X.csv"),
        &dir.join("mnist_tsne/test_labels.csv"),
    )?;
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for p in &pts {
        for c in 0..2 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let norm: Vec<[f64; 2]> = pts
        .iter()
        .map(|p| {
            let f = |c: usize| 2.0 * (p[c] - lo[c]) / (hi[c] - lo[c]).max(1e-300) - 1.0;
            [f(0), f(1)]
        })
        .collect();
    let ones_sevens: Vec<usize> = (0..labels.len())
        .filter(|&i| labels[i] == 1 || labels[i] == 7)
        .collect();
    let ten = subsample(labels.len(), 2000, 0);
    let mut sets = Vec::new();
    for (name, k, idx) in [("1vs7", 2, ones_sevens), ("10", 10, ten)] {
        let idx: Vec<usize> = match sub {
            Some(m) if m < idx.len() => subsample(idx.len(), m, 1)
                .into_iter()
                .map(|i| idx[i])
                .collect(),
            _ => idx,
        };
        sets.push(MnistSet {
            name,
            k,
            points: idx.iter().map(|&i| norm[i]).collect(),
            labels: idx.iter().map(|&i| labels[i]).collect(),
        });
    }
    Ok(sets)
}

impl Experiment for Mnist {
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        Some(|row| {
            let param = |name| row.param(name).unwrap_or("");
            let (subset, kernel, p) = (param("subset"), param("kernel"), param("p"));
            let tol: Vec<(&str, String)> = TOLERANCE_PARAMS
                .into_iter()
                .filter_map(|name| row.param(name).map(|v| (name, v.to_string())))
                .collect();
            mnist_trial_key(subset, kernel, p, &tol, row.seed)
        })
    }
    fn name(&self) -> &'static str {
        "mnist"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, Fig. 2a-b / Perrot et al. 2020, Fig. 6: ARI vs |T| on MNIST 1vs7 and MNIST 10 (Gaussian, cosine)"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let dir = ctx.data_dir()?;
        let sub = ctx.n.or(if ctx.quick { Some(40) } else { None });
        let spur = !ctx.quick && !ctx.known_k;
        let sets = mnist_sets(dir, sub)?;
        let ps: Vec<f64> = if ctx.quick {
            vec![2.0, 3.0]
        } else {
            vec![2.0, 2.5, 3.0, 3.5, 4.0]
        };
        // Quick runs: the Gaussian similarity only (Perrot et al. 2020, Fig. 2); the full run adds cosine
        // (Perrot et al. 2020, Fig. 6).
        let kernels: &[(&str, Kernel)] = if ctx.quick {
            &[("gaussian", Kernel::Gaussian { gamma: 1.0 })]
        } else {
            &[
                ("gaussian", Kernel::Gaussian { gamma: 1.0 }),
                ("cosine", Kernel::Cosine),
            ]
        };
        let n_seeds = ctx.n_seeds(if ctx.quick { 2 } else { 10 }) as u64;
        let tste_iter = if ctx.quick { 100 } else { 1000 };
        let mut trials = Vec::new();
        for set in &sets {
            for &(kname, kernel) in kernels {
                for &p in &ps {
                    for seed in 0..n_seeds {
                        trials.push((set, kname, kernel, p, seed));
                    }
                }
            }
        }
        ctx.progress.set_length(trials.len() as u64);
        let one = |&(set, kname, kernel, p, seed): &(&MnistSet, &str, Kernel, f64, u64)| {
            let tol = Tolerances {
                sdp_tol: ctx.sdp_tol,
                spur_refine: ctx.spur_refine,
            };
            let key = mnist_trial_key(set.name, kname, &p.to_string(), &tol.params(), seed);
            let how = MnistRun {
                spur,
                tste_iter,
                tol,
            };
            let r = ctx.trial(&key, || mnist_trial(set, kname, kernel, p, seed, how));
            ctx.progress.inc(1);
            r
        };
        let small = sets.iter().all(|s| s.points.len() < 256);
        let results: Vec<anyhow::Result<Vec<Row>>> = if small {
            trials.par_iter().map(one).collect()
        } else {
            trials.iter().map(one).collect()
        };
        collect_rows(results, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for set in ["1vs7", "10"] {
            for kernel in ["gaussian", "cosine"] {
                let sel: Vec<Row> = rows
                    .iter()
                    .filter(|r| r.param("subset") == Some(set) && r.param("kernel") == Some(kernel))
                    .cloned()
                    .collect();
                if sel.is_empty() {
                    continue;
                }
                let n = sel[0].param("n").unwrap_or("?").to_string();
                let chart = LineChart {
                    title: format!(
                        "MNIST {set}, n = {n}, {kernel} similarity (Perrot et al. 2020, Fig. 2{}, Perrot et al. 2020, Fig. 6)",
                        if set == "1vs7" { "a" } else { "b" }
                    ),
                    x_label: "p, with |T| = n (ln n)^p".into(),
                    y_label: "ARI".into(),
                    log_x: false,
                    series: curves(&sel, "ari", "p", |r| r.method.clone()),
                };
                files.extend(draw_both(ctx, &format!("mnist-{set}-{kernel}"), &chart)?);
            }
        }
        Ok(files)
    }
}

/// The journal key of an MNIST trial (subset, similarity kernel, p, the tolerances that were
/// set ([`Tolerances::params`]), and seed; the rows of the trial carry the same parameters).
fn mnist_trial_key(
    subset: &str,
    kernel: &str,
    p: &str,
    tol: &[(&str, String)],
    seed: u64,
) -> String {
    let mut params = vec![
        ("subset", subset.to_string()),
        ("kernel", kernel.to_string()),
        ("p", p.to_string()),
    ];
    params.extend(tol.iter().cloned());
    trial_key(&params, seed)
}

/// How an MNIST trial runs: SPUR or not, t-STE's iterations, the SDP tolerances.
#[derive(Clone, Copy)]
struct MnistRun {
    spur: bool,
    tste_iter: usize,
    tol: Tolerances,
}

/// Draw n (ln n)^p noiseless triplets from the kernel similarity of the points and score every
/// method of Figure 2 against the digits.
fn mnist_trial(
    set: &MnistSet,
    kname: &str,
    kernel: Kernel,
    p: f64,
    seed: u64,
    how: MnistRun,
) -> anyhow::Result<Vec<Row>> {
    let MnistRun {
        spur,
        tste_iter,
        tol,
    } = how;
    let n = set.points.len();
    let flat: Vec<f64> = set.points.iter().flat_map(|p| [p[0], p[1]]).collect();
    let sim = FeatureSimilarity::new(n, 2, flat.clone(), kernel)?;
    let m = compclust::simulate::comparison_budget(n, p, false);
    let triplets: Vec<Triplet> = sample_triplets(&sim, m, 1.0, seed)?;
    let data = Dataset::numbered(n, Comparisons::Triplets(triplets))?;
    let k = set.k;
    let mut params = vec![
        ("subset", set.name.to_string()),
        ("kernel", kname.to_string()),
        ("n", n.to_string()),
        ("p", p.to_string()),
        ("comparisons", m.to_string()),
    ];
    params.extend(tol.params());
    let mut methods = vec![
        Method::Adds {
            quadruplets: false,
            k,
        },
        Method::Mulk {
            quadruplets: false,
            k,
        },
        Method::Tste {
            k,
            max_iter: tste_iter,
        },
    ];
    if spur {
        methods.insert(0, Method::AddsSpur { quadruplets: false });
    }
    let mut rows = Vec::new();
    for method in methods {
        let f = cluster_with_tol(method, &data, seed, tol).with_context(|| {
            format!("{} on MNIST {} ({kname}, p = {p})", method.name(), set.name)
        })?;
        let ari = adjusted_rand_index(&set.labels, &f.labels);
        rows.push(Row::new(method.name(), &params, seed, "ari", ari, f.time_s));
        rows.push(Row::new(
            method.name(),
            &params,
            seed,
            "k_hat",
            f.k_hat as f64,
            f.time_s,
        ));
    }
    // The baseline with access to the coordinates does not depend on |T|; it is drawn as a
    // horizontal line, so it is repeated for every p (same seed → same value).
    let t0 = Instant::now();
    let km = kmeans(
        &Points::new(n, 2, flat)?,
        &KMeansParams::new(k).with_seed(seed),
    )?;
    let ari = adjusted_rand_index(&set.labels, &km.labels);
    let name = format!("k-means, k={k}");
    rows.push(Row::new(
        name,
        &params,
        seed,
        "ari",
        ari,
        t0.elapsed().as_secs_f64(),
    ));
    Ok(rows)
}

// ---------------------------------------------------------------------------------------------
// Agreement matrices (Perrot et al. 2020, Figure 2c, Perrot et al. 2020, Figure 5).

/// ARI between every pair of partitions; rows `method` × `versus` with metric "ari".
fn agreement_rows(parts: &[(String, Vec<usize>, f64)], seed: u64, rows: &mut Vec<Row>) {
    for (a, la, ta) in parts {
        for (b, lb, _) in parts {
            rows.push(Row::new(
                a.clone(),
                &[("versus", b.clone())],
                seed,
                "ari",
                adjusted_rand_index(la, lb),
                *ta,
            ));
        }
    }
}

/// The mean agreement matrix over seeds, in the order methods first appear.
fn agreement_matrix(rows: &[Row]) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut names: Vec<String> = Vec::new();
    let mut vals: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.metric == "ari") {
        let Some(b) = r.param("versus") else { continue };
        if !names.contains(&r.method) {
            names.push(r.method.clone());
        }
        vals.entry((r.method.clone(), b.to_string()))
            .or_default()
            .push(r.value);
    }
    let m = names
        .iter()
        .map(|a| {
            names
                .iter()
                .map(|b| {
                    vals.get(&(a.clone(), b.clone()))
                        .map_or(f64::NAN, |v| mean_std(v).0)
                })
                .collect()
        })
        .collect();
    (names, m)
}

/// Draw a labelled agreement matrix (darker = more agreement) as `<stem>.svg` and `.png`.
fn draw_agreement(
    ctx: &Ctx,
    stem: &str,
    title: &str,
    names: &[String],
    m: &[Vec<f64>],
) -> anyhow::Result<Vec<PathBuf>> {
    init_fonts();
    // A matrix of ones is a finding (every method found the same partition), not a figure
    // that failed: say so in the title.
    let same = m
        .iter()
        .flatten()
        .all(|v| !v.is_finite() || *v >= 1.0 - 1e-9);
    let title = if same && names.len() > 1 {
        format!("{title}: every method finds the same partition")
    } else {
        title.to_string()
    };
    let title = title.as_str();
    let cell = 64u32;
    let left = 200u32;
    let top = 70u32;
    // Wide enough for the title (17 px sans: under 9 px a character).
    let size = (
        (left + cell * names.len() as u32 + 20).max(title.chars().count() as u32 * 9 + 20),
        top + cell * names.len() as u32 + 20,
    );
    let mut files = Vec::new();
    for ext in ["svg", "png"] {
        let path = ctx.out_path(&format!("{stem}.{ext}"));
        let format = format_of(&path)?;
        crate::plot::draw_atomically(&path, |tmp| {
            let res = match format {
                Format::Svg => draw_matrix(
                    SVGBackend::new(tmp, size).into_drawing_area(),
                    title,
                    names,
                    m,
                    (cell, left, top),
                ),
                Format::Png => draw_matrix(
                    BitMapBackend::new(tmp, size).into_drawing_area(),
                    title,
                    names,
                    m,
                    (cell, left, top),
                ),
            };
            res.map_err(|e| anyhow!("{}: cannot draw: {e}", path.display()))
        })?;
        files.push(path);
    }
    Ok(files)
}

fn draw_matrix<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    names: &[String],
    m: &[Vec<f64>],
    (cell, left, top): (u32, u32, u32),
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("{e:?}");
    root.fill(&WHITE).map_err(err)?;
    root.draw_text(
        &crate::plot::drawable(title),
        &("sans-serif", 17).into_font().color(&BLACK),
        (10, 8),
    )
    .map_err(err)?;
    let font = ("sans-serif", 14).into_font();
    for (i, name) in names.iter().enumerate() {
        let y = (top + cell * i as u32 + cell / 2 - 7) as i32;
        root.draw_text(&format!("{}  {name}", i + 1), &font.color(&BLACK), (8, y))
            .map_err(err)?;
        let x = (left + cell * i as u32 + cell / 2 - 4) as i32;
        root.draw_text(
            &format!("{}", i + 1),
            &font.color(&BLACK),
            (x, top as i32 - 22),
        )
        .map_err(err)?;
    }
    for (i, row) in m.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            let t = if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            };
            let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
            let c = RGBColor(lerp(255, 8), lerp(255, 48), lerp(255, 107));
            let (x0, y0) = (
                (left + cell * j as u32) as i32,
                (top + cell * i as u32) as i32,
            );
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + cell as i32, y0 + cell as i32)],
                c.filled(),
            ))
            .map_err(err)?;
            let ink = if t > 0.55 { WHITE } else { BLACK };
            let label = if v.is_finite() {
                format!("{v:.2}")
            } else {
                "–".into()
            };
            root.draw_text(
                &label,
                &font.color(&ink),
                (x0 + cell as i32 / 2 - 14, y0 + cell as i32 / 2 - 7),
            )
            .map_err(err)?;
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Car (Perrot et al. 2020, Figure 2c, Perrot et al. 2020, App. F.1).

struct Car;

/// The classes of the 60 cars (1-based image numbers, from the authors' README): 0 ordinary,
/// 1 sports, 2 off-road/SUV, 3 outliers.
const CAR_CLASSES: [&[usize]; 4] = [
    &[
        2, 6, 7, 8, 9, 10, 11, 12, 16, 17, 25, 32, 35, 36, 37, 38, 39, 41, 44, 45, 46, 55, 58, 60,
    ],
    &[15, 19, 20, 28, 40, 42, 47, 48, 49, 50, 51, 52, 54, 56, 59],
    &[
        1, 3, 4, 5, 13, 14, 18, 22, 24, 26, 27, 29, 31, 33, 34, 43, 57,
    ],
    &[21, 23, 30, 53],
];

/// The car triplets (`T_ALL_REDUCED.csv`, 6,056 most-central answers → 12,112 triplets) over
/// items "1".."60" in that order, and the class of each item.
fn load_car(dir: &Path) -> anyhow::Result<(Dataset, Vec<usize>)> {
    let path = dir.join("car/ordinal_data_preprocessed/T_ALL_REDUCED.csv");
    let items = ItemIndex::fixed((1..=60).map(|i| i.to_string()))?;
    let data = read_comparisons(
        &path,
        &ReadOptions {
            format: Some(InputFormat::CarOrdinal),
            items: Some(items),
            ..ReadOptions::default()
        },
    )
    .with_context(|| format!("reading the car data {}", path.display()))?;
    let mut truth = vec![usize::MAX; 60];
    for (c, members) in CAR_CLASSES.iter().enumerate() {
        for &i in *members {
            truth[i - 1] = c;
        }
    }
    if truth.contains(&usize::MAX) {
        anyhow::bail!("car classes do not cover the 60 items");
    }
    Ok((data, truth))
}

impl Experiment for Car {
    fn name(&self) -> &'static str {
        "car"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, Fig. 2c: ARI agreement of AddS-3 (SPUR, k=2,3), MulK-3, t-STE and the car classes"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let (data, truth) = load_car(ctx.data_dir()?)?;
        let tste_iter = if ctx.quick { 200 } else { 1000 };
        let mut methods = vec![Method::AddsSpur { quadruplets: false }];
        for k in [2, 3] {
            methods.push(Method::Adds {
                quadruplets: false,
                k,
            });
            methods.push(Method::Mulk {
                quadruplets: false,
                k,
            });
            methods.push(Method::Tste {
                k,
                max_iter: tste_iter,
            });
        }
        let n_seeds = ctx.n_seeds(1) as u64;
        ctx.progress.set_length(n_seeds * methods.len() as u64);
        for seed in 0..n_seeds {
            let mut parts = Vec::new();
            for &m in &methods {
                let f =
                    cluster_with(m, &data, seed).with_context(|| format!("{} on car", m.name()))?;
                rows.push(Row::new(
                    m.name(),
                    &[("versus", "".into())],
                    seed,
                    "k_hat",
                    f.k_hat as f64,
                    f.time_s,
                ));
                parts.push((m.name(), f.labels, f.time_s));
                ctx.progress.inc(1);
            }
            parts.push(("true labels".into(), truth.clone(), 0.0));
            agreement_rows(&parts, seed, rows);
        }
        Ok(())
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let (names, m) = agreement_matrix(rows);
        let k_hat = rows
            .iter()
            .find(|r| r.metric == "k_hat" && r.method.contains("SPUR"))
            .map_or("?".into(), |r| r.value.to_string());
        draw_agreement(
            ctx,
            "car",
            &format!(
                "Car, |T| = 12112: ARI between partitions (Perrot et al. 2020, Fig. 2c; SPUR k̂ = {k_hat})"
            ),
            &names,
            &m,
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Food (Perrot et al. 2020, App. F.2, Figures 5 and 7).

struct Food;

/// Dish name and taste percentages of one image, from `ingredients.json`.
struct Dish {
    name: String,
    tastes: Vec<(String, f64)>,
}

impl Dish {
    /// The taste with the largest percentage (first one on ties), if any.
    fn dominant(&self) -> Option<&str> {
        let mut best: Option<&(String, f64)> = None;
        for t in &self.tastes {
            if best.is_none_or(|b| t.1 > b.1) {
                best = Some(t);
            }
        }
        best.map(|b| b.0.as_str())
    }
    fn taste(&self, name: &str) -> Option<f64> {
        self.tastes.iter().find(|t| t.0 == name).map(|t| t.1)
    }
}

/// Read `food/ingredients.json`: `{image: {"name": ..., "tastes": [{"name", "percent"}]}}`.
fn load_dishes(path: &Path) -> anyhow::Result<BTreeMap<String, Dish>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: invalid JSON", path.display()))?;
    let obj = v
        .as_object()
        .with_context(|| format!("{}: expected an object keyed by image", path.display()))?;
    let mut out = BTreeMap::new();
    for (img, d) in obj {
        let name = d
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .trim()
            .to_string();
        let mut tastes = Vec::new();
        for t in d
            .get("tastes")
            .and_then(|t| t.as_array())
            .into_iter()
            .flatten()
        {
            let tn = t.get("name").and_then(|x| x.as_str());
            let pc = t.get("percent").and_then(|x| match x {
                serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
                serde_json::Value::Number(n) => n.as_f64(),
                _ => None,
            });
            if let (Some(tn), Some(pc)) = (tn, pc) {
                tastes.push((tn.to_string(), pc));
            }
        }
        out.insert(img.clone(), Dish { name, tastes });
    }
    Ok(out)
}

impl Experiment for Food {
    fn name(&self) -> &'static str {
        "food"
    }
    fn about(&self) -> &'static str {
        "Perrot et al. 2020, App. F.2 Figs. 5, 7: the AddS-3 SPUR partition of Food-100 with dish names and tastes"
    }
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
        let dir = ctx.data_dir()?;
        let raw = dir.join("food/raw-json");
        ctx.progress
            .set_message(&format!("reading {}", raw.display()));
        let data = read_comparisons(
            &raw,
            &ReadOptions {
                format: Some(InputFormat::FoodJson),
                ..ReadOptions::default()
            },
        );
        let data = data.with_context(|| format!("reading the food data {}", raw.display()))?;
        let dishes = load_dishes(&dir.join("food/ingredients.json"))?;
        // Quick runs: 20,000 of the triplets (seeded) and the known k = 2 of the paper instead
        // of SPUR (SPUR on all 250,320 triplets takes ~40 s in the dev profile).
        let data = if ctx.quick {
            let Comparisons::Triplets(t) = &data.comparisons else {
                anyhow::bail!("the food data should be triplets");
            };
            let keep = subsample(t.len(), 20_000, 0);
            Dataset::new(
                data.items.clone(),
                Comparisons::Triplets(keep.into_iter().map(|i| t[i]).collect()),
            )?
        } else {
            data
        };
        let tste_iter = if ctx.quick { 100 } else { 1000 };
        let seed = 0;
        ctx.progress.set_length(if ctx.quick { 3 } else { 5 });
        // AddS-3 with SPUR gives k̂; the baselines use it, as in Perrot et al. 2020, App. F.2.
        let first = if ctx.quick {
            Method::Adds {
                quadruplets: false,
                k: 2,
            }
        } else {
            Method::AddsSpur { quadruplets: false }
        };
        let main = cluster_with(first, &data, seed)
            .with_context(|| format!("{} on food", first.name()))?;
        ctx.progress.inc(1);
        let k = main.k_hat;
        let mut methods = Vec::new();
        if !ctx.quick {
            methods.push(Method::AddsSpur { quadruplets: true });
        }
        methods.push(Method::Mulk {
            quadruplets: false,
            k,
        });
        if !ctx.quick {
            methods.push(Method::Mulk {
                quadruplets: true,
                k,
            });
        }
        methods.push(Method::Tste {
            k,
            max_iter: tste_iter,
        });
        let mut parts = vec![(first.name(), main.labels.clone(), main.time_s)];
        rows.push(Row::new(
            first.name(),
            &[("versus", "".into())],
            seed,
            "k_hat",
            k as f64,
            main.time_s,
        ));
        for m in methods {
            let f =
                cluster_with(m, &data, seed).with_context(|| format!("{} on food", m.name()))?;
            rows.push(Row::new(
                m.name(),
                &[("versus", "".into())],
                seed,
                "k_hat",
                f.k_hat as f64,
                f.time_s,
            ));
            parts.push((m.name(), f.labels, f.time_s));
            ctx.progress.inc(1);
        }
        agreement_rows(&parts, seed, rows);
        // The partition itself (Figure 7), with dish names and dominant tastes.
        write_food_partition(ctx, &first.name(), &data, &main.labels, k, &dishes, rows)
    }
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
        let (names, m) = agreement_matrix(rows);
        let mut files = draw_agreement(
            ctx,
            "food",
            "Food-100: ARI between partitions (Perrot et al. 2020, Fig. 5)",
            &names,
            &m,
        )?;
        files.push(ctx.out_path("food-partition.csv"));
        files.push(ctx.out_path("food-partition.md"));
        Ok(files)
    }
}

/// Write `food-partition.csv` (cluster,item,dish,dominant_taste,sweet,savory) and
/// `food-partition.md` (one section per cluster), and push per-cluster summary rows: `size`
/// and `sweet_share` (share of the dishes with tastes whose dominant taste is Sweet).
fn write_food_partition(
    ctx: &Ctx,
    method: &str,
    data: &Dataset,
    labels: &[usize],
    k: usize,
    dishes: &BTreeMap<String, Dish>,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut csv = String::from("cluster,item,dish,dominant_taste,sweet,savory\n");
    let mut md = format!(
        "# Food-100: partition found by {method} (k̂ = {k})\n\n\
         {} items, {} triplets. Dish names and tastes from `ingredients.json` (missing for some \
         images). Dominant taste = the largest taste percentage.\n",
        data.n_items(),
        data.comparisons.len()
    );
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for c in 0..k {
        let members: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == c).collect();
        let mut dominant: BTreeMap<String, usize> = BTreeMap::new();
        let mut with_taste = 0usize;
        let mut lines = Vec::new();
        for &i in &members {
            let item = data.items.label(i);
            let dish = dishes.get(item);
            let dom = dish.and_then(|d| d.dominant()).unwrap_or("");
            if !dom.is_empty() {
                with_taste += 1;
                *dominant.entry(dom.to_string()).or_default() += 1;
            }
            let name = dish.map_or("", |d| d.name.as_str());
            let fmt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
            let sweet = fmt(dish.and_then(|d| d.taste("Sweet")));
            let savory = fmt(dish.and_then(|d| d.taste("Savory")));
            csv.push_str(&format!(
                "{c},{},{},{},{sweet},{savory}\n",
                q(item),
                q(name),
                q(dom)
            ));
            lines.push(format!(
                "| {} | {} | {} | {} |",
                if name.is_empty() { "(no name)" } else { name },
                if dom.is_empty() { "–" } else { dom },
                if sweet.is_empty() { "–" } else { &sweet },
                if savory.is_empty() { "–" } else { &savory },
            ));
        }
        let sweet_share = if with_taste == 0 {
            f64::NAN
        } else {
            dominant.get("Sweet").copied().unwrap_or(0) as f64 / with_taste as f64
        };
        let params = [("versus", "".to_string()), ("cluster", c.to_string())];
        rows.push(Row::new(
            method,
            &params,
            0,
            "size",
            members.len() as f64,
            0.0,
        ));
        rows.push(Row::new(
            method,
            &params,
            0,
            "sweet_share",
            sweet_share,
            0.0,
        ));
        let tally: Vec<String> = dominant.iter().map(|(t, n)| format!("{t} {n}")).collect();
        md.push_str(&format!(
            "\n## Cluster {c}: {} dishes\n\nDominant tastes: {}.\n\n| dish | dominant taste | \
             sweet % | savory % |\n|---|---|---|---|\n{}\n",
            members.len(),
            if tally.is_empty() {
                "none known".into()
            } else {
                tally.join(", ")
            },
            lines.join("\n")
        ));
    }
    let write = |file: &str, s: &str| crate::plot::write_text_atomically(&ctx.out_path(file), s);
    write("food-partition.csv", &csv)?;
    write("food-partition.md", &md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsample_is_seeded_sorted_and_distinct() {
        let a = subsample(100, 10, 3);
        assert_eq!(a, subsample(100, 10, 3));
        assert_eq!(a.len(), 10);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert!(a.iter().all(|&i| i < 100));
        assert_eq!(subsample(5, 10, 0), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn car_classes_partition_the_sixty_cars() {
        let mut all: Vec<usize> = CAR_CLASSES.iter().flat_map(|c| c.iter().copied()).collect();
        all.sort_unstable();
        assert_eq!(all, (1..=60).collect::<Vec<_>>());
    }

    #[test]
    fn agreement_matrix_averages_and_is_ordered() {
        let parts = vec![
            ("A".to_string(), vec![0, 0, 1, 1], 0.0),
            ("B".to_string(), vec![1, 1, 0, 0], 0.0),
            ("C".to_string(), vec![0, 1, 0, 1], 0.0),
        ];
        let mut rows = Vec::new();
        agreement_rows(&parts, 0, &mut rows);
        let (names, m) = agreement_matrix(&rows);
        assert_eq!(names, vec!["A", "B", "C"]);
        assert_eq!(m[0][1], 1.0);
        assert_eq!(m[1][1], 1.0);
        assert!(m[0][2] < 0.0);
        assert_eq!(m[0][2], m[2][0]);
    }

    #[test]
    fn dominant_taste_is_the_largest_percentage() {
        let d = Dish {
            name: "x".into(),
            tastes: vec![
                ("Salty".into(), 30.0),
                ("Sweet".into(), 90.0),
                ("Sour".into(), 90.0),
            ],
        };
        assert_eq!(d.dominant(), Some("Sweet"));
        assert_eq!(d.taste("Sour"), Some(90.0));
        let none = Dish {
            name: "y".into(),
            tastes: vec![],
        };
        assert_eq!(none.dominant(), None);
    }
}
