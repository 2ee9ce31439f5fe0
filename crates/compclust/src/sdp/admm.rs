//! The ADMM solver for SDP-λ and SDP-k (`docs/SOLVER.md`).
//!
//! Problem, in minimisation form: `min <C,X>` subject to `A(X) = b`, `X ≥ 0`, `X ⪰ 0`, with
//! `C = −S + λI` (SDP-λ, paper scaling) or `C = −S` (SDP-k), `A(X) = X·1` (and `tr X` for
//! SDP-k), `b = 1` (and `k`). Three-block consensus splitting `X` (affine) = `Z` (≥ 0) = `Y`
//! (⪰ 0) with scaled duals `U`, `V`; only `T = X̂ + U` and `W = X̂ + V` are stored, so that
//! `Z = T₊`, `U = T₋`, `Y = Π_psd(W)`, `V = W − Y` (dual cone feasibility holds exactly).
//! Over-relaxation α, residual balancing of ρ, and stopping on the relative primal residual,
//! dual residual and duality gap, exactly as the note's pseudo-code.

use super::eig::{ProjectionKind, Projector};
use super::error::SdpError;
use super::params::{Projection, SdpCheck, SdpParams, SdpProblem};
use super::psd_part::PsdPart;
use super::simd;
use super::stored::{KeptPsd, Stored};
use crate::observe::Observer;
use faer::reborrow::ReborrowMut;
use faer::{Mat, MatMut, MatRef};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Diagnostics of one SDP solve. Not converging is reported here (`converged = false`), never
/// as an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdpInfo {
    /// The problem solved.
    pub problem: SdpProblem,
    /// ADMM iterations done.
    pub iterations: usize,
    /// Relative primal residual `sqrt(‖X−Y‖²+‖X−Z‖²)/(1+‖X‖)` at the last check.
    pub primal_residual: f64,
    /// Relative dual residual `‖C + ρ(U+V) − A*y‖/(1+‖C‖)` at the last check.
    pub dual_residual: f64,
    /// Relative duality gap `|<C,X> − bᵀy|/(1+|<C,X>|+|bᵀy|)` at the last check.
    pub gap: f64,
    /// Relative cone violation `ρ‖W₊ − Y‖/(1+‖C‖)` of the last partial projection (0 when the
    /// last projection was exact; when `inertia_certified`, the certified bound on it); `docs/OVERLAP.md`
    pub cone_residual: f64,
    /// Objective in the paper's (maximisation) form: `<S,X> − λ tr X` resp. `<S,X>`.
    pub objective: f64,
    /// Dual objective, same sign convention as `objective` (an upper bound up to the residuals).
    pub dual_objective: f64,
    /// `tr X` of the returned solution.
    pub trace: f64,
    /// Whether all stopping measures were ≤ `tol`.
    pub converged: bool,
    /// Number of full eigendecompositions.
    pub eig_full: usize,
    /// Number of accepted partial (block subspace) projections.
    pub eig_partial: usize,
    /// Of those, periodic refreshes that an inertia count confirmed instead of a full
    /// eigendecomposition (eig.rs, `Projector::block_is_complete`).
    #[serde(default)]
    pub eig_inertia: usize,
    /// Whether convergence was certified by two inertia counts (`Projector::certify_by_inertia`)
    /// instead of a full eigendecomposition: the returned state's `Y` is then the last partial
    /// projection, within `cone_residual·(1 + ‖C‖)/ρ` of the exact one.
    #[serde(default)]
    pub inertia_certified: bool,
    /// The iteration from which the solve projected by full eigendecompositions only: its
    /// partial projections had stalled it ([`SdpParams::stall_iters`]), and a trial of full
    /// ones that began there made the worst measure fall ([`SdpParams::stall_trial_iters`]),
    /// or was still under way when the solve stopped at `max_iter`; `None` when no trial was
    /// kept.
    #[serde(default)]
    pub full_from: Option<usize>,
    /// How many times a stall made the solve try full eigendecompositions and it returned to
    /// the partial projections, because the worst measure did not fall with them
    /// ([`SdpParams::stall_trial_iters`]).
    #[serde(default)]
    pub trials_returned: usize,
    /// Final penalty ρ.
    pub rho: f64,
    /// Wall-clock seconds of the solve.
    pub seconds: f64,
    /// Where the projections onto the PSD cone spent their share of `seconds`.
    #[serde(default)]
    pub projection_seconds: ProjectionSeconds,
}

/// Wall-clock seconds an SDP solve spent in the steps of its projections onto the PSD cone
/// (`docs/SOLVER.md`, "The PSD projection"), for finding out where a solve's time goes on a
/// given machine: a full projection is a Householder tridiagonalisation, the eigenvalues and
/// wanted eigenvectors of the tridiagonal matrix, the back-transformation of those vectors,
/// and the assembly of `Y` (and the warm block) from them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectionSeconds {
    /// Partial projections (Rayleigh–Ritz steps on the warm block, grown blocks and the
    /// inertia counts that confirm them), accepted or not.
    pub partial: f64,
    /// Full projections: Householder tridiagonalisation of `W`.
    pub reduction: f64,
    /// Full projections: eigenvalues and wanted eigenvectors of the tridiagonal matrix
    /// (bisection and inverse iteration, or divide and conquer).
    pub tridiagonal: f64,
    /// Full projections: the back-transformation of the wanted eigenvectors.
    pub back_transformation: f64,
    /// Full projections: `Y` and the warm block from the eigenvectors.
    pub assembly: f64,
}

impl SdpInfo {
    /// The largest of the three stopping measures at the last check (primal residual, dual
    /// residual, duality gap); the solve converged when it is ≤ `tol`.
    pub fn worst(&self) -> f64 {
        self.primal_residual.max(self.dual_residual).max(self.gap)
    }

    /// The info of a solve that has not iterated yet.
    fn start(problem: SdpProblem, rho: f64) -> Self {
        SdpInfo {
            problem,
            iterations: 0,
            primal_residual: f64::INFINITY,
            dual_residual: f64::INFINITY,
            gap: f64::INFINITY,
            cone_residual: 0.0,
            objective: f64::NAN,
            dual_objective: f64::NAN,
            trace: f64::NAN,
            converged: false,
            eig_full: 0,
            eig_partial: 0,
            eig_inertia: 0,
            inertia_certified: false,
            full_from: None,
            trials_returned: 0,
            rho,
            seconds: 0.0,
            projection_seconds: ProjectionSeconds::default(),
        }
    }
}

/// ADMM state kept for warm starts along SPUR's sequence (`T`, `W`, `Y = Π_psd(W)`, ρ and the
/// eigenvector block of the positive part of `W`).
#[derive(Debug, Clone)]
pub struct SdpState {
    pub(crate) t: Stored,
    pub(crate) w: Stored,
    pub(crate) y: KeptPsd,
    pub(crate) rho: f64,
    pub(crate) basis: Option<Mat<f64>>,
}

impl SdpState {
    /// Number of items `n` the state belongs to.
    pub fn n(&self) -> usize {
        self.t.nrows()
    }

    /// Rounds the state's n × n matrices to single precision, halving its memory. A solve
    /// warm-started from it starts from the rounded point (≈ 6e-8 relative), far inside any
    /// tolerance the solver is run to; `docs/SOLVER.md`, "Memory".
    pub fn compact(&mut self) {
        self.t.compact();
        self.w.compact();
        self.y.compact();
    }

    /// Rounds the state's n × n matrices to single precision, as [`SdpState::compact`], and
    /// moves them to an anonymous temporary file (`TMPDIR`), so that the state takes no memory
    /// until a solve is warm-started from it; a matrix whose file cannot be written stays in
    /// memory, compacted. A solve warm-started from a spilled state is the one warm-started
    /// from the compacted state, number for number.
    pub fn spill(&mut self) {
        self.t.spill();
        self.w.spill();
        self.y.spill();
    }
    /// Penalty ρ at the end of the solve.
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

/// Solution of SDP-λ or SDP-k.
#[derive(Debug, Clone)]
pub struct SdpSolution {
    /// The solution `X` (the affine iterate: `X·1 = 1` and `tr X = k` hold to rounding; `X ≥ 0`
    /// and `X ⪰ 0` to the tolerance).
    pub x: Mat<f64>,
    /// Diagnostics.
    pub info: SdpInfo,
    /// State to warm-start a neighbouring problem.
    pub state: SdpState,
}

/// Checks that `s` is a non-empty, finite, symmetric square matrix.
pub(crate) fn validate_similarity(s: MatRef<'_, f64>) -> Result<usize, SdpError> {
    if s.nrows() != s.ncols() {
        return Err(SdpError::NotSquare {
            rows: s.nrows(),
            cols: s.ncols(),
        });
    }
    let n = s.nrows();
    if n == 0 {
        return Err(SdpError::Empty);
    }
    let mut scale = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let v = s[(i, j)];
            if !v.is_finite() {
                return Err(SdpError::NonFinite {
                    row: i,
                    col: j,
                    value: v,
                });
            }
            scale = scale.max(v.abs());
        }
    }
    let tol = 1e-9 * (1.0 + scale);
    for j in 0..n {
        for i in (j + 1)..n {
            let (a, b) = (s[(i, j)], s[(j, i)]);
            if (a - b).abs() > tol {
                return Err(SdpError::NotSymmetric {
                    row: i,
                    col: j,
                    a,
                    b,
                });
            }
        }
    }
    Ok(n)
}

