//! Planted-model tests of the overlap algorithms (Huleihel et al. 2019; `docs/OVERLAP.md`). Fixed seeds;
//! exact recovery is asserted where the note says it must hold, a reported failure where it
//! cannot (k = 2Δ, k < 3Δ − 1).

use compclust::active::{RunOutcome, run};
use compclust::metrics::gram::{gram_error, permutation_match};
use compclust::models::overlap::{BernoulliEnsemble, UniformEnsemble, movielens_like};
use compclust::overlap::clique_cover::CliqueCoverParams;
use compclust::overlap::find_membership::FindMembershipParams;
use compclust::overlap::find_similarity::FindSimilarityParams;
use compclust::overlap::response::{AnswerBook, Pair, SimulatedOracle};
use compclust::overlap::triangle::{Noise, TriangleCountParams};
use compclust::overlap::{Membership, OverlapEstimate, SampleSize, StopReason};

fn finished<Q: std::fmt::Debug>(out: RunOutcome<OverlapEstimate, Q>) -> (OverlapEstimate, usize) {
    match out {
        RunOutcome::Finished {
            output, queries, ..
        } => (output, queries),
        RunOutcome::Missing { missing, .. } => {
            panic!("simulated oracle left {} missing", missing.len())
        }
    }
}

fn pairs(m: usize) -> usize {
    m * (m - 1) / 2
}

#[test]
fn alg1_recovers_disjoint_clusters() {
    let truth = UniformEnsemble {
        n: 600,
        k: 7,
        delta: 1,
    }
    .sample(11)
    .unwrap();
    let machine = FindMembershipParams {
        sample_size: SampleSize::Fixed(20),
        seed: 3,
    }
    .build(600)
    .unwrap();
    let mut oracle = SimulatedOracle::direct(&truth);
    let (est, q) = finished(run(machine, &mut oracle));
    assert_eq!(est.stop, StopReason::Completed);
    assert!(
        permutation_match(&truth, &est.membership)
            .unwrap()
            .is_some()
    );
    assert_eq!(q, oracle.queries());
    assert!(q <= pairs(20) + 7 * 580, "{q}");
}

#[test]
fn alg2_direct_uniform_exact_with_theorem1_query_count() {
    // The project's target size: n = 2000, k = 6, Δ = 2.
    let (n, k, d) = (2000, 6, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(1).unwrap();
    let params = FindSimilarityParams {
        seed: 5,
        ..FindSimilarityParams::uniform(k, d)
    };
    let m = params.auto_sample_size(n);
    let mut oracle = SimulatedOracle::direct(&truth);
    let (est, q) = finished(run(params.build(n).unwrap(), &mut oracle));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
    assert!(
        permutation_match(&truth, &est.membership)
            .unwrap()
            .is_some()
    );
    assert_eq!(est.sample.len(), m);
    assert_eq!(q, pairs(m) + k * (n - m), "Thm. 1 count");
}

#[test]
fn alg2_larger_k_uses_peeling() {
    let (n, k, d) = (1500, 12, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(2).unwrap();
    let params = FindSimilarityParams {
        seed: 1,
        ..FindSimilarityParams::uniform(k, d)
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::direct(&truth),
    ));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn alg2_iid_ensemble_with_self_queries() {
    let (n, k) = (800, 8);
    let truth = BernoulliEnsemble { n, k, p: 0.25 }.sample(4).unwrap();
    let params = FindSimilarityParams {
        delta: None,
        sample_size: SampleSize::Fixed(80),
        seed: 2,
        ..FindSimilarityParams::uniform(k, 1)
    };
    let (est, q) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::direct(&truth),
    ));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
    assert_eq!(q, pairs(80) + 80 + k * (n - 80));
}

