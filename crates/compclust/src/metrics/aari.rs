//! Averaged ARI over the levels of two hierarchies (002 App. B.1).