/// Solves `A A* (μ, ν) = (r, t)` for the constraint map `A(X) = (X·1, tr X)` restricted to
/// symmetric matrices, `A*(μ,ν) = (μ1ᵀ + 1μᵀ)/2 + νI` (`docs/OVERLAP.md`). With `t = None` (SDP-λ) only
/// the row-sum constraints are present and `ν = 0`. Writes μ, returns ν.
pub(crate) fn solve_aat(r: &[f64], t: Option<f64>, mu: &mut [f64]) -> f64 {
    let n = r.len() as f64;
    let big_r: f64 = r.iter().sum();
    let (nu, s) = match t {
        Some(t) => {
            let nu = (t - big_r / n) / (n - 1.0);
            (nu, big_r / n - nu)
        }
        None => (0.0, big_r / n),
    };
    for (m, &ri) in mu.iter_mut().zip(r) {
        *m = (2.0 * (ri - nu) - s) / n;
    }
    nu
}

/// The data of one SDP, `C = −S_sym + λI` with `S_sym = (S + Sᵀ)/2`. In a lean solve
/// ([`SdpParams::lean_n`]) `C` is not stored (an n × n matrix, 800 MB at n = 10,000): its
/// columns are formed where they are read ([`Problem::c_col`]) from `S` itself when it is
/// exactly symmetric (every similarity compclust computes), else from `S_sym`, stored.
pub(crate) struct Problem<'s> {
    pub n: usize,
    s: Sym<'s>,
    /// `C`, stored unless the solve is lean (forming each column where it is read cost 6 % of
    /// SPUR's time at n = 1000: median of ten seeds, 11.39 s against 10.52 s, one 2-core AMD
    /// EPYC guest, 2026-11-28).
    c: Option<Mat<f64>>,
    lambda: f64,
    pub c_norm: f64,
    pub k: Option<f64>,
    pub k0: f64,
}

/// `S` as the solver reads it: borrowed when exactly symmetric, else its symmetric part.
enum Sym<'s> {
    Borrowed(MatRef<'s, f64>),
    Owned(Mat<f64>),
}

impl Sym<'_> {
    fn get(&self) -> MatRef<'_, f64> {
        match self {
            Sym::Borrowed(s) => *s,
            Sym::Owned(s) => s.as_ref(),
        }
    }
}

impl<'s> Problem<'s> {
    pub(crate) fn new(
        s: MatRef<'s, f64>,
        problem: SdpProblem,
        lean: bool,
    ) -> Result<Self, SdpError> {
        let n = validate_similarity(s)?;
        let (lambda, k) = match problem {
            SdpProblem::Lambda(l) => {
                if !l.is_finite() {
                    return Err(SdpError::InvalidLambda { lambda: l });
                }
                (l, None)
            }
            SdpProblem::K(k) => {
                if k == 0 || k > n {
                    return Err(SdpError::InvalidK { k, n });
                }
                (0.0, Some(k as f64))
            }
        };
        // The stored C symmetrises as it is built; a lean solve reads S_sym itself.
        let sym = if !lean || is_symmetric(s) {
            Sym::Borrowed(s)
        } else {
            Sym::Owned(Mat::from_fn(n, n, |i, j| 0.5 * (s[(i, j)] + s[(j, i)])))
        };
        let c = (!lean).then(|| {
            let s = sym.get();
            Mat::from_fn(n, n, |i, j| c_entry(s, lambda, i, j))
        });
        let c_norm = match &c {
            Some(c) => c.norm_l2(),
            None => c_norm(sym.get(), lambda),
        };
        let k0 = k.unwrap_or_else(|| (n as f64).min(2.0));
        Ok(Problem {
            n,
            c,
            s: sym,
            lambda,
            c_norm,
            k,
            k0,
        })
    }

    /// Column `j` of `C = −S_sym + λI`: the stored one, or written into `buf` (length `n`).
    pub(crate) fn c_col<'b>(&'b self, j: usize, buf: &'b mut [f64]) -> &'b [f64] {
        match &self.c {
            Some(c) => c.col_as_slice(j),
            None => c_col_of(self.s.get(), self.lambda, j, buf),
        }
    }

    /// The entry `C[j, j]`.
    fn c_diag(&self, j: usize) -> f64 {
        c_entry(self.s.get(), self.lambda, j, j)
    }
}

/// `C[i, j] = −(S[i, j] + S[j, i])/2 + λ·[i = j]`.
fn c_entry(s: MatRef<'_, f64>, lambda: f64, i: usize, j: usize) -> f64 {
    -0.5 * (s[(i, j)] + s[(j, i)]) + if i == j { lambda } else { 0.0 }
}

/// Column `j` of `C = −S + λI` for a symmetric `s`, written into `buf`: the same numbers as
/// the entries of `−(S + Sᵀ)/2 + λI` (halving a doubled number is exact).
fn c_col_of<'b>(s: MatRef<'_, f64>, lambda: f64, j: usize, buf: &'b mut [f64]) -> &'b [f64] {
    // `+ 0.0` as in `−(S + Sᵀ)/2 + 0·I`: the same zeros, signs included.
    match s.col(j).try_as_col_major() {
        Some(c) => (buf.iter_mut().zip(c.as_slice())).for_each(|(b, &v)| *b = -v + 0.0),
        None => (buf.iter_mut().zip(s.col(j).iter())).for_each(|(b, &v)| *b = -v + 0.0),
    }
    buf[j] += lambda;
    buf
}

/// Whether `s` equals its transpose exactly (then it is its own symmetric part).
pub(crate) fn is_symmetric(s: MatRef<'_, f64>) -> bool {
    (0..s.ncols()).all(|j| (j + 1..s.nrows()).all(|i| s[(i, j)] == s[(j, i)]))
}

/// `‖C‖_F` for `C = −S + λI` (`s` symmetric), by faer's Frobenius norm as for a stored `C`.
/// SDP-k (λ = 0): `‖C‖ = ‖S‖`, entry for entry up to sign. SDP-λ: a temporary `C`, freed
/// before the solve allocates its iterates (two solves per SPUR run).
fn c_norm(s: MatRef<'_, f64>, lambda: f64) -> f64 {
    if lambda == 0.0 {
        return s.norm_l2();
    }
    let n = s.nrows();
    let mut c = Mat::zeros(n, n);
    for j in 0..n {
        c_col_of(s, lambda, j, c.col_as_slice_mut(j));
    }
    c.norm_l2()
}

/// Solves SDP-λ or SDP-k (see [`SdpProblem`]) by ADMM, cold (`warm = None`) or warm-started
/// from the state of a previous solve on the same `n`. `observer` sees every residual check.
/// The solve runs on a worker of rayon's pool (`docs/SOLVER.md`, "Threads").
pub fn solve_sdp(
    s: MatRef<'_, f64>,
    problem: SdpProblem,
    params: &SdpParams,
    warm: Option<&SdpState>,
    observer: Option<&mut dyn Observer>,
) -> Result<SdpSolution, SdpError> {
    crate::pool::on_pool(|| solve_here(s, problem, params, warm, observer))
}

/// [`solve_sdp`] on the calling thread.
fn solve_here(
    s: MatRef<'_, f64>,
    problem: SdpProblem,
    params: &SdpParams,
    warm: Option<&SdpState>,
    mut observer: Option<&mut dyn Observer>,
) -> Result<SdpSolution, SdpError> {
    params.check()?;
    let start = Instant::now();
    let pb = Problem::new(s, problem, params.lean(s.nrows()))?;
    if let Some(w) = warm
        && w.n() != pb.n
    {
        return Err(SdpError::WarmStartMismatch {
            state_n: w.n(),
            n: pb.n,
        });
    }
    if pb.n == 1 {
        return Ok(trivial_n1(&pb, problem, start));
    }
    let mut run = Admm::new(pb, problem, params, warm, start)?;
    for it in 1..=params.max_iter {
        if crate::cancel::requested() {
            return Err(SdpError::Cancelled);
        }
        let check = it % params.check_every == 0 || it == params.max_iter;
        let kind = run.iterate(it, check)?;
        if check && run.check(it, kind, &mut observer)? {
            break;
        }
    }
    Ok(run.finish())
}

/// One ADMM solve in progress (`docs/OVERLAP.md`): the problem, the state `(T, W, Y, ρ)`, the last affine
/// iterate `X` (written at the residual checks), the projector and the bookkeeping of the
/// checks.
struct Admm<'a> {
    pb: Problem<'a>,
    params: &'a SdpParams,
    start: Instant,
    par_passes: bool,
    t: Mat<f64>,
    w: Mat<f64>,
    y: PsdPart,
    /// Allocated at the first residual check (the cold start's full eigendecompositions come
    /// before it, and do not have to fit beside it).
    x: Option<Mat<f64>>,
    rho: f64,
    proj: Projector,
    sums: Sums,
    colsum: Vec<f64>,
    mu: Vec<f64>,
    info: SdpInfo,
    /// Whether a partial projection was accepted since the last check.
    partial_since_check: bool,
    /// The cone violation `‖W₊ − Y‖` estimate of the last partial projection.
    last_cone: f64,
    balance: RhoBalance,
    deferrals_left: usize,
    /// The stall clock, the projection errors seen since it last restarted and the trial of
    /// exact projections under way ([`SdpParams::stall_iters`]).
    stall: StallRule,
    /// Whether the solve is lean ([`SdpParams::lean_n`]): then `X`'s buffer serves the
    /// inertia counts between its uses.
    lean: bool,
}

