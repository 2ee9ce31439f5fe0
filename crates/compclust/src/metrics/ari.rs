//! Adjusted Rand index (Hubert & Arabie 1985), the score used in Perrot et al. 2020, §5.
//!
//! With contingency counts `n_ij`, row sums `a_i`, column sums `b_j` and `N = C(n, 2)`:
//! `ARI = (Σ C(n_ij,2) − Σ C(a_i,2) Σ C(b_j,2) / N) / (½(Σ C(a_i,2) + Σ C(b_j,2)) − Σ C(a_i,2) Σ C(b_j,2) / N)`.
//!
//! Degenerate cases (denominator 0): this happens only when both partitions are the single
//! cluster or both are all singletons, i.e. when they are identical, and the ARI is then
//! defined as 1 (as in scikit-learn). Fewer than two items also give 1.

use std::collections::HashMap;

use super::MetricError;

fn choose2(x: u64) -> f64 {
    (x as f64) * (x.saturating_sub(1) as f64) / 2.0
}

/// The ARI of two labelings of the same items (labels are arbitrary integers).
///
/// # Panics
/// If `a.len() != b.len()`; use [`try_adjusted_rand_index`] for user input.
pub fn adjusted_rand_index(a: &[usize], b: &[usize]) -> f64 {
    try_adjusted_rand_index(a, b).expect("adjusted_rand_index: labelings of different lengths")
}

/// The ARI, or an error when the labelings have different lengths.
pub fn try_adjusted_rand_index(a: &[usize], b: &[usize]) -> Result<f64, MetricError> {
    if a.len() != b.len() {
        return Err(MetricError::LengthMismatch {
            left: a.len(),
            right: b.len(),
        });
    }
    let n = a.len();
    if n < 2 {
        return Ok(1.0);
    }
    let mut joint: HashMap<(usize, usize), u64> = HashMap::new();
    let mut ra: HashMap<usize, u64> = HashMap::new();
    let mut rb: HashMap<usize, u64> = HashMap::new();
    for (&x, &y) in a.iter().zip(b) {
        *joint.entry((x, y)).or_default() += 1;
        *ra.entry(x).or_default() += 1;
        *rb.entry(y).or_default() += 1;
    }
    let index: f64 = joint.values().map(|&c| choose2(c)).sum();
    let sa: f64 = ra.values().map(|&c| choose2(c)).sum();
    let sb: f64 = rb.values().map(|&c| choose2(c)).sum();
    Ok(ari_from_sums(index, sa, sb, choose2(n as u64)))
}

fn ari_from_sums(index: f64, sa: f64, sb: f64, total: f64) -> f64 {
    let expected = sa * sb / total;
    let max = 0.5 * (sa + sb);
    let den = max - expected;
    if den == 0.0 {
        return 1.0;
    }
    (index - expected) / den
}

/// Naive reference: counts agreeing / disagreeing pairs over all `C(n,2)` pairs, straight
/// from the pair-counting definition (O(n²)); used to test [`adjusted_rand_index`].
pub fn adjusted_rand_index_naive(a: &[usize], b: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len());
    let n = a.len();
    if n < 2 {
        return 1.0;
    }
    let (mut both, mut in_a, mut in_b) = (0.0, 0.0, 0.0);
    for i in 0..n {
        for j in (i + 1)..n {
            let sa = a[i] == a[j];
            let sb = b[i] == b[j];
            in_a += f64::from(u8::from(sa));
            in_b += f64::from(u8::from(sb));
            both += f64::from(u8::from(sa && sb));
        }
    }
    ari_from_sums(both, in_a, in_b, choose2(n as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_computed() {
        // identical up to relabelling
        assert_eq!(adjusted_rand_index(&[0, 0, 1, 1], &[5, 5, 3, 3]), 1.0);
        // a = {0,1},{2,3}; b = {0,2},{1,3}: index 0, sa = sb = 2, N = 6, E = 4/6,
        // max = 2 → ARI = (0 − 2/3)/(2 − 2/3) = −0.5
        assert!((adjusted_rand_index(&[0, 0, 1, 1], &[0, 1, 0, 1]) + 0.5).abs() < 1e-15);
        // scikit-learn doc example: ARI([0,0,1,1],[0,0,1,2]) = 0.5714285714285715
        assert!(
            (adjusted_rand_index(&[0, 0, 1, 1], &[0, 0, 1, 2]) - 0.571_428_571_428_571_5).abs()
                < 1e-12
        );
        // sklearn: ARI([0,0,1,2],[0,0,1,1]) = 0.5714…, ARI([0,0,0,0],[0,1,2,3]) = 0
        assert_eq!(adjusted_rand_index(&[0, 0, 0, 0], &[0, 1, 2, 3]), 0.0);
        // degenerate identical partitions
        assert_eq!(adjusted_rand_index(&[1, 1, 1], &[0, 0, 0]), 1.0);
        assert_eq!(adjusted_rand_index(&[0, 1, 2], &[2, 0, 1]), 1.0);
        assert_eq!(adjusted_rand_index(&[], &[]), 1.0);
        assert_eq!(adjusted_rand_index(&[4], &[0]), 1.0);
        assert!(try_adjusted_rand_index(&[0, 1], &[0]).is_err());
    }

    proptest! {
        #[test]
        fn agrees_with_naive(pairs in proptest::collection::vec((0usize..4, 0usize..5), 0..40)) {
            let (a, b): (Vec<usize>, Vec<usize>) = pairs.into_iter().unzip();
            let fast = adjusted_rand_index(&a, &b);
            let slow = adjusted_rand_index_naive(&a, &b);
            prop_assert!((fast - slow).abs() < 1e-12, "{} vs {}", fast, slow);
            prop_assert!(fast <= 1.0 + 1e-12);
        }

        #[test]
        fn identical_is_one_and_symmetric(a in proptest::collection::vec(0usize..6, 0..40), b in proptest::collection::vec(0usize..3, 40)) {
            prop_assert_eq!(adjusted_rand_index(&a, &a), 1.0);
            let b = &b[..a.len()];
            let x = adjusted_rand_index(&a, b);
            prop_assert!((x - adjusted_rand_index(b, &a)).abs() < 1e-12);
        }

        #[test]
        fn invariant_to_label_permutation(a in proptest::collection::vec(0usize..5, 2..40), shift in 1usize..100, seed in any::<u64>()) {
            // relabel a through a random injective map
            let mut perm: Vec<usize> = (0..5).map(|x| x * 7 + shift).collect();
            let mut r = crate::math::rng::CounterRng::new(seed, 0, 0);
            for i in (1..perm.len()).rev() {
                let j = r.below(i as u64 + 1) as usize;
                perm.swap(i, j);
            }
            let b: Vec<usize> = a.iter().map(|&x| perm[x]).collect();
            prop_assert_eq!(adjusted_rand_index(&a, &b), 1.0);
            let c: Vec<usize> = a.iter().enumerate().map(|(i, &x)| (x + i) % 3).collect();
            let cp: Vec<usize> = c.iter().map(|&x| perm[x]).collect();
            prop_assert!((adjusted_rand_index(&a, &c) - adjusted_rand_index(&b, &cp)).abs() < 1e-12);
        }
    }
}
