//! Overlapping clusters from same-cluster queries (Huleihel et al. 2019, Huleihel, Mazumdar, Médard, Pal,
//! NeurIPS 2019), following the reconstruction in `docs/OVERLAP.md` ("the note"; its
//! appendix algorithms are derived there, not taken from the paper's text).
//!
//! | item | paper | note |
//! |---|---|---|
//! | [`Membership`] | A ∈ {0,1}^{n×k} | §1 |
//! | [`response`] | direct, quantized BSC(q), dithered response models; answers from a file | §1 |
//! | [`find_membership`] | Alg. 1 FindMembership (disjoint) | §3 |
//! | [`find_similarity`] | Alg. 2 FindSimilarity (direct answers) | §3 |
//! | [`clique_cover`] | Alg. 3 / Alg. 17 (worst case, quantized) | §3, §4.2 |
//! | [`factor`] | Alg. 4/5 (AAᵀ → A), exhaustive fallback | §4.3–4.5 |
//! | [`triangle`] | Alg. 6 (BSC), Alg. 14 (unknown q), dithered single query | §4.1, §4.7, §4.8 |
//! | [`triangle_iid`] | Alg. 9 (BSC, i.i.d. ensemble) | §4.6 |
//! | [`stats`] | π(s), ρ, weight priors, sample-size rules, q̂, p̂ | §2 |
//!
//! Every algorithm is a step machine ([`crate::active::StepMachine`]) over [`response::Pair`]
//! queries and `u32` answers; drive it with [`crate::active::run`] and an oracle. Each returns
//! an [`OverlapEstimate`] (membership, queries used, sample, [`StopReason`]).

mod result;
mod sample;

pub mod clique_cover;
pub mod factor;
pub mod find_membership;
pub mod find_similarity;
pub mod response;
pub mod stats;
pub mod triangle;
pub mod triangle_iid;

pub use crate::data::Membership;

pub use result::{OverlapError, OverlapEstimate, SampleAttempt, SampleSize, StopReason};

/// The overlap algorithms, by their command-line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OverlapMethod {
    /// Alg. 1 FindMembership (disjoint clusters, direct answers).
    FindMembership,
    /// Alg. 2 FindSimilarity (direct answers) with Alg. 4/5.
    FindSimilarity,
    /// Alg. 3/17 clique cover (quantized noiseless answers).
    CliqueCover,
    /// Triangle counting (noisy quantized or dithered answers): Alg. 6/14 for the uniform
    /// ensemble, Alg. 9 for the i.i.d. ensemble (see [`Ensemble`]).
    TriangleCount,
}

/// The random model of the memberships (Huleihel et al. 2019, §2) that FindSimilarity and triangle counting
/// assume.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum Ensemble {
    /// Every row is uniform over the weight-Δ vectors (needs Δ). Triangle counting runs
    /// Alg. 6/14; FindSimilarity uses the known diagonal Δ.
    #[default]
    Uniform,
    /// Every entry is Bernoulli(p). Triangle counting runs Alg. 9 (q must be known; `p: None`
    /// estimates p from the yes rate); FindSimilarity asks the self-queries O(i,i).
    Iid {
        /// The membership probability, if known.
        p: Option<f64>,
    },
}

impl Ensemble {
    /// The command-line name (`uniform`, `iid`).
    pub fn name(self) -> &'static str {
        match self {
            Ensemble::Uniform => "uniform",
            Ensemble::Iid { .. } => "iid",
        }
    }
}

impl std::str::FromStr for Ensemble {
    type Err = String;
    /// `uniform`, `iid` (p estimated) or `iid:P` (p known).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "uniform" => Ok(Ensemble::Uniform),
            "iid" => Ok(Ensemble::Iid { p: None }),
            _ => s
                .strip_prefix("iid:")
                .and_then(|p| p.parse::<f64>().ok())
                .filter(|p| (0.0..=1.0).contains(p))
                .map(|p| Ensemble::Iid { p: Some(p) })
                .ok_or_else(|| {
                    format!("unknown ensemble `{s}` (uniform, iid, or iid:P with P in [0, 1])")
                }),
        }
    }
}

crate::names::named_enum!(OverlapMethod, "method" {
    FindMembership => "find-membership" | "find_membership",
    FindSimilarity => "find-similarity" | "find_similarity",
    CliqueCover => "clique-cover" | "clique_cover",
    TriangleCount => "triangle-count" | "triangle_count",
});

/// Any of the overlap algorithms, chosen at run time (by the CLI or the Python bindings), with
/// the parameters they share. [`OverlapParams::run`] builds the step machine and drives it.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapParams {
    /// Which algorithm.
    pub method: OverlapMethod,
    /// Number of clusters k (FindSimilarity and triangle counting need it; clique cover uses it
    /// as a check).
    pub k: Option<usize>,
    /// Clusters per item Δ (uniform ensemble; triangle counting needs it).
    pub delta: Option<usize>,
    /// Answer noise, for triangle counting.
    pub noise: triangle::Noise,
    /// Size of the sample S.
    pub sample_size: SampleSize,
    /// Triangle counting: members per cluster in the vote probes.
    pub probes: SampleSize,
    /// Seed of the sample and of every random choice.
    pub seed: u64,
    /// The membership model (default [`Ensemble::Uniform`]): picks Alg. 6 or Alg. 9 for
    /// triangle counting, and whether FindSimilarity asks self-queries.
    pub ensemble: Ensemble,
}

