//! Flat clustering pipeline: similarity → SDP (→ SPUR) → partition (k-means++ or spectral).
