//! The n × n matrices SPUR keeps between SDP solves (warm-start states, the leader's
//! solution): in double precision, or, in a lean solve ([`super::SdpParams::lean_n`]), rounded
//! to single precision and written to an anonymous temporary file, so that none of them sits
//! in memory beside a running solve (`docs/SOLVER.md`, "Memory").

use super::error::SdpError;
use super::psd_part::PsdPart;
use faer::Mat;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex};

/// A kept n × n matrix: in double precision, compacted to single precision, or spilled (single
/// precision, in a temporary file).
#[derive(Debug, Clone)]
pub(crate) enum Stored {
    F64(Mat<f64>),
    F32(Mat<f32>),
    Disk(Spilled),
}

impl Stored {
    /// Number of rows.
    pub(crate) fn nrows(&self) -> usize {
        match self {
            Stored::F64(m) => m.nrows(),
            Stored::F32(m) => m.nrows(),
            Stored::Disk(d) => d.nrows,
        }
    }

    /// A double-precision copy (widened when compacted, read back when spilled).
    pub(crate) fn to_f64(&self) -> Result<Mat<f64>, SdpError> {
        Ok(match self {
            Stored::F64(m) => m.clone(),
            Stored::F32(m) => widen(m),
            Stored::Disk(d) => d.read_f64()?,
        })
    }

    /// The matrix in double precision, moved when it is one.
    pub(crate) fn into_f64(self) -> Result<Mat<f64>, SdpError> {
        match self {
            Stored::F64(m) => Ok(m),
            other => other.to_f64(),
        }
    }

    /// Rounds to single precision (the double-precision matrix is freed).
    pub(crate) fn compact(&mut self) {
        if let Stored::F64(m) = self {
            *self = Stored::F32(narrow(m));
        }
    }

    /// Rounds to single precision, as [`Stored::compact`], and moves the matrix to a temporary
    /// file; when the file cannot be written, the matrix stays in memory, compacted.
    pub(crate) fn spill(&mut self) {
        let written = match self {
            Stored::F64(m) => Spilled::write(m.nrows(), m.ncols(), 4, |i, j, out| {
                out.extend((m[(i, j)] as f32).to_le_bytes())
            }),
            Stored::F32(m) => Spilled::write(m.nrows(), m.ncols(), 4, |i, j, out| {
                out.extend(m[(i, j)].to_le_bytes())
            }),
            Stored::Disk(_) => return,
        };
        match written {
            Ok(d) => *self = Stored::Disk(d),
            Err(_) => self.compact(),
        }
    }
}

/// A matrix rounded to single precision and written column by column to an anonymous temporary
/// file (in `TMPDIR`, else `/tmp`; the system deletes it once the last handle is closed, also
/// when the process dies). Reading it back gives the numbers [`Stored::compact`] would have
/// kept, so a spilled state warm-starts a solve exactly as a compacted one.
///
/// [`Spilled::exact`] writes a double-precision matrix unrounded instead: a lean solve's `X`
/// while its buffer serves an inertia count (`eig::Projector::lend`).
#[derive(Debug, Clone)]
pub(crate) struct Spilled {
    file: Arc<Mutex<File>>,
    nrows: usize,
    ncols: usize,
    /// Bytes per entry: 4 (rounded to single precision) or 8 (exact).
    width: usize,
}

impl Spilled {
    /// Writes the `nrows × ncols` matrix whose entry `(i, j)` `put(i, j, out)` appends to
    /// `out` as `width` little-endian bytes.
    fn write(
        nrows: usize,
        ncols: usize,
        width: usize,
        put: impl Fn(usize, usize, &mut Vec<u8>),
    ) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, tempfile::tempfile()?);
        let mut bytes = Vec::with_capacity(nrows * width);
        for j in 0..ncols {
            bytes.clear();
            for i in 0..nrows {
                put(i, j, &mut bytes);
            }
            out.write_all(&bytes)?;
        }
        let file = out.into_inner().map_err(|e| e.into_error())?;
        Ok(Spilled {
            file: Arc::new(Mutex::new(file)),
            nrows,
            ncols,
            width,
        })
    }

    /// `m` written unrounded.
    pub(crate) fn exact(m: faer::MatRef<'_, f64>) -> io::Result<Self> {
        Spilled::write(m.nrows(), m.ncols(), 8, |i, j, out| {
            out.extend(m[(i, j)].to_le_bytes())
        })
    }

    /// The matrix read back and widened to double precision.
    fn read_f64(&self) -> Result<Mat<f64>, SdpError> {
        let mut m = Mat::zeros(self.nrows, self.ncols);
        self.read_into(m.as_mut())
            .map_err(|e| SdpError::Spill(e.to_string()))?;
        Ok(m)
    }

    /// The matrix read back into `m` (of its shape), widened to double precision.
    pub(crate) fn read_into(&self, mut m: faer::MatMut<'_, f64>) -> io::Result<()> {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.seek(SeekFrom::Start(0))?;
        let mut input = BufReader::with_capacity(1 << 20, &mut *file);
        let mut bytes = vec![0u8; self.nrows * self.width];
        for j in 0..self.ncols {
            input.read_exact(&mut bytes)?;
            for (i, b) in bytes.chunks_exact(self.width).enumerate() {
                m[(i, j)] = match *b {
                    [b0, b1, b2, b3] => f64::from(f32::from_le_bytes([b0, b1, b2, b3])),
                    _ => f64::from_le_bytes(b.try_into().expect("8 bytes")),
                };
            }
        }
        Ok(())
    }
}

