//! Hierarchical clustering from comparisons (paper 002): dendrograms, comparison-based single
//! and complete linkage, 4K-AL, 4-AL.

mod dendrogram;

pub use dendrogram::{Dendrogram, DendrogramError, Merge};
