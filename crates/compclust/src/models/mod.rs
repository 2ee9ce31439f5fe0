//! Planted generators: flat (000 §2, App. E.3), hierarchical (002 §2.2), overlap ensembles
//! (003 §2).

pub mod flat;
pub mod hierarchical;
pub mod overlap;
