//! t-STE: t-distributed Stochastic Triplet Embedding (van der Maaten & Weinberger, "Stochastic
//! triplet embedding", IEEE MLSP 2012).
//!
//! For points `X = (x_1 … x_n)` in `R^d` and a triplet (i, j, k) = ("i is closer to j than to
//! k"), t-STE models
//!
//! ```text
//! K_ij  = (1 + ||x_i − x_j||² / α)^(−(α+1)/2)          (Student-t kernel, α degrees of freedom)
//! p_ijk = K_ij / (K_ij + K_ik)
//! C(X)  = −Σ_(i,j,k) log p_ijk + λ ||X||²_F
//! ```
//!
//! and minimises `C`. With `g = (1 − p_ijk)(α+1)/α`, `a = 1 + ||x_i − x_j||²/α` and
//! `b = 1 + ||x_i − x_k||²/α`, one triplet contributes
//!
//! ```text
//! ∂C/∂x_i = g ((x_i − x_j)/a − (x_i − x_k)/b),  ∂C/∂x_j = −g (x_i − x_j)/a,
//! ∂C/∂x_k = g (x_i − x_k)/b,
//! ```
//!
//! plus `2λ x` from the regulariser. [`loss_and_gradient`] is the fast version (parallel over
//! fixed chunks of triplets, each with its own gradient buffer, summed in chunk order, so the
//! result does not depend on the number of threads); [`naive_loss_and_gradient`] is the formula
//! above evaluated literally, used as the reference in tests.
//!
//! Defaults follow cblearn 0.4 `TSTE` (scipy backend): α = max(d − 1, 1) (the original
//! `tste.m` default α = d − 1, kept ≥ 1 so d = 1 works), λ = 0, `X₀ ~ N(0, I)`, L-BFGS with 10
//! corrections, at most 1000 iterations, scipy's tolerances `ftol = 2.22e-9`, `gtol = 1e-5`.

use std::ops::Range;
use std::str::FromStr;

use faer::Mat;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rayon::prelude::*;

use super::lbfgs::{MinimizeConfig, gradient_descent, lbfgs};
use crate::data::Triplet;

/// Errors of t-STE parameters and inputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TsteError {
    /// A parameter is out of its range.
    #[error("t-STE parameter `{name}` = {value} is invalid: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// The value given, as text.
        value: String,
        /// What is allowed.
        reason: &'static str,
    },
    /// The run was cancelled ([`crate::cancel`]) before it finished.
    #[error("t-STE was cancelled")]
    Cancelled,
    /// `n_items` is 0.
    #[error("t-STE needs at least one item (n_items = 0)")]
    NoItems,
    /// The triplet list is empty.
    #[error("t-STE needs at least one triplet, got none")]
    NoTriplets,
    /// A triplet names an item outside `0..n_items`.
    #[error(
        "triplet #{index} ({anchor}, {near}, {far}) names item {item}, but there are only \
         {n_items} items"
    )]
    ItemOutOfRange {
        /// 0-based position of the triplet in the input.
        index: usize,
        /// Its anchor.
        anchor: u32,
        /// Its near item.
        near: u32,
        /// Its far item.
        far: u32,
        /// The offending item.
        item: u32,
        /// Number of items.
        n_items: usize,
    },
    /// A triplet repeats an item (e.g. (a, a, b)).
    #[error("triplet #{index} ({anchor}, {near}, {far}) repeats an item")]
    RepeatedItem {
        /// 0-based position of the triplet in the input.
        index: usize,
        /// Its anchor.
        anchor: u32,
        /// Its near item.
        near: u32,
        /// Its far item.
        far: u32,
    },
    /// Unknown optimiser name.
    #[error("unknown t-STE optimiser `{0}`; expected `lbfgs` or `gd` (gradient descent)")]
    UnknownOptimizer(String),
}

