//! Items, comparisons and their file formats.
//!
//! Conventions follow cblearn (`research/ecosystem.md` §1.1): a triplet row `(a, b, c)` means
//! "a is closer to b than to c"; a quadruplet row `(a, b, c, d)` means "the pair (a,b) is more
//! similar than the pair (c,d)". Rows are kept as answered; [`Comparisons::canonical`] gives the
//! sparse multiset with signed counts.

mod comparisons;
mod error;
mod items;

pub use comparisons::{
    CanonicalCounts, ComparisonKind, Comparisons, Dataset, Quadruplet, SameCluster, Triplet,
};
pub use error::{DataError, Location};
pub use items::ItemIndex;