impl<'a> Admm<'a> {
    /// The cold start (the barycentre, ρ₀ = `COLD_RHO_FACTOR`·‖C‖_F/√k₀) or the warm one
    /// (a previous solve's state); `params.rho` overrides ρ either way.
    fn new(
        pb: Problem<'a>,
        problem: SdpProblem,
        params: &'a SdpParams,
        warm: Option<&SdpState>,
        start: Instant,
    ) -> Result<Self, SdpError> {
        let n = pb.n;
        let (t, w, y, rho, basis) = match warm {
            Some(st) => (
                st.t.to_f64()?,
                st.w.to_f64()?,
                st.y.to_part()?,
                st.rho,
                st.basis.clone(),
            ),
            None => {
                let x0 = barycentre(n, pb.k0);
                let rho0 = if pb.c_norm > 0.0 {
                    COLD_RHO_FACTOR * pb.c_norm / pb.k0.sqrt()
                } else {
                    1.0
                };
                (x0.clone(), x0.clone(), PsdPart::Dense(x0), rho0, None)
            }
        };
        let rho = params.rho.unwrap_or(rho);
        let par = params.par(n);
        let adaptive = params.projection == Projection::Adaptive;
        let sums = Sums::new(&pb, &t, &w, &y);
        Ok(Admm {
            proj: Projector::new(n, par, adaptive, basis)
                .with_single_precision(params.tol >= super::eig::SINGLE_PRECISION_TOL)
                .lean(params.lean(n)),
            par_passes: matches!(par, faer::Par::Rayon(_)),
            info: SdpInfo::start(problem, rho),
            params,
            start,
            t,
            w,
            y,
            x: None,
            rho,
            sums,
            colsum: vec![0.0; n],
            mu: vec![0.0; n],
            partial_since_check: false,
            last_cone: 0.0,
            balance: RhoBalance::new(params.check_every),
            deferrals_left: CERT_DEFERRALS,
            stall: StallRule::new(params.stall_iters, params.stall_trial_iters),
            lean: params.lean(n),
            pb,
        })
    }

    /// One ADMM iteration: the fused affine/nonnegative/over-relaxation pass, then
    /// `Y = Π_psd(W)`. `X` is written only when `write_x` (the residual checks need it).
    fn iterate(&mut self, it: usize, write_x: bool) -> Result<ProjectionKind, SdpError> {
        // M = Y − W/2 + |T|/2 − C/(2ρ) is never stored: its column sums and trace come from
        // the sums kept by the previous pass, the affine correction (μ, ν) from them, and one
        // fused pass forms X = Π_A(M) and the over-relaxed updates of T and W (`docs/OVERLAP.md`).
        let h = 0.5 / self.rho;
        let tr = self.sums.m_colsums(h, &mut self.colsum);
        for v in self.colsum.iter_mut() {
            *v = 1.0 - *v;
        }
        let nu = solve_aat(&self.colsum, self.pb.k.map(|k| k - tr), &mut self.mu);
        let step = Step {
            pb: &self.pb,
            y: &self.y,
            mu: &self.mu,
            nu,
            h,
            alpha: self.params.alpha,
        };
        let n = self.pb.n;
        let xout = write_x.then(|| self.x.get_or_insert_with(|| Mat::zeros(n, n)).as_mut());
        step.run(
            &mut self.t,
            &mut self.w,
            xout,
            &mut self.sums,
            self.par_passes,
        );
        self.lend_x(write_x);
        let kind = self.proj.project(self.w.as_ref(), &mut self.y);
        self.x_back()?;
        let kind = kind.map_err(|_| SdpError::Eigen { iteration: it })?;
        self.sums.set_y(&self.y);
        match kind {
            ProjectionKind::Full => self.info.eig_full += 1,
            ProjectionKind::Partial { cone, inertia } => {
                self.info.eig_partial += 1;
                self.info.eig_inertia += usize::from(inertia);
                self.partial_since_check = true;
                self.last_cone = cone;
            }
        }
        self.info.iterations = it;
        Ok(kind)
    }

    /// In a lean solve, lends `X`'s buffer to the projector's inertia counts
    /// ([`Projector::lend`]); `live` when it holds this iteration's `X`.
    fn lend_x(&mut self, live: bool) {
        if self.lean
            && let Some(x) = self.x.take()
        {
            self.proj.lend(x, live);
        }
    }

    /// `X`'s buffer back from the projector (its matrix read back if a count used it).
    fn x_back(&mut self) -> Result<(), SdpError> {
        if let Some(x) = self.proj.take_lent()? {
            self.x = Some(x);
        }
        Ok(())
    }

    /// The KKT measures of the current iterate.
    fn residuals(&mut self) -> Residuals {
        residuals(
            &self.pb,
            self.x.as_ref().expect("X is written at every check"),
            &self.t,
            &self.w,
            &self.y,
            self.rho,
            &mut self.colsum,
            &mut self.mu,
        )
    }

    /// The residual check after iteration `it` (whose projection was `kind`): measures,
    /// certifies the projection when the measures say converged, reports, and balances ρ.
    /// Returns whether the solve has converged.
    fn check(
        &mut self,
        it: usize,
        kind: ProjectionKind,
        observer: &mut Option<&mut dyn Observer>,
    ) -> Result<bool, SdpError> {
        let mut r = self.residuals();
        self.info.cone_residual = if self.partial_since_check {
            self.rho * self.last_cone / (1.0 + self.pb.c_norm)
        } else {
            0.0
        };
        let mut deferred = false;
        if self.partial_since_check && r.worst() <= self.params.tol {
            deferred = self.certify(it, kind, &mut r)?;
        }
        let worst = r.worst();
        // Inexact ADMM converges only while the projection error stays well below the
        // residuals it is meant to reduce: otherwise resolve smaller eigenvalues (`docs/OVERLAP.md`).
        if self.partial_since_check && self.info.cone_residual > CONE_SHARE * worst {
            self.proj.tighten();
        }
        self.watch_stall(it, worst);
        self.partial_since_check = false;
        if let Some(o) = observer.as_deref_mut() {
            o.sdp_check(&self.check_state(it, &r));
        }
        self.info.primal_residual = r.primal;
        self.info.dual_residual = r.dual;
        self.info.gap = r.gap;
        self.info.objective = -r.pobj;
        self.info.dual_objective = -r.dobj;
        if deferred {
            return Ok(false);
        }
        if worst <= self.params.tol {
            self.info.converged = true;
            return Ok(true);
        }
        if self.params.adaptive_rho && it < self.params.max_iter {
            self.balance_rho(it, &r);
        }
        Ok(false)
    }

    /// Whether the partial projections since the last check erred by more than `share` of the
    /// worst stopping measure `worst` (their cone residual; `share` 0: any partial projection).
    fn projection_error_at_least(&self, share: f64, worst: f64) -> bool {
        self.partial_since_check && self.info.cone_residual >= share * worst
    }

    /// Stalled partial projections (`docs/SOLVER.md`): a partial projection is accurate only
    /// to its Ritz residuals, and on some problems that error keeps the iterates hovering near
    /// the tolerance for thousands of iterations, where exact projections converge in tens.
    /// When [`StallWatch::stalled`] finds the worst measure not halved within
    /// [`SdpParams::stall_iters`] iterations while the projection error has been a real share
    /// of it ([`SdpParams::stall_cone_share`]) at this check and at least at half the checks
    /// since it last halved, the solve tries exact projections ([`StallRule`]), and keeps
    /// them for the rest of the solve if the worst measure falls with them (not in a lean
    /// solve, whose memory a full eigendecomposition per iteration would undo). A slow tail
    /// whose partial projections are accurate (the common case: ADMM's own linear rate), or
    /// err only at a few checks, keeps them, and so does one that the trial does not speed
    /// up, since exact projections would take as many iterations at several times the cost.
    fn watch_stall(&mut self, it: usize, worst: f64) {
        if self.lean || self.info.full_from.is_some() {
            return;
        }
        let erring = self.projection_error_at_least(self.params.stall_cone_share, worst);
        match self.stall.check(it, worst, erring, self.params.tol) {
            StallStep::Go => {}
            StallStep::Try => self.proj.suspend_partial(true),
            StallStep::Keep(from) => {
                self.proj.stop_partial();
                self.info.full_from = Some(from);
            }
            StallStep::Return => {
                self.proj.suspend_partial(false);
                self.info.trials_returned += 1;
            }
        }
    }

