//! Simulated crowds: answering comparisons from a similarity matrix or features, with crowd
//! noise (Perrot et al. 2020, eq. 2), and passive sampling of comparison sets with a budget (Perrot et al. 2020, §2, "Sampling
//! and noise in comparisons"; [`sample_comparisons`] and its one seed rule).
//!
//! (This module was called `oracle`; that name is kept as an alias. The trait of anything that
//! answers an adaptive algorithm's queries is [`crate::active::Oracle`]; the same-cluster
//! response models of the overlap family are [`crate::overlap::response`].)
//!
//! Everything that can answer a comparison implements [`Similarity`]: a dense matrix
//! ([`DenseSimilarity`]), features with a Gaussian or cosine kernel ([`FeatureSimilarity`],
//! Perrot et al. 2020, App. F.3), and the planted models of [`crate::models`], which compute `w_ij` lazily.
//!
//! Passive sampling draws comparisons uniformly without replacement ([`sample_triplets`],
//! [`sample_quadruplets`]) or keeps each with probability `p` ([`sample_triplets_bernoulli`],
//! [`sample_quadruplets_bernoulli`]); each observed comparison is answered correctly with
//! probability `(1 + ε)/2` and flipped otherwise (Perrot et al. 2020, eq. 2).

mod budget;
pub(crate) mod sample;

/// The counter-based random streams, which live in [`crate::math::rng`] (re-exported here for
/// code written against the old path).
pub use crate::math::rng;

use std::str::FromStr;

pub use budget::{Budget, comparison_budget, n_distinct, sample_comparisons};
pub use sample::{
    answer_quadruplet, answer_triplet, n_distinct_quadruplets, n_distinct_triplets, sample_pairs,
    sample_quadruplets, sample_quadruplets_bernoulli, sample_triplets, sample_triplets_bernoulli,
};

/// Errors of the oracle module (bad matrices, features or sampling parameters).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OracleError {
    /// A dense matrix whose data length is not `n * n`.
    #[error("similarity matrix: expected {n}×{n} = {} values, got {len}", n * n)]
    NotSquare {
        /// Rows claimed.
        n: usize,
        /// Values given.
        len: usize,
    },
    /// A dense matrix that is not symmetric.
    #[error("similarity matrix is not symmetric: w[{i}][{j}] = {a} but w[{j}][{i}] = {b}")]
    NotSymmetric {
        /// Row.
        i: usize,
        /// Column.
        j: usize,
        /// `w[i][j]`.
        a: f64,
        /// `w[j][i]`.
        b: f64,
    },
    /// A NaN or infinite value.
    #[error("{what}: non-finite value at row {row}, column {col}")]
    NotFinite {
        /// Which input.
        what: &'static str,
        /// Row.
        row: usize,
        /// Column.
        col: usize,
    },
    /// Feature rows of different lengths / data length not `n * d`.
    #[error("features: expected {n}×{d} = {} values, got {len}", n * d)]
    FeatureShape {
        /// Rows.
        n: usize,
        /// Columns.
        d: usize,
        /// Values given.
        len: usize,
    },
    /// A parameter out of its range.
    #[error("parameter `{name}` = {value} is out of range: {expected}")]
    BadParameter {
        /// Parameter name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// More comparisons requested than exist.
    #[error("requested {requested} distinct {what} but only {available} exist for n = {n}")]
    TooMany {
        /// "triplets" or "quadruplets".
        what: &'static str,
        /// Requested count.
        requested: u64,
        /// Number of distinct comparisons.
        available: u128,
        /// Items.
        n: usize,
    },
    /// Too many items for the index types (`u32` items, `u64` comparison ids).
    #[error("{n} items is too many for sampling {what}")]
    TooManyItems {
        /// Items.
        n: usize,
        /// "triplets" or "quadruplets".
        what: &'static str,
    },
    /// More comparisons than the memory of this machine holds (checked before sampling).
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
}

/// A symmetric similarity `w_ij` between `n` items (larger = more similar). `w_ii` is never
/// queried by the samplers. Implementations must be deterministic and thread-safe.
pub trait Similarity: Sync {
    /// Number of items.
    fn n_items(&self) -> usize;
    /// The similarity of items `i` and `j` (`i, j < n_items()`), symmetric in `(i, j)`.
    fn similarity(&self, i: usize, j: usize) -> f64;
}

