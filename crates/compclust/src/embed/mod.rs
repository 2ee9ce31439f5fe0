//! Ordinal embedding baselines: t-STE (van der Maaten & Weinberger 2012).
//!
//! [`tste`] learns points `x_1 … x_n ∈ R^d` from triplets "a is closer to b than to c" by
//! maximising the t-STE likelihood (van der Maaten & Weinberger, "Stochastic triplet
//! embedding", MLSP 2012, eq. for t-STE): with the Student-t kernel
//! `K_ij = (1 + ||x_i − x_j||² / α)^(−(α+1)/2)`, each triplet (i, j, k) holds with probability
//! `p_ijk = K_ij / (K_ij + K_ik)`, and the loss is `−Σ log p_ijk + λ ||X||²_F`.
//! The defaults follow cblearn's `TSTE` (α = max(d − 1, 1), λ = 0, standard normal
//! initialisation, L-BFGS with 10 corrections, 1000 iterations), so the two can be compared
//! on the same triplets (`docs/benchmarks/embed.md`). The original gradient descent with an
//! adaptive step of van der Maaten's `tste.m` is available as [`tste::Optimizer::GradientDescent`].
//!
//! The quality of an embedding is measured by
//! [`crate::metrics::triplet::triplet_accuracy`] on held-out triplets.

mod lbfgs;
pub mod tste;
