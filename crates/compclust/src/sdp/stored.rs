//! The n × n matrices SPUR keeps between SDP solves (warm-start states, the leader's
//! solution), in double precision or, in a lean solve ([`super::SdpParams::lean_n`]), rounded
//! to single precision to halve their memory (`docs/SOLVER.md`, "Memory").

use super::psd_part::PsdPart;
use faer::Mat;

/// A kept n × n matrix, in double or (compacted) single precision.
#[derive(Debug, Clone)]
pub(crate) enum Stored {
    F64(Mat<f64>),
    F32(Mat<f32>),
}

impl Stored {
    /// Number of rows.
    pub(crate) fn nrows(&self) -> usize {
        match self {
            Stored::F64(m) => m.nrows(),
            Stored::F32(m) => m.nrows(),
        }
    }

    /// A double-precision copy (widened when compacted).
    pub(crate) fn to_f64(&self) -> Mat<f64> {
        match self {
            Stored::F64(m) => m.clone(),
            Stored::F32(m) => widen(m),
        }
    }

    /// The matrix in double precision, moved when it is one.
    pub(crate) fn into_f64(self) -> Mat<f64> {
        match self {
            Stored::F64(m) => m,
            Stored::F32(m) => widen(&m),
        }
    }

    /// Rounds to single precision (the double-precision matrix is freed).
    pub(crate) fn compact(&mut self) {
        if let Stored::F64(m) = self {
            *self = Stored::F32(narrow(m));
        }
    }
}

fn narrow(m: &Mat<f64>) -> Mat<f32> {
    Mat::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)] as f32)
}

fn widen(m: &Mat<f32>) -> Mat<f64> {
    Mat::from_fn(m.nrows(), m.ncols(), |i, j| f64::from(m[(i, j)]))
}

/// The PSD part `Y` of a kept state: as the solver holds it, or a dense `Y` compacted.
#[derive(Debug, Clone)]
pub(crate) enum KeptPsd {
    Part(PsdPart),
    Dense32(Mat<f32>),
}

impl KeptPsd {
    /// `Y` as the solver holds it (a dense compacted `Y` widened).
    pub(crate) fn to_part(&self) -> PsdPart {
        match self {
            KeptPsd::Part(p) => p.clone(),
            KeptPsd::Dense32(m) => PsdPart::Dense(widen(m)),
        }
    }

    /// Rounds a dense `Y` to single precision (a factor, n × 32 at most, stays as it is).
    pub(crate) fn compact(&mut self) {
        if let KeptPsd::Part(PsdPart::Dense(m)) = self {
            *self = KeptPsd::Dense32(narrow(m));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compaction rounds every entry to the nearest single-precision number and widening
    /// gives exactly that number back; a dense `Y` is compacted, a factor kept as it is.
    #[test]
    fn compaction_rounds_each_entry_once() {
        let m = Mat::from_fn(7, 7, |i, j| ((i * 7 + j) as f64).sin() / 3.0);
        let mut s = Stored::F64(m.clone());
        s.compact();
        assert!(matches!(s, Stored::F32(_)));
        let back = s.to_f64();
        for j in 0..7 {
            for i in 0..7 {
                assert_eq!(back[(i, j)], f64::from(m[(i, j)] as f32));
                assert!((back[(i, j)] - m[(i, j)]).abs() <= 1e-7 * m[(i, j)].abs());
            }
        }
        assert_eq!(s.into_f64(), back);
        let mut dense = KeptPsd::Part(PsdPart::Dense(m.clone()));
        dense.compact();
        assert!(matches!(dense, KeptPsd::Dense32(_)));
        let mut factor = KeptPsd::Part(PsdPart::Factor(m.get(.., 0..2).to_owned()));
        factor.compact();
        assert!(matches!(factor, KeptPsd::Part(PsdPart::Factor(_))));
    }
}
