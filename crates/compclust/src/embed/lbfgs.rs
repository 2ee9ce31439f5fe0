//! Minimisers used by t-STE: limited-memory BFGS (Nocedal & Wright, *Numerical Optimization*,
//! 2nd ed., Alg. 7.4 two-loop recursion and Alg. 7.5) with a backtracking Armijo line search,
//! and the adaptive-step gradient descent of van der Maaten's original `tste.m`.
//!
//! Everything here is serial and deterministic; the objective itself may be parallel as long
//! as it is deterministic.

use super::tste::StopReason;

/// Settings shared by both minimisers.
pub(crate) struct MinimizeConfig {
    /// Number of stored correction pairs (L-BFGS only).
    pub memory: usize,
    /// Maximum number of iterations.
    pub max_iter: usize,
    /// Stop when the relative decrease of the loss `(f_old − f_new) / max(|f_old|, |f_new|, 1)`
    /// is at most this (scipy's `ftol`).
    pub ftol: f64,
    /// Stop when the largest gradient component is at most this in absolute value (scipy's
    /// `gtol`; L-BFGS only).
    pub gtol: f64,
}

/// Result of a minimisation.
pub(crate) struct Outcome {
    pub x: Vec<f64>,
    pub f: f64,
    pub iterations: usize,
    pub evaluations: usize,
    pub stop: StopReason,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
}

fn rel_decrease(f_old: f64, f_new: f64) -> f64 {
    (f_old - f_new) / f_old.abs().max(f_new.abs()).max(1.0)
}

/// The L-BFGS memory: the last `memory` correction pairs `(s, y)` with `ρ = 1/sᵀy`.
struct History {
    s: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    rho: Vec<f64>,
    alpha: Vec<f64>,
    memory: usize,
}

impl History {
    fn new(memory: usize) -> Self {
        History {
            s: Vec::with_capacity(memory),
            y: Vec::with_capacity(memory),
            rho: Vec::with_capacity(memory),
            alpha: vec![0.0; memory],
            memory,
        }
    }

    fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    fn clear(&mut self) {
        self.s.clear();
        self.y.clear();
        self.rho.clear();
    }

    /// Two-loop recursion (Nocedal & Wright, Alg. 7.4): `dir = −H g`, with the initial
    /// Hessian scaled by `sᵀy / yᵀy` of the newest pair.
    fn direction(&mut self, g: &[f64], dir: &mut [f64]) {
        dir.copy_from_slice(g);
        let h = self.s.len();
        for i in (0..h).rev() {
            let a = self.rho[i] * dot(&self.s[i], dir);
            self.alpha[i] = a;
            for (q, y) in dir.iter_mut().zip(&self.y[i]) {
                *q -= a * y;
            }
        }
        if h > 0 {
            let gamma = dot(&self.s[h - 1], &self.y[h - 1]) / dot(&self.y[h - 1], &self.y[h - 1]);
            for q in dir.iter_mut() {
                *q *= gamma;
            }
        }
        for i in 0..h {
            let b = self.rho[i] * dot(&self.y[i], dir);
            let a = self.alpha[i];
            for (r, s) in dir.iter_mut().zip(&self.s[i]) {
                *r += s * (a - b);
            }
        }
        for q in dir.iter_mut() {
            *q = -*q;
        }
    }

