//! The ADMM solver for SDP-λ and SDP-k (`research/sdp.md` §1).
//!
//! Problem, in minimisation form: `min <C,X>` subject to `A(X) = b`, `X ≥ 0`, `X ⪰ 0`, with
//! `C = −S + λI` (SDP-λ, paper scaling) or `C = −S` (SDP-k), `A(X) = X·1` (and `tr X` for
//! SDP-k), `b = 1` (and `k`). Three-block consensus splitting `X` (affine) = `Z` (≥ 0) = `Y`
//! (⪰ 0) with scaled duals `U`, `V`; only `T = X̂ + U` and `W = X̂ + V` are stored, so that
//! `Z = T₊`, `U = T₋`, `Y = Π_psd(W)`, `V = W − Y` (dual cone feasibility holds exactly).
//! Over-relaxation α, residual balancing of ρ, and stopping on the relative primal residual,
//! dual residual and duality gap, exactly as the note's pseudo-code.

use super::eig::{ProjectionKind, Projector};
use super::error::SdpError;
use super::params::{Projection, SdpParams, SdpProblem};
use faer::reborrow::ReborrowMut;
use faer::{Mat, MatMut, MatRef};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Diagnostics of one SDP solve. Not converging is reported here (`converged = false`), never
/// as an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdpInfo {
    /// The problem solved.
    pub problem: SdpProblem,
    /// ADMM iterations done.
    pub iterations: usize,
    /// Relative primal residual `sqrt(‖X−Y‖²+‖X−Z‖²)/(1+‖X‖)` at the last check.
    pub primal_residual: f64,
    /// Relative dual residual `‖C + ρ(U+V) − A*y‖/(1+‖C‖)` at the last check.
    pub dual_residual: f64,
    /// Relative duality gap `|<C,X> − bᵀy|/(1+|<C,X>|+|bᵀy|)` at the last check.
    pub gap: f64,
    /// Relative cone violation `ρ‖W₊ − Y‖/(1+‖C‖)` of the last partial projection (0 when the
    /// last projection was exact); note §3.
    pub cone_residual: f64,
    /// Objective in the paper's (maximisation) form: `<S,X> − λ tr X` resp. `<S,X>`.
    pub objective: f64,
    /// Dual objective, same sign convention as `objective` (an upper bound up to the residuals).
    pub dual_objective: f64,
    /// `tr X` of the returned solution.
    pub trace: f64,
    /// Whether all stopping measures were ≤ `tol`.
    pub converged: bool,
    /// Number of full eigendecompositions.
    pub eig_full: usize,
    /// Number of accepted partial (block subspace) projections.
    pub eig_partial: usize,
    /// Final penalty ρ.
    pub rho: f64,
    /// Wall-clock seconds of the solve.
    pub seconds: f64,
}

/// ADMM state kept for warm starts along SPUR's sequence (`T`, `W`, `Y = Π_psd(W)`, ρ and the
/// eigenvector block of the positive part of `W`).
#[derive(Debug, Clone)]
pub struct SdpState {
    pub(crate) t: Mat<f64>,
    pub(crate) w: Mat<f64>,
    pub(crate) y: Mat<f64>,
    pub(crate) rho: f64,
    pub(crate) basis: Option<Mat<f64>>,
}

