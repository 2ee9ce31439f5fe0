//! Parameters of the flat pipeline, validated in one place ([`FlatParams::check`]).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::FlatError;
use crate::names::named_enum;
use crate::sdp::spur::SpurParams;
use crate::similarity::SimilarityKind;

/// How many clusters: chosen by SPUR (Perrot et al. 2020, App. D, Algorithm 2) or given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NClusters {
    /// Estimate k̂ with comparison-based SPUR.
    #[default]
    Auto,
    /// Known k: solve SDP-k once, no SPUR.
    K(usize),
}

impl std::fmt::Display for NClusters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NClusters::Auto => f.write_str("auto"),
            NClusters::K(k) => write!(f, "{k}"),
        }
    }
}

impl FromStr for NClusters {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(NClusters::Auto);
        }
        match s.parse::<usize>() {
            Ok(k) if k >= 1 => Ok(NClusters::K(k)),
            _ => Err(format!(
                "invalid number of clusters `{s}`; expected `auto` or a positive integer"
            )),
        }
    }
}

/// How the partition is read off the SDP solution X (Perrot et al. 2020, App. E.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartitionMethod {
    /// k-means++ with seeded restarts on the rows of X (the paper's default).
    #[default]
    Kmeans,
    /// Normalised spectral clustering with X as the affinity (full eigendecomposition, O(n³)).
    Spectral,
}

named_enum!(PartitionMethod, "partition method" {
    Kmeans => "kmeans" | "k-means" | "kmeans++" | "k-means++" | "k_means",
    Spectral => "spectral",
});

impl std::fmt::Display for PartitionMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Settings of the flat pipeline (Perrot et al. 2020, §4 and App. D, E.1). Build with [`FlatParams::new`] and the
/// `with_*` setters, validate with [`FlatParams::check`] (called by `fit`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlatParams {
    /// AddS (default) or MulK; the 3- or 4-item variant follows the comparisons.
    pub similarity: SimilarityKind,
    /// SPUR (default) or a known k.
    pub n_clusters: NClusters,
    /// k-means++ (default) or spectral clustering of X.
    pub partition: PartitionMethod,
    /// Seed of the partition step (the only random step; SDP and SPUR are deterministic).
    pub seed: u64,
    /// k-means++ restarts (default 10).
    pub n_init: usize,
    /// SPUR settings, including the SDP solver settings used for every solve (also for the
    /// single SDP-k solve of a known k).
    pub spur: SpurParams,
}

impl Default for FlatParams {
    fn default() -> Self {
        FlatParams {
            similarity: SimilarityKind::AddS,
            n_clusters: NClusters::Auto,
            partition: PartitionMethod::Kmeans,
            seed: 0,
            n_init: 10,
            spur: SpurParams::default(),
        }
    }
}

impl FlatParams {
    /// The paper's default pipeline: AddS, SPUR, k-means++, seed 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the similarity family.
    pub fn with_similarity(mut self, s: SimilarityKind) -> Self {
        self.similarity = s;
        self
    }

    /// Set the number of clusters.
    pub fn with_n_clusters(mut self, k: NClusters) -> Self {
        self.n_clusters = k;
        self
    }

    /// Set the partition method.
    pub fn with_partition(mut self, p: PartitionMethod) -> Self {
        self.partition = p;
        self
    }

    /// Set the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Set the number of k-means++ restarts.
    pub fn with_n_init(mut self, n_init: usize) -> Self {
        self.n_init = n_init;
        self
    }

    /// Set the SPUR / SDP settings.
    pub fn with_spur(mut self, spur: SpurParams) -> Self {
        self.spur = spur;
        self
    }

    /// Set the stopping tolerance of every SDP solve (SPUR's and a known k's; Perrot et al. 2020, §3: primal,
    /// dual residual and duality gap ≤ `tol`). Checked by [`FlatParams::check`].
    pub fn with_sdp_tol(mut self, tol: f64) -> Self {
        self.spur.sdp.tol = tol;
        self
    }

    /// Set SPUR's first-pass tolerance ([`SpurParams::refine_tol`]; `None`: every SDP of SPUR
    /// at the SDP tolerance, as Perrot et al. 2020, App. D, Algorithm 2 is written).
    pub fn with_spur_refine(mut self, tol: Option<f64>) -> Self {
        self.spur.refine_tol = tol;
        self
    }

    /// Validate every field (the only place parameters are checked).
    pub fn check(&self) -> Result<(), FlatError> {
        if self.n_init == 0 {
            return Err(FlatError::InvalidParam {
                name: "n_init",
                reason: "must be at least 1".into(),
            });
        }
        if self.n_clusters == NClusters::K(0) {
            return Err(FlatError::InvalidParam {
                name: "n_clusters",
                reason: "must be `auto` or at least 1".into(),
            });
        }
        self.spur.check()?;
        Ok(())
    }
}
