//! Comparison-based similarities: AddS-3, AddS-4 (Perrot et al. 2020, §4), MulK-3, MulK-4 (Perrot et al. 2020, App. A).
//!
//! Every function returns a dense symmetric `faer::Mat<f64>` of size `n × n`.
//!
//! # Conventions (all four similarities)
//! - **Pairs are unordered.** A quadruplet row `(a, b, c, d)` is an observation
//!   "w_{ab} > w_{cd}" about the unordered pairs {a,b} and {c,d} (w is symmetric), so it is the
//!   same answer as `(b, a, d, c)`. A triplet row `(i, j, r)` means w_{ij} > w_{ir}.
//! - **Multisets.** The papers write indicators `I{(i,j,r) ∈ T}` over a *set* of comparisons. We
//!   sum over rows instead: a row given twice counts twice and contradicting rows cancel. When
//!   no row is repeated (passive sampling without replacement, the papers' model) this is
//!   exactly the paper's formula.
//! - **Degenerate rows** (a triplet whose three items are not distinct; a quadruplet with a
//!   pair `(a, a)` or with {a,b} = {c,d}) are outside the papers' sets T and Q (Perrot et al. 2020, eq. 1) and
//!   are skipped ([`Triplet::is_degenerate`](crate::data::Triplet::is_degenerate),
//!   [`Quadruplet::is_degenerate`](crate::data::Quadruplet::is_degenerate)); the accumulators
//!   count them.
//! - **No normalisation** for AddS-3 / AddS-4 / MulK-4: entries are the raw signed sums of the
//!   formulas (integers stored as `f64`), so they scale with the number of comparisons; the
//!   λ of SDP-λ / SPUR is chosen from the number of comparisons accordingly (Perrot et al. 2020, App. D).
//!   MulK-3 is divided by `sqrt(|T_i| |T_j|)`, `|T_i|` = number of (non-degenerate) rows with
//!   anchor `i`, as in Kleindessner & von Luxburg (2017); entries with `|T_i| = 0` are 0.
//! - **Zero diagonal.** The papers define S_ij for distinct i, j only; we set S_ii = 0.
//!
//! [`mulk4`] is also the *passive 4K-AL kernel* of Ghoshdastidar et al. 2019, eq. (3)/(9):
//! `K_ij = Σ_{k<l} Σ_{r≠i,j} (I{(i,r,k,l)∈Q} − I{(k,l,i,r)∈Q})(I{(j,r,k,l)∈Q} − I{(k,l,j,r)∈Q})`
//! is Perrot et al. 2020's MulK-4 after renaming (Ghoshdastidar et al. 2019's `r` = Perrot et al. 2020's `ℓ`, Ghoshdastidar et al. 2019's `(k,l)` = Perrot et al. 2020's `(r,s)`); both
//! exclude `r = i, j` (Perrot et al. 2020 write `ℓ ≠ i, j`, Ghoshdastidar et al. 2019, App. A.4 writes `r ≠ i, j`).
//!
//! Naive references written straight from the formulas live in [`naive`]; the tests check the
//! fast versions against them.

mod adds;
mod error;
mod mulk;
pub mod naive;

use std::str::FromStr;

use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::data::{Comparisons, Dataset};

pub use adds::{AddS3Accumulator, AddS4Accumulator, adds3, adds4};
pub use error::SimilarityError;
pub use mulk::{mulk3, mulk4};

/// Which family of similarity to build from comparisons: the additive one (AddS-3 for triplets,
/// AddS-4 for quadruplets, Perrot et al. 2020, §4) or the multiplicative kernel (MulK-3 / MulK-4, Perrot et al. 2020, App. A).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SimilarityKind {
    /// AddS-3 (triplets) or AddS-4 (quadruplets), Perrot et al. 2020, §4. The default.
    #[default]
    AddS,
    /// MulK-3 (triplets) or MulK-4 (quadruplets), Perrot et al. 2020, App. A.
    MulK,
}

impl SimilarityKind {
    /// The name used on the command line: `adds` or `mulk`.
    pub fn name(self) -> &'static str {
        match self {
            SimilarityKind::AddS => "adds",
            SimilarityKind::MulK => "mulk",
        }
    }

    /// The paper's name of the similarity used for `comparisons` (e.g. "AddS-3").
    pub fn paper_name(self, comparisons: &Comparisons) -> &'static str {
        match (self, comparisons) {
            (SimilarityKind::AddS, Comparisons::Quadruplets(_)) => "AddS-4",
            (SimilarityKind::AddS, _) => "AddS-3",
            (SimilarityKind::MulK, Comparisons::Quadruplets(_)) => "MulK-4",
            (SimilarityKind::MulK, _) => "MulK-3",
        }
    }
}

impl std::fmt::Display for SimilarityKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SimilarityKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s
            .trim()
            .to_ascii_lowercase()
            .replace(['-', '_'], "")
            .as_str()
        {
            "adds" | "adds3" | "adds4" | "additive" => Ok(SimilarityKind::AddS),
            "mulk" | "mulk3" | "mulk4" | "multiplicative" => Ok(SimilarityKind::MulK),
            other => Err(format!(
                "unknown similarity `{other}`; expected `adds` or `mulk`"
            )),
        }
    }
}

/// The similarity of `kind` for a data set: triplets give AddS-3 / MulK-3, quadruplets give
/// AddS-4 / MulK-4. Same-cluster answers are rejected.
pub fn compute(kind: SimilarityKind, data: &Dataset) -> Result<Mat<f64>, SimilarityError> {
    let n = data.n_items();
    match (&data.comparisons, kind) {
        (Comparisons::Triplets(t), SimilarityKind::AddS) => adds3(n, t),
        (Comparisons::Triplets(t), SimilarityKind::MulK) => mulk3(n, t),
        (Comparisons::Quadruplets(q), SimilarityKind::AddS) => adds4(n, q),
        (Comparisons::Quadruplets(q), SimilarityKind::MulK) => mulk4(n, q),
        (c, _) => Err(SimilarityError::UnsupportedKind { kind: c.kind() }),
    }
}
