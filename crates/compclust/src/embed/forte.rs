//! FORTE: fast ordinal triplet embedding (Jain, Jamieson & Nowak, "Finite sample prediction and
//! recovery bounds for ordinal embedding", NeurIPS 2016, §5 and their FORTE code's rank-d
//! projected gradient).
//!
//! FORTE learns the Gram matrix `K = X Xᵀ` instead of the points. With the squared distances
//! `d_ij(K) = K_ii + K_jj − 2 K_ij = (e_i − e_j)ᵀ K (e_i − e_j)`, a triplet t = (a, j, k) ("a is
//! closer to j than to k") has the score `z_t(K) = d_aj(K) − d_ak(K) = ⟨L_t, K⟩` with
//! `L_t = (e_a − e_j)(e_a − e_j)ᵀ − (e_a − e_k)(e_a − e_k)ᵀ`, and the logistic loss is
//!
//! ```text
//! L(K) = (1/m) Σ_t log(1 + exp(z_t(K))),      ∇L(K) = (1/m) Σ_t σ(z_t(K)) L_t
//! ```
//!
//! (σ the logistic sigmoid). It is minimised over the set
//! `{K ⪰ 0, rank K ≤ d, tr K ≤ τ}` (the trace, i.e. nuclear norm, bound of Jain et al. keeps
//! the loss from being driven to 0 by scaling separable data up) by projected gradient descent:
//! `K ← P(K − η ∇L(K))`, where `P` keeps the `d` largest eigenvalues, clipped at 0, and
//! projects them onto `{μ ≥ 0, Σ μ ≤ τ}` (the Frobenius projection onto the set). The step η
//! starts from the Barzilai–Borwein ratio `⟨S,S⟩/⟨S,Y⟩` of the last step and halves until the
//! sufficient decrease `L(K⁺) ≤ L(K) + ⟨∇L(K), K⁺ − K⟩ + ||K⁺ − K||²_F / (2η)` holds, so the
//! loss never increases. The embedding is `X = U_d diag(√μ)`, from the top eigenvectors; it is
//! centred, since every `L_t` has zero row sums and the start is centred.
//!
//! [`loss_and_gradient`] is the optimiser's version (stable softplus, six entries per
//! triplet); [`naive_loss_and_gradient`] builds `L_t` as a dense matrix and takes the inner
//! products literally.
//!
//! Start as cblearn 0.4 `FORTE`: `K₀ = 0.1 · X₀ X₀ᵀ` with `X₀ ~ N(0, I)` (n × d), centred here.
//! Every iteration takes a full eigendecomposition of an n × n matrix (faer), `O(n³)`: FORTE
//! allows at most [`MAX_ITEMS`] items.

use faer::{Mat, MatRef, Side};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;

use super::tste::StopReason;
use super::{EmbedError, invalid, softplus_sigmoid, validate_triplets};
use crate::data::Triplet;

const METHOD: &str = "FORTE";

/// The most items FORTE accepts: it keeps about eight dense n × n matrices (1 GB at this n).
pub const MAX_ITEMS: usize = 4000;

/// Parameters of FORTE (builder; validated by [`ForteParams::check`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ForteParams {
    /// Embedding dimension d, the rank of the Gram matrix (default 2).
    pub n_components: usize,
    /// Trace bound τ of the Gram matrix; `None` = `n · d` (default), i.e. mean squared norm of
    /// the centred points at most d.
    pub max_trace: Option<f64>,
    /// Maximum number of projected-gradient iterations (default 500).
    pub max_iter: usize,
    /// Stop when the relative decrease of the loss, or the relative change
    /// `||K⁺ − K||_F / max(||K||_F, 1)`, is at most this (default 1e-7).
    pub tol: f64,
    /// Scale of the start `K₀ = init_scale · X₀ X₀ᵀ` (default 0.1, as cblearn).
    pub init_scale: f64,
    /// Seed of the start.
    pub seed: u64,
}

