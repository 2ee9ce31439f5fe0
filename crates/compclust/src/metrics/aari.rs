//! Averaged ARI over the levels of two hierarchies (Ghoshdastidar et al. 2019, App. B.1):
//! `AARI(C, C') = (1/L) Σ_{ℓ=1..L} ARI(C^ℓ, C'^ℓ)`, where `C^ℓ`, `C'^ℓ` are the partitions at
//! level ℓ.
//!
//! For the planted model (Ghoshdastidar et al. 2019, §2.2) the true level-ℓ partition has `2^ℓ` clusters; a learned
//! dendrogram's level-ℓ partition is its cut into the same number of clusters (as in the
//! authors' ComparisonHC evaluation). For two arbitrary dendrograms the levels are given as
//! cluster counts `k_ℓ`, or read off the first dendrogram's distinct merge heights
//! ([`height_levels`]).

use super::MetricError;
use super::ari::try_adjusted_rand_index;
use crate::data::Dendrogram;

/// Mean ARI of paired level partitions (Ghoshdastidar et al. 2019, App. B.1). `truth[ℓ]` and `pred[ℓ]` are the two
/// partitions at level ℓ.
pub fn aari_partitions(truth: &[Vec<usize>], pred: &[Vec<usize>]) -> Result<f64, MetricError> {
    if truth.len() != pred.len() {
        return Err(MetricError::LengthMismatch {
            left: truth.len(),
            right: pred.len(),
        });
    }
    if truth.is_empty() {
        return Err(MetricError::NoLevels);
    }
    let mut s = 0.0;
    for (a, b) in truth.iter().zip(pred) {
        s += try_adjusted_rand_index(a, b)?;
    }
    Ok(s / truth.len() as f64)
}

fn n_clusters(labels: &[usize]) -> usize {
    let mut v = labels.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len()
}

fn check_leaves(n: usize, d: &Dendrogram) -> Result<(), MetricError> {
    if d.n_leaves() != n {
        return Err(MetricError::LengthMismatch {
            left: n,
            right: d.n_leaves(),
        });
    }
    Ok(())
}

/// AARI of a learned dendrogram against true level partitions (e.g.
/// [`crate::models::hierarchical::PlantedHierarchy::level_partitions`]): each true level with
/// `k` clusters is compared with the cut of `pred` into `k` clusters.
pub fn aari_levels(truth_levels: &[Vec<usize>], pred: &Dendrogram) -> Result<f64, MetricError> {
    if truth_levels.is_empty() {
        return Err(MetricError::NoLevels);
    }
    let mut preds = Vec::with_capacity(truth_levels.len());
    for t in truth_levels {
        check_leaves(t.len(), pred)?;
        let k = n_clusters(t).max(1);
        preds.push(pred.cut(k).map_err(|_| MetricError::NoLevels)?);
    }
    aari_partitions(truth_levels, &preds)
}

/// AARI of two dendrograms over the same leaves, at the levels with `ks[ℓ]` clusters (each
/// `1 ≤ k ≤ n`).
pub fn aari(truth: &Dendrogram, pred: &Dendrogram, ks: &[usize]) -> Result<f64, MetricError> {
    check_leaves(truth.n_leaves(), pred)?;
    if ks.is_empty() {
        return Err(MetricError::NoLevels);
    }
    let mut a = Vec::with_capacity(ks.len());
    let mut b = Vec::with_capacity(ks.len());
    for &k in ks {
        a.push(truth.cut(k).map_err(|_| MetricError::BadLevel {
            k,
            n: truth.n_leaves(),
        })?);
        b.push(pred.cut(k).map_err(|_| MetricError::BadLevel {
            k,
            n: truth.n_leaves(),
        })?);
    }
    aari_partitions(&a, &b)
}

/// The levels of a dendrogram read off its merge heights: for each distinct height `h`
/// (ascending), the number of clusters left after every merge of height ≤ h, keeping counts
/// ≥ 2. For [`crate::models::hierarchical::PlantedHierarchy::dendrogram`] this gives
/// `2^L, …, 4, 2`, the levels of Ghoshdastidar et al. 2019, App. B.1. Merges must be in non-decreasing height order
/// for the result to be meaningful (as produced by linkage algorithms).
pub fn height_levels(d: &Dendrogram) -> Vec<usize> {
    let n = d.n_leaves();
    let steps = d.steps();
    let mut ks = Vec::new();
    for (s, m) in steps.iter().enumerate() {
        let last_of_height = steps.get(s + 1).is_none_or(|next| next.height != m.height);
        let left = n - (s + 1);
        if last_of_height && left >= 2 {
            ks.push(left);
        }
    }
    ks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Merge;
    use crate::models::hierarchical::PlantedHierarchy;

    fn m(a: usize, b: usize, h: f64, size: usize) -> Merge {
        Merge {
            a,
            b,
            height: h,
            size,
        }
    }

    #[test]
    fn identical_hierarchy_scores_one() {
        let p = PlantedHierarchy::new(3, 4, 0.8, 0.1, 0.1, 0).unwrap();
        let d = p.dendrogram();
        assert_eq!(aari_levels(&p.level_partitions(), &d).unwrap(), 1.0);
        assert_eq!(height_levels(&d), vec![8, 4, 2]);
        assert_eq!(aari(&d, &d, &height_levels(&d)).unwrap(), 1.0);
    }

    #[test]
    fn hand_computed() {
        // 4 leaves. truth: ((0,1),(2,3)); pred: ((0,2),(1,3)).
        let t =
            Dendrogram::new(4, vec![m(0, 1, 0.0, 2), m(2, 3, 0.0, 2), m(4, 5, 1.0, 4)]).unwrap();
        let p =
            Dendrogram::new(4, vec![m(0, 2, 0.0, 2), m(1, 3, 0.0, 2), m(4, 5, 1.0, 4)]).unwrap();
        // level k=2: ARI({01,23},{02,13}) = −0.5; level k=4: all singletons on both → 1
        assert!((aari(&t, &p, &[2]).unwrap() + 0.5).abs() < 1e-15);
        assert!((aari(&t, &p, &[2, 4]).unwrap() - 0.25).abs() < 1e-15);
        assert_eq!(height_levels(&t), vec![2]);
        assert!(aari(&t, &p, &[]).is_err());
        assert!(aari(&t, &p, &[5]).is_err());
        let small = Dendrogram::new(2, vec![m(0, 1, 0.0, 2)]).unwrap();
        assert!(aari(&t, &small, &[2]).is_err());
        assert!(aari_partitions(&[vec![0, 1]], &[]).is_err());
    }

    #[test]
    fn mean_of_level_aris() {
        let t = vec![vec![0, 0, 1, 1], vec![0, 1, 2, 3]];
        let p = vec![vec![0, 1, 0, 1], vec![0, 1, 2, 3]];
        assert!((aari_partitions(&t, &p).unwrap() - 0.25).abs() < 1e-15);
    }
}
