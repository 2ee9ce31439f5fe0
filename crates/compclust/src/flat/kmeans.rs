//! k-means with k-means++ seeding (Arthur & Vassilvitskii 2007) and seeded restarts, used to
//! read the partition off the rows of the SDP solution X (Perrot et al. 2020, §5; Perrot et al. 2020, App. E.1).
//!
//! Lloyd iterations: assign each point to its nearest centre (squared Euclidean distance,
//! ties to the lowest centre index), move each centre to the mean of its points, stop when no
//! assignment changes or after `max_iter` iterations. An empty cluster is re-seeded with the
//! point farthest from its current centre. The best of `n_init` restarts (lowest inertia, ties
//! to the earliest restart) is returned, with labels renumbered by first appearance, so the
//! result depends only on the data and the seed — not on the number of threads.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use super::error::FlatError;

/// Points for k-means: `n` rows of dimension `d`, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    n: usize,
    d: usize,
    data: Vec<f64>,
}

impl Points {
    /// Wrap row-major data (`data.len()` must be `n·d`).
    pub fn new(n: usize, d: usize, data: Vec<f64>) -> Result<Self, FlatError> {
        if n.checked_mul(d) != Some(data.len()) {
            return Err(FlatError::Shape {
                what: "points",
                expected: format!("{n}×{d} = {} values", n.saturating_mul(d)),
                got: data.len(),
            });
        }
        if d == 0 && n > 0 {
            return Err(FlatError::InvalidParam {
                name: "points",
                reason: "points must have dimension at least 1".into(),
            });
        }
        if let Some(pos) = data.iter().position(|x| !x.is_finite()) {
            return Err(FlatError::NonFinite {
                what: "points",
                row: pos / d.max(1),
                col: pos % d.max(1),
            });
        }
        Ok(Points { n, d, data })
    }

    /// The rows of a dense matrix (e.g. the SDP solution X) as points.
    pub fn from_rows(m: faer::MatRef<'_, f64>) -> Result<Self, FlatError> {
        let (n, d) = (m.nrows(), m.ncols());
        let mut data = Vec::with_capacity(n * d);
        for i in 0..n {
            for j in 0..d {
                data.push(m[(i, j)]);
            }
        }
        Self::new(n, d, data)
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }
}

/// Settings of [`kmeans`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KMeansParams {
    /// Number of clusters (1 ≤ k ≤ n).
    pub k: usize,
    /// Number of k-means++ restarts (≥ 1); the best one is kept.
    pub n_init: usize,
    /// Maximum Lloyd iterations per restart (≥ 1).
    pub max_iter: usize,
    /// Seed of the k-means++ seeding.
    pub seed: u64,
}

impl KMeansParams {
    /// `k` clusters, 10 restarts, 300 iterations, seed 0 (scikit-learn's defaults).
    pub fn new(k: usize) -> Self {
        KMeansParams {
            k,
            n_init: 10,
            max_iter: 300,
            seed: 0,
        }
    }

    /// Set the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Set the number of restarts.
    pub fn with_n_init(mut self, n_init: usize) -> Self {
        self.n_init = n_init;
        self
    }

    /// Validate against `n` points.
    pub fn check(&self, n: usize) -> Result<(), FlatError> {
        if self.k == 0 || self.k > n {
            return Err(FlatError::InvalidK { k: self.k, n });
        }
        if self.n_init == 0 {
            return Err(FlatError::InvalidParam {
                name: "n_init",
                reason: "must be at least 1".into(),
            });
        }
        if self.max_iter == 0 {
            return Err(FlatError::InvalidParam {
                name: "max_iter",
                reason: "must be at least 1".into(),
            });
        }
        Ok(())
    }
}

/// Result of [`kmeans`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KMeansResult {
    /// Cluster of each point, in `0..k`, numbered by first appearance.
    pub labels: Vec<usize>,
    /// Sum of squared distances of points to their centres.
    pub inertia: f64,
    /// Lloyd iterations of the kept restart.
    pub iterations: usize,
    /// Whether the kept restart stopped because no assignment changed.
    pub converged: bool,
}

/// Seed of restart `r`.
pub(crate) fn restart_seed(seed: u64, r: usize) -> u64 {
    seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline]
