//! Eigenvectors of a symmetric tridiagonal matrix for chosen eigenvalues only, by inverse
//! iteration (Wilkinson 1965, ch. 9; the scheme of LAPACK's `dstein`, Golub & Van Loan 2013,
//! §8.2.2 and §8.4): each vector solves `(T − λ̂I) x = b` a few times with an LU
//! factorisation with partial pivoting of the shifted tridiagonal matrix, `λ̂` an eigenvalue
//! computed beforehand.
//!
//! Why hand-written: faer computes all n eigenvectors of a tridiagonal matrix (divide and
//! conquer, n² numbers for the vectors and 2 n² of scratch), and SPUR's lean solves need the
//! few hundred or thousand vectors of one side of the spectrum at n = 10,000, where those 3 n²
//! numbers (2.4 GB) made the solve's peak (`docs/SOLVER.md`, "Memory"). Here the memory is
//! the `n × k` vectors asked for and O(n) per thread.
//!
//! Accuracy: every vector has a residual `‖Tz − λ̂z‖` of a few units of roundoff times `‖T‖`,
//! so it lies within about `ε‖T‖ / gap` of the true eigenvector, the error along the
//! eigenvectors of the neighbouring eigenvalues. What the PSD projection reads is
//! `Σ λ_j z_j z_jᵀ`, in which that error weighs `|λ_j|·ε‖T‖/gap`. So two neighbouring
//! eigenvalues are put in one cluster, whose vectors are orthogonalised against each other
//! (modified Gram–Schmidt, as `dstein` does), when their gap is below [`CLUSTER_REL`] times
//! the larger magnitude of the two: elsewhere each pair's weighted error is at most
//! `ε‖T‖/CLUSTER_REL` ≈ 2e-11·‖T‖. `dstein` clusters at gaps below 1e-3·‖T‖ whatever the
//! magnitudes, so that its vectors are orthogonal to working precision; in SPUR's cold solves
//! at n = 10,000 the positive part is a few large eigenvalues above thousands of tiny ones
//! packed within 1e-4 of the top (gaps of 1e-8·‖T‖ and less), which that rule chains into one
//! cluster costing O(n k²). Tiny eigenvalues carry tiny weight: this rule leaves them apart.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd;
use faer::linalg::temp_mat_scratch;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{ColRef, MatMut, Par};

/// Two neighbouring eigenvalues are in one cluster (their vectors orthogonalised against each
/// other) when their gap is below this fraction of the larger of their magnitudes.
pub(crate) const CLUSTER_REL: f64 = 1e-5;
/// The largest cluster handled: Gram–Schmidt within a cluster costs O(n c²) per sweep, and a
/// larger one (a nearly multiple eigenvalue) is left to the full eigendecomposition.
pub(crate) const MAX_CLUSTER: usize = 512;
/// Solves per vector before inverse iteration gives up (`dstein`'s MAXITS).
const MAX_SOLVES: usize = 5;
/// Solves done after the growth test first passes (`dstein`'s EXTRA).
const EXTRA_SOLVES: usize = 2;
/// Columns handed to one parallel task (whole clusters, at least this many).
const TASK_COLUMNS: usize = 32;

/// Inverse iteration did not converge, or a cluster was larger than [`MAX_CLUSTER`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NotConverged;

/// A symmetric tridiagonal matrix: diagonal `d` (length n) and off-diagonal `e` (length
/// n − 1, or n with the last entry ignored).
#[derive(Clone, Copy)]
pub(crate) struct Tridiagonal<'a> {
    pub d: &'a [f64],
    pub e: &'a [f64],
}

