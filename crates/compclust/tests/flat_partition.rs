//! k-means++ / Lloyd against the naive reference, and both partition methods on ideal SDP
//! solutions (block matrices, Perrot et al. 2020, Prop. 1).

use compclust::flat::kmeans::kmeans_naive;
use compclust::flat::spectral::spectral_embedding;
use compclust::flat::{KMeansParams, Points, kmeans, spectral};
use faer::Mat;
use proptest::prelude::*;

fn points(max_n: usize, max_d: usize) -> impl Strategy<Value = Points> {
    (1..=max_n, 1..=max_d).prop_flat_map(|(n, d)| {
        proptest::collection::vec(-10.0f64..10.0, n * d)
            .prop_map(move |data| Points::new(n, d, data).unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn kmeans_matches_naive(p in points(40, 5), k in 1usize..6, seed in 0u64..1000) {
        let k = k.min(p.len());
        let params = KMeansParams::new(k).with_seed(seed).with_n_init(3);
        let fast = kmeans(&p, &params).unwrap();
        let slow = kmeans_naive(&p, &params).unwrap();
        prop_assert_eq!(&fast.labels, &slow.labels);
        prop_assert_eq!(fast.inertia, slow.inertia);
        prop_assert_eq!(fast.iterations, slow.iterations);
        // Every cluster is non-empty and labels are numbered by first appearance.
        let mut seen = vec![false; k];
        let mut next = 0;
        for &l in &fast.labels {
            prop_assert!(l < k);
            if !seen[l] {
                prop_assert_eq!(l, next);
                seen[l] = true;
                next += 1;
            }
        }
    }

    #[test]
    fn kmeans_with_duplicates_matches_naive(base in proptest::collection::vec(0u8..3, 2..30), k in 1usize..5, seed in 0u64..100) {
        // Many identical points: exercises the "D² = 0" seeding branch and empty clusters.
        let n = base.len();
        let p = Points::new(n, 1, base.iter().map(|&b| f64::from(b)).collect()).unwrap();
        let params = KMeansParams::new(k.min(n)).with_seed(seed).with_n_init(2);
        let fast = kmeans(&p, &params).unwrap();
        prop_assert_eq!(&fast, &kmeans_naive(&p, &params).unwrap());
    }
}

/// The normalised clustering matrix of a partition: X_ij = 1/|C| if i, j ∈ C (Perrot et al. 2020, §3).
fn block_x(labels: &[usize]) -> Mat<f64> {
    let n = labels.len();
    let k = labels.iter().max().unwrap() + 1;
    let mut size = vec![0.0; k];
    for &l in labels {
        size[l] += 1.0;
    }
    Mat::from_fn(n, n, |i, j| {
        if labels[i] == labels[j] {
            1.0 / size[labels[i]]
        } else {
            0.0
        }
    })
}

#[test]
fn both_methods_read_the_partition_off_an_ideal_x() {
    // Interleaved, unequal clusters of sizes 7, 5, 9, 3.
    let truth: Vec<usize> = (0..24)
        .map(|i| match i % 8 {
            0 | 4 => 0,
            1 | 5 => 1,
            2 | 3 | 6 => 2,
            _ => 3,
        })
        .collect();
    let x = block_x(&truth);
    for seed in 0..5 {
        let params = KMeansParams::new(4).with_seed(seed);
        let km = kmeans(&Points::from_rows(x.as_ref()).unwrap(), &params).unwrap();
        let sp = spectral(x.as_ref(), &params).unwrap();
        // Labels are numbered by first appearance, so both must equal the truth renumbered.
        let renum = compclust_first_appearance(&truth);
        assert_eq!(km.labels, renum, "k-means, seed {seed}");
        assert_eq!(sp.labels, renum, "spectral, seed {seed}");
        assert!(km.inertia < 1e-20);
    }
}

fn compclust_first_appearance(l: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    l.iter()
        .map(|&x| {
            let next = map.len();
            *map.entry(x).or_insert(next)
        })
        .collect()
}

#[test]
fn spectral_embedding_rows_are_unit_and_identical_within_blocks() {
    let truth = [0, 0, 1, 1, 1, 2];
    let e = spectral_embedding(block_x(&truth).as_ref(), 3).unwrap();
    for i in 0..truth.len() {
        let norm: f64 = e.row(i).iter().map(|v| v * v).sum();
        assert!((norm - 1.0).abs() < 1e-10);
        for j in 0..truth.len() {
            let d: f64 = e
                .row(i)
                .iter()
                .zip(e.row(j))
                .map(|(a, b)| (a - b).powi(2))
                .sum();
            if truth[i] == truth[j] {
                assert!(d < 1e-16, "{i} {j} {d}");
            } else {
                assert!(d > 0.5, "{i} {j} {d}");
            }
        }
    }
}

#[test]
fn invalid_inputs_are_errors() {
    let p = Points::new(3, 1, vec![0.0, 1.0, 2.0]).unwrap();
    assert!(kmeans(&p, &KMeansParams::new(0)).is_err());
    assert!(kmeans(&p, &KMeansParams::new(4)).is_err());
    assert!(kmeans(&p, &KMeansParams::new(2).with_n_init(0)).is_err());
    assert!(Points::new(2, 2, vec![0.0; 3]).is_err());
    assert!(Points::new(1, 1, vec![f64::NAN]).is_err());
    assert!(spectral(Mat::<f64>::zeros(3, 2).as_ref(), &KMeansParams::new(2)).is_err());
}

#[test]
fn same_seed_same_result_and_seeds_matter_only_through_init() {
    let data: Vec<f64> = (0..200).map(|i| ((i * 37) % 101) as f64 / 7.0).collect();
    let p = Points::new(100, 2, data).unwrap();
    let a = kmeans(&p, &KMeansParams::new(5).with_seed(3)).unwrap();
    let b = kmeans(&p, &KMeansParams::new(5).with_seed(3)).unwrap();
    assert_eq!(a, b);
}
