//! Planted generators: flat (Perrot et al. 2020, §2, App. E.3), hierarchical (Ghoshdastidar et al. 2019, §2.2), overlap ensembles
//! (Huleihel et al. 2019, §2).
//!
//! The flat and hierarchical models implement [`crate::simulate::Similarity`] and compute every
//! `w_ij` lazily from `(seed, min(i,j), max(i,j))` with a counter-based generator
//! ([`crate::math::rng::CounterRng`]), so n = 10,000 items need no n × n matrix and the same
//! seed always gives the same similarities.

pub mod flat;
pub mod hierarchical;
pub mod overlap;

/// Invalid parameters for a planted model.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ModelError {
    /// A parameter out of its range.
    #[error("planted model: `{name}` = {value} is out of range: {expected}")]
    BadParameter {
        /// Parameter name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// What was expected.
        expected: String,
    },
    /// An unknown family name.
    #[error("unknown family `{0}`; expected normal, uniform, beta or normal-uniform")]
    UnknownFamily(String),
}

pub use crate::math::special::{normal_cdf, normal_pdf, normal_quantile};
