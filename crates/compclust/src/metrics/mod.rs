//! Evaluation metrics: ARI, AARI (002 App. B.1), Dasgupta cost (002 App. B.2), gram-matrix
//! error (003 §4), triplet accuracy.

pub mod aari;
pub mod ari;
pub mod dasgupta;
pub mod gram;
pub mod triplet;
