//! Errors of the similarity constructions.

use crate::data::ComparisonKind;

/// What can go wrong while building a similarity from comparisons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimilarityError {
    /// The computation was cancelled ([`crate::cancel`]) before it finished.
    #[error("the similarity construction was cancelled")]
    Cancelled,
    /// A comparison refers to an item outside `0..n_items`.
    #[error(
        "comparison row {row} (0-based, counting every row given so far): item index {index} is \
         out of range for {n_items} items"
    )]
    IndexOutOfRange {
        /// 0-based row number among all rows given to this computation / accumulator.
        row: u64,
        /// The offending index.
        index: u32,
        /// Number of items.
        n_items: usize,
    },
    /// Too many items for a dense `n × n` similarity.
    #[error("{n_items} items are too many for a dense similarity matrix (at most {max})")]
    TooManyItems {
        /// Requested number of items.
        n_items: usize,
        /// The largest supported number.
        max: usize,
    },
    /// The comparisons are of a kind no similarity here is defined for.
    #[error(
        "no comparison-based similarity is defined for {kind} answers (use triplets or quadruplets)"
    )]
    UnsupportedKind {
        /// The kind given.
        kind: ComparisonKind,
    },
    /// Rows of two kinds given to one accumulator.
    #[error("{first} rows and then {then} rows: one similarity takes one kind of comparisons")]
    MixedKinds {
        /// The kind of the first rows.
        first: ComparisonKind,
        /// The kind that followed.
        then: ComparisonKind,
    },
    /// No comparison rows at all.
    #[error("no comparison rows to build a similarity from")]
    NoRows,
    /// The `n × n` similarity needs more memory than is available.
    #[error(transparent)]
    Memory(Box<crate::limits::LimitError>),
}

/// Largest number of items for a dense similarity (n² entries must be addressable and the
/// matrix must plausibly fit in memory: 65,536² f64 is 32 GiB):
/// [`crate::limits::MAX_DENSE_ITEMS`].
pub const MAX_ITEMS: usize = crate::limits::MAX_DENSE_ITEMS;

/// Error unless `n_items` is at most [`MAX_ITEMS`] and the `n × n` similarity (`f64`, with
/// the 4-byte counts of the AddS accumulators) fits in the memory available
/// ([`crate::limits::check_memory`]).
pub(crate) fn check_n(n_items: usize) -> Result<(), SimilarityError> {
    if n_items > MAX_ITEMS {
        return Err(SimilarityError::TooManyItems {
            n_items,
            max: MAX_ITEMS,
        });
    }
    let bytes = (n_items as u128).pow(2) * 12;
    crate::limits::check_memory("items for an n x n similarity", n_items as u128, bytes)
        .map_err(|e| SimilarityError::Memory(Box::new(e)))
}
