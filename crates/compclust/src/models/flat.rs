//! Flat planted model (Perrot et al. 2020, §2) with the F_in/F_out families of Perrot et al. 2020, App. E.3.
//!
//! `n` items are split into `k` clusters of sizes as equal as possible (items `0..n1` form
//! cluster 0, the next `n2` cluster 1, …; the first `n mod k` clusters get one extra item).
//! Similarities are independent, `w_ij ~ F_in` within a cluster and `F_out` across, with
//! `P(w > w' | w ~ F_in, w' ~ F_out) = (1 + δ)/2` (Perrot et al. 2020, eq. 3).

use std::str::FromStr;

use super::{ModelError, normal_cdf, normal_pdf, normal_quantile};
use crate::data::Comparisons;
use crate::math::rng::CounterRng;
use crate::simulate::{Budget, OracleError, Similarity, sample_comparisons};

/// The (F_in, F_out) pairs of Perrot et al. 2020, App. E.3 / Figure 1c, each parameterised by δ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// F_in = N(μ_in, σ²), F_out = N(0, σ²), σ = 0.1, μ_in = √2 σ Φ⁻¹((1+δ)/2) (the paper's
    /// default model, Perrot et al. 2020, §5; δ in (0, 1)).
    NormalNormal,
    /// F_in = U(a, 1 + a), F_out = U(0, 1) with a = 1 − √(1 − δ), so that
    /// P(w > w') = 1 − (1 − a)²/2 = (1 + δ)/2 (δ in (0, 1]).
    UniformUniform,
    /// F_in = Beta(α, β), F_out = Beta(1, 1) = U(0, 1), β = 2, α = β (1+δ)/(1−δ)
    /// (Perrot et al. 2020, App. E.3; δ in (0, 1)).
    BetaBeta,
    /// F_in = N(μ, σ²) with σ = 0.1, F_out = U(0, 1) (Perrot et al. 2020, App. E.3 "Uniform + Normal"); μ is
    /// solved numerically from E[clamp(w, 0, 1)] = (1+δ)/2 (≈ (1+δ)/2, as in the paper;
    /// δ in (0, 1)).
    NormalUniform,
}

impl Family {
    /// All families.
    pub const ALL: [Family; 4] = [
        Family::NormalNormal,
        Family::UniformUniform,
        Family::BetaBeta,
        Family::NormalUniform,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Family::NormalNormal => "normal",
            Family::UniformUniform => "uniform",
            Family::BetaBeta => "beta",
            Family::NormalUniform => "normal-uniform",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Self, ModelError> {
        let t = s.trim().to_ascii_lowercase().replace(['_', '/', '+'], "-");
        Ok(match t.as_str() {
            "normal" | "normal-normal" | "gaussian" => Family::NormalNormal,
            "uniform" | "uniform-uniform" => Family::UniformUniform,
            "beta" | "beta-beta" | "beta-uniform" => Family::BetaBeta,
            "normal-uniform" | "uniform-normal" => Family::NormalUniform,
            _ => return Err(ModelError::UnknownFamily(s.to_string())),
        })
    }
}

/// σ of the normal distributions in the App. E.3 families.
pub const SIGMA: f64 = 0.1;

/// E[clamp(W, 0, 1)] for W ~ N(μ, σ²): ∫₀¹ P(W > t) dt = 1 − σ [G((1−μ)/σ) − G(−μ/σ)] with
/// G(z) = zΦ(z) + φ(z). Equals P(W > U) for U ~ U(0, 1).
pub fn normal_beats_uniform(mu: f64, sigma: f64) -> f64 {
    let g = |z: f64| z * normal_cdf(z) + normal_pdf(z);
    1.0 - sigma * (g((1.0 - mu) / sigma) - g(-mu / sigma))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dist {
    Normal { mean: f64, sd: f64 },
    Uniform { lo: f64 },
    Beta { alpha: f64, beta: f64 },
}

impl Dist {
    #[inline]
    fn draw(self, r: &mut CounterRng) -> f64 {
        match self {
            Dist::Normal { mean, sd } => mean + sd * r.normal(),
            Dist::Uniform { lo } => lo + r.uniform(),
            Dist::Beta { alpha, beta } => r.beta(alpha, beta),
        }
    }
}

/// The flat planted model of Perrot et al. 2020, §2 with `k` clusters of near-equal sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct PlantedFlat {
    n: usize,
    k: usize,
    family: Family,
    delta: f64,
    seed: u64,
    labels: Vec<usize>,
    f_in: Dist,
    f_out: Dist,
}

impl PlantedFlat {
    /// Validate the parameters and set up the model: `n ≥ 1` items, `1 ≤ k ≤ n` clusters,
    /// δ in (0, 1) ((0, 1] for [`Family::UniformUniform`]).
    pub fn new(
        n: usize,
        k: usize,
        family: Family,
        delta: f64,
        seed: u64,
    ) -> Result<Self, ModelError> {
        if n == 0 || n > u32::MAX as usize {
            return Err(ModelError::BadParameter {
                name: "n",
                value: n as f64,
                expected: "at least 1 item (and at most 2^32 − 1)".into(),
            });
        }
        if k == 0 || k > n {
            return Err(ModelError::BadParameter {
                name: "k",
                value: k as f64,
                expected: format!("between 1 and n = {n}"),
            });
        }
        let max = if family == Family::UniformUniform {
            1.0
        } else {
            1.0 - 1e-12
        };
        if !(delta > 0.0 && delta <= max) {
            return Err(ModelError::BadParameter {
                name: "delta",
                value: delta,
                expected: format!(
                    "δ in (0, 1{} for family {family}",
                    if max == 1.0 { "]" } else { ")" }
                ),
            });
        }
        let (f_in, f_out) = match family {
            Family::NormalNormal => (
                Dist::Normal {
                    mean: std::f64::consts::SQRT_2 * SIGMA * normal_quantile((1.0 + delta) / 2.0),
                    sd: SIGMA,
                },
                Dist::Normal {
                    mean: 0.0,
                    sd: SIGMA,
                },
            ),
            Family::UniformUniform => (
                Dist::Uniform {
                    lo: 1.0 - (1.0 - delta).sqrt(),
                },
                Dist::Uniform { lo: 0.0 },
            ),
            Family::BetaBeta => (
                Dist::Beta {
                    alpha: 2.0 * (1.0 + delta) / (1.0 - delta),
                    beta: 2.0,
                },
                Dist::Uniform { lo: 0.0 },
            ),
            Family::NormalUniform => {
                let target = (1.0 + delta) / 2.0;
                let (mut lo, mut hi) = (-1.0f64, 3.0f64);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if normal_beats_uniform(mid, SIGMA) < target {
                        lo = mid
                    } else {
                        hi = mid
                    }
                }
                (
                    Dist::Normal {
                        mean: 0.5 * (lo + hi),
                        sd: SIGMA,
                    },
                    Dist::Uniform { lo: 0.0 },
                )
            }
        };
        let labels = balanced_labels(n, k);
        Ok(PlantedFlat {
            n,
            k,
            family,
            delta,
            seed,
            labels,
            f_in,
            f_out,
        })
    }

