//! SPUR ("Semidefinite Program with Unknown r", Yan et al. 2018) in the comparison-based form of
//! Perrot et al. 2020, App. D, Algorithm 2:
//!
//! 1. `c` = number of comparisons; `λ_min = sqrt(c·ln n / n)`, `λ_max = c / n`
//!    (Perrot et al. 2020, §5 and App. D; the published code uses the same values, `docs/SOLVER.md`).
//! 2. Solve SDP-λ at `λ_min` and `λ_max`; `k_λ = round(tr X_λ)` gives the range
//!    `max(2, k_λmax) ..= k_λmin + 2` (Lemma 1: `k_λ` is non-increasing in λ).
//! 3. Solve SDP-k for each `k` in the range; `θ_k = Σ_{i≤k} σ_i(X_k) / tr X_k`.
//! 4. `k̂ = argmax θ_k`; return `X_k̂`.
//!
//! Where Algorithm 2 is silent we follow the published code and the note (`docs/SOLVER.md`
//! §1, §5): the diagonal of `S` is zeroed ([`SpurParams::zero_diagonal`]), λ is scaled as in the
//! published code by default ([`LambdaScale`]), the scan stops early once `θ_k > 0.99`
//! ([`SpurParams::theta_stop`]; `None` scans the whole range as Algorithm 2 writes it), and
//! every solve is warm-started: SDP-λ_max from λ_min, each SDP-k from the λ_min solution or an
//! earlier solve, preferring one whose trace is at least k (`warm_from_low`).
//! With the loose first pass ([`SpurParams::refine_tol`]) the scan solves `k_λmin` first, its
//! likeliest k̂: when that θ is above the stop, the other k only have to show that they stay
//! below it, and are solved coarser ([`PROBE_FACTOR`]); the decision is the same in any order
//! ([`spur_refine::next_step`]).
//! The PDF text of Algorithm 2 reads `sqrt(c·ln c / n)` in one place; we follow the main
//! text (Perrot et al. 2020, §5: `sqrt(c (ln n)/n)`) and the published code.

use super::admm::{SdpInfo, SdpState, is_symmetric, solve_sdp, validate_similarity};
use super::error::SdpError;
use super::params::{SdpParams, SdpProblem};
use super::spur_refine;
use super::stored::Stored;
use crate::observe::{Observer, progress, reborrow};
use faer::{Mat, MatRef, Side};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Which λ scaling SPUR's λ_min, λ_max follow (`docs/SOLVER.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LambdaScale {
    /// λ as written in the paper, used directly in `max <S,X> − λ tr X`.
    Paper,
    /// As the published code (mperrot/AddS-Clustering): its SCS objective `−½<S,X> + λ tr X`
    /// equals `max <S,X> − 2λ tr X`, so λ_min and λ_max are doubled before solving.
    #[default]
    Published,
}

impl LambdaScale {
    /// Factor applied to the paper's λ before it is passed to SDP-λ.
    pub fn factor(self) -> f64 {
        match self {
            LambdaScale::Paper => 1.0,
            LambdaScale::Published => 2.0,
        }
    }
}

crate::names::named_enum!(LambdaScale, "lambda scale" {
    Paper => "paper",
    Published => "published",
});

/// Parameters of [`spur`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpurParams {
    /// Parameters of every SDP solve.
    pub sdp: SdpParams,
    /// λ scaling (default: as the published code).
    pub lambda_scale: LambdaScale,
    /// How far past `k_λmin` the scan goes (Algorithm 2: 2).
    pub extra_k: usize,
    /// Stop the scan once `θ_k` exceeds this (published code: 0.99); `None` scans the range.
    pub theta_stop: Option<f64>,
    /// Zero the diagonal of `S` first, as the published code does (default true).
    pub zero_diagonal: bool,
    /// Warm-start each SDP from the previous one (default true).
    pub warm_start: bool,
    /// Solve every SDP-k to this looser tolerance first and tighten to `sdp.tol` only the SDP-k
    /// solves whose θ could change k̂ or the early stop (`docs/SOLVER.md`, "Adaptive
    /// accuracy"); `None` solves everything to `sdp.tol`, as Algorithm 2 is written.
    /// Default `Some(2e-3)` ([`DEFAULT_REFINE_TOL`]); a value at or below `sdp.tol` changes
    /// nothing.
    #[serde(default)]
    pub refine_tol: Option<f64>,
    /// From this many items on, a guess `k_λmin` whose loose θ is above the stop but not
    /// surely is first tightened until it could be certified above it
    /// ([`guess_tighten_tol`]), before any k above it is probed: the probes past the true k
    /// need full eigendecompositions, O(n³) each, while the guess's solve stays on the
    /// partial projections, O(n²b). Default [`DEFAULT_GUESS_TIGHTEN_N`].
    #[serde(default = "default_guess_tighten_n")]
    pub guess_tighten_n: usize,
}

