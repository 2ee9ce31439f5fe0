//! Triplet accuracy of an embedding: the fraction of triplets (a, near, far) it satisfies,
//! i.e. with `||x_a − x_near|| < ||x_a − x_far||` (cblearn `metrics.query_accuracy`; the
//! measure used for t-STE by van der Maaten & Weinberger 2012).
//!
//! **Ties** (`||x_a − x_near|| = ||x_a − x_far||` exactly) count as *not* satisfied, as in
//! cblearn, so a collapsed embedding scores 0 rather than chance. Distances are compared as
//! squared Euclidean distances (no square root, no rounding from it). A NaN coordinate makes
//! the comparison false, so the triplet counts as violated.

use faer::MatRef;
use rayon::prelude::*;

use crate::data::Triplet;

/// Errors of the triplet metrics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TripletMetricError {
    /// The dimension is 0.
    #[error("embedding dimension must be at least 1")]
    ZeroDimension,
    /// The flat embedding length is not a multiple of the dimension.
    #[error("embedding has {len} values, which is not a multiple of the dimension {dim}")]
    BadShape {
        /// Number of values.
        len: usize,
        /// Dimension.
        dim: usize,
    },
    /// No triplets to score.
    #[error("triplet accuracy needs at least one triplet, got none")]
    NoTriplets,
    /// A triplet names an item without a point.
    #[error("triplet #{index} names item {item}, but the embedding has only {n_points} points")]
    ItemOutOfRange {
        /// 0-based position of the triplet.
        index: usize,
        /// The offending item.
        item: u32,
        /// Number of points in the embedding.
        n_points: usize,
    },
}

/// How many triplets an embedding satisfies, ties on, and violates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TripletScore {
    /// `||x_a − x_near|| < ||x_a − x_far||`.
    pub satisfied: usize,
    /// Exactly equal distances.
    pub ties: usize,
    /// `||x_a − x_near|| > ||x_a − x_far||`, or a NaN distance.
    pub violated: usize,
}

impl TripletScore {
    /// Number of triplets scored.
    pub fn total(&self) -> usize {
        self.satisfied + self.ties + self.violated
    }

    /// `satisfied / total` (ties count as failures); NaN when there are no triplets.
    pub fn accuracy(&self) -> f64 {
        self.satisfied as f64 / self.total() as f64
    }
}

fn check(n_points: usize, triplets: &[Triplet]) -> Result<(), TripletMetricError> {
    if triplets.is_empty() {
        return Err(TripletMetricError::NoTriplets);
    }
    for (index, t) in triplets.iter().enumerate() {
        for item in t.items() {
            if item as usize >= n_points {
                return Err(TripletMetricError::ItemOutOfRange {
                    index,
                    item,
                    n_points,
                });
            }
        }
    }
    Ok(())
}

fn score_with(triplets: &[Triplet], dist2: impl Fn(usize, usize) -> f64 + Sync) -> TripletScore {
    triplets
        .par_iter()
        .fold(TripletScore::default, |mut s, t| {
            let a = t.anchor as usize;
            let near = dist2(a, t.near as usize);
            let far = dist2(a, t.far as usize);
            if near < far {
                s.satisfied += 1;
            } else if near == far {
                s.ties += 1;
            } else {
                s.violated += 1;
            }
            s
        })
        .reduce(TripletScore::default, |x, y| TripletScore {
            satisfied: x.satisfied + y.satisfied,
            ties: x.ties + y.ties,
            violated: x.violated + y.violated,
        })
}

/// Counts satisfied / tied / violated triplets for a row-major `n × dim` embedding.
pub fn triplet_score(
    embedding: &[f64],
    dim: usize,
    triplets: &[Triplet],
) -> Result<TripletScore, TripletMetricError> {
    if dim == 0 {
        return Err(TripletMetricError::ZeroDimension);
    }
    if !embedding.len().is_multiple_of(dim) {
        return Err(TripletMetricError::BadShape {
            len: embedding.len(),
            dim,
        });
    }
    check(embedding.len() / dim, triplets)?;
    Ok(score_with(triplets, |i, j| {
        let (p, q) = (
            &embedding[i * dim..(i + 1) * dim],
            &embedding[j * dim..(j + 1) * dim],
        );
        p.iter().zip(q).map(|(u, v)| (u - v) * (u - v)).sum()
    }))
}

/// Fraction of `triplets` satisfied by the row-major `n × dim` embedding (ties count as
/// failures; see the module doc).
pub fn triplet_accuracy(
    embedding: &[f64],
    dim: usize,
    triplets: &[Triplet],
) -> Result<f64, TripletMetricError> {
    Ok(triplet_score(embedding, dim, triplets)?.accuracy())
}

/// [`triplet_score`] for a faer matrix with one row per item.
pub fn triplet_score_mat(
    embedding: MatRef<'_, f64>,
    triplets: &[Triplet],
) -> Result<TripletScore, TripletMetricError> {
    if embedding.ncols() == 0 {
        return Err(TripletMetricError::ZeroDimension);
    }
    check(embedding.nrows(), triplets)?;
    let d = embedding.ncols();
    Ok(score_with(triplets, |i, j| {
        (0..d)
            .map(|l| {
                let u = embedding[(i, l)] - embedding[(j, l)];
                u * u
            })
            .sum()
    }))
}

