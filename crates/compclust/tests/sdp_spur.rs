//! Tests of SPUR (Perrot et al. 2020, App. D, Algorithm 2): the right k on clear block structure and on the
//! paper's planted model (small n, fixed seeds), the λ range, and input errors.

#![allow(clippy::needless_range_loop)] // dense numeric loops over several arrays

use compclust::models::flat::{Family, PlantedFlat};
use compclust::sdp::spur::{
    DEFAULT_REFINE_TOL, LambdaScale, SpurParams, SpurResult, THETA_PER_RESIDUAL, guess_tighten_tol,
    probe_tol, spur, spur_theta, spur_theta_naive,
};
use compclust::sdp::spur_refine::{self, Next, Theta};
use compclust::sdp::{SdpError, SdpParams};
use compclust::simulate::sample_triplets;
use faer::Mat;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn noisy_blocks(sizes: &[usize], noise: f64, seed: u64) -> Mat<f64> {
    let labels: Vec<usize> = sizes
        .iter()
        .enumerate()
        .flat_map(|(c, &m)| std::iter::repeat_n(c, m))
        .collect();
    let n = labels.len();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut s = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        for i in (j + 1)..n {
            let v =
                if labels[i] == labels[j] { 1.0 } else { 0.0 } + rng.random_range(-noise..noise);
            s[(i, j)] = v;
            s[(j, i)] = v;
        }
    }
    s
}

#[test]
fn spur_picks_k_on_clear_blocks() {
    // 4 clusters of 15; merging two clusters pays only for λ > (a−b)·15 = 15 (paper scaling).
    // c = 500 comparisons, n = 60, published scaling: 2λ_min ≈ 11.7 < 15 < 2λ_max ≈ 16.7.
    let s = noisy_blocks(&[15, 15, 15, 15], 0.3, 1);
    let mut calls = Vec::new();
    let mut cb = |d: usize, t: usize| calls.push((d, t));
    let res = spur(s.as_ref(), 500, &SpurParams::default(), Some(&mut cb)).unwrap();
    assert_eq!(res.k_hat, 4, "table: {:?}", res.table);
    assert_eq!(res.lambda_rows.len(), 2);
    assert_eq!(res.lambda_rows[0].k, 4);
    assert!((res.lambda_min - (500.0f64 * 60f64.ln() / 60.0).sqrt()).abs() < 1e-12);
    assert!((res.lambda_max - 500.0 / 60.0).abs() < 1e-12);
    assert_eq!(res.table.first().map(|r| r.k), Some(2));
    let best = res.table.iter().find(|r| r.k == 4).unwrap();
    assert!(best.theta > 0.99 && best.info.converged);
    // θ stops the scan at k = 4; the progress callback saw every solve (k = 4 came first, and
    // the coarser solves of k = 2 and 3 beside it may have been solved again).
    assert_eq!(res.table.last().map(|r| r.k), Some(4));
    let solves = 2 + res.table.iter().map(|r| r.solves).sum::<usize>();
    assert!(res.table.iter().all(|r| r.solves >= 1));
    assert!(calls.len() >= solves);
    assert_eq!(calls.last(), Some(&(solves, solves)));
    // Without early stopping the whole range is scanned and the argmax is still 4.
    let res = spur(
        s.as_ref(),
        500,
        &SpurParams::default().with_theta_stop(None),
        None,
    )
    .unwrap();
    assert_eq!(res.k_hat, 4);
    assert_eq!(res.table.last().map(|r| r.k), Some(6));
    assert!((spur_theta(res.x.as_ref(), 4).unwrap() - 1.0).abs() < 1e-3);
}

/// The paper's planted model (k = 3, NormalNormal, δ = 0.5) on `n` items with the given model
/// seed, `m` triplets answered at ε = 0.75 with the given sampling seed, and their AddS-3.
fn planted_adds3(n: usize, m: usize, model_seed: u64, sample_seed: u64) -> (PlantedFlat, Mat<f64>) {
    let model = PlantedFlat::new(n, 3, Family::NormalNormal, 0.5, model_seed).unwrap();
    let triplets = sample_triplets(&model, m, 0.75, sample_seed).unwrap();
    let s = compclust::similarity::adds3(n, &triplets).unwrap();
    (model, s)
}