    /// The true cluster of each item (`0..k`).
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// The seed of the similarities.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The mean of F_in for the normal families (μ_in), if F_in is normal.
    pub fn mu_in(&self) -> Option<f64> {
        match self.f_in {
            Dist::Normal { mean, .. } => Some(mean),
            _ => None,
        }
    }

    /// Draw `w` from F_in (`within = true`) or F_out with a caller-supplied stream (for
    /// tests of the family's δ).
    pub fn draw(&self, within: bool, r: &mut CounterRng) -> f64 {
        if within {
            self.f_in.draw(r)
        } else {
            self.f_out.draw(r)
        }
    }
}

/// A simulated planted instance, described by everything but its seed: the model of Perrot,
/// Esser & Ghoshdastidar (2020, §2) and a budget of passive comparisons with crowd noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlantedInstance {
    /// Number of items.
    pub n: usize,
    /// Number of planted clusters.
    pub k: usize,
    /// The (F_in, F_out) pair.
    pub family: Family,
    /// Separation δ of F_in and F_out.
    pub delta: f64,
    /// Crowd noise ε: each answer is correct with probability `(1 + ε)/2`.
    pub eps: f64,
    /// Quadruplets instead of triplets.
    pub quadruplets: bool,
    /// How many comparisons.
    pub budget: Budget,
}

/// Why a planted instance could not be sampled.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    /// Bad model parameters.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// Bad sampling parameters (noise, budget).
    #[error(transparent)]
    Sampling(#[from] OracleError),
}

impl PlantedInstance {
    /// The model and its comparisons at `seed`, by the one seed rule of
    /// [`crate::simulate::sample_comparisons`]: the model is built with `seed` and the
    /// comparisons are drawn with `seed`.
    pub fn sample(&self, seed: u64) -> Result<(PlantedFlat, Comparisons), InstanceError> {
        let model = PlantedFlat::new(self.n, self.k, self.family, self.delta, seed)?;
        let comparisons =
            sample_comparisons(&model, self.quadruplets, self.budget, self.eps, seed)?;
        Ok((model, comparisons))
    }
}

/// Labels of `n` items in `k` contiguous clusters of sizes as equal as possible (the first
/// `n mod k` clusters have one more item).
pub fn balanced_labels(n: usize, k: usize) -> Vec<usize> {
    let base = n / k;
    let extra = n % k;
    let mut v = Vec::with_capacity(n);
    for c in 0..k {
        let size = base + usize::from(c < extra);
        v.extend(std::iter::repeat_n(c, size));
    }
    v
}

