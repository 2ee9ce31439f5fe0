//! SOE: soft ordinal embedding (Terada & von Luxburg, "Local ordinal embedding", ICML 2014,
//! §3, eq. 1).
//!
//! For points `X = (x_1 … x_n)` in `R^d`, Euclidean distances `D_ij = ||x_i − x_j||` and a
//! triplet (i, j, k) = ("i is closer to j than to k"), SOE minimises the squared hinge
//!
//! ```text
//! C(X) = (1/m) Σ_(i,j,k) max(0, δ + D_ij − D_ik)²
//! ```
//!
//! with the margin `δ > 0` (Terada & von Luxburg write the sum over the m comparisons; the mean
//! has the same minimisers and is what cblearn's scipy backend minimises, so its tolerances
//! mean the same here). The distances are not squared, as in the paper. With
//! `r = δ + D_ij − D_ik > 0`, one triplet contributes
//!
//! ```text
//! ∂C/∂x_i = (2r/m) ((x_i − x_j)/D_ij − (x_i − x_k)/D_ik),
//! ∂C/∂x_j = −(2r/m) (x_i − x_j)/D_ij,   ∂C/∂x_k = (2r/m) (x_i − x_k)/D_ik,
//! ```
//!
//! and nothing when `r ≤ 0`. A distance of exactly 0 has no gradient; its term is taken as 0
//! (a subgradient; cblearn clamps the distance to 1e-7, which gives the same 0).
//! [`loss_and_gradient`] is the fast version, [`naive_loss_and_gradient`] the formula above
//! evaluated literally.
//!
//! Defaults follow cblearn 0.4 `SOE` (scipy backend): δ = 0.1, `X₀ ~ N(0, I)`, L-BFGS with 10
//! corrections and at most 1000 iterations, the best of `n_init = 10` random starts (lowest
//! loss); scipy's tolerances `ftol = 2.22e-9`, `gtol = 1e-5`.

use faer::Mat;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;

use super::lbfgs::{MinimizeConfig, lbfgs};
use super::tste::StopReason;
use super::{EmbedError, invalid, validate_triplets};
use crate::data::Triplet;

const METHOD: &str = "SOE";

/// Parameters of SOE (builder; validated by [`SoeParams::check`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SoeParams {
    /// Embedding dimension d (default 2).
    pub n_components: usize,
    /// Margin δ of the hinge (default 0.1, as cblearn).
    pub margin: f64,
    /// Number of random starts; the fit with the lowest loss is kept (default 10, as cblearn).
    pub n_init: usize,
    /// Maximum number of L-BFGS iterations per start (default 1000).
    pub max_iter: usize,
    /// Relative loss-decrease tolerance (default 2.22e-9, scipy L-BFGS-B's `ftol`).
    pub tol: f64,
    /// Gradient max-norm tolerance (default 1e-5, scipy's `gtol`).
    pub gtol: f64,
    /// Number of L-BFGS correction pairs (default 10, as scipy).
    pub memory: usize,
    /// Seed of the initialisations.
    pub seed: u64,
}

impl Default for SoeParams {
    fn default() -> Self {
        SoeParams {
            n_components: 2,
            margin: 0.1,
            n_init: 10,
            max_iter: 1000,
            tol: 2.220446049250313e-9,
            gtol: 1e-5,
            memory: 10,
            seed: 0,
        }
    }
}

/// Diagnostics of an SOE fit (of the start that was kept).
#[derive(Clone, Debug, PartialEq)]
pub struct SoeInfo {
    /// Which start (0-based) gave the kept embedding.
    pub best_init: usize,
    /// Its optimiser iterations.
    pub iterations: usize,
    /// Loss and gradient evaluations of all starts together.
    pub evaluations: usize,
    /// Its final loss `(1/m) Σ max(0, δ + D_ij − D_ik)²` (cblearn's `stress_`).
    pub loss: f64,
    /// True when a tolerance was met.
    pub converged: bool,
    /// Why its optimiser stopped.
    pub stop: StopReason,
}

/// A fitted SOE embedding.
#[derive(Clone, Debug)]
pub struct Soe {
    /// n × d embedding, one row per item.
    pub embedding: Mat<f64>,
    /// Diagnostics.
    pub info: SoeInfo,
}

impl Soe {
    /// The embedding as a row-major `n·d` vector.
    pub fn rows(&self) -> Vec<f64> {
        let (n, d) = (self.embedding.nrows(), self.embedding.ncols());
        (0..n)
            .flat_map(|i| (0..d).map(move |l| (i, l)))
            .map(|(i, l)| self.embedding[(i, l)])
            .collect()
    }
}

impl SoeParams {
    /// Default parameters in dimension `n_components`.
    pub fn new(n_components: usize) -> Self {
        SoeParams {
            n_components,
            ..Default::default()
        }
    }