/// Default [`SpurParams::guess_tighten_n`]. On the paper's model (seed 0, one 2-core AMD
/// EPYC guest, 2026-11-28) probing won at n = 1000 (8.5 s against 19.8 s) and n = 2000
/// (49.5 s against 70.1 s), and tightening the guess at n = 3000 (96 s against 315 s, 1.0
/// against 1.7 GB), where one probe needed 33 full eigendecompositions of 5 s each
/// (`docs/benchmarks/sdp.md`).
pub const DEFAULT_GUESS_TIGHTEN_N: usize = 2500;

fn default_guess_tighten_n() -> usize {
    DEFAULT_GUESS_TIGHTEN_N
}

/// The tolerance to which SPUR tightens a guess whose θ is above the stop but not surely
/// (`uncertainty_factor`: the uncertainty of a loose θ per unit of its solve's worst
/// stopping measure). θ never exceeds 1, so no θ can be certified above `stop` while its
/// uncertainty is `1 − stop` or more. The tolerance is the one at which the uncertainty is
/// 0.6 of that bound (3e-4 for the stop 0.99 and the factor 20), never tighter than
/// `sdp_tol`: it certifies any θ from `stop + 0.6·(1 − stop)` up (0.996 and up; the paper's
/// model gives 0.998–0.999 at n = 1000 to 3000).
pub fn guess_tighten_tol(stop: f64, uncertainty_factor: f64, sdp_tol: f64) -> f64 {
    (GUESS_TIGHTEN_SHARE * (1.0 - stop) / uncertainty_factor).max(sdp_tol)
}

/// The share of `1 − stop` a tightened guess's uncertainty may take ([`guess_tighten_tol`]).
const GUESS_TIGHTEN_SHARE: f64 = 0.6;

/// Default [`SpurParams::refine_tol`]: a first pass at 2e-3 gave the same k̂ as the single pass
/// at 1e-4 on every re-run trial of the committed experiments at n = 1000, and stops the
/// true-k solve of the paper's default after 120 iterations instead of 290 at 1e-3
/// (`docs/SOLVER.md`, "Adaptive accuracy"; `docs/reproduction/flat.md`).
pub const DEFAULT_REFINE_TOL: f64 = 2e-3;

impl Default for SpurParams {
    fn default() -> Self {
        SpurParams {
            sdp: SdpParams::default(),
            lambda_scale: LambdaScale::Published,
            extra_k: 2,
            theta_stop: Some(0.99),
            zero_diagonal: true,
            warm_start: true,
            refine_tol: Some(DEFAULT_REFINE_TOL),
            guess_tighten_n: DEFAULT_GUESS_TIGHTEN_N,
        }
    }
}

impl SpurParams {
    /// Sets [`SpurParams::sdp`].
    pub fn with_sdp(mut self, sdp: SdpParams) -> Self {
        self.sdp = sdp;
        self
    }
    /// Sets [`SpurParams::lambda_scale`].
    pub fn with_lambda_scale(mut self, scale: LambdaScale) -> Self {
        self.lambda_scale = scale;
        self
    }
    /// Sets [`SpurParams::extra_k`].
    pub fn with_extra_k(mut self, extra: usize) -> Self {
        self.extra_k = extra;
        self
    }
    /// Sets [`SpurParams::theta_stop`].
    pub fn with_theta_stop(mut self, stop: Option<f64>) -> Self {
        self.theta_stop = stop;
        self
    }
    /// Sets [`SpurParams::zero_diagonal`].
    pub fn with_zero_diagonal(mut self, on: bool) -> Self {
        self.zero_diagonal = on;
        self
    }
    /// Sets [`SpurParams::warm_start`].
    pub fn with_warm_start(mut self, on: bool) -> Self {
        self.warm_start = on;
        self
    }
    /// Sets [`SpurParams::refine_tol`].
    pub fn with_refine_tol(mut self, tol: Option<f64>) -> Self {
        self.refine_tol = tol;
        self
    }
    /// Sets [`SpurParams::guess_tighten_n`].
    pub fn with_guess_tighten_n(mut self, n: usize) -> Self {
        self.guess_tighten_n = n;
        self
    }
    /// The tolerance of the first (loose) pass when it is looser than `sdp.tol`; `None` when
    /// every SDP is solved once, to `sdp.tol`.
    pub fn first_pass_tol(&self) -> Option<f64> {
        self.refine_tol.filter(|&t| t > self.sdp.tol)
    }
    /// Validates every field.
    pub fn check(&self) -> Result<(), SdpError> {
        self.sdp.check()?;
        if let Some(t) = self.refine_tol {
            super::params::check_tol("refine_tol", t)?;
        }
        if let Some(t) = self.theta_stop
            && !(t.is_finite() && t > 0.0)
        {
            return Err(SdpError::InvalidParam {
                name: "theta_stop",
                value: t.to_string(),
                reason: "must be finite and > 0",
            });
        }
        Ok(())
    }
}

