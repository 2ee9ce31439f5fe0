//! The ground floor: items, comparisons, the results every family exchanges (flat labels,
//! [`Membership`] for overlapping clusters, [`Dendrogram`] for hierarchies) and their file
//! formats (`docs/FORMATS.md`). Nothing here depends on an algorithm module.
//!
//! Conventions follow cblearn's: a triplet row `(a, b, c)` means
//! "a is closer to b than to c"; a quadruplet row `(a, b, c, d)` means "the pair (a,b) is more
//! similar than the pair (c,d)". Rows are kept as answered; [`Comparisons::triplet_counts`] and
//! [`Comparisons::quadruplet_counts`] give the sparse multiset with signed counts.
//!
//! Reading: [`read_comparisons`] (from a path) and [`read_comparisons_from`] (from any reader)
//! detect the format; [`ReadOptions`] can force the kind, the format and the item universe.
//! Writing: [`write_comparisons`] in any [`OutputFormat`]. Labels, memberships and items files:
//! [`read_labels`], [`write_labels`], [`read_membership`], [`write_membership`], [`read_items`].
//! Real data sets: [`datasets`].

mod comparisons;
pub mod datasets;
mod dendrogram;
mod error;
mod item_names;
mod items;
mod labels;
mod membership;
mod read;
mod records;
mod write;

pub use comparisons::{
    CanonicalCounts, ComparisonKind, Comparisons, Dataset, Quadruplet, SameCluster, Triplet,
    Workers,
};
pub use dendrogram::{Dendrogram, DendrogramError, Merge};
pub use error::{DataError, Location};
pub use error::{QUOTE_CHARS, quote};
pub use item_names::read_item_names;
pub use items::ItemIndex;
pub use labels::{
    ClusterNames, read_items, read_labels, read_labels_named, read_membership,
    read_membership_named, write_atomically, write_items, write_labels, write_membership,
    write_membership_named,
};
pub use membership::Membership;
pub use read::{
    Batch, InputFormat, MAX_COUNT, ReadOptions, ReadReport, StreamSummary, kind_header,
    read_comparisons, read_comparisons_from, read_comparisons_from_with_report,
    read_comparisons_with_report, stream_comparisons,
};
pub use records::Delimiter;
pub use write::{OutputFormat, looks_like_header, write_comparisons, write_comparisons_to};
