//! Gram-matrix error between two overlapping memberships (Huleihel et al. 2019, §4: "the total number of
//! different entries in the estimated and true gram matrices"), and comparison of memberships
//! up to a permutation of the columns (Huleihel et al. 2019, §2, the recovery criterion P_error).

use rayon::prelude::*;

use crate::data::Membership;

/// Errors of the membership comparisons.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GramError {
    /// The two memberships cover different numbers of items.
    #[error("memberships have different numbers of items: {left} vs {right}")]
    SizeMismatch {
        /// Items of the first.
        left: usize,
        /// Items of the second.
        right: usize,
    },
}

fn same_size(a: &Membership, b: &Membership) -> Result<(), GramError> {
    if a.n_items() != b.n_items() {
        return Err(GramError::SizeMismatch {
            left: a.n_items(),
            right: b.n_items(),
        });
    }
    Ok(())
}

/// Number of entries (i, j) of the full n × n matrices where (A Aᵀ)_ij ≠ (B Bᵀ)_ij, diagonal
/// included (Huleihel et al. 2019, §4, Fig. 1). Parallel over rows; O(n² · Δ).
pub fn gram_error(a: &Membership, b: &Membership) -> Result<u64, GramError> {
    same_size(a, b)?;
    let n = a.n_items();
    let off: u64 = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut c = 0u64;
            for j in i + 1..n {
                if a.shared(i, j) != b.shared(i, j) {
                    c += 1;
                }
            }
            c
        })
        .sum();
    let diag = (0..n)
        .filter(|&i| a.clusters_of(i).len() != b.clusters_of(i).len())
        .count() as u64;
    Ok(2 * off + diag)
}

/// Reference implementation of [`gram_error`] straight from the definition: build both dense
/// gram matrices and count differing entries.
pub fn gram_error_naive(a: &Membership, b: &Membership) -> Result<u64, GramError> {
    same_size(a, b)?;
    let (ga, gb) = (a.gram(), b.gram());
    Ok(ga.iter().zip(&gb).filter(|(x, y)| x != y).count() as u64)
}

/// If B = A·P for a column permutation P (Huleihel et al. 2019, §2), the map `perm` with column `c` of `a` equal
/// to column `perm[c]` of `b`; otherwise `None`. Empty columns match empty columns.
pub fn permutation_match(a: &Membership, b: &Membership) -> Result<Option<Vec<usize>>, GramError> {
    same_size(a, b)?;
    if a.n_clusters() != b.n_clusters() {
        return Ok(None);
    }
    let (ca, cb) = (a.columns(), b.columns());
    let mut used = vec![false; cb.len()];
    let mut perm = Vec::with_capacity(ca.len());
    for col in &ca {
        match (0..cb.len()).find(|&j| !used[j] && cb[j] == *col) {
            Some(j) => {
                used[j] = true;
                perm.push(j);
            }
            None => return Ok(None),
        }
    }
    Ok(Some(perm))
}

/// Fraction of items whose row is recovered exactly, after matching the estimate's columns to
/// the truth's greedily by largest overlap (a column of the estimate matched to no truth column
/// counts as wrong wherever it is used). 1.0 iff `permutation_match` succeeds, when k agrees.
pub fn exact_row_fraction(truth: &Membership, est: &Membership) -> Result<f64, GramError> {
    same_size(truth, est)?;
    let n = truth.n_items();
    if n == 0 {
        return Ok(1.0);
    }
    let (ct, ce) = (truth.columns(), est.columns());
    let mut pairs = Vec::new();
    for (i, t) in ct.iter().enumerate() {
        for (j, e) in ce.iter().enumerate() {
            let inter = sorted_intersection(t, e);
            if inter > 0 {
                pairs.push((inter, i, j));
            }
        }
    }
    pairs.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut map_e = vec![u32::MAX; ce.len()];
    let mut used_t = vec![false; ct.len()];
    for (_, i, j) in pairs {
        if !used_t[i] && map_e[j] == u32::MAX {
            used_t[i] = true;
            map_e[j] = i as u32;
        }
    }
    let good = (0..n)
        .filter(|&i| {
            let mut r: Vec<u32> = est
                .clusters_of(i)
                .iter()
                .map(|&c| map_e[c as usize])
                .collect();
            r.sort_unstable();
            r == truth.clusters_of(i)
        })
        .count();
    Ok(good as f64 / n as f64)
}

fn sorted_intersection(a: &[u32], b: &[u32]) -> usize {
    let (mut x, mut y, mut c) = (0, 0, 0);
    while x < a.len() && y < b.len() {
        match a[x].cmp(&b[y]) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                x += 1;
                y += 1;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_membership(n: usize, k: usize) -> impl Strategy<Value = Membership> {
        proptest::collection::vec(proptest::collection::vec(0..k as u32, 0..=k), n)
            .prop_map(move |rows| Membership::new(k, rows))
    }

    proptest! {
        #[test]
        fn fast_gram_error_equals_naive(
            (a, b) in (1usize..12, 1usize..6).prop_flat_map(|(n, k)| (arb_membership(n, k), arb_membership(n, k)))
        ) {
            prop_assert_eq!(gram_error(&a, &b).unwrap(), gram_error_naive(&a, &b).unwrap());
        }

        #[test]
        fn permuted_columns_match_and_have_zero_error(
            a in (1usize..12, 1usize..6).prop_flat_map(|(n, k)| arb_membership(n, k)),
            rot in 0usize..6,
        ) {
            let k = a.n_clusters();
            let rows = a.rows().iter()
                .map(|r| r.iter().map(|&c| ((c as usize + rot) % k) as u32).collect())
                .collect();
            let b = Membership::new(k, rows);
            prop_assert_eq!(gram_error(&a, &b).unwrap(), 0);
            prop_assert!(permutation_match(&a, &b).unwrap().is_some());
            prop_assert_eq!(exact_row_fraction(&a, &b).unwrap(), 1.0);
        }
    }

    #[test]
    fn paper_counterexample_same_gram_different_membership() {
        // Huleihel et al. 2019, §2: two matrices with the same gram matrix that are not column permutations.
        let a = Membership::new(4, vec![vec![0, 1], vec![1, 2], vec![2, 3], vec![0, 2]]);
        let b = Membership::new(4, vec![vec![2, 3], vec![1, 3], vec![0, 1], vec![0, 3]]);
        assert_eq!(gram_error(&a, &b).unwrap(), 0);
        assert_eq!(permutation_match(&a, &b).unwrap(), None);
        assert!(exact_row_fraction(&a, &b).unwrap() < 1.0);
    }

    #[test]
    fn counts_both_triangles_and_diagonal() {
        let a = Membership::new(2, vec![vec![0], vec![0]]);
        let b = Membership::new(2, vec![vec![0], vec![1]]);
        assert_eq!(gram_error(&a, &b).unwrap(), 2);
        let c = Membership::new(2, vec![vec![0, 1], vec![0]]);
        assert_eq!(gram_error(&a, &c).unwrap(), 1);
        assert!(gram_error(&a, &Membership::new(2, vec![vec![0]])).is_err());
    }
}
