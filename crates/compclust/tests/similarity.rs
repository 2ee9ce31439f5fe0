//! Fast similarities (AddS-3/4, MulK-3/4) against the naive references written from the
//! papers' formulas (Perrot et al. 2020, §4, Perrot et al. 2020, App. A), plus the streaming accumulators.

use compclust::data::{Comparisons, Dataset, Quadruplet, Triplet};
use compclust::similarity::{self, AddS3Accumulator, AddS4Accumulator, SimilarityKind, naive};
use faer::Mat;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn max_abs_diff(a: &Mat<f64>, b: &Mat<f64>) -> f64 {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    let mut m = 0.0f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            m = m.max((a[(i, j)] - b[(i, j)]).abs());
        }
    }
    m
}

fn assert_symmetric_zero_diag(s: &Mat<f64>) {
    for i in 0..s.nrows() {
        assert_eq!(s[(i, i)], 0.0);
        for j in 0..i {
            assert_eq!(s[(i, j)], s[(j, i)]);
        }
    }
}

/// Random rows over `0..n`, deliberately including repeats, contradictions and degenerate rows.
fn triplets(max_n: usize, max_rows: usize) -> impl Strategy<Value = (usize, Vec<Triplet>)> {
    (2..=max_n).prop_flat_map(move |n| {
        let t = (0..n as u32, 0..n as u32, 0..n as u32).prop_map(|(a, b, c)| Triplet::new(a, b, c));
        (Just(n), proptest::collection::vec(t, 0..max_rows))
    })
}