impl SdpState {
    /// Number of items `n` the state belongs to.
    pub fn n(&self) -> usize {
        self.t.nrows()
    }
    /// Penalty ρ at the end of the solve.
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

/// Solution of SDP-λ or SDP-k.
#[derive(Debug, Clone)]
pub struct SdpSolution {
    /// The solution `X` (the affine iterate: `X·1 = 1` and `tr X = k` hold to rounding; `X ≥ 0`
    /// and `X ⪰ 0` to the tolerance).
    pub x: Mat<f64>,
    /// Diagnostics.
    pub info: SdpInfo,
    /// State to warm-start a neighbouring problem.
    pub state: SdpState,
}

/// Checks that `s` is a non-empty, finite, symmetric square matrix.
pub(crate) fn validate_similarity(s: MatRef<'_, f64>) -> Result<usize, SdpError> {
    if s.nrows() != s.ncols() {
        return Err(SdpError::NotSquare {
            rows: s.nrows(),
            cols: s.ncols(),
        });
    }
    let n = s.nrows();
    if n == 0 {
        return Err(SdpError::Empty);
    }
    let mut scale = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let v = s[(i, j)];
            if !v.is_finite() {
                return Err(SdpError::NonFinite {
                    row: i,
                    col: j,
                    value: v,
                });
            }
            scale = scale.max(v.abs());
        }
    }
    let tol = 1e-9 * (1.0 + scale);
    for j in 0..n {
        for i in (j + 1)..n {
            let (a, b) = (s[(i, j)], s[(j, i)]);
            if (a - b).abs() > tol {
                return Err(SdpError::NotSymmetric {
                    row: i,
                    col: j,
                    a,
                    b,
                });
            }
        }
    }
    Ok(n)
}

/// Solves `A A* (μ, ν) = (r, t)` for the constraint map `A(X) = (X·1, tr X)` restricted to
/// symmetric matrices, `A*(μ,ν) = (μ1ᵀ + 1μᵀ)/2 + νI` (note §1). With `t = None` (SDP-λ) only
/// the row-sum constraints are present and `ν = 0`. Writes μ, returns ν.
pub(crate) fn solve_aat(r: &[f64], t: Option<f64>, mu: &mut [f64]) -> f64 {
    let n = r.len() as f64;
    let big_r: f64 = r.iter().sum();
    let (nu, s) = match t {
        Some(t) => {
            let nu = (t - big_r / n) / (n - 1.0);
            (nu, big_r / n - nu)
        }
        None => (0.0, big_r / n),
    };
    for (m, &ri) in mu.iter_mut().zip(r) {
        *m = (2.0 * (ri - nu) - s) / n;
    }
    nu
}

pub(crate) struct Problem {
    pub n: usize,
    pub c: Mat<f64>,
    pub c_norm: f64,
    pub k: Option<f64>,
    pub k0: f64,
}

impl Problem {
    pub(crate) fn new(s: MatRef<'_, f64>, problem: SdpProblem) -> Result<Self, SdpError> {
        let n = validate_similarity(s)?;
        let (lambda, k) = match problem {
            SdpProblem::Lambda(l) => {
                if !l.is_finite() {
                    return Err(SdpError::InvalidLambda { lambda: l });
                }
                (l, None)
            }
            SdpProblem::K(k) => {
                if k == 0 || k > n {
                    return Err(SdpError::InvalidK { k, n });
                }
                (0.0, Some(k as f64))
            }
        };
        let c = Mat::from_fn(n, n, |i, j| {
            -0.5 * (s[(i, j)] + s[(j, i)]) + if i == j { lambda } else { 0.0 }
        });
        let c_norm = c.norm_l2();
        let k0 = k.unwrap_or_else(|| (n as f64).min(2.0));
        Ok(Problem {
            n,
            c,
            c_norm,
            k,
            k0,
        })
    }
}