    /// Adds the pair `s = x_new − x`, `y = g_new − g` unless its curvature is not positive.
    fn push(&mut self, x_new: &[f64], x: &[f64], g_new: &[f64], g: &[f64]) {
        let s: Vec<f64> = x_new.iter().zip(x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-10 * dot(&y, &y) {
            if self.s.len() == self.memory {
                self.s.remove(0);
                self.y.remove(0);
                self.rho.remove(0);
            }
            self.s.push(s);
            self.y.push(y);
            self.rho.push(1.0 / sy);
        }
    }
}

/// Backtracking Armijo line search from `x` along `dir` (`gd = gᵀdir < 0`), shrinking the
/// step to the minimiser of the quadratic through `f`, `gd` and the rejected value, kept in
/// `[0.1, 0.5]·step`. Writes the accepted point and its gradient into `x_new`, `g_new` and
/// returns its value, or `None` after `MAX_BACKTRACK` rejections.
#[allow(clippy::too_many_arguments)]
fn line_search(
    eval: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &[f64],
    f: f64,
    dir: &[f64],
    gd: f64,
    mut step: f64,
    x_new: &mut [f64],
    g_new: &mut [f64],
    evaluations: &mut usize,
) -> Option<f64> {
    const C1: f64 = 1e-4;
    const MAX_BACKTRACK: usize = 40;
    for _ in 0..MAX_BACKTRACK {
        for ((xn, xv), dv) in x_new.iter_mut().zip(x).zip(dir) {
            *xn = xv + step * dv;
        }
        let f_new = eval(x_new, g_new);
        *evaluations += 1;
        if f_new.is_finite() && f_new <= f + C1 * step * gd {
            return Some(f_new);
        }
        let next = if f_new.is_finite() {
            let denom = 2.0 * (f_new - f - gd * step);
            if denom > 0.0 {
                -gd * step * step / denom
            } else {
                0.5 * step
            }
        } else {
            0.5 * step
        };
        step = next.clamp(0.1 * step, 0.5 * step);
    }
    None
}

/// L-BFGS with the two-loop recursion and a backtracking (quadratic interpolation) Armijo line
/// search. Correction pairs with non-positive curvature are skipped.
pub(crate) fn lbfgs(
    x0: Vec<f64>,
    mut eval: impl FnMut(&[f64], &mut [f64]) -> f64,
    cfg: &MinimizeConfig,
    mut progress: Option<&mut dyn FnMut(usize, usize)>,
) -> Outcome {
    let len = x0.len();
    let mut x = x0;
    let mut g = vec![0.0; len];
    let mut f = eval(&x, &mut g);
    let mut evaluations = 1;
    let done = |x, f, iterations, evaluations, stop| Outcome {
        x,
        f,
        iterations,
        evaluations,
        stop,
    };
    if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return done(x, f, 0, evaluations, StopReason::NonFinite);
    }
    if max_abs(&g) <= cfg.gtol {
        return done(x, f, 0, evaluations, StopReason::GradientTolerance);
    }
    let mut hist = History::new(cfg.memory);
    let mut dir = vec![0.0; len];
    let mut x_new = vec![0.0; len];
    let mut g_new = vec![0.0; len];
    let mut iterations = 0;
    let mut stop = StopReason::MaxIterations;
    while iterations < cfg.max_iter {
        if crate::cancel::requested() {
            stop = StopReason::Cancelled;
            break;
        }
        hist.direction(&g, &mut dir);
        let mut gd = dot(&g, &dir);
        if gd.is_nan() || gd >= 0.0 {
            // Not a descent direction (numerical trouble): restart from steepest descent.
            hist.clear();
            for (q, v) in dir.iter_mut().zip(&g) {
                *q = -v;
            }
            gd = dot(&g, &dir);
        }
        // First step (no curvature information yet): unit length, as L-BFGS-B does.
        let step = if hist.is_empty() {
            (1.0 / dot(&dir, &dir).sqrt()).min(1.0)
        } else {
            1.0
        };
        let f_new = line_search(
            &mut eval,
            &x,
            f,
            &dir,
            gd,
            step,
            &mut x_new,
            &mut g_new,
            &mut evaluations,
        );
        iterations += 1;
        if let Some(p) = progress.as_deref_mut() {
            p(iterations, cfg.max_iter);
        }
        let Some(f_new) = f_new else {
            stop = StopReason::LineSearchFailed;
            break;
        };
        if g_new.iter().any(|v| !v.is_finite()) {
            stop = StopReason::NonFinite;
            break;
        }
        hist.push(&x_new, &x, &g_new, &g);
        let dec = rel_decrease(f, f_new);
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        f = f_new;
        if dec <= cfg.ftol {
            stop = StopReason::LossTolerance;
            break;
        }
        if max_abs(&g) <= cfg.gtol {
            stop = StopReason::GradientTolerance;
            break;
        }
    }
    done(x, f, iterations, evaluations, stop)
}