fn quadruplets(max_n: usize, max_rows: usize) -> impl Strategy<Value = (usize, Vec<Quadruplet>)> {
    (2..=max_n).prop_flat_map(move |n| {
        let m = n as u32;
        let q = (0..m, 0..m, 0..m, 0..m).prop_map(|(a, b, c, d)| Quadruplet::new(a, b, c, d));
        (Just(n), proptest::collection::vec(q, 0..max_rows))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn adds3_matches_naive((n, t) in triplets(8, 120)) {
        let fast = similarity::adds3(n, &t).unwrap();
        prop_assert_eq!(max_abs_diff(&fast, &naive::adds3(n, &t)), 0.0);
        assert_symmetric_zero_diag(&fast);
    }

    #[test]
    fn adds4_matches_naive((n, q) in quadruplets(7, 120)) {
        let fast = similarity::adds4(n, &q).unwrap();
        prop_assert_eq!(max_abs_diff(&fast, &naive::adds4(n, &q)), 0.0);
        assert_symmetric_zero_diag(&fast);
    }

    #[test]
    fn mulk3_matches_naive((n, t) in triplets(8, 150)) {
        let fast = similarity::mulk3(n, &t).unwrap();
        prop_assert!(max_abs_diff(&fast, &naive::mulk3(n, &t)) <= 1e-12);
        assert_symmetric_zero_diag(&fast);
    }

    #[test]
    fn mulk4_matches_naive((n, q) in quadruplets(6, 150)) {
        let fast = similarity::mulk4(n, &q).unwrap();
        prop_assert_eq!(max_abs_diff(&fast, &naive::mulk4(n, &q)), 0.0);
        assert_symmetric_zero_diag(&fast);
    }

    #[test]
    fn mulk4_of_triplets_matches_naive((n, t) in triplets(6, 100)) {
        let q: Vec<Quadruplet> = t.iter().map(|t| t.to_quadruplet()).collect();
        let fast = similarity::mulk4(n, &q).unwrap();
        prop_assert_eq!(max_abs_diff(&fast, &naive::mulk4(n, &q)), 0.0);
    }

    #[test]
    fn accumulators_equal_one_pass((n, t) in triplets(8, 200), cuts in proptest::collection::vec(0usize..200, 0..5)) {
        let mut acc = AddS3Accumulator::new(n).unwrap();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(t.len())).collect();
        cuts.push(t.len());
        cuts.sort_unstable();
        let mut start = 0;
        for c in cuts {
            acc.add(&t[start..c]).unwrap();
            start = c;
        }
        prop_assert_eq!(acc.rows(), t.len() as u64);
        prop_assert_eq!(max_abs_diff(&acc.finish(), &similarity::adds3(n, &t).unwrap()), 0.0);

        let q: Vec<Quadruplet> = t.iter().map(|t| t.to_quadruplet()).collect();
        let mut acc4 = AddS4Accumulator::new(n).unwrap();
        acc4.add(&q[..q.len() / 2]).unwrap();
        acc4.add(&q[q.len() / 2..]).unwrap();
        prop_assert_eq!(max_abs_diff(&acc4.finish(), &similarity::adds4(n, &q).unwrap()), 0.0);
    }
}

/// Big enough to take the multi-threaded path (≥ 2¹⁶ rows); must equal the streaming result,
/// and AddS-4 of the triplets seen as quadruplets (i,j,i,k) equals AddS-3 (each triplet adds
/// +1 at {i,j} and −1 at {i,k} in both).
#[test]
fn parallel_pass_equals_stream_and_adds4_of_triplets() {
    let n = 60;
    let mut rng = StdRng::seed_from_u64(7);
    let t: Vec<Triplet> = (0..300_000)
        .map(|_| {
            Triplet::new(
                rng.random_range(0..n as u32),
                rng.random_range(0..n as u32),
                rng.random_range(0..n as u32),
            )
        })
        .collect();
    let par = similarity::adds3(n, &t).unwrap();
    let mut acc = AddS3Accumulator::new(n).unwrap();
    for c in t.chunks(1000) {
        acc.add(c).unwrap();
    }
    assert!(acc.skipped() > 0);
    assert_eq!(max_abs_diff(&par, &acc.finish()), 0.0);
    let q: Vec<Quadruplet> = t.iter().map(|t| t.to_quadruplet()).collect();
    assert_eq!(max_abs_diff(&par, &similarity::adds4(n, &q).unwrap()), 0.0);
}

#[test]
fn out_of_range_is_an_error_not_a_panic() {
    let t = vec![Triplet::new(0, 1, 2), Triplet::new(0, 1, 9)];
    for f in [similarity::adds3, similarity::mulk3] {
        let e = f(3, &t).unwrap_err();
        assert!(e.to_string().contains("row 1"), "{e}");
        assert!(e.to_string().contains("index 9"), "{e}");
    }
    let q = vec![Quadruplet::new(0, 1, 2, 5)];
    assert!(similarity::adds4(3, &q).is_err());
    assert!(similarity::mulk4(3, &q).is_err());
}

#[test]
fn compute_dispatches_on_kind() {
    let t = vec![Triplet::new(0, 1, 2), Triplet::new(1, 0, 2)];
    let d = Dataset::numbered(3, Comparisons::Triplets(t.clone())).unwrap();
    let s = similarity::compute(SimilarityKind::AddS, &d).unwrap();
    assert_eq!(s[(0, 1)], 2.0);
    let m = similarity::compute(SimilarityKind::MulK, &d).unwrap();
    assert_eq!(max_abs_diff(&m, &similarity::mulk3(3, &t).unwrap()), 0.0);
    assert_eq!(
        "MulK".parse::<SimilarityKind>().unwrap(),
        SimilarityKind::MulK
    );
    assert!("foo".parse::<SimilarityKind>().is_err());
}

/// The kind-agnostic AddS accumulator gives AddS-3 / AddS-4 of all rows, whatever the batches
/// and the growth of the items, with the row count SPUR needs; the same for a file read in
/// chunks; same-cluster answers, mixed kinds and no rows are errors, not panics.
#[test]
fn adds_accumulator_streams_either_kind() {
    use compclust::data::{Batch, ComparisonKind, ReadOptions, SameCluster};
    use compclust::similarity::{
        AddSAccumulator, SimilarityError, SimilarityVariant, adds_from_file,
    };
    let t: Vec<Triplet> = (0..40u32)
        .map(|i| Triplet::new(i % 7, (i * 3 + 1) % 7, (i * 5 + 2) % 7))
        .collect();
    let mut acc = AddSAccumulator::new();
    acc.add(Batch::Triplets(&t[..10]), 7).unwrap();
    acc.add(Batch::Triplets(&t[10..]), 7).unwrap();
    let s = acc.finish(8).unwrap();
    assert_eq!(s.kind, SimilarityVariant::AddS3);
    assert_eq!(s.n_comparisons, 40);
    assert_eq!(
        max_abs_diff(&s.matrix, &similarity::adds3(8, &t).unwrap()),
        0.0
    );
    let q: Vec<Quadruplet> = (0..30u32)
        .map(|i| Quadruplet::new(i % 6, (i + 1) % 6, (i + 2) % 6, (i * 5 + 3) % 6))
        .collect();
    let mut acc = AddSAccumulator::new();
    acc.add(Batch::Quadruplets(&q), 6).unwrap();
    let s = acc.finish(6).unwrap();
    assert_eq!(s.kind, SimilarityVariant::AddS4);
    assert_eq!(
        max_abs_diff(&s.matrix, &similarity::adds4(6, &q).unwrap()),
        0.0
    );

    let mut acc = AddSAccumulator::new();
    acc.add(Batch::Triplets(&t), 7).unwrap();
    assert_eq!(
        acc.add(Batch::Quadruplets(&q), 7),
        Err(SimilarityError::MixedKinds {
            first: ComparisonKind::Triplets,
            then: ComparisonKind::Quadruplets
        })
    );
    let same = [SameCluster {
        a: 0,
        b: 1,
        answer: 1.0,
    }];
    assert!(matches!(
        AddSAccumulator::new().add(Batch::SameCluster(&same), 2),
        Err(SimilarityError::UnsupportedKind { .. })
    ));
    assert_eq!(
        AddSAccumulator::new().finish(3).unwrap_err(),
        SimilarityError::NoRows
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    // the reader refuses rows that repeat an item
    let clean: Vec<Triplet> = t.iter().copied().filter(|r| !r.is_degenerate()).collect();
    let mut text = String::from("anchor,near,far\n");
    for r in &clean {
        text += &format!("{},{},{}\n", r.anchor, r.near, r.far);
    }
    std::fs::write(&path, text).unwrap();
    let (s, _, summary) = adds_from_file(&path, &ReadOptions::default()).unwrap();
    assert_eq!(s.n_comparisons, clean.len());
    assert_eq!(summary.rows, clean.len());
    let n = summary.items.len();
    let relabel = |i: u32| summary.items.get(&i.to_string()).unwrap();
    let t2: Vec<Triplet> = clean
        .iter()
        .map(|r| Triplet::new(relabel(r.anchor), relabel(r.near), relabel(r.far)))
        .collect();
    assert_eq!(
        max_abs_diff(&s.matrix, &similarity::adds3(n, &t2).unwrap()),
        0.0
    );
}
