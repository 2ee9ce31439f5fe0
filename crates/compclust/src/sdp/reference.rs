//! A naive reference solver for SDP-λ / SDP-k, straight from the formulas: plain ADMM with a
//! fixed ρ, no over-relaxation, explicit `X, Z, Y, U, V`, the affine projection by a dense
//! linear solve of the generic normal equations `A A* y = b − A(M)` (built by applying `A` to
//! `A*` of unit vectors, not the closed form of the fast solver), and a full eigendecomposition
//! for the PSD projection. Slow (`O(n⁴)` set-up); only meant for tests on small `n`.

use super::admm::validate_similarity;
use super::error::SdpError;
use super::params::SdpProblem;
use faer::{Mat, MatRef, Side};

/// `A(X)`: row sums, then the trace for SDP-k.
fn a_op(x: &Mat<f64>, with_trace: bool) -> Vec<f64> {
    let n = x.nrows();
    let mut v: Vec<f64> = (0..n).map(|i| (0..n).map(|j| x[(i, j)]).sum()).collect();
    if with_trace {
        v.push((0..n).map(|i| x[(i, i)]).sum());
    }
    v
}

/// `A*(y)` on symmetric matrices: `(μ1ᵀ + 1μᵀ)/2 + νI`.
fn a_adj(y: &[f64], n: usize) -> Mat<f64> {
    let nu = if y.len() > n { y[n] } else { 0.0 };
    Mat::from_fn(n, n, |i, j| {
        0.5 * (y[i] + y[j]) + if i == j { nu } else { 0.0 }
    })
}

/// Dense Gaussian elimination with partial pivoting (small systems only).
fn gauss_solve(mut g: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let m = b.len();
    for c in 0..m {
        let p = (c..m)
            .max_by(|&a, &bb| g[a][c].abs().total_cmp(&g[bb][c].abs()))
            .unwrap_or(c);
        g.swap(c, p);
        b.swap(c, p);
        for r in (c + 1)..m {
            let f = g[r][c] / g[c][c];
            for cc in c..m {
                g[r][cc] -= f * g[c][cc];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; m];
    for c in (0..m).rev() {
        let s: f64 = ((c + 1)..m).map(|cc| g[c][cc] * x[cc]).sum();
        x[c] = (b[c] - s) / g[c][c];
    }
    x
}

fn psd_part(w: &Mat<f64>) -> Result<Mat<f64>, SdpError> {
    let n = w.nrows();
    let e = w
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| SdpError::Eigen { iteration: 0 })?;
    let (u, s) = (e.U(), e.S());
    Ok(Mat::from_fn(n, n, |i, j| {
        (0..n)
            .map(|c| s[c].max(0.0) * u[(i, c)] * u[(j, c)])
            .sum::<f64>()
    }))
}

/// Solves `problem` on `s` (n ≥ 2) by naive fixed-ρ ADMM until the primal residual and the
/// change of `Z` and `Y` are below `tol` (absolute) or `max_iter` iterations. Returns `X` (the
/// affine iterate) and the objective `<S,X> − λ tr X` (resp. `<S,X>`).
pub fn solve_reference(
    s: MatRef<'_, f64>,
    problem: SdpProblem,
    rho: f64,
    tol: f64,
    max_iter: usize,
) -> Result<(Mat<f64>, f64), SdpError> {
    let n = validate_similarity(s)?;
    let (lambda, k) = match problem {
        SdpProblem::Lambda(l) => (l, None),
        SdpProblem::K(k) => {
            if k == 0 || k > n {
                return Err(SdpError::InvalidK { k, n });
            }
            (0.0, Some(k as f64))
        }
    };
    let with_trace = k.is_some();
    let c = Mat::from_fn(n, n, |i, j| -s[(i, j)] + if i == j { lambda } else { 0.0 });
    let mut b = vec![1.0; n];
    if let Some(k) = k {
        b.push(k);
    }
    let m = b.len();
    // G = A A*, column by column.
    let mut g = vec![vec![0.0; m]; m];
    for col in 0..m {
        let mut e = vec![0.0; m];
        e[col] = 1.0;
        let v = a_op(&a_adj(&e, n), with_trace);
        for row in 0..m {
            g[row][col] = v[row];
        }
    }
    let proj_a = |mm: &Mat<f64>| -> Mat<f64> {
        let am = a_op(mm, with_trace);
        let rhs: Vec<f64> = b.iter().zip(&am).map(|(bi, ai)| bi - ai).collect();
        let y = gauss_solve(g.clone(), rhs);
        mm + a_adj(&y, n)
    };
    let mut z = Mat::<f64>::zeros(n, n);
    let mut yv = Mat::<f64>::zeros(n, n);
    let mut u = Mat::<f64>::zeros(n, n);
    let mut v = Mat::<f64>::zeros(n, n);
    let mut x = Mat::<f64>::zeros(n, n);
    for _ in 0..max_iter {
        let m_ = Mat::from_fn(n, n, |i, j| {
            0.5 * (z[(i, j)] - u[(i, j)] + yv[(i, j)] - v[(i, j)]) - c[(i, j)] / (2.0 * rho)
        });
        x = proj_a(&m_);
        let z_new = Mat::from_fn(n, n, |i, j| (x[(i, j)] + u[(i, j)]).max(0.0));
        let y_new = psd_part(&(&x + &v))?;
        u = &u + &x - &z_new;
        v = &v + &x - &y_new;
        let change = ((&z_new - &z).norm_l2() + (&y_new - &yv).norm_l2()) * rho;
        z = z_new;
        yv = y_new;
        let primal = (&x - &z).norm_l2() + (&x - &yv).norm_l2();
        if primal < tol && change < tol {
            break;
        }
    }
    let obj = -(0..n)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .map(|(i, j)| c[(i, j)] * x[(i, j)])
        .sum::<f64>();
    Ok((x, obj))
}
