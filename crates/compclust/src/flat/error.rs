//! Errors of the flat clustering pipeline.

use crate::sdp::SdpError;
use crate::similarity::SimilarityError;

/// What can go wrong in the flat pipeline (similarity → SDP → SPUR → partition).
#[derive(Debug, thiserror::Error)]
pub enum FlatError {
    /// A parameter is out of its valid range.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// Why it is invalid.
        reason: String,
    },
    /// The requested number of clusters is impossible for `n` items.
    #[error("cannot form {k} clusters from {n} items (need 1 ≤ k ≤ n)")]
    InvalidK {
        /// Requested k.
        k: usize,
        /// Number of items.
        n: usize,
    },
    /// Input of the wrong size.
    #[error("{what}: expected {expected}, got {got}")]
    Shape {
        /// What was being built.
        what: &'static str,
        /// Expected size.
        expected: String,
        /// Actual size.
        got: usize,
    },
    /// A NaN or infinite value.
    #[error("{what}: non-finite value at row {row}, column {col}")]
    NonFinite {
        /// What was being built.
        what: &'static str,
        /// Row of the value.
        row: usize,
        /// Column of the value.
        col: usize,
    },
    /// Too few items or comparisons to cluster.
    #[error("nothing to cluster: {0}")]
    Empty(String),
    /// Building the similarity failed.
    #[error(transparent)]
    Similarity(#[from] SimilarityError),
    /// The eigendecomposition used by spectral clustering failed.
    #[error("eigendecomposition failed during {during}")]
    Eigen {
        /// Which step.
        during: &'static str,
    },
    /// The SDP solver or SPUR rejected its input.
    #[error("SDP / SPUR: {0}")]
    Sdp(#[from] SdpError),
    /// The SDP's `n × n` matrices need more memory than is available (or than the documented
    /// limit on items for dense matrices).
    #[error(transparent)]
    Memory(Box<crate::limits::LimitError>),
}
