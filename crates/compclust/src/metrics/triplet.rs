//! Triplet accuracy of an embedding.
