//! The real-data fallbacks of Huleihel et al. 2019, §4: FindSimilarity resamples S until
//! its gram matrix has full rank, and triangle counting stops early, with the reason, on
//! answers that do not fit the uniform ensemble it assumes. Fixed seeds.

use compclust::active::{RunOutcome, run};
use compclust::metrics::gram::gram_error;
use compclust::models::overlap::{UniformEnsemble, movielens_like, planted_row_types};
use compclust::overlap::find_similarity::FindSimilarityParams;
use compclust::overlap::response::{OracleKind, Pair, SimulatedOracle};
use compclust::overlap::stats::{ResponseLaw, UniformStats};
use compclust::overlap::triangle::{Noise, TriangleCountParams, ensemble_fit};
use compclust::overlap::{Membership, OverlapEstimate, SampleSize, StopReason};

fn finished(out: RunOutcome<OverlapEstimate, Pair>) -> OverlapEstimate {
    match out {
        RunOutcome::Finished { output, .. } => output,
        RunOutcome::Missing { .. } => panic!("a simulated oracle answers everything"),
    }
}

/// Disjoint clusters of 90, 90, 10 and 10 items (n = 200, k = 4, Δ = 1): a sample of 20 misses
/// a small cluster more than half the time, so its rows have rank < 4.
fn two_rare_clusters() -> Membership {
    let types = vec![(vec![0], 90), (vec![1], 90), (vec![2], 10), (vec![3], 10)];
    planted_row_types(4, &types, 7).unwrap()
}

fn find_similarity(truth: &Membership, seed: u64, max_resamples: usize) -> OverlapEstimate {
    let params = FindSimilarityParams {
        sample_size: SampleSize::Fixed(20),
        max_resamples,
        max_growth: 0,
        seed,
        ..FindSimilarityParams::uniform(4, 1)
    };
    let mut oracle = SimulatedOracle::direct(truth);
    finished(run(params.build(truth.n_items()).unwrap(), &mut oracle))
}

#[test]
fn find_similarity_resamples_a_rank_deficient_sample_until_full_rank() {
    let truth = two_rare_clusters();
    let mut resampled = 0;
    for seed in 0..12 {
        let est = find_similarity(&truth, seed, 20);
        assert_eq!(est.stop, StopReason::Completed, "seed {seed}");
        assert_eq!(
            gram_error(&truth, &est.membership).unwrap(),
            0,
            "seed {seed}"
        );
        if est.failed_samples.is_empty() {
            continue;
        }
        resampled += 1;
        // every sample given up is reported, with its size and reason
        for f in &est.failed_samples {
            assert_eq!(f.size, 20);
            assert!(
                matches!(f.reason, StopReason::RankDeficient { rank } if rank < 4),
                "{f:?}"
            );
        }
        // without resampling the same first sample stops the run
        let once = find_similarity(&truth, seed, 0);
        assert!(
            matches!(once.stop, StopReason::RankDeficient { .. }),
            "seed {seed}: {:?}",
            once.stop
        );
        assert!(once.failed_samples.is_empty());
    }
    assert!(
        resampled >= 3,
        "only {resampled} of 12 seeds needed a new sample"
    );
}

#[test]
fn find_similarity_resampling_is_bounded_and_reported() {
    // Δ = 1 answers that no k = 2 membership explains: every sample fails; the run stops
    // after 1 + max_resamples samples and reports all but the last.
    let truth = planted_row_types(3, &[(vec![0], 30), (vec![1], 30), (vec![2], 30)], 1).unwrap();
    let params = FindSimilarityParams {
        sample_size: SampleSize::Fixed(10),
        max_resamples: 5,
        max_growth: 1,
        seed: 2,
        ..FindSimilarityParams::uniform(2, 1)
    };
    let mut oracle = SimulatedOracle::direct(&truth);
    let est = finished(run(params.build(90).unwrap(), &mut oracle));
    assert!(
        matches!(est.stop, StopReason::FactorizationFailed { .. }),
        "{:?}",
        est.stop
    );
    // 6 samples of 10, then 6 of 20 (one growth), the last one being the stop reason
    assert_eq!(est.failed_samples.len(), 11, "{:?}", est.failed_samples);
    assert_eq!(
        est.failed_samples.iter().filter(|f| f.size == 10).count(),
        6
    );
    assert!(
        est.failed_samples
            .windows(2)
            .all(|w| w[0].queries < w[1].queries)
    );
}

fn answers_of(truth: &Membership, kind: OracleKind, m: usize, seed: u64) -> Vec<Vec<bool>> {
    let oracle = SimulatedOracle::new(truth, kind, seed);
    (0..m)
        .map(|a| {
            (0..m)
                .map(|b| a != b && oracle.peek(Pair::new(a as u32, b as u32)) >= 1)
                .collect()
        })
        .collect()
}