fn narrow(m: &Mat<f64>) -> Mat<f32> {
    Mat::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)] as f32)
}

fn widen(m: &Mat<f32>) -> Mat<f64> {
    Mat::from_fn(m.nrows(), m.ncols(), |i, j| f64::from(m[(i, j)]))
}

/// The PSD part `Y` of a kept state: as the solver holds it, or a dense `Y` compacted or
/// spilled.
#[derive(Debug, Clone)]
pub(crate) enum KeptPsd {
    Part(PsdPart),
    Dense(Stored),
}

impl KeptPsd {
    /// `Y` as the solver holds it (a dense compacted `Y` widened, a spilled one read back).
    pub(crate) fn to_part(&self) -> Result<PsdPart, SdpError> {
        Ok(match self {
            KeptPsd::Part(p) => p.clone(),
            KeptPsd::Dense(m) => PsdPart::Dense(m.to_f64()?),
        })
    }

    /// Rounds a dense `Y` to single precision (a factor, n × 32 at most, stays as it is).
    pub(crate) fn compact(&mut self) {
        self.dense_with(Stored::compact);
    }

    /// Spills a dense `Y` ([`Stored::spill`]; a factor stays as it is).
    pub(crate) fn spill(&mut self) {
        self.dense_with(Stored::spill);
    }

    fn dense_with(&mut self, f: impl FnOnce(&mut Stored)) {
        if let KeptPsd::Part(PsdPart::Dense(m)) = self {
            *self = KeptPsd::Dense(Stored::F64(std::mem::replace(m, Mat::zeros(0, 0))));
        }
        if let KeptPsd::Dense(m) = self {
            f(m);
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
        let back = s.to_f64().unwrap();
        for j in 0..7 {
            for i in 0..7 {
                assert_eq!(back[(i, j)], f64::from(m[(i, j)] as f32));
                assert!((back[(i, j)] - m[(i, j)]).abs() <= 1e-7 * m[(i, j)].abs());
            }
        }
        assert_eq!(s.into_f64().unwrap(), back);
        let mut dense = KeptPsd::Part(PsdPart::Dense(m.clone()));
        dense.compact();
        assert!(matches!(dense, KeptPsd::Dense(Stored::F32(_))));
        let mut factor = KeptPsd::Part(PsdPart::Factor(m.get(.., 0..2).to_owned()));
        factor.compact();
        assert!(matches!(factor, KeptPsd::Part(PsdPart::Factor(_))));
    }

    /// A spilled matrix reads back as exactly the compacted one, from a double- or a
    /// single-precision matrix, as often as it is read (also from a clone); a dense `Y` is
    /// spilled, a factor kept in memory; an exact spill reads back unrounded.
    #[test]
    fn a_spilled_matrix_reads_back_as_the_compacted_one_or_exactly() {
        let m = Mat::from_fn(9, 5, |i, j| ((i * 5 + j) as f64).cos() * 1e3 + 1.0 / 3.0);
        let mut compact = Stored::F64(m.clone());
        compact.compact();
        let want = compact.to_f64().unwrap();
        for mut s in [Stored::F64(m.clone()), compact.clone()] {
            s.spill();
            assert!(matches!(s, Stored::Disk(_)));
            assert_eq!(s.nrows(), 9);
            assert_eq!(s.to_f64().unwrap(), want);
            assert_eq!(s.clone().to_f64().unwrap(), want);
            assert_eq!(s.into_f64().unwrap(), want);
        }
        let mut dense = KeptPsd::Part(PsdPart::Dense(m.clone()));
        dense.spill();
        assert!(matches!(dense, KeptPsd::Dense(Stored::Disk(_))));
        assert!(matches!(dense.to_part().unwrap(), PsdPart::Dense(y) if y == want));
        let mut factor = KeptPsd::Part(PsdPart::Factor(m.clone()));
        factor.spill();
        assert!(matches!(factor, KeptPsd::Part(PsdPart::Factor(_))));
        // An exact spill reads back unrounded.
        let exact = Spilled::exact(m.as_ref()).unwrap();
        let mut back = Mat::zeros(9, 5);
        exact.read_into(back.as_mut()).unwrap();
        assert_eq!(back, m);
        assert_ne!(want, m);
    }
}