    /// Sets the margin δ.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Sets the number of random starts.
    pub fn with_n_init(mut self, n_init: usize) -> Self {
        self.n_init = n_init;
        self
    }

    /// Sets the maximum number of iterations per start.
    pub fn with_max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }

    /// Sets the relative loss-decrease tolerance.
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
        if !(self.margin.is_finite() && self.margin > 0.0) {
            return Err(invalid(
                METHOD,
                "margin",
                self.margin,
                "must be finite and > 0",
            ));
        }
        if self.n_init == 0 {
            return Err(invalid(METHOD, "n_init", 0, "must be at least 1"));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(invalid(METHOD, "tol", self.tol, "must be finite and >= 0"));
        }
        if !(self.gtol.is_finite() && self.gtol >= 0.0) {
            return Err(invalid(
                METHOD,
                "gtol",
                self.gtol,
                "must be finite and >= 0",
            ));
        }
        if self.memory == 0 {
            return Err(invalid(METHOD, "memory", 0, "must be at least 1"));
        }
        Ok(())
    }

    /// Fits SOE on `triplets` over items `0..n_items`: `n_init` starts `X₀ ~ N(0, I)` drawn
    /// from one seeded generator, the lowest final loss kept. `progress(done, total)` counts
    /// optimiser iterations over all starts (`total = n_init · max_iter`).
    pub fn fit(
        &self,
        n_items: usize,
        triplets: &[Triplet],
        mut progress: Option<&mut dyn FnMut(usize, usize)>,
    ) -> Result<Soe, EmbedError> {
        self.check()?;
        validate_triplets(METHOD, n_items, triplets)?;
        let d = self.n_components;
        let cfg = MinimizeConfig {
            memory: self.memory,
            max_iter: self.max_iter,
            ftol: self.tol,
            gtol: self.gtol,
        };
        let mut rng = StdRng::seed_from_u64(self.seed);
        let total = self.n_init.saturating_mul(self.max_iter);
        let mut best: Option<(super::lbfgs::Outcome, usize)> = None;
        let mut evaluations = 0;
        for start in 0..self.n_init {
            if crate::cancel::requested() {
                return Err(EmbedError::Cancelled { method: METHOD });
            }
            let x0: Vec<f64> = (0..n_items * d)
                .map(|_| rng.sample::<f64, _>(StandardNormal))
                .collect();
            let offset = start * self.max_iter;
            let mut inner = |i: usize, _: usize| {
                if let Some(p) = progress.as_deref_mut() {
                    p(offset + i, total);
                }
            };
            let eval = |x: &[f64], g: &mut [f64]| accumulate(x, d, self.margin, triplets, g);
            let out = lbfgs(x0, eval, &cfg, Some(&mut inner));
            if out.stop == StopReason::Cancelled {
                return Err(EmbedError::Cancelled { method: METHOD });
            }
            evaluations += out.evaluations;
            // NaN losses never win: `<` is false for them.
            let better = match &best {
                None => true,
                Some((b, _)) => out.f < b.f || !b.f.is_finite(),
            };
            if better {
                best = Some((out, start));
            }
        }
        let (out, best_init) = best.expect("n_init >= 1 was checked");
        let embedding = Mat::from_fn(n_items, d, |i, l| out.x[i * d + l]);
        Ok(Soe {
            embedding,
            info: SoeInfo {
                best_init,
                iterations: out.iterations,
                evaluations,
                loss: out.f,
                converged: matches!(
                    out.stop,
                    StopReason::GradientTolerance | StopReason::LossTolerance
                ),
                stop: out.stop,
            },
        })
    }
}

/// Writes the loss and gradient of `triplets` at `x` (row-major n × d) into `grad`
/// (overwritten); returns the loss (mean over triplets).
fn accumulate(x: &[f64], d: usize, margin: f64, triplets: &[Triplet], grad: &mut [f64]) -> f64 {
    grad.fill(0.0);
    let scale = 1.0 / triplets.len() as f64;
    let mut loss = 0.0;
    for t in triplets {
        let (i, j, k) = (t.anchor as usize, t.near as usize, t.far as usize);
        let (xi, xj, xk) = (
            &x[i * d..i * d + d],
            &x[j * d..j * d + d],
            &x[k * d..k * d + d],
        );
        let mut dij = 0.0;
        let mut dik = 0.0;
        for l in 0..d {
            dij += (xi[l] - xj[l]).powi(2);
            dik += (xi[l] - xk[l]).powi(2);
        }
        let (dij, dik) = (dij.sqrt(), dik.sqrt());
        let r = margin + dij - dik;
        if r <= 0.0 {
            continue;
        }
        loss += r * r;
        let w = 2.0 * r * scale;
        let wa = if dij > 0.0 { w / dij } else { 0.0 };
        let wb = if dik > 0.0 { w / dik } else { 0.0 };
        for l in 0..d {
            let u = x[i * d + l] - x[j * d + l];
            let v = x[i * d + l] - x[k * d + l];
            grad[i * d + l] += wa * u - wb * v;
            grad[j * d + l] -= wa * u;
            grad[k * d + l] += wb * v;
        }
    }
    loss * scale
}