impl Default for OverlapParams {
    /// FindSimilarity, nothing known, BSC with q = 0, automatic sizes, seed 0, uniform ensemble.
    fn default() -> Self {
        OverlapParams {
            method: OverlapMethod::FindSimilarity,
            k: None,
            delta: None,
            noise: triangle::Noise::Bsc { q: Some(0.0) },
            sample_size: SampleSize::Auto,
            probes: SampleSize::Auto,
            seed: 0,
            ensemble: Ensemble::Uniform,
        }
    }
}

impl OverlapParams {
    /// `method` with the defaults of [`OverlapParams::default`].
    pub fn new(method: OverlapMethod) -> Self {
        OverlapParams {
            method,
            ..OverlapParams::default()
        }
    }

    /// Set the number of clusters k.
    pub fn with_k(mut self, k: Option<usize>) -> Self {
        self.k = k;
        self
    }

    /// Set the number of clusters per item Δ.
    pub fn with_delta(mut self, delta: Option<usize>) -> Self {
        self.delta = delta;
        self
    }

    /// Set the answer noise (triangle counting).
    pub fn with_noise(mut self, noise: triangle::Noise) -> Self {
        self.noise = noise;
        self
    }

    /// Set the size of the sample S.
    pub fn with_sample_size(mut self, sample_size: SampleSize) -> Self {
        self.sample_size = sample_size;
        self
    }

    /// Set the members per cluster of triangle counting's vote probes.
    pub fn with_probes(mut self, probes: SampleSize) -> Self {
        self.probes = probes;
        self
    }

    /// Set the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Set the membership model.
    pub fn with_ensemble(mut self, ensemble: Ensemble) -> Self {
        self.ensemble = ensemble;
        self
    }

    /// Check that the chosen algorithm has what it needs: k for FindSimilarity and triangle
    /// counting, Δ for triangle counting on the uniform ensemble, a known flip probability and
    /// no dithering for Alg. 9. The ranges of the numbers are checked by each algorithm's own
    /// parameters when [`OverlapParams::run`] builds it.
    pub fn check(&self) -> Result<(), OverlapError> {
        let method = self.method.name();
        let missing = |what| OverlapError::MissingParameter { method, what };
        let unsupported = |what| OverlapError::Unsupported { method, what };
        let needs_k = matches!(
            self.method,
            OverlapMethod::FindSimilarity | OverlapMethod::TriangleCount
        );
        if needs_k && self.k.is_none() {
            return Err(missing("the number of clusters k"));
        }
        if self.method != OverlapMethod::TriangleCount {
            return Ok(());
        }
        match (self.ensemble, self.noise) {
            (Ensemble::Uniform, _) if self.delta.is_none() => Err(missing(
                "the number of clusters per item delta (uniform ensemble)",
            )),
            (Ensemble::Iid { .. }, triangle::Noise::Bsc { q: None }) => Err(unsupported(
                "an unknown flip probability with the iid ensemble (Alg. 9 needs q)",
            )),
            (Ensemble::Iid { .. }, triangle::Noise::Dither { .. }) => {
                Err(unsupported("dithered answers with the iid ensemble"))
            }
            _ => Ok(()),
        }
    }

    /// Build the chosen algorithm over `n` items and run it against `oracle` (Alg. 1, 2, 3/17,
    /// 6/14 or 9 of Huleihel et al. 2019, the last two chosen by [`OverlapParams::ensemble`]).
    /// Answers the oracle lacks are a value, `RunOutcome::Missing`, not an error.
    pub fn run<O: crate::active::Oracle<response::Pair, u32>>(
        &self,
        n: usize,
        oracle: &mut O,
    ) -> Result<crate::active::RunOutcome<OverlapEstimate, response::Pair>, OverlapError> {
        use crate::active::run;
        self.check()?;
        // `check` has made sure that every algorithm below has what it needs.
        let k = self.k.unwrap_or(0);
        Ok(match self.method {
            OverlapMethod::FindMembership => {
                let p = find_membership::FindMembershipParams {
                    sample_size: self.sample_size,
                    seed: self.seed,
                };
                run(p.build(n)?, oracle)
            }
            OverlapMethod::FindSimilarity => {
                let mut p = find_similarity::FindSimilarityParams::uniform(k, 1);
                p.delta = match self.ensemble {
                    Ensemble::Uniform => self.delta,
                    Ensemble::Iid { .. } => None,
                };
                p.sample_size = self.sample_size;
                p.seed = self.seed;
                run(p.build(n)?, oracle)
            }
            OverlapMethod::CliqueCover => {
                let p = clique_cover::CliqueCoverParams {
                    sample_size: self.sample_size,
                    expected_k: self.k,
                    seed: self.seed,
                };
                run(p.build(n)?, oracle)
            }
            OverlapMethod::TriangleCount => match (self.ensemble, self.noise) {
                (Ensemble::Iid { p }, triangle::Noise::Bsc { q: Some(q) }) => {
                    let mut a9 = triangle_iid::TriangleIidParams::new(k, p, q);
                    a9.sample_size = self.sample_size;
                    a9.probes_per_cluster = self.probes;
                    a9.seed = self.seed;
                    run(a9.build(n)?, oracle)
                }
                _ => {
                    let d = self.delta.unwrap_or(0);
                    let mut p = triangle::TriangleCountParams::new(k, d, self.noise);
                    p.sample_size = self.sample_size;
                    p.probes_per_cluster = self.probes;
                    p.seed = self.seed;
                    run(p.build(n)?, oracle)
                }
            },
        })
    }
}