/// How the t-STE loss is minimised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Optimizer {
    /// Limited-memory BFGS with a backtracking Armijo line search (as cblearn's scipy backend,
    /// which uses L-BFGS-B without bounds).
    #[default]
    Lbfgs,
    /// The adaptive-step gradient descent of van der Maaten's original `tste.m`
    /// (`X ← X − η (n/m) ∇C`, η ×1.01 on progress, ×0.5 otherwise, stop after 5 failures).
    GradientDescent,
}

impl Optimizer {
    /// Name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Optimizer::Lbfgs => "lbfgs",
            Optimizer::GradientDescent => "gd",
        }
    }
}

impl std::fmt::Display for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Optimizer {
    type Err = TsteError;
    fn from_str(s: &str) -> Result<Self, TsteError> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "lbfgs" | "l-bfgs" | "l-bfgs-b" => Ok(Optimizer::Lbfgs),
            "gd" | "gradient-descent" => Ok(Optimizer::GradientDescent),
            _ => Err(TsteError::UnknownOptimizer(s.to_string())),
        }
    }
}

/// Why the optimiser stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The largest gradient component fell below `gtol`.
    GradientTolerance,
    /// The relative decrease of the loss fell below `tol` (for gradient descent: five times in
    /// a row).
    LossTolerance,
    /// `max_iter` iterations were used.
    MaxIterations,
    /// The line search found no step that decreases the loss enough (usually: at the
    /// precision limit).
    LineSearchFailed,
    /// The loss or gradient became NaN or infinite.
    NonFinite,
    /// The run was cancelled ([`crate::cancel`]); [`TsteParams::fit`] reports it as
    /// [`TsteError::Cancelled`].
    Cancelled,
}

/// Parameters of t-STE (builder; validated by [`TsteParams::check`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TsteParams {
    /// Embedding dimension d (default 2).
    pub n_components: usize,
    /// Degrees of freedom α of the Student-t kernel; `None` = max(d − 1, 1) (default).
    pub alpha: Option<f64>,
    /// L2 regulariser λ on `||X||²_F` (default 0, as cblearn and `tste.m`).
    pub lambda: f64,
    /// Maximum number of optimiser iterations (default 1000).
    pub max_iter: usize,
    /// Relative loss-decrease tolerance (default 2.22e-9, scipy L-BFGS-B's `ftol`).
    pub tol: f64,
    /// Gradient max-norm tolerance (default 1e-5, scipy's `gtol`; L-BFGS only).
    pub gtol: f64,
    /// Number of L-BFGS correction pairs (default 10, as scipy).
    pub memory: usize,
    /// Optimiser (default L-BFGS).
    pub optimizer: Optimizer,
    /// Standard deviation of the Gaussian initialisation (default 1, as cblearn; `tste.m` uses
    /// 1e-4).
    pub init_scale: f64,
    /// Seed of the initialisation.
    pub seed: u64,
}

impl Default for TsteParams {
    fn default() -> Self {
        TsteParams {
            n_components: 2,
            alpha: None,
            lambda: 0.0,
            max_iter: 1000,
            tol: 2.220446049250313e-9,
            gtol: 1e-5,
            memory: 10,
            optimizer: Optimizer::Lbfgs,
            init_scale: 1.0,
            seed: 0,
        }
    }
}

/// Diagnostics of a t-STE fit.
#[derive(Clone, Debug, PartialEq)]
pub struct TsteInfo {
    /// Optimiser iterations used.
    pub iterations: usize,
    /// Loss and gradient evaluations used.
    pub evaluations: usize,
    /// Final loss `−Σ log p_ijk + λ ||X||²` (sum over triplets, as cblearn's `stress_`).
    pub loss: f64,
    /// True when a tolerance was met (`GradientTolerance` or `LossTolerance`).
    pub converged: bool,
    /// Why the optimiser stopped.
    pub stop: StopReason,
    /// The α used.
    pub alpha: f64,
}

/// A fitted t-STE embedding.
#[derive(Clone, Debug)]
pub struct Tste {
    /// n × d embedding, one row per item.
    pub embedding: Mat<f64>,
    /// Diagnostics.
    pub info: TsteInfo,
}