/// One SDP solved by SPUR.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpurRow {
    /// `k` of the SDP-k solve, or `round(tr X_λ)` of an SDP-λ solve.
    pub k: usize,
    /// SPUR criterion `θ = Σ_{i≤k} σ_i(X) / tr X`.
    pub theta: f64,
    /// λ (paper scaling, as passed to SDP-λ) for SDP-λ rows; `None` for SDP-k rows.
    pub lambda: Option<f64>,
    /// The stopping tolerance of this solve: `sdp.tol`, or for a solve that was not tightened
    /// [`SpurParams::refine_tol`] (up to [`PROBE_FACTOR`] times it for a solve past a leader
    /// above the stop).
    #[serde(default)]
    pub tol: f64,
    /// For a tightened SDP-k: θ at the loose tolerance, before tightening.
    #[serde(default)]
    pub theta_loose: Option<f64>,
    /// For an SDP-k left loose: how far its θ may lie from the accurate one (0 otherwise).
    #[serde(default)]
    pub theta_uncertainty: f64,
    /// How many times this SDP was solved: 1, plus one for each re-solve from its own state (a
    /// probing solve brought to the first pass's tolerance, a loose solve tightened).
    #[serde(default)]
    pub solves: usize,
    /// Solver diagnostics.
    pub info: SdpInfo,
}

/// Output of [`spur`].
#[derive(Debug, Clone)]
pub struct SpurResult {
    /// Estimated number of clusters `k̂ = argmax_k θ_k`.
    pub k_hat: usize,
    /// `X_k̂`, the SDP-k solution for `k̂` (in a lean solve, [`SdpParams::lean_n`], rounded to
    /// single precision while later solves ran).
    pub x: Mat<f64>,
    /// Every SDP-k solved, in order.
    pub table: Vec<SpurRow>,
    /// The two SDP-λ solves (at λ_min, then λ_max).
    pub lambda_rows: Vec<SpurRow>,
    /// λ_min as defined by the paper, `sqrt(c·ln n / n)` (before [`LambdaScale`]).
    pub lambda_min: f64,
    /// λ_max as defined by the paper, `c / n` (before [`LambdaScale`]).
    pub lambda_max: f64,
    /// How far θ_k̂ (less its uncertainty) lies above every other θ_k the decision used (plus
    /// theirs); `+∞` when the scan solved one SDP-k ([`spur_refine::margin`]).
    pub margin: f64,
}

/// SPUR criterion `θ = Σ_{i≤k} σ_i(X) / tr X` (Perrot et al. 2020, App. D, Algorithm 2; σ_i = i-th largest
/// eigenvalue of the symmetric part of `X`), for the SDP solutions SPUR produces (positive
/// semidefinite up to the solver's tolerance). The top k eigenvalues come from a block
/// subspace iteration with Rayleigh–Ritz on `k + 8` vectors, stopped when every top-k Ritz
/// residual is ≤ 1e-10·σ₁; `tr X` is the sum of the diagonal. This replaces a full
/// eigenvalue decomposition (≈ 200–350 s at n = 10,000 on one core) by a few `n × n × (k + 8)`
/// products. Small `n`, and an iteration that does not converge in 500 rounds, use
/// [`spur_theta_naive`].
pub fn spur_theta(x: MatRef<'_, f64>, k: usize) -> Result<f64, SdpError> {
    let n = x.nrows();
    let b = k + THETA_GUARD;
    if k == 0 || b * 4 > n {
        return spur_theta_naive(x, k);
    }
    // The solver's X is symmetric: use it as it is (no n × n copy, 800 MB at n = 10,000).
    let copy;
    let xs = if is_symmetric(x) {
        x
    } else {
        copy = symmetric_part(x);
        copy.as_ref()
    };
    let tr: f64 = (0..n).map(|i| xs[(i, i)]).sum();
    match top_eigenvalue_sum(xs, k, b) {
        Some(top) => Ok(if tr.abs() > 0.0 { top / tr } else { 0.0 }),
        None => theta_by_full_evd(xs, k),
    }
}

/// Vectors beyond k in the block of [`spur_theta`]'s subspace iteration.
const THETA_GUARD: usize = 8;

