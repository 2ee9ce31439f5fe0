//! The flat pipeline (Perrot et al. 2020; Perrot et al. 2020, App. D, E.1) on the planted model of Perrot et al. 2020, §5 (δ = 0.5,
//! ε = 0.75) at reduced n, plus edge cases. Fixed seeds.
//!
//! Exact recovery is a large-n statement (Perrot et al. 2020, Thm. 1: |T| ≳ n(ln n)²/(ε²δ²) up to constants).
//! At n = 240 with the paper's n·ln³n triplets we measured ARI 0.96–0.99 (a few items
//! misplaced, k̂ = 4 correct), so these small-n tests use n·ln⁴n comparisons, where the
//! per-item signal-to-noise ratio (≈ εδ·sqrt(|T|/n)/k) is about 3 and recovery is exact.

use compclust::data::{Comparisons, Dataset, Triplet};
use compclust::flat::{FlatError, FlatParams, NClusters, PartitionMethod};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::models::flat::{Family, PlantedFlat};
use compclust::sdp::spur::probe_tol;
use compclust::similarity::SimilarityKind;
use compclust::simulate::{sample_quadruplets, sample_triplets};

fn planted(n: usize, k: usize, seed: u64, quadruplets: bool) -> (Dataset, Vec<usize>) {
    let model = PlantedFlat::new(n, k, Family::NormalNormal, 0.5, seed).unwrap();
    let m = (n as f64 * (n as f64).ln().powi(4)).round() as usize;
    let c = if quadruplets {
        Comparisons::Quadruplets(sample_quadruplets(&model, m, 0.75, seed).unwrap())
    } else {
        Comparisons::Triplets(sample_triplets(&model, m, 0.75, seed).unwrap())
    };
    (Dataset::numbered(n, c).unwrap(), model.labels().to_vec())
}

#[test]
fn adds3_spur_recovers_planted_clusters() {
    for seed in [1, 2] {
        let (data, truth) = planted(150, 3, seed, false);
        let mut calls = 0;
        let mut cb = |_d: usize, _t: usize| calls += 1;
        let fit = FlatParams::new()
            .with_seed(seed)
            .fit(&data, Some(&mut cb))
            .unwrap();
        assert_eq!(fit.k_hat, 3, "seed {seed}");
        assert_eq!(adjusted_rand_index(&truth, &fit.labels), 1.0, "seed {seed}");
        let spur = fit.spur.as_ref().unwrap();
        assert!(spur.table.iter().any(|r| r.k == 3));
        assert!(calls >= 3, "progress is reported after every SDP");
        assert_eq!(fit.similarity.paper_name(), "AddS-3");
    }
}

#[test]
fn adds4_spur_recovers_planted_clusters() {
    let (data, truth) = planted(150, 3, 3, true);
    let fit = FlatParams::new().with_seed(3).fit(&data, None).unwrap();
    assert_eq!(fit.similarity.paper_name(), "AddS-4");
    assert_eq!(fit.k_hat, 3);
    assert_eq!(adjusted_rand_index(&truth, &fit.labels), 1.0);
}

#[test]
fn known_k_with_both_partitions() {
    let (data, truth) = planted(120, 3, 5, false);
    for p in [PartitionMethod::Kmeans, PartitionMethod::Spectral] {
        let fit = FlatParams::new()
            .with_n_clusters(NClusters::K(3))
            .with_partition(p)
            .fit(&data, None)
            .unwrap();
        assert!(fit.spur.is_none());
        assert_eq!(fit.k_hat, 3);
        assert_eq!(adjusted_rand_index(&truth, &fit.labels), 1.0, "{p}");
    }
}

#[test]
fn same_seed_same_labels_and_mulk_runs() {
    let (data, _) = planted(60, 3, 9, false);
    let p = FlatParams::new()
        .with_similarity(SimilarityKind::MulK)
        .with_n_clusters(NClusters::K(3))
        .with_seed(4);
    let a = p.fit(&data, None).unwrap();
    let b = p.fit(&data, None).unwrap();
    assert_eq!(a.labels, b.labels);
    assert_eq!(a.similarity.paper_name(), "MulK-3");
    let mut used: Vec<usize> = a.labels.clone();
    used.sort_unstable();
    used.dedup();
    assert_eq!(used, vec![0, 1, 2]);
}