#[test]
fn alg2_reports_complement_ambiguity_at_k_equals_2delta() {
    let (n, k, d) = (400, 4, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(9).unwrap();
    // the complement has the same gram matrix: no oracle can tell them apart
    assert_eq!(gram_error(&truth, &truth.complement()).unwrap(), 0);
    let params = FindSimilarityParams {
        seed: 0,
        ..FindSimilarityParams::uniform(k, d)
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::direct(&truth),
    ));
    assert_eq!(est.stop, StopReason::ComplementAmbiguity);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn alg3_worst_case_categories_exact_with_few_queries() {
    let truth = movielens_like(0);
    let n = truth.n_items();
    let params = CliqueCoverParams {
        sample_size: SampleSize::Fixed(400),
        expected_k: Some(5),
        seed: 1,
    };
    let mut oracle = SimulatedOracle::quantized(&truth, 0.0, 0);
    let (est, q) = finished(run(params.build(n).unwrap(), &mut oracle));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
    assert!((q as f64) < 0.10 * pairs(n) as f64, "{q} queries");
}

#[test]
fn alg3_without_anchors_uses_maximal_cliques() {
    // uniform Δ = 2: no item lies in one cluster only; the cover falls back to maximal cliques
    let (n, k) = (300, 5);
    let truth = UniformEnsemble { n, k, delta: 2 }.sample(3).unwrap();
    let params = CliqueCoverParams {
        sample_size: SampleSize::Fixed(60),
        expected_k: Some(k),
        seed: 2,
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.0, 0),
    ));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn alg6_noiseless_quantized_exact() {
    let (n, k, d) = (2000, 6, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(1).unwrap();
    let params = TriangleCountParams {
        seed: 3,
        ..TriangleCountParams::new(k, d, Noise::Bsc { q: Some(0.0) })
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.0, 0),
    ));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn alg6_bsc_q01_exact_with_the_notes_sample_size() {
    let (n, k, d) = (2000, 6, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(1).unwrap();
    let params = TriangleCountParams {
        seed: 4,
        ..TriangleCountParams::new(k, d, Noise::Bsc { q: Some(0.1) })
    };
    let m = params
        .rule_sample_size(compclust::overlap::stats::ResponseLaw::Bsc { q: 0.1 }, n)
        .unwrap();
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.1, 7),
    ));
    assert_eq!(est.sample.len(), m);
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn alg14_unknown_q_is_estimated_and_recovery_exact() {
    let (n, k, d) = (3000, 10, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(8).unwrap();
    let params = TriangleCountParams {
        sample_size: SampleSize::Fixed(1200),
        seed: 2,
        ..TriangleCountParams::new(k, d, Noise::Bsc { q: None })
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.1, 5),
    ));
    let q = est.q_used.unwrap();
    assert!((q - 0.1).abs() < 0.01, "q̂ = {q}");
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn dithered_single_query_exact() {
    let (n, k, d) = (3000, 10, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(6).unwrap();
    let noise = Noise::Dither {
        sigma: 0.5,
        theta: 0.5,
    };
    let params = TriangleCountParams {
        sample_size: SampleSize::Fixed(1500),
        seed: 1,
        ..TriangleCountParams::new(k, d, noise)
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::dithered(&truth, 0.5, 0.5, 2),
    ));
    assert_eq!(est.stop, StopReason::Completed);
    assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
}

#[test]
fn triangle_counting_reports_inseparable_levels() {
    // k = 7, Δ = 3 < 3Δ − 1: levels 0 and 1 have the same π (`docs/OVERLAP.md`)
    let (n, k, d) = (300, 7, 3);
    let truth = UniformEnsemble { n, k, delta: d }.sample(1).unwrap();
    let params = TriangleCountParams {
        sample_size: SampleSize::Fixed(150),
        ..TriangleCountParams::new(k, d, Noise::Bsc { q: Some(0.0) })
    };
    let (est, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.0, 0),
    ));
    assert!(
        matches!(
            est.stop,
            StopReason::LevelsInseparable | StopReason::FactorizationFailed { .. }
        ),
        "{:?}",
        est.stop
    );
}

#[test]
fn answers_from_a_file_report_missing_then_finish() {
    let (n, k, d) = (300, 6, 2);
    let truth = UniformEnsemble { n, k, delta: d }.sample(2).unwrap();
    let params = FindSimilarityParams {
        sample_size: SampleSize::Fixed(40),
        seed: 7,
        ..FindSimilarityParams::uniform(k, d)
    };
    let (reference, _) = finished(run(
        params.build(n).unwrap(),
        &mut SimulatedOracle::direct(&truth),
    ));
    // crowd rounds: start with no answers, answer what is missing, repeat
    let mut book = AnswerBook::new();
    let mut rounds = 0;
    let est = loop {
        rounds += 1;
        assert!(rounds < 10);
        let mut b = book.clone();
        match run(params.build(n).unwrap(), &mut b) {
            RunOutcome::Finished { output, .. } => break output,
            RunOutcome::Missing { missing, .. } => {
                assert_eq!(missing.as_slice(), b.missing());
                for p in missing {
                    book.insert(p.a, p.b, truth.shared(p.a as usize, p.b as usize) as u32);
                }
            }
        }
    };
    assert_eq!(rounds, 3, "sample round, extension round, finish");
    assert_eq!(est, reference);
    let _ = Pair::new(0, 1);
}

#[test]
fn same_seed_same_output() {
    let truth: Membership = UniformEnsemble {
        n: 500,
        k: 8,
        delta: 2,
    }
    .sample(3)
    .unwrap();
    let p = TriangleCountParams {
        sample_size: SampleSize::Fixed(300),
        seed: 9,
        ..TriangleCountParams::new(8, 2, Noise::Bsc { q: Some(0.05) })
    };
    let a = finished(run(
        p.build(500).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.05, 1),
    ))
    .0;
    let b = finished(run(
        p.build(500).unwrap(),
        &mut SimulatedOracle::quantized(&truth, 0.05, 1),
    ))
    .0;
    assert_eq!(a, b);
}
