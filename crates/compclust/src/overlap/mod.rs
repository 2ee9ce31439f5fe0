//! Overlapping clusters from same-cluster queries (paper 003).

mod membership;

pub use membership::Membership;