fn sqdist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// k-means++ seeding: first centre uniform, then each next centre drawn with probability
/// proportional to D(x)², the squared distance to the nearest chosen centre. When every
/// remaining point coincides with a centre (D = 0 everywhere), the next centre is uniform.
pub(crate) fn kmeanspp_init(p: &Points, k: usize, rng: &mut StdRng) -> Vec<usize> {
    let n = p.len();
    let mut chosen = vec![rng.random_range(0..n)];
    let mut d2: Vec<f64> = (0..n).map(|i| sqdist(p.row(i), p.row(chosen[0]))).collect();
    while chosen.len() < k {
        let total: f64 = d2.iter().sum();
        let next = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            let mut pick = None;
            for (i, &w) in d2.iter().enumerate() {
                if w > 0.0 {
                    pick = Some(i);
                    if u < w {
                        break;
                    }
                    u -= w;
                }
            }
            pick.expect("total > 0 so some weight is positive")
        } else {
            rng.random_range(0..n)
        };
        chosen.push(next);
        let c = p.row(next);
        for (i, d) in d2.iter_mut().enumerate() {
            *d = d.min(sqdist(p.row(i), c));
        }
    }
    chosen
}

/// Nearest centre (ties to the lowest index) and its squared distance.
#[inline]
fn nearest(x: &[f64], centers: &[f64], d: usize) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (c, center) in centers.chunks_exact(d.max(1)).enumerate() {
        let dist = sqdist(x, center);
        if dist < best.1 {
            best = (c, dist);
        }
    }
    best
}

/// Centres as the means of their points (sequential sums: deterministic). First, an empty
/// cluster is re-seeded with the point farthest from its current centre (lowest index on
/// ties) among clusters with at least two points.
fn update_centers(p: &Points, k: usize, labels: &mut [usize], centers: &mut [f64]) {
    let d = p.dim();
    let mut counts = vec![0usize; k];
    for &l in labels.iter() {
        counts[l] += 1;
    }
    for c in 0..k {
        if counts[c] > 0 {
            continue;
        }
        let mut far: Option<(usize, f64)> = None;
        for (i, &l) in labels.iter().enumerate() {
            if counts[l] < 2 {
                continue;
            }
            let dist = sqdist(p.row(i), &centers[l * d..(l + 1) * d]);
            if far.is_none_or(|(_, fd)| dist > fd) {
                far = Some((i, dist));
            }
        }
        if let Some((i, _)) = far {
            counts[labels[i]] -= 1;
            labels[i] = c;
            counts[c] = 1;
        }
    }
    let mut sums = vec![0.0; k * d];
    for (i, &l) in labels.iter().enumerate() {
        for (s, x) in sums[l * d..(l + 1) * d].iter_mut().zip(p.row(i)) {
            *s += x;
        }
    }
    for c in 0..k {
        if counts[c] > 0 {
            let inv = 1.0 / counts[c] as f64;
            for (dst, s) in centers[c * d..(c + 1) * d]
                .iter_mut()
                .zip(&sums[c * d..(c + 1) * d])
            {
                *dst = s * inv;
            }
        }
    }
}

/// Renumber labels by first appearance.
pub(crate) fn canonical_labels(labels: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect()
}

/// One seeded restart: k-means++ then Lloyd. Returns (labels, inertia, iterations, converged).
fn one_run(p: &Points, k: usize, max_iter: usize, seed: u64) -> (Vec<usize>, f64, usize, bool) {
    let d = p.dim();
    let mut rng = StdRng::seed_from_u64(seed);
    let init = kmeanspp_init(p, k, &mut rng);
    let mut centers: Vec<f64> = init.iter().flat_map(|&i| p.row(i).to_vec()).collect();
    let mut labels = vec![usize::MAX; p.len()];
    let mut iterations = 0;
    let mut converged = false;
    while iterations < max_iter {
        iterations += 1;
        let new: Vec<usize> = (0..p.len())
            .into_par_iter()
            .map(|i| nearest(p.row(i), &centers, d).0)
            .collect();
        if new == labels {
            converged = true;
            break;
        }
        labels = new;
        update_centers(p, k, &mut labels, &mut centers);
    }
    let inertia = (0..p.len())
        .map(|i| sqdist(p.row(i), &centers[labels[i] * d..(labels[i] + 1) * d]))
        .sum();
    (labels, inertia, iterations, converged)
}

