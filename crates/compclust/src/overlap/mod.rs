//! Overlapping clusters from same-cluster queries (paper 003, Huleihel, Mazumdar, Médard, Pal,
//! NeurIPS 2019), following the reconstruction in `research/overlap.md` ("the note"; its
//! appendix algorithms are derived there, not taken from the paper's text).
//!
//! | item | paper | note |
//! |---|---|---|
//! | [`Membership`] | A ∈ {0,1}^{n×k} | §1 |
//! | [`oracle`] | direct, quantized BSC(q), dithered oracles; answers from a file | §1 |
//! | [`find_membership`] | Alg. 1 FindMembership (disjoint) | §3 |
//! | [`find_similarity`] | Alg. 2 FindSimilarity (direct answers) | §3 |
//! | [`clique_cover`] | Alg. 3 / Alg. 17 (worst case, quantized) | §3, §4.2 |
//! | [`factor`] | Alg. 4/5 (AAᵀ → A), exhaustive fallback | §4.3–4.5 |
//! | [`triangle`] | Alg. 6 (BSC), Alg. 14 (unknown q), dithered single query | §4.1, §4.7, §4.8 |
//! | [`stats`] | π(s), ρ, sample-size rules, q̂ | §2 |
//!
//! Every algorithm is a step machine ([`crate::active::StepMachine`]) over [`oracle::Pair`]
//! queries and `u32` answers; drive it with [`crate::active::run`] and an oracle. Each returns
//! an [`OverlapEstimate`] (membership, queries used, sample, [`StopReason`]).

mod membership;
mod result;
mod sample;

pub mod clique_cover;
pub mod factor;
pub mod find_membership;
pub mod find_similarity;
pub mod oracle;
pub mod stats;
pub mod triangle;

pub use membership::Membership;
pub use result::{OverlapError, OverlapEstimate, SampleSize, StopReason};

/// The overlap algorithms, by their command-line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OverlapMethod {
    /// Alg. 1 FindMembership (disjoint clusters, direct answers).
    FindMembership,
    /// Alg. 2 FindSimilarity (direct answers) with Alg. 4/5.
    FindSimilarity,
    /// Alg. 3/17 clique cover (quantized noiseless answers).
    CliqueCover,
    /// Alg. 6/14 triangle counting (noisy quantized or dithered answers).
    TriangleCount,
}

impl OverlapMethod {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            OverlapMethod::FindMembership => "find-membership",
            OverlapMethod::FindSimilarity => "find-similarity",
            OverlapMethod::CliqueCover => "clique-cover",
            OverlapMethod::TriangleCount => "triangle-count",
        }
    }
}

impl std::str::FromStr for OverlapMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [
            OverlapMethod::FindMembership,
            OverlapMethod::FindSimilarity,
            OverlapMethod::CliqueCover,
            OverlapMethod::TriangleCount,
        ]
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| {
            format!("unknown method `{s}` (find-membership, find-similarity, clique-cover, triangle-count)")
        })
    }
}
