//! Evaluation metrics: ARI, AARI (Ghoshdastidar et al. 2019, App. B.1), Dasgupta cost (Ghoshdastidar et al. 2019, App. B.2), gram-matrix
//! error (Huleihel et al. 2019, §4), triplet accuracy.

pub mod aari;
pub mod ari;
pub mod dasgupta;
pub mod gram;
pub mod triplet;

/// Errors from metrics on mismatched inputs.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MetricError {
    /// Two labelings / hierarchies over different numbers of items.
    #[error("the two inputs cover different numbers of items: {left} vs {right}")]
    LengthMismatch {
        /// Items in the first input.
        left: usize,
        /// Items in the second input.
        right: usize,
    },
    /// No levels to average over.
    #[error("no levels to compare")]
    NoLevels,
    /// A level with an impossible number of clusters.
    #[error("cannot cut {n} items into {k} clusters")]
    BadLevel {
        /// Requested clusters.
        k: usize,
        /// Items.
        n: usize,
    },
    /// A dendrogram and a similarity over different numbers of items.
    #[error("dendrogram has {leaves} leaves but the similarity has {items} items")]
    SizeMismatch {
        /// Dendrogram leaves.
        leaves: usize,
        /// Similarity items.
        items: usize,
    },
}
