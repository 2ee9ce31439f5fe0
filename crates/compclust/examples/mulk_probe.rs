//! Diagnostics for one SDP-k solve of MulK-3 (Perrot et al. 2020, App. A) on the flat planted
//! model (normal family, n = 1000, k = 4, δ = 0.5) with n(ln n)⁴ triplets, as in the
//! `flat-distributions` experiment: prints the solver's info (iterations, full and partial
//! projections, `full_from`, seconds) and a residual line every 100 iterations on stderr.
//! Arguments: seed, ε, and `full` for full projections throughout. At ε = 1 the partial
//! projections stall the solve on seeds 4 and 6 (`docs/SOLVER.md`, "Stalled partial
//! projections"): `cargo run --release -p compclust --example mulk_probe -- 4 1`.
use compclust::data::{Comparisons, Dataset};
use compclust::flat::{FlatParams, NClusters};
use compclust::models::flat::{Family, PlantedFlat};
use compclust::observe::Observer;
use compclust::sdp::{Projection, SdpCheck};
use compclust::similarity::SimilarityKind;
use compclust::simulate::sample_triplets;

/// Prints every tenth residual check.
struct Trace;

impl Observer for Trace {
    fn sdp_check(&mut self, check: &SdpCheck) {
        if check.iteration.is_multiple_of(100) {
            eprintln!("{check}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4);
    let eps: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let full = args.iter().any(|a| a == "full");
    let n = 1000;
    let m = (n as f64 * (n as f64).ln().powi(4)).round() as usize;
    let model = PlantedFlat::new(n, 4, Family::NormalNormal, 0.5, seed).expect("model");
    let triplets = sample_triplets(&model, m, eps, seed).expect("sample");
    let data = Dataset::numbered(n, Comparisons::Triplets(triplets)).expect("dataset");
    let mut params = FlatParams::default()
        .with_similarity(SimilarityKind::MulK)
        .with_n_clusters(NClusters::K(4));
    if full {
        let mut spur = params.spur.clone();
        spur.sdp = spur.sdp.with_projection(Projection::Full);
        params = params.with_spur(spur);
    }
    let fit = params.fit(&data, Some(&mut Trace)).expect("fit");
    eprintln!("n={n} m={m} seed={seed} eps={eps} full={full}");
    println!("{:?}", fit.sdp_info);
}
