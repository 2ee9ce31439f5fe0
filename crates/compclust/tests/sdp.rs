//! Tests of the SDP-λ / SDP-k solver (`compclust::sdp`): closed-form optima (Perrot et al. 2020, Prop. 1),
//! independent checks on tiny problems, degenerate inputs, warm starts, and agreement with the
//! naive reference ADMM (proptest).

#![allow(clippy::needless_range_loop)] // dense numeric loops over several arrays

use compclust::observe::Observer;
use compclust::sdp::reference::solve_reference;
use compclust::sdp::{
    DEFAULT_STALL_CONE_SHARE, Projection, SdpCheck, SdpError, SdpInfo, SdpParams, SdpProblem,
    solve_sdp, solve_sdp_k, solve_sdp_k_warm, solve_sdp_lambda,
};
use faer::Mat;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Ideal block similarity `S̃ = ZΣZᵀ` (Σ = `a` on the diagonal, `b` off it) plus symmetric
/// uniform noise of amplitude `noise`, for clusters of the given sizes.
fn block_matrix(sizes: &[usize], a: f64, b: f64, noise: f64, seed: u64) -> (Mat<f64>, Vec<usize>) {
    let labels: Vec<usize> = sizes
        .iter()
        .enumerate()
        .flat_map(|(c, &m)| std::iter::repeat_n(c, m))
        .collect();
    let n = labels.len();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut s = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let base = if labels[i] == labels[j] { a } else { b };
            let e = if noise > 0.0 {
                rng.random_range(-noise..noise)
            } else {
                0.0
            };
            s[(i, j)] = base + e;
            s[(j, i)] = base + e;
        }
    }
    (s, labels)
}

/// `Z N⁻¹ Zᵀ`, the normalised clustering matrix of Prop. 1.
fn cluster_matrix(labels: &[usize]) -> Mat<f64> {
    let n = labels.len();
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    Mat::from_fn(n, n, |i, j| {
        if labels[i] == labels[j] {
            1.0 / sizes[labels[i]] as f64
        } else {
            0.0
        }
    })
}

fn max_abs_diff(a: &Mat<f64>, b: &Mat<f64>) -> f64 {
    let mut m = 0.0f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            m = m.max((a[(i, j)] - b[(i, j)]).abs());
        }
    }
    m
}

fn tight() -> SdpParams {
    SdpParams::default().with_tol(1e-7).with_max_iter(50_000)
}

/// The objectives of two solves of the same problem agree to `tol`, relative to `1 + |full|`.
fn assert_same_objective(full: &SdpInfo, other: &SdpInfo, tol: f64) {
    let rel = (full.objective - other.objective).abs() / (1.0 + full.objective.abs());
    assert!(rel < tol, "{} vs {}", full.objective, other.objective);
}

/// Feasibility of `X` for the constraint set: row sums, trace, nonnegativity, PSD.
fn assert_feasible(x: &Mat<f64>, k: Option<usize>, tol: f64) {
    let n = x.nrows();
    for i in 0..n {
        let r: f64 = (0..n).map(|j| x[(i, j)]).sum();
        assert!((r - 1.0).abs() < 1e-8, "row {i} sums to {r}");
        for j in 0..n {
            assert!(x[(i, j)] > -tol, "X[{i},{j}] = {}", x[(i, j)]);
            assert!((x[(i, j)] - x[(j, i)]).abs() < 1e-10);
        }
    }
    if let Some(k) = k {
        let tr: f64 = (0..n).map(|i| x[(i, i)]).sum();
        assert!((tr - k as f64).abs() < 1e-8, "trace {tr} != {k}");
    }
    let ev = x.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
    assert!(ev[0] > -tol, "smallest eigenvalue {}", ev[0]);
}

#[test]
fn sdp_k_recovers_ideal_blocks_prop1() {
    for projection in [Projection::Full, Projection::Adaptive] {
        let (s, labels) = block_matrix(&[12, 9, 7, 14], 1.0, 0.0, 0.0, 1);
        let params = tight().with_projection(projection);
        let sol = solve_sdp_k(s.as_ref(), 4, &params).unwrap();
        assert!(sol.info.converged, "{:?}", sol.info);
        let xs = cluster_matrix(&labels);
        let d = max_abs_diff(&sol.x, &xs);
        assert!(d < 1e-4, "max |X − ZN⁻¹Zᵀ| = {d} ({projection:?})");
        assert!(
            (sol.info.objective - 42.0).abs() < 1e-4,
            "{}",
            sol.info.objective
        );
    }
}

