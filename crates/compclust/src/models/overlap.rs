//! Overlap ensembles (Huleihel et al. 2019, §2): uniform (Δ of k) and i.i.d. Bernoulli(p) memberships, plus a
//! "worst-case style" generator that plants given row types (`docs/OVERLAP.md`).
//!
//! Every generator is seeded: the same parameters and seed give the same [`Membership`].

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::data::Membership;

/// Invalid ensemble parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OverlapModelError {
    /// Δ must satisfy 1 ≤ Δ ≤ k.
    #[error("uniform ensemble needs 1 <= delta <= k, got delta = {delta}, k = {k}")]
    BadDelta {
        /// Δ.
        delta: usize,
        /// k.
        k: usize,
    },
    /// p must lie in [0, 1].
    #[error("i.i.d. ensemble needs 0 <= p <= 1, got p = {0}")]
    BadProbability(f64),
    /// k must be at least 1 and at most 64.
    #[error("number of clusters must be in 1..=64, got {0}")]
    BadClusterCount(usize),
    /// A planted row type names a cluster ≥ k.
    #[error("row type {row:?} names a cluster >= k = {k}")]
    BadRowType {
        /// The row.
        row: Vec<u32>,
        /// k.
        k: usize,
    },
}

/// The uniform ensemble of Huleihel et al. 2019, §2 (eq. 1): each of the n rows of A is drawn independently and
/// uniformly from T_k(Δ), the binary vectors of length k and Hamming weight Δ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniformEnsemble {
    /// Number of items n.
    pub n: usize,
    /// Number of clusters k (≤ 64).
    pub k: usize,
    /// Clusters per item Δ.
    pub delta: usize,
}

impl UniformEnsemble {
    /// Validate the parameters.
    pub fn check(&self) -> Result<(), OverlapModelError> {
        if self.k == 0 || self.k > 64 {
            return Err(OverlapModelError::BadClusterCount(self.k));
        }
        if self.delta == 0 || self.delta > self.k {
            return Err(OverlapModelError::BadDelta {
                delta: self.delta,
                k: self.k,
            });
        }
        Ok(())
    }

    /// Draw A with the given seed.
    pub fn sample(&self, seed: u64) -> Result<Membership, OverlapModelError> {
        self.check()?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut cols: Vec<u32> = (0..self.k as u32).collect();
        let rows = (0..self.n)
            .map(|_| {
                // Partial Fisher–Yates: the first Δ entries are a uniform Δ-subset.
                for t in 0..self.delta {
                    let j = rng.random_range(t..self.k);
                    cols.swap(t, j);
                }
                cols[..self.delta].to_vec()
            })
            .collect();
        Ok(Membership::new(self.k, rows))
    }
}

/// The i.i.d. ensemble of Huleihel et al. 2019, §2: every entry of A is an independent Bernoulli(p).
/// Rows may be empty (items in no cluster), as the model allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BernoulliEnsemble {
    /// Number of items n.
    pub n: usize,
    /// Number of clusters k (≤ 64).
    pub k: usize,
    /// Membership probability p.
    pub p: f64,
}

impl BernoulliEnsemble {
    /// Validate the parameters.
    pub fn check(&self) -> Result<(), OverlapModelError> {
        if self.k == 0 || self.k > 64 {
            return Err(OverlapModelError::BadClusterCount(self.k));
        }
        if !(0.0..=1.0).contains(&self.p) {
            return Err(OverlapModelError::BadProbability(self.p));
        }
        Ok(())
    }

    /// Draw A with the given seed.
    pub fn sample(&self, seed: u64) -> Result<Membership, OverlapModelError> {
        self.check()?;
        let mut rng = StdRng::seed_from_u64(seed);
        let rows = (0..self.n)
            .map(|_| {
                (0..self.k as u32)
                    .filter(|_| rng.random::<f64>() < self.p)
                    .collect()
            })
            .collect();
        Ok(Membership::new(self.k, rows))
    }
}

/// Worst-case style data (Huleihel et al. 2019, §3.3, `docs/OVERLAP.md`): `count` items of each given row type
/// (a set of clusters), in a seeded random order. Used for MovieLens-like benchmarks.
pub fn planted_row_types(
    k: usize,
    types: &[(Vec<u32>, usize)],
    seed: u64,
) -> Result<Membership, OverlapModelError> {
    if k == 0 || k > 64 {
        return Err(OverlapModelError::BadClusterCount(k));
    }
    let mut rows = Vec::new();
    for (row, count) in types {
        if row.iter().any(|&c| c as usize >= k) {
            return Err(OverlapModelError::BadRowType {
                row: row.clone(),
                k,
            });
        }
        rows.extend(std::iter::repeat_n(row.clone(), *count));
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for i in (1..rows.len()).rev() {
        let j = rng.random_range(0..=i);
        rows.swap(i, j);
    }
    Ok(Membership::new(k, rows))
}

/// A synthetic stand-in for the paper's MovieLens Δ = 2 set (Huleihel et al. 2019, §4; `docs/OVERLAP.md`): k = 5
/// categories, 3470 items, 3163 in one category and 307 in two, cluster sizes close to
/// [105, 2579, 250, 492, 351]. The per-type counts are ours (the real table is not shipped);
/// every category keeps single-category "anchor" items, the assumption of Alg. 17.
pub fn movielens_like(seed: u64) -> Membership {
    // 0 Mystery, 1 Drama, 2 Sci-Fi, 3 Horror, 4 Crime.
    let types: Vec<(Vec<u32>, usize)> = vec![
        (vec![0], 53),
        (vec![1], 2351),
        (vec![2], 180),
        (vec![3], 400),
        (vec![4], 179),
        (vec![0, 1], 20),
        (vec![0, 2], 8),
        (vec![0, 3], 14),
        (vec![0, 4], 10),
        (vec![1, 2], 34),
        (vec![1, 3], 44),
        (vec![1, 4], 130),
        (vec![2, 3], 26),
        (vec![2, 4], 2),
        (vec![3, 4], 19),
    ];
    planted_row_types(5, &types, seed).expect("valid preset")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_rows_have_weight_delta_and_are_seeded() {
        let e = UniformEnsemble {
            n: 200,
            k: 7,
            delta: 3,
        };
        let a = e.sample(5).unwrap();
        assert!(a.weights().iter().all(|&w| w == 3));
        assert_eq!(a, e.sample(5).unwrap());
        assert_ne!(a, e.sample(6).unwrap());
        // every cluster is used
        assert!(a.columns().iter().all(|c| !c.is_empty()));
    }

    #[test]
    fn bernoulli_density_is_close_to_p() {
        let a = BernoulliEnsemble {
            n: 2000,
            k: 10,
            p: 0.2,
        }
        .sample(1)
        .unwrap();
        let ones: usize = a.weights().iter().sum();
        let rate = ones as f64 / 20000.0;
        assert!((rate - 0.2).abs() < 0.015, "{rate}");
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(
            UniformEnsemble {
                n: 1,
                k: 3,
                delta: 4
            }
            .sample(0)
            .is_err()
        );
        assert!(BernoulliEnsemble { n: 1, k: 3, p: 1.5 }.sample(0).is_err());
        assert!(planted_row_types(2, &[(vec![2], 1)], 0).is_err());
    }

    #[test]
    fn movielens_like_matches_the_paper_counts() {
        let a = movielens_like(0);
        assert_eq!(a.n_items(), 3470);
        let w = a.weights();
        assert_eq!(w.iter().filter(|&&x| x == 1).count(), 3163);
        assert_eq!(w.iter().filter(|&&x| x == 2).count(), 307);
    }
}