/// [`triplet_accuracy`] for a faer matrix with one row per item.
pub fn triplet_accuracy_mat(
    embedding: MatRef<'_, f64>,
    triplets: &[Triplet],
) -> Result<f64, TripletMetricError> {
    Ok(triplet_score_mat(embedding, triplets)?.accuracy())
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;
    use proptest::prelude::*;

    fn t(a: u32, b: u32, c: u32) -> Triplet {
        Triplet::new(a, b, c)
    }

    /// Reference: Euclidean distances with a square root, one triplet at a time.
    fn naive(x: &[f64], d: usize, tr: &[Triplet]) -> (usize, usize, usize) {
        let dist = |i: usize, j: usize| {
            (0..d)
                .map(|l| (x[i * d + l] - x[j * d + l]).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        let (mut s, mut e, mut v) = (0, 0, 0);
        for t in tr {
            let (a, b, c) = (t.anchor as usize, t.near as usize, t.far as usize);
            let (p, q) = (dist(a, b), dist(a, c));
            if p < q {
                s += 1
            } else if p == q {
                e += 1
            } else {
                v += 1
            }
        }
        (s, e, v)
    }

    #[test]
    fn hand_computed_on_a_line() {
        // Points 0, 1, 3, 7 on a line.
        let x = [0.0, 1.0, 3.0, 7.0];
        let tr = [
            t(0, 1, 2), // 1 < 3 ✓
            t(0, 2, 1), // 3 > 1 ✗
            t(2, 1, 3), // 2 < 4 ✓
            t(1, 0, 2), // 1 = 2? no: |1−0| = 1, |1−3| = 2 ✓
            t(2, 3, 1), // 4 > 2 ✗
        ];
        let s = triplet_score(&x, 1, &tr).unwrap();
        assert_eq!(
            s,
            TripletScore {
                satisfied: 3,
                ties: 0,
                violated: 2
            }
        );
        assert!((triplet_accuracy(&x, 1, &tr).unwrap() - 0.6).abs() < 1e-15);
    }

    #[test]
    fn ties_count_as_failures() {
        // 2-D: anchor at origin, (1,0) and (0,1) are equally far; (2,2) is farther.
        let x = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 2.0];
        let tr = [t(0, 1, 2), t(0, 2, 1), t(0, 1, 3), t(0, 3, 2)];
        let s = triplet_score(&x, 2, &tr).unwrap();
        assert_eq!(s.satisfied, 1);
        assert_eq!(s.ties, 2);
        assert_eq!(s.violated, 1);
        assert!((s.accuracy() - 0.25).abs() < 1e-15);
        // A collapsed embedding satisfies nothing.
        assert_eq!(triplet_accuracy(&[0.0; 8], 2, &tr).unwrap(), 0.0);
    }

    #[test]
    fn mat_and_slice_agree() {
        let x = [0.0, 0.0, 1.0, 0.5, -2.0, 1.0, 3.0, 3.0];
        let m = Mat::from_fn(4, 2, |i, l| x[i * 2 + l]);
        let tr = [t(0, 1, 2), t(1, 2, 3), t(3, 0, 1), t(2, 0, 3)];
        assert_eq!(
            triplet_score(&x, 2, &tr).unwrap(),
            triplet_score_mat(m.as_ref(), &tr).unwrap()
        );
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert_eq!(
            triplet_accuracy(&[0.0; 4], 0, &[t(0, 1, 2)]),
            Err(TripletMetricError::ZeroDimension)
        );
        assert_eq!(
            triplet_accuracy(&[0.0; 5], 2, &[t(0, 1, 2)]),
            Err(TripletMetricError::BadShape { len: 5, dim: 2 })
        );
        assert_eq!(
            triplet_accuracy(&[0.0; 6], 2, &[]),
            Err(TripletMetricError::NoTriplets)
        );
        assert_eq!(
            triplet_accuracy(&[0.0; 6], 2, &[t(0, 1, 2), t(0, 3, 1)]),
            Err(TripletMetricError::ItemOutOfRange {
                index: 1,
                item: 3,
                n_points: 3
            })
        );
        let m = Mat::<f64>::zeros(2, 2);
        assert!(triplet_accuracy_mat(m.as_ref(), &[t(0, 1, 2)]).is_err());
    }

    proptest! {
        #[test]
        fn fast_matches_naive(
            (d, x, tr) in (1usize..4, 2usize..8).prop_flat_map(|(d, n)| (
                Just(d),
                // Small integer grid so ties happen.
                proptest::collection::vec((-2i32..3).prop_map(f64::from), n * d),
                proptest::collection::vec((0..n as u32, 0..n as u32, 0..n as u32), 1..30),
            ))
        ) {
            let tr: Vec<Triplet> = tr.into_iter().map(|(a, b, c)| t(a, b, c)).collect();
            let s = triplet_score(&x, d, &tr).unwrap();
            let (sat, ties, vio) = naive(&x, d, &tr);
            prop_assert_eq!((s.satisfied, s.ties, s.violated), (sat, ties, vio));
            prop_assert_eq!(s.total(), tr.len());
        }
    }
}
