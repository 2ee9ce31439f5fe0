//! Hierarchical clustering from comparisons (Ghoshdastidar et al. 2019): dendrograms, comparison-based single
//! and complete linkage (§3.1), 4K-AL (§3.2, eq. 1-3) and 4-AL (§3.3, eq. 4-5).

mod common;
mod error;
mod four_al;
mod kernel;
mod linkage;
mod method;
mod params;

pub use crate::data::{Dendrogram, DendrogramError, Merge};
pub use common::average_linkage;
pub use error::HierarchyError;
pub use four_al::{
    FourAl, FourAlInfo, FourAlInput, FourAlParams, NaiveFourAl, four_al, four_al_naive,
    initial_clusters_from_truth,
};
pub use kernel::{
    ActiveKernelMachine, ActiveKernelParams, FourKAl, ReferencePairs, active_kernel_naive,
    four_k_al, passive_kernel, passive_kernel_naive,
};
pub use linkage::{
    Linkage, LinkageFit, LinkageMachine, QuadrupletTable, linkage_active, linkage_naive,
    linkage_passive,
};
pub use method::HierarchyMethod;
pub use params::{Hierarchy, HierarchyInfo, HierarchyParams};