impl Tste {
    /// The embedding as a row-major `n·d` vector (the layout of
    /// [`crate::metrics::triplet::triplet_accuracy`]).
    pub fn rows(&self) -> Vec<f64> {
        let (n, d) = (self.embedding.nrows(), self.embedding.ncols());
        let mut out = Vec::with_capacity(n * d);
        for i in 0..n {
            for l in 0..d {
                out.push(self.embedding[(i, l)]);
            }
        }
        out
    }
}

impl TsteParams {
    /// Default parameters in dimension `n_components`.
    pub fn new(n_components: usize) -> Self {
        TsteParams {
            n_components,
            ..Default::default()
        }
    }

    /// Sets the degrees of freedom α.
    pub fn with_alpha(mut self, alpha: f64) -> Self {
        self.alpha = Some(alpha);
        self
    }

    /// Sets the L2 regulariser λ.
    pub fn with_lambda(mut self, lambda: f64) -> Self {
        self.lambda = lambda;
        self
    }

    /// Sets the maximum number of iterations.
    pub fn with_max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }

    /// Sets the relative loss-decrease tolerance.
    pub fn with_tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }

    /// Sets the gradient tolerance.
    pub fn with_gtol(mut self, gtol: f64) -> Self {
        self.gtol = gtol;
        self
    }

    /// Sets the number of L-BFGS corrections.
    pub fn with_memory(mut self, memory: usize) -> Self {
        self.memory = memory;
        self
    }

    /// Sets the optimiser.
    pub fn with_optimizer(mut self, optimizer: Optimizer) -> Self {
        self.optimizer = optimizer;
        self
    }

    /// Sets the standard deviation of the initialisation.
    pub fn with_init_scale(mut self, init_scale: f64) -> Self {
        self.init_scale = init_scale;
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The α in use: the given one, or max(d − 1, 1).
    pub fn effective_alpha(&self) -> f64 {
        self.alpha
            .unwrap_or_else(|| (self.n_components.saturating_sub(1)).max(1) as f64)
    }

    /// Validates every parameter (the one place where they are checked).
    pub fn check(&self) -> Result<(), TsteError> {
        fn bad(name: &'static str, value: impl ToString, reason: &'static str) -> TsteError {
            TsteError::InvalidParam {
                name,
                value: value.to_string(),
                reason,
            }
        }
        if self.n_components == 0 {
            return Err(bad("n_components", 0, "must be at least 1"));
        }
        if let Some(a) = self.alpha
            && !(a.is_finite() && a > 0.0)
        {
            return Err(bad("alpha", a, "must be finite and > 0"));
        }
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            return Err(bad("lambda", self.lambda, "must be finite and >= 0"));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(bad("tol", self.tol, "must be finite and >= 0"));
        }
        if !(self.gtol.is_finite() && self.gtol >= 0.0) {
            return Err(bad("gtol", self.gtol, "must be finite and >= 0"));
        }
        if self.memory == 0 {
            return Err(bad("memory", 0, "must be at least 1"));
        }
        if !(self.init_scale.is_finite() && self.init_scale > 0.0) {
            return Err(bad("init_scale", self.init_scale, "must be finite and > 0"));
        }
        Ok(())
    }

    /// The seeded initialisation `X₀ ~ N(0, init_scale² I)`, row-major n × d.
    pub fn initial_embedding(&self, n_items: usize) -> Vec<f64> {
        let mut rng = StdRng::seed_from_u64(self.seed);
        (0..n_items * self.n_components)
            .map(|_| {
                let z: f64 = rng.sample(StandardNormal);
                self.init_scale * z
            })
            .collect()
    }

    /// Fits t-STE on `triplets` over items `0..n_items` from the seeded random start.
    /// `progress(iteration, max_iter)` is called after each optimiser iteration.
    pub fn fit(
        &self,
        n_items: usize,
        triplets: &[Triplet],
        progress: Option<&mut dyn FnMut(usize, usize)>,
    ) -> Result<Tste, TsteError> {
        self.check()?;
        let x0 = self.initial_embedding(n_items);
        self.fit_from(n_items, triplets, x0, progress)
    }

    /// Fits t-STE from a given row-major n × d start `init`.
    pub fn fit_from(
        &self,
        n_items: usize,
        triplets: &[Triplet],
        init: Vec<f64>,
        progress: Option<&mut dyn FnMut(usize, usize)>,
    ) -> Result<Tste, TsteError> {
        self.check()?;
        validate_triplets(n_items, triplets)?;
        let d = self.n_components;
        if init.len() != n_items * d || init.iter().any(|v| !v.is_finite()) {
            return Err(TsteError::InvalidParam {
                name: "init",
                value: format!("{} values", init.len()),
                reason: "must hold n_items × n_components finite values",
            });
        }
        let alpha = self.effective_alpha();
        let mut obj = Objective::new(n_items, d, triplets, alpha, self.lambda);
        let cfg = MinimizeConfig {
            memory: self.memory,
            max_iter: self.max_iter,
            ftol: self.tol,
            gtol: self.gtol,
        };
        let eval = |x: &[f64], g: &mut [f64]| obj.eval(x, g);
        let out = match self.optimizer {
            Optimizer::Lbfgs => lbfgs(init, eval, &cfg, progress),
            Optimizer::GradientDescent => {
                let scale = n_items as f64 / triplets.len() as f64;
                gradient_descent(init, eval, scale, &cfg, progress)
            }
        };
        if out.stop == StopReason::Cancelled {
            return Err(TsteError::Cancelled);
        }
        let embedding = Mat::from_fn(n_items, d, |i, l| out.x[i * d + l]);
        Ok(Tste {
            embedding,
            info: TsteInfo {
                iterations: out.iterations,
                evaluations: out.evaluations,
                loss: out.f,
                converged: matches!(
                    out.stop,
                    StopReason::GradientTolerance | StopReason::LossTolerance
                ),
                stop: out.stop,
                alpha,
            },
        })
    }
}

