//! Dasgupta cost of a dendrogram under a similarity (Dasgupta 2016; Ghoshdastidar et al. 2019, App. B.2):
//! `cost(C, w) = Σ_{i<j} w_ij |C^lca(x_i, x_j)|`, where `C^lca` is the smallest cluster of the
//! hierarchy containing both items. Lower is better.
//!
//! [`dasgupta_cost`] makes one bottom-up pass over the merges: when clusters A and B merge,
//! every pair (a ∈ A, b ∈ B) has that merge as its lowest common ancestor, so it adds
//! `|A ∪ B| Σ_{a∈A, b∈B} w_ab`. Each pair is visited once: O(n²) similarity evaluations and
//! O(n) memory. [`dasgupta_cost_naive`] is the O(n³) definition used in tests.

use rayon::prelude::*;

use super::MetricError;
use crate::data::Dendrogram;
use crate::simulate::Similarity;

fn check<S: Similarity + ?Sized>(d: &Dendrogram, sim: &S) -> Result<(), MetricError> {
    if d.n_leaves() != sim.n_items() {
        return Err(MetricError::SizeMismatch {
            leaves: d.n_leaves(),
            items: sim.n_items(),
        });
    }
    Ok(())
}

/// Dasgupta's cost `Σ_{i<j} w_ij |lca(i, j)|` (Ghoshdastidar et al. 2019, App. B.2) in O(n²) time, O(n) memory.
/// The per-merge cross sums run in parallel; the result is deterministic (fixed reduction
/// order per merge).
pub fn dasgupta_cost<S: Similarity + ?Sized>(d: &Dendrogram, sim: &S) -> Result<f64, MetricError> {
    dasgupta_cost_with_progress(d, sim, None)
}

/// [`dasgupta_cost`] reporting progress as `(pairs done, total pairs)` after each merge.
pub fn dasgupta_cost_with_progress<S: Similarity + ?Sized>(
    d: &Dendrogram,
    sim: &S,
    mut progress: Option<&mut dyn FnMut(usize, usize)>,
) -> Result<f64, MetricError> {
    check(d, sim)?;
    let total_pairs = d.n_leaves() * d.n_leaves().saturating_sub(1) / 2;
    let mut done = 0usize;
    let n = d.n_leaves();
    let mut members: Vec<Vec<u32>> = (0..n as u32).map(|i| vec![i]).collect();
    members.reserve(n.saturating_sub(1));
    let mut cost = 0.0;
    for m in d.steps() {
        let a = std::mem::take(&mut members[m.a]);
        let b = std::mem::take(&mut members[m.b]);
        let (small, large) = if a.len() <= b.len() {
            (&a, &b)
        } else {
            (&b, &a)
        };
        let cross: f64 = if small.len() * large.len() >= 4096 {
            large
                .par_iter()
                .map(|&y| {
                    small
                        .iter()
                        .map(|&x| sim.similarity(x as usize, y as usize))
                        .sum::<f64>()
                })
                .collect::<Vec<f64>>()
                .iter()
                .sum()
        } else {
            large
                .iter()
                .map(|&y| {
                    small
                        .iter()
                        .map(|&x| sim.similarity(x as usize, y as usize))
                        .sum::<f64>()
                })
                .sum()
        };
        cost += m.size as f64 * cross;
        done += small.len() * large.len();
        if let Some(p) = progress.as_mut() {
            p(done, total_pairs);
        }
        let mut merged = a;
        merged.extend_from_slice(&b);
        members.push(merged);
    }
    Ok(cost)
}

