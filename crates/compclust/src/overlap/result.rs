//! What every overlap algorithm returns: the estimate, the queries used and why it stopped.

use std::str::FromStr;

use super::Membership;
use super::factor::{FactorFailure, FactorMethod};

/// Why an overlap algorithm stopped. `Completed` means every item was assigned and nothing
/// is known to be ambiguous; every other variant is a reported, graceful failure.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StopReason {
    /// Every item was assigned.
    Completed,
    /// Uniform ensemble with k = 2Δ: A and J − A give identical answers to every oracle
    /// (`docs/OVERLAP.md`), so the estimate may be the complement of the truth; the gram matrix is
    /// still right when the run is otherwise exact.
    ComplementAmbiguity,
    /// k < 3Δ − 1: some inner-product levels have the same triangle probability (`docs/OVERLAP.md`);
    /// triangle counting cannot separate them.
    LevelsInseparable,
    /// No factorisation B Bᵀ of the sample's gram matrix was found.
    FactorizationFailed {
        /// Why.
        cause: FactorFailure,
    },
    /// The sample's membership rows have rank < k even after enlarging S.
    RankDeficient {
        /// The rank reached.
        rank: usize,
    },
    /// Some items could not be assigned (listed in [`OverlapEstimate::unresolved`]).
    Unresolved {
        /// How many.
        count: usize,
    },
    /// The clique cover found a different number of clusters than expected.
    ClusterCountMismatch {
        /// Clusters found.
        found: usize,
        /// Clusters expected.
        expected: usize,
    },
    /// The answers on the sample do not fit the uniform ensemble that triangle counting
    /// (Alg. 6 / 14) assumes, so it stopped before asking the items outside S. Under the
    /// uniform ensemble every item's number of "yes" answers within S is Binomial(m − 1, p)
    /// with the same p for every item, and the yes count of S has mean C(m,2)·p and variance
    /// C(m,2)·p(1 − p) (answers to distinct pairs are pairwise independent).
    EnsembleMismatch {
        /// |S| the test ran on.
        sample: usize,
        /// Yes rate of the answers within S.
        yes_rate: f64,
        /// The yes rate the model gives for k, Δ and the known noise (`None` when q is
        /// estimated from the answers, Alg. 14).
        expected_yes_rate: Option<f64>,
        /// Variance of the items' yes counts over its Binomial value: about 1 under the model.
        dispersion: f64,
    },
}

/// A sample S that could not be used (its gram matrix did not factor, or its rows had rank
/// < k) and was replaced by a fresh one or enlarged; FindSimilarity on real data resamples
/// until the gram matrix has full rank (Huleihel et al. 2019, §4, "unquantized query responses").
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SampleAttempt {
    /// |S|.
    pub size: usize,
    /// Queries asked so far, this sample's included.
    pub queries: usize,
    /// Why it could not be used.
    pub reason: StopReason,
}

/// The result of an overlap algorithm (Huleihel et al. 2019, Alg. 1, 2, 3/17, 6, 9, 14).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OverlapEstimate {
    /// The estimated membership A (columns in an arbitrary order; unresolved items have empty
    /// rows).
    pub membership: Membership,
    /// Distinct queries asked (and answered).
    pub queries: usize,
    /// The sample S (item indices, in sampling order).
    pub sample: Vec<u32>,
    /// Why the algorithm stopped.
    pub stop: StopReason,
    /// Items that could not be assigned.
    pub unresolved: Vec<u32>,
    /// Which factorisation produced the sample's rows (Alg. 2, 6).
    pub factor_method: Option<FactorMethod>,
    /// The noise level used by Alg. 6/9: the given q, or Alg. 14's estimate q̂.
    pub q_used: Option<f64>,
    /// The membership probability used by Alg. 9 (i.i.d. ensemble): the given p or its
    /// estimate p̂.
    pub p_used: Option<f64>,
    /// Number of probe items every item outside S was compared with.
    pub probes: usize,
    /// The samples tried before S and given up (FindSimilarity; empty for the others).
    pub failed_samples: Vec<SampleAttempt>,
}

/// How large the sample S is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SampleSize {
    /// The algorithm's own rule (documented on each algorithm).
    Auto,
    /// Exactly this many items (capped at n).
    Fixed(usize),
}

impl FromStr for SampleSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "auto" {
            return Ok(SampleSize::Auto);
        }
        s.parse::<usize>()
            .ok()
            .filter(|&m| m >= 2)
            .map(SampleSize::Fixed)
            .ok_or_else(|| format!("sample size must be `auto` or an integer >= 2, got `{s}`"))
    }
}

/// Invalid parameters of an overlap algorithm.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OverlapError {
    /// k must be in 1..=64.
    #[error("number of clusters k must be in 1..=64, got {0}")]
    BadClusterCount(usize),
    /// Δ must be in 1..=k.
    #[error("clusters per item must satisfy 1 <= delta <= k, got delta = {delta}, k = {k}")]
    BadDelta {
        /// Δ.
        delta: usize,
        /// k.
        k: usize,
    },
    /// The flip probability must be in [0, 1/2).
    #[error("flip probability q must be in [0, 0.5), got {0}")]
    BadFlipProb(f64),
    /// σ must be positive and finite.
    #[error("dither sigma must be positive and finite, got {0}")]
    BadSigma(f64),
    /// At least two items are needed.
    #[error("need at least 2 items, got {0}")]
    TooFewItems(usize),
    /// The membership probability p of the i.i.d. ensemble must be in [0, 1].
    #[error("membership probability p must be in [0, 1], got {0}")]
    BadMembershipProb(f64),
    /// The chosen method does not support this combination of ensemble and answer model.
    #[error("{method} does not support {what}")]
    Unsupported {
        /// The method's name.
        method: &'static str,
        /// What is not supported.
        what: &'static str,
    },
    /// A failure probability must be in (0, 1).
    #[error("failure probability must be in (0, 1), got {0}")]
    BadFailProb(f64),
    /// The chosen method needs a parameter that was not given.
    #[error("{method} needs {what}")]
    MissingParameter {
        /// The method's name.
        method: &'static str,
        /// What is missing (e.g. "the number of clusters k").
        what: &'static str,
    },
}

pub(crate) fn check_k_delta(k: usize, delta: Option<usize>) -> Result<(), OverlapError> {
    if k == 0 || k > 64 {
        return Err(OverlapError::BadClusterCount(k));
    }
    if let Some(d) = delta
        && (d == 0 || d > k)
    {
        return Err(OverlapError::BadDelta { delta: d, k });
    }
    Ok(())
}
