//! Hierarchical planted model (Ghoshdastidar et al. 2019, §2.2).
//!
//! A balanced binary tree of height `L` whose `2^L` leaves are "pure clusters" `G_1 … G_{2^L}`
//! of `N0` items each (`N = N0 · 2^L`; items `g·N0 .. (g+1)·N0` form pure cluster `g`).
//! Similarities are independent, `w_ij ~ N(μ_ij, σ²)` with
//! - `μ_ij = μ` when i, j are in the same pure cluster (Step-L),
//! - `μ_ij = μ − (L − ℓ) δ` when i, j are first separated at Step-ℓ, `ℓ = 0 … L−1`, i.e. when
//!   the lowest common ancestor of their pure clusters has depth ℓ (the root has depth 0).
//!
//! For pure clusters `g ≠ h` the separating step is `ℓ = L − bitlen(g XOR h)`, so
//! `μ_ij = μ − bitlen(g XOR h) · δ`.

use super::ModelError;
use crate::data::{Dendrogram, Merge};
use crate::math::rng::CounterRng;
use crate::simulate::Similarity;

/// The planted hierarchical model of Ghoshdastidar et al. 2019, §2.2 (paper defaults, Ghoshdastidar et al. 2019, §4.1: μ = 0.8, σ = 0.1,
/// N0 = 30, L = 3, δ in {0.02, …, 0.2}).
#[derive(Clone, Debug, PartialEq)]
pub struct PlantedHierarchy {
    levels: u32,
    n0: usize,
    mu: f64,
    delta: f64,
    sigma: f64,
    seed: u64,
}

impl PlantedHierarchy {
    /// Validate and build: `L ≥ 1` levels (with `N0 · 2^L` items fitting in `u32`),
    /// `N0 ≥ 1`, finite μ, δ > 0, σ ≥ 0.
    pub fn new(
        levels: u32,
        n0: usize,
        mu: f64,
        delta: f64,
        sigma: f64,
        seed: u64,
    ) -> Result<Self, ModelError> {
        let bad = |name, value: f64, expected: &str| ModelError::BadParameter {
            name,
            value,
            expected: expected.to_string(),
        };
        if levels == 0 || levels > 31 {
            return Err(bad("levels", levels as f64, "L between 1 and 31"));
        }
        if n0 == 0 {
            return Err(bad("n0", 0.0, "pure-cluster size N0 ≥ 1"));
        }
        match n0.checked_mul(1usize << levels) {
            Some(n) if n <= u32::MAX as usize => {}
            _ => {
                return Err(bad(
                    "n0",
                    n0 as f64,
                    "N0 · 2^L items must fit in 32-bit indices",
                ));
            }
        }
        if !mu.is_finite() {
            return Err(bad("mu", mu, "a finite mean"));
        }
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(bad("delta", delta, "δ > 0"));
        }
        if !(sigma >= 0.0 && sigma.is_finite()) {
            return Err(bad("sigma", sigma, "σ ≥ 0"));
        }
        Ok(PlantedHierarchy {
            levels,
            n0,
            mu,
            delta,
            sigma,
            seed,
        })
    }

    /// Height L of the planted tree.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Pure-cluster size N0.
    pub fn n0(&self) -> usize {
        self.n0
    }

    /// Number of pure clusters, `2^L`.
    pub fn n_pure(&self) -> usize {
        1 << self.levels
    }

    /// The pure cluster `g` of item `i`.
    #[inline]
    pub fn pure_cluster(&self, i: usize) -> usize {
        i / self.n0
    }

    /// The signal-to-noise ratio δ/σ that governs recovery (Ghoshdastidar et al. 2019, §3).
    pub fn snr(&self) -> f64 {
        self.delta / self.sigma
    }

    /// Expected similarity μ_ij (Ghoshdastidar et al. 2019, §2.2) of two distinct items.
    #[inline]
    pub fn mean(&self, i: usize, j: usize) -> f64 {
        let x = self.pure_cluster(i) ^ self.pure_cluster(j);
        let bits = usize::BITS - x.leading_zeros(); // = L − ℓ, 0 within a pure cluster
        self.mu - bits as f64 * self.delta
    }

    /// The true partition at level `ℓ` (`0 ≤ ℓ ≤ L`): `2^ℓ` clusters, label of item i =
    /// `g >> (L − ℓ)`. Level 0 is one cluster, level L the pure clusters.
    pub fn level_partition(&self, level: u32) -> Vec<usize> {
        let shift = self.levels - level.min(self.levels);
        (0..self.n_items())
            .map(|i| self.pure_cluster(i) >> shift)
            .collect()
    }

    /// The true partitions at levels `1 ..= L` (index `ℓ − 1`), the levels averaged by the
    /// AARI (Ghoshdastidar et al. 2019, App. B.1).
    pub fn level_partitions(&self) -> Vec<Vec<usize>> {
        (1..=self.levels).map(|l| self.level_partition(l)).collect()
    }

    /// The true hierarchy as a dendrogram: each pure cluster is built first by a chain of
    /// merges at height 0; then, for ℓ = L−1 down to 0, sibling clusters of level ℓ+1 merge at
    /// height `(L − ℓ) δ` (the drop of the mean similarity). Cutting it into `2^ℓ` clusters
    /// gives [`Self::level_partition`]`(ℓ)`.
    pub fn dendrogram(&self) -> Dendrogram {
        let n = self.n_items();
        let mut steps = Vec::with_capacity(n.saturating_sub(1));
        let mut id_of_group = Vec::with_capacity(self.n_pure());
        let mut size_of_group = Vec::with_capacity(self.n_pure());
        for g in 0..self.n_pure() {
            let first = g * self.n0;
            let mut cur = first;
            for (t, leaf) in (first + 1..first + self.n0).enumerate() {
                steps.push(Merge {
                    a: cur,
                    b: leaf,
                    height: 0.0,
                    size: t + 2,
                });
                cur = n + steps.len() - 1;
            }
            id_of_group.push(cur);
            size_of_group.push(self.n0);
        }
        for l in (0..self.levels).rev() {
            let height = (self.levels - l) as f64 * self.delta;
            let mut ids = Vec::with_capacity(id_of_group.len() / 2);
            let mut sizes = Vec::with_capacity(id_of_group.len() / 2);
            for p in 0..id_of_group.len() / 2 {
                let size = size_of_group[2 * p] + size_of_group[2 * p + 1];
                steps.push(Merge {
                    a: id_of_group[2 * p],
                    b: id_of_group[2 * p + 1],
                    height,
                    size,
                });
                ids.push(n + steps.len() - 1);
                sizes.push(size);
            }
            id_of_group = ids;
            size_of_group = sizes;
        }
        Dendrogram::new(n, steps).expect("planted dendrogram is well formed by construction")
    }
}