    /// Truncated projections can fake convergence (`docs/OVERLAP.md`): before measures `r` that meet
    /// the tolerance are believed, the last partial projection is certified. Two inertia counts
    /// suffice when they bound `‖Π_psd(W) − Y‖` tightly enough that the exact projection would
    /// leave every measure within the tolerance too. When the counts confirm the block but the
    /// bound is too loose, the check is postponed (at most `CERT_DEFERRALS` times; returns
    /// `true`). Otherwise the exact projection of the current `W` replaces `Y`, its cone
    /// violation `ρ‖W₊ − Y‖` is recorded, and `r` is re-measured on the exact state.
    fn certify(
        &mut self,
        it: usize,
        kind: ProjectionKind,
        r: &mut Residuals,
    ) -> Result<bool, SdpError> {
        // The inertia counts and the exact projection below cost up to two full
        // eigendecompositions: stop first when cancelled.
        if crate::cancel::requested() {
            return Err(SdpError::Cancelled);
        }
        let tol = self.params.tol;
        let last_partial = matches!(kind, ProjectionKind::Partial { .. });
        self.lend_x(true);
        let bound = last_partial
            .then(|| self.proj.certify_by_inertia(self.w.as_ref()))
            .flatten();
        self.x_back()?;
        if let Some(b) = bound.filter(|&b| r.stay_within(b, self.rho, &self.pb, tol)) {
            self.info.inertia_certified = true;
            self.info.cone_residual = self.rho * b / (1.0 + self.pb.c_norm);
            return Ok(false);
        }
        if bound.is_some() && self.deferrals_left > 0 && it < self.params.max_iter {
            // The block holds the whole positive part, but its error bound is too loose for a
            // measure this close to the tolerance: iterate on (the measures keep falling)
            // rather than pay a full eigendecomposition now.
            self.deferrals_left -= 1;
            return Ok(true);
        }
        if crate::cancel::requested() {
            return Err(SdpError::Cancelled);
        }
        let n = self.pb.n;
        let mut y_exact = PsdPart::zero(n);
        self.lend_x(true);
        let exact = self.proj.project_exact(self.w.as_ref(), &mut y_exact);
        self.x_back()?;
        exact.map_err(|_| SdpError::Eigen { iteration: it })?;
        self.info.eig_full += 1;
        self.info.cone_residual = self.rho * y_exact.distance(&self.y, n) / (1.0 + self.pb.c_norm);
        self.y = y_exact;
        self.sums.set_y(&self.y);
        *r = self.residuals();
        if r.worst() > tol {
            self.proj.tighten();
        }
        Ok(false)
    }

    /// The state of the check after iteration `it`, for an observer.
    fn check_state(&self, it: usize, r: &Residuals) -> SdpCheck {
        SdpCheck {
            problem: self.info.problem,
            iteration: it,
            primal: r.primal,
            dual: r.dual,
            gap: r.gap,
            cone: self.info.cone_residual,
            rho: self.rho,
            eig_full: self.info.eig_full,
            eig_partial: self.info.eig_partial,
            block: self.proj.block_len(),
            seconds: self.start.elapsed().as_secs_f64(),
            tol: self.params.tol,
        }
    }

    /// Residual balancing of ρ ([`balance_direction`], damped by [`RhoBalance`]).
    fn balance_rho(&mut self, it: usize, r: &Residuals) {
        if it < self.balance.next_allowed {
            return;
        }
        let trace_short = self.pb.k.is_some_and(|k| self.sums.y_tr < k - 0.5);
        let dir = balance_direction(r.primal, r.dual, trace_short);
        if dir != 0 {
            self.balance.changed(it, dir);
            let f = if dir > 0 { 0.5 } else { 2.0 };
            rescale_rho(&mut self.t, &mut self.w, &self.y, f, &mut self.sums);
            self.rho /= f;
        }
    }

    /// The solution: `X` made exactly symmetric, the final info and the warm-start state.
    fn finish(self) -> SdpSolution {
        let Admm {
            x,
            mut info,
            t,
            w,
            y,
            rho,
            proj,
            start,
            stall,
            ..
        } = self;
        if let Some(trial) = stall.trial {
            // Stopped at `max_iter` during a trial: its full eigendecompositions ran to the end.
            info.full_from = Some(trial.from);
        }
        let mut x = x.expect("the last iteration is a check");
        symmetrize(&mut x);
        info.trace = (0..x.nrows()).map(|i| x[(i, i)]).sum();
        info.rho = rho;
        info.seconds = start.elapsed().as_secs_f64();
        info.projection_seconds = proj.seconds();
        SdpSolution {
            x,
            info,
            state: SdpState {
                t: Stored::F64(t),
                w: Stored::F64(w),
                y: KeptPsd::Part(y),
                rho,
                basis: proj.into_basis(),
            },
        }
    }
}

/// Column sums and traces of `C`, `W`, `|T|` and `Y`, from which the column sums and trace of
/// `M = Y − W/2 + |T|/2 − hC` follow without a pass over `M`. The fused pass refreshes those
/// of `W` and `|T|` as it writes them; the projection those of `Y`.
struct Sums {
    c: Vec<f64>,
    c_tr: f64,
    w: Vec<f64>,
    w_tr: f64,
    t: Vec<f64>,
    t_tr: f64,
    y: Vec<f64>,
    y_tr: f64,
}

impl Sums {
    fn new(pb: &Problem, t: &Mat<f64>, w: &Mat<f64>, y: &PsdPart) -> Self {
        let n = pb.n;
        let mut buf = vec![0.0; n];
        let c_sums = (0..n)
            .map(|j| simd::sums(pb.c_col(j, &mut buf)).0)
            .collect();
        let c_tr = (0..n).map(|j| pb.c_diag(j)).sum();
        let colsum = |m: &Mat<f64>, abs: bool| -> Vec<f64> {
            (0..n)
                .map(|j| {
                    let c = m.col_as_slice(j);
                    if abs {
                        simd::sums(c).1
                    } else {
                        simd::sums(c).0
                    }
                })
                .collect()
        };
        let diag = |m: &Mat<f64>, abs: bool| -> f64 {
            (0..n)
                .map(|i| if abs { m[(i, i)].abs() } else { m[(i, i)] })
                .sum()
        };
        let mut s = Sums {
            c: c_sums,
            c_tr,
            w: colsum(w, false),
            w_tr: diag(w, false),
            t: colsum(t, true),
            t_tr: diag(t, true),
            y: vec![0.0; n],
            y_tr: 0.0,
        };
        s.set_y(y);
        s
    }

    fn set_y(&mut self, y: &PsdPart) {
        self.y_tr = y.colsums_trace(&mut self.y);
    }

    /// Column sums of `M` into `out`; returns `tr M`.
    fn m_colsums(&self, h: f64, out: &mut [f64]) -> f64 {
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.y[j] - 0.5 * self.w[j] + 0.5 * self.t[j] - h * self.c[j];
        }
        self.y_tr - 0.5 * self.w_tr + 0.5 * self.t_tr - h * self.c_tr
    }
}

/// Columns per task below which the fused passes stop splitting work across threads.
const PAR_MIN_COLS: usize = 32;

/// One ADMM step's fused pass (`docs/OVERLAP.md`): with `M = Y − W/2 + |T|/2 − hC` (h = 1/(2ρ)) formed
/// entry by entry, `X = M + (μ1ᵀ + 1μᵀ)/2 + νI` (the affine projection), then
/// `T ← T + α(X − T₊)` and `W ← W + α(X − Y)`, i.e. the over-relaxed updates
/// `T = αX + (1−α)Z + U`, `W = αX + (1−α)Y + V` with `Z = T₊`, `U = T₋`, `V = W − Y`. Reads
/// `C`, `T`, `W` (and `Y` or its factor), writes `T`, `W`, and `X` only when asked (the residual
/// checks need it). Columns are split across rayon threads when `par`; each column is summed
/// serially, so results do not depend on the thread count.
struct Step<'a> {
    pb: &'a Problem<'a>,
    y: &'a PsdPart,
    mu: &'a [f64],
    nu: f64,
    h: f64,
    alpha: f64,
}

impl Step<'_> {
    fn run(
        &self,
        t: &mut Mat<f64>,
        w: &mut Mat<f64>,
        x: Option<MatMut<'_, f64>>,
        sums: &mut Sums,
        par: bool,
    ) {
        self.cols(t.as_mut(), w.as_mut(), x, 0, &mut sums.w, &mut sums.t, par);
        let n = t.nrows();
        sums.w_tr = (0..n).map(|i| w[(i, i)]).sum();
        sums.t_tr = (0..n).map(|i| t[(i, i)].abs()).sum();
    }

    #[allow(clippy::too_many_arguments)]
    fn cols(
        &self,
        mut t: MatMut<'_, f64>,
        mut w: MatMut<'_, f64>,
        x: Option<MatMut<'_, f64>>,
        col0: usize,
        wsum: &mut [f64],
        tsum: &mut [f64],
        par: bool,
    ) {
        let nc = t.ncols();
        if par && nc > PAR_MIN_COLS {
            let mid = nc / 2;
            let (t0, t1) = t.split_at_col_mut(mid);
            let (w0, w1) = w.split_at_col_mut(mid);
            let (x0, x1) = match x {
                Some(x) => {
                    let (a, b) = x.split_at_col_mut(mid);
                    (Some(a), Some(b))
                }
                None => (None, None),
            };
            let (ws0, ws1) = wsum.split_at_mut(mid);
            let (ts0, ts1) = tsum.split_at_mut(mid);
            rayon::join(
                || self.cols(t0, w0, x0, col0, ws0, ts0, par),
                || self.cols(t1, w1, x1, col0 + mid, ws1, ts1, par),
            );
            return;
        }
        let n = t.nrows();
        let (mut buf, mut cbuf) = (vec![0.0; n], vec![0.0; n]);
        let mut x = x;
        for jj in 0..nc {
            let j = col0 + jj;
            let yj = self.y.col(j, &mut buf);
            let cj = self.pb.c_col(j, &mut cbuf);
            let tj = col_mut(t.rb_mut(), jj);
            let wj = col_mut(w.rb_mut(), jj);
            let muj = 0.5 * self.mu[j];
            let (h, a) = (self.h, self.alpha);
            let xj = x.as_mut().map(|x| col_mut(x.rb_mut(), jj));
            simd::step_col(cj, yj, self.mu, tj, wj, xj, h, a, muj);
            if let Some(x) = x.as_mut() {
                col_mut(x.rb_mut(), jj)[j] += self.nu;
            }
            // The νI part of X, added on the diagonal afterwards (T and W are linear in X).
            tj[j] += a * self.nu;
            wj[j] += a * self.nu;
            wsum[jj] = simd::sums(wj).0;
            tsum[jj] = simd::sums(tj).1;
        }
    }
}

