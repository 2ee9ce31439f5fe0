//! Hierarchical planted model (002 §2.2).
