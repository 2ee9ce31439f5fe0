//! # compclust
//!
//! Clustering of items that have no features, only crowd answers about them: triplets ("a is
//! closer to b than to c"), quadruplets ("the pair (a,b) is more similar than (c,d)"),
//! most-central and odd-one-out answers, and same-cluster answers. Three families:
//!
//! - **flat** clusters with an unknown number of clusters: AddS or MulK similarities, an SDP
//!   and SPUR (Perrot, Esser & Ghoshdastidar 2020) — [`flat`], [`similarity`], [`sdp`];
//! - **hierarchies**: 4-AL, 4K-AL and comparison-based single/complete linkage (Ghoshdastidar,
//!   Perrot & von Luxburg 2019) — [`hierarchy`];
//! - **overlapping** clusters from same-cluster queries (Huleihel, Mazumdar, Médard & Pal 2019)
//!   — [`overlap`].
//!
//! ## Example
//!
//! Simulate the planted model of Perrot et al. (2020, §2) — 60 items in 3 clusters, `n (ln n)^4`
//! passive triplets — cluster the items from the triplets alone, with SPUR choosing the number
//! of clusters, and score the result against the planted clusters:
//!
//! ```
//! use compclust::data::Dataset;
//! use compclust::flat::{FlatParams, NClusters};
//! use compclust::metrics::ari::adjusted_rand_index;
//! use compclust::models::flat::{Family, PlantedInstance};
//! use compclust::simulate::Budget;
//!
//! let instance = PlantedInstance {
//!     n: 60,
//!     k: 3,
//!     family: Family::NormalNormal,
//!     delta: 0.8,
//!     eps: 1.0,
//!     quadruplets: false,
//!     budget: Budget::LogPower(4.0),
//! };
//! let (model, triplets) = instance.sample(1)?; // the model and its comparisons, seed 1
//! let data = Dataset::numbered(60, triplets)?;
//! let fitted = FlatParams::new()
//!     .with_n_clusters(NClusters::Auto) // SPUR
//!     .with_seed(0)
//!     .fit(&data, None)?;
//! assert_eq!(fitted.k_hat, 3);
//! assert!(adjusted_rand_index(model.labels(), &fitted.labels) > 0.99);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Real answers are read with [`data::read_comparisons`] (CSV, TSV, cblearn's formats, salmon,
//! the car survey, the food grid JSON; `docs/FORMATS.md`).
//!
//! ## Modules
//!
//! | module | what | paper |
//! |---|---|---|
//! | [`data`] | ground floor: items, comparisons, labels, memberships, dendrograms, file formats | cblearn's conventions |
//! | [`math`] | ground floor: counter-based random streams, special functions | Steele, Lea & Flood 2014 |
//! | [`models`] | planted flat / hierarchical models, overlap ensembles | Perrot et al. 2020 §2; Ghoshdastidar et al. 2019 §2.2; Huleihel et al. 2019 §2 |
//! | [`simulate`] | answering comparisons from similarities or features with crowd noise; sampling with a budget and one seed rule | Perrot et al. 2020 §2, eq. 2 |
//! | [`similarity`] | AddS-3, AddS-4, MulK-3, MulK-4 | Perrot et al. 2020 §4, App. A |
//! | [`sdp`] | SDP-λ, SDP-k, SPUR (`docs/SOLVER.md`) | Perrot et al. 2020 §3, §5, App. D |
//! | [`flat`] | similarity → SDP → partition | Perrot et al. 2020 |
//! | [`hierarchy`] | dendrograms, SL/CL from queries, 4K-AL, 4-AL | Ghoshdastidar et al. 2019 |
//! | [`overlap`] | overlapping clusters from same-cluster queries (`docs/OVERLAP.md`) | Huleihel et al. 2019 |
//! | [`design`] | passive designs: random questions without repeats, `n (ln n)³` by default | Perrot et al. 2020 §2, §5 |
//! | [`embed`] | t-STE ordinal embedding baseline | van der Maaten & Weinberger 2012 |
//! | [`limits`] | documented limits on sizes derived from input | |
//! | [`metrics`] | ARI, AARI, Dasgupta cost, gram error, triplet accuracy | Ghoshdastidar et al. 2019 App. B; Huleihel et al. 2019 §4 |
//! | [`active`] | the query/answer protocol of the adaptive algorithms (step machines) | |
//! | [`cancel`] | stopping a long SDP, t-STE or 4-AL run early | |
//! | [`study`] | study files: the bounded reader, the study pinned by file rounds | |
//!
//! The layers and where each paper lives: `docs/ARCHITECTURE.md`; full references: the README.

pub mod active;
pub mod cancel;
pub mod crowd;
pub mod data;
pub mod design;
pub mod embed;
pub mod flat;
pub mod hierarchy;
pub mod limits;
pub mod math;
pub mod metrics;
pub mod models;
pub mod names;
pub mod observe;
pub mod overlap;
mod pool;
pub mod sdp;
pub mod similarity;
pub mod simulate;
pub mod study;
