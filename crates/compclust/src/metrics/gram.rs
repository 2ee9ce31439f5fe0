//! Gram-matrix error between two overlapping memberships (003 §4).