#[test]
fn sdp_k_recovers_noisy_blocks() {
    // Σ_in − Σ_out = 1, noise ±0.3: well inside Prop. 1's regime for n_min = 10.
    let (s, labels) = block_matrix(&[10, 15, 12], 0.8, -0.2, 0.3, 7);
    let sol = solve_sdp_k(s.as_ref(), 3, &tight()).unwrap();
    assert!(sol.info.converged);
    let d = max_abs_diff(&sol.x, &cluster_matrix(&labels));
    assert!(d < 1e-4, "{d}");
}

#[test]
fn sdp_lambda_recovers_ideal_blocks_prop1() {
    // Merging two clusters of sizes p, q pays iff λ > 2(a−b)pq/(p+q) ≥ (a−b)·8 here; splitting
    // never pays for λ > 0. λ = 2 lies inside Prop. 1's interval.
    let (s, labels) = block_matrix(&[8, 10, 9], 1.0, 0.0, 0.0, 3);
    let sol = solve_sdp_lambda(s.as_ref(), 2.0, &tight()).unwrap();
    assert!(sol.info.converged, "{:?}", sol.info);
    let d = max_abs_diff(&sol.x, &cluster_matrix(&labels));
    assert!(d < 1e-4, "{d}");
    assert!((sol.info.trace - 3.0).abs() < 1e-4);
    // Noisy version.
    let (s, labels) = block_matrix(&[8, 10, 9], 1.0, 0.0, 0.2, 4);
    let sol = solve_sdp_lambda(s.as_ref(), 2.0, &tight()).unwrap();
    let d = max_abs_diff(&sol.x, &cluster_matrix(&labels));
    assert!(d < 1e-4, "{d}");
}

#[test]
fn n2_closed_form() {
    // n = 2: X = [[a, 1−a], [1−a, a]] with a ∈ [1/2, 1]. The objective is linear in a.
    let s = Mat::from_fn(2, 2, |i, j| [[0.3, 0.9], [0.9, -0.1]][i][j]);
    // SDP-λ: f(a) = a(0.3 − 0.1) + 2(1−a)0.9 − 2λa; slope 0.2 − 1.8 − 2λ < 0 → a = 1/2.
    let sol = solve_sdp_lambda(s.as_ref(), 0.1, &tight()).unwrap();
    assert!((sol.x[(0, 0)] - 0.5).abs() < 1e-5, "{:?}", sol.x);
    // Negative λ = −1: slope 0.2 − 1.8 + 2 > 0 → a = 1 (X = I).
    let sol = solve_sdp_lambda(s.as_ref(), -1.0, &tight()).unwrap();
    assert!((sol.x[(0, 0)] - 1.0).abs() < 1e-5, "{:?}", sol.x);
    assert!((sol.info.objective - (0.2 + 2.0)).abs() < 1e-5);
    // SDP-k: k = 1 → a = 1/2, k = 2 → a = 1.
    let x1 = solve_sdp_k(s.as_ref(), 1, &tight()).unwrap().x;
    assert!((x1[(0, 1)] - 0.5).abs() < 1e-6);
    let x2 = solve_sdp_k(s.as_ref(), 2, &tight()).unwrap().x;
    assert!((x2[(0, 0)] - 1.0).abs() < 1e-6 && x2[(0, 1)].abs() < 1e-6);
}