/// Solves SDP-λ or SDP-k (see [`SdpProblem`]) by ADMM, cold (`warm = None`) or warm-started
/// from the state of a previous solve on the same `n`.
pub fn solve_sdp(
    s: MatRef<'_, f64>,
    problem: SdpProblem,
    params: &SdpParams,
    warm: Option<&SdpState>,
) -> Result<SdpSolution, SdpError> {
    params.check()?;
    let start = Instant::now();
    let pb = Problem::new(s, problem)?;
    let n = pb.n;
    if let Some(w) = warm
        && w.n() != n
    {
        return Err(SdpError::WarmStartMismatch { state_n: w.n(), n });
    }
    if n == 1 {
        return Ok(trivial_n1(&pb, problem, start));
    }
    let par = params.par(n);
    let par_passes = matches!(par, faer::Par::Rayon(_));
    let alpha = params.alpha;

    // State.
    let (mut t, mut w, mut y, mut rho, basis) = match warm {
        Some(st) => (
            st.t.clone(),
            st.w.clone(),
            st.y.clone(),
            st.rho,
            st.basis.clone(),
        ),
        None => {
            let x0 = barycentre(n, pb.k0);
            let rho0 = if pb.c_norm > 0.0 {
                pb.c_norm / pb.k0.sqrt()
            } else {
                1.0
            };
            (x0.clone(), x0.clone(), x0, rho0, None)
        }
    };
    if let Some(r) = params.rho {
        rho = r;
    }
    let mut proj = Projector::new(n, par, params.projection == Projection::Adaptive, basis);
    let mut x = Mat::<f64>::zeros(n, n);
    let mut colsum = vec![0.0; n];
    let mut mu = vec![0.0; n];

    let mut info = SdpInfo {
        problem,
        iterations: 0,
        primal_residual: f64::INFINITY,
        dual_residual: f64::INFINITY,
        gap: f64::INFINITY,
        cone_residual: 0.0,
        objective: f64::NAN,
        dual_objective: f64::NAN,
        trace: f64::NAN,
        converged: false,
        eig_full: 0,
        eig_partial: 0,
        rho,
        seconds: 0.0,
    };
    let mut partial_since_check = false;
    let mut last_cone = 0.0f64;

    for it in 1..=params.max_iter {
        // M = Y − W/2 + |T|/2 − C/(2ρ), column sums and trace; X = Π_A(M); over-relaxed
        // updates of T and W (note §1), as two fused passes.
        let tr = fused_m(
            &pb.c,
            &y,
            &w,
            &t,
            &mut x,
            0.5 / rho,
            &mut colsum,
            par_passes,
        );
        for v in colsum.iter_mut() {
            *v = 1.0 - *v;
        }
        let nu = solve_aat(&colsum, pb.k.map(|k| k - tr), &mut mu);
        fused_update(&mut x, &y, &mut t, &mut w, &mu, nu, alpha, par_passes);
        // Y = Π_psd(W).
        let kind = proj
            .project(w.as_ref(), y.as_mut())
            .map_err(|_| SdpError::Eigen { iteration: it })?;
        match kind {
            ProjectionKind::Full => info.eig_full += 1,
            ProjectionKind::Partial { cone } => {
                info.eig_partial += 1;
                partial_since_check = true;
                last_cone = cone;
            }
        }
        info.iterations = it;

        if it % params.check_every == 0 || it == params.max_iter {
            let mut r = residuals(&pb, &x, &t, &w, &y, rho, &mut colsum, &mut mu);
            info.cone_residual = if partial_since_check {
                rho * last_cone / (1.0 + pb.c_norm)
            } else {
                0.0
            };
            if partial_since_check && r.primal.max(r.dual).max(r.gap) <= params.tol {
                // Truncated projections can fake convergence (note §3): certify with the exact
                // projection of the current W, measure the cone violation ρ‖W₊ − Y‖, and judge
                // the residuals of the exact state.
                let mut y_exact = Mat::<f64>::zeros(n, n);
                proj.project_exact(w.as_ref(), y_exact.as_mut())
                    .map_err(|_| SdpError::Eigen { iteration: it })?;
                info.eig_full += 1;
                info.cone_residual = rho * (&y_exact - &y).norm_l2() / (1.0 + pb.c_norm);
                y = y_exact;
                r = residuals(&pb, &x, &t, &w, &y, rho, &mut colsum, &mut mu);
                if r.primal.max(r.dual).max(r.gap) > params.tol {
                    proj.tighten();
                }
            }
            let worst = r.primal.max(r.dual).max(r.gap);
            // Inexact ADMM converges only while the projection error stays well below the
            // residuals it is meant to reduce: otherwise resolve smaller eigenvalues (note §3).
            if partial_since_check && info.cone_residual > 0.1 * worst {
                proj.tighten();
            }
            partial_since_check = false;
            info.primal_residual = r.primal;
            info.dual_residual = r.dual;
            info.gap = r.gap;
            info.objective = -r.pobj;
            info.dual_objective = -r.dobj;
            if worst <= params.tol {
                info.converged = true;
                break;
            }
            if params.adaptive_rho && it < params.max_iter {
                if r.primal > 5.0 * r.dual {
                    rescale_rho(&mut t, &mut w, &y, 0.5);
                    rho *= 2.0;
                } else if r.dual > 5.0 * r.primal {
                    rescale_rho(&mut t, &mut w, &y, 2.0);
                    rho *= 0.5;
                }
            }
        }
    }
    info.trace = (0..n).map(|i| x[(i, i)]).sum();
    info.rho = rho;
    info.seconds = start.elapsed().as_secs_f64();
    Ok(SdpSolution {
        x,
        info,
        state: SdpState {
            t,
            w,
            y,
            rho,
            basis: proj.into_basis(),
        },
    })
}

