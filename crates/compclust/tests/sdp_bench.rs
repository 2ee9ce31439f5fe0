//! One-off benchmark of SDP-k and SPUR at the paper's default (n = 1000, k = 4, δ = 0.5,
//! NormalNormal, ε = 0.75, m = n (ln n)³ ≈ 330k triplets, AddS-3). Ignored by default; run once
//! in release and record the output in `docs/benchmarks/sdp.md`:
//!
//! ```text
//! cargo test --release -p compclust --test sdp_bench -- --ignored --nocapture
//! ```
//! Optional: `SDP_BENCH_N=2000` changes n; `SDP_BENCH_COLD=adaptive,full` adds cold SDP-k solves.

#![allow(clippy::needless_range_loop)] // dense numeric loops over several arrays

use compclust::models::flat::{Family, PlantedFlat};
use compclust::sdp::spur::{SpurParams, spur};
use compclust::sdp::{Projection, SdpParams, solve_sdp_k};
use compclust::simulate::sample_triplets;
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    compclust::limits::peak_resident_memory().map_or(f64::NAN, |b| b as f64 / (1 << 20) as f64)
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn bench_paper_default() {
    let n: usize = std::env::var("SDP_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let k = 4;
    let m = (n as f64 * (n as f64).ln().powi(3)).round() as usize;
    let t0 = Instant::now();
    let model = PlantedFlat::new(n, k, Family::NormalNormal, 0.5, 1).unwrap();
    let triplets = sample_triplets(&model, m, 0.75, 2).unwrap();
    let s = compclust::similarity::adds3(n, &triplets).unwrap();
    drop(triplets);
    println!(
        "n = {n}, m = {m}: simulate + AddS-3 {:.2} s",
        t0.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let mut cb = |d: usize, tot: usize| {
        println!(
            "  [{:.1} s] SPUR solve {d}/{tot}",
            t.elapsed().as_secs_f64()
        )
    };
    let res = spur(s.as_ref(), m, &SpurParams::default(), Some(&mut cb)).unwrap();
    println!(
        "SPUR: {:.2} s, k_hat = {}, lambda_min = {:.1}, lambda_max = {:.1}",
        t.elapsed().as_secs_f64(),
        res.k_hat,
        res.lambda_min,
        res.lambda_max
    );
    for r in res.lambda_rows.iter().chain(&res.table) {
        let i = &r.info;
        println!(
            "  {}: k {} theta {:.4} | {:.2} s, {} it, full {}, partial {}, converged {}",
            i.problem,
            r.k,
            r.theta,
            i.seconds,
            i.iterations,
            i.eig_full,
            i.eig_partial,
            i.converged
        );
    }
    let labels = model.labels();
    // Row → heaviest planted block agreement (the partition itself is the flat module's).
    let mut agree = 0;
    for i in 0..n {
        let mut mass = vec![0.0f64; k];
        for j in 0..n {
            mass[labels[j]] += res.x[(i, j)];
        }
        let best = (0..k).max_by(|&a, &b| mass[a].total_cmp(&mass[b])).unwrap();
        agree += usize::from(best == labels[i]);
    }
    println!("rows whose heaviest block is their planted cluster: {agree}/{n}");
    // Cold SDP-k solves (slow: the true-k solve is degenerate, `docs/OVERLAP.md`): opt-in with
    // SDP_BENCH_COLD=adaptive,full.
    let cold = std::env::var("SDP_BENCH_COLD").unwrap_or_default();
    for projection in [Projection::Adaptive, Projection::Full] {
        if !cold.contains(&format!("{projection:?}").to_lowercase()) {
            continue;
        }
        let p = SdpParams::default().with_projection(projection);
        let t = Instant::now();
        let sol = solve_sdp_k(s.as_ref(), k, &p).unwrap();
        let i = &sol.info;
        println!(
            "SDP-k k={k} cold {projection:?}: {:.2} s, {} it, full EVD {}, partial {}, converged {}, \
             res {:.1e}/{:.1e}/{:.1e}, cone {:.1e}, obj {:.6}",
            t.elapsed().as_secs_f64(),
            i.iterations,
            i.eig_full,
            i.eig_partial,
            i.converged,
            i.primal_residual,
            i.dual_residual,
            i.gap,
            i.cone_residual,
            i.objective
        );
    }

    println!("peak RSS {:.0} MB", peak_rss_mb());
}