impl Similarity for PlantedFlat {
    fn n_items(&self) -> usize {
        self.n
    }

    /// `w_ij` drawn from F_in or F_out with the stream of `(seed, min(i,j), max(i,j))`;
    /// `w_ii` is undefined in the model and returned as 0.
    #[inline]
    fn similarity(&self, i: usize, j: usize) -> f64 {
        if i == j {
            return 0.0;
        }
        let mut r = CounterRng::for_pair(self.seed, i, j);
        if self.labels[i] == self.labels[j] {
            self.f_in.draw(&mut r)
        } else {
            self.f_out.draw(&mut r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_sizes() {
        let l = balanced_labels(10, 3);
        assert_eq!(l, vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert_eq!(balanced_labels(4, 4), vec![0, 1, 2, 3]);
    }

    #[test]
    fn parameters_validated() {
        assert!(PlantedFlat::new(10, 0, Family::NormalNormal, 0.5, 1).is_err());
        assert!(PlantedFlat::new(10, 11, Family::NormalNormal, 0.5, 1).is_err());
        assert!(PlantedFlat::new(10, 2, Family::NormalNormal, 1.0, 1).is_err());
        assert!(PlantedFlat::new(10, 2, Family::BetaBeta, 0.0, 1).is_err());
        assert!(PlantedFlat::new(10, 2, Family::UniformUniform, 1.0, 1).is_ok());
        assert!(PlantedFlat::new(0, 1, Family::UniformUniform, 0.5, 1).is_err());
        assert!("cauchy".parse::<Family>().is_err());
        for f in Family::ALL {
            assert_eq!(f.name().parse::<Family>().unwrap(), f);
        }
        assert_eq!(
            "Uniform/Normal".parse::<Family>().unwrap(),
            Family::NormalUniform
        );
    }

    #[test]
    fn paper_default_mu_in() {
        // Perrot et al. 2020, §5: σ = 0.1, δ = 0.5 → μ_in = √2 · 0.1 · Φ⁻¹(0.75) ≈ 0.0953872
        let m = PlantedFlat::new(8, 2, Family::NormalNormal, 0.5, 0).unwrap();
        assert!((m.mu_in().unwrap() - 0.095_387_2).abs() < 1e-6);
        // Normal/Uniform: the paper reports μ ≈ (1+δ)/2
        let m = PlantedFlat::new(8, 2, Family::NormalUniform, 0.5, 0).unwrap();
        assert!((m.mu_in().unwrap() - 0.75).abs() < 1e-3);
        assert!((normal_beats_uniform(m.mu_in().unwrap(), SIGMA) - 0.75).abs() < 1e-12);
    }

    /// Monte-Carlo check of Perrot et al. 2020, eq. 3 for every family: P(w_in > w_out) = (1+δ)/2 and
    /// P(w > w') = 1/2 within a family (trivially true for i.i.d. continuous draws).
    #[test]
    fn each_family_has_its_delta() {
        for f in Family::ALL {
            for delta in [0.2, 0.5, 0.8] {
                let m = PlantedFlat::new(4, 2, f, delta, 0).unwrap();
                let mut r = CounterRng::new(42, f as u64, (delta * 10.0) as u64);
                let trials = 100_000;
                let wins = (0..trials)
                    .filter(|_| m.draw(true, &mut r) > m.draw(false, &mut r))
                    .count() as f64
                    / trials as f64;
                // sd ≤ 0.0016
                assert!(
                    (wins - (1.0 + delta) / 2.0).abs() < 0.008,
                    "{f} δ={delta}: {wins}"
                );
            }
        }
    }

    #[test]
    fn lazy_similarity_is_symmetric_and_seeded() {
        let m = PlantedFlat::new(50, 3, Family::NormalNormal, 0.5, 9).unwrap();
        let m2 = PlantedFlat::new(50, 3, Family::NormalNormal, 0.5, 9).unwrap();
        let m3 = PlantedFlat::new(50, 3, Family::NormalNormal, 0.5, 10).unwrap();
        for i in 0..50 {
            for j in 0..50 {
                assert_eq!(m.similarity(i, j), m.similarity(j, i));
                assert_eq!(m.similarity(i, j), m2.similarity(i, j));
            }
        }
        assert_ne!(m.similarity(0, 1), m3.similarity(0, 1));
        // empirical within / across means ≈ μ_in / 0
        let (mut si, mut ni, mut so, mut no) = (0.0, 0, 0.0, 0);
        for i in 0..50 {
            for j in (i + 1)..50 {
                if m.labels()[i] == m.labels()[j] {
                    si += m.similarity(i, j);
                    ni += 1;
                } else {
                    so += m.similarity(i, j);
                    no += 1;
                }
            }
        }
        assert!((si / ni as f64 - m.mu_in().unwrap()).abs() < 0.015);
        assert!((so / no as f64).abs() < 0.01);
    }
}