/// Reference O(n³) implementation straight from the definition: for every pair i < j, scan
/// all clusters of the hierarchy for the smallest one containing both.
pub fn dasgupta_cost_naive<S: Similarity + ?Sized>(
    d: &Dendrogram,
    sim: &S,
) -> Result<f64, MetricError> {
    check(d, sim)?;
    let n = d.n_leaves();
    let clusters = d.members();
    let mut cost = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            let size = clusters
                .iter()
                .filter(|c| c.contains(&i) && c.contains(&j))
                .map(|c| c.len())
                .min()
                .expect("the root contains every pair");
            cost += sim.similarity(i, j) * size as f64;
        }
    }
    Ok(cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Merge;
    use crate::math::rng::CounterRng;
    use crate::simulate::DenseSimilarity;
    use proptest::prelude::*;

    fn m(a: usize, b: usize, size: usize) -> Merge {
        Merge {
            a,
            b,
            height: 0.0,
            size,
        }
    }

    #[test]
    fn hand_computed() {
        // ((0,1),2): pairs (0,1) lca size 2; (0,2), (1,2) lca size 3
        let d = Dendrogram::new(3, vec![m(0, 1, 2), m(3, 2, 3)]).unwrap();
        let w = DenseSimilarity::new(3, vec![0.0, 5.0, 1.0, 5.0, 0.0, 2.0, 1.0, 2.0, 0.0]).unwrap();
        // 5·2 + 1·3 + 2·3 = 19
        assert_eq!(dasgupta_cost(&d, &w).unwrap(), 19.0);
        assert_eq!(dasgupta_cost_naive(&d, &w).unwrap(), 19.0);
        // merging the dissimilar pair first costs more: ((0,2),1): 1·2 + 5·3 + 2·3 = 23
        let d2 = Dendrogram::new(3, vec![m(0, 2, 2), m(3, 1, 3)]).unwrap();
        assert_eq!(dasgupta_cost(&d2, &w).unwrap(), 23.0);
        let w4 = DenseSimilarity::new(2, vec![0.0; 4]).unwrap();
        assert!(matches!(
            dasgupta_cost(&d, &w4),
            Err(MetricError::SizeMismatch { .. })
        ));
    }

    /// A random dendrogram over n leaves (random pairs of active clusters).
    fn random_dendrogram(n: usize, seed: u64) -> Dendrogram {
        let mut r = CounterRng::new(seed, 1, 2);
        let mut active: Vec<(usize, usize)> = (0..n).map(|i| (i, 1)).collect();
        let mut steps = Vec::new();
        while active.len() > 1 {
            let i = r.below(active.len() as u64) as usize;
            let a = active.swap_remove(i);
            let j = r.below(active.len() as u64) as usize;
            let b = active.swap_remove(j);
            steps.push(m(a.0, b.0, a.1 + b.1));
            active.push((n + steps.len() - 1, a.1 + b.1));
        }
        Dendrogram::new(n, steps).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn agrees_with_naive(n in 1usize..25, seed in any::<u64>()) {
            let d = random_dendrogram(n, seed);
            let mut w = vec![0.0; n * n];
            let mut r = CounterRng::new(seed, 3, 4);
            for i in 0..n {
                for j in (i + 1)..n {
                    let v = r.uniform();
                    w[i * n + j] = v;
                    w[j * n + i] = v;
                }
            }
            let w = DenseSimilarity::new(n, w).unwrap();
            let fast = dasgupta_cost(&d, &w).unwrap();
            let slow = dasgupta_cost_naive(&d, &w).unwrap();
            prop_assert!((fast - slow).abs() <= 1e-9 * (1.0 + slow.abs()), "{} vs {}", fast, slow);
        }
    }

    #[test]
    fn large_merge_uses_parallel_path_and_agrees() {
        let n = 150;
        let d = random_dendrogram(n, 7);
        let p =
            crate::models::hierarchical::PlantedHierarchy::new(1, 75, 0.8, 0.1, 0.1, 3).unwrap();
        let fast = dasgupta_cost(&d, &p).unwrap();
        let slow = dasgupta_cost_naive(&d, &p).unwrap();
        assert!((fast - slow).abs() < 1e-9 * slow.abs());
        let mut last = (0, 0);
        let mut cb = |a: usize, b: usize| last = (a, b);
        let with = dasgupta_cost_with_progress(&d, &p, Some(&mut cb)).unwrap();
        assert_eq!(with, fast);
        assert_eq!(last, (n * (n - 1) / 2, n * (n - 1) / 2));
        // the planted dendrogram beats a random one
        assert!(dasgupta_cost(&p.dendrogram(), &p).unwrap() < fast);
    }
}