/// k-means++ with `n_init` seeded restarts and Lloyd iterations (see the module docs).
/// Restart `r` uses its own RNG seeded from `(seed, r)`; the restarts run in sequence and the
/// assignment step is parallel over points, so the output does not depend on the thread count.
pub fn kmeans(points: &Points, params: &KMeansParams) -> Result<KMeansResult, FlatError> {
    params.check(points.len())?;
    let mut best: Option<(Vec<usize>, f64, usize, bool)> = None;
    for r in 0..params.n_init {
        let run = one_run(
            points,
            params.k,
            params.max_iter,
            restart_seed(params.seed, r),
        );
        if best.as_ref().is_none_or(|b| run.1 < b.1) {
            best = Some(run);
        }
    }
    let (labels, inertia, iterations, converged) = best.expect("n_init >= 1");
    Ok(KMeansResult {
        labels: canonical_labels(&labels),
        inertia,
        iterations,
        converged,
    })
}

/// Naive k-means reference: the same k-means++ seeding and restart seeds, then Lloyd's
/// algorithm written as plainly as possible (sequential loops, distances recomputed from
/// scratch). Only for tests: [`kmeans`] must return exactly the same result.
pub fn kmeans_naive(points: &Points, params: &KMeansParams) -> Result<KMeansResult, FlatError> {
    params.check(points.len())?;
    let (n, k) = (points.len(), params.k);
    let mut best: Option<KMeansResult> = None;
    for r in 0..params.n_init {
        let mut rng = StdRng::seed_from_u64(restart_seed(params.seed, r));
        let init = kmeanspp_init(points, k, &mut rng);
        let mut centers: Vec<Vec<f64>> = init.iter().map(|&i| points.row(i).to_vec()).collect();
        let mut labels = vec![usize::MAX; n];
        let mut it = 0;
        let mut converged = false;
        while it < params.max_iter {
            it += 1;
            let mut new = vec![0; n];
            for (i, l) in new.iter_mut().enumerate() {
                let mut bd = f64::INFINITY;
                for (c, center) in centers.iter().enumerate() {
                    let dist = sqdist(points.row(i), center);
                    if dist < bd {
                        bd = dist;
                        *l = c;
                    }
                }
            }
            if new == labels {
                converged = true;
                break;
            }
            labels = new;
            // Empty clusters: take the point farthest from its centre among clusters with ≥ 2
            // points (lowest index on ties), in centre order.
            for c in 0..k {
                if labels.contains(&c) {
                    continue;
                }
                let size = |l: usize, labels: &[usize]| labels.iter().filter(|&&m| m == l).count();
                let mut far: Option<(usize, f64)> = None;
                for i in 0..n {
                    if size(labels[i], &labels) < 2 {
                        continue;
                    }
                    let dist = sqdist(points.row(i), &centers[labels[i]]);
                    if far.is_none_or(|(_, fd)| dist > fd) {
                        far = Some((i, dist));
                    }
                }
                if let Some((i, _)) = far {
                    labels[i] = c;
                }
            }
            for (c, center) in centers.iter_mut().enumerate() {
                let members: Vec<usize> = (0..n).filter(|&i| labels[i] == c).collect();
                if members.is_empty() {
                    continue;
                }
                for (t, x) in center.iter_mut().enumerate() {
                    let mut s = 0.0;
                    for &i in &members {
                        s += points.row(i)[t];
                    }
                    *x = s * (1.0 / members.len() as f64);
                }
            }
        }
        let inertia: f64 = (0..n)
            .map(|i| sqdist(points.row(i), &centers[labels[i]]))
            .sum();
        if best.as_ref().is_none_or(|b| inertia < b.inertia) {
            best = Some(KMeansResult {
                labels: canonical_labels(&labels),
                inertia,
                iterations: it,
                converged,
            });
        }
    }
    Ok(best.expect("n_init >= 1"))
}
