//! Errors of the SDP solver and of SPUR. Only invalid input is an error; an SDP that does not
//! reach its tolerance is reported through [`SdpInfo::converged`](super::SdpInfo).

/// Everything that can be wrong with the input of [`solve_sdp_k`](super::solve_sdp_k),
/// [`solve_sdp_lambda`](super::solve_sdp_lambda) or [`spur`](super::spur::spur).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SdpError {
    /// The similarity matrix is not square.
    #[error("similarity matrix must be square, got {rows} x {cols}")]
    NotSquare {
        /// Number of rows.
        rows: usize,
        /// Number of columns.
        cols: usize,
    },
    /// The solve was cancelled ([`crate::cancel`]) before it finished.
    #[error("the SDP solve was cancelled")]
    Cancelled,
    /// The similarity matrix has no rows.
    #[error("similarity matrix is empty (n = 0)")]
    Empty,
    /// An entry is NaN or infinite.
    #[error("similarity matrix has a non-finite entry S[{row},{col}] = {value}")]
    NonFinite {
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// `S[row,col]` and `S[col,row]` differ by more than rounding.
    #[error("similarity matrix is not symmetric: S[{row},{col}] = {a} but S[{col},{row}] = {b}")]
    NotSymmetric {
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// `S[row,col]`.
        a: f64,
        /// `S[col,row]`.
        b: f64,
    },
    /// SDP-k needs `1 <= k <= n`.
    #[error("SDP-k needs 1 <= k <= n, got k = {k} with n = {n}")]
    InvalidK {
        /// Requested number of clusters.
        k: usize,
        /// Number of items.
        n: usize,
    },
    /// SDP-λ needs a finite λ.
    #[error("SDP-lambda needs a finite lambda, got {lambda}")]
    InvalidLambda {
        /// The offending λ.
        lambda: f64,
    },
    /// A solver or SPUR parameter is out of range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// Its value, formatted.
        value: String,
        /// What the valid range is.
        reason: &'static str,
    },
    /// The warm-start state belongs to a problem of another size.
    #[error("warm-start state is for n = {state_n} but the problem has n = {n}")]
    WarmStartMismatch {
        /// Size of the state.
        state_n: usize,
        /// Size of the problem.
        n: usize,
    },
    /// A matrix SPUR kept in a temporary file in a lean solve could not be read back
    /// (`docs/SOLVER.md`, "Memory").
    #[error("could not read back a matrix kept in a temporary file: {0}")]
    Spill(String),
    /// The dense symmetric eigendecomposition (faer) failed to converge. This does not happen
    /// for finite symmetric input in practice; it is reported rather than panicking.
    #[error("symmetric eigendecomposition failed to converge (ADMM iteration {iteration})")]
    Eigen {
        /// ADMM iteration in which it happened.
        iteration: usize,
    },
}
