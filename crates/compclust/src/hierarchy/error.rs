//! Errors of the hierarchy module.

use crate::data::Quadruplet;

use super::DendrogramError;

/// What can go wrong when building a hierarchy from comparisons.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum HierarchyError {
    /// The run was cancelled ([`crate::cancel`]) before it finished.
    #[error("the hierarchical clustering was cancelled")]
    Cancelled,
    /// Fewer than one item.
    #[error("no items to cluster")]
    NoItems,
    /// A comparison refers to an item outside `0..n`.
    #[error("comparison {row} refers to item {item}, but there are only {n_items} items")]
    ItemOutOfRange {
        /// Row index of the comparison.
        row: usize,
        /// The item index.
        item: usize,
        /// Number of items.
        n_items: usize,
    },
    /// Same-cluster answers cannot build a comparison-based hierarchy.
    #[error("{method} needs triplets or quadruplets, got {kind} answers")]
    WrongKind {
        /// The method asked for.
        method: &'static str,
        /// The kind of comparisons given.
        kind: String,
    },
    /// Initial clusters do not label every item.
    #[error("initial clusters label {labels} items, but there are {n_items} items")]
    InitialClustersLength {
        /// Number of labels given.
        labels: usize,
        /// Number of items.
        n_items: usize,
    },
    /// The number of items is beyond a documented limit for the n × n matrices of the
    /// method ([`crate::limits`]).
    #[error("{0}")]
    Limit(Box<crate::limits::LimitError>),
    /// A parameter is out of range.
    #[error("parameter `{name}` = {value}: {reason}")]
    BadParameter {
        /// The parameter name.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A passive set of comparisons lacks comparisons an adaptive method needs.
    #[error(
        "{method}: {} needed comparisons are not in the given set (answered {answered} before \
         stopping); first missing: {}",
        missing.len(),
        missing.first().map_or(String::new(), |q| format!("({},{},{},{})", q.a, q.b, q.c, q.d))
    )]
    MissingComparisons {
        /// The method.
        method: &'static str,
        /// Comparisons that were needed but are absent (or tied) in the set.
        missing: Vec<Quadruplet>,
        /// How many needed comparisons were found before stopping.
        answered: usize,
    },
    /// A passive method was asked to query an oracle.
    #[error("{method} builds its tree from a passive set of comparisons; it asks no questions")]
    NotActive {
        /// The method.
        method: &'static str,
    },
    /// An internal dendrogram check failed (a bug: please report).
    #[error("internal error building the dendrogram: {0}")]
    Dendrogram(#[from] DendrogramError),
}
