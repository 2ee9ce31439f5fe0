//! Spectral clustering of the SDP solution X (Perrot et al. 2020, App. E.1): normalised spectral clustering
//! of Ng, Jordan & Weiss (2002) with X as the affinity matrix.
//!
//! With `A = max(X, 0)` (X is entrywise non-negative up to solver tolerance) and degrees
//! `d_i = Σ_j A_ij`, take the `k` leading eigenvectors of `D^{-1/2} A D^{-1/2}`, normalise each
//! row to unit length, and cluster the rows with k-means++ (restarts, seeded). For the exact
//! SDP solution X1 = 1, so D = I and the embedding is X's own leading eigenspace. One full
//! symmetric eigendecomposition (faer), O(n³).

use faer::{Mat, MatRef, Side};

use super::error::FlatError;
use super::kmeans::{KMeansParams, KMeansResult, Points, kmeans};

/// The row-normalised spectral embedding (n × k) of the affinity `x` (see module docs).
pub fn spectral_embedding(x: MatRef<'_, f64>, k: usize) -> Result<Points, FlatError> {
    let n = x.nrows();
    if x.ncols() != n {
        return Err(FlatError::Shape {
            what: "spectral clustering affinity",
            expected: format!("a square matrix with {n} columns"),
            got: x.ncols(),
        });
    }
    if k == 0 || k > n {
        return Err(FlatError::InvalidK { k, n });
    }
    let a = |i: usize, j: usize| 0.5 * (x[(i, j)] + x[(j, i)]).max(0.0);
    let mut inv_sqrt_deg = vec![0.0; n];
    for (i, v) in inv_sqrt_deg.iter_mut().enumerate() {
        let d: f64 = (0..n).map(|j| a(i, j)).sum();
        if !d.is_finite() {
            return Err(FlatError::NonFinite {
                what: "spectral clustering affinity",
                row: i,
                col: 0,
            });
        }
        *v = if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 };
    }
    let m = Mat::from_fn(n, n, |i, j| inv_sqrt_deg[i] * a(i, j) * inv_sqrt_deg[j]);
    let evd = m
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| FlatError::Eigen {
            during: "spectral clustering",
        })?;
    let u = evd.U();
    // Eigenvalues ascend: the k leading eigenvectors are the last k columns.
    let mut data = Vec::with_capacity(n * k);
    for i in 0..n {
        let row: Vec<f64> = (0..k).map(|c| u[(i, n - 1 - c)]).collect();
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        data.extend(row.iter().map(|v| if norm > 0.0 { v / norm } else { 0.0 }));
    }
    Points::new(n, k, data)
}

/// Spectral clustering of the affinity `x` into `params.k` clusters (module docs).
pub fn spectral(x: MatRef<'_, f64>, params: &KMeansParams) -> Result<KMeansResult, FlatError> {
    let emb = spectral_embedding(x, params.k)?;
    kmeans(&emb, params)
}