#[test]
fn edge_cases_are_errors_or_trivial() {
    let one = Dataset::numbered(1, Comparisons::Triplets(vec![])).unwrap();
    assert!(matches!(
        FlatParams::new().fit(&one, None),
        Err(FlatError::Empty(_))
    ));
    let t = vec![Triplet::new(0, 1, 2), Triplet::new(1, 0, 2)];
    let small = Dataset::numbered(3, Comparisons::Triplets(t)).unwrap();
    assert!(matches!(
        FlatParams::new()
            .with_n_clusters(NClusters::K(4))
            .fit(&small, None),
        Err(FlatError::InvalidK { k: 4, n: 3 })
    ));
    assert!(FlatParams::new().with_n_init(0).check().is_err());
    assert!("0".parse::<NClusters>().is_err());
    assert_eq!("auto".parse::<NClusters>().unwrap(), NClusters::Auto);
    assert_eq!("7".parse::<NClusters>().unwrap(), NClusters::K(7));
    let fit = FlatParams::new()
        .with_n_clusters(NClusters::K(3))
        .fit(&small, None)
        .unwrap();
    let mut l = fit.labels.clone();
    l.sort_unstable();
    assert_eq!(l, vec![0, 1, 2]);
}

/// `with_sdp_tol` reaches every SPUR solve: each one stops at the looser tolerance (in fewer
/// iterations in all than the single pass at the default 1e-4) and the planted clusters are
/// still recovered; the default two-pass SPUR keeps every solve within the tolerance it
/// reports; a tolerance that is not a positive number is refused by `check`.
#[test]
fn sdp_tol_reaches_every_spur_solve() {
    let (data, truth) = planted(150, 3, 1, false);
    let iterations = |p: &FlatParams| {
        let fit = p.fit(&data, None).unwrap();
        assert_eq!(adjusted_rand_index(&truth, &fit.labels), 1.0);
        let spur = fit.spur.unwrap();
        let rows: Vec<_> = spur.lambda_rows.iter().chain(&spur.table).collect();
        for r in &rows {
            let i = &r.info;
            let worst = i.worst();
            // Each solve meets the tolerance it reports: `sdp.tol`, or SPUR's first pass.
            let first_pass = p
                .spur
                .refine_tol
                .map_or(p.spur.sdp.tol, |t| t.max(p.spur.sdp.tol));
            // A solve beside a loose θ above the stop may be a looser probe.
            let probe = probe_tol(first_pass);
            assert!(
                r.tol == p.spur.sdp.tol || r.tol == first_pass || r.tol == probe,
                "{r:?}"
            );
            assert!(i.converged && worst <= r.tol, "{i:?}");
        }
        for r in &spur.table {
            if r.tol > p.spur.sdp.tol.max(p.spur.refine_tol.unwrap_or(0.0)) {
                let stop = p.spur.theta_stop.expect("the default stop");
                assert!(spur.table.iter().any(|e| e.theta > stop), "{r:?}");
            }
        }
        rows.iter().map(|r| r.info.iterations).sum::<usize>()
    };
    let loose = FlatParams::new().with_seed(1).with_sdp_tol(1e-3);
    assert_eq!(loose.spur.sdp.tol, 1e-3);
    let single = FlatParams::new().with_seed(1).with_spur_refine(None);
    assert!(iterations(&loose) < iterations(&single));
    // The default two-pass SPUR: every solve within its reported tolerance, same recovery.
    iterations(&FlatParams::new().with_seed(1));
    for bad in [0.0, -1e-3, f64::NAN] {
        assert!(
            FlatParams::new().with_sdp_tol(bad).check().is_err(),
            "{bad}"
        );
    }
}