impl<S: Similarity + ?Sized> Similarity for &S {
    fn n_items(&self) -> usize {
        (**self).n_items()
    }
    fn similarity(&self, i: usize, j: usize) -> f64 {
        (**self).similarity(i, j)
    }
}

/// A dense symmetric n × n similarity matrix stored row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseSimilarity {
    n: usize,
    w: Vec<f64>,
}

impl DenseSimilarity {
    /// Wrap row-major `data` (length `n * n`), checking it is finite and symmetric.
    pub fn new(n: usize, data: Vec<f64>) -> Result<Self, OracleError> {
        if n.checked_mul(n) != Some(data.len()) {
            return Err(OracleError::NotSquare { n, len: data.len() });
        }
        for i in 0..n {
            for j in 0..n {
                let a = data[i * n + j];
                if !a.is_finite() {
                    return Err(OracleError::NotFinite {
                        what: "similarity matrix",
                        row: i,
                        col: j,
                    });
                }
                if j > i {
                    let b = data[j * n + i];
                    if a != b {
                        return Err(OracleError::NotSymmetric { i, j, a, b });
                    }
                }
            }
        }
        Ok(DenseSimilarity { n, w: data })
    }

    /// Copy a faer matrix (must be square, finite and symmetric).
    pub fn from_mat(m: faer::MatRef<'_, f64>) -> Result<Self, OracleError> {
        if m.nrows() != m.ncols() {
            return Err(OracleError::NotSquare {
                n: m.nrows(),
                len: m.nrows() * m.ncols(),
            });
        }
        let n = m.nrows();
        let mut data = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                data.push(m[(i, j)]);
            }
        }
        Self::new(n, data)
    }

    /// Materialise any similarity into a dense matrix (diagonal set to 0). O(n²) memory.
    pub fn from_similarity<S: Similarity + ?Sized>(s: &S) -> Self {
        let n = s.n_items();
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            for j in (i + 1)..n {
                let v = s.similarity(i, j);
                w[i * n + j] = v;
                w[j * n + i] = v;
            }
        }
        DenseSimilarity { n, w }
    }

    /// The row-major values.
    pub fn as_slice(&self) -> &[f64] {
        &self.w
    }
}

impl Similarity for DenseSimilarity {
    fn n_items(&self) -> usize {
        self.n
    }
    #[inline]
    fn similarity(&self, i: usize, j: usize) -> f64 {
        self.w[i * self.n + j]
    }
}

/// How [`FeatureSimilarity`] turns two feature vectors into a similarity (Perrot et al. 2020, App. F.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// `w_ij = exp(−‖x_i − x_j‖² / γ²)` (Perrot et al. 2020, App. F.3, γ = 1 in the paper's MNIST runs).
    Gaussian {
        /// Bandwidth γ > 0.
        gamma: f64,
    },
    /// `w_ij = ⟨x_i, x_j⟩ / (‖x_i‖ ‖x_j‖)` (Perrot et al. 2020, App. F.3); 0 when either vector is zero.
    Cosine,
}

impl FromStr for Kernel {
    type Err = String;
    /// `gaussian` (γ = 1), `gaussian:<γ>`, or `cosine`.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        if t == "cosine" {
            return Ok(Kernel::Cosine);
        }
        if t == "gaussian" {
            return Ok(Kernel::Gaussian { gamma: 1.0 });
        }
        if let Some(g) = t.strip_prefix("gaussian:") {
            let gamma: f64 = g
                .parse()
                .map_err(|_| format!("bad γ `{g}` in kernel `{s}`"))?;
            if !(gamma > 0.0 && gamma.is_finite()) {
                return Err(format!("γ must be positive in kernel `{s}`"));
            }
            return Ok(Kernel::Gaussian { gamma });
        }
        Err(format!(
            "unknown kernel `{s}`; expected gaussian, gaussian:<gamma> or cosine"
        ))
    }
}

/// Similarities computed on demand from item features (Perrot et al. 2020, App. F.3).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureSimilarity {
    n: usize,
    d: usize,
    x: Vec<f64>,
    norms: Vec<f64>,
    kernel: Kernel,
}