impl Default for ForteParams {
    fn default() -> Self {
        ForteParams {
            n_components: 2,
            max_trace: None,
            max_iter: 500,
            tol: 1e-7,
            init_scale: 0.1,
            seed: 0,
        }
    }
}

/// Diagnostics of a FORTE fit.
#[derive(Clone, Debug, PartialEq)]
pub struct ForteInfo {
    /// Projected-gradient iterations used.
    pub iterations: usize,
    /// Loss and gradient evaluations (each after one eigendecomposition).
    pub evaluations: usize,
    /// Final loss `(1/m) Σ log(1 + exp(d_aj − d_ak))`.
    pub loss: f64,
    /// True when the tolerance was met.
    pub converged: bool,
    /// Why the iterations stopped.
    pub stop: StopReason,
    /// The trace bound τ used.
    pub max_trace: f64,
    /// The trace of the final Gram matrix.
    pub trace: f64,
}

/// A fitted FORTE embedding.
#[derive(Clone, Debug)]
pub struct Forte {
    /// n × d embedding `U_d diag(√μ)`, one row per item.
    pub embedding: Mat<f64>,
    /// The learned n × n Gram matrix (`embedding · embeddingᵀ`).
    pub gram: Mat<f64>,
    /// Diagnostics.
    pub info: ForteInfo,
}

impl Forte {
    /// The embedding as a row-major `n·d` vector.
    pub fn rows(&self) -> Vec<f64> {
        let (n, d) = (self.embedding.nrows(), self.embedding.ncols());
        (0..n)
            .flat_map(|i| (0..d).map(move |l| (i, l)))
            .map(|(i, l)| self.embedding[(i, l)])
            .collect()
    }
}

impl ForteParams {
    /// Default parameters in dimension `n_components`.
    pub fn new(n_components: usize) -> Self {
        ForteParams {
            n_components,
            ..Default::default()
        }
    }

    /// Sets the trace bound τ.
    pub fn with_max_trace(mut self, max_trace: f64) -> Self {
        self.max_trace = Some(max_trace);
        self
    }

