//! Dendrogram pictures with item labels.
