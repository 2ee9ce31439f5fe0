//! The flat pipeline (Perrot et al. 2020; Perrot et al. 2020, App. D, E.1): similarity → SDP-k or SPUR → partition of X.

use std::time::Instant;

use faer::Mat;
use serde::{Deserialize, Serialize};

use super::error::FlatError;
use super::kmeans::{KMeansParams, Points, kmeans};
use super::params::{FlatParams, NClusters, PartitionMethod};
use super::spectral::spectral;
use crate::data::Dataset;
use crate::observe::{Observer, progress, reborrow};
use crate::sdp::spur::{SpurRow, spur};
use crate::sdp::{SdpInfo, SdpProblem, solve_sdp};
use crate::similarity::{Similarity, SimilarityVariant};

/// Dense `n × n` `f64` matrices an SDP solve holds at once besides the similarity: the ADMM
/// iterates, the cost matrix and the eigendecomposition's workspace (checked against the
/// memory available before the first solve, and by a file reader that builds the similarity
/// for a flat fit, [`similarity_from_file`](crate::similarity::similarity_from_file)).
pub const SDP_MATRICES: usize = 8;

/// What SPUR did (Perrot et al. 2020, App. D, Algorithm 2): every SDP it solved and the λ range. The `X` of
/// `k̂` is [`FlatClustering::x`] (not duplicated here, so the summary serialises to JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpurSummary {
    /// Estimated number of clusters `k̂ = argmax_k θ_k`.
    pub k_hat: usize,
    /// λ_min of the paper, `sqrt(m ln n / n)` (before the λ scaling of the SPUR settings).
    pub lambda_min: f64,
    /// λ_max of the paper, `m / n`.
    pub lambda_max: f64,
    /// The two SDP-λ solves (λ_min, λ_max) that fix the k range.
    pub lambda_rows: Vec<SpurRow>,
    /// Every SDP-k solved, with its θ_k, in order.
    pub table: Vec<SpurRow>,
    /// SPUR's first-pass tolerance (`None`: every solve at the SDP tolerance).
    #[serde(default)]
    pub refine_tol: Option<f64>,
    /// How far θ_k̂ lies above every other θ_k, uncertainties included (`None` when one SDP-k
    /// was solved).
    #[serde(default)]
    pub margin: Option<f64>,
}

/// Wall-clock seconds of each step of one `fit` / `fit_similarity` call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Building the similarity S (0 for `fit_similarity`, which is given it).
    pub similarity_s: f64,
    /// SDP-k, or the whole of SPUR.
    pub sdp_s: f64,
    /// Reading the partition off X.
    pub partition_s: f64,
    /// Everything.
    pub total_s: f64,
}

/// Diagnostics of the partition step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// Method used.
    pub method: PartitionMethod,
    /// k-means inertia of the kept restart (on the rows of X, or on the spectral embedding).
    pub inertia: f64,
    /// Lloyd iterations of the kept restart.
    pub iterations: usize,
    /// Whether Lloyd's algorithm converged.
    pub converged: bool,
}

/// A fitted flat clustering. Immutable; failures of the SDP solver to reach its tolerance are
/// reported in [`FlatClustering::sdp_info`] (`converged`), not as errors.
#[derive(Clone, Debug)]
pub struct FlatClustering {
    /// Cluster of each item, `0..k_hat`, numbered by first appearance.
    pub labels: Vec<usize>,
    /// Number of clusters (estimated by SPUR, or the given k).
    pub k_hat: usize,
    /// The similarity used (AddS-3, AddS-4, MulK-3 or MulK-4).
    pub similarity: SimilarityVariant,
    /// Number of items.
    pub n_items: usize,
    /// Number of comparison rows used.
    pub n_comparisons: usize,
    /// The SDP solution X whose rows were partitioned (`n × n`; the 1 × 1 identity for n = 1).
    pub x: Mat<f64>,
    /// SPUR's table when k was estimated.
    pub spur: Option<SpurSummary>,
    /// Solver diagnostics of the SDP that produced X (`None` for n = 1).
    pub sdp_info: Option<SdpInfo>,
    /// Partition diagnostics (`None` for n = 1).
    pub partition: Option<PartitionInfo>,
    /// Time spent in each step.
    pub timings: Timings,
}

