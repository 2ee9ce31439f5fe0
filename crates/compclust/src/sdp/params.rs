//! Solver parameters ([`SdpParams`]) and the two problems ([`SdpProblem`]).

use super::error::SdpError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which of the two SDPs of Perrot et al. 2020, §3 / §5 to solve. Both have the constraints
/// `X ⪰ 0`, `X ≥ 0` (entrywise) and `X·1 = 1`.
///
/// * `Lambda(λ)` — **SDP-λ** (Perrot et al. 2020, §3): `max <S,X> − λ·tr X`. λ is in the *paper's* scaling.
///   The published code (mperrot/AddS-Clustering, SCS) minimises `−½<S,X> + λ tr X`, i.e. its λ
///   equals half of ours: `Lambda(2λ_published)` reproduces the published solve
///   (see `docs/SOLVER.md` and [`LambdaScale`](super::spur::LambdaScale)).
/// * `K(k)` — **SDP-k** (Perrot et al. 2020, §5, Yan et al. 2018): `max <S,X>` s.t. additionally `tr X = k`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SdpProblem {
    /// SDP-λ with the given λ (paper scaling).
    Lambda(f64),
    /// SDP-k with the given number of clusters `1 <= k <= n`.
    K(usize),
}

impl fmt::Display for SdpProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SdpProblem::Lambda(l) => write!(f, "SDP-lambda(lambda = {l})"),
            SdpProblem::K(k) => write!(f, "SDP-k(k = {k})"),
        }
    }
}

/// How the PSD projection `Π_psd(W)` of each ADMM iteration is computed (`docs/SOLVER.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Projection {
    /// Always a full dense symmetric eigendecomposition (faer). Exact, `O(n³)` per iteration.
    Full,
    /// Full eigendecomposition while the positive part of `W` has high rank, a warm-started
    /// block subspace iteration on the positive part when it is low rank, with the acceptance
    /// test and the cone-violation stopping check of the `docs/OVERLAP.md`
    #[default]
    Adaptive,
}

crate::names::named_enum!(Projection, "projection" {
    Full => "full",
    Adaptive => "adaptive",
});

/// Parameters of the ADMM solver (`docs/SOLVER.md`). Build with [`SdpParams::default`] and the
/// `with_*` methods; every solve calls [`SdpParams::check`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdpParams {
    /// Stopping tolerance on the relative primal residual, dual residual and duality gap
    /// (all three must be ≤ `tol`; plus the cone check when partial projections were used).
    /// Default `1e-4`.
    pub tol: f64,
    /// Maximum number of ADMM iterations. Default 20 000.
    pub max_iter: usize,
    /// Over-relaxation α in `(0, 2)`. Default 1.6.
    pub alpha: f64,
    /// Initial penalty ρ; `None` = `20‖C‖_F/√k` (cold; see `admm.rs`) or the warm state's ρ.
    pub rho: Option<f64>,
    /// Residual balancing of ρ (double/halve when one residual exceeds 5× the other). Default on.
    pub adaptive_rho: bool,
    /// Residuals are evaluated every `check_every` iterations. Default 10.
    pub check_every: usize,
    /// PSD projection strategy. Default [`Projection::Adaptive`].
    pub projection: Projection,
    /// Threads for faer kernels: 0 = all rayon threads, 1 = sequential. Default 0.
    pub threads: usize,
    /// From this many items on, the solver saves memory at a small cost in time
    /// (`docs/SOLVER.md`, "Memory"): `C = −S + λI` is formed column by column instead of
    /// stored, a projection the warm block cannot make tries a grown block (confirmed by an
    /// inertia count) before a full eigendecomposition, a full eigendecomposition forms only
    /// the eigenvectors it reads (by inverse iteration on the tridiagonal form), the inertia
    /// counts work in `X`'s buffer, and SPUR keeps its warm-start states and the leader's
    /// solution rounded to single precision in temporary files (`TMPDIR`). Below it every
    /// solve is number for number what it was before these savings. Default
    /// [`DEFAULT_LEAN_N`].
    #[serde(default = "default_lean_n")]
    pub lean_n: usize,
    /// Stalled partial projections (`docs/SOLVER.md`, "Stalled partial projections"): when the
    /// worst stopping measure has not halved within this many iterations while the solve used
    /// partial (block) projections whose error is at least [`SdpParams::stall_cone_share`] of
    /// it at that check and at half the checks since it last halved, the solve tries full
    /// eigendecompositions ([`SdpParams::stall_trial_iters`]). 0 = never. Not applied from
    /// [`SdpParams::lean_n`] on, where a full eigendecomposition per iteration would cost the
    /// memory a lean solve saves. Default [`DEFAULT_STALL_ITERS`].
    #[serde(default = "default_stall_iters")]
    pub stall_iters: usize,
    /// The share of the worst stopping measure that the partial projections' error (their
    /// relative cone violation, [`SdpCheck::cone`]) must reach at a stalled check, and at no
    /// fewer than half of the checks since the worst measure last halved, before the solve
    /// switches to full eigendecompositions ([`SdpParams::stall_iters`]). A slow tail whose
    /// partial projections are accurate is ADMM's own linear rate, which exact projections do
    /// not shorten; 0 switches at every stall. Default [`DEFAULT_STALL_CONE_SHARE`].
    #[serde(default = "default_stall_cone_share")]
    pub stall_cone_share: f64,
    /// How many iterations a stalled solve ([`SdpParams::stall_iters`]) tries full
    /// eigendecompositions before it judges them: it keeps them for the rest of the solve once
    /// the worst measure has fallen to half the lowest value it had since it last halved, and
    /// returns to the partial projections when that has not happened within these iterations,
    /// then waits twice as long as before for the next stall. A stall that the projection
    /// error causes ends within tens of iterations of exact projections; a slow tail that
    /// ADMM's own linear rate sets goes on at the same rate with them, at several times the
    /// cost per iteration. 0 keeps them at the first stall without a trial. Default
    /// [`DEFAULT_STALL_TRIAL_ITERS`].
    #[serde(default = "default_stall_trial_iters")]
    pub stall_trial_iters: usize,
}