impl Tridiagonal<'_> {
    fn n(&self) -> usize {
        self.d.len()
    }

    /// Off-diagonal entry `T[i + 1, i]`.
    fn off(&self, i: usize) -> f64 {
        if i + 1 < self.n() { self.e[i] } else { 0.0 }
    }

    /// The largest absolute row sum (`‖T‖₁ = ‖T‖_∞`), a bound on `‖T‖₂`.
    pub(crate) fn norm1(&self) -> f64 {
        (0..self.n())
            .map(|i| {
                let left = if i > 0 { self.off(i - 1).abs() } else { 0.0 };
                self.d[i].abs() + left + self.off(i).abs()
            })
            .fold(0.0, f64::max)
    }
}

/// `P(T − λI) = LU` with partial pivoting (LAPACK's `dlagtf`): `U` upper triangular with
/// diagonal `u0` and two superdiagonals `u1`, `u2` (the second filled only by row
/// interchanges), `L` unit lower bidiagonal with multipliers `mult`, `swap[i]` whether rows
/// `i` and `i + 1` were interchanged at step `i`.
struct ShiftedLu {
    u0: Vec<f64>,
    u1: Vec<f64>,
    u2: Vec<f64>,
    mult: Vec<f64>,
    swap: Vec<bool>,
    /// Pivots smaller than this are replaced by it (with their sign) in the solves.
    tiny: f64,
}

impl ShiftedLu {
    fn new(n: usize) -> Self {
        ShiftedLu {
            u0: vec![0.0; n],
            u1: vec![0.0; n],
            u2: vec![0.0; n],
            mult: vec![0.0; n],
            swap: vec![false; n],
            tiny: 0.0,
        }
    }

    /// Factors `T − λI`; `norm` is `‖T‖₁`.
    fn factor(&mut self, t: Tridiagonal<'_>, lambda: f64, norm: f64) {
        let n = t.n();
        // The row being eliminated: its entries in columns i, i + 1, i + 2.
        let mut cur = [t.d[0] - lambda, t.off(0), 0.0];
        let mut largest = 0.0f64;
        for i in 0..n - 1 {
            let next = [t.off(i), t.d[i + 1] - lambda, t.off(i + 1)];
            let (pivot, other, swapped) = if cur[0].abs() >= next[0].abs() {
                (cur, next, false)
            } else {
                (next, cur, true)
            };
            let m = if pivot[0] != 0.0 {
                other[0] / pivot[0]
            } else {
                0.0
            };
            [self.u0[i], self.u1[i], self.u2[i]] = pivot;
            (self.mult[i], self.swap[i]) = (m, swapped);
            largest = largest
                .max(pivot[0].abs())
                .max(pivot[1].abs())
                .max(pivot[2].abs());
            cur = [other[1] - m * pivot[1], other[2] - m * pivot[2], 0.0];
        }
        (self.u0[n - 1], self.u1[n - 1], self.u2[n - 1]) = (cur[0], 0.0, 0.0);
        largest = largest.max(cur[0].abs());
        // `dlagts`'s default perturbation of tiny pivots, ε·max|U|, but at least ε·‖T‖ (an
        // exactly singular `T − λI` such as `I − 1·I` has max|U| = 0).
        self.tiny = f64::EPSILON * largest.max(norm).max(f64::MIN_POSITIVE);
    }

    /// Overwrites `b` with `(T − λI)⁻¹ b`, tiny pivots perturbed to [`Self::tiny`].
    fn solve(&self, b: &mut [f64]) {
        let n = b.len();
        for i in 0..n - 1 {
            if self.swap[i] {
                b.swap(i, i + 1);
            }
            b[i + 1] -= self.mult[i] * b[i];
        }
        for i in (0..n).rev() {
            let mut v = b[i];
            if i + 1 < n {
                v -= self.u1[i] * b[i + 1];
            }
            if i + 2 < n {
                v -= self.u2[i] * b[i + 2];
            }
            let p = self.u0[i];
            let p = if p.abs() < self.tiny {
                self.tiny.copysign(p)
            } else {
                p
            };
            b[i] = v / p;
        }
    }
}