/// Brute force over the feasible set of n = 3: symmetric X with row sums 1 is fixed by its
/// off-diagonal entries (x01, x02, x12) ∈ [0,1]³; keep the grid points that are PSD.
fn brute_force_n3(s: &Mat<f64>, lambda: f64, k: Option<f64>) -> f64 {
    let g = 120;
    let mut best = f64::NEG_INFINITY;
    for a in 0..=g {
        for b in 0..=g {
            for c in 0..=g {
                let (x01, x02, x12) = (
                    a as f64 / g as f64,
                    b as f64 / g as f64,
                    c as f64 / g as f64,
                );
                let d = [1.0 - x01 - x02, 1.0 - x01 - x12, 1.0 - x02 - x12];
                if d.iter().any(|&v| v < 0.0) {
                    continue;
                }
                let tr = d[0] + d[1] + d[2];
                if let Some(k) = k
                    && (tr - k).abs() > 1e-9
                {
                    continue;
                }
                // PSD ⇔ all principal minors ≥ 0 (3 × 3, closed form).
                let m2 = [
                    d[0] * d[1] - x01 * x01,
                    d[0] * d[2] - x02 * x02,
                    d[1] * d[2] - x12 * x12,
                ];
                let det = d[0] * (d[1] * d[2] - x12 * x12) - x01 * (x01 * d[2] - x12 * x02)
                    + x02 * (x01 * x12 - d[1] * x02);
                if m2.iter().any(|&v| v < -1e-12) || det < -1e-12 {
                    continue;
                }
                let mut f =
                    -lambda * tr + 2.0 * (s[(0, 1)] * x01 + s[(0, 2)] * x02 + s[(1, 2)] * x12);
                for i in 0..3 {
                    f += s[(i, i)] * d[i];
                }
                best = best.max(f);
            }
        }
    }
    best
}

#[test]
fn n3_against_brute_force() {
    let mut rng = StdRng::seed_from_u64(11);
    for trial in 0..6 {
        let mut s = Mat::<f64>::zeros(3, 3);
        for j in 0..3 {
            for i in j..3 {
                let v = rng.random_range(-1.0..1.0);
                s[(i, j)] = v;
                s[(j, i)] = v;
            }
        }
        let lambda = rng.random_range(-0.5..1.0);
        let sol = solve_sdp_lambda(s.as_ref(), lambda, &tight()).unwrap();
        let bf = brute_force_n3(&s, lambda, None);
        // The grid finds a feasible point, so the SDP optimum is ≥ it (up to the solver tol),
        // and the grid spacing 1/120 bounds how far below the optimum it can be.
        assert!(
            sol.info.objective >= bf - 1e-5,
            "trial {trial}: {} < {bf}",
            sol.info.objective
        );
        assert!(
            sol.info.objective <= bf + 0.05,
            "trial {trial}: {} ≫ {bf}",
            sol.info.objective
        );
        // SDP-k with k = 2 (trace 2 lies on the grid: d sums to 3 − 2Σx = 2 ⇔ Σx = 1/2).
        let sol = solve_sdp_k(s.as_ref(), 2, &tight()).unwrap();
        let bf = brute_force_n3(&s, 0.0, Some(2.0));
        assert!(
            sol.info.objective >= bf - 1e-5,
            "trial {trial}: {} < {bf}",
            sol.info.objective
        );
        assert!(sol.info.objective <= bf + 0.05, "trial {trial}");
        assert_feasible(&sol.x, Some(2), 1e-5);
    }
}

#[test]
fn degenerate_inputs() {
    // All zeros: every feasible X is optimal; the solver must return a feasible one.
    let z = Mat::<f64>::zeros(9, 9);
    for k in [1, 2, 5, 9] {
        let sol = solve_sdp_k(z.as_ref(), k, &SdpParams::default()).unwrap();
        assert!(sol.info.converged);
        assert_feasible(&sol.x, Some(k), 1e-6);
        assert!(sol.info.objective.abs() < 1e-12);
    }
    // k = 1 forces X = 11ᵀ/n and k = n forces X = I, whatever S is.
    let (s, _) = block_matrix(&[5, 6], 1.0, 0.0, 0.5, 2);
    let x1 = solve_sdp_k(s.as_ref(), 1, &tight()).unwrap().x;
    assert!(max_abs_diff(&x1, &Mat::from_fn(11, 11, |_, _| 1.0 / 11.0)) < 1e-5);
    let xn = solve_sdp_k(s.as_ref(), 11, &tight()).unwrap().x;
    assert!(max_abs_diff(&xn, &Mat::<f64>::identity(11, 11)) < 1e-5);
    // n = 1.
    let one = Mat::from_fn(1, 1, |_, _| 3.0);
    let sol = solve_sdp_k(one.as_ref(), 1, &SdpParams::default()).unwrap();
    assert_eq!(sol.x[(0, 0)], 1.0);
    assert_eq!(sol.info.objective, 3.0);
    let sol = solve_sdp_lambda(one.as_ref(), 0.5, &SdpParams::default()).unwrap();
    assert_eq!(sol.info.objective, 2.5);
}