/// Gradient descent of van der Maaten's `tste.m`: `X ← X − (η · n / m) ∇C`, η starts at 2, grows
/// by 1 % after an iteration that lowered the loss by more than `ftol` (relative) and halves
/// otherwise; stops after 5 iterations in a row without such a decrease. Returns the best
/// point seen.
pub(crate) fn gradient_descent(
    x0: Vec<f64>,
    mut eval: impl FnMut(&[f64], &mut [f64]) -> f64,
    scale: f64,
    cfg: &MinimizeConfig,
    mut progress: Option<&mut dyn FnMut(usize, usize)>,
) -> Outcome {
    let len = x0.len();
    let mut x = x0;
    let mut g = vec![0.0; len];
    let mut eta = 2.0;
    let mut best_x = x.clone();
    let mut best_f = f64::INFINITY;
    let mut old_f = f64::INFINITY;
    let mut no_incr = 0;
    let mut iterations = 0;
    let mut evaluations = 0;
    let mut stop = StopReason::MaxIterations;
    while iterations < cfg.max_iter {
        if crate::cancel::requested() {
            stop = StopReason::Cancelled;
            break;
        }
        let f = eval(&x, &mut g);
        evaluations += 1;
        if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
            stop = StopReason::NonFinite;
            break;
        }
        if f < best_f {
            best_f = f;
            best_x.copy_from_slice(&x);
        }
        if old_f.is_infinite() || rel_decrease(old_f, f) > cfg.ftol {
            no_incr = 0;
            eta *= 1.01;
        } else {
            no_incr += 1;
            eta *= 0.5;
        }
        old_f = f;
        if no_incr >= 5 {
            stop = StopReason::LossTolerance;
            break;
        }
        let lr = eta * scale;
        for (xv, gv) in x.iter_mut().zip(&g) {
            *xv -= lr * gv;
        }
        iterations += 1;
        if let Some(p) = progress.as_deref_mut() {
            p(iterations, cfg.max_iter);
        }
    }
    if best_f.is_finite() {
        x = best_x;
    }
    Outcome {
        x,
        f: best_f,
        iterations,
        evaluations,
        stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> MinimizeConfig {
        MinimizeConfig {
            memory: 5,
            max_iter: 500,
            ftol: 1e-14,
            gtol: 1e-8,
        }
    }

    /// Rosenbrock: minimum 0 at (1, 1).
    fn rosen(x: &[f64], g: &mut [f64]) -> f64 {
        let (a, b) = (x[0], x[1]);
        g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
        g[1] = 200.0 * (b - a * a);
        (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
    }

    #[test]
    fn lbfgs_minimises_rosenbrock() {
        let out = lbfgs(vec![-1.2, 1.0], rosen, &cfg(), None);
        assert!((out.x[0] - 1.0).abs() < 1e-5, "{:?}", out.x);
        assert!((out.x[1] - 1.0).abs() < 1e-5, "{:?}", out.x);
        assert!(out.f < 1e-10);
        assert!(matches!(
            out.stop,
            StopReason::GradientTolerance | StopReason::LossTolerance
        ));
    }

    #[test]
    fn gradient_descent_minimises_a_quadratic() {
        // f = Σ c_i (x_i − i)², minimum at x_i = i.
        let c = [1.0, 3.0, 0.5];
        let eval = |x: &[f64], g: &mut [f64]| {
            let mut f = 0.0;
            for i in 0..3 {
                let u = x[i] - i as f64;
                f += c[i] * u * u;
                g[i] = 2.0 * c[i] * u;
            }
            f
        };
        let mut config = cfg();
        config.max_iter = 5000;
        let out = gradient_descent(vec![5.0, -4.0, 2.0], eval, 0.05, &config, None);
        for (i, v) in out.x.iter().enumerate() {
            assert!((v - i as f64).abs() < 1e-4, "{:?}", out.x);
        }
    }

    #[test]
    fn lbfgs_reports_non_finite_start() {
        let out = lbfgs(
            vec![0.0],
            |_, g| {
                g[0] = 0.0;
                f64::NAN
            },
            &cfg(),
            None,
        );
        assert_eq!(out.stop, StopReason::NonFinite);
    }
}
