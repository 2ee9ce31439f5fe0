//! Size checks made before anything is allocated: every size that comes from Python (a count in
//! `y`, the largest item index, `n_items`, `n_components`) is compared with the memory the call
//! would need, so that a bad argument is a `LimitError` naming it, never an allocation failure
//! (which aborts the interpreter) or minutes of swapping.
//!
//! The caps that mean the same as the library's are the library's ([`compclust::limits`],
//! listed in `docs/FORMATS.md`, section "Limits"): the per-row count, the comparison rows held
//! after unrolling the counts, and the items of a method with dense `n × n` matrices. The
//! memory estimates, and the 32-bit width of item indices, are this module's.

use std::fmt;

use pyo3::PyResult;

use crate::errors::exc;

/// Largest |count| of one row of `y` (each count unrolls into that many copies of its row):
/// [`compclust::limits::MAX_COUNT`], the `list-count` reader's.
pub const MAX_COUNT: i64 = compclust::limits::MAX_COUNT;

/// Largest number of comparison rows after the counts of `y` are unrolled:
/// [`compclust::limits::MAX_ROWS`], the readers' (2²⁶ rows of 16 bytes: 1.1 GB).
pub const MAX_COMPARISONS: u64 = compclust::limits::MAX_ROWS as u64;

/// Largest number of items of a method that stores dense `n × n` matrices:
/// [`compclust::limits::MAX_DENSE_ITEMS`] (65,536² f64 is 32 GiB).
pub const MAX_DENSE_ITEMS: usize = compclust::limits::MAX_DENSE_ITEMS;

/// Items are `u32` indices in the library: the largest index of `X` or `n_items` a method
/// without dense matrices (t-STE, the overlapping methods) accepts before its memory check.
pub const MAX_ITEMS: u64 = u32::MAX as u64;

/// Memory a call may use: [`compclust::limits::available_memory`] (Linux's `MemAvailable`,
/// less where `ulimit -v` leaves less; 16 GiB where the system does not say), the same
/// figure the command-line tool checks against.
pub fn available_memory() -> u64 {
    u64::try_from(compclust::limits::available_memory()).unwrap_or(u64::MAX)
}

/// Where a number of items came from, for messages: the `n_items` argument or the largest
/// item index in `X`.
#[derive(Clone, Copy, Debug)]
pub struct Items {
    /// The number of items.
    pub n: u64,
    /// `true` when the caller gave `n_items`; `false` when it is the largest index of `X` + 1.
    pub given: bool,
}

impl Items {
    /// `n_items` when given and at least the largest index + 1, else the largest index + 1.
    pub fn new(n_items: Option<u64>, max_index_plus_one: u64) -> Self {
        match n_items {
            Some(n) if n >= max_index_plus_one => Items { n, given: true },
            _ => Items {
                n: max_index_plus_one,
                given: false,
            },
        }
    }
}

impl fmt::Display for Items {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.given {
            write!(f, "n_items = {}", self.n)
        } else {
            write!(
                f,
                "X (largest item index {}, so {} items)",
                self.n.saturating_sub(1),
                self.n
            )
        }
    }
}

fn gb(bytes: u128) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// `LimitError` unless `bytes` (`None`: beyond `u128`) fit in the available memory. `what`
/// names the argument and its value, `purpose` says what the memory is for.
pub fn check_memory(what: &dyn fmt::Display, purpose: &str, bytes: Option<u128>) -> PyResult<()> {
    let available = available_memory();
    match bytes {
        Some(b) if b <= u128::from(available) => Ok(()),
        Some(b) => Err(exc::LimitError::new_err(format!(
            "{what} is too large: {purpose} would need about {}, more than the {} of memory \
             available",
            gb(b),
            gb(available.into())
        ))),
        None => Err(exc::LimitError::new_err(format!(
            "{what} is too large: {purpose} would need more memory than any machine has"
        ))),
    }
}

/// Bytes of `matrices` dense `n × n` matrices of f64.
pub fn dense_bytes(n: u64, matrices: u128) -> Option<u128> {
    u128::from(n)
        .checked_mul(u128::from(n))?
        .checked_mul(8)?
        .checked_mul(matrices)
}

/// `LimitError` unless `items` is at most `max` and its `matrices` dense `n × n` f64 matrices
/// fit in memory (`purpose` names the method).
pub fn check_dense(items: Items, max: usize, matrices: u128, purpose: &str) -> PyResult<()> {
    if items.n > max as u64 {
        return Err(exc::LimitError::new_err(format!(
            "{items} is too large: {purpose} supports at most {max} items"
        )));
    }
    check_memory(&items, purpose, dense_bytes(items.n, matrices))
}

/// `LimitError` unless `items` fits the library's `u32` item indices.
pub fn check_index_range(items: Items) -> PyResult<()> {
    if items.n > MAX_ITEMS {
        return Err(exc::LimitError::new_err(format!(
            "{items} is too large: items are numbered with 32-bit indices (at most {MAX_ITEMS})"
        )));
    }
    Ok(())
}