#[test]
fn the_model_check_accepts_planted_uniform_ensembles() {
    // 48 planted samples over several (k, Δ, q), k = 2Δ and k = 3Δ − 1 included: none is
    // refused, with the noise known or estimated.
    let cases = [
        (6, 2, 0.0),
        (8, 2, 0.1),
        (4, 2, 0.2),
        (10, 3, 0.05),
        (8, 3, 0.0),
        (5, 1, 0.3),
    ];
    for &(k, d, q) in &cases {
        for seed in 0..8 {
            let truth = UniformEnsemble {
                n: 300,
                k,
                delta: d,
            }
            .sample(seed)
            .unwrap();
            let y = answers_of(&truth, OracleKind::Quantized { q }, 300, seed ^ 99);
            let stats = UniformStats { k, delta: d };
            let law = ResponseLaw::Bsc { q };
            for known in [true, false] {
                assert_eq!(
                    ensemble_fit(stats, law, known, &y, seed),
                    None,
                    "k {k}, Δ {d}, q {q}, seed {seed}"
                );
            }
        }
    }
}

#[test]
fn the_model_check_refuses_real_categories_and_a_wrong_noise_level() {
    let truth = movielens_like(0);
    let stats = UniformStats { k: 5, delta: 2 };
    let y = answers_of(&truth, OracleKind::Quantized { q: 0.1 }, 300, 1);
    match ensemble_fit(stats, ResponseLaw::Bsc { q: 0.1 }, false, &y, 0) {
        Some(StopReason::EnsembleMismatch {
            dispersion, sample, ..
        }) => {
            assert_eq!(sample, 300);
            assert!(dispersion > 10.0, "{dispersion}");
        }
        other => panic!("{other:?}"),
    }
    // a planted uniform ensemble (k = 6, Δ = 2: yes rate 0.6 without noise) answered with
    // q = 0.3 (yes rate 0.54) while q = 0 is assumed: the mean is off by about 25 standard
    // deviations
    let truth = UniformEnsemble {
        n: 300,
        k: 6,
        delta: 2,
    }
    .sample(3)
    .unwrap();
    let y = answers_of(&truth, OracleKind::Quantized { q: 0.3 }, 300, 3);
    let law = ResponseLaw::Bsc { q: 0.0 };
    match ensemble_fit(stats_of(6, 2), law, true, &y, 0) {
        Some(StopReason::EnsembleMismatch {
            expected_yes_rate: Some(p),
            yes_rate,
            ..
        }) => {
            assert!((p - 0.6).abs() < 1e-12, "{p}");
            assert!((yes_rate - 0.54).abs() < 0.02, "{yes_rate}");
        }
        other => panic!("{other:?}"),
    }
    // the same answers with the right q fit
    assert_eq!(
        ensemble_fit(stats_of(6, 2), ResponseLaw::Bsc { q: 0.3 }, true, &y, 0),
        None
    );
}

fn stats_of(k: usize, delta: usize) -> UniformStats {
    UniformStats { k, delta }
}

#[test]
fn triangle_count_on_real_categories_stops_after_the_pilot_not_every_pair() {
    let truth = movielens_like(0);
    let n = truth.n_items();
    for noise in [Noise::Bsc { q: Some(0.1) }, Noise::Bsc { q: None }] {
        let params = TriangleCountParams {
            seed: 4,
            ..TriangleCountParams::new(5, 2, noise)
        };
        let pilot = params.pilot_size;
        let mut oracle = SimulatedOracle::new(&truth, OracleKind::Quantized { q: 0.1 }, 8);
        let est = finished(run(params.build(n).unwrap(), &mut oracle));
        assert!(
            matches!(est.stop, StopReason::EnsembleMismatch { sample, .. } if sample == pilot),
            "{noise:?}: {:?}",
            est.stop
        );
        assert_eq!(est.queries, pilot * (pilot - 1) / 2, "{noise:?}");
        assert_eq!(est.unresolved.len(), n);
    }
}

#[test]
fn triangle_count_with_a_pilot_asks_the_same_sample_as_before() {
    // The pilot is a prefix of S: a planted run still recovers the truth exactly and asks
    // C(m, 2) + (n − m)·|P| queries.
    let (n, k, d) = (1500, 8, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(2).unwrap();
    let params = TriangleCountParams {
        seed: 1,
        ..TriangleCountParams::new(k, d, Noise::Bsc { q: Some(0.05) })
    };
    let mut oracle = SimulatedOracle::new(&truth, OracleKind::Quantized { q: 0.05 }, 5);
    let est = finished(run(params.build(n).unwrap(), &mut oracle));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
    let m = est.sample.len();
    assert!(m > params.pilot_size, "{m}");
    assert_eq!(est.queries, m * (m - 1) / 2 + (n - m) * est.probes);
}
