//! Ordinal embedding baselines: t-STE (van der Maaten & Weinberger 2012), SOE (Terada & von
//! Luxburg 2014) and FORTE (Jain, Jamieson & Nowak 2016).
//!
//! Each learns points `x_1 … x_n ∈ R^d` from triplets "a is closer to b than to c":
//!
//! * [`tste`] maximises the t-STE likelihood (van der Maaten & Weinberger, "Stochastic triplet
//!   embedding", MLSP 2012): with the Student-t kernel
//!   `K_ij = (1 + ||x_i − x_j||² / α)^(−(α+1)/2)`, each triplet (i, j, k) holds with
//!   probability `p_ijk = K_ij / (K_ij + K_ik)`, and the loss is `−Σ log p_ijk + λ ||X||²_F`.
//! * [`soe`] minimises the soft ordinal embedding objective (Terada & von Luxburg, "Local
//!   ordinal embedding", ICML 2014, eq. 1): the squared hinge
//!   `Σ max(0, δ + ||x_i − x_j|| − ||x_i − x_k||)²` on Euclidean distances.
//! * [`forte`] learns a rank-d Gram matrix with the triplet logistic loss by projected
//!   gradient descent (Jain, Jamieson & Nowak, "Finite sample prediction and recovery bounds
//!   for ordinal embedding", NeurIPS 2016, §5), and reads the points off its top
//!   eigenvectors.
//!
//! The defaults follow cblearn 0.4 (`TSTE`, `SOE`, `FORTE`), so that the implementations can be
//! compared on the same triplets (`docs/benchmarks/embed.md`). t-STE and SOE use one hand-written
//! L-BFGS (as cblearn's scipy backend uses L-BFGS-B); FORTE uses its own projected gradient.
//!
//! The quality of an embedding is measured by
//! [`crate::metrics::triplet::triplet_accuracy`] on held-out triplets.

pub mod forte;
mod lbfgs;
pub mod soe;
pub mod tste;

use std::str::FromStr;

use crate::data::Triplet;

/// The ordinal embedding methods of this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EmbedMethod {
    /// t-STE (van der Maaten & Weinberger 2012), [`tste`].
    #[default]
    Tste,
    /// SOE (Terada & von Luxburg 2014), [`soe`].
    Soe,
    /// FORTE (Jain, Jamieson & Nowak 2016), [`forte`].
    Forte,
}

impl EmbedMethod {
    /// Name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            EmbedMethod::Tste => "tste",
            EmbedMethod::Soe => "soe",
            EmbedMethod::Forte => "forte",
        }
    }

    /// Every method, in the order above.
    pub const ALL: [EmbedMethod; 3] = [EmbedMethod::Tste, EmbedMethod::Soe, EmbedMethod::Forte];
}

impl std::fmt::Display for EmbedMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EmbedMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "tste" | "t-ste" => Ok(EmbedMethod::Tste),
            "soe" => Ok(EmbedMethod::Soe),
            "forte" => Ok(EmbedMethod::Forte),
            _ => Err(format!(
                "unknown embedding method `{s}`; expected tste, soe or forte"
            )),
        }
    }
}

/// Errors of SOE and FORTE parameters and inputs (`method` names the algorithm).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmbedError {
    /// A parameter is out of its range.
    #[error("{method} parameter `{name}` = {value} is invalid: {reason}")]
    InvalidParam {
        /// The algorithm.
        method: &'static str,
        /// Parameter name.
        name: &'static str,
        /// The value given, as text.
        value: String,
        /// What is allowed.
        reason: &'static str,
    },
    /// The run was cancelled ([`crate::cancel`]) before it finished.
    #[error("{method} was cancelled")]
    Cancelled {
        /// The algorithm.
        method: &'static str,
    },
    /// `n_items` is 0.
    #[error("{method} needs at least one item (n_items = 0)")]
    NoItems {
        /// The algorithm.
        method: &'static str,
    },
    /// More items than the method's dense n × n matrices allow.
    #[error(
        "{method} keeps several dense n × n matrices and allows at most {max} items, got {n_items}"
    )]
    TooManyItems {
        /// The algorithm.
        method: &'static str,
        /// Number of items asked for.
        n_items: usize,
        /// The largest number allowed.
        max: usize,
    },
    /// The triplet list is empty.
    #[error("{method} needs at least one triplet, got none")]
    NoTriplets {
        /// The algorithm.
        method: &'static str,
    },
    /// A triplet names an item outside `0..n_items`.
    #[error(
        "triplet #{index} ({anchor}, {near}, {far}) names item {item}, but there are only \
         {n_items} items"
    )]
    ItemOutOfRange {
        /// 0-based position of the triplet in the input.
        index: usize,
        /// Its anchor.
        anchor: u32,
        /// Its near item.
        near: u32,
        /// Its far item.
        far: u32,
        /// The offending item.
        item: u32,
        /// Number of items.
        n_items: usize,
    },
    /// A triplet repeats an item (e.g. (a, a, b)).
    #[error("triplet #{index} ({anchor}, {near}, {far}) repeats an item")]
    RepeatedItem {
        /// 0-based position of the triplet in the input.
        index: usize,
        /// Its anchor.
        anchor: u32,
        /// Its near item.
        near: u32,
        /// Its far item.
        far: u32,
    },
    /// An eigendecomposition did not converge (FORTE's projection).
    #[error("{method}: the eigendecomposition of the Gram matrix did not converge")]
    Eigen {
        /// The algorithm.
        method: &'static str,
    },
}

/// `EmbedError::InvalidParam` of `method`.
pub(crate) fn invalid(
    method: &'static str,
    name: &'static str,
    value: impl ToString,
    reason: &'static str,
) -> EmbedError {
    EmbedError::InvalidParam {
        method,
        name,
        value: value.to_string(),
        reason,
    }
}

/// Checks that there are items and triplets, and that every triplet names three distinct
/// items of `0..n_items`.
pub(crate) fn validate_triplets(
    method: &'static str,
    n_items: usize,
    triplets: &[Triplet],
) -> Result<(), EmbedError> {
    if n_items == 0 {
        return Err(EmbedError::NoItems { method });
    }
    if triplets.is_empty() {
        return Err(EmbedError::NoTriplets { method });
    }
    for (index, t) in triplets.iter().enumerate() {
        for item in t.items() {
            if item as usize >= n_items {
                return Err(EmbedError::ItemOutOfRange {
                    index,
                    anchor: t.anchor,
                    near: t.near,
                    far: t.far,
                    item,
                    n_items,
                });
            }
        }
        if t.is_degenerate() {
            return Err(EmbedError::RepeatedItem {
                index,
                anchor: t.anchor,
                near: t.near,
                far: t.far,
            });
        }
    }
    Ok(())
}

/// `softplus(z) = log(1 + e^z)` and `sigmoid(z) = 1 / (1 + e^−z)`, stable for both signs.
pub(crate) fn softplus_sigmoid(z: f64) -> (f64, f64) {
    let e = (-z.abs()).exp();
    let softplus = z.max(0.0) + e.ln_1p();
    let sigmoid = if z >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    (softplus, sigmoid)
}
