//! SDP-λ and SDP-k (Perrot et al. 2020, §3, §5) by ADMM (`docs/SOLVER.md`), and SPUR (Perrot et al. 2020, App. D, Alg. 2).
//!
//! * [`solve_sdp_k`] — SDP-k: `max <S,X>` s.t. `X ⪰ 0`, `X ≥ 0`, `X·1 = 1`, `tr X = k`.
//! * [`solve_sdp_lambda`] — SDP-λ: `max <S,X> − λ tr X` s.t. `X ⪰ 0`, `X ≥ 0`, `X·1 = 1`.
//!
//! **λ scaling.** λ is in the paper's scaling (Perrot et al. 2020, eq. SDP-λ). The published code minimises
//! `−½<S,X> + λ tr X`, so its λ is half of ours (`docs/SOLVER.md`); SPUR's
//! [`spur::LambdaScale`] chooses which one SPUR's λ_min, λ_max follow.
//!
//! Solver: three-block consensus ADMM with closed-form affine and nonnegative steps, exact PSD
//! projection by a full eigendecomposition or a warm-started block subspace iteration when the
//! positive part is low rank, over-relaxation α = 1.6, residual balancing of ρ, and stopping when
//! the relative primal residual, dual residual and duality gap are all ≤ `tol` (default 1e-4).
//! Benchmarks: `docs/benchmarks/sdp.md`.

// Dense numeric kernels index several matrices with the same loop variable.
#![allow(clippy::needless_range_loop)]

mod admm;
mod bisection;
mod eig;
mod error;
mod inverse_iteration;
mod params;
mod psd_part;
pub mod reference;
mod simd;
pub mod spur;
pub mod spur_refine;
mod stored;

pub use admm::{ProjectionSeconds, SdpInfo, SdpSolution, SdpState, solve_sdp};
pub use error::SdpError;
pub use params::{
    DEFAULT_LEAN_N, DEFAULT_STALL_CONE_SHARE, DEFAULT_STALL_ITERS, DEFAULT_STALL_TRIAL_ITERS,
    Projection, SdpCheck, SdpParams, SdpProblem, check_tol,
};

use faer::MatRef;

/// Solves SDP-k (Perrot et al. 2020, §5; Yan et al. 2018): `max <S,X>` subject to `X ⪰ 0`, `X ≥ 0`, `X·1 = 1`,
/// `tr X = k`. `s` must be square, symmetric and finite; `1 ≤ k ≤ n`. Not reaching the tolerance
/// is reported in [`SdpInfo::converged`], not as an error.
pub fn solve_sdp_k(
    s: MatRef<'_, f64>,
    k: usize,
    params: &SdpParams,
) -> Result<SdpSolution, SdpError> {
    solve_sdp(s, SdpProblem::K(k), params, None, None)
}

/// [`solve_sdp_k`] warm-started from the state of a previous solve on the same `S` size
/// (SPUR's sequence; `docs/SOLVER.md`).
pub fn solve_sdp_k_warm(
    s: MatRef<'_, f64>,
    k: usize,
    params: &SdpParams,
    warm: Option<&SdpState>,
) -> Result<SdpSolution, SdpError> {
    solve_sdp(s, SdpProblem::K(k), params, warm, None)
}

/// Solves SDP-λ (Perrot et al. 2020, §3, Prop. 1): `max <S,X> − λ tr X` subject to `X ⪰ 0`, `X ≥ 0`,
/// `X·1 = 1`, with λ in the paper's scaling (the published code's λ is half of this one).
pub fn solve_sdp_lambda(
    s: MatRef<'_, f64>,
    lambda: f64,
    params: &SdpParams,
) -> Result<SdpSolution, SdpError> {
    solve_sdp(s, SdpProblem::Lambda(lambda), params, None, None)
}

/// [`solve_sdp_lambda`] warm-started from the state of a previous solve.
pub fn solve_sdp_lambda_warm(
    s: MatRef<'_, f64>,
    lambda: f64,
    params: &SdpParams,
    warm: Option<&SdpState>,
) -> Result<SdpSolution, SdpError> {
    solve_sdp(s, SdpProblem::Lambda(lambda), params, warm, None)
}