#[test]
fn spur_on_planted_triplets() {
    // The paper's model (NormalNormal, δ = 0.5, ε = 0.75) at small n: n = 60, k = 3,
    // m = n (ln n)^4 ≈ 1.0e6 is more than all triplets, so use 40 000 (39 % of all).
    let m = 40_000;
    let (model, s) = planted_adds3(60, m, 7, 8);
    let res = spur(s.as_ref(), m, &SpurParams::default(), None).unwrap();
    assert_eq!(res.k_hat, 3, "table: {:?}", res.table);
    // n = 60 is below the exact-recovery regime, so X_k̂ is not exactly ZN⁻¹Zᵀ, but every row
    // puts more of its mass on its own planted cluster than on any other one: the partition
    // "row → heaviest planted block" is the planted partition.
    let labels = model.labels();
    for i in 0..60 {
        let mut mass = [0.0f64; 3];
        for j in 0..60 {
            mass[labels[j]] += res.x[(i, j)];
        }
        let own = mass[labels[i]];
        for (c, &m) in mass.iter().enumerate() {
            assert!(
                c == labels[i] || m < own,
                "row {i}: masses {mass:?}, label {}",
                labels[i]
            );
        }
    }
}

#[test]
fn spur_paper_scaling_and_errors() {
    let s = noisy_blocks(&[12, 12, 12], 0.2, 3);
    // Paper scaling: λ is not doubled; with c = 300, λ_min ≈ 8.4 and λ_max ≈ 8.3·... still
    // brackets the merge threshold 12 from below/above? λ_max = 300/36 ≈ 8.3 < 12, so k_up = 3.
    let res = spur(
        s.as_ref(),
        300,
        &SpurParams::default().with_lambda_scale(LambdaScale::Paper),
        None,
    )
    .unwrap();
    assert_eq!(res.lambda_rows[1].lambda, Some(300.0 / 36.0));
    assert_eq!(res.table.first().map(|r| r.k), Some(3));
    assert_eq!(res.k_hat, 3);
    let one = Mat::<f64>::zeros(1, 1);
    assert!(matches!(
        spur(one.as_ref(), 10, &SpurParams::default(), None),
        Err(SdpError::InvalidK { .. })
    ));
    let bad = SpurParams::default().with_sdp(SdpParams::default().with_tol(-1.0));
    assert!(matches!(
        spur(s.as_ref(), 10, &bad, None),
        Err(SdpError::InvalidParam { .. })
    ));
    assert!("published".parse::<LambdaScale>().is_ok());
    assert!("nope".parse::<LambdaScale>().is_err());
}

/// A near-PSD matrix like an SDP solution: `Σ d_i u_i u_iᵀ` over `r` random orthonormal
/// directions with weights in [0.05, 1] (ties allowed), plus symmetric noise of size `noise`.
fn near_psd(n: usize, r: usize, ties: bool, noise: f64, seed: u64) -> Mat<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let g = Mat::<f64>::from_fn(n, r, |_, _| rng.random_range(-1.0..1.0));
    let u = g.qr().compute_thin_Q();
    let d: Vec<f64> = (0..r)
        .map(|i| {
            if ties && i % 2 == 1 {
                0.5
            } else {
                rng.random_range(0.05..1.0)
            }
        })
        .collect();
    let mut x = Mat::<f64>::from_fn(n, n, |i, j| {
        (0..r).map(|c| d[c] * u[(i, c)] * u[(j, c)]).sum()
    });
    for j in 0..n {
        for i in 0..=j {
            let e = rng.random_range(-noise..=noise);
            x[(i, j)] += e;
            if i != j {
                x[(j, i)] += e;
            }
        }
    }
    x
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// θ from the subspace iteration agrees with θ from all eigenvalues (the formula), on
    /// near-PSD matrices of every rank around k (below, at and above it, with tied weights).
    #[test]
    fn spur_theta_agrees_with_the_full_eigendecomposition(
        n in 40usize..110,
        k in 1usize..6,
        extra in 0usize..12,
        ties in any::<bool>(),
        noise in prop::sample::select(vec![0.0, 1e-9, 1e-6]),
        seed in 0u64..10_000,
        exact in any::<bool>(),
    ) {
        let r = (k + extra).saturating_sub(3).max(1).min(n);
        let mut x = near_psd(n, r, ties, noise, seed);
        // Both paths of `spur_theta`: a bitwise symmetric X (used as it is), and one with a
        // skew part (1e-7, which θ of the symmetric part must ignore).
        for j in 0..n {
            for i in j + 1..n {
                if exact {
                    x[(j, i)] = x[(i, j)];
                } else {
                    x[(j, i)] += 1e-7 * (((i * 7 + j * 13) % 5) as f64 - 2.0);
                }
            }
        }
        let fast = spur_theta(x.as_ref(), k).unwrap();
        let naive = spur_theta_naive(x.as_ref(), k).unwrap();
        prop_assert!((fast - naive).abs() <= 1e-8, "fast {fast} naive {naive}");
    }
}

