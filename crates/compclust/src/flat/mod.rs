//! Flat clustering pipeline: similarity → SDP (→ SPUR) → partition (k-means++ or spectral).
//!
//! Perrot et al. (2020): build AddS-3 (triplets) or AddS-4 (quadruplets) — or the MulK baselines —
//! from the comparisons ([`crate::similarity`]), solve SDP-k for a known `k` or choose `k̂` with
//! comparison-based SPUR (Perrot et al. 2020, App. D, Algorithm 2; [`crate::sdp::spur`]), and read the
//! partition off the rows of `X_k̂` with k-means++ or spectral clustering (Perrot et al. 2020, App. E.1).
//!
//! ```no_run
//! use compclust::flat::{FlatParams, NClusters};
//! # fn demo(data: &compclust::data::Dataset) -> Result<(), compclust::flat::FlatError> {
//! let fitted = FlatParams::new().with_n_clusters(NClusters::Auto).with_seed(0).fit(data, None)?;
//! println!("k̂ = {}, labels = {:?}", fitted.k_hat, fitted.labels);
//! # Ok(()) }
//! ```

mod error;
pub mod kmeans;
mod params;
mod pipeline;
pub mod spectral;

pub use error::FlatError;
pub use kmeans::{KMeansParams, KMeansResult, Points, kmeans};
pub use params::{FlatParams, NClusters, PartitionMethod};
pub use pipeline::{FlatClustering, PartitionInfo, SDP_MATRICES, SpurSummary, Timings, cluster};
pub use spectral::spectral;