/// Columns per task below which the fused passes stop splitting work across threads.
const PAR_MIN_COLS: usize = 32;

/// First fused pass: `X ← M = Y − W/2 + |T|/2 − h·C` (h = 1/(2ρ)), column sums of `M` into
/// `colsum`; returns `tr M`. Branch-free and slice-zipped so that it vectorises; columns are
/// split across rayon threads when `par` (each column is summed serially, so results do not
/// depend on the thread count).
#[allow(clippy::too_many_arguments)]
fn fused_m(
    c: &Mat<f64>,
    y: &Mat<f64>,
    w: &Mat<f64>,
    t: &Mat<f64>,
    x: &mut Mat<f64>,
    h: f64,
    colsum: &mut [f64],
    par: bool,
) -> f64 {
    let ins = [c.as_ref(), y.as_ref(), w.as_ref(), t.as_ref()];
    fused_m_cols(ins, x.as_mut(), h, colsum, par);
    (0..x.nrows()).map(|j| x[(j, j)]).sum()
}

fn fused_m_cols(
    ins: [MatRef<'_, f64>; 4],
    mut x: MatMut<'_, f64>,
    h: f64,
    colsum: &mut [f64],
    par: bool,
) {
    let nc = x.ncols();
    if par && nc > PAR_MIN_COLS {
        let mid = nc / 2;
        let split = ins.map(|m| m.split_at_col(mid));
        let (x0, x1) = x.split_at_col_mut(mid);
        let (s0, s1) = colsum.split_at_mut(mid);
        rayon::join(
            || fused_m_cols(split.map(|p| p.0), x0, h, s0, par),
            || fused_m_cols(split.map(|p| p.1), x1, h, s1, par),
        );
        return;
    }
    let [c, y, w, t] = ins;
    for jj in 0..nc {
        let xj = col_mut(x.rb_mut(), jj);
        let cols = col(c, jj)
            .iter()
            .zip(col(y, jj))
            .zip(col(w, jj))
            .zip(col(t, jj));
        for (xv, (((&cv, &yv), &wv), &tv)) in xj.iter_mut().zip(cols) {
            *xv = yv - 0.5 * wv + 0.5 * tv.abs() - h * cv;
        }
        colsum[jj] = sum_lanes(xj);
    }
}

/// Second fused pass: `X = M + (μ1ᵀ + 1μᵀ)/2 + νI` (the affine projection), then
/// `T ← T + α(X − T₊)` and `W ← W + α(X − Y)`, i.e. the over-relaxed updates
/// `T = αX + (1−α)Z + U`, `W = αX + (1−α)Y + V` with `Z = T₊`, `U = T₋`, `V = W − Y`.
#[allow(clippy::too_many_arguments)]
fn fused_update(
    x: &mut Mat<f64>,
    y: &Mat<f64>,
    t: &mut Mat<f64>,
    w: &mut Mat<f64>,
    mu: &[f64],
    nu: f64,
    alpha: f64,
    par: bool,
) {
    for j in 0..x.nrows() {
        x[(j, j)] += nu;
    }
    fused_update_cols(
        x.as_mut(),
        y.as_ref(),
        t.as_mut(),
        w.as_mut(),
        mu,
        0,
        alpha,
        par,
    );
}

#[allow(clippy::too_many_arguments)]
fn fused_update_cols(
    mut x: MatMut<'_, f64>,
    y: MatRef<'_, f64>,
    mut t: MatMut<'_, f64>,
    mut w: MatMut<'_, f64>,
    mu: &[f64],
    col0: usize,
    alpha: f64,
    par: bool,
) {
    let nc = x.ncols();
    if par && nc > PAR_MIN_COLS {
        let mid = nc / 2;
        let (x0, x1) = x.split_at_col_mut(mid);
        let (y0, y1) = y.split_at_col(mid);
        let (t0, t1) = t.split_at_col_mut(mid);
        let (w0, w1) = w.split_at_col_mut(mid);
        rayon::join(
            || fused_update_cols(x0, y0, t0, w0, mu, col0, alpha, par),
            || fused_update_cols(x1, y1, t1, w1, mu, col0 + mid, alpha, par),
        );
        return;
    }
    for jj in 0..nc {
        let muj = 0.5 * mu[col0 + jj];
        let xj = col_mut(x.rb_mut(), jj);
        let tj = col_mut(t.rb_mut(), jj);
        let wj = col_mut(w.rb_mut(), jj);
        let it = xj
            .iter_mut()
            .zip(mu)
            .zip(col(y, jj))
            .zip(tj.iter_mut())
            .zip(wj.iter_mut());
        for ((((xv, &mi), &yv), tv), wv) in it {
            let xn = *xv + 0.5 * mi + muj;
            *xv = xn;
            *tv += alpha * (xn - tv.max(0.0));
            *wv += alpha * (xn - yv);
        }
    }
}

/// Column `j` of a column-major view as a slice.
fn col(m: MatRef<'_, f64>, j: usize) -> &[f64] {
    m.col(j)
        .try_as_col_major()
        .expect("solver matrices are column-major")
        .as_slice()
}

/// Column `j` of a column-major view as a mutable slice.
fn col_mut(m: MatMut<'_, f64>, j: usize) -> &mut [f64] {
    m.col_mut(j)
        .try_as_col_major_mut()
        .expect("solver matrices are column-major")
        .as_slice_mut()
}

/// Sum with eight independent accumulators (vectorisable; the order of additions is fixed, so
/// results are deterministic).
fn sum_lanes(v: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().sum::<f64>() + rest
}

/// Scales the scaled duals `U = T₋`, `V = W − Y` by `f` (ρ is scaled by `1/f`).
fn rescale_rho(t: &mut Mat<f64>, w: &mut Mat<f64>, y: &Mat<f64>, f: f64) {
    let n = t.nrows();
    for j in 0..n {
        let yj = y.col_as_slice(j);
        let tj = t.col_as_slice_mut(j);
        for v in tj.iter_mut() {
            if *v < 0.0 {
                *v *= f;
            }
        }
        let wj = w.col_as_slice_mut(j);
        for i in 0..n {
            wj[i] = yj[i] + f * (wj[i] - yj[i]);
        }
    }
}

pub(crate) struct Residuals {
    pub primal: f64,
    pub dual: f64,
    pub gap: f64,
    pub pobj: f64,
    pub dobj: f64,
}

/// KKT measures of the note §1: primal residual, dual residual from the least-squares
/// multiplier `y = argmin ‖A*y − D‖` with `D = C + ρ(U + V)`, and the duality gap.
#[allow(clippy::too_many_arguments)]
fn residuals(
    pb: &Problem,
    x: &Mat<f64>,
    t: &Mat<f64>,
    w: &Mat<f64>,
    y: &Mat<f64>,
    rho: f64,
    dsum: &mut [f64],
    mu: &mut [f64],
) -> Residuals {
    let n = pb.n;
    let (mut xy2, mut xz2, mut x2, mut pobj, mut dtr) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for j in 0..n {
        let (cj, xj, tj, wj, yj) = (
            pb.c.col_as_slice(j),
            x.col_as_slice(j),
            t.col_as_slice(j),
            w.col_as_slice(j),
            y.col_as_slice(j),
        );
        let mut acc = 0.0;
        for i in 0..n {
            let xv = xj[i];
            let (tp, tm) = if tj[i] > 0.0 {
                (tj[i], 0.0)
            } else {
                (0.0, tj[i])
            };
            xy2 += (xv - yj[i]) * (xv - yj[i]);
            xz2 += (xv - tp) * (xv - tp);
            x2 += xv * xv;
            pobj += cj[i] * xv;
            let d = cj[i] + rho * (tm + wj[i] - yj[i]);
            acc += d;
            if i == j {
                dtr += d;
            }
        }
        dsum[j] = acc;
    }
    let nu = solve_aat(dsum, pb.k.map(|_| dtr), mu);
    let dobj = mu.iter().sum::<f64>() + pb.k.map_or(0.0, |k| k * nu);
    let mut res2 = 0.0;
    for j in 0..n {
        let (cj, tj, wj, yj) = (
            pb.c.col_as_slice(j),
            t.col_as_slice(j),
            w.col_as_slice(j),
            y.col_as_slice(j),
        );
        for i in 0..n {
            let tm = tj[i].min(0.0);
            let d = cj[i] + rho * (tm + wj[i] - yj[i]);
            let mut a = 0.5 * (mu[i] + mu[j]);
            if i == j {
                a += nu;
            }
            res2 += (d - a) * (d - a);
        }
    }
    Residuals {
        primal: (xy2 + xz2).sqrt() / (1.0 + x2.sqrt()),
        dual: res2.sqrt() / (1.0 + pb.c_norm),
        gap: (pobj - dobj).abs() / (1.0 + pobj.abs() + dobj.abs()),
        pobj,
        dobj,
    }
}

/// The barycentre `11ᵀ/n + (k−1)/(n−1)·(I − 11ᵀ/n)` of the feasible set of SDP-k (note §1).
pub(crate) fn barycentre(n: usize, k: f64) -> Mat<f64> {
    let nf = n as f64;
    let off = (nf - k) / (nf * (nf - 1.0));
    let diag = k / nf;
    Mat::from_fn(n, n, |i, j| if i == j { diag } else { off })
}

/// `n = 1`: the only feasible point is `X = [1]`.
fn trivial_n1(pb: &Problem, problem: SdpProblem, start: Instant) -> SdpSolution {
    let x = Mat::from_fn(1, 1, |_, _| 1.0);
    let obj = -pb.c[(0, 0)];
    SdpSolution {
        info: SdpInfo {
            problem,
            iterations: 0,
            primal_residual: 0.0,
            dual_residual: 0.0,
            gap: 0.0,
            cone_residual: 0.0,
            objective: obj,
            dual_objective: obj,
            trace: 1.0,
            converged: true,
            eig_full: 0,
            eig_partial: 0,
            rho: 1.0,
            seconds: start.elapsed().as_secs_f64(),
        },
        state: SdpState {
            t: x.clone(),
            w: x.clone(),
            y: x.clone(),
            rho: 1.0,
            basis: None,
        },
        x,
    }
}