/// θ of SPUR's own solution on the paper's planted model, both ways.
#[test]
fn spur_theta_of_a_spur_solution_matches_the_formula() {
    let m = 60_000;
    let (_, s) = planted_adds3(150, m, 3, 4);
    let res = spur(
        s.as_ref(),
        m,
        &SpurParams::default().with_theta_stop(None),
        None,
    )
    .unwrap();
    // The solver returns a bitwise symmetric X, which `spur_theta` uses without a copy.
    assert!((0..150).all(|j| (0..150).all(|i| res.x[(i, j)] == res.x[(j, i)])));
    for k in 1..=6 {
        let fast = spur_theta(res.x.as_ref(), k).unwrap();
        let naive = spur_theta_naive(res.x.as_ref(), k).unwrap();
        assert!((fast - naive).abs() <= 1e-8, "k = {k}: {fast} vs {naive}");
    }
}

/// One SPUR scan driven by [`spur_refine::next_step`] over the accurate values `accurate`,
/// whose loose values `loose` lie within the uncertainties: the scan may start with any k
/// (`first`, as SPUR starts with its guess `k_λmin`, then solves downwards from it as
/// [`spur_refine::solve_next`] says), `Solve` reveals a loose value, `Refine`
/// replaces loose values by accurate ones. Returns the values it ended with.
fn drive(
    accurate: &[f64],
    loose: &[Theta],
    first: Option<usize>,
    stop: Option<f64>,
) -> Vec<Option<Theta>> {
    let mut rows: Vec<Option<Theta>> = vec![None; accurate.len()];
    if let Some(f) = first {
        rows[f] = Some(loose[f]);
    }
    loop {
        match spur_refine::next_step(&rows, stop) {
            Next::Done => return rows,
            Next::Solve(i) => {
                // In SPUR's order: downwards from the first solve, then upwards.
                let i = first.map_or(i, |g| spur_refine::solve_next(&rows, stop, i, g));
                assert!(rows[i].is_none(), "a solved k is never solved again");
                rows[i] = Some(loose[i]);
            }
            Next::Refine(todo) => {
                assert!(!todo.is_empty());
                for i in todo {
                    let r = rows[i].expect("only solved rows are refined");
                    assert!(r.uncertainty > 0.0, "an accurate solve is never redone");
                    rows[i] = Some(Theta {
                        theta: accurate[i],
                        uncertainty: 0.0,
                    });
                }
            }
        }
    }
}

proptest! {
    /// Whenever every loose θ lies within its uncertainty of the accurate one, SPUR with
    /// tightening on demand picks the k̂ of the scan on the accurate values (early stop or not),
    /// whichever k it solves first.
    #[test]
    fn refining_on_demand_picks_the_accurate_k_hat(
        cases in proptest::collection::vec((0.5f64..1.0, 0u8..5, -1.0f64..1.0), 1..7),
        first in proptest::option::of(0usize..7),
        stop in proptest::option::of(0.9f64..0.999),
    ) {
        let accurate: Vec<f64> = cases.iter().map(|c| c.0).collect();
        let loose: Vec<Theta> = cases
            .iter()
            .map(|&(theta, w, shift)| {
                let u = [0.0, 1e-4, 3e-3, 0.05, 0.2][w as usize];
                Theta { theta: theta + shift * u, uncertainty: u }
            })
            .collect();
        let exact: Vec<Option<Theta>> = accurate
            .iter()
            .map(|&theta| Some(Theta { theta, uncertainty: 0.0 }))
            .collect();
        let want = spur_refine::decide(&exact, stop).unwrap();
        let first = first.filter(|&f| f < accurate.len());
        let rows = drive(&accurate, &loose, first, stop);
        let got = spur_refine::decide(&rows, stop).unwrap();
        prop_assert_eq!(got.leader, want.leader, "rows {:?}", rows);
        // Every k up to the end is solved, and no other θ can reach the leader's (exact ties
        // give 0).
        prop_assert!(rows[..=got.end].iter().all(Option::is_some), "rows {:?}", rows);
        let margin = spur_refine::margin(&rows, got);
        prop_assert!(margin >= 0.0, "margin {} rows {:?}", margin, rows);
    }
}

/// The paper's planted model at n = 200 (k = 3) with 60,000 triplets: the comparison count, the
/// AddS-3 similarity, and SPUR's single pass at the default tolerance over the whole range.
fn planted_200_accurately() -> (usize, Mat<f64>, SpurResult) {
    let m = 60_000;
    let (_, s) = planted_adds3(200, m, 3, 4);
    let accurate = spur(
        s.as_ref(),
        m,
        &SpurParams::default()
            .with_refine_tol(None)
            .with_theta_stop(None),
        None,
    )
    .unwrap();
    (m, s, accurate)
}