/// Checks that every triplet names three distinct items in `0..n_items`, and that there is
/// at least one item and one triplet.
pub fn validate_triplets(n_items: usize, triplets: &[Triplet]) -> Result<(), TsteError> {
    if n_items == 0 {
        return Err(TsteError::NoItems);
    }
    if triplets.is_empty() {
        return Err(TsteError::NoTriplets);
    }
    for (index, t) in triplets.iter().enumerate() {
        for item in t.items() {
            if item as usize >= n_items {
                return Err(TsteError::ItemOutOfRange {
                    index,
                    anchor: t.anchor,
                    near: t.near,
                    far: t.far,
                    item,
                    n_items,
                });
            }
        }
        if t.is_degenerate() {
            return Err(TsteError::RepeatedItem {
                index,
                anchor: t.anchor,
                near: t.near,
                far: t.far,
            });
        }
    }
    Ok(())
}

/// Minimum number of triplets per chunk of the parallel gradient.
const MIN_CHUNK: usize = 4096;
/// Maximum number of chunks (each has its own n × d gradient buffer).
const MAX_CHUNKS: usize = 16;

/// The t-STE objective with reusable per-chunk gradient buffers. The chunking depends only on
/// (n, m), never on the thread count, so results are bit-identical across machines' core
/// counts.
struct Objective<'a> {
    n: usize,
    d: usize,
    triplets: &'a [Triplet],
    alpha: f64,
    lambda: f64,
    chunks: Vec<Range<usize>>,
    buffers: Vec<Vec<f64>>,
}

impl<'a> Objective<'a> {
    fn new(n: usize, d: usize, triplets: &'a [Triplet], alpha: f64, lambda: f64) -> Self {
        let m = triplets.len();
        // At least MIN_CHUNK and 2n triplets per chunk, so the final reduction over buffers
        // (n·d per chunk) stays small next to the triplet work.
        let per = MIN_CHUNK.max(2 * n);
        let n_chunks = m.div_ceil(per).clamp(1, MAX_CHUNKS);
        let size = m.div_ceil(n_chunks);
        let chunks: Vec<Range<usize>> = (0..n_chunks)
            .map(|c| (c * size).min(m)..((c + 1) * size).min(m))
            .collect();
        let buffers = if n_chunks > 1 {
            vec![vec![0.0; n * d]; n_chunks]
        } else {
            Vec::new()
        };
        Objective {
            n,
            d,
            triplets,
            alpha,
            lambda,
            chunks,
            buffers,
        }
    }