/// The sum of the k largest eigenvalues of the symmetric `xs` by subspace iteration on `b > k`
/// vectors from a fixed pseudo-random start; `None` when the top-k Ritz residuals do not fall
/// to 1e-10·σ₁ within 500 rounds.
fn top_eigenvalue_sum(xs: MatRef<'_, f64>, k: usize, b: usize) -> Option<f64> {
    let n = xs.nrows();
    // A fixed start (splitmix64 hashes of the position): θ does not depend on a seed.
    let start = Mat::from_fn(n, b, |i, j| {
        crate::math::rng::centered_at(i as u64 * b as u64 + j as u64)
    });
    let mut v = start.qr().compute_thin_Q();
    for _ in 0..500 {
        let z = xs * &v;
        let h = v.transpose() * &z;
        let e = symmetric_part(h.as_ref())
            .self_adjoint_eigen(Side::Lower)
            .ok()?;
        let vals: Vec<f64> = e.S().column_vector().iter().copied().collect();
        let top_abs = vals.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if top_abs == 0.0 {
            return Some(0.0);
        }
        // Ritz residuals ‖X v − θ v‖ of the top k pairs (ascending order: the last k).
        let g = e.U().get(.., b - k..b);
        let (xv, zv) = (&v * g, &z * g);
        let converged = (0..k).all(|c| {
            let t = vals[b - k + c];
            let r2: f64 = (0..n).map(|i| (zv[(i, c)] - t * xv[(i, c)]).powi(2)).sum();
            r2.sqrt() <= 1e-10 * top_abs
        });
        if converged {
            return Some(vals[b - k..].iter().sum());
        }
        v = z.qr().compute_thin_Q();
    }
    None
}

/// [`spur_theta`] straight from its formula: all eigenvalues of the symmetric part of `X`
/// (a full eigenvalue decomposition), the k largest summed over their sum.
pub fn spur_theta_naive(x: MatRef<'_, f64>, k: usize) -> Result<f64, SdpError> {
    theta_by_full_evd(symmetric_part(x).as_ref(), k)
}

/// `(X + Xᵀ)/2`.
fn symmetric_part(x: MatRef<'_, f64>) -> Mat<f64> {
    let n = x.nrows();
    Mat::from_fn(n, n, |i, j| 0.5 * (x[(i, j)] + x[(j, i)]))
}

/// θ of the symmetric `xs` from all its eigenvalues.
fn theta_by_full_evd(xs: MatRef<'_, f64>, k: usize) -> Result<f64, SdpError> {
    let ev = xs
        .self_adjoint_eigenvalues(Side::Lower)
        .map_err(|_| SdpError::Eigen { iteration: 0 })?;
    let tr: f64 = ev.iter().sum();
    let top: f64 = ev.iter().rev().take(k).sum();
    Ok(if tr.abs() > 0.0 { top / tr } else { 0.0 })
}

/// Which of two warm starts an SDP-k solve prefers: the one of trace `low_trace` (true) or the
/// one of trace `last_trace` (false). A warm start from above (trace ≥ k − ½) is preferred,
/// then the nearer trace; a tie keeps the second.
///
/// Lowering the trace raises the trace multiplier, which shifts `W` down: its positive part,
/// held by the warm eigenvector block, only shrinks. Raising the trace shifts `W` up and lifts
/// the near-zero negative eigenvalues of the previous solution into the positive part, which
/// the block cannot hold: from `X_λmax` (trace 1) to k = 2 the positive part of `W` jumped to
/// 3,320 of n = 10,000 and every step was a full eigendecomposition (`docs/benchmarks/sdp.md`).
fn warm_from_low(k: f64, low_trace: f64, last_trace: f64) -> bool {
    let above = |t: f64| t >= k - 0.5;
    match (above(low_trace), above(last_trace)) {
        (true, false) => true,
        (false, true) => false,
        _ => (low_trace - k).abs() < (last_trace - k).abs(),
    }
}

/// Comparison-based SPUR (Perrot et al. 2020, App. D, Algorithm 2) on the similarity `s` built from
/// `n_comparisons` triplets or quadruplets. The observer sees the progress after every SDP and
/// each solve's residual checks.
///
/// With [`SpurParams::refine_tol`] set, every SDP-k is first solved to that looser tolerance (the
/// SDP-λ solves always to `sdp.tol`, whose traces set the range of k) and
/// only the SDP-k solves whose θ could change k̂ or the early stop are solved again to
/// `sdp.tol`, warm-started from their loose solution ([`spur_refine`],
/// `docs/SOLVER.md`). It runs on a worker of rayon's pool (`docs/SOLVER.md`, "Threads").
pub fn spur(
    s: MatRef<'_, f64>,
    n_comparisons: usize,
    params: &SpurParams,
    observer: Option<&mut dyn Observer>,
) -> Result<SpurResult, SdpError> {
    crate::pool::on_pool(|| spur_here(s, n_comparisons, params, observer))
}