/// The paper's planted model at n = 200 (k = 3): SPUR with a loose first pass finds the k̂ of
/// the accurate scan, reports which solves it tightened, and keeps every loose θ within the
/// uncertainty it claims (checked against an accurate solve of each).
#[test]
fn spur_refine_matches_the_accurate_scan_on_planted_triplets() {
    let (m, s, accurate) = planted_200_accurately();
    // The default first pass, and a coarser one whose probes are solved at the same tolerance.
    for (refine, stop) in [DEFAULT_REFINE_TOL, 1e-2]
        .into_iter()
        .flat_map(|t| [(t, Some(0.99)), (t, None)])
    {
        let probe = probe_tol(refine);
        let res = spur(
            s.as_ref(),
            m,
            &SpurParams::default()
                .with_refine_tol(Some(refine))
                .with_theta_stop(stop),
            None,
        )
        .unwrap();
        assert_eq!(res.k_hat, accurate.k_hat, "table {:?}", res.table);
        assert!(res.margin >= 0.0, "margin {}", res.margin);
        for row in &res.table {
            let exact = accurate.table.iter().find(|r| r.k == row.k).unwrap();
            if row.theta_loose.is_some() {
                assert_eq!(row.tol, 1e-4);
                assert!(
                    (row.theta - exact.theta).abs() < 1e-3,
                    "{row:?} vs {exact:?}"
                );
            } else {
                assert!(row.tol == refine || row.tol == probe, "{row:?}");
                assert!(row.theta_uncertainty > 0.0);
                assert!(
                    (row.theta - exact.theta).abs() <= row.theta_uncertainty,
                    "{row:?} vs {exact:?}"
                );
            }
        }
    }
}

/// From `SpurParams::guess_tighten_n` items on (lowered here to the test's size), a guess whose
/// loose θ is above the stop but not surely is tightened to `guess_tighten_tol` instead of
/// probing the k past it: the same k̂ as the accurate scan and the probing one, the guess solved
/// twice and now surely above the stop, nothing past it solved.
#[test]
fn a_tightened_guess_ends_the_scan_without_probes() {
    let (m, s, accurate) = planted_200_accurately();
    let probing = spur(s.as_ref(), m, &SpurParams::default(), None).unwrap();
    let tightening = spur(
        s.as_ref(),
        m,
        &SpurParams::default().with_guess_tighten_n(0),
        None,
    )
    .unwrap();
    assert_eq!(probing.k_hat, accurate.k_hat);
    assert_eq!(tightening.k_hat, accurate.k_hat);
    let guess = tightening.lambda_rows[0].k;
    let loose = probing.table.iter().find(|r| r.k == guess).unwrap();
    assert!(
        loose.theta > 0.99 && loose.theta - loose.theta_uncertainty <= 0.99,
        "the case needs a guess above the stop but not surely: {loose:?}"
    );
    assert!(probing.table.iter().any(|r| r.k > guess), "the probes ran");
    let row = tightening.table.iter().find(|r| r.k == guess).unwrap();
    assert_eq!(row.tol, guess_tighten_tol(0.99, THETA_PER_RESIDUAL, 1e-4));
    assert_eq!(row.solves, 2);
    assert!(row.theta - row.theta_uncertainty > 0.99, "{row:?}");
    assert!(
        tightening.table.iter().all(|r| r.k <= guess),
        "{:?}",
        tightening.table
    );
}

/// A lean SPUR run (`SdpParams::lean_n`, lowered here to the test's size: `C` formed column by
/// column, warm-start states and the leader's solution kept in single precision) finds the
/// k̂ of the default run, solves the same k, and its θ stay within the uncertainty each
/// loose θ claims (the same accurate θ to 1e-6 where both runs solved a k to `sdp.tol`).
#[test]
fn a_lean_spur_run_decides_as_the_default_one() {
    let m = 60_000;
    let (_, s) = planted_adds3(200, m, 3, 4);
    let plain = spur(s.as_ref(), m, &SpurParams::default(), None).unwrap();
    let lean_params = SpurParams::default().with_sdp(SdpParams::default().with_lean_n(0));
    let lean = spur(s.as_ref(), m, &lean_params, None).unwrap();
    assert_eq!(lean.k_hat, plain.k_hat);
    let ks = |r: &SpurResult| r.table.iter().map(|r| r.k).collect::<Vec<_>>();
    assert_eq!(ks(&lean), ks(&plain));
    for (a, b) in lean.table.iter().zip(&plain.table) {
        let slack = if a.tol > 1e-4 || b.tol > 1e-4 {
            a.theta_uncertainty + b.theta_uncertainty
        } else {
            1e-6
        };
        assert!((a.theta - b.theta).abs() <= slack, "{a:?}\n{b:?}");
    }
    let n = s.nrows();
    let mut d = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            d = d.max((lean.x[(i, j)] - plain.x[(i, j)]).abs());
        }
    }
    assert!(d < 1e-2 / n as f64, "X_k̂ differs by {d}");
}