    fn eval(&mut self, x: &[f64], grad: &mut [f64]) -> f64 {
        let (d, alpha, triplets) = (self.d, self.alpha, self.triplets);
        let mut loss = if self.chunks.len() == 1 {
            grad.fill(0.0);
            accumulate(x, d, alpha, triplets, grad)
        } else {
            let losses: Vec<f64> = self
                .buffers
                .par_iter_mut()
                .zip(self.chunks.par_iter())
                .map(|(buf, range)| {
                    buf.fill(0.0);
                    accumulate(x, d, alpha, &triplets[range.clone()], buf)
                })
                .collect();
            let buffers = &self.buffers;
            let block = 256 * d;
            grad.par_chunks_mut(block)
                .enumerate()
                .for_each(|(bi, out)| {
                    let off = bi * block;
                    let len = out.len();
                    out.copy_from_slice(&buffers[0][off..off + len]);
                    for b in &buffers[1..] {
                        for (o, v) in out.iter_mut().zip(&b[off..off + len]) {
                            *o += v;
                        }
                    }
                });
            losses.iter().sum()
        };
        if self.lambda > 0.0 {
            let mut reg = 0.0;
            for (g, v) in grad.iter_mut().zip(x) {
                reg += v * v;
                *g += 2.0 * self.lambda * v;
            }
            loss += self.lambda * reg;
        }
        debug_assert_eq!(grad.len(), self.n * d);
        loss
    }
}

/// Adds the loss and gradient of `triplets` at `x` (row-major n × d) into `grad`; returns the
/// loss. Numerically stable form: with `r = K_ik / K_ij = (a/b)^((α+1)/2)`,
/// `−log p = log(1 + r)` and `1 − p = r / (1 + r)`, both computed from `log r`.
fn accumulate(x: &[f64], d: usize, alpha: f64, triplets: &[Triplet], grad: &mut [f64]) -> f64 {
    let half = 0.5 * (alpha + 1.0);
    let coef = (alpha + 1.0) / alpha;
    let inv_alpha = 1.0 / alpha;
    let mut loss = 0.0;
    for t in triplets {
        let (i, j, k) = (t.anchor as usize, t.near as usize, t.far as usize);
        let xi = &x[i * d..i * d + d];
        let xj = &x[j * d..j * d + d];
        let xk = &x[k * d..k * d + d];
        let mut dij = 0.0;
        let mut dik = 0.0;
        for l in 0..d {
            let u = xi[l] - xj[l];
            let v = xi[l] - xk[l];
            dij += u * u;
            dik += v * v;
        }
        let a = 1.0 + dij * inv_alpha;
        let b = 1.0 + dik * inv_alpha;
        let log_r = half * (a / b).ln();
        let e = (-log_r.abs()).exp();
        // softplus(log_r) and sigmoid(log_r), stable for both signs.
        let neg_log_p = log_r.max(0.0) + e.ln_1p();
        let q = if log_r >= 0.0 {
            1.0 / (1.0 + e)
        } else {
            e / (1.0 + e)
        };
        loss += neg_log_p;
        let g = q * coef;
        let wa = g / a;
        let wb = g / b;
        for l in 0..d {
            let u = xi[l] - xj[l];
            let v = xi[l] - xk[l];
            grad[i * d + l] += wa * u - wb * v;
            grad[j * d + l] -= wa * u;
            grad[k * d + l] += wb * v;
        }
    }
    loss
}