/// All eigenvalues of `t`, ascending, by faer's implicit QR algorithm without eigenvectors
/// (O(n²) work, O(n) memory).
pub(crate) fn eigenvalues(t: Tridiagonal<'_>) -> Result<Vec<f64>, NotConverged> {
    let n = t.n();
    if n == 0 {
        return Ok(Vec::new());
    }
    let off: Vec<f64> = (0..n).map(|i| t.off(i)).collect();
    let mut s = Diag::<f64>::zeros(n);
    let mut mem = MemBuffer::new(temp_mat_scratch::<f64>(n, 1).array(2));
    evd::tridiagonal_self_adjoint_evd(
        ColRef::from_slice(t.d).as_diagonal(),
        ColRef::from_slice(&off).as_diagonal(),
        s.as_mut(),
        None,
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| NotConverged)?;
    Ok(s.column_vector().iter().copied().collect())
}

/// Groups of consecutive positions of `vals` (ascending) whose neighbours are closer than
/// [`CLUSTER_REL`] times the larger of their magnitudes.
fn clusters(vals: &[f64]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for j in 1..=vals.len() {
        if j == vals.len()
            || vals[j] - vals[j - 1] >= CLUSTER_REL * vals[j].abs().max(vals[j - 1].abs())
        {
            out.push(start..j);
            start = j;
        }
    }
    out
}