/// Default [`SdpParams::lean_n`]: the size from which memory, not time, limits a run (SPUR
/// peaked at 1.1 GB at n = 3000 and at 11.9 GB at n = 10,000 without the savings), and below
/// which forming `C`'s columns would cost time that matters (6 % of SPUR's at n = 1000).
pub const DEFAULT_LEAN_N: usize = 2500;

fn default_lean_n() -> usize {
    DEFAULT_LEAN_N
}

/// Default [`SdpParams::stall_iters`]: the stalled MulK-3 solves of `docs/benchmarks/sdp.md`
/// (2026-11-30) hovered within a factor of ten of the tolerance for thousands of iterations,
/// while none of the 70 solves of SPUR at the paper default on ten seeds went this long
/// without halving its worst measure.
pub const DEFAULT_STALL_ITERS: usize = 300;

fn default_stall_iters() -> usize {
    DEFAULT_STALL_ITERS
}

/// Default [`SdpParams::stall_cone_share`]. On a stalled MulK-3 solve of
/// `docs/benchmarks/sdp.md` (2026-11-30), run to the end without the switch, the partial
/// projections' error stood at a median 3.6 times the worst measure, and at half of it or more
/// at 94 % of the checks. On slow but healthy AddS-3 SDP-k tails of `flat-distributions` at
/// n = 1000 it stood at 0.0003–0.003 of it (k = 2, 980 iterations to 1e-4), or at a median
/// 0.045 with spikes up to 2.4 at a few checks (k = 4, 3,120 iterations, 7 of 312 checks at
/// half or more); switching those two made them 14 and 6.5 times slower for the same
/// iterations.
pub const DEFAULT_STALL_CONE_SHARE: f64 = 0.5;

fn default_stall_cone_share() -> f64 {
    DEFAULT_STALL_CONE_SHARE
}

/// Default [`SdpParams::stall_trial_iters`]. The stalled MulK-3 solves of
/// `docs/benchmarks/sdp.md` (2026-11-30) fell tenfold within 30 iterations of exact
/// projections; the healthy AddS-3 SDP-k tails that the stall rule also caught took 400–700
/// iterations to halve their worst measure, with exact projections or without.
pub const DEFAULT_STALL_TRIAL_ITERS: usize = 50;

fn default_stall_trial_iters() -> usize {
    DEFAULT_STALL_TRIAL_ITERS
}

/// The solver's state at one residual check, as an [`Observer`](crate::observe::Observer)
/// receives it (its `Display` is a one-line trace).
#[derive(Debug, Clone, PartialEq)]
pub struct SdpCheck {
    /// The problem being solved.
    pub problem: SdpProblem,
    /// Iterations done.
    pub iteration: usize,
    /// Relative primal residual.
    pub primal: f64,
    /// Relative dual residual.
    pub dual: f64,
    /// Relative duality gap.
    pub gap: f64,
    /// Relative cone violation of the partial projections since the last check.
    pub cone: f64,
    /// Penalty ρ.
    pub rho: f64,
    /// Full eigendecompositions so far.
    pub eig_full: usize,
    /// Partial projections so far.
    pub eig_partial: usize,
    /// Width of the eigensolver block.
    pub block: usize,
    /// Seconds since the solve started.
    pub seconds: f64,
    /// The stopping tolerance.
    pub tol: f64,
}

impl SdpCheck {
    /// The largest of the three stopping measures (the solve stops when it is ≤ `tol`).
    pub fn worst(&self) -> f64 {
        self.primal.max(self.dual).max(self.gap)
    }
}

impl fmt::Display for SdpCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} it={} p={:.1e} d={:.1e} gap={:.1e} cone={:.1e} rho={:.2e} full={} partial={} block={} {:.1}s",
            self.problem,
            self.iteration,
            self.primal,
            self.dual,
            self.gap,
            self.cone,
            self.rho,
            self.eig_full,
            self.eig_partial,
            self.block,
            self.seconds
        )
    }
}