/// Column `j` of a column-major view as a mutable slice.
fn col_mut(m: MatMut<'_, f64>, j: usize) -> &mut [f64] {
    m.col_mut(j)
        .try_as_col_major_mut()
        .expect("solver matrices are column-major")
        .as_slice_mut()
}

/// The cold start's penalty is `COLD_RHO_FACTOR·‖C‖_F/√k₀`. With the factor 1 (the note's
/// scale, about where residual balancing settles) the first ADMM steps move `X` so far from
/// the barycentre that the nonnegative block clips many entries and the positive part of `W`
/// widens to hundreds of eigenvalues (n = 2000: 4, 629, 286, 306), so the first four
/// projections are full eigendecompositions. A 20× larger ρ₀ keeps the first steps small;
/// residual balancing then lowers ρ within a few checks. Cold SDP-λ at tol 1e-3 with factors
/// 1, 5, 10, 20, 40 (`docs/benchmarks/sdp.md`): 20 gave the fewest full EVDs
/// (n = 1000–3000: 3–4 → 1–2) and fewer iterations (350–370 → 300–310).
const COLD_RHO_FACTOR: f64 = 20.0;

/// How many times one solve may postpone its convergence check when the inertia certificate
/// (`Projector::certify_by_inertia`) confirms the block but its bound is too loose for the
/// tolerance. Each postponement costs `check_every` iterations; the full eigendecomposition it
/// avoids costs ≈ 150 s at n = 10⁴ (`docs/benchmarks/sdp.md`).
const CERT_DEFERRALS: usize = 2;

/// The share of the worst stopping measure above which the partial projections' own error
/// (their cone residual `ρ‖Π_psd(W) − Y‖ / (1 + ‖C‖_F)`) makes a check resolve smaller
/// eigenvalues. A stalled solve compares the same residual with
/// [`SdpParams::stall_cone_share`] over its stalled checks.
const CONE_SHARE: f64 = 0.1;

/// The stall clock of [`SdpParams::stall_iters`] (`docs/SOLVER.md`, "Stalled partial
/// projections"): the worst stopping measure at the check that last halved it, that check's
/// iteration and the lowest worst measure since, and how many checks since then, and how many
/// of them found the partial projections erring by at least [`SdpParams::stall_cone_share`]
/// of the worst measure.
#[derive(Debug)]
struct StallWatch {
    best: f64,
    /// The lowest worst measure since `best` (`best` itself at first).
    low: f64,
    since: usize,
    checks: usize,
    erring: usize,
}

impl StallWatch {
    fn new() -> Self {
        StallWatch {
            best: f64::INFINITY,
            low: f64::INFINITY,
            since: 0,
            checks: 0,
            erring: 0,
        }
    }

    /// Records the check at iteration `it` (worst measure `worst`; `erring`: partial
    /// projections since the previous check erred by at least the share) and says whether the
    /// solve has stalled on its partial projections: the worst measure has not halved for
    /// `stall_iters` iterations (0: never stalled), and the projections erred at this check
    /// and at no fewer than half of the checks since it last halved. An error that only
    /// spikes at a few checks (a block being resized) is not what holds a slow tail back.
    fn stalled(&mut self, it: usize, worst: f64, erring: bool, stall_iters: usize) -> bool {
        if worst <= 0.5 * self.best {
            *self = StallWatch {
                best: worst,
                low: worst,
                since: it,
                ..StallWatch::new()
            };
            return false;
        }
        self.checks += 1;
        self.erring += usize::from(erring);
        self.low = self.low.min(worst);
        stall_iters > 0
            && erring
            && it - self.since >= stall_iters
            && 2 * self.erring >= self.checks
    }
}

/// What the stall rule ([`StallRule::check`]) asks of the projections after a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StallStep {
    /// Go on as before.
    Go,
    /// Stalled: try full eigendecompositions.
    Try,
    /// They worked: keep them from the given iteration (where the trial began, or this
    /// check's when there is no trial) to the end.
    Keep(usize),
    /// They did not: return to the partial projections.
    Return,
}

/// A trial of exact projections after a stall: it began at iteration `from`, and it keeps
/// them if the worst measure reaches `target` (half the lowest value since it last halved,
/// or the tolerance) by iteration `until`.
#[derive(Debug, Clone, Copy)]
struct ExactTrial {
    from: usize,
    until: usize,
    target: f64,
}

/// The stall rule of [`SdpParams::stall_iters`], [`SdpParams::stall_cone_share`] and
/// [`SdpParams::stall_trial_iters`] (`docs/SOLVER.md`, "Stalled partial projections"): the
/// stall clock ([`StallWatch`], which waits `wait` iterations), the trial under way, and its
/// length. A trial that fails restarts the clock with twice the wait, so that a slow tail
/// the rule keeps catching pays for at most a few trials.
#[derive(Debug)]
struct StallRule {
    watch: StallWatch,
    wait: usize,
    trial: Option<ExactTrial>,
    trial_iters: usize,
}

impl StallRule {
    fn new(stall_iters: usize, trial_iters: usize) -> Self {
        StallRule {
            watch: StallWatch::new(),
            wait: stall_iters,
            trial: None,
            trial_iters,
        }
    }

    /// Records the check at iteration `it` (worst measure `worst`; `erring`: the partial
    /// projections since the previous check erred by at least the share; `tol`: the solve's
    /// tolerance) and says what the projections do next.
    fn check(&mut self, it: usize, worst: f64, erring: bool, tol: f64) -> StallStep {
        if let Some(trial) = self.trial {
            if worst <= trial.target {
                self.trial = None;
                return StallStep::Keep(trial.from);
            }
            if it < trial.until {
                return StallStep::Go;
            }
            self.trial = None;
            self.watch = StallWatch::new();
            self.wait = self.wait.saturating_mul(2);
            return StallStep::Return;
        }
        if !self.watch.stalled(it, worst, erring, self.wait) {
            return StallStep::Go;
        }
        if self.trial_iters == 0 {
            return StallStep::Keep(it);
        }
        self.trial = Some(ExactTrial {
            from: it,
            until: it + self.trial_iters,
            target: (0.5 * self.watch.low).max(tol),
        });
        StallStep::Try
    }
}

/// Residual balancing (`docs/OVERLAP.md`): double ρ when the primal residual exceeds the dual one by more
/// than 5×, halve it in the opposite case; 0 keeps ρ.
///
/// Exception (SDP-k): while `tr Y` falls short of k by more than ½ (`trace_short`), ρ is not
/// raised. In that state `Y = Π_psd(W)` has collapsed below rank k, the affine step spreads
/// the missing trace uniformly over all n directions, and the primal residual sits at
/// `≈ 1/(2√n)` whatever ρ is: the dual `V` has to rise as a whole until its top directions
/// cross zero. Raising ρ there only compresses V's spectrum, and at n = 10⁴ made thousands of
/// its eigenvalues cross zero together, each step then a full eigendecomposition
/// (`docs/benchmarks/sdp.md`, commits 3115e51–d19c534).
fn balance_direction(primal: f64, dual: f64, trace_short: bool) -> i8 {
    if primal > 5.0 * dual && !trace_short {
        1
    } else if dual > 5.0 * primal {
        -1
    } else {
        0
    }
}

/// Residual balancing of ρ (`docs/OVERLAP.md`) with a damping of oscillations: each change of ρ in the
/// opposite direction to the previous one doubles the number of iterations before the next
/// change is allowed. Without it, ρ can flip between two values for ever and the ADMM never
/// converges: a 4 × 4 SDP-k that fixed-ρ ADMM solves in ≈ 300 iterations still had residuals
/// of 6e-3 / 4e-2 after 500,000 flips (a proptest case, `tests/sdp.proptest-regressions`).
/// A steady drift of ρ in one direction is not slowed down.
struct RhoBalance {
    /// Iterations to wait after a reversal.
    gap: usize,
    /// First iteration at which ρ may change again.
    next_allowed: usize,
    /// Direction of the last change: +1 (ρ doubled), −1 (halved), 0 (none yet).
    last_dir: i8,
}

impl RhoBalance {
    fn new(check_every: usize) -> Self {
        RhoBalance {
            gap: check_every.max(1),
            next_allowed: 0,
            last_dir: 0,
        }
    }