#[test]
fn invalid_inputs_are_errors() {
    let p = SdpParams::default();
    let rect = Mat::<f64>::zeros(3, 4);
    assert!(matches!(
        solve_sdp_k(rect.as_ref(), 1, &p),
        Err(SdpError::NotSquare { .. })
    ));
    let empty = Mat::<f64>::zeros(0, 0);
    assert!(matches!(
        solve_sdp_k(empty.as_ref(), 1, &p),
        Err(SdpError::Empty)
    ));
    let mut asym = Mat::<f64>::zeros(3, 3);
    asym[(0, 1)] = 1.0;
    assert!(matches!(
        solve_sdp_k(asym.as_ref(), 1, &p),
        Err(SdpError::NotSymmetric { .. })
    ));
    let mut nan = Mat::<f64>::zeros(3, 3);
    nan[(2, 2)] = f64::NAN;
    assert!(matches!(
        solve_sdp_k(nan.as_ref(), 1, &p),
        Err(SdpError::NonFinite { .. })
    ));
    let z = Mat::<f64>::zeros(3, 3);
    assert!(matches!(
        solve_sdp_k(z.as_ref(), 0, &p),
        Err(SdpError::InvalidK { .. })
    ));
    assert!(matches!(
        solve_sdp_k(z.as_ref(), 4, &p),
        Err(SdpError::InvalidK { .. })
    ));
    assert!(matches!(
        solve_sdp_lambda(z.as_ref(), f64::INFINITY, &p),
        Err(SdpError::InvalidLambda { .. })
    ));
    for bad in [
        SdpParams::default().with_tol(0.0),
        SdpParams::default().with_tol(1.0),
        SdpParams::default().with_tol(f64::NAN),
        SdpParams::default().with_alpha(2.0),
        SdpParams::default().with_max_iter(0),
        SdpParams::default().with_rho(Some(-1.0)),
        SdpParams::default().with_check_every(0),
        SdpParams::default().with_stall_cone_share(-0.1),
        SdpParams::default().with_stall_cone_share(f64::NAN),
    ] {
        assert!(matches!(
            solve_sdp_k(z.as_ref(), 1, &bad),
            Err(SdpError::InvalidParam { .. })
        ));
    }
    let small = solve_sdp_k(Mat::<f64>::zeros(2, 2).as_ref(), 1, &p).unwrap();
    assert!(matches!(
        solve_sdp_k_warm(z.as_ref(), 1, &p, Some(&small.state)),
        Err(SdpError::WarmStartMismatch { .. })
    ));
}

#[test]
fn warm_start_gives_the_cold_solution() {
    let (s, _) = block_matrix(&[10, 12, 8, 9], 0.7, -0.1, 0.6, 5);
    let params = tight();
    for k in [3, 4, 5] {
        let cold = solve_sdp_k(s.as_ref(), k, &params).unwrap();
        let prev = solve_sdp(s.as_ref(), SdpProblem::K(k - 1), &params, None, None).unwrap();
        let warm = solve_sdp_k_warm(s.as_ref(), k, &params, Some(&prev.state)).unwrap();
        assert!(cold.info.converged && warm.info.converged);
        let rel =
            (cold.info.objective - warm.info.objective).abs() / (1.0 + cold.info.objective.abs());
        assert!(
            rel < 1e-5,
            "k = {k}: {} vs {}",
            cold.info.objective,
            warm.info.objective
        );
    }
    // From an SDP-λ state too (SPUR's X_up → first k).
    let lam = solve_sdp_lambda(s.as_ref(), 3.0, &params).unwrap();
    let warm = solve_sdp_k_warm(s.as_ref(), 4, &params, Some(&lam.state)).unwrap();
    let cold = solve_sdp_k(s.as_ref(), 4, &params).unwrap();
    assert!(
        (cold.info.objective - warm.info.objective).abs()
            < 1e-5 * (1.0 + cold.info.objective.abs())
    );
}

