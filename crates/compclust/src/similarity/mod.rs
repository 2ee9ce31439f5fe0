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

use std::path::Path;
use std::time::Instant;

use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::data::{
    Batch, ComparisonKind, Comparisons, DataError, Dataset, ReadOptions, StreamSummary,
    stream_comparisons,
};
use crate::names::named_enum;

pub use adds::{AddS3Accumulator, AddS4Accumulator, adds3, adds4};
pub use error::SimilarityError;
pub use mulk::{MulKAccumulator, mulk3, mulk4};

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

named_enum!(SimilarityKind, "similarity" {
    AddS => "adds" | "adds3" | "adds4" | "adds-3" | "adds-4" | "adds_3" | "adds_4" | "add-s"
        | "additive",
    MulK => "mulk" | "mulk3" | "mulk4" | "mulk-3" | "mulk-4" | "mulk_3" | "mulk_4" | "mul-k"
        | "multiplicative",
});

impl SimilarityKind {
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

/// The four similarities by their paper names: the family ([`SimilarityKind`]) and the arity
/// of the comparisons it was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SimilarityVariant {
    /// AddS-3, from triplets (Perrot et al. 2020, §4).
    AddS3,
    /// AddS-4, from quadruplets (Perrot et al. 2020, §4).
    AddS4,
    /// MulK-3, from triplets (Kleindessner & von Luxburg 2017).
    MulK3,
    /// MulK-4, from quadruplets (Ghoshdastidar et al. 2019, eq. 3).
    MulK4,
}

impl SimilarityVariant {
    /// `kind` built from triplets (`quadruplets = false`) or quadruplets.
    pub fn new(kind: SimilarityKind, quadruplets: bool) -> Self {
        match (kind, quadruplets) {
            (SimilarityKind::AddS, false) => SimilarityVariant::AddS3,
            (SimilarityKind::AddS, true) => SimilarityVariant::AddS4,
            (SimilarityKind::MulK, false) => SimilarityVariant::MulK3,
            (SimilarityKind::MulK, true) => SimilarityVariant::MulK4,
        }
    }

    /// The paper's name ("AddS-3", "AddS-4", "MulK-3", "MulK-4").
    pub fn paper_name(self) -> &'static str {
        match self {
            SimilarityVariant::AddS3 => "AddS-3",
            SimilarityVariant::AddS4 => "AddS-4",
            SimilarityVariant::MulK3 => "MulK-3",
            SimilarityVariant::MulK4 => "MulK-4",
        }
    }
}

impl std::fmt::Display for SimilarityVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.paper_name())
    }
}

/// A similarity built from comparisons: the dense symmetric `n × n` matrix, which of the four
/// it is, and how many comparison rows went into it (SPUR's λ range depends on that number,
/// Perrot et al. 2020, App. D).
#[derive(Clone, Debug)]
pub struct Similarity {
    /// The matrix `S` (zero diagonal).
    pub matrix: Mat<f64>,
    /// Which similarity.
    pub kind: SimilarityVariant,
    /// Number of comparison rows it was built from.
    pub n_comparisons: usize,
}

impl Similarity {
    /// The similarity of `kind` for a data set: triplets give AddS-3 / MulK-3, quadruplets
    /// give AddS-4 / MulK-4. Same-cluster answers are rejected.
    pub fn compute(kind: SimilarityKind, data: &Dataset) -> Result<Similarity, SimilarityError> {
        let quadruplets = matches!(data.comparisons, Comparisons::Quadruplets(_));
        Ok(Similarity {
            matrix: compute(kind, data)?,
            kind: SimilarityVariant::new(kind, quadruplets),
            n_comparisons: data.comparisons.len(),
        })
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.matrix.nrows()
    }
}

/// AddS-3 or AddS-4 (Perrot et al. 2020, §4) from batches of rows whose kind is known only
/// when the first batch arrives (a file read chunk by chunk, [`stream_comparisons`]); the
/// number of items may grow between batches. Memory is the `n × n` counts, whatever the
/// number of rows.
#[derive(Debug, Default)]
pub struct AddSAccumulator {
    state: AddSState,
}

#[derive(Debug, Default)]
enum AddSState {
    #[default]
    Empty,
    Three(AddS3Accumulator),
    Four(AddS4Accumulator),
}

impl AddSAccumulator {
    /// An accumulator that has seen no rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grow to `n_items` and add a batch. The first batch fixes the kind; same-cluster
    /// answers and a batch of the other kind are refused.
    pub fn add(&mut self, batch: Batch<'_>, n_items: usize) -> Result<(), SimilarityError> {
        if let AddSState::Empty = self.state {
            self.state = match batch {
                Batch::Triplets(_) => AddSState::Three(AddS3Accumulator::new(n_items)?),
                Batch::Quadruplets(_) => AddSState::Four(AddS4Accumulator::new(n_items)?),
                Batch::SameCluster(_) => {
                    return Err(SimilarityError::UnsupportedKind {
                        kind: ComparisonKind::SameCluster,
                    });
                }
            };
        }
        match (&mut self.state, batch) {
            (AddSState::Three(a), Batch::Triplets(t)) => {
                a.grow(n_items)?;
                a.add(t)
            }
            (AddSState::Four(a), Batch::Quadruplets(q)) => {
                a.grow(n_items)?;
                a.add(q)
            }
            (state, batch) => Err(SimilarityError::MixedKinds {
                first: match state {
                    AddSState::Four(_) => ComparisonKind::Quadruplets,
                    _ => ComparisonKind::Triplets,
                },
                then: batch_kind(&batch),
            }),
        }
    }