    /// Sets the maximum number of iterations.
    pub fn with_max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }

    /// Sets the tolerance.
    pub fn with_tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates every parameter.
    pub fn check(&self) -> Result<(), EmbedError> {
        if self.n_components == 0 {
            return Err(invalid(METHOD, "n_components", 0, "must be at least 1"));
        }
        if let Some(t) = self.max_trace
            && !(t.is_finite() && t > 0.0)
        {
            return Err(invalid(METHOD, "max_trace", t, "must be finite and > 0"));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(invalid(METHOD, "tol", self.tol, "must be finite and >= 0"));
        }
        if !(self.init_scale.is_finite() && self.init_scale > 0.0) {
            return Err(invalid(
                METHOD,
                "init_scale",
                self.init_scale,
                "must be finite and > 0",
            ));
        }
        Ok(())
    }

    /// The trace bound for `n_items` items: the given one, or `n · d`.
    pub fn effective_max_trace(&self, n_items: usize) -> f64 {
        self.max_trace
            .unwrap_or((n_items * self.n_components) as f64)
    }

    /// Fits FORTE on `triplets` over items `0..n_items` from the seeded start.
    /// `progress(iteration, max_iter)` is called after each iteration.
    pub fn fit(
        &self,
        n_items: usize,
        triplets: &[Triplet],
        mut progress: Option<&mut dyn FnMut(usize, usize)>,
    ) -> Result<Forte, EmbedError> {
        self.check()?;
        if n_items > MAX_ITEMS {
            return Err(EmbedError::TooManyItems {
                method: METHOD,
                n_items,
                max: MAX_ITEMS,
            });
        }
        validate_triplets(METHOD, n_items, triplets)?;
        let (n, d) = (n_items, self.n_components);
        let tau = self.effective_max_trace(n);
        let k0 = self.initial_gram(n);
        let (mut k, mut factor) = project(k0.as_ref(), d, tau)?;
        let mut g = Mat::zeros(n, n);
        let mut f = accumulate(k.as_ref(), triplets, &mut g);
        let mut g_new = Mat::zeros(n, n);
        let mut evaluations = 1;
        let mut iterations = 0;
        let mut step = k.norm_l2() / g.norm_l2().max(f64::MIN_POSITIVE);
        let mut stop = StopReason::MaxIterations;
        if !f.is_finite() {
            stop = StopReason::NonFinite;
        } else if g.norm_l2() == 0.0 {
            stop = StopReason::GradientTolerance;
        }
        while stop == StopReason::MaxIterations && iterations < self.max_iter {
            if crate::cancel::requested() {
                return Err(EmbedError::Cancelled { method: METHOD });
            }
            let Some((k_new, factor_new, f_new, used)) =
                self.line_search(&k, &g, f, step, triplets, tau, &mut g_new)?
            else {
                stop = StopReason::LineSearchFailed;
                break;
            };
            evaluations += used.1;
            iterations += 1;
            if let Some(p) = progress.as_deref_mut() {
                p(iterations, self.max_iter);
            }
            // Barzilai–Borwein step for the next iteration: ⟨S,S⟩ / ⟨S,Y⟩.
            let s = &k_new - &k;
            let y = &g_new - &g;
            let sy = inner(s.as_ref(), y.as_ref());
            let ss = inner(s.as_ref(), s.as_ref());
            step = if sy > 0.0 { ss / sy } else { 2.0 * used.0 };
            let rel_step = ss.sqrt() / k.norm_l2().max(1.0);
            let dec = (f - f_new) / f.abs().max(f_new.abs()).max(1.0);
            k = k_new;
            factor = factor_new;
            std::mem::swap(&mut g, &mut g_new);
            f = f_new;
            if !f.is_finite() {
                stop = StopReason::NonFinite;
            } else if dec <= self.tol || rel_step <= self.tol {
                stop = StopReason::LossTolerance;
            }
        }
        let trace = (0..n).map(|i| k[(i, i)]).sum();
        Ok(Forte {
            embedding: factor,
            gram: k,
            info: ForteInfo {
                iterations,
                evaluations,
                loss: f,
                converged: matches!(
                    stop,
                    StopReason::LossTolerance | StopReason::GradientTolerance
                ),
                stop,
                max_trace: tau,
                trace,
            },
        })
    }

    /// The start `init_scale · X₀ X₀ᵀ`, `X₀ ~ N(0, I)` (n × d) with centred columns.
    fn initial_gram(&self, n: usize) -> Mat<f64> {
        let d = self.n_components;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut x = Mat::from_fn(n, d, |_, _| rng.sample::<f64, _>(StandardNormal));
        for l in 0..d {
            let mean = (0..n).map(|i| x[(i, l)]).sum::<f64>() / n as f64;
            for i in 0..n {
                x[(i, l)] -= mean;
            }
        }
        gram_of(x.as_ref()).as_ref() * faer::Scale(self.init_scale)
    }

    /// Backtracking from the step `step`: the first `K⁺ = P(K − η G)` with sufficient
    /// decrease, its factor, its loss (its gradient in `g_new`), and (η, evaluations used);
    /// `None` after 60 halvings.
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn line_search(
        &self,
        k: &Mat<f64>,
        g: &Mat<f64>,
        f: f64,
        mut step: f64,
        triplets: &[Triplet],
        tau: f64,
        g_new: &mut Mat<f64>,
    ) -> Result<Option<(Mat<f64>, Mat<f64>, f64, (f64, usize))>, EmbedError> {
        let d = self.n_components;
        for used in 1..=60 {
            let trial = k - g * faer::Scale(step);
            let (k_new, factor) = project(trial.as_ref(), d, tau)?;
            let f_new = accumulate(k_new.as_ref(), triplets, g_new);
            let delta = &k_new - k;
            let bound = f
                + inner(g.as_ref(), delta.as_ref())
                + inner(delta.as_ref(), delta.as_ref()) / (2.0 * step)
                + 1e-12 * f.abs();
            if f_new.is_finite() && f_new <= bound {
                return Ok(Some((k_new, factor, f_new, (step, used))));
            }
            step *= 0.5;
        }
        Ok(None)
    }
}