impl FlatParams {
    /// Cluster a data set of triplets (AddS-3 / MulK-3) or quadruplets (AddS-4 / MulK-4). The
    /// observer sees the SDP solves (progress and residual checks).
    pub fn fit(
        &self,
        data: &Dataset,
        observer: Option<&mut dyn Observer>,
    ) -> Result<FlatClustering, FlatError> {
        self.check()?;
        let start = Instant::now();
        if data.n_items() == 0 {
            return Err(FlatError::Empty("the data set has no items".into()));
        }
        if data.comparisons.is_empty() {
            return Err(FlatError::Empty("the data set has no comparisons".into()));
        }
        let s = Similarity::compute(self.similarity, data)?;
        let similarity_s = start.elapsed().as_secs_f64();
        self.fit_checked(&s, similarity_s, start, observer)
    }

    /// Run SDP-k / SPUR and the partition on a similarity already built (e.g. by
    /// [`AddSAccumulator`](crate::similarity::AddSAccumulator) while reading a file). Its
    /// `timings.similarity_s` is 0: the similarity was built before this call.
    pub fn fit_similarity(
        &self,
        s: &Similarity,
        observer: Option<&mut dyn Observer>,
    ) -> Result<FlatClustering, FlatError> {
        self.check()?;
        self.fit_checked(s, 0.0, Instant::now(), observer)
    }

    /// The pipeline after the similarity, on checked parameters.
    fn fit_checked(
        &self,
        s: &Similarity,
        similarity_s: f64,
        start: Instant,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<FlatClustering, FlatError> {
        let n = s.n_items();
        if n == 0 {
            return Err(FlatError::Empty("the similarity matrix is empty".into()));
        }
        crate::limits::reserve_dense(n, SDP_MATRICES)
            .map_err(|e| FlatError::Memory(Box::new(e)))?;
        if let NClusters::K(k) = self.n_clusters
            && k > n
        {
            return Err(FlatError::InvalidK { k, n });
        }
        let mut out = FlatClustering {
            labels: vec![0; n],
            k_hat: 1,
            similarity: s.kind,
            n_items: n,
            n_comparisons: s.n_comparisons,
            x: Mat::from_fn(1, 1, |_, _| 1.0),
            spur: None,
            sdp_info: None,
            partition: None,
            timings: Timings {
                similarity_s,
                ..Timings::default()
            },
        };
        if n == 1 {
            out.timings.total_s = start.elapsed().as_secs_f64();
            return Ok(out);
        }
        let t = Instant::now();
        let matrix = s.matrix.as_ref();
        let (k_hat, x, info, summary) = match self.n_clusters {
            NClusters::K(k) => {
                progress(&mut observer, 0, 1);
                let sol = solve_sdp(
                    matrix,
                    SdpProblem::K(k),
                    &self.spur.sdp,
                    None,
                    reborrow(&mut observer),
                )?;
                progress(&mut observer, 1, 1);
                (k, sol.x, sol.info, None)
            }
            NClusters::Auto => {
                let r = spur(matrix, s.n_comparisons, &self.spur, observer)?;
                let info = r
                    .table
                    .iter()
                    .find(|row| row.k == r.k_hat)
                    .map(|row| row.info.clone())
                    .expect("SPUR's k̂ is one of its SDP-k rows");
                let summary = SpurSummary {
                    k_hat: r.k_hat,
                    lambda_min: r.lambda_min,
                    lambda_max: r.lambda_max,
                    lambda_rows: r.lambda_rows,
                    table: r.table,
                    refine_tol: self.spur.first_pass_tol(),
                    margin: r.margin.is_finite().then_some(r.margin),
                };
                (r.k_hat, r.x, info, Some(summary))
            }
        };
        out.timings.sdp_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let kp = KMeansParams::new(k_hat)
            .with_seed(self.seed)
            .with_n_init(self.n_init);
        let part = match self.partition {
            PartitionMethod::Kmeans => kmeans(&Points::from_rows(x.as_ref())?, &kp)?,
            PartitionMethod::Spectral => spectral(x.as_ref(), &kp)?,
        };
        out.labels = part.labels;
        out.k_hat = k_hat;
        out.x = x;
        out.spur = summary;
        out.sdp_info = Some(info);
        out.partition = Some(PartitionInfo {
            method: self.partition,
            inertia: part.inertia,
            iterations: part.iterations,
            converged: part.converged,
        });
        out.timings.partition_s = t.elapsed().as_secs_f64();
        out.timings.total_s = start.elapsed().as_secs_f64();
        Ok(out)
    }
}

/// One-call flat clustering with the default pipeline (AddS + SPUR + k-means++) and `seed`.
pub fn cluster(data: &Dataset, seed: u64) -> Result<FlatClustering, FlatError> {
    FlatParams::new().with_seed(seed).fit(data, None)
}