impl Similarity for PlantedHierarchy {
    fn n_items(&self) -> usize {
        self.n0 << self.levels
    }

    /// `w_ij ~ N(μ_ij, σ²)` drawn from the stream `(seed, min(i,j), max(i,j))`; `w_ii` is
    /// undefined in the model and returned as μ.
    #[inline]
    fn similarity(&self, i: usize, j: usize) -> f64 {
        if i == j {
            return self.mu;
        }
        let mut r = CounterRng::for_pair(self.seed, i, j);
        self.mean(i, j) + self.sigma * r.normal()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_follow_the_steps() {
        // L = 3, N0 = 2: 8 pure clusters, 16 items
        let m = PlantedHierarchy::new(3, 2, 0.8, 0.1, 0.0, 1).unwrap();
        assert_eq!(m.n_items(), 16);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(m.mean(0, 1), 0.8)); // same pure cluster (Step-L)
        assert!(close(m.mean(0, 2), 0.8 - 0.1)); // G0 vs G1: Step-2 → μ − (3−2)δ
        assert!(close(m.mean(0, 4), 0.8 - 0.2)); // G0 vs G2: Step-1
        assert!(close(m.mean(2, 7), 0.8 - 0.2)); // G1 vs G3: Step-1
        assert!(close(m.mean(0, 15), 0.8 - 0.3)); // G0 vs G7: Step-0 → μ − Lδ
        assert!(close(m.mean(9, 3), 0.8 - 0.3));
        // σ = 0: similarities equal their means
        assert!(close(m.similarity(0, 15), 0.5));
    }

    #[test]
    fn levels_and_dendrogram_agree() {
        let m = PlantedHierarchy::new(3, 3, 0.8, 0.1, 0.1, 1).unwrap();
        assert_eq!(m.level_partition(0), vec![0; 24]);
        assert_eq!(
            m.level_partition(1)[..],
            [vec![0; 12], vec![1; 12]].concat()[..]
        );
        let lv = m.level_partitions();
        assert_eq!(lv.len(), 3);
        let d = m.dendrogram();
        for (l, part) in lv.iter().enumerate() {
            let k = 1 << (l + 1);
            assert_eq!(&d.cut(k).unwrap(), part);
        }
        assert_eq!(d.steps().last().unwrap().height, 3.0 * 0.1);
    }

    #[test]
    fn parameters_validated() {
        assert!(PlantedHierarchy::new(0, 3, 0.8, 0.1, 0.1, 1).is_err());
        assert!(PlantedHierarchy::new(3, 0, 0.8, 0.1, 0.1, 1).is_err());
        assert!(PlantedHierarchy::new(3, 3, 0.8, 0.0, 0.1, 1).is_err());
        assert!(PlantedHierarchy::new(3, 3, 0.8, 0.1, -0.1, 1).is_err());
        assert!(PlantedHierarchy::new(31, 4, 0.8, 0.1, 0.1, 1).is_err());
        assert!(PlantedHierarchy::new(3, 3, f64::NAN, 0.1, 0.1, 1).is_err());
    }

    #[test]
    fn noise_has_sigma() {
        let m = PlantedHierarchy::new(1, 200, 0.8, 0.1, 0.1, 5).unwrap();
        let (mut s, mut s2, mut c) = (0.0, 0.0, 0.0);
        for i in 0..200 {
            for j in (i + 1)..200 {
                let w = m.similarity(i, j) - 0.8;
                s += w;
                s2 += w * w;
                c += 1.0;
            }
        }
        assert!((s / c).abs() < 0.002);
        assert!(((s2 / c).sqrt() - 0.1).abs() < 0.002);
        assert_eq!(m.similarity(3, 100), m.similarity(100, 3));
    }
}