impl Default for SdpParams {
    fn default() -> Self {
        SdpParams {
            tol: 1e-4,
            max_iter: 20_000,
            alpha: 1.6,
            rho: None,
            adaptive_rho: true,
            check_every: 10,
            projection: Projection::Adaptive,
            threads: 0,
            lean_n: DEFAULT_LEAN_N,
            stall_iters: DEFAULT_STALL_ITERS,
            stall_cone_share: DEFAULT_STALL_CONE_SHARE,
            stall_trial_iters: DEFAULT_STALL_TRIAL_ITERS,
        }
    }
}

impl SdpParams {
    /// Sets [`SdpParams::tol`].
    pub fn with_tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
    /// Sets [`SdpParams::stall_iters`] (0: never leave the partial projections).
    pub fn with_stall_iters(mut self, iters: usize) -> Self {
        self.stall_iters = iters;
        self
    }
    /// Sets [`SdpParams::stall_cone_share`] (0: switch at every stall).
    pub fn with_stall_cone_share(mut self, share: f64) -> Self {
        self.stall_cone_share = share;
        self
    }
    /// Sets [`SdpParams::stall_trial_iters`] (0: keep the full eigendecompositions at the
    /// first stall).
    pub fn with_stall_trial_iters(mut self, iters: usize) -> Self {
        self.stall_trial_iters = iters;
        self
    }

    /// Sets [`SdpParams::max_iter`].
    pub fn with_max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }
    /// Sets [`SdpParams::alpha`].
    pub fn with_alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
        self
    }
    /// Sets [`SdpParams::rho`].
    pub fn with_rho(mut self, rho: Option<f64>) -> Self {
        self.rho = rho;
        self
    }
    /// Sets [`SdpParams::adaptive_rho`].
    pub fn with_adaptive_rho(mut self, on: bool) -> Self {
        self.adaptive_rho = on;
        self
    }
    /// Sets [`SdpParams::check_every`].
    pub fn with_check_every(mut self, every: usize) -> Self {
        self.check_every = every;
        self
    }
    /// Sets [`SdpParams::projection`].
    pub fn with_projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }
    /// Sets [`SdpParams::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
    /// Sets [`SdpParams::lean_n`].
    pub fn with_lean_n(mut self, n: usize) -> Self {
        self.lean_n = n;
        self
    }
    /// Whether a problem of `n` items is solved with the memory savings of
    /// [`SdpParams::lean_n`].
    pub fn lean(&self, n: usize) -> bool {
        n >= self.lean_n
    }

    /// Validates every field (the one place where parameters are checked).
    pub fn check(&self) -> Result<(), SdpError> {
        let bad = |name, value: String, reason| {
            Err(SdpError::InvalidParam {
                name,
                value,
                reason,
            })
        };
        check_tol("tol", self.tol)?;
        if self.max_iter == 0 {
            return bad("max_iter", "0".into(), "must be >= 1");
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha < 2.0) {
            return bad("alpha", self.alpha.to_string(), "must lie in (0, 2)");
        }
        if let Some(r) = self.rho
            && !(r.is_finite() && r > 0.0)
        {
            return bad("rho", r.to_string(), "must be finite and > 0");
        }
        if self.check_every == 0 {
            return bad("check_every", "0".into(), "must be >= 1");
        }
        if !(self.stall_cone_share.is_finite() && self.stall_cone_share >= 0.0) {
            let share = short_number(self.stall_cone_share);
            return bad("stall_cone_share", share, "must be finite and >= 0");
        }
        Ok(())
    }

    /// Parallelism for a problem of size `n` (sequential below n = 256, where threading costs
    /// more than it saves).
    pub(crate) fn par(&self, n: usize) -> faer::Par {
        if self.threads == 1 || n < 256 {
            faer::Par::Seq
        } else {
            faer::Par::rayon(self.threads)
        }
    }
}

/// `x` for a message: plain decimal for ordinary magnitudes, scientific notation for very large
/// or very small ones (1e300 is not printed with 300 digits).
pub(crate) fn short_number(x: f64) -> String {
    let a = x.abs();
    if x.is_finite() && a != 0.0 && !(1e-4..1e9).contains(&a) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Checks a stopping tolerance (`docs/SOLVER.md`: relative KKT measures, so only (0, 1) makes sense:
/// at 1 or above every start point would count as converged). `name` is how the caller's
/// user knows the parameter (`tol`, `sdp_tol`); the CLI's `--sdp-tol`, the Python binding and
/// [`SdpParams::check`] all validate through here.
pub fn check_tol(name: &'static str, tol: f64) -> Result<f64, SdpError> {
    if tol > 0.0 && tol < 1.0 {
        Ok(tol)
    } else {
        Err(SdpError::InvalidParam {
            name,
            value: short_number(tol),
            reason: "must lie in (0, 1)",
        })
    }
}
