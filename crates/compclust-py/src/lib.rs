//! Python bindings of compclust: the extension module `compclust._core`.
//!
//! A thin layer: it converts numpy arrays into the library's types (reading them through
//! stride-aware views, so Fortran-ordered and sliced arrays are read correctly), releases the
//! GIL around the computation, and maps library errors to `ValueError`. The scikit-learn style
//! estimators live in the pure-Python package `python/compclust`.

use compclust::data::{Comparisons, Quadruplet, Triplet};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Convert any displayable library error into a Python `ValueError`.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Read query rows of width `N` from an int64 array of any memory layout.
fn read_rows<const N: usize>(x: &PyReadonlyArray2<'_, i64>) -> PyResult<Vec<[u32; N]>> {
    let a = x.as_array(); // stride-aware: C, Fortran and sliced arrays all read row by row
    if a.ncols() != N {
        return Err(value_error(format!("expected {N} columns, got {}", a.ncols())));
    }
    let mut rows = Vec::with_capacity(a.nrows());
    for (r, row) in a.rows().into_iter().enumerate() {
        let mut q = [0u32; N];
        for (c, &v) in row.iter().enumerate() {
            q[c] = u32::try_from(v)
                .map_err(|_| value_error(format!("row {r}, column {c}: invalid item index {v}")))?;
        }
        if (0..N).any(|i| (i + 1..N).any(|j| q[i] == q[j] && !(N == 4 && (i, j) == (0, 2)))) {
            return Err(value_error(format!("row {r}: item repeated inside one comparison")));
        }
        rows.push(q);
    }
    Ok(rows)
}

/// Expand cblearn responses: `None` means `list-order` (each row is the answer); otherwise a
/// count per row: `c > 0` adds `c` copies as written, `c < 0` adds `|c|` reversed copies, and
/// `0` (undecided) is skipped. Returns the expanded rows and the number skipped.
fn unroll<const N: usize>(
    rows: Vec<[u32; N]>,
    y: Option<PyReadonlyArray1<'_, i64>>,
    reverse: impl Fn([u32; N]) -> [u32; N],
) -> PyResult<(Vec<[u32; N]>, usize)> {
    let Some(y) = y else { return Ok((rows, 0)) };
    let y = y.as_array();
    if y.len() != rows.len() {
        return Err(value_error(format!("{} responses for {} queries", y.len(), rows.len())));
    }
    let mut out = Vec::with_capacity(rows.len());
    let mut skipped = 0;
    for (q, &c) in rows.into_iter().zip(y.iter()) {
        let q = if c < 0 { reverse(q) } else { q };
        if c == 0 {
            skipped += 1;
        }
        out.extend(std::iter::repeat_n(q, c.unsigned_abs() as usize));
    }
    Ok((out, skipped))
}

/// Build library comparisons from a cblearn-style `(X, y)`: `X` int rows of width 3 (triplets)
/// or 4 (quadruplets), `y` optional signed counts (booleans are passed as ±1 by the Python layer).
pub fn comparisons_from_arrays(
    x: &PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(Comparisons, usize)> {
    match x.as_array().ncols() {
        3 => {
            let (rows, skipped) = unroll(read_rows::<3>(x)?, y, |[a, b, c]| [a, c, b])?;
            let t = rows.into_iter().map(|[a, b, c]| Triplet::new(a, b, c)).collect();
            Ok((Comparisons::Triplets(t), skipped))
        }
        4 => {
            let (rows, skipped) = unroll(read_rows::<4>(x)?, y, |[a, b, c, d]| [c, d, a, b])?;
            let q = rows.into_iter().map(|[a, b, c, d]| Quadruplet::new(a, b, c, d)).collect();
            Ok((Comparisons::Quadruplets(q), skipped))
        }
        w => Err(value_error(format!(
            "queries must have 3 (triplets) or 4 (quadruplets) columns, got {w}"
        ))),
    }
}

/// Summary of a comparison array: `(answers, distinct, contradicted, undecided, n_items)`.
#[pyfunction]
#[pyo3(signature = (x, y=None))]
fn describe(
    x: PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(usize, usize, usize, usize, usize)> {
    let (c, skipped) = comparisons_from_arrays(&x, y)?;
    let contradicted = match &c {
        Comparisons::Triplets(_) => c.triplet_counts().map_or(0, |k| k.contradicted),
        _ => c.quadruplet_counts().map_or(0, |k| k.contradicted),
    };
    Ok((c.len(), c.distinct(), contradicted, skipped, c.max_item()))
}

/// The extension module `compclust._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
