//! Overlap ensembles (003 §2): uniform (Δ of k) and i.i.d. Bernoulli(p) memberships.
