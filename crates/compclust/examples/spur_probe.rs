//! Diagnostics for the SDP solver along SPUR on the paper's default planted model (Perrot et al. 2020, §5):
//! prints every SDP solve (problem, iterations, full/partial eigendecompositions, residuals,
//! seconds, and in brackets the milliseconds of each step of its projections,
//! `SdpInfo::projection_seconds`) and k̂; `lambda` runs only the cold SDP-λ_low solve (for profiling; same `SDP_*` knobs). `cargo run --release -p compclust --example spur_probe -- 1000 0`
//! (arguments: n, seed, optional `quad` for quadruplets / AddS-4).

use compclust::data::{Comparisons, Dataset};
use compclust::flat::kmeans::{KMeansParams, Points, kmeans};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::models::flat::{Family, PlantedFlat};
use compclust::sdp::spur::{SpurParams, spur};
use compclust::similarity::{self, SimilarityKind};
use compclust::simulate::{sample_quadruplets, sample_triplets};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let quad = args.iter().any(|a| a == "quad");
    let model = PlantedFlat::new(n, 4, Family::NormalNormal, 0.5, seed).expect("model");
    let m = (n as f64 * (n as f64).ln().powi(3)).round() as usize;
    let t0 = Instant::now();
    let comps = if quad {
        Comparisons::Quadruplets(sample_quadruplets(&model, m, 0.75, seed).expect("sample"))
    } else {
        Comparisons::Triplets(sample_triplets(&model, m, 0.75, seed).expect("sample"))
    };
    let data = Dataset::numbered(n, comps).expect("dataset");
    let s = similarity::compute(SimilarityKind::AddS, &data).expect("similarity");
    let t_sim = t0.elapsed().as_secs_f64();
    eprintln!("n={n} m={m}: comparisons and AddS in {t_sim:.1}s");
    // Solver knobs for experiments: SDP_ALPHA (over-relaxation), SDP_CHECK (iterations between
    // residual checks and ρ balancing), SDP_TOL (stopping tolerance), SDP_RHO (initial ρ of every solve), SDP_LEAN_N (`SdpParams::lean_n`), SDP_TRACE (one line per residual check on stderr).
    let mut sdp = compclust::sdp::SdpParams::default();
    if let Some(a) = std::env::var("SDP_ALPHA").ok().and_then(|v| v.parse().ok()) {
        sdp = sdp.with_alpha(a);
    }
    if let Some(c) = std::env::var("SDP_CHECK").ok().and_then(|v| v.parse().ok()) {
        sdp = sdp.with_check_every(c);
    }
    if let Some(r) = std::env::var("SDP_RHO").ok().and_then(|v| v.parse().ok()) {
        sdp = sdp.with_rho(Some(r));
    }
    if let Some(t) = std::env::var("SDP_TOL").ok().and_then(|v| v.parse().ok()) {
        sdp = sdp.with_tol(t);
    }
    if let Some(l) = std::env::var("SDP_LEAN_N")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        sdp = sdp.with_lean_n(l);
    }
    if args.iter().any(|a| a == "lambda") {
        // One cold SDP-λ solve at SPUR's λ_low (published scaling), for profiling.
        let lam = 2.0 * (m as f64 * (n as f64).ln() / n as f64).sqrt();
        let mut sz = s.clone();
        (0..n).for_each(|i| sz[(i, i)] = 0.0);
        let sol = compclust::sdp::solve_sdp_lambda(sz.as_ref(), lam, &sdp).expect("sdp");
        println!("{:?}", sol.info);
        return;
    }
    let t1 = Instant::now();
    // One line per finished SDP on stderr, so that long runs (n = 10,000) show where they are.
    // With SDP_TRACE set, also one line per residual check of every solve.
    let mut report = Report {
        start: t1,
        trace: std::env::var_os("SDP_TRACE").is_some(),
    };
    // SPUR_REFINE: the first pass's tolerance, or `off` (every solve at SDP_TOL); SPUR_STOP:
    // the early stop on θ, or `none`.
    let mut sp = SpurParams::default().with_sdp(sdp);
    match std::env::var("SPUR_REFINE").ok().as_deref() {
        Some("off") => sp = sp.with_refine_tol(None),
        Some(t) => sp = sp.with_refine_tol(Some(t.parse().expect("SPUR_REFINE"))),
        None => {}
    }
    match std::env::var("SPUR_STOP").ok().as_deref() {
        Some("none") => sp = sp.with_theta_stop(None),
        Some(t) => sp = sp.with_theta_stop(Some(t.parse().expect("SPUR_STOP"))),
        None => {}
    }
    let res = spur(s.as_ref(), m, &sp, Some(&mut report)).expect("spur");
    let t_spur = t1.elapsed().as_secs_f64();
    for r in res.lambda_rows.iter().chain(&res.table) {
        let i = &r.info;
        println!(
            "{:<14} k={:<3} theta={:.4} loose={} u={:.1e} tol={:.0e} it={:<5} full={:<5} partial={:<5} inertia={:<3} cert={:<5} full_from={:?} p={:.1e} d={:.1e} gap={:.1e} cone={:.1e} tr={:.4} conv={} {:.2}s [{}]",
            format!("{}", i.problem),
            r.k,
            r.theta,
            r.theta_loose.map_or("-".into(), |t| format!("{t:.4}")),
            r.theta_uncertainty,
            r.tol,
            i.iterations,
            i.eig_full,
            i.eig_partial,
            i.eig_inertia,
            i.inertia_certified,
            i.full_from,
            i.primal_residual,
            i.dual_residual,
            i.gap,
            i.cone_residual,
            i.trace,
            i.converged,
            i.seconds,
            steps(&i.projection_seconds),
        );
    }
    // The partition as `compclust cluster` reads it off X_k̂ (k-means++, seeded), scored
    // against the planted clusters.
    let points = Points::from_rows(res.x.as_ref()).expect("points");
    let labels = kmeans(&points, &KMeansParams::new(res.k_hat).with_seed(seed))
        .expect("kmeans")
        .labels;
    let ari = adjusted_rand_index(model.labels(), &labels);
    println!(
        "n={n} m={m} k_hat={} margin={:.4} ARI={ari:.4} similarity {t_sim:.2}s spur {t_spur:.2}s",
        res.k_hat, res.margin
    );
}

/// Prints the progress of SPUR (and, with `trace`, every residual check) on stderr.
struct Report {
    start: Instant,
    trace: bool,
}

impl compclust::observe::Observer for Report {
    fn progress(&mut self, done: usize, total: usize) {
        eprintln!(
            "[{:>9.1}s] SDP {done}/{total} done",
            self.start.elapsed().as_secs_f64()
        );
    }

    fn sdp_check(&mut self, check: &compclust::sdp::SdpCheck) {
        if self.trace {
            eprintln!("{check}");
        }
    }
}

/// Where a solve's projections spent their time, in milliseconds: partial projections, then
/// the full ones' tridiagonalisation, tridiagonal step, back-transformation and assembly of `Y`.
fn steps(t: &compclust::sdp::ProjectionSeconds) -> String {
    format!(
        "partial {:.0} reduction {:.0} tridiagonal {:.0} back {:.0} assembly {:.0} ms",
        1e3 * t.partial,
        1e3 * t.reduction,
        1e3 * t.tridiagonal,
        1e3 * t.back_transformation,
        1e3 * t.assembly
    )
}
