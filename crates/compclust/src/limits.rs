//! Documented limits on every size derived from input, checked before anything of that size
//! is allocated (the numbers are listed in `docs/FORMATS.md`, section "Limits").
//!
//! A file of a few bytes can name item index 4,294,967,295, a count of 10⁶ per row or a
//! hundred thousand items; each of these becomes an allocation (an item table, unrolled
//! rows, an n × n matrix). The readers and algorithms call the helpers below first and
//! return a [`LimitError`] that says what was asked for, the limit and the memory it would
//! have needed, instead of aborting on a failed allocation.

use std::fmt;

/// Largest number of items a comparisons, items, labels or membership file may define
/// (labels, or 0-based / 1-based indices: an index `i` defines `i + 1` items). An item table
/// of this size takes about 0.5 GB.
pub const MAX_ITEMS: usize = 10_000_000;

/// Largest number of items for an algorithm that holds an n × n matrix (similarities,
/// kernels, linkage): 65,536² `f64` entries are 32 GiB.
pub const MAX_DENSE_ITEMS: usize = 1 << 16;

/// Largest number of comparison rows held in memory by a reader, rows unrolled from
/// `list-count` counts included (2²⁶ triplets are 0.8 GB). Streaming reads (the AddS
/// accumulators) hold one batch at a time and are not bound by it.
pub const MAX_ROWS: usize = 1 << 26;

/// Largest |count| of a cblearn `list-count` row.
pub const MAX_COUNT: i64 = 1_000_000;

/// Largest same-cluster answer (the number of clusters two items share): the overlapping
/// methods support at most 64 clusters.
pub const MAX_SHARED_CLUSTERS: u32 = 64;

/// A size derived from input is beyond a documented limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct LimitError {
    /// What was asked for, e.g. "items" or "rows of comparisons".
    pub what: &'static str,
    /// The size asked for.
    pub value: u128,
    /// The documented limit.
    pub limit: u128,
    /// The memory the request would have needed, in bytes, when known.
    pub bytes: Option<u128>,
    /// The memory available when the request was refused for want of it (see
    /// [`available_memory`]); `None` when the documented limit refused it.
    pub available: Option<u128>,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(b), Some(a)) = (self.bytes, self.available) {
            return write!(
                f,
                "{} {} would need {} of memory, more than the {} available; see the limits \
                 in docs/FORMATS.md",
                self.value,
                self.what,
                human_bytes(b),
                human_bytes(a)
            );
        }
        write!(
            f,
            "{} {} is beyond the limit of {}",
            self.value, self.what, self.limit
        )?;
        if let Some(b) = self.bytes {
            write!(f, " (it would need {})", human_bytes(b))?;
        }
        write!(f, "; see the limits in docs/FORMATS.md")
    }
}

/// `bytes` as a short decimal size (`80.0 GB`).
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Error unless `value <= limit`.
pub fn check(
    what: &'static str,
    value: u128,
    limit: u128,
    bytes: Option<u128>,
) -> Result<(), LimitError> {
    if value <= limit {
        Ok(())
    } else {
        Err(LimitError {
            what,
            value,
            limit,
            bytes,
            available: None,
        })
    }
}

/// Memory assumed available where the system does not say (off Linux).
const FALLBACK_MEMORY: u128 = 16 << 30;

/// Memory this process may still allocate: the smaller of what Linux reports as available
/// (`MemAvailable` in `/proc/meminfo`) and what the address-space limit (`ulimit -v`, in
/// `/proc/self/limits`) leaves above the current size; 16 GiB where neither is known.
pub fn available_memory() -> u128 {
    match (memory_available(), address_space_left()) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => FALLBACK_MEMORY,
    }
}

/// The peak resident memory of this process so far, in bytes (`VmHWM` in
/// `/proc/self/status`; `None` off Linux). For benchmarks that report memory beside time.
pub fn peak_resident_memory() -> Option<u128> {
    proc_kb("/proc/self/status", "VmHWM:")
}