/// `⟨A, B⟩ = Σ A_ij B_ij`.
fn inner(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
    let mut s = 0.0;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            s += a[(i, j)] * b[(i, j)];
        }
    }
    s
}

/// `F Fᵀ`, exactly symmetric.
fn gram_of(factor: MatRef<'_, f64>) -> Mat<f64> {
    let n = factor.nrows();
    let mut k = Mat::zeros(n, n);
    for i in 0..n {
        for j in 0..=i {
            let v: f64 = (0..factor.ncols())
                .map(|l| factor[(i, l)] * factor[(j, l)])
                .sum();
            k[(i, j)] = v;
            k[(j, i)] = v;
        }
    }
    k
}

/// The Euclidean projection of `v ≥ 0` onto `{μ ≥ 0, Σ μ ≤ τ}`: `v` itself when its sum is
/// within τ, else `max(v − θ, 0)` with θ such that the sum is τ.
pub fn project_capped_simplex(v: &[f64], tau: f64) -> Vec<f64> {
    let total: f64 = v.iter().map(|x| x.max(0.0)).sum();
    if total <= tau {
        return v.iter().map(|x| x.max(0.0)).collect();
    }
    let mut sorted: Vec<f64> = v.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut cum = 0.0;
    let mut theta = 0.0;
    for (r, &u) in sorted.iter().enumerate() {
        cum += u;
        let t = (cum - tau) / (r + 1) as f64;
        if u - t > 0.0 {
            theta = t;
        } else {
            break;
        }
    }
    v.iter().map(|x| (x - theta).max(0.0)).collect()
}

/// The projection `P` of the symmetric matrix `a` onto `{K ⪰ 0, rank K ≤ d, tr K ≤ τ}`: the `d`
/// largest eigenvalues, clipped at 0 and projected onto the capped simplex, with their
/// eigenvectors. Returns `(K, U_d diag(√μ))`.
pub fn project(a: MatRef<'_, f64>, d: usize, tau: f64) -> Result<(Mat<f64>, Mat<f64>), EmbedError> {
    let n = a.nrows();
    let evd = a
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| EmbedError::Eigen { method: METHOD })?;
    let (u, s) = (evd.U(), evd.S());
    let r = d.min(n);
    // Eigenvalues ascend: the r largest are the last r.
    let top: Vec<f64> = (0..r).map(|c| s[n - 1 - c]).collect();
    if top.iter().any(|v| !v.is_finite()) {
        return Err(EmbedError::Eigen { method: METHOD });
    }
    let mu = project_capped_simplex(&top, tau);
    let factor = Mat::from_fn(n, d, |i, c| {
        if c < r {
            u[(i, n - 1 - c)] * mu[c].sqrt()
        } else {
            0.0
        }
    });
    Ok((gram_of(factor.as_ref()), factor))
}

/// Writes the gradient of the loss at `k` into `g` (overwritten); returns the loss.
fn accumulate(k: MatRef<'_, f64>, triplets: &[Triplet], g: &mut Mat<f64>) -> f64 {
    g.fill(0.0);
    let w_scale = 1.0 / triplets.len() as f64;
    let mut loss = 0.0;
    for t in triplets {
        let (a, j, c) = (t.anchor as usize, t.near as usize, t.far as usize);
        // z = d_aj − d_ac = K_jj − K_cc − 2 K_aj + 2 K_ac
        let z = k[(j, j)] - k[(c, c)] - 2.0 * k[(a, j)] + 2.0 * k[(a, c)];
        let (sp, sg) = softplus_sigmoid(z);
        loss += sp;
        let w = sg * w_scale;
        g[(j, j)] += w;
        g[(c, c)] -= w;
        g[(a, j)] -= w;
        g[(j, a)] -= w;
        g[(a, c)] += w;
        g[(c, a)] += w;
    }
    loss * w_scale
}