#[test]
fn same_input_same_output() {
    let (s, _) = block_matrix(&[10, 12, 8], 0.7, -0.1, 0.6, 9);
    let a = solve_sdp_k(s.as_ref(), 3, &SdpParams::default()).unwrap();
    let b = solve_sdp_k(s.as_ref(), 3, &SdpParams::default()).unwrap();
    assert_eq!(a.info.iterations, b.info.iterations);
    assert!(max_abs_diff(&a.x, &b.x) == 0.0);
}

/// Every residual check of a solve, as its observer saw them.
#[derive(Default)]
struct Checks(Vec<SdpCheck>);

impl Observer for Checks {
    fn sdp_check(&mut self, check: &SdpCheck) {
        self.0.push(check.clone());
    }
}

/// The observer sees every residual check (every `check_every` iterations), the last one is
/// the state the solve reports, and observing changes nothing.
#[test]
fn observer_sees_every_check_and_changes_nothing() {
    let (s, _) = block_matrix(&[10, 12, 8], 0.7, -0.1, 0.6, 9);
    let mut seen = Checks::default();
    let params = SdpParams::default().with_check_every(5);
    let watched = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, None, Some(&mut seen)).unwrap();
    let plain = solve_sdp_k(s.as_ref(), 3, &params).unwrap();
    assert_eq!(watched.info.iterations, plain.info.iterations);
    assert!(max_abs_diff(&watched.x, &plain.x) == 0.0);
    let seen = seen.0;
    let its: Vec<usize> = seen.iter().map(|c| c.iteration).collect();
    let expected: Vec<usize> = (1..=plain.info.iterations / 5).map(|j| 5 * j).collect();
    assert_eq!(its, expected);
    let last = seen.last().unwrap();
    assert_eq!(last.problem, SdpProblem::K(3));
    assert_eq!(
        (last.primal, last.dual, last.gap),
        (
            plain.info.primal_residual,
            plain.info.dual_residual,
            plain.info.gap
        )
    );
    assert!(plain.info.converged && last.worst() <= last.tol);
    assert!(seen[..seen.len() - 1].iter().all(|c| c.worst() > c.tol));
}

/// Converged, or not converged and saying so: a residual above the tolerance of [`tight`].
///
/// ADMM converges sublinearly on degenerate instances (no strict complementarity): about one
/// random SDP-λ in 1,600 misses 1e-7 within 50,000 iterations. The case found (kept in
/// `sdp.proptest-regressions`) ends with residuals 7e-7 / 3e-6 and its objective within 1e-7
/// of the reference; the objective check that follows still applies. (The SDP-k case saved
/// there was a ρ oscillation, fixed in the solver; that test requires convergence.)
fn converged_or_honest(info: &compclust::sdp::SdpInfo) -> bool {
    info.converged || info.worst() > 1e-7
}