/// The t-STE loss `C(X) = −Σ log p_ijk + λ||X||²` and its gradient at the row-major n × d
/// embedding `x` (fast, parallel, deterministic). Inputs are validated.
pub fn loss_and_gradient(
    x: &[f64],
    n_components: usize,
    triplets: &[Triplet],
    alpha: f64,
    lambda: f64,
) -> Result<(f64, Vec<f64>), TsteError> {
    let n = check_x(x, n_components)?;
    validate_triplets(n, triplets)?;
    let mut obj = Objective::new(n, n_components, triplets, alpha, lambda);
    let mut g = vec![0.0; x.len()];
    let f = obj.eval(x, &mut g);
    Ok((f, g))
}

/// Reference implementation of [`loss_and_gradient`], straight from the formulas of van der
/// Maaten & Weinberger (2012): kernel values by `powf`, `p = K_ij / (K_ij + K_ik)`, one
/// triplet at a time, serially.
pub fn naive_loss_and_gradient(
    x: &[f64],
    n_components: usize,
    triplets: &[Triplet],
    alpha: f64,
    lambda: f64,
) -> Result<(f64, Vec<f64>), TsteError> {
    let n = check_x(x, n_components)?;
    validate_triplets(n, triplets)?;
    let d = n_components;
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let sq = |p: &[f64], q: &[f64]| p.iter().zip(q).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
    let kernel = |d2: f64| (1.0 + d2 / alpha).powf(-(alpha + 1.0) / 2.0);
    let mut loss = 0.0;
    let mut grad = vec![0.0; x.len()];
    for t in triplets {
        let (i, j, k) = (t.anchor as usize, t.near as usize, t.far as usize);
        let dij = sq(row(i), row(j));
        let dik = sq(row(i), row(k));
        let kij = kernel(dij);
        let kik = kernel(dik);
        let p = kij / (kij + kik);
        loss -= p.ln();
        let g = (1.0 - p) * (alpha + 1.0) / alpha;
        let a = 1.0 + dij / alpha;
        let b = 1.0 + dik / alpha;
        for l in 0..d {
            let u = x[i * d + l] - x[j * d + l];
            let v = x[i * d + l] - x[k * d + l];
            grad[i * d + l] += g * (u / a - v / b);
            grad[j * d + l] += -g * u / a;
            grad[k * d + l] += g * v / b;
        }
    }
    for (gv, v) in grad.iter_mut().zip(x) {
        loss += lambda * v * v;
        *gv += 2.0 * lambda * v;
    }
    Ok((loss, grad))
}