impl FeatureSimilarity {
    /// `x` is row-major n × d. Values must be finite; γ must be positive.
    pub fn new(n: usize, d: usize, x: Vec<f64>, kernel: Kernel) -> Result<Self, OracleError> {
        if n.checked_mul(d) != Some(x.len()) {
            return Err(OracleError::FeatureShape { n, d, len: x.len() });
        }
        if let Some(p) = x.iter().position(|v| !v.is_finite()) {
            return Err(OracleError::NotFinite {
                what: "features",
                row: p / d.max(1),
                col: p % d.max(1),
            });
        }
        if let Kernel::Gaussian { gamma } = kernel
            && !(gamma > 0.0 && gamma.is_finite())
        {
            return Err(OracleError::BadParameter {
                name: "gamma",
                value: gamma,
                expected: "a positive finite number",
            });
        }
        let norms = (0..n)
            .map(|i| {
                x[i * d..(i + 1) * d]
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        Ok(FeatureSimilarity {
            n,
            d,
            x,
            norms,
            kernel,
        })
    }

    /// The feature dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }
}

impl Similarity for FeatureSimilarity {
    fn n_items(&self) -> usize {
        self.n
    }
    fn similarity(&self, i: usize, j: usize) -> f64 {
        let (a, b) = (self.row(i), self.row(j));
        match self.kernel {
            Kernel::Gaussian { gamma } => {
                let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
                (-d2 / (gamma * gamma)).exp()
            }
            Kernel::Cosine => {
                let den = self.norms[i] * self.norms[j];
                if den == 0.0 {
                    0.0
                } else {
                    a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / den
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_checks_shape_and_symmetry() {
        assert!(matches!(
            DenseSimilarity::new(2, vec![0.0; 3]),
            Err(OracleError::NotSquare { .. })
        ));
        assert!(matches!(
            DenseSimilarity::new(2, vec![0.0, 1.0, 2.0, 0.0]),
            Err(OracleError::NotSymmetric { i: 0, j: 1, .. })
        ));
        assert!(matches!(
            DenseSimilarity::new(1, vec![f64::NAN]),
            Err(OracleError::NotFinite { .. })
        ));
        let d = DenseSimilarity::new(2, vec![0.0, 0.5, 0.5, 0.0]).unwrap();
        assert_eq!(d.similarity(1, 0), 0.5);
        let m = faer::Mat::from_fn(2, 2, |i, j| if i == j { 0.0 } else { 0.5 });
        assert_eq!(DenseSimilarity::from_mat(m.as_ref()).unwrap(), d);
    }

    #[test]
    fn feature_kernels_by_hand() {
        let f = FeatureSimilarity::new(
            3,
            2,
            vec![0.0, 0.0, 1.0, 0.0, 0.0, 2.0],
            Kernel::Gaussian { gamma: 1.0 },
        )
        .unwrap();
        assert!((f.similarity(0, 1) - (-1.0f64).exp()).abs() < 1e-15);
        assert!((f.similarity(1, 2) - (-5.0f64).exp()).abs() < 1e-15);
        let c = FeatureSimilarity::new(3, 2, vec![1.0, 0.0, 1.0, 1.0, 0.0, 0.0], Kernel::Cosine)
            .unwrap();
        assert!((c.similarity(0, 1) - 0.5f64.sqrt()).abs() < 1e-15);
        assert_eq!(c.similarity(0, 2), 0.0);
        assert!(FeatureSimilarity::new(2, 2, vec![0.0; 3], Kernel::Cosine).is_err());
        assert!(FeatureSimilarity::new(1, 1, vec![0.0], Kernel::Gaussian { gamma: 0.0 }).is_err());
    }

    #[test]
    fn kernel_parses() {
        assert_eq!("cosine".parse::<Kernel>().unwrap(), Kernel::Cosine);
        assert_eq!(
            "Gaussian:2".parse::<Kernel>().unwrap(),
            Kernel::Gaussian { gamma: 2.0 }
        );
        assert!("gaussian:-1".parse::<Kernel>().is_err());
        assert!("rbf".parse::<Kernel>().is_err());
    }
}
