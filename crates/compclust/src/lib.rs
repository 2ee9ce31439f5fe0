//! # compclust
//!
//! Clustering of items that have no features, only crowd answers about them:
//! triplets ("a is closer to b than to c"), quadruplets ("(a,b) closer than (c,d)"),
//! most-central and odd-one-out answers, and same-cluster answers.
//!
//! | module | what | paper |
//! |---|---|---|
//! | [`data`] | item labels, comparisons in canonical form, file formats | cblearn conventions |
//! | [`models`] | planted flat / hierarchical models, overlap ensembles | 000 §2, 002 §2.2, 003 §2 |
//! | [`oracle`] | answering comparisons from similarities or features, crowd noise | 000 eq. 2 |
//! | [`similarity`] | AddS-3, AddS-4, MulK-3, MulK-4 | 001 §4, 000 App. A |
//! | [`sdp`] | SDP-λ, SDP-k, SPUR | 001 §3, §5; 000 App. D |
//! | [`flat`] | similarity → SDP → partition | 001 |
//! | [`hierarchy`] | dendrograms, SL/CL from queries, 4K-AL, 4-AL | 002 |
//! | [`overlap`] | overlapping clusters from same-cluster queries | 003 |
//! | [`embed`] | t-STE ordinal embedding baseline | van der Maaten & Weinberger 2012 |
//! | [`limits`] | documented limits on sizes derived from input | |
//! | [`metrics`] | ARI, AARI, Dasgupta cost, gram error, triplet accuracy | 002 App. B, 003 §4 |
//! | [`active`] | the query/answer step-machine protocol | DESIGN.md |

pub mod active;
pub mod data;
pub mod embed;
pub mod flat;
pub mod hierarchy;
pub mod limits;
pub mod metrics;
pub mod models;
pub mod oracle;
pub mod overlap;
pub mod sdp;
pub mod similarity;