/// The value in kB of the line `key` of a `/proc` status file, in bytes.
fn proc_kb(file: &str, key: &str) -> Option<u128> {
    let text = std::fs::read_to_string(file).ok()?;
    let v = text.lines().find_map(|l| l.strip_prefix(key))?;
    let kb: u128 = v.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb.saturating_mul(1024))
}

fn memory_available() -> Option<u128> {
    proc_kb("/proc/meminfo", "MemAvailable:")
}

/// The soft address-space limit less the current virtual size (`None` when unlimited).
fn address_space_left() -> Option<u128> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft: u128 = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let size = proc_kb("/proc/self/status", "VmSize:").unwrap_or(0);
    Some(soft.saturating_sub(size))
}

/// Error when `bytes` (for `value` of `what`) are more than [`available_memory`]: call it
/// before an allocation whose size comes from input and passed its documented limit, so that
/// a request the machine cannot meet is an error, not an abort.
pub fn check_memory(what: &'static str, value: u128, bytes: u128) -> Result<(), LimitError> {
    let available = available_memory();
    if bytes <= available {
        Ok(())
    } else {
        Err(LimitError {
            what,
            value,
            limit: value,
            bytes: Some(bytes),
            available: Some(available),
        })
    }
}

/// Error when a file defines more than [`MAX_ITEMS`] items.
pub fn check_items(n_items: u128) -> Result<(), LimitError> {
    check("items", n_items, MAX_ITEMS as u128, None)
}

/// Error when `n_items` is too many for `matrices` dense n × n `f64` matrices: call it before
/// allocating them. The error states the memory they would need.
pub fn check_dense(n_items: usize, matrices: usize) -> Result<(), LimitError> {
    let bytes = (n_items as u128)
        .saturating_mul(n_items as u128)
        .saturating_mul(8 * matrices.max(1) as u128);
    check(
        "items for an n x n matrix",
        n_items as u128,
        MAX_DENSE_ITEMS as u128,
        Some(bytes),
    )
}

/// [`check_dense`], then [`check_memory`] for the matrices: call it right before allocating
/// them.
pub fn reserve_dense(n_items: usize, matrices: usize) -> Result<(), LimitError> {
    check_dense(n_items, matrices)?;
    let bytes = (n_items as u128)
        .saturating_mul(n_items as u128)
        .saturating_mul(8 * matrices.max(1) as u128);
    check_memory("items for an n x n matrix", n_items as u128, bytes)
}

/// Error when holding `rows` comparison rows of `row_bytes` bytes each is beyond [`MAX_ROWS`].
pub fn check_rows(rows: u128, row_bytes: usize) -> Result<(), LimitError> {
    check(
        "rows of comparisons",
        rows,
        MAX_ROWS as u128,
        Some(rows.saturating_mul(row_bytes as u128)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_check_names_the_memory() {
        assert!(check_dense(MAX_DENSE_ITEMS, 1).is_ok());
        let e = check_dense(100_000, 1).unwrap_err();
        assert_eq!(e.bytes, Some(80_000_000_000));
        let msg = e.to_string();
        assert!(
            msg.contains("100000 items") && msg.contains("80.0 GB"),
            "{msg}"
        );
        assert!(check_dense(usize::MAX, 3).is_err(), "no overflow");
    }

    #[test]
    fn memory_beyond_what_is_available_is_refused() {
        let a = available_memory();
        assert!(a > 0);
        assert!(check_memory("rows", 1, a / 2).is_ok());
        let e = check_memory("items for an n x n matrix", 40_001, a + 1).unwrap_err();
        assert_eq!(e.available, Some(a));
        let msg = e.to_string();
        assert!(
            msg.contains("40001 items") && msg.contains("more than the"),
            "{msg}"
        );
        // Beyond the documented limit, that limit is what the message gives.
        let e = reserve_dense(100_000, 1).unwrap_err();
        assert_eq!(e.available, None);
        // Far below it, a few kB always fit.
        assert!(reserve_dense(10, 2).is_ok());
    }

    #[test]
    fn sizes_print_short() {
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(4_700_000_000), "4.7 GB");
    }
}
