//! Dasgupta cost of a dendrogram under a similarity (002 App. B.2).