/// The eigenvectors of `t` for the eigenvalues `vals` (ascending, computed beforehand, e.g.
/// by the QR algorithm), written into the columns of `out` (n × vals.len()), each of unit
/// length with its largest entry positive. Clusters ([`CLUSTER_REL`]) are orthogonalised
/// within; independent groups of clusters run in parallel when `par` says so.
pub(crate) fn eigenvectors(
    t: Tridiagonal<'_>,
    vals: &[f64],
    out: MatMut<'_, f64>,
    par: Par,
) -> Result<(), NotConverged> {
    let n = t.n();
    assert_eq!((out.nrows(), out.ncols()), (n, vals.len()));
    if vals.is_empty() {
        return Ok(());
    }
    if n == 1 {
        let mut out = out;
        out[(0, 0)] = 1.0;
        return Ok(());
    }
    let norm = t.norm1().max(f64::MIN_POSITIVE);
    let groups = clusters(vals);
    if groups.iter().any(|g| g.len() > MAX_CLUSTER) {
        return Err(NotConverged);
    }
    let tasks = tasks(&groups);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let run = |cols: std::ops::Range<usize>, block: MatMut<'_, f64>| {
        if task_vectors(t, vals, cols, &groups, block, norm).is_err() {
            failed.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    match par {
        Par::Seq => {
            let mut rest = out;
            for cols in tasks {
                let (block, tail) = rest.split_at_col_mut(cols.len());
                rest = tail;
                run(cols, block);
            }
        }
        Par::Rayon(_) => rayon::scope(|s| {
            let mut rest = out;
            for cols in tasks {
                let (block, tail) = rest.split_at_col_mut(cols.len());
                rest = tail;
                let run = &run;
                s.spawn(move |_| run(cols, block));
            }
        }),
    }
    if failed.into_inner() {
        Err(NotConverged)
    } else {
        Ok(())
    }
}

/// Column ranges of the parallel tasks: whole clusters, each task at least
/// [`TASK_COLUMNS`] columns (the last one may be smaller).
fn tasks(groups: &[std::ops::Range<usize>]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for g in groups {
        match out.last_mut() {
            Some(last) if last.len() < TASK_COLUMNS => last.end = g.end,
            _ => out.push(g.clone()),
        }
    }
    out
}

/// The vectors of columns `cols` (whole clusters of `groups`) into `block`.
fn task_vectors(
    t: Tridiagonal<'_>,
    vals: &[f64],
    cols: std::ops::Range<usize>,
    groups: &[std::ops::Range<usize>],
    mut block: MatMut<'_, f64>,
    norm: f64,
) -> Result<(), NotConverged> {
    let mut lu = ShiftedLu::new(t.n());
    let mut b = vec![0.0; t.n()];
    for g in groups
        .iter()
        .filter(|g| g.start >= cols.start && g.end <= cols.end)
    {
        let mut shift_before = f64::NEG_INFINITY;
        for j in g.clone() {
            // Equal eigenvalues get shifts 10 ulps apart (`dstein`), so that their
            // factorisations differ and Gram–Schmidt sees independent vectors.
            let pert = 10.0 * f64::EPSILON * vals[j].abs().max(f64::EPSILON * norm);
            let shift = vals[j].max(shift_before + pert);
            shift_before = shift;
            lu.factor(t, shift, norm);
            let earlier = block.rb().subcols(g.start - cols.start, j - g.start);
            inverse_iterate(&lu, j, earlier, &mut b, norm)?;
            block
                .rb_mut()
                .col_mut(j - cols.start)
                .iter_mut()
                .zip(&b)
                .for_each(|(o, &v)| *o = v);
        }
    }
    Ok(())
}

/// One eigenvector by inverse iteration with the factored `T − λ̂I` (`dstein`'s loop): from a
/// fixed pseudo-random start, solve, orthogonalise against the cluster's `earlier` vectors,
/// and stop [`EXTRA_SOLVES`] solves after the largest entry of the scaled solution first
/// reaches `√(0.1/n)` (the growth that marks a converged vector); [`NotConverged`] after
/// [`MAX_SOLVES`]. Leaves the unit vector, largest entry positive, in `b`.
fn inverse_iterate(
    lu: &ShiftedLu,
    j: usize,
    earlier: faer::MatRef<'_, f64>,
    b: &mut [f64],
    norm: f64,
) -> Result<(), NotConverged> {
    let n = b.len();
    let nf = n as f64;
    for (i, v) in b.iter_mut().enumerate() {
        *v = crate::math::rng::centered_at((j * n + i) as u64);
    }
    let growth = (0.1 / nf).sqrt();
    let last_pivot = lu.u0[n - 1].abs();
    let mut passed = 0;
    for _ in 0..MAX_SOLVES {
        let l1: f64 = b.iter().map(|v| v.abs()).sum();
        if !(l1 > 0.0 && l1.is_finite()) {
            return Err(NotConverged);
        }
        let scale = nf * norm * f64::EPSILON.max(last_pivot) / l1;
        b.iter_mut().for_each(|v| *v *= scale);
        lu.solve(b);
        for c in 0..earlier.ncols() {
            let q = earlier.col(c);
            let dot: f64 = q.iter().zip(b.iter()).map(|(a, v)| a * v).sum();
            q.iter().zip(b.iter_mut()).for_each(|(a, v)| *v -= dot * a);
        }
        let largest = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !largest.is_finite() {
            return Err(NotConverged);
        }
        if largest >= growth {
            passed += 1;
            if passed > EXTRA_SOLVES {
                return normalise(b);
            }
        }
    }
    Err(NotConverged)
}

/// Scales `b` to unit length with its largest entry positive.
fn normalise(b: &mut [f64]) -> Result<(), NotConverged> {
    let len = b.iter().map(|v| v * v).sum::<f64>().sqrt();
    let top = b
        .iter()
        .copied()
        .fold(0.0f64, |m, v| if v.abs() > m.abs() { v } else { m });
    if !(len > 0.0 && len.is_finite()) {
        return Err(NotConverged);
    }
    let f = if top < 0.0 { -1.0 / len } else { 1.0 / len };
    b.iter_mut().for_each(|v| *v *= f);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;
    use proptest::prelude::*;

    /// A tridiagonal matrix of fixed pseudo-random entries in [−½, ½).
    fn random(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let at = |k: usize| crate::math::rng::centered_at(seed * 10_000 + k as u64);
        (
            (0..n).map(at).collect(),
            (0..n - 1).map(|i| at(n + i)).collect(),
        )
    }

    fn dense(t: Tridiagonal<'_>) -> Mat<f64> {
        let n = t.n();
        Mat::from_fn(n, n, |i, j| match i.abs_diff(j) {
            0 => t.d[i],
            1 => t.e[i.min(j)],
            _ => 0.0,
        })
    }

    /// The naive reference: faer's dense eigendecomposition, eigenvalues ascending.
    fn reference(t: Tridiagonal<'_>) -> (Vec<f64>, Mat<f64>) {
        let e = dense(t).self_adjoint_eigen(faer::Side::Lower).unwrap();
        (
            e.S().column_vector().iter().copied().collect(),
            e.U().to_owned(),
        )
    }

    /// `Σ_{j ∈ cols} λ_j u_j u_jᵀ` for the columns `u` of the eigenvalues `vals`.
    fn spectral_part(vals: &[f64], u: faer::MatRef<'_, f64>) -> Mat<f64> {
        let n = u.nrows();
        Mat::from_fn(n, n, |i, k| {
            (0..vals.len())
                .map(|j| vals[j] * u[(i, j)] * u[(k, j)])
                .sum()
        })
    }

    /// Largest residual `‖Tz − λz‖∞` and largest entry of `|ZᵀZ − I|`, each off-diagonal one
    /// weighted by the larger magnitude of its two eigenvalues over `‖T‖` (the weight it has in
    /// `Σ λ z zᵀ`).
    fn residual_and_orthogonality(t: Tridiagonal<'_>, vals: &[f64], z: &Mat<f64>) -> (f64, f64) {
        let a = dense(t);
        let r = &a * z;
        let mut res = 0.0f64;
        for j in 0..z.ncols() {
            for i in 0..z.nrows() {
                res = res.max((r[(i, j)] - vals[j] * z[(i, j)]).abs());
            }
        }
        let g = z.transpose() * z;
        let norm = t.norm1();
        let mut orth = 0.0f64;
        for i in 0..g.nrows() {
            for j in 0..g.ncols() {
                let weight = if i == j {
                    1.0
                } else {
                    vals[i].abs().max(vals[j].abs()) / norm
                };
                orth = orth.max(weight * (g[(i, j)] - f64::from(u8::from(i == j))).abs());
            }
        }
        (res, orth)
    }

    fn vectors(t: Tridiagonal<'_>, vals: &[f64], par: Par) -> Result<Mat<f64>, NotConverged> {
        let mut z = Mat::zeros(t.n(), vals.len());
        eigenvectors(t, vals, z.as_mut(), par)?;
        Ok(z)
    }

    #[test]
    fn the_shifted_solve_agrees_with_a_dense_solve() {
        for (n, seed) in [(1, 1), (2, 2), (7, 3), (30, 4)] {
            let (d, e) = random(n, seed);
            let t = Tridiagonal { d: &d, e: &e };
            let shift = 0.1;
            let mut lu = ShiftedLu::new(n);
            lu.factor(t, shift, t.norm1());
            let mut b: Vec<f64> = (0..n).map(|i| i as f64 - 1.5).collect();
            let rhs = Mat::from_fn(n, 1, |i, _| b[i]);
            lu.solve(&mut b);
            let shifted = dense(t) - Mat::<f64>::identity(n, n) * faer::Scale(shift);
            let x = faer::linalg::solvers::Solve::solve(&shifted.partial_piv_lu(), &rhs);
            for i in 0..n {
                assert!(
                    (b[i] - x[(i, 0)]).abs() <= 1e-10 * (1.0 + x[(i, 0)].abs()),
                    "n {n}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The eigenvalues agree with the dense reference, and the vectors of any run of
        /// eigenvalues have unit length, residuals at roundoff, inner products that weigh at
        /// most 1e-9·‖T‖ in `Σ λ z zᵀ`, and give the same spectral part as the reference (a
        /// run cut inside a cluster aside).
        #[test]
        fn selected_vectors_agree_with_the_dense_reference(
            n in 2usize..48, seed in 0u64..10_000, a in 0usize..48, len in 1usize..48, par in any::<bool>()
        ) {
            let (d, e) = random(n, seed);
            let t = Tridiagonal { d: &d, e: &e };
            let vals = eigenvalues(t).unwrap();
            let (ref_vals, ref_u) = reference(t);
            for (v, r) in vals.iter().zip(&ref_vals) {
                prop_assert!((v - r).abs() <= 1e-13 * n as f64);
            }
            let start = a % n;
            let end = (start + len).min(n);
            let par = if par { Par::rayon(2) } else { Par::Seq };
            let z = vectors(t, &vals[start..end], par).unwrap();
            let norm = t.norm1();
            let (res, orth) = residual_and_orthogonality(t, &vals[start..end], &z);
            prop_assert!(res <= 1e-13 * norm * n as f64, "residual {res}");
            prop_assert!(orth <= 1e-9, "orthogonality {orth}");
            let cut = |i: usize| {
                i > 0 && i < n && vals[i] - vals[i - 1] < CLUSTER_REL * vals[i].abs().max(vals[i - 1].abs())
            };
            if !cut(start) && !cut(end) {
                let mine = spectral_part(&vals[start..end], z.as_ref());
                let theirs = spectral_part(&ref_vals[start..end], ref_u.get(.., start..end));
                prop_assert!((&mine - &theirs).norm_max() <= 1e-9 * norm);
            }
        }
    }

    /// Repeated blocks give exactly multiple eigenvalues: one cluster per eigenvalue, whose
    /// vectors Gram–Schmidt keeps orthonormal; and the Wilkinson matrix W₂₁⁺, whose top pairs
    /// agree to 1e-14 and less.
    #[test]
    fn clusters_of_equal_eigenvalues_stay_orthonormal() {
        let (bd, be) = random(6, 7);
        let copies = 5;
        let mut d = Vec::new();
        let mut e = Vec::new();
        for c in 0..copies {
            d.extend_from_slice(&bd);
            e.extend_from_slice(&be);
            if c + 1 < copies {
                e.push(0.0);
            }
        }
        let wilkinson_d: Vec<f64> = (0..21).map(|i| (10.0 - i as f64).abs()).collect();
        let wilkinson_e = vec![1.0; 20];
        for (d, e) in [(&d, &e), (&wilkinson_d, &wilkinson_e)] {
            let t = Tridiagonal { d, e };
            let vals = eigenvalues(t).unwrap();
            let groups = clusters(&vals);
            assert!(
                groups.iter().any(|g| g.len() > 1),
                "the test needs a cluster"
            );
            let z = vectors(t, &vals, Par::Seq).unwrap();
            let (res, orth) = residual_and_orthogonality(t, &vals, &z);
            assert!(res <= 1e-12 * t.norm1(), "residual {res}");
            assert!(orth <= 1e-10, "orthogonality {orth}");
            let (ref_vals, ref_u) = reference(t);
            let mine = spectral_part(&vals, z.as_ref());
            let theirs = spectral_part(&ref_vals, ref_u.as_ref());
            assert!((&mine - &theirs).norm_max() <= 1e-10 * t.norm1());
        }
    }

    /// A cluster larger than [`MAX_CLUSTER`] (the identity's one eigenvalue) is refused.
    #[test]
    fn a_cluster_too_large_is_refused() {
        let n = MAX_CLUSTER + 1;
        let (d, e) = (vec![1.0; n], vec![0.0; n - 1]);
        let t = Tridiagonal { d: &d, e: &e };
        let vals = vec![1.0; n];
        assert_eq!(vectors(t, &vals, Par::Seq).unwrap_err(), NotConverged);
        assert!(vectors(t, &vals[..MAX_CLUSTER], Par::Seq).is_ok());
    }
}