    /// Record a change of ρ in direction `dir` at iteration `it`.
    fn changed(&mut self, it: usize, dir: i8) {
        if dir == -self.last_dir {
            self.gap = self.gap.saturating_mul(2);
            self.next_allowed = it.saturating_add(self.gap);
        }
        self.last_dir = dir;
    }
}

/// Scales the scaled duals `U = T₋`, `V = W − Y` by `f` (ρ is scaled by `1/f`), and refreshes
/// the column sums of `W` and `|T|`.
fn rescale_rho(t: &mut Mat<f64>, w: &mut Mat<f64>, y: &PsdPart, f: f64, sums: &mut Sums) {
    let n = t.nrows();
    let mut buf = vec![0.0; n];
    for j in 0..n {
        let yj = y.col(j, &mut buf);
        let tj = t.col_as_slice_mut(j);
        for v in tj.iter_mut() {
            *v = if *v < 0.0 { *v * f } else { *v };
        }
        sums.t[j] = simd::sums(tj).1;
        let wj = w.col_as_slice_mut(j);
        for (wv, &yv) in wj.iter_mut().zip(yj) {
            *wv = yv + f * (*wv - yv);
        }
        sums.w[j] = simd::sums(wj).0;
    }
    sums.w_tr = (0..n).map(|i| w[(i, i)]).sum();
    sums.t_tr = (0..n).map(|i| t[(i, i)].abs()).sum();
}

#[derive(Debug)]
pub(crate) struct Residuals {
    pub primal: f64,
    pub dual: f64,
    pub gap: f64,
    pub pobj: f64,
    pub dobj: f64,
    /// `‖X‖_F`.
    pub x_norm: f64,
}

impl Residuals {
    /// The largest of the three stopping measures.
    pub fn worst(&self) -> f64 {
        self.primal.max(self.dual).max(self.gap)
    }

    /// Whether every stopping measure stays ≤ `tol` when `Y` is replaced by any matrix within
    /// `bound` (Frobenius) of it, such as the exact projection `Π_psd(W)`
    /// ([`Projector::certify_by_inertia`]). `X` is fixed, so:
    /// - the primal residual moves by at most `bound/(1 + ‖X‖)`;
    /// - the dual residual by at most `ρ·bound/(1 + ‖C‖)` (`V = W − Y` moves by `bound`, and
    ///   the residual of the least-squares multiplier is a projection, 1-Lipschitz);
    /// - the dual objective `R/n + (k − 1)(tr D − R/n)/(n − 1)` of that multiplier
    ///   ([`solve_aat`]; `D` the dual matrix, `R = 1ᵀD1`) by at most
    ///   `δ = ρ·bound·(1 + (k − 1)(√n + 1)/(n − 1))` (`ρ·bound` for SDP-λ), since
    ///   `|1ᵀΔD1| ≤ n‖ΔD‖_F` and `|tr ΔD| ≤ √n‖ΔD‖_F`; the relative gap then stays below
    ///   `(|p − d| + δ) / max(1 + |p| + |d| − δ, 1)`.
    pub fn stay_within(&self, bound: f64, rho: f64, pb: &Problem, tol: f64) -> bool {
        let n = pb.n as f64;
        let lip = 1.0
            + pb.k.map_or(0.0, |k| {
                (k - 1.0).max(0.0) * (n.sqrt() + 1.0) / (n - 1.0).max(1.0)
            });
        let delta = rho * bound * lip;
        let primal = self.primal + bound / (1.0 + self.x_norm);
        let dual = self.dual + rho * bound / (1.0 + pb.c_norm);
        let gap = ((self.pobj - self.dobj).abs() + delta)
            / (1.0 + self.pobj.abs() + self.dobj.abs() - delta).max(1.0);
        primal <= tol && dual <= tol && gap <= tol
    }
}

/// KKT measures of the `docs/OVERLAP.md`: primal residual, dual residual from the least-squares
/// multiplier `y = argmin ‖A*y − D‖` with `D = C + ρ(U + V)`, and the duality gap.
#[allow(clippy::too_many_arguments)]
fn residuals(
    pb: &Problem,
    x: &Mat<f64>,
    t: &Mat<f64>,
    w: &Mat<f64>,
    y: &PsdPart,
    rho: f64,
    dsum: &mut [f64],
    mu: &mut [f64],
) -> Residuals {
    let n = pb.n;
    let (mut buf, mut cbuf) = (vec![0.0; n], vec![0.0; n]);
    let (mut xy2, mut xz2, mut x2, mut pobj, mut dtr) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for j in 0..n {
        let yj = y.col(j, &mut buf);
        let (cj, xj, tj, wj) = (
            pb.c_col(j, &mut cbuf),
            x.col_as_slice(j),
            t.col_as_slice(j),
            w.col_as_slice(j),
        );
        let [a1, a2, a3, a4, a5] = simd::primal_col(cj, xj, tj, wj, yj, rho);
        xy2 += a1;
        xz2 += a2;
        x2 += a3;
        pobj += a4;
        let acc = a5;
        dtr += cj[j] + rho * (tj[j].min(0.0) + wj[j] - yj[j]);
        dsum[j] = acc;
    }
    let nu = solve_aat(dsum, pb.k.map(|_| dtr), mu);
    let dobj = mu.iter().sum::<f64>() + pb.k.map_or(0.0, |k| k * nu);
    let mut res2 = 0.0;
    for j in 0..n {
        let yj = y.col(j, &mut buf);
        let (cj, tj, wj) = (pb.c_col(j, &mut cbuf), t.col_as_slice(j), w.col_as_slice(j));
        let muj = mu[j];
        let mut col2 = simd::dual_col(cj, tj, wj, yj, mu, rho, muj);
        // Diagonal: A* adds ν there.
        let d = cj[j] + rho * (tj[j].min(0.0) + wj[j] - yj[j]);
        let a = 0.5 * (mu[j] + muj);
        col2 += (d - a - nu) * (d - a - nu) - (d - a) * (d - a);
        res2 += col2;
    }
    Residuals {
        primal: (xy2 + xz2).sqrt() / (1.0 + x2.sqrt()),
        dual: res2.sqrt() / (1.0 + pb.c_norm),
        gap: (pobj - dobj).abs() / (1.0 + pobj.abs() + dobj.abs()),
        pobj,
        dobj,
        x_norm: x2.sqrt(),
    }
}

/// `X ← (X + Xᵀ)/2` in place. The affine step leaves `X` symmetric only up to rounding (its
/// inputs come from separate products); the returned solution is exactly symmetric, so that
/// consumers such as SPUR's θ can use it as its own symmetric part without an n × n copy.
fn symmetrize(x: &mut Mat<f64>) {
    let n = x.nrows();
    for j in 0..n {
        for i in j + 1..n {
            let v = 0.5 * (x[(i, j)] + x[(j, i)]);
            x[(i, j)] = v;
            x[(j, i)] = v;
        }
    }
}

/// The barycentre `11ᵀ/n + (k−1)/(n−1)·(I − 11ᵀ/n)` of the feasible set of SDP-k (`docs/OVERLAP.md`).
pub(crate) fn barycentre(n: usize, k: f64) -> Mat<f64> {
    let nf = n as f64;
    let off = (nf - k) / (nf * (nf - 1.0));
    let diag = k / nf;
    Mat::from_fn(n, n, |i, j| if i == j { diag } else { off })
}

