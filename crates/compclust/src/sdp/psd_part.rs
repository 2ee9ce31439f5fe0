//! `Y = Π_psd(W)` as the ADMM keeps it (`docs/SOLVER.md`: "plus Y (low-rank factor or
//! dense)"). In the low-rank regime `Y = F Fᵀ` with `F` of a few columns: the fused pass then
//! computes each column of `Y` on the fly instead of reading and writing an `n × n` matrix, which
//! removes a third of the memory traffic of an iteration.

use faer::Mat;

/// Largest factor kept as a factor; beyond it `F Fᵀ` costs more to recompute per pass than a
/// dense `Y` costs to read.
pub(crate) const FACTOR_MAX: usize = 32;

/// The PSD part `Y` of the ADMM state.
#[derive(Debug, Clone)]
pub(crate) enum PsdPart {
    /// Dense symmetric `Y`.
    Dense(Mat<f64>),
    /// `Y = F Fᵀ`, `F` is `n × p` with `p ≤` [`FACTOR_MAX`] (or any `p` for the empty factor).
    Factor(Mat<f64>),
}

impl PsdPart {
    /// `Y = 0` of size `n`.
    pub(crate) fn zero(n: usize) -> Self {
        PsdPart::Factor(Mat::zeros(n, 0))
    }

    /// `Y = F Fᵀ`, stored as the factor when it is narrow, densified otherwise (into the n × n
    /// matrix `buf` holds, whose contents are overwritten, when it holds one; a narrow `Y`
    /// leaves it there).
    pub(crate) fn from_factor_in(f: Mat<f64>, par: faer::Par, buf: &mut Option<Mat<f64>>) -> Self {
        if f.ncols() <= FACTOR_MAX {
            return PsdPart::Factor(f);
        }
        PsdPart::Dense(sym_outer(&f, par, buf.take()))
    }

    /// The n × n matrix of a dense `Y`, taken out to be overwritten by the next projection
    /// (which then needs no second n × n matrix while it forms the new `Y`; 800 MB at
    /// n = 10,000). `self` is left as `Y = 0`.
    pub(crate) fn take_dense(&mut self) -> Option<Mat<f64>> {
        match std::mem::replace(self, PsdPart::zero(0)) {
            PsdPart::Dense(m) => {
                *self = PsdPart::zero(m.nrows());
                Some(m)
            }
            other => {
                *self = other;
                None
            }
        }
    }

    /// Column `j` of `Y`: a slice of the dense matrix, or `F F[j, :]ᵀ` written into `buf`
    /// (length `n`).
    pub(crate) fn col<'a>(&'a self, j: usize, buf: &'a mut [f64]) -> &'a [f64] {
        match self {
            PsdPart::Dense(y) => y.col_as_slice(j),
            PsdPart::Factor(f) => {
                buf.fill(0.0);
                for r in 0..f.ncols() {
                    let a = f[(j, r)];
                    if a != 0.0 {
                        super::simd::axpy(buf, a, f.col_as_slice(r));
                    }
                }
                buf
            }
        }
    }

    /// Writes the column sums `Y·1` into `out` and returns `tr Y`.
    pub(crate) fn colsums_trace(&self, out: &mut [f64]) -> f64 {
        match self {
            PsdPart::Dense(y) => {
                let n = y.nrows();
                for (j, o) in out.iter_mut().enumerate() {
                    *o = y.col_as_slice(j).iter().sum();
                }
                (0..n).map(|i| y[(i, i)]).sum()
            }
            PsdPart::Factor(f) => {
                let s: Vec<f64> = (0..f.ncols())
                    .map(|r| f.col_as_slice(r).iter().sum())
                    .collect();
                out.fill(0.0);
                let mut tr = 0.0;
                for (r, &sr) in s.iter().enumerate() {
                    for (o, &v) in out.iter_mut().zip(f.col_as_slice(r)) {
                        *o += v * sr;
                        tr += v * v;
                    }
                }
                tr
            }
        }
    }

    /// Frobenius norm `‖self − other‖`.
    pub(crate) fn distance(&self, other: &PsdPart, n: usize) -> f64 {
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        let mut s = 0.0;
        for j in 0..n {
            let (x, y) = (self.col(j, &mut a), other.col(j, &mut b));
            s += x.iter().zip(y).map(|(u, v)| (u - v) * (u - v)).sum::<f64>();
        }
        s.sqrt()
    }