    /// The similarity over `n_items` (at least the items seen so far).
    pub fn finish(self, n_items: usize) -> Result<Similarity, SimilarityError> {
        let (matrix, kind, rows) = match self.state {
            AddSState::Three(mut a) => {
                a.grow(n_items)?;
                let rows = a.rows();
                (a.finish(), SimilarityVariant::AddS3, rows)
            }
            AddSState::Four(mut a) => {
                a.grow(n_items)?;
                let rows = a.rows();
                (a.finish(), SimilarityVariant::AddS4, rows)
            }
            AddSState::Empty => return Err(SimilarityError::NoRows),
        };
        Ok(Similarity {
            matrix,
            kind,
            n_comparisons: usize::try_from(rows).unwrap_or(usize::MAX),
        })
    }
}

fn batch_kind(batch: &Batch<'_>) -> ComparisonKind {
    match batch {
        Batch::Triplets(_) => ComparisonKind::Triplets,
        Batch::Quadruplets(_) => ComparisonKind::Quadruplets,
        Batch::SameCluster(_) => ComparisonKind::SameCluster,
    }
}

/// What can stop [`similarity_from_file`]: reading the file, or building the similarity.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The file could not be read or parsed.
    #[error(transparent)]
    Read(#[from] DataError),
    /// The rows cannot build the similarity (same-cluster answers, too many items, a bad
    /// index).
    #[error(transparent)]
    Similarity(#[from] SimilarityError),
}

/// AddS-3 / AddS-4 straight from a comparisons file, chunk by chunk (Perrot et al. 2020, §4):
/// memory is the `n × n` counts and one chunk of text, whatever the number of rows. Returns
/// the similarity, the time spent adding rows to it (the rest of the read is parsing) and
/// what the reader saw.
pub fn adds_from_file(
    path: &Path,
    opts: &ReadOptions,
) -> Result<(Similarity, f64, StreamSummary), StreamError> {
    similarity_from_file(SimilarityKind::AddS, path, opts, 0)
}

/// The similarity of `kind` straight from a comparisons file, chunk by chunk: AddS-3 / AddS-4
/// (Perrot et al. 2020, §4) in the `n × n` counts, MulK-3 / MulK-4 (Perrot et al. 2020,
/// App. A) in the net count of every distinct comparison ([`MulKAccumulator`]); memory never
/// holds the rows, so a `list-count` row with a count of a million costs one entry. Returns
/// the similarity, the time spent adding rows to it (the rest of the read is parsing) and
/// what the reader saw.
///
/// `then`: the dense `n × n` `f64` matrices the caller allocates next (e.g.
/// [`SDP_MATRICES`](crate::flat::SDP_MATRICES) for a flat fit). Before the similarity matrix
/// is built, it and these are compared with the memory available
/// ([`reserve_dense`](crate::limits::reserve_dense)), so that a file naming a few tens of
/// thousands of items fails at once instead of after building a matrix of many GB.
pub fn similarity_from_file(
    kind: SimilarityKind,
    path: &Path,
    opts: &ReadOptions,
    then: usize,
) -> Result<(Similarity, f64, StreamSummary), StreamError> {
    match kind {
        SimilarityKind::AddS => accumulate_file(AddSAccumulator::new(), path, opts, then),
        SimilarityKind::MulK => accumulate_file(MulKAccumulator::new(), path, opts, then),
    }
}

/// A similarity built from batches of rows: [`AddSAccumulator`] or [`MulKAccumulator`].
trait Accumulate {
    fn add(&mut self, batch: Batch<'_>, n_items: usize) -> Result<(), SimilarityError>;
    fn finish(self, n_items: usize) -> Result<Similarity, SimilarityError>;
}

impl Accumulate for AddSAccumulator {
    fn add(&mut self, batch: Batch<'_>, n_items: usize) -> Result<(), SimilarityError> {
        AddSAccumulator::add(self, batch, n_items)
    }
    fn finish(self, n_items: usize) -> Result<Similarity, SimilarityError> {
        AddSAccumulator::finish(self, n_items)
    }
}

impl Accumulate for MulKAccumulator {
    fn add(&mut self, batch: Batch<'_>, n_items: usize) -> Result<(), SimilarityError> {
        MulKAccumulator::add(self, batch, n_items)
    }
    fn finish(self, n_items: usize) -> Result<Similarity, SimilarityError> {
        MulKAccumulator::finish(self, n_items)
    }
}

/// Stream `path` into `acc` (see [`similarity_from_file`]).
fn accumulate_file<A: Accumulate>(
    mut acc: A,
    path: &Path,
    opts: &ReadOptions,
    then: usize,
) -> Result<(Similarity, f64, StreamSummary), StreamError> {
    let mut failed: Option<SimilarityError> = None;
    let mut seconds = 0.0;
    let mut sink = |batch: Batch<'_>, n: usize| -> Result<(), DataError> {
        let t = Instant::now();
        let r = acc.add(batch, n);
        seconds += t.elapsed().as_secs_f64();
        r.map_err(|e| {
            let stop = DataError::Unsupported(e.to_string());
            failed = Some(e);
            stop
        })
    };
    let read = stream_comparisons(path, opts, &mut sink);
    if let Some(e) = failed {
        return Err(e.into());
    }
    let summary = read?;
    if then > 0 {
        crate::limits::reserve_dense(summary.items.len(), 1 + then)
            .map_err(|e| SimilarityError::Memory(Box::new(e)))?;
    }
    let t = Instant::now();
    let s = acc.finish(summary.items.len())?;
    Ok((s, seconds + t.elapsed().as_secs_f64(), summary))
}

/// The similarity matrix of `kind` for a data set (see [`Similarity::compute`]).
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
