//! Answering comparisons from a similarity matrix or features, with crowd noise (000 eq. 2),
//! and passive sampling of comparison sets.