    /// Dense copy (tests and diagnostics).
    #[cfg(test)]
    pub(crate) fn to_dense(&self, n: usize) -> Mat<f64> {
        let mut buf = vec![0.0; n];
        let mut y = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            let c = self.col(j, &mut buf);
            y.col_as_slice_mut(j).copy_from_slice(c);
        }
        y
    }
}

/// `F Fᵀ` as a dense matrix: the lower triangle by faer's triangular GEMM (half the flops of
/// the full product), mirrored to the upper one in column tiles (so both sides of the copy
/// stay in cache).
fn sym_outer(f: &Mat<f64>, par: faer::Par, buf: Option<Mat<f64>>) -> Mat<f64> {
    use faer::linalg::matmul::triangular::{BlockStructure, matmul};
    let n = f.nrows();
    let mut y = (buf.filter(|b| b.nrows() == n && b.ncols() == n))
        .unwrap_or_else(|| Mat::<f64>::zeros(n, n));
    matmul(
        y.as_mut(),
        BlockStructure::TriangularLower,
        faer::Accum::Replace,
        f.as_ref(),
        BlockStructure::Rectangular,
        f.transpose(),
        BlockStructure::Rectangular,
        1.0,
        par,
    );
    const TILE: usize = 64;
    for j0 in (0..n).step_by(TILE) {
        for i0 in (0..=j0).step_by(TILE) {
            for j in j0..(j0 + TILE).min(n) {
                for i in i0..(i0 + TILE).min(j) {
                    y[(i, j)] = y[(j, i)];
                }
            }
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Columns, column sums, trace and distances of the factor form agree with the dense
        /// `F Fᵀ` computed naively.
        #[test]
        fn factor_agrees_with_dense(n in 1usize..12, p in 0usize..5, seed in 0u64..1000) {
            let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5 };
            let f = Mat::from_fn(n, p, |_, _| next());
            let dense = Mat::from_fn(n, n, |i, j| (0..p).map(|r| f[(i, r)] * f[(j, r)]).sum::<f64>());
            let fac = PsdPart::Factor(f.clone());
            let den = PsdPart::Dense(dense.clone());
            let got = fac.to_dense(n);
            for j in 0..n { for i in 0..n { prop_assert!((got[(i, j)] - dense[(i, j)]).abs() < 1e-12); } }
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            let (ta, tb) = (fac.colsums_trace(&mut a), den.colsums_trace(&mut b));
            prop_assert!((ta - tb).abs() < 1e-12);
            for (x, y) in a.iter().zip(&b) { prop_assert!((x - y).abs() < 1e-12); }
            prop_assert!(fac.distance(&den, n) < 1e-12);
            let z = PsdPart::zero(n);
            let norm = dense.norm_l2();
            prop_assert!((z.distance(&den, n) - norm).abs() < 1e-12);
        }

        /// The densified `F Fᵀ` of a wide factor (triangular GEMM + tiled mirror) against the
        /// product written out, across tile boundaries.
        #[test]
        fn sym_outer_agrees_with_naive(n in 1usize..150, p in 0usize..40, seed in 0u64..1000) {
            let h = |i: usize, j: usize| (((i * 31 + j * 17 + seed as usize) % 97) as f64 / 97.0) - 0.5;
            let f = Mat::from_fn(n, p, h);
            let lent = seed % 2 == 0;
            let mut buf = lent.then(|| Mat::from_fn(n, n, |_, _| f64::NAN));
            let got = match PsdPart::from_factor_in(f.clone(), faer::Par::Seq, &mut buf) {
                PsdPart::Dense(y) => { prop_assert!(buf.is_none()); y }
                PsdPart::Factor(g) => {
                    prop_assert!(p <= FACTOR_MAX);
                    prop_assert_eq!(buf.is_some(), lent);
                    &g * g.transpose()
                }
            };
            for j in 0..n {
                for i in 0..n {
                    let want: f64 = (0..p).map(|r| f[(i, r)] * f[(j, r)]).sum();
                    prop_assert!((got[(i, j)] - want).abs() < 1e-12);
                }
            }
        }
    }
}
