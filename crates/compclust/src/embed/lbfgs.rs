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

/// L-BFGS with the two-loop recursion and a backtracking (quadratic interpolation) Armijo line
/// search. Correction pairs with non-positive curvature are skipped.
pub(crate) fn lbfgs(
    x0: Vec<f64>,
    mut eval: impl FnMut(&[f64], &mut [f64]) -> f64,
    cfg: &MinimizeConfig,
    mut progress: Option<&mut dyn FnMut(usize, usize)>,
) -> Outcome {
    const C1: f64 = 1e-4;
    const MAX_BACKTRACK: usize = 40;
    let len = x0.len();
    let mut x = x0;
    let mut g = vec![0.0; len];
    let mut f = eval(&x, &mut g);
    let mut evaluations = 1;
    if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return Outcome {
            x,
            f,
            iterations: 0,
            evaluations,
            stop: StopReason::NonFinite,
        };
    }
    let mut s_hist: Vec<Vec<f64>> = Vec::with_capacity(cfg.memory);
    let mut y_hist: Vec<Vec<f64>> = Vec::with_capacity(cfg.memory);
    let mut rho_hist: Vec<f64> = Vec::with_capacity(cfg.memory);
    let mut alpha_buf = vec![0.0; cfg.memory];
    let mut dir = vec![0.0; len];
    let mut x_new = vec![0.0; len];
    let mut g_new = vec![0.0; len];
    let mut iterations = 0;
    let mut stop = StopReason::MaxIterations;

    if max_abs(&g) <= cfg.gtol {
        return Outcome {
            x,
            f,
            iterations,
            evaluations,
            stop: StopReason::GradientTolerance,
        };
    }

    while iterations < cfg.max_iter {
        // Two-loop recursion: dir = −H g.
        dir.copy_from_slice(&g);
        let h = s_hist.len();
        for i in (0..h).rev() {
            let a = rho_hist[i] * dot(&s_hist[i], &dir);
            alpha_buf[i] = a;
            for (q, y) in dir.iter_mut().zip(&y_hist[i]) {
                *q -= a * y;
            }
        }
        if h > 0 {
            let gamma = dot(&s_hist[h - 1], &y_hist[h - 1]) / dot(&y_hist[h - 1], &y_hist[h - 1]);
            for q in dir.iter_mut() {
                *q *= gamma;
            }
        }
        for i in 0..h {
            let b = rho_hist[i] * dot(&y_hist[i], &dir);
            let a = alpha_buf[i];
            for (r, s) in dir.iter_mut().zip(&s_hist[i]) {
                *r += s * (a - b);
            }
        }
        for q in dir.iter_mut() {
            *q = -*q;
        }
        let mut gd = dot(&g, &dir);
        if gd.is_nan() || gd >= 0.0 {
            // Not a descent direction (numerical trouble): restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho_hist.clear();
            for (q, v) in dir.iter_mut().zip(&g) {
                *q = -v;
            }
            gd = dot(&g, &dir);
        }
        // First step (no curvature information yet): unit length, as L-BFGS-B does.
        let mut step = if s_hist.is_empty() {
            (1.0 / dot(&dir, &dir).sqrt()).min(1.0)
        } else {
            1.0
        };
        let mut accepted = false;
        let mut f_new = f;
        for _ in 0..MAX_BACKTRACK {
            for ((xn, xv), dv) in x_new.iter_mut().zip(&x).zip(&dir) {
                *xn = xv + step * dv;
            }
            f_new = eval(&x_new, &mut g_new);
            evaluations += 1;
            if f_new.is_finite() && f_new <= f + C1 * step * gd {
                accepted = true;
                break;
            }
            // Minimiser of the quadratic through f, gd and f_new, kept in [0.1, 0.5]·step.
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
        iterations += 1;
        if let Some(p) = progress.as_deref_mut() {
            p(iterations, cfg.max_iter);
        }
        if !accepted {
            stop = StopReason::LineSearchFailed;
            break;
        }
        if g_new.iter().any(|v| !v.is_finite()) {
            stop = StopReason::NonFinite;
            break;
        }
        // Correction pair.
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-10 * dot(&y, &y) {
            if s_hist.len() == cfg.memory {
                s_hist.remove(0);
                y_hist.remove(0);
                rho_hist.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
            rho_hist.push(1.0 / sy);
        }
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
    Outcome {
        x,
        f,
        iterations,
        evaluations,
        stop,
    }
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