fn check_x(x: &[f64], d: usize) -> Result<usize, TsteError> {
    if d == 0 {
        return Err(TsteError::InvalidParam {
            name: "n_components",
            value: "0".into(),
            reason: "must be at least 1",
        });
    }
    if !x.len().is_multiple_of(d) {
        return Err(TsteError::InvalidParam {
            name: "x",
            value: format!("{} values", x.len()),
            reason: "length must be a multiple of n_components",
        });
    }
    Ok(x.len() / d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(a: u32, b: u32, c: u32) -> Triplet {
        Triplet::new(a, b, c)
    }

    #[test]
    fn hand_computed_loss_one_triplet() {
        // d = 1, α = 1: x = [0, 1, 3]; triplet (0, 1, 2).
        // a = 1 + 1 = 2, b = 1 + 9 = 10, K = 1/a, 1/b → p = (1/2)/(1/2 + 1/10) = 5/6.
        let x = [0.0, 1.0, 3.0];
        let (f, g) = naive_loss_and_gradient(&x, 1, &[t(0, 1, 2)], 1.0, 0.0).unwrap();
        assert!((f - (-(5.0f64 / 6.0).ln())).abs() < 1e-14);
        // g = (1 − 5/6)·2 = 1/3; ∂x0 = 1/3·(−1/2 − (−3)/10) = 1/3·(−0.2)
        assert!((g[0] - (-0.2 / 3.0)).abs() < 1e-14);
        assert!((g[1] - (1.0 / 3.0 * 0.5)).abs() < 1e-14);
        assert!((g[2] - (1.0 / 3.0 * -0.3)).abs() < 1e-14);
        let (f2, g2) = loss_and_gradient(&x, 1, &[t(0, 1, 2)], 1.0, 0.0).unwrap();
        assert!((f - f2).abs() < 1e-14);
        for (u, v) in g.iter().zip(&g2) {
            assert!((u - v).abs() < 1e-14);
        }
    }

    #[test]
    fn regulariser_adds_lambda_norm() {
        let x = [0.5, -1.0, 2.0, 0.0, 1.0, 1.0];
        let tr = [t(0, 1, 2)];
        let (f0, g0) = loss_and_gradient(&x, 2, &tr, 1.0, 0.0).unwrap();
        let (f1, g1) = loss_and_gradient(&x, 2, &tr, 1.0, 0.3).unwrap();
        let norm: f64 = x.iter().map(|v| v * v).sum();
        assert!((f1 - f0 - 0.3 * norm).abs() < 1e-12);
        for ((a, b), v) in g1.iter().zip(&g0).zip(&x) {
            assert!((a - b - 0.6 * v).abs() < 1e-12);
        }
    }

    #[test]
    fn stable_for_far_apart_points() {
        // p → 0: the naive formula loses precision, the stable one stays finite.
        let x = [0.0, 1e8, 1.0];
        let (f, g) = loss_and_gradient(&x, 1, &[t(0, 1, 2)], 1.0, 0.0).unwrap();
        assert!(f.is_finite() && f > 30.0);
        assert!(g.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert!(matches!(
            TsteParams::new(0).check(),
            Err(TsteError::InvalidParam {
                name: "n_components",
                ..
            })
        ));
        assert!(TsteParams::new(2).with_alpha(-1.0).check().is_err());
        assert!(TsteParams::new(2).with_lambda(f64::NAN).check().is_err());
        assert!(TsteParams::new(2).with_init_scale(0.0).check().is_err());
        let p = TsteParams::new(2);
        assert_eq!(
            p.fit(0, &[t(0, 1, 2)], None).unwrap_err(),
            TsteError::NoItems
        );
        assert_eq!(p.fit(3, &[], None).unwrap_err(), TsteError::NoTriplets);
        assert!(matches!(
            p.fit(3, &[t(0, 1, 3)], None).unwrap_err(),
            TsteError::ItemOutOfRange {
                item: 3,
                index: 0,
                ..
            }
        ));
        assert!(matches!(
            p.fit(3, &[t(0, 1, 2), t(1, 1, 2)], None).unwrap_err(),
            TsteError::RepeatedItem { index: 1, .. }
        ));
        assert!(p.fit_from(3, &[t(0, 1, 2)], vec![0.0; 5], None).is_err());
        assert!(loss_and_gradient(&[0.0; 5], 2, &[t(0, 1, 2)], 1.0, 0.0).is_err());
    }

    #[test]
    fn optimizer_from_str() {
        assert_eq!("lbfgs".parse::<Optimizer>().unwrap(), Optimizer::Lbfgs);
        assert_eq!("L-BFGS".parse::<Optimizer>().unwrap(), Optimizer::Lbfgs);
        assert_eq!(
            "gd".parse::<Optimizer>().unwrap(),
            Optimizer::GradientDescent
        );
        assert_eq!(
            "gradient_descent".parse::<Optimizer>().unwrap(),
            Optimizer::GradientDescent
        );
        assert!("adam".parse::<Optimizer>().is_err());
        assert_eq!(
            Optimizer::GradientDescent
                .to_string()
                .parse::<Optimizer>()
                .unwrap(),
            Optimizer::GradientDescent
        );
    }

    #[test]
    fn default_alpha_is_d_minus_one_at_least_one() {
        assert_eq!(TsteParams::new(1).effective_alpha(), 1.0);
        assert_eq!(TsteParams::new(2).effective_alpha(), 1.0);
        assert_eq!(TsteParams::new(5).effective_alpha(), 4.0);
        assert_eq!(TsteParams::new(5).with_alpha(0.5).effective_alpha(), 0.5);
    }

    /// Random small problem: n items, d dims, m triplets of distinct items, coordinates.
    fn problem() -> impl Strategy<Value = (usize, usize, Vec<Triplet>, Vec<f64>, f64, f64)> {
        (3usize..9, 1usize..5, 1usize..40)
            .prop_flat_map(|(n, d, m)| {
                // Distinct (a, b, c), drawn uniformly without rejection: b skips a, c skips both.
                let trip = proptest::collection::vec(
                    (0..n as u32, 0..n as u32 - 1, 0..n as u32 - 2).prop_map(|(a, b, c)| {
                        let b = if b >= a { b + 1 } else { b };
                        let (lo, hi) = (a.min(b), a.max(b));
                        let c = if c >= lo { c + 1 } else { c };
                        let c = if c >= hi { c + 1 } else { c };
                        (a, b, c)
                    }),
                    m,
                );
                let xs = proptest::collection::vec(-3.0f64..3.0, n * d);
                (
                    Just(n),
                    Just(d),
                    trip,
                    xs,
                    0.2f64..5.0,
                    prop_oneof![Just(0.0), 0.0f64..1.0],
                )
            })
            .prop_map(|(n, d, tr, xs, alpha, lambda)| {
                let tr = tr.into_iter().map(|(a, b, c)| t(a, b, c)).collect();
                (n, d, tr, xs, alpha, lambda)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The fast (stable, chunked) loss and gradient equal the literal formula.
        #[test]
        fn fast_matches_naive((_n, d, tr, x, alpha, lambda) in problem()) {
            let (f1, g1) = loss_and_gradient(&x, d, &tr, alpha, lambda).unwrap();
            let (f2, g2) = naive_loss_and_gradient(&x, d, &tr, alpha, lambda).unwrap();
            prop_assert!((f1 - f2).abs() <= 1e-9 * (1.0 + f2.abs()), "{} vs {}", f1, f2);
            for (a, b) in g1.iter().zip(&g2) {
                prop_assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{} vs {}", a, b);
            }
        }

        /// The analytic gradient matches central finite differences of the loss.
        #[test]
        fn gradient_matches_finite_differences((_n, d, tr, x, alpha, lambda) in problem()) {
            let (_, g) = naive_loss_and_gradient(&x, d, &tr, alpha, lambda).unwrap();
            let h = 1e-6;
            for idx in 0..x.len() {
                let mut xp = x.clone();
                let mut xm = x.clone();
                xp[idx] += h;
                xm[idx] -= h;
                let fp = naive_loss_and_gradient(&xp, d, &tr, alpha, lambda).unwrap().0;
                let fm = naive_loss_and_gradient(&xm, d, &tr, alpha, lambda).unwrap().0;
                let fd = (fp - fm) / (2.0 * h);
                prop_assert!((fd - g[idx]).abs() <= 1e-5 * (1.0 + g[idx].abs()),
                    "coordinate {}: finite difference {} vs analytic {}", idx, fd, g[idx]);
            }
        }
    }

    /// Many triplets: the multi-chunk parallel path equals the serial reference.
    #[test]
    fn chunked_gradient_matches_naive_on_many_triplets() {
        let n = 50;
        let d = 3;
        let mut rng = StdRng::seed_from_u64(7);
        let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let mut tr = Vec::new();
        while tr.len() < 3 * MIN_CHUNK + 17 {
            let (a, b, c) = (
                rng.random_range(0..n as u32),
                rng.random_range(0..n as u32),
                rng.random_range(0..n as u32),
            );
            if a != b && a != c && b != c {
                tr.push(t(a, b, c));
            }
        }
        let obj = Objective::new(n, d, &tr, 2.0, 0.1);
        assert!(obj.chunks.len() > 1);
        let (f1, g1) = loss_and_gradient(&x, d, &tr, 2.0, 0.1).unwrap();
        let (f2, g2) = naive_loss_and_gradient(&x, d, &tr, 2.0, 0.1).unwrap();
        assert!((f1 - f2).abs() <= 1e-9 * f2.abs());
        for (a, b) in g1.iter().zip(&g2) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()));
        }
    }
}
