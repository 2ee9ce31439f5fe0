//! Metrics on planted hierarchies: AARI and Dasgupta cost rank the true tree first.

use compclust::hierarchy::{Dendrogram, Merge};
use compclust::metrics::aari::{aari, aari_levels, height_levels};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::metrics::dasgupta::{dasgupta_cost, dasgupta_cost_naive};
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::Similarity;
use compclust::simulate::rng::CounterRng;

/// The planted tree with the two halves of pure clusters swapped between the root's children
/// at the top level: pure clusters g and g ^ (2^(L-1)) exchange places in the leaf order,
/// building a different (wrong) level-1 split.
fn wrong_tree(m: &PlantedHierarchy) -> Dendrogram {
    let n = m.n_items();
    let n0 = m.n0();
    let l = m.levels();
    // relabel pure clusters: g → g with bits 0 and L−1 swapped
    let perm = |g: usize| {
        let lo = g & 1;
        let hi = (g >> (l - 1)) & 1;
        (g & !(1 | (1 << (l - 1)))) | (lo << (l - 1)) | hi
    };
    let d = m.dendrogram();
    // leaves of pure cluster g are g*n0..; map leaf i to the same offset in perm(g)
    let leaf = |i: usize| perm(i / n0) * n0 + i % n0;
    let steps = d
        .steps()
        .iter()
        .map(|s| Merge {
            a: if s.a < n { leaf(s.a) } else { s.a },
            b: if s.b < n { leaf(s.b) } else { s.b },
            ..*s
        })
        .collect();
    Dendrogram::new(n, steps).unwrap()
}

#[test]
fn true_tree_has_aari_one_and_lowest_cost() {
    let m = PlantedHierarchy::new(3, 10, 0.8, 0.1, 0.1, 5).unwrap();
    let truth = m.dendrogram();
    assert_eq!(aari_levels(&m.level_partitions(), &truth).unwrap(), 1.0);
    let wrong = wrong_tree(&m);
    let a = aari_levels(&m.level_partitions(), &wrong).unwrap();
    assert!(a < 1.0, "{a}");
    // level 3 (pure clusters) is still right, so AARI > 1/3
    assert!(a > 1.0 / 3.0, "{a}");
    assert_eq!(
        a,
        aari(&truth, &wrong, &height_levels(&truth)).unwrap(),
        "dendrogram and level-partition forms agree"
    );
    let c_true = dasgupta_cost(&truth, &m).unwrap();
    let c_wrong = dasgupta_cost(&wrong, &m).unwrap();
    assert!(c_true < c_wrong, "{c_true} vs {c_wrong}");
    let naive = dasgupta_cost_naive(&truth, &m).unwrap();
    assert!((c_true - naive).abs() < 1e-9 * naive);
}

#[test]
fn ari_of_independent_random_labelings_is_near_zero() {
    let mut r = CounterRng::new(1, 2, 3);
    let n = 20_000;
    let a: Vec<usize> = (0..n).map(|_| r.below(4) as usize).collect();
    let b: Vec<usize> = (0..n).map(|_| r.below(5) as usize).collect();
    let x = adjusted_rand_index(&a, &b);
    assert!(x.abs() < 0.002, "{x}");
}