/// [`spur`] on the calling thread.
fn spur_here(
    s: MatRef<'_, f64>,
    n_comparisons: usize,
    params: &SpurParams,
    mut observer: Option<&mut dyn Observer>,
) -> Result<SpurResult, SdpError> {
    params.check()?;
    let n = validate_similarity(s)?;
    if n < 2 {
        return Err(SdpError::InvalidK { k: 2, n });
    }
    // A copy of S only when its diagonal has to be zeroed: AddS-3 and AddS-4 have a zero
    // diagonal already, and the copy is an n × n matrix (800 MB at n = 10,000).
    let zeroed;
    let s = if params.zero_diagonal && (0..n).any(|i| s[(i, i)] != 0.0) {
        zeroed = Mat::from_fn(n, n, |i, j| if i == j { 0.0 } else { s[(i, j)] });
        zeroed.as_ref()
    } else {
        s
    };
    let nf = n as f64;
    let c = n_comparisons as f64;
    let lambda_min = (c * nf.ln() / nf).sqrt();
    let lambda_max = c / nf;
    let mut scan = Scan::new(s, params);
    let [k_low, k_up] = scan.lambda_solves(
        [lambda_min, lambda_max].map(|l| l * params.lambda_scale.factor()),
        &mut observer,
    )?;
    let k_first = k_up.max(2).min(n);
    let k_last = (k_low + params.extra_k).min(n).max(k_first);
    scan.total = 2 + (k_last - k_first + 1);
    scan.run(k_first..=k_last, k_low, &mut observer)?;
    let decision = scan.decision();
    progress(&mut observer, scan.done, scan.done);
    scan.finish(decision, lambda_min, lambda_max)
}

/// One SDP-k of SPUR's scan, with what a later tightening or the result may need.
struct Solved {
    row: SpurRow,
    /// State to tighten this solve from (loose rows that may still need it; shared with the
    /// warm-start chain, so that keeping it costs no copy).
    state: Option<Rc<SdpState>>,
    /// The solution, kept for the current leader only.
    x: Option<Stored>,
}

/// SPUR's sequence of solves: the two SDP-λ, the SDP-k scan, and the tightening of the solves
/// the decision needs ([`spur_refine::next_step`]).
struct Scan<'a> {
    s: MatRef<'a, f64>,
    params: &'a SpurParams,
    /// Parameters of the first (loose) pass.
    loose: SdpParams,
    lambda_rows: Vec<SpurRow>,
    /// The SDP-k of the range, by `k − k_first` (`None` until solved).
    rows: Vec<Option<Solved>>,
    /// First k of the range.
    k_first: usize,
    /// State of the last solve (the warm start of the next one).
    state: Option<Rc<SdpState>>,
    /// The λ_min solution (trace ≈ k_low), the second warm start ([`warm_from_low`]).
    low: Option<(f64, Rc<SdpState>)>,
    last_trace: f64,
    /// Largest measured ratio |θ_accurate − θ_loose| / (worst stopping measure of the loose
    /// solve) among the tightened solves.
    measured_ratio: f64,
    done: usize,
    total: usize,
}

impl<'a> Scan<'a> {
    fn new(s: MatRef<'a, f64>, params: &'a SpurParams) -> Self {
        let loose_tol = params.first_pass_tol().unwrap_or(params.sdp.tol);
        Scan {
            s,
            params,
            loose: params.sdp.clone().with_tol(loose_tol),
            lambda_rows: Vec::new(),
            rows: Vec::new(),
            k_first: 0,
            state: None,
            low: None,
            last_trace: 0.0,
            measured_ratio: 0.0,
            done: 0,
            total: 2 + params.extra_k.max(1),
        }
    }

    /// Whether the kept matrices are spilled (a lean solve, [`SdpParams::lean_n`]).
    fn spilling(&self) -> bool {
        self.params.sdp.lean(self.s.nrows())
    }

    /// A solve's state as SPUR keeps it (spilled to a temporary file in a lean solve,
    /// [`SdpState::spill`]).
    fn keep(&self, mut state: SdpState) -> Rc<SdpState> {
        if self.spilling() {
            state.spill();
        }
        Rc::new(state)
    }

    /// A solution as SPUR keeps it for the result (spilled likewise).
    fn keep_x(&self, x: Mat<f64>) -> Stored {
        let mut x = Stored::F64(x);
        if self.spilling() {
            x.spill();
        }
        x
    }

    /// Whether the first pass is looser than `sdp.tol` (then solves may be tightened).
    fn refining(&self) -> bool {
        self.loose.tol > self.params.sdp.tol
    }

    fn warm(&self) -> Option<&SdpState> {
        self.state.as_deref().filter(|_| self.params.warm_start)
    }

    /// The λ_min solution's state, the fallback warm start.
    fn low_state(&self) -> Option<&SdpState> {
        self.low.as_ref().map(|(_, st)| &**st)
    }

    fn tick(&mut self, observer: &mut Option<&mut dyn Observer>) {
        self.done += 1;
        self.total = self.total.max(self.done);
        progress(observer, self.done, self.total);
    }