fn check_x(x: &[f64], d: usize) -> Result<usize, EmbedError> {
    if d == 0 {
        return Err(invalid(METHOD, "n_components", 0, "must be at least 1"));
    }
    if !x.len().is_multiple_of(d) {
        return Err(invalid(
            METHOD,
            "x",
            format!("{} values", x.len()),
            "length must be a multiple of n_components",
        ));
    }
    Ok(x.len() / d)
}

/// The SOE loss `(1/m) Σ max(0, δ + D_ij − D_ik)²` and its gradient at the row-major n × d
/// embedding `x` (the optimiser's version). Inputs are validated.
pub fn loss_and_gradient(
    x: &[f64],
    n_components: usize,
    triplets: &[Triplet],
    margin: f64,
) -> Result<(f64, Vec<f64>), EmbedError> {
    let n = check_x(x, n_components)?;
    validate_triplets(METHOD, n, triplets)?;
    let mut g = vec![0.0; x.len()];
    let f = accumulate(x, n_components, margin, triplets, &mut g);
    Ok((f, g))
}

/// Reference implementation of [`loss_and_gradient`], straight from Terada & von Luxburg
/// (2014), eq. 1 and its derivative: distances by `sqrt` of a sum of squares, the hinge by
/// `max`, the chain rule `∂D_ij/∂x_i = (x_i − x_j)/D_ij` written out per coordinate.
pub fn naive_loss_and_gradient(
    x: &[f64],
    n_components: usize,
    triplets: &[Triplet],
    margin: f64,
) -> Result<(f64, Vec<f64>), EmbedError> {
    let n = check_x(x, n_components)?;
    validate_triplets(METHOD, n, triplets)?;
    let d = n_components;
    let m = triplets.len() as f64;
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let dist = |p: &[f64], q: &[f64]| {
        p.iter()
            .zip(q)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
    };
    let mut loss = 0.0;
    let mut grad = vec![0.0; x.len()];
    for t in triplets {
        let (i, j, k) = (t.anchor as usize, t.near as usize, t.far as usize);
        let dij = dist(row(i), row(j));
        let dik = dist(row(i), row(k));
        let hinge = (margin + dij - dik).max(0.0);
        loss += hinge * hinge / m;
        for l in 0..d {
            // ∂D_ij/∂x_i[l], ∂D_ik/∂x_i[l] (0 where the distance is 0)
            let ddij = if dij > 0.0 {
                (x[i * d + l] - x[j * d + l]) / dij
            } else {
                0.0
            };
            let ddik = if dik > 0.0 {
                (x[i * d + l] - x[k * d + l]) / dik
            } else {
                0.0
            };
            grad[i * d + l] += 2.0 * hinge * (ddij - ddik) / m;
            grad[j * d + l] += 2.0 * hinge * (-ddij) / m;
            grad[k * d + l] += 2.0 * hinge * ddik / m;
        }
    }
    Ok((loss, grad))
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
        // d = 1, x = [0, 2, 1], triplet (0, 1, 2): D01 = 2, D02 = 1, r = 0.1 + 2 − 1 = 1.1.
        let x = [0.0, 2.0, 1.0];
        let (f, g) = naive_loss_and_gradient(&x, 1, &[t(0, 1, 2)], 0.1).unwrap();
        assert!((f - 1.21).abs() < 1e-14);
        // ∂x0 = 2.2 · ((0 − 2)/2 − (0 − 1)/1) = 0; ∂x1 = −2.2 · (−1) = 2.2; ∂x2 = 2.2 · (−1).
        assert!(g[0].abs() < 1e-14);
        assert!((g[1] - 2.2).abs() < 1e-14);
        assert!((g[2] + 2.2).abs() < 1e-14);
        let (f2, g2) = loss_and_gradient(&x, 1, &[t(0, 1, 2)], 0.1).unwrap();
        assert!((f - f2).abs() < 1e-14);
        assert!(g.iter().zip(&g2).all(|(a, b)| (a - b).abs() < 1e-14));
        // A satisfied triplet with room to spare costs nothing.
        let (f3, g3) = loss_and_gradient(&[0.0, 1.0, 3.0], 1, &[t(0, 1, 2)], 0.1).unwrap();
        assert_eq!(f3, 0.0);
        assert!(g3.iter().all(|v| *v == 0.0));
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert!(SoeParams::new(0).check().is_err());
        assert!(SoeParams::new(2).with_margin(0.0).check().is_err());
        assert!(SoeParams::new(2).with_n_init(0).check().is_err());
        let p = SoeParams::new(2);
        assert_eq!(
            p.fit(0, &[t(0, 1, 2)], None).unwrap_err(),
            EmbedError::NoItems { method: "SOE" }
        );
        assert_eq!(
            p.fit(3, &[], None).unwrap_err(),
            EmbedError::NoTriplets { method: "SOE" }
        );
        assert!(matches!(
            p.fit(3, &[t(0, 1, 3)], None).unwrap_err(),
            EmbedError::ItemOutOfRange { item: 3, .. }
        ));
        assert!(matches!(
            p.fit(3, &[t(0, 1, 2), t(1, 1, 2)], None).unwrap_err(),
            EmbedError::RepeatedItem { index: 1, .. }
        ));
        assert!(loss_and_gradient(&[0.0; 5], 2, &[t(0, 1, 2)], 0.1).is_err());
    }

    #[test]
    fn a_cancelled_fit_stops_with_cancelled() {
        let flag = crate::cancel::CancelFlag::new();
        flag.cancel();
        let r = crate::cancel::with_flag(&flag, || SoeParams::new(2).fit(3, &[t(0, 1, 2)], None));
        assert_eq!(r.unwrap_err(), EmbedError::Cancelled { method: "SOE" });
    }

    /// Random small problem: n items, d dims, m triplets of distinct items, coordinates, δ.
    fn problem() -> impl Strategy<Value = (usize, Vec<Triplet>, Vec<f64>, f64)> {
        (3usize..9, 1usize..5, 1usize..40)
            .prop_flat_map(|(n, d, m)| {
                let trip = proptest::collection::vec(
                    (0..n as u32, 0..n as u32 - 1, 0..n as u32 - 2).prop_map(|(a, b, c)| {
                        let b = if b >= a { b + 1 } else { b };
                        let (lo, hi) = (a.min(b), a.max(b));
                        let c = if c >= lo { c + 1 } else { c };
                        let c = if c >= hi { c + 1 } else { c };
                        t(a, b, c)
                    }),
                    m,
                );
                let xs = proptest::collection::vec(-3.0f64..3.0, n * d);
                (Just(d), trip, xs, 0.01f64..2.0)
            })
            .prop_map(|(d, tr, xs, margin)| (d, tr, xs, margin))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The optimiser's loss and gradient equal the literal formula.
        #[test]
        fn fast_matches_naive((d, tr, x, margin) in problem()) {
            let (f1, g1) = loss_and_gradient(&x, d, &tr, margin).unwrap();
            let (f2, g2) = naive_loss_and_gradient(&x, d, &tr, margin).unwrap();
            prop_assert!((f1 - f2).abs() <= 1e-12 * (1.0 + f2.abs()), "{} vs {}", f1, f2);
            for (a, b) in g1.iter().zip(&g2) {
                prop_assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{} vs {}", a, b);
            }
        }

        /// The analytic gradient matches central finite differences of the loss, away from the
        /// kinks (a hinge at 0 or a distance near 0 within the step).
        #[test]
        fn gradient_matches_finite_differences((d, tr, x, margin) in problem()) {
            let h = 1e-6;
            let n = x.len() / d;
            let dist = |i: usize, j: usize| {
                (0..d).map(|l| (x[i * d + l] - x[j * d + l]).powi(2)).sum::<f64>().sqrt()
            };
            let smooth = tr.iter().all(|q| {
                let (i, j, k) = (q.anchor as usize, q.near as usize, q.far as usize);
                let r = margin + dist(i, j) - dist(i, k);
                r.abs() > 1e-3 && dist(i, j) > 1e-3 && dist(i, k) > 1e-3
            });
            prop_assume!(smooth && n >= 3);
            let (_, g) = naive_loss_and_gradient(&x, d, &tr, margin).unwrap();
            for idx in 0..x.len() {
                let mut xp = x.clone();
                let mut xm = x.clone();
                xp[idx] += h;
                xm[idx] -= h;
                let fp = naive_loss_and_gradient(&xp, d, &tr, margin).unwrap().0;
                let fm = naive_loss_and_gradient(&xm, d, &tr, margin).unwrap().0;
                let fd = (fp - fm) / (2.0 * h);
                prop_assert!((fd - g[idx]).abs() <= 1e-5 * (1.0 + g[idx].abs()),
                    "coordinate {}: finite difference {} vs analytic {}", idx, fd, g[idx]);
            }
        }
    }
}
