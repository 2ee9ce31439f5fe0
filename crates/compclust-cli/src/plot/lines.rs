//! Line charts with mean ± std bands (error vs queries, ARI vs comparisons).