    /// SDP-λ at λ_min and λ_max (already scaled), always to `sdp.tol`; returns `round(tr X)` of
    /// each. The range of k and `k_λmin` are these rounded traces, and no interval tells how far
    /// a loose trace may lie from the accurate one: on flat-noise (n = 1000, ε = 0.5,
    /// n·ln³n triplets, seed 9) tr X_λmin was 1.03 at 2e-3 and 1.88 at 1e-3, which dropped k = 4
    /// from the range and changed k̂ (`docs/benchmarks/sdp.md`, 2026-11-27).
    fn lambda_solves(
        &mut self,
        lambdas: [f64; 2],
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<[usize; 2], SdpError> {
        let n = self.s.nrows();
        let mut ks = [0usize; 2];
        for (idx, lam) in lambdas.into_iter().enumerate() {
            let sol = solve_sdp(
                self.s,
                SdpProblem::Lambda(lam),
                &self.params.sdp,
                self.warm(),
                reborrow(observer),
            )?;
            let trace = sol.info.trace;
            let k = (trace.round().max(1.0) as usize).min(n);
            ks[idx] = k;
            self.lambda_rows.push(SpurRow {
                k,
                theta: spur_theta(sol.x.as_ref(), k)?,
                lambda: Some(lam),
                tol: self.params.sdp.tol,
                theta_loose: None,
                theta_uncertainty: 0.0,
                solves: 1,
                info: sol.info,
            });
            let state = self.keep(sol.state);
            if idx == 0 && self.params.warm_start {
                self.low = Some((trace, Rc::clone(&state)));
            }
            self.last_trace = trace;
            self.state = Some(state);
            // The SDP-k range is known only after both SDP-λ solves; it has at least `extra_k`
            // values (from k_low to k_low + extra_k), so the first total is that lower bound.
            self.tick(observer);
        }
        Ok(ks)
    }

    /// The scan over `ks` with the early stop, then tightening until the decision is sure
    /// (which may resume the scan when a tightened θ falls back below the stop). With a loose
    /// first pass, `guess` (SPUR's likeliest k̂, `k_λmin`) is solved first: when its θ is
    /// above the stop, every other k only has to show that it stays below it, which a probing
    /// solve does ([`PROBE_FACTOR`]).
    fn run(
        &mut self,
        ks: std::ops::RangeInclusive<usize>,
        guess: usize,
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<(), SdpError> {
        self.k_first = *ks.start();
        self.rows = ks.clone().map(|_| None).collect();
        if !self.refining() {
            // Algorithm 2 with the published early stop, every solve at `sdp.tol`.
            for k in ks {
                if self.decision().stopped {
                    break;
                }
                self.solve_k(k, self.loose.tol, observer)?;
            }
            return Ok(());
        }
        let guess_at = ks.contains(&guess).then(|| guess - self.k_first);
        if let Some(g) = guess_at {
            self.solve_k(guess, self.loose.tol, observer)?;
            if self.s.nrows() >= self.params.guess_tighten_n {
                self.tighten_guess(g, observer)?;
            }
        }
        loop {
            match spur_refine::next_step(&self.thetas(), self.params.theta_stop) {
                spur_refine::Next::Done => return Ok(()),
                spur_refine::Next::Solve(i) => {
                    // Beside a loose θ above the stop, a solve only has to show that it stays
                    // below that leader (and the stop): a coarser solve does, and tightening
                    // still follows when it cannot ([`PROBE_FACTOR`]).
                    let tol = if self.decision().stopped {
                        probe_tol(self.loose.tol)
                    } else {
                        self.loose.tol
                    };
                    let i = guess_at.map_or(i, |g| {
                        spur_refine::solve_next(&self.thetas(), self.params.theta_stop, i, g)
                    });
                    self.solve_k(self.k_first + i, tol, observer)?;
                }
                spur_refine::Next::Refine(todo) => {
                    // A probing solve in the contest is first brought to the first pass's
                    // tolerance: its wide interval alone may make the contest, and the
                    // accurate solves it would otherwise trigger are the costly ones.
                    let probes: Vec<usize> = (todo.iter().copied())
                        .filter(|&i| self.row(i).row.tol > self.loose.tol)
                        .collect();
                    let (todo, tol) = if probes.is_empty() {
                        (todo, self.params.sdp.tol)
                    } else {
                        (probes, self.loose.tol)
                    };
                    self.total = self.total.max(self.done + todo.len());
                    for i in todo {
                        self.tighten(i, tol, observer)?;
                    }
                }
            }
        }
    }

    /// Tightens the guess (row `g`) to [`guess_tighten_tol`] when its loose θ is above the
    /// stop but not surely: once it is surely above, the scan ends there and no k above it
    /// is solved. Nothing happens when θ is below the stop, already sure, or solved that
    /// tightly; when the tightened θ is still not sure, the scan probes as before.
    fn tighten_guess(
        &mut self,
        g: usize,
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<(), SdpError> {
        let Some(stop) = self.params.theta_stop else {
            return Ok(());
        };
        let row = &self.row(g).row;
        let tol = guess_tighten_tol(stop, self.uncertainty_factor(), self.params.sdp.tol);
        let unsure = row.theta > stop && row.theta - row.theta_uncertainty <= stop;
        if unsure && tol < row.tol {
            self.total += 1;
            self.tighten(g, tol, observer)?;
        }
        Ok(())
    }

    /// The solved row `i` of the range (the decision only names solved rows).
    fn row(&self, i: usize) -> &Solved {
        self.rows[i]
            .as_ref()
            .expect("the decision names solved rows")
    }

    /// The warm start of an SDP-k: among the λ_min solution and the kept states of the solves
    /// so far (the last one's included), the one [`warm_from_low`] prefers.
    fn warm_for(&self, k: usize) -> Option<&SdpState> {
        if !self.params.warm_start {
            return None;
        }
        let kf = k as f64;
        let kept = (self.rows.iter().flatten())
            .filter_map(|r| Some((r.row.k as f64, &**r.state.as_ref()?)));
        let last = self.state.as_deref().map(|st| (self.last_trace, st));
        let low = self.low.as_ref().map(|(tr, st)| (*tr, &**st));
        (last.into_iter().chain(kept).chain(low))
            .reduce(|best, c| {
                if warm_from_low(kf, c.0, best.0) {
                    c
                } else {
                    best
                }
            })
            .map(|(_, st)| st)
    }

    /// Solves SDP-k at tolerance `tol` (the first pass's, or looser) and appends it to the scan.
    fn solve_k(
        &mut self,
        k: usize,
        tol: f64,
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<(), SdpError> {
        let warm = self.warm_for(k);
        let params = self.loose.clone().with_tol(tol);
        let sol = solve_sdp(self.s, SdpProblem::K(k), &params, warm, reborrow(observer))?;
        self.last_trace = k as f64;
        let theta = spur_theta(sol.x.as_ref(), k)?;
        let state = self.keep(sol.state);
        self.rows[k - self.k_first] = Some(Solved {
            row: self.loose_row(k, theta, tol, sol.info),
            state: self.refining().then(|| Rc::clone(&state)),
            x: Some(self.keep_x(sol.x)),
        });
        self.state = Some(state);
        self.prune();
        self.tick(observer);
        Ok(())
    }

    /// Solves row `i` again to `tol`, from its loose state: to `sdp.tol` (then it measures how
    /// far θ moved), or a probing solve to the first pass's tolerance (then it stays loose).
    fn tighten(
        &mut self,
        i: usize,
        tol: f64,
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<(), SdpError> {
        let k = self.row(i).row.k;
        let warm = self.rows[i].as_mut().and_then(|r| r.state.take());
        let sol = solve_sdp(
            self.s,
            SdpProblem::K(k),
            &self.params.sdp.clone().with_tol(tol),
            warm.as_deref().or(self.low_state()),
            reborrow(observer),
        )?;
        let theta = spur_theta(sol.x.as_ref(), k)?;
        let solves = self.row(i).row.solves + 1;
        if tol > self.params.sdp.tol {
            self.rows[i] = Some(Solved {
                row: SpurRow {
                    solves,
                    ..self.loose_row(k, theta, tol, sol.info)
                },
                state: Some(self.keep(sol.state)),
                x: Some(self.keep_x(sol.x)),
            });
            self.prune();
            self.tick(observer);
            return Ok(());
        }
        let (theta_loose, worst) = {
            let old = &self.row(i).row;
            (old.theta, old.info.worst())
        };
        if worst > 0.0 {
            self.measured_ratio = self.measured_ratio.max((theta - theta_loose).abs() / worst);
        }
        self.rows[i] = Some(Solved {
            row: SpurRow {
                k,
                theta,
                lambda: None,
                tol: self.params.sdp.tol,
                theta_loose: Some(theta_loose),
                theta_uncertainty: 0.0,
                solves,
                info: sol.info,
            },
            state: None,
            x: Some(self.keep_x(sol.x)),
        });
        // A measured movement may widen the other loose solves' intervals.
        let (accurate, factor) = (self.params.sdp.tol, self.uncertainty_factor());
        for r in self.rows.iter_mut().flatten() {
            if r.row.tol > accurate {
                r.row.theta_uncertainty = r.row.info.worst() * factor;
            }
        }
        self.prune();
        self.tick(observer);
        Ok(())
    }

    /// The row of an SDP-k solved to the loose tolerance `tol`, with its uncertainty.
    fn loose_row(&self, k: usize, theta: f64, tol: f64, info: SdpInfo) -> SpurRow {
        SpurRow {
            k,
            theta,
            lambda: None,
            tol,
            theta_loose: None,
            theta_uncertainty: self.uncertainty(&info),
            solves: 1,
            info,
        }
    }

    /// How far the accurate θ of a loose solve may lie from its θ: the worst stopping measure
    /// of the solve times [`THETA_PER_RESIDUAL`], or times [`REFINE_SAFETY`] × the largest
    /// ratio measured by a tightening, whichever is larger (0 when not refining).
    fn uncertainty(&self, info: &SdpInfo) -> f64 {
        info.worst() * self.uncertainty_factor()
    }

    /// The uncertainty of a loose θ per unit of its solve's worst stopping measure (0 when
    /// not refining).
    fn uncertainty_factor(&self) -> f64 {
        if !self.refining() {
            return 0.0;
        }
        THETA_PER_RESIDUAL.max(REFINE_SAFETY * self.measured_ratio)
    }

    fn thetas(&self) -> Vec<Option<spur_refine::Theta>> {
        (self.rows.iter())
            .map(|r| {
                r.as_ref().map(|r| spur_refine::Theta {
                    theta: r.row.theta,
                    uncertainty: r.row.theta_uncertainty,
                })
            })
            .collect()
    }

    /// The decision on the current θ values (an empty scan reports "not stopped").
    fn decision(&self) -> spur_refine::Decision {
        spur_refine::decide(&self.thetas(), self.params.theta_stop).unwrap_or(
            spur_refine::Decision {
                leader: 0,
                end: 0,
                stopped: false,
            },
        )
    }

    /// Keeps the n × n matrices that may still be needed: the solution of the current leader,
    /// and the loose states of the leader and of the solve that ends the scan (the likeliest
    /// to be tightened; the latter is usually the warm-start chain's own state). Any other
    /// solve is tightened from the λ_min state: each kept state holds two or three n × n
    /// matrices, and keeping the runner-up's too doubled SPUR's peak memory at n = 2000.
    fn prune(&mut self) {
        let d = self.decision();
        for (i, r) in self.rows.iter_mut().enumerate() {
            let Some(r) = r else { continue };
            if i != d.leader {
                r.x = None;
                if i != d.end {
                    r.state = None;
                }
            }
        }
    }

    fn finish(
        mut self,
        d: spur_refine::Decision,
        lambda_min: f64,
        lambda_max: f64,
    ) -> Result<SpurResult, SdpError> {
        let margin = spur_refine::margin(&self.thetas(), d);
        let lead = self.rows[d.leader].as_mut().expect("the leader is solved");
        let x = (lead.x.take())
            .expect("the leader's solution is kept")
            .into_f64()?;
        let k_hat = lead.row.k;
        Ok(SpurResult {
            k_hat,
            x,
            table: self.rows.into_iter().flatten().map(|r| r.row).collect(),
            lambda_rows: self.lambda_rows,
            lambda_min,
            lambda_max,
            margin,
        })
    }
}

/// Uncertainty of a loose θ per unit of its solve's worst stopping measure, before any
/// tightening has measured it (calibrated in `docs/SOLVER.md`, "Adaptive accuracy").
pub const THETA_PER_RESIDUAL: f64 = 20.0;

/// How much looser than [`SpurParams::refine_tol`] SPUR solves an SDP-k that it needs only to
/// show that θ stays below a leader already above the stop on its loose value (the solves past
/// the true k, whose iterates have many positive eigenvalues and need full
/// eigendecompositions; `docs/SOLVER.md`, "Adaptive accuracy").
pub const PROBE_FACTOR: f64 = 10.0;

/// The loosest tolerance of such a probing solve.
pub const MAX_PROBE_TOL: f64 = 1e-2;

/// The tolerance of a probing solve when the first pass is at `first_pass`: [`PROBE_FACTOR`]
/// times looser, at most [`MAX_PROBE_TOL`], and never tighter than the first pass.
pub fn probe_tol(first_pass: f64) -> f64 {
    (first_pass * PROBE_FACTOR)
        .min(MAX_PROBE_TOL)
        .max(first_pass)
}

/// Factor applied to the largest measured ratio |Δθ| / (worst measure) when it sets the
/// uncertainty of the solves not yet tightened.
pub const REFINE_SAFETY: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::warm_from_low;

    /// A warm start from above wins over a nearer one from below: the first SDP-k after
    /// `X_λmax` (trace ≈ 1) starts from λ_min (trace ≈ 4) at k = 2 and k = 3.
    #[test]
    fn warm_start_prefers_a_trace_above_k() {
        assert!(warm_from_low(2.0, 3.9, 1.0));
        assert!(warm_from_low(3.0, 3.9, 2.0));
        assert!(!warm_from_low(3.0, 2.2, 3.1));
    }

    /// With both traces on the same side of k, the nearer one wins; a tie keeps the previous
    /// solve.
    #[test]
    fn warm_start_otherwise_takes_the_nearer_trace() {
        assert!(!warm_from_low(3.0, 5.0, 2.8));
        assert!(warm_from_low(3.0, 3.2, 5.0));
        assert!(!warm_from_low(6.0, 4.1, 5.0));
        assert!(!warm_from_low(4.0, 5.0, 5.0));
    }
}