fn sym_strategy() -> impl Strategy<Value = (Mat<f64>, usize)> {
    (2usize..=6).prop_flat_map(|n| {
        (proptest::collection::vec(-1.0f64..1.0, n * n), 1usize..=n).prop_map(move |(v, k)| {
            let s = Mat::from_fn(n, n, |i, j| {
                let (a, b) = (i.min(j), i.max(j));
                v[a * n + b]
            });
            (s, k)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// The fast solver (both projections) agrees with the naive fixed-ρ ADMM.
    #[test]
    fn fast_agrees_with_reference_sdp_k((s, k) in sym_strategy()) {
        let (_, f_ref) = solve_reference(s.as_ref(), SdpProblem::K(k), 1.0, 1e-9, 200_000).unwrap();
        for projection in [Projection::Full, Projection::Adaptive] {
            let sol = solve_sdp_k(s.as_ref(), k, &tight().with_projection(projection)).unwrap();
            prop_assert!(sol.info.converged, "{:?}", sol.info);
            prop_assert!((sol.info.objective - f_ref).abs() <= 1e-4 * (1.0 + f_ref.abs()),
                "fast {} vs reference {}", sol.info.objective, f_ref);
        }
    }

    #[test]
    fn fast_agrees_with_reference_sdp_lambda((s, _k) in sym_strategy(), lambda in -0.5f64..2.0) {
        let (_, f_ref) = solve_reference(s.as_ref(), SdpProblem::Lambda(lambda), 1.0, 1e-9, 200_000).unwrap();
        let sol = solve_sdp_lambda(s.as_ref(), lambda, &tight()).unwrap();
        prop_assert!(converged_or_honest(&sol.info));
        prop_assert!((sol.info.objective - f_ref).abs() <= 1e-4 * (1.0 + f_ref.abs()),
            "fast {} vs reference {}", sol.info.objective, f_ref);
    }
}

#[test]
fn adaptive_projection_matches_full_and_is_used() {
    // n = 120, k = 3: the positive part of W is low rank, so the block subspace path runs.
    let (s, labels) = block_matrix(&[40, 45, 35], 0.6, -0.1, 0.8, 21);
    let full = solve_sdp_k(s.as_ref(), 3, &tight().with_projection(Projection::Full)).unwrap();
    let adaptive = solve_sdp_k(
        s.as_ref(),
        3,
        &tight().with_projection(Projection::Adaptive),
    )
    .unwrap();
    assert!(full.info.converged && adaptive.info.converged);
    assert!(adaptive.info.eig_partial > 0, "{:?}", adaptive.info);
    assert!(adaptive.info.eig_full < adaptive.info.iterations);
    assert_same_objective(&full.info, &adaptive.info, 1e-6);
    assert!(max_abs_diff(&adaptive.x, &cluster_matrix(&labels)) < 1e-4);
    assert_feasible(&adaptive.x, Some(3), 1e-6);
    // k above the truth: X_k is high rank; the solver must still converge to the same optimum.
    let full = solve_sdp_k(s.as_ref(), 5, &tight().with_projection(Projection::Full)).unwrap();
    let adaptive = solve_sdp_k(
        s.as_ref(),
        5,
        &tight().with_projection(Projection::Adaptive),
    )
    .unwrap();
    assert_same_objective(&full.info, &adaptive.info, 1e-5);
}

/// `SdpInfo::projection_seconds` accounts for the steps that ran: a solve with full
/// projections only spends nothing in partial ones and something in each step of the full
/// ones, an adaptive solve spends time in partial ones, and the steps never add up to more
/// than the solve.
#[test]
fn projection_seconds_account_for_the_steps_that_ran() {
    let (s, _) = block_matrix(&[40, 45, 35], 0.6, -0.1, 0.8, 21);
    let full = solve_sdp_k(s.as_ref(), 3, &tight().with_projection(Projection::Full)).unwrap();
    let t = full.info.projection_seconds;
    assert!(full.info.eig_full > 0 && full.info.eig_partial == 0);
    assert_eq!(t.partial, 0.0, "{t:?}");
    for (step, v) in [
        ("reduction", t.reduction),
        ("tridiagonal", t.tridiagonal),
        ("back_transformation", t.back_transformation),
        ("assembly", t.assembly),
    ] {
        assert!(v > 0.0, "{step}: {t:?}");
    }
    let adaptive = solve_sdp_k(
        s.as_ref(),
        3,
        &tight().with_projection(Projection::Adaptive),
    )
    .unwrap();
    let a = adaptive.info.projection_seconds;
    assert!(adaptive.info.eig_partial > 0 && a.partial > 0.0, "{a:?}");
    for (info, t) in [(&full.info, t), (&adaptive.info, a)] {
        let sum = t.partial + t.reduction + t.tridiagonal + t.back_transformation + t.assembly;
        assert!(sum <= info.seconds, "{t:?} against {} s", info.seconds);
    }
}

/// The checks at which the stall clock of `stall_iters = 1` has run out (`docs/SOLVER.md`,
/// "Stalled partial projections", written out from the rule): partial projections since the
/// previous check, and the worst measure not halved since it last halved.
fn stalled_checks(checks: &[SdpCheck]) -> Vec<&SdpCheck> {
    let (mut best, mut partial_before) = (f64::INFINITY, 0);
    let mut out = Vec::new();
    for c in checks {
        let partial = c.eig_partial > partial_before;
        partial_before = c.eig_partial;
        if c.worst() <= 0.5 * best {
            best = c.worst();
        } else if partial {
            out.push(c);
        }
    }
    out
}

/// The first check after partial projections from which the solve projected by full
/// eigendecompositions at every iteration up to the next check: where its first trial of
/// exact projections began (the cold start's full projections come before any partial one).
fn first_exact_stretch(checks: &[SdpCheck]) -> Option<usize> {
    checks.windows(2).find_map(|w| {
        let iterations = w[1].iteration - w[0].iteration;
        let exact = w[1].eig_full - w[0].eig_full >= iterations;
        (w[0].eig_partial > 0 && exact).then_some(w[0].iteration)
    })
}

/// The planted problem of the two stall tests: its partial projections are accurate, and its
/// worst measure does not halve between some checks.
fn stall_problem() -> (Mat<f64>, Vec<usize>) {
    block_matrix(&[40, 45, 35], 0.6, -0.1, 0.8, 21)
}

#[test]
fn stalled_partial_projections_finish_with_full_ones() {
    // `stall_iters = 1` and no share of the measure required of the projection error: the
    // first check after partial projections whose worst measure did not halve starts a trial
    // of full eigendecompositions, and the measure halves at the next check, so the solve
    // keeps them from the trial's start. It must reach the optimum of the full solve and make
    // only full projections from then on.
    let (s, labels) = stall_problem();
    let full = solve_sdp_k(s.as_ref(), 3, &tight().with_projection(Projection::Full)).unwrap();
    let params = tight().with_stall_iters(1).with_stall_cone_share(0.0);
    let mut seen = Checks::default();
    let switched = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, None, Some(&mut seen)).unwrap();
    let from = switched.info.full_from.expect("the switch happened");
    assert_eq!(from, stalled_checks(&seen.0)[0].iteration);
    assert_eq!(switched.info.trials_returned, 0);
    assert!(switched.info.converged, "{:?}", switched.info);
    assert!(switched.info.eig_partial > 0 && from < switched.info.iterations);
    assert!(
        switched.info.eig_full >= switched.info.iterations - from,
        "{:?}",
        switched.info
    );
    assert_same_objective(&full.info, &switched.info, 1e-6);
    assert!(max_abs_diff(&switched.x, &cluster_matrix(&labels)) < 1e-4);
    assert_feasible(&switched.x, Some(3), 1e-6);
    // Never with 0, nor at the default: on this well-conditioned problem the partial
    // projections do not stall.
    for params in [tight().with_stall_iters(0), tight()] {
        let sol = solve_sdp_k(s.as_ref(), 3, &params).unwrap();
        assert!(sol.info.converged && sol.info.eig_partial > 0);
        assert_eq!(sol.info.full_from, None, "{:?}", sol.info);
    }
}

#[test]
fn a_trial_that_does_not_speed_up_a_slow_tail_returns_to_partial_projections() {
    // A noisier planted problem whose tail ADMM's own rate sets: 1,220 iterations to 1e-7,
    // the worst measure not halving for 30 iterations at many checks. With the clock at 30
    // iterations, no share required and trials of 20 iterations, every trial of exact
    // projections ends without the measure halving, and the solve returns to the partial
    // ones; without trials the first stall keeps the full eigendecompositions to the end.
    let (s, _) = block_matrix(&[40, 45, 35], 0.6, -0.1, 2.5, 21);
    let plain = solve_sdp_k(s.as_ref(), 3, &tight()).unwrap();
    let stalls = tight().with_stall_iters(30).with_stall_cone_share(0.0);
    let trials = stalls.clone().with_stall_trial_iters(20);
    let mut seen = Checks::default();
    let tried = solve_sdp(s.as_ref(), SdpProblem::K(3), &trials, None, Some(&mut seen)).unwrap();
    assert!(tried.info.converged, "{:?}", tried.info);
    assert_eq!(tried.info.full_from, None, "{:?}", tried.info);
    assert!(tried.info.trials_returned >= 2, "{:?}", tried.info);
    // Each trial cost at most its 20 iterations and the check after it in full projections.
    let trial_cost = 21 * tried.info.trials_returned;
    assert!(
        tried.info.eig_full <= plain.info.eig_full + trial_cost,
        "{:?}\n{:?}",
        tried.info,
        plain.info
    );
    assert_same_objective(&plain.info, &tried.info, 1e-6);
    // Stopped by `max_iter` halfway through the first trial, the solve reports the full
    // eigendecompositions it was making from the trial's start.
    let first = first_exact_stretch(&seen.0).expect("a trial ran");
    let cut = trials.with_max_iter(first + 10);
    let stopped = solve_sdp_k(s.as_ref(), 3, &cut).unwrap();
    assert!(!stopped.info.converged, "{:?}", stopped.info);
    assert_eq!(stopped.info.full_from, Some(first), "{:?}", stopped.info);
    assert_eq!(stopped.info.trials_returned, 0);
    let kept = solve_sdp_k(s.as_ref(), 3, &stalls.with_stall_trial_iters(0)).unwrap();
    let from = kept.info.full_from.expect("the first stall keeps them");
    assert!(
        kept.info.eig_full >= kept.info.iterations - from,
        "{:?}",
        kept.info
    );
    assert_eq!(kept.info.trials_returned, 0);
    assert_same_objective(&plain.info, &kept.info, 1e-6);
}

#[test]
fn accurate_partial_projections_keep_a_slow_tail() {
    // The same stall clock (`stall_iters = 1`) at the default share: the clock runs out at
    // several checks (the test above switches at the first), but the partial projections'
    // error stays below that share of the worst measure there, so the solve keeps them, as it
    // must where exact projections would take as many iterations at many times the cost.
    let (s, labels) = stall_problem();
    let params = tight().with_stall_iters(1);
    assert_eq!(params.stall_cone_share, DEFAULT_STALL_CONE_SHARE);
    let mut seen = Checks::default();
    let kept = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, None, Some(&mut seen)).unwrap();
    assert!(kept.info.converged, "{:?}", kept.info);
    assert_eq!(kept.info.full_from, None, "{:?}", kept.info);
    let stalled = stalled_checks(&seen.0);
    assert!(stalled.len() >= 2, "{} stalled checks", stalled.len());
    for c in stalled {
        assert!(c.cone < DEFAULT_STALL_CONE_SHARE * c.worst(), "{c}");
    }
    assert!(max_abs_diff(&kept.x, &cluster_matrix(&labels)) < 1e-4);
    let plain = solve_sdp_k(s.as_ref(), 3, &tight()).unwrap();
    assert_eq!(kept.info.iterations, plain.info.iterations);
    assert!(max_abs_diff(&kept.x, &plain.x) == 0.0);
}

#[test]
fn trace_is_non_increasing_in_lambda_lemma1() {
    // Perrot et al. 2020, App. D, Lemma 1.
    let (s, _) = block_matrix(&[10, 12, 8, 9], 1.0, 0.0, 0.9, 13);
    let mut last = f64::INFINITY;
    for lambda in [0.0, 1.0, 2.5, 4.0, 6.0, 9.0, 14.0] {
        let sol = solve_sdp_lambda(s.as_ref(), lambda, &tight()).unwrap();
        assert!(sol.info.converged);
        assert!(
            sol.info.trace <= last + 1e-4,
            "λ = {lambda}: {} > {last}",
            sol.info.trace
        );
        last = sol.info.trace;
    }
}

/// A 4 × 4 SDP-k (from a proptest failure) on which residual balancing flipped ρ between two
/// values for ever: residuals 6e-3 / 4e-2 after 500,000 iterations, while fixed-ρ ADMM needs
/// ≈ 300. With reversals damped it converges and agrees with the reference.
#[test]
fn rho_oscillation_is_damped() {
    let v = [
        [
            0.8569318616527396,
            0.0,
            -0.11627570886754242,
            -0.17556909141068527,
        ],
        [
            0.0,
            0.9850636534127898,
            0.731507479147217,
            -0.9360840468916457,
        ],
        [
            -0.11627570886754242,
            0.731507479147217,
            0.46136094235523517,
            0.4400478309670594,
        ],
        [
            -0.17556909141068527,
            -0.9360840468916457,
            0.4400478309670594,
            0.0,
        ],
    ];
    let s = Mat::from_fn(4, 4, |i, j| v[i][j]);
    let (_, f_ref) = solve_reference(s.as_ref(), SdpProblem::K(2), 1.0, 1e-9, 200_000).unwrap();
    let sol = solve_sdp_k(s.as_ref(), 2, &tight()).unwrap();
    assert!(sol.info.converged, "{:?}", sol.info);
    assert!(sol.info.iterations < 5_000, "{:?}", sol.info);
    assert!((sol.info.objective - f_ref).abs() <= 1e-6 * (1.0 + f_ref.abs()));
}