fn check_gram(k: MatRef<'_, f64>, triplets: &[Triplet]) -> Result<(), EmbedError> {
    if k.nrows() != k.ncols() {
        return Err(invalid(
            METHOD,
            "gram",
            format!("{} × {}", k.nrows(), k.ncols()),
            "must be square",
        ));
    }
    validate_triplets(METHOD, k.nrows(), triplets)
}

/// The FORTE loss `(1/m) Σ log(1 + exp(d_aj(K) − d_ak(K)))` and its gradient (a symmetric n × n
/// matrix: `⟨∇L, Δ⟩` is the derivative along a symmetric Δ) at the Gram matrix `k` (the
/// optimiser's version). Inputs are validated.
pub fn loss_and_gradient(
    k: MatRef<'_, f64>,
    triplets: &[Triplet],
) -> Result<(f64, Mat<f64>), EmbedError> {
    check_gram(k, triplets)?;
    let mut g = Mat::zeros(k.nrows(), k.ncols());
    let f = accumulate(k, triplets, &mut g);
    Ok((f, g))
}

/// Reference implementation of [`loss_and_gradient`], straight from the formulas of Jain,
/// Jamieson & Nowak (2016): for each triplet the dense `L_t = v vᵀ − w wᵀ` with `v = e_a − e_j`,
/// `w = e_a − e_k`, the score `⟨L_t, K⟩`, `log(1 + exp(·))` and `σ(·) L_t / m` literally.
pub fn naive_loss_and_gradient(
    k: MatRef<'_, f64>,
    triplets: &[Triplet],
) -> Result<(f64, Mat<f64>), EmbedError> {
    check_gram(k, triplets)?;
    let n = k.nrows();
    let m = triplets.len() as f64;
    let mut loss = 0.0;
    let mut g = Mat::<f64>::zeros(n, n);
    for t in triplets {
        let unit = |i: usize| -> Vec<f64> { (0..n).map(|r| f64::from(u8::from(r == i))).collect() };
        let (ea, ej, ek) = (
            unit(t.anchor as usize),
            unit(t.near as usize),
            unit(t.far as usize),
        );
        let v: Vec<f64> = ea.iter().zip(&ej).map(|(x, y)| x - y).collect();
        let w: Vec<f64> = ea.iter().zip(&ek).map(|(x, y)| x - y).collect();
        let l = Mat::from_fn(n, n, |r, c| v[r] * v[c] - w[r] * w[c]);
        let z = inner(l.as_ref(), k);
        loss += (1.0 + z.exp()).ln() / m;
        let sigma = 1.0 / (1.0 + (-z).exp());
        g += &l * faer::Scale(sigma / m);
    }
    Ok((loss, g))
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
        // Points 0, 1, 3 on a line: K = x xᵀ; d_01 = 1, d_02 = 9, z = −8.
        let x = [0.0, 1.0, 3.0];
        let k = Mat::from_fn(3, 3, |i, j| x[i] * x[j]);
        let (f, g) = loss_and_gradient(k.as_ref(), &[t(0, 1, 2)]).unwrap();
        assert!((f - (1.0 + (-8.0f64).exp()).ln()).abs() < 1e-15);
        let s = 1.0 / (1.0 + 8.0f64.exp());
        assert!((g[(1, 1)] - s).abs() < 1e-15);
        assert!((g[(2, 2)] + s).abs() < 1e-15);
        assert!((g[(0, 1)] + s).abs() < 1e-15 && (g[(1, 0)] + s).abs() < 1e-15);
        assert!((g[(0, 2)] - s).abs() < 1e-15 && (g[(2, 0)] - s).abs() < 1e-15);
        assert_eq!(g[(0, 0)], 0.0);
        assert_eq!(g[(1, 2)], 0.0);
    }

    #[test]
    fn capped_simplex_projection() {
        assert_eq!(project_capped_simplex(&[1.0, 2.0], 5.0), vec![1.0, 2.0]);
        assert_eq!(project_capped_simplex(&[-1.0, 2.0], 5.0), vec![0.0, 2.0]);
        let p = project_capped_simplex(&[3.0, 1.0], 2.0);
        assert!((p[0] - 2.0).abs() < 1e-15 && p[1] == 0.0);
        let p = project_capped_simplex(&[3.0, 2.0], 3.0);
        assert!((p[0] - 2.0).abs() < 1e-15 && (p[1] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert!(ForteParams::new(0).check().is_err());
        assert!(ForteParams::new(2).with_max_trace(0.0).check().is_err());
        assert!(ForteParams::new(2).with_tol(f64::NAN).check().is_err());
        let p = ForteParams::new(2);
        assert_eq!(
            p.fit(0, &[t(0, 1, 2)], None).unwrap_err(),
            EmbedError::NoItems { method: "FORTE" }
        );
        assert_eq!(
            p.fit(3, &[], None).unwrap_err(),
            EmbedError::NoTriplets { method: "FORTE" }
        );
        assert!(matches!(
            p.fit(3, &[t(0, 1, 3)], None).unwrap_err(),
            EmbedError::ItemOutOfRange { item: 3, .. }
        ));
        assert!(matches!(
            p.fit(MAX_ITEMS + 1, &[t(0, 1, 2)], None).unwrap_err(),
            EmbedError::TooManyItems { .. }
        ));
        let k = Mat::<f64>::zeros(3, 2);
        assert!(loss_and_gradient(k.as_ref(), &[t(0, 1, 2)]).is_err());
    }

    #[test]
    fn a_cancelled_fit_stops_with_cancelled() {
        let flag = crate::cancel::CancelFlag::new();
        flag.cancel();
        let r = crate::cancel::with_flag(&flag, || {
            ForteParams::new(2).fit(4, &[t(0, 1, 2), t(3, 2, 1)], None)
        });
        assert_eq!(r.unwrap_err(), EmbedError::Cancelled { method: "FORTE" });
    }

    fn triplets(n: u32, m: usize) -> impl Strategy<Value = Vec<Triplet>> {
        proptest::collection::vec(
            (0..n, 0..n - 1, 0..n - 2).prop_map(|(a, b, c)| {
                let b = if b >= a { b + 1 } else { b };
                let (lo, hi) = (a.min(b), a.max(b));
                let c = if c >= lo { c + 1 } else { c };
                let c = if c >= hi { c + 1 } else { c };
                t(a, b, c)
            }),
            1..m,
        )
    }

    /// A random symmetric n × n matrix and triplets over its items.
    fn problem() -> impl Strategy<Value = (Mat<f64>, Vec<Triplet>)> {
        (3usize..8).prop_flat_map(|n| {
            (
                proptest::collection::vec(-2.0f64..2.0, n * n),
                triplets(n as u32, 30),
            )
                .prop_map(move |(v, tr)| {
                    let k = Mat::from_fn(n, n, |i, j| 0.5 * (v[i * n + j] + v[j * n + i]));
                    (k, tr)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The optimiser's loss and gradient equal the dense literal formula.
        #[test]
        fn fast_matches_naive((k, tr) in problem()) {
            let (f1, g1) = loss_and_gradient(k.as_ref(), &tr).unwrap();
            let (f2, g2) = naive_loss_and_gradient(k.as_ref(), &tr).unwrap();
            prop_assert!((f1 - f2).abs() <= 1e-12 * (1.0 + f2.abs()), "{} vs {}", f1, f2);
            let n = k.nrows();
            for i in 0..n {
                for j in 0..n {
                    prop_assert!((g1[(i, j)] - g2[(i, j)]).abs() <= 1e-12,
                        "({}, {}): {} vs {}", i, j, g1[(i, j)], g2[(i, j)]);
                }
            }
        }

        /// `⟨∇L, E⟩` matches central finite differences along each symmetric unit direction
        /// `E = e_i e_jᵀ + e_j e_iᵀ` (and `e_i e_iᵀ`).
        #[test]
        fn gradient_matches_finite_differences((k, tr) in problem()) {
            let (_, g) = naive_loss_and_gradient(k.as_ref(), &tr).unwrap();
            let n = k.nrows();
            let h = 1e-6;
            for i in 0..n {
                for j in 0..=i {
                    let mut kp = k.clone();
                    let mut km = k.clone();
                    kp[(i, j)] += h;
                    km[(i, j)] -= h;
                    if i != j {
                        kp[(j, i)] += h;
                        km[(j, i)] -= h;
                    }
                    let fp = naive_loss_and_gradient(kp.as_ref(), &tr).unwrap().0;
                    let fm = naive_loss_and_gradient(km.as_ref(), &tr).unwrap().0;
                    let fd = (fp - fm) / (2.0 * h);
                    let an = if i == j { g[(i, i)] } else { g[(i, j)] + g[(j, i)] };
                    prop_assert!((fd - an).abs() <= 1e-6 * (1.0 + an.abs()),
                        "({}, {}): finite difference {} vs analytic {}", i, j, fd, an);
                }
            }
        }

        /// The projection lands in `{K ⪰ 0, rank ≤ d, tr ≤ τ}`, is a fixed point there, and
        /// is no farther from `A` than other points of the set (rank-d truncations with
        /// feasible rescaled eigenvalues).
        #[test]
        fn projection_is_feasible_and_nearest((a, _) in problem(), d in 1usize..4, tau in 0.1f64..20.0,
                                             shrink in proptest::collection::vec(0.0f64..1.0, 4)) {
            let n = a.nrows();
            let (p, factor) = project(a.as_ref(), d, tau).unwrap();
            let trace: f64 = (0..n).map(|i| p[(i, i)]).sum();
            prop_assert!(trace <= tau * (1.0 + 1e-12) + 1e-12);
            let eig = p.self_adjoint_eigen(Side::Lower).unwrap();
            let s = eig.S();
            prop_assert!((0..n).all(|c| s[c] >= -1e-10));
            prop_assert!((0..n).filter(|&c| s[c] > 1e-10).count() <= d);
            let again = project(p.as_ref(), d, tau).unwrap().0;
            prop_assert!((&again - &p).norm_l2() <= 1e-9 * (1.0 + p.norm_l2()));
            prop_assert!((gram_of(factor.as_ref()) - &p).norm_l2() <= 1e-12 * (1.0 + p.norm_l2()));
            // Competitors: scaled eigen-truncations of `a` that are feasible.
            let ea = a.self_adjoint_eigen(Side::Lower).unwrap();
            let (u, sa) = (ea.U(), ea.S());
            let best = (&a - &p).norm_l2();
            for pick in 0..n {
                // keep up to d eigenpairs starting at `pick`, values shrunk and clipped
                let cols: Vec<usize> = (pick..n).take(d).collect();
                let vals: Vec<f64> = cols.iter().zip(&shrink).map(|(&c, &w)| (sa[c] * w).max(0.0)).collect();
                let total: f64 = vals.iter().sum();
                let scale = if total > tau { tau / total } else { 1.0 };
                let z = Mat::from_fn(n, n, |r, q| {
                    cols.iter().zip(&vals).map(|(&c, &v)| scale * v * u[(r, c)] * u[(q, c)]).sum::<f64>()
                });
                prop_assert!(best <= (&a - &z).norm_l2() + 1e-9);
            }
        }
    }
}