/// `n = 1`: the only feasible point is `X = [1]`.
fn trivial_n1(pb: &Problem, problem: SdpProblem, start: Instant) -> SdpSolution {
    let x = Mat::from_fn(1, 1, |_, _| 1.0);
    let obj = -pb.c_diag(0);
    SdpSolution {
        info: SdpInfo {
            problem,
            iterations: 0,
            primal_residual: 0.0,
            dual_residual: 0.0,
            gap: 0.0,
            cone_residual: 0.0,
            objective: obj,
            dual_objective: obj,
            trace: 1.0,
            converged: true,
            eig_full: 0,
            eig_partial: 0,
            eig_inertia: 0,
            inertia_certified: false,
            full_from: None,
            trials_returned: 0,
            rho: 1.0,
            seconds: start.elapsed().as_secs_f64(),
            projection_seconds: ProjectionSeconds::default(),
        },
        state: SdpState {
            t: Stored::F64(x.clone()),
            w: Stored::F64(x.clone()),
            y: KeptPsd::Part(PsdPart::Dense(x.clone())),
            rho: 1.0,
            basis: None,
        },
        x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::flat::{Family, PlantedFlat};
    use crate::simulate::sample_triplets;

    /// AddS-3 similarities of the paper's planted model (`k` clusters, n·ln³n triplets at
    /// ε = 0.75) with a zero diagonal, and the number of triplets.
    fn planted_adds3(n: usize, k: usize, seed: u64) -> (Mat<f64>, usize) {
        let model = PlantedFlat::new(n, k, Family::NormalNormal, 0.5, seed).unwrap();
        let m = (n as f64 * (n as f64).ln().powi(3)) as usize;
        let triplets = sample_triplets(&model, m, 0.75, seed).unwrap();
        let mut s = crate::similarity::adds3(n, &triplets).unwrap();
        (0..n).for_each(|i| s[(i, i)] = 0.0);
        (s, m)
    }

    /// The stall rule written out from its definition: at check `j` of `checks` (iteration,
    /// worst measure, whether the partial projections erred), find the last check that halved
    /// the worst measure by scanning from the start, and count the erring checks after it.
    fn stalled_by_definition(checks: &[(usize, f64, bool)], j: usize, stall_iters: usize) -> bool {
        let last = last_halving(checks, j);
        if last == Some(j) {
            return false;
        }
        let since = last.map_or(0, |i| checks[i].0);
        let window = &checks[last.map_or(0, |i| i + 1)..=j];
        let erring = window.iter().filter(|c| c.2).count();
        let (it, _, erring_now) = checks[j];
        stall_iters > 0 && erring_now && it - since >= stall_iters && 2 * erring >= window.len()
    }

    /// The index of the last of `checks[..=j]` that halved the worst measure of the one that
    /// halved it before (the first check halves infinity).
    fn last_halving(checks: &[(usize, f64, bool)], j: usize) -> Option<usize> {
        let (mut best, mut last) = (f64::INFINITY, None);
        for (i, &(_, worst, _)) in checks[..=j].iter().enumerate() {
            if worst <= 0.5 * best {
                best = worst;
                last = Some(i);
            }
        }
        last
    }

    /// The whole stall rule written out from its definition: the first stalled check of the
    /// checks since the clock last restarted starts a trial (or keeps the exact projections
    /// when `trial_iters` is 0); the trial keeps them at the first check whose worst measure
    /// is at most half the lowest since the last halving before the trial (or `tol`), and
    /// returns to the partial projections at the first check `trial_iters` after its start
    /// otherwise, and the clock restarts with twice the wait. Ends at the first `Keep`.
    fn stall_steps_by_definition(
        checks: &[(usize, f64, bool)],
        stall_iters: usize,
        trial_iters: usize,
        tol: f64,
    ) -> Vec<(usize, StallStep)> {
        let (mut steps, mut start, mut wait) = (Vec::new(), 0, stall_iters);
        while start < checks.len() {
            let seg = &checks[start..];
            let Some(j) = (0..seg.len()).find(|&j| stalled_by_definition(seg, j, wait)) else {
                break;
            };
            let it = seg[j].0;
            if trial_iters == 0 {
                steps.push((it, StallStep::Keep(it)));
                break;
            }
            steps.push((it, StallStep::Try));
            let from = last_halving(seg, j).unwrap_or(0);
            let low = seg[from..=j]
                .iter()
                .map(|c| c.1)
                .fold(f64::INFINITY, f64::min);
            let target = (0.5 * low).max(tol);
            let Some(t) =
                (j + 1..seg.len()).find(|&t| seg[t].1 <= target || seg[t].0 >= it + trial_iters)
            else {
                break;
            };
            if seg[t].1 <= target {
                steps.push((seg[t].0, StallStep::Keep(it)));
                break;
            }
            steps.push((seg[t].0, StallStep::Return));
            start += t + 1;
            wait *= 2;
        }
        steps
    }

    /// Replays `checks` through [`StallRule`] until it keeps the exact projections; the
    /// iterations at which it did something, and what.
    fn stall_steps(
        checks: &[(usize, f64, bool)],
        stall_iters: usize,
        trial_iters: usize,
        tol: f64,
    ) -> Vec<(usize, StallStep)> {
        let mut rule = StallRule::new(stall_iters, trial_iters);
        let mut steps = Vec::new();
        for &(it, worst, erring) in checks {
            let step = rule.check(it, worst, erring, tol);
            if step != StallStep::Go {
                steps.push((it, step));
            }
            if matches!(step, StallStep::Keep(_)) {
                break;
            }
        }
        steps
    }

    /// Replays `checks` (one every 10 iterations) through [`StallWatch`]; the iteration of
    /// the first stalled check.
    fn first_stall(checks: &[(f64, bool)], stall_iters: usize) -> Option<usize> {
        let mut watch = StallWatch::new();
        checks.iter().enumerate().find_map(|(i, &(worst, erring))| {
            let it = 10 * (i + 1);
            watch.stalled(it, worst, erring, stall_iters).then_some(it)
        })
    }

    /// A slow tail whose projections err at a few checks keeps them; one whose projections
    /// err at most checks stalls at the first erring check after the clock runs out.
    #[test]
    fn a_stall_needs_projections_that_err_at_half_the_checks() {
        // The worst measure halves once (check 1 → 2) and then falls by 1 % per check: the
        // clock of 100 iterations runs out at iteration 120.
        let tail = |erring: &dyn Fn(usize) -> bool| -> Vec<(f64, bool)> {
            (0..60)
                .map(|i| {
                    (
                        if i == 0 {
                            1.0
                        } else {
                            0.4 * 0.99f64.powi(i as i32)
                        },
                        erring(i),
                    )
                })
                .collect()
        };
        let spikes = tail(&|i| i % 5 == 0);
        assert_eq!(first_stall(&spikes, 100), None);
        let mostly = tail(&|i| i % 5 != 1);
        // (check 11, at iteration 120, is one of the few without an error)
        assert_eq!(first_stall(&mostly, 100), Some(130));
        let always = tail(&|_| true);
        assert_eq!(first_stall(&always, 100), Some(120));
        assert_eq!(first_stall(&always, 0), None);
        // A halving restarts the clock and the count.
        let mut restarted = always.clone();
        restarted[10].0 = 0.1;
        assert_eq!(first_stall(&restarted, 100), Some(210));
        // Errors only at the checks before the clock runs out do not stall the rest.
        let early = tail(&|i| i < 8);
        assert_eq!(first_stall(&early, 100), None);
    }

    /// A trial of exact projections keeps them when the worst measure falls to half its low
    /// within the trial, and returns to the partial projections when it goes on at the slow
    /// rate before the trial, then waits twice as long for the next stall.
    #[test]
    fn a_trial_keeps_exact_projections_only_where_the_measure_falls_with_them() {
        // As above: one halving, then 1 % per check with erring projections; the clock of 100
        // iterations runs out at iteration 120. `after(i)` is the factor of the checks from
        // index 12 on (iteration 130, the first of the trial).
        let checks = |after: f64| -> Vec<(usize, f64, bool)> {
            let mut worst = 1.0;
            (0..80)
                .map(|i| {
                    worst = match i {
                        0 => 1.0,
                        1 => 0.4,
                        _ if i >= 12 => worst * after,
                        _ => worst * 0.99,
                    };
                    (10 * (i + 1), worst, true)
                })
                .collect()
        };
        use StallStep::*;
        // A slow tail: the trial ends at iteration 170 without the measure halving, the next
        // stall comes 200 iterations after the clock restarted at iteration 180, then 400.
        let slow = checks(0.99);
        let expected = vec![(120, Try), (170, Return), (380, Try), (430, Return)];
        assert_eq!(stall_steps(&slow, 100, 50, 1e-9), expected);
        // A stall that exact projections break: 30 % per check reaches half the low
        // (iteration 120's measure) at the second check of the trial.
        assert_eq!(
            stall_steps(&checks(0.7), 100, 50, 1e-9),
            vec![(120, Try), (140, Keep(120))]
        );
        // Without a trial the first stall keeps them.
        assert_eq!(stall_steps(&slow, 100, 0, 1e-9), vec![(120, Keep(120))]);
        // Reaching the tolerance within the trial keeps them too.
        let tol = slow[13].1;
        assert_eq!(
            stall_steps(&slow, 100, 50, tol),
            vec![(120, Try), (140, Keep(120))]
        );
    }

    /// Checks every 10 iterations whose worst measure starts at 1 and is multiplied by each
    /// step's factor, with that step's projection error flag.
    fn checks_from_factors(steps: &[(f64, bool)]) -> Vec<(usize, f64, bool)> {
        let mut worst = 1.0;
        steps
            .iter()
            .enumerate()
            .map(|(i, &(factor, erring))| {
                worst *= factor;
                (10 * (i + 1), worst, erring)
            })
            .collect()
    }

    proptest::proptest! {
        /// [`StallRule`] takes the steps of the rule written out from scratch on random check
        /// sequences: trials, returns with the doubled wait, and the keeping one.
        #[test]
        fn stall_rule_agrees_with_the_definition(
            steps in proptest::collection::vec((0.3f64..1.6, proptest::bool::weighted(0.8)), 1..120),
            stall_iters in 0usize..120,
            trial_iters in 0usize..60,
            tol in 1e-4f64..1e-1,
        ) {
            let checks = checks_from_factors(&steps);
            proptest::prop_assert_eq!(
                stall_steps(&checks, stall_iters, trial_iters, tol),
                stall_steps_by_definition(&checks, stall_iters, trial_iters, tol)
            );
        }

        /// [`StallWatch`] agrees with the rule written out from scratch at every check of
        /// random check sequences (measures that halve, hover and rise; errors at random).
        #[test]
        fn stall_watch_agrees_with_the_definition(
            steps in proptest::collection::vec((0.3f64..1.6, proptest::bool::ANY), 1..80),
            stall_iters in 0usize..120,
        ) {
            let checks = checks_from_factors(&steps);
            let mut watch = StallWatch::new();
            for (j, &(it, worst, erring)) in checks.iter().enumerate() {
                proptest::prop_assert_eq!(
                    watch.stalled(it, worst, erring, stall_iters),
                    stalled_by_definition(&checks, j, stall_iters),
                    "check {}", j
                );
            }
        }
    }

    /// Residual balancing doubles ρ on a 5× primal excess and halves it on a 5× dual excess,
    /// except that it never raises ρ while SDP-k's `tr Y` is short of k (the rank collapse);
    /// lowering ρ stays allowed there.
    #[test]
    fn balance_does_not_raise_rho_while_the_trace_is_short() {
        assert_eq!(balance_direction(1e-2, 1e-4, false), 1);
        assert_eq!(balance_direction(1e-2, 1e-4, true), 0);
        assert_eq!(balance_direction(1e-4, 1e-2, false), -1);
        assert_eq!(balance_direction(1e-4, 1e-2, true), -1);
        assert_eq!(balance_direction(1e-3, 2e-3, false), 0);
        assert_eq!(balance_direction(1e-3, 2e-3, true), 0);
    }

    /// When convergence is certified by inertia counts instead of an exact projection, the
    /// certificate holds: the exact projection of the final `W` lies within the certified
    /// bound of the returned `Y`, and the residuals recomputed with it stay within the
    /// tolerance. Planted-model AddS-3 similarities (n = 400, 4 clusters; the bound is too loose
    /// for the gap test at n ≤ 160), SDP-λ at SPUR's λ_min and SDP-k at k = 3 and the true k,
    /// cold starts, tolerance 1e-3. At least one solve must end on the certificate, or the
    /// test would check nothing.
    #[test]
    fn inertia_certified_solutions_meet_the_tolerance_at_the_exact_projection() {
        let (n, tol) = (400, 1e-3);
        let (s, m) = planted_adds3(n, 4, 0);
        let lambda = 2.0 * (m as f64 * (n as f64).ln() / n as f64).sqrt();
        let mut certified = 0;
        for problem in [
            SdpProblem::Lambda(lambda),
            SdpProblem::K(3),
            SdpProblem::K(4),
        ] {
            let params = SdpParams::default().with_tol(tol);
            let sol = solve_sdp(s.as_ref(), problem, &params, None, None).unwrap();
            let info = &sol.info;
            assert!(info.converged, "{info:?}");
            if !info.inertia_certified {
                continue;
            }
            certified += 1;
            let st = &sol.state;
            let pb = Problem::new(s.as_ref(), problem, false).unwrap();
            let mut exact = PsdPart::zero(n);
            let (t, w, y) = (
                st.t.to_f64().unwrap(),
                st.w.to_f64().unwrap(),
                st.y.to_part().unwrap(),
            );
            Projector::new(n, faer::Par::Seq, false, None)
                .project_exact(w.as_ref(), &mut exact)
                .unwrap();
            let bound = info.cone_residual * (1.0 + pb.c_norm) / st.rho;
            let dist = exact.distance(&y, n);
            assert!(
                dist <= bound,
                "{problem}: ‖Π(W) − Y‖ = {dist:e} > bound {bound:e}"
            );
            let (mut dsum, mut mu) = (vec![0.0; n], vec![0.0; n]);
            let r = residuals(&pb, &sol.x, &t, &w, &exact, st.rho, &mut dsum, &mut mu);
            assert!(r.worst() <= tol, "{problem}: {r:?}");
        }
        assert!(certified > 0, "no solve ended on the inertia certificate");
    }

    /// A lean solve (`SdpParams::lean_n`) forms `C = −S_sym + λI` column by column instead of
    /// storing it: every column, and `‖C‖_F`, is the stored `C`'s bit for bit, with `S` exactly
    /// symmetric and with `S` symmetric only to 1e-13 (then its symmetric part is stored). Its
    /// full projections pick eigenvectors by inverse iteration (`eig::evd_selected`), so its
    /// iterates leave the stored-`C` solve's in the last digits: it converges to the same
    /// solution to the tolerance, in about as many iterations, for SDP-λ and SDP-k, cold and
    /// warm.
    #[test]
    fn a_lean_solve_forms_the_stored_c_and_reaches_the_same_solution() {
        let n = 120;
        let (s, m) = planted_adds3(n, 3, 2);
        let mut skew = s.clone();
        skew[(3, 7)] += 1e-13;
        let lambda = 2.0 * (m as f64 * (n as f64).ln() / n as f64).sqrt();
        let plain = SdpParams::default().with_tol(1e-4);
        let lean = plain.clone().with_lean_n(0);
        for s in [&s, &skew] {
            for problem in [SdpProblem::Lambda(lambda), SdpProblem::K(3)] {
                let stored = Problem::new(s.as_ref(), problem, false).unwrap();
                let formed = Problem::new(s.as_ref(), problem, true).unwrap();
                assert!(stored.c.is_some() && formed.c.is_none());
                assert_eq!(stored.c_norm.to_bits(), formed.c_norm.to_bits());
                let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
                for j in 0..n {
                    let (a, b) = (stored.c_col(j, &mut a), formed.c_col(j, &mut b));
                    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
                }
            }
            let first =
                solve_sdp(s.as_ref(), SdpProblem::Lambda(lambda), &plain, None, None).unwrap();
            for problem in [
                SdpProblem::Lambda(lambda),
                SdpProblem::K(2),
                SdpProblem::K(3),
            ] {
                for warm in [None, Some(&first.state)] {
                    let a = solve_sdp(s.as_ref(), problem, &plain, warm, None).unwrap();
                    let b = solve_sdp(s.as_ref(), problem, &lean, warm, None).unwrap();
                    assert!(
                        a.info.converged && b.info.converged,
                        "{problem}: {:?}",
                        b.info
                    );
                    let moved = (&a.x - &b.x).norm_l2() / a.x.norm_l2();
                    // Measured: moves up to 2.8e-4 (tol 1e-4), iterations apart by 10 at most.
                    assert!(moved <= 1e-3, "{problem}: X moved by {moved}");
                    let apart = a.info.iterations.abs_diff(b.info.iterations);
                    assert!(apart <= 20, "{problem}: {apart} iterations apart");
                }
            }
        }
    }

    /// A compacted state (single precision) warm-starts a solve as well as the exact one: the
    /// same solution to the tolerance, in about as many iterations.
    #[test]
    fn a_compacted_state_warm_starts_to_the_same_solution() {
        let (s, _) = planted_adds3(120, 3, 5);
        let params = SdpParams::default().with_tol(1e-6);
        let from = solve_sdp(s.as_ref(), SdpProblem::K(2), &params, None, None).unwrap();
        let mut compact = from.state.clone();
        compact.compact();
        assert!(matches!(compact.t, Stored::F32(_)) && matches!(compact.w, Stored::F32(_)));
        let exact = solve_sdp(
            s.as_ref(),
            SdpProblem::K(3),
            &params,
            Some(&from.state),
            None,
        )
        .unwrap();
        let rounded =
            solve_sdp(s.as_ref(), SdpProblem::K(3), &params, Some(&compact), None).unwrap();
        assert!(exact.info.converged && rounded.info.converged);
        let d = (&exact.x - &rounded.x).norm_l2() / exact.x.norm_l2();
        assert!(d < 1e-4, "relative difference {d:e}");
        let (a, b) = (exact.info.iterations, rounded.info.iterations);
        assert!(b <= a + a / 2 + 20, "{b} iterations against {a}");
        // Spilled to a temporary file, the state warm-starts the solve number for number as
        // the compacted one (a dense Y included: the cold λ solve's state keeps one).
        let mut spilled = from.state.clone();
        spilled.spill();
        assert!(matches!(spilled.t, Stored::Disk(_)) && matches!(spilled.w, Stored::Disk(_)));
        let read = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, Some(&spilled), None).unwrap();
        assert_eq!(read.info.iterations, b);
        assert!(read.x == rounded.x, "X differs");
        let dense = SdpState {
            y: KeptPsd::Part(PsdPart::Dense(Mat::from_fn(120, 120, |i, j| {
                from.x[(i, j)] * 0.9
            }))),
            ..from.state.clone()
        };
        let (mut c, mut d) = (dense.clone(), dense);
        c.compact();
        d.spill();
        assert!(matches!(d.y, KeptPsd::Dense(Stored::Disk(_))));
        let a = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, Some(&c), None).unwrap();
        let b = solve_sdp(s.as_ref(), SdpProblem::K(3), &params, Some(&d), None).unwrap();
        assert!(a.x == b.x && a.info.iterations == b.info.iterations);
    }

    /// Changes in one direction are never delayed; each reversal doubles the wait.
    #[test]
    fn rho_balance_delays_only_reversals() {
        let mut b = RhoBalance::new(10);
        b.changed(10, 1);
        b.changed(20, 1);
        assert_eq!(b.next_allowed, 0, "a drift is not slowed");
        b.changed(30, -1);
        assert_eq!((b.gap, b.next_allowed), (20, 50));
        b.changed(50, 1);
        assert_eq!((b.gap, b.next_allowed), (40, 90));
        b.changed(90, 1);
        assert_eq!(
            (b.gap, b.next_allowed),
            (40, 90),
            "same direction: no new wait"
        );
        b.changed(100, -1);
        assert_eq!((b.gap, b.next_allowed), (80, 180));
    }
}
