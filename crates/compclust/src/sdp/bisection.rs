//! Chosen eigenvalues of a symmetric tridiagonal matrix by bisection on Sturm counts
//! (Givens 1954; the method of LAPACK's `dstebz`, Demmel 1997, §5.3.4; Golub & Van Loan 2013,
//! §8.4.1): the number of eigenvalues below `σ` is the number of negative pivots of the
//! `LDLᵀ` factorisation of `T − σI`, `q₁ = d₁ − σ`, `qᵢ = dᵢ − σ − eᵢ₋₁² / qᵢ₋₁`, and the
//! `j`-th eigenvalue is found by halving an interval until that count changes within it.
//!
//! Why hand-written: faer computes all eigenvalues of a tridiagonal matrix (the QR algorithm, or
//! divide and conquer with every eigenvector), and a full projection in SPUR's probing solves
//! reads only one side of the spectrum (150–280 of 1000 eigenvalues at the paper's default),
//! whose vectors [`super::inverse_iteration`] computes. At n = 1000 faer's QR algorithm took
//! 31–33 ms for the eigenvalues alone and divide and conquer 33–43 ms with every vector, where
//! bisection finds all 1000 in about 21 ms on two threads, and the wanted side in a
//! quarter of that (`docs/benchmarks/sdp.md`, "2026-11-30, night").
//!
//! Accuracy: bisection stops when the interval is at most `2ε‖T‖` wide (or `4ε` relative to
//! the eigenvalue), so every eigenvalue is within a few units of roundoff of `‖T‖` of the
//! exact one, as accurate as the QR algorithm's; Sturm counts are backward stable (Kahan 1966;
//! Demmel 1997, Thm 5.7), and zero pivots are replaced by `−pivmin` as `dstebz` does.

use super::inverse_iteration::Tridiagonal;
use super::simd;
use faer::Par;
use std::ops::Range;

/// Eigenvalues bisected together, one per vector lane ([`simd::sturm_counts`]).
const LANES: usize = simd::STURM_LANES;
/// Bisection steps before giving up on an interval (a 64-bit float halves at most about
/// 2,100 times between the largest finite bound and the smallest spacing; with the Gershgorin
/// interval and the stopping width below, 60 steps suffice).
const MAX_STEPS: usize = 128;

/// Bisection on one tridiagonal matrix `T`, with what every count needs prepared once: the
/// squared off-diagonal, the Gershgorin interval, the stopping width and the smallest pivot
/// allowed.
pub(crate) struct Bisection<'a> {
    d: &'a [f64],
    e2: Vec<f64>,
    lo: f64,
    hi: f64,
    /// Absolute stopping width, `2ε‖T‖`.
    atol: f64,
    pivmin: f64,
}

impl<'a> Bisection<'a> {
    pub(crate) fn new(t: Tridiagonal<'a>) -> Self {
        let n = t.d.len();
        let off = |i: usize| if i + 1 < n { t.e[i] } else { 0.0 };
        let e2: Vec<f64> = (0..n.saturating_sub(1)).map(|i| off(i) * off(i)).collect();
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for i in 0..n {
            let r = if i > 0 { off(i - 1).abs() } else { 0.0 } + off(i).abs();
            lo = lo.min(t.d[i] - r);
            hi = hi.max(t.d[i] + r);
        }
        let norm = lo.abs().max(hi.abs());
        // `dstebz`'s smallest pivot: the safe minimum scaled by the largest squared
        // off-diagonal entry (at least 1).
        let pivmin = f64::MIN_POSITIVE * e2.iter().copied().fold(1.0, f64::max);
        let atol = 2.0 * f64::EPSILON * norm;
        let widen = 2.0 * atol + pivmin;
        Bisection {
            d: t.d,
            e2,
            lo: lo - widen,
            hi: hi + widen,
            atol,
            pivmin,
        }
    }

    /// Number of eigenvalues below each shift of `sigma`.
    fn counts(&self, sigma: &[f64; LANES]) -> [f64; LANES] {
        simd::sturm_counts(self.d, &self.e2, sigma, self.pivmin)
    }

    /// Whether the interval `[lo, hi]` is narrow enough to stop.
    fn narrow(&self, lo: f64, hi: f64) -> bool {
        hi - lo <= self.atol.max(4.0 * f64::EPSILON * lo.abs().max(hi.abs()))
    }

    /// The eigenvalues of ascending indices `idx` (at most [`LANES`]), bisected side by side;
    /// each lane's result is the same whatever the other lanes hold.
    fn bisect(&self, idx: &[usize]) -> [f64; LANES] {
        let (mut lo, mut hi) = ([self.lo; LANES], [self.hi; LANES]);
        // The `j`-th eigenvalue (from 0) is the smallest σ with more than `j` below it.
        let want: [f64; LANES] =
            std::array::from_fn(|l| idx.get(l).map_or(0.0, |&j| j as f64 + 0.5));
        for _ in 0..MAX_STEPS {
            let mid: [f64; LANES] = std::array::from_fn(|l| 0.5 * (lo[l] + hi[l]));
            let below = self.counts(&mid);
            let mut done = true;
            for l in 0..idx.len() {
                // A lane stops once narrow, so that its result does not depend on the others.
                if self.narrow(lo[l], hi[l]) {
                    continue;
                }
                if below[l] > want[l] {
                    hi[l] = mid[l];
                } else {
                    lo[l] = mid[l];
                }
                done &= self.narrow(lo[l], hi[l]);
            }
            if done {
                break;
            }
        }
        std::array::from_fn(|l| 0.5 * (lo[l] + hi[l]))
    }

    /// Number of eigenvalues below `sigma`.
    pub(crate) fn count_below(&self, sigma: f64) -> usize {
        self.counts(&[sigma; LANES])[0] as usize
    }

    /// The eigenvalue of index `j` (ascending order, numbered from 0).
    pub(crate) fn eigenvalue(&self, j: usize) -> f64 {
        self.bisect(&[j])[0]
    }

    /// The eigenvalues of the index ranges `ranges` (ascending order, numbered from 0), range
    /// after range; groups of [`LANES`] run in parallel when `par` says so.
    pub(crate) fn eigenvalues(&self, ranges: &[Range<usize>], par: Par) -> Vec<f64> {
        let idx: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
        let mut out = vec![0.0; idx.len()];
        let group = |(o, js): (&mut [f64], &[usize])| {
            let vals = self.bisect(js);
            o.copy_from_slice(&vals[..js.len()]);
        };
        match par {
            Par::Seq => out.chunks_mut(LANES).zip(idx.chunks(LANES)).for_each(group),
            Par::Rayon(_) => {
                use rayon::prelude::*;
                out.par_chunks_mut(LANES)
                    .zip(idx.par_chunks(LANES))
                    .for_each(group)
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// All eigenvalues of `t` by faer's QR algorithm (the reference).
    fn reference(t: Tridiagonal<'_>) -> Vec<f64> {
        super::super::inverse_iteration::eigenvalues(t).unwrap()
    }

    /// A tridiagonal matrix of `n` entries from a seed; with `repeat`, runs of equal diagonal
    /// entries and tiny off-diagonal ones (nearly multiple eigenvalues, zero pivots).
    fn random(n: usize, seed: u64, repeat: bool) -> (Vec<f64>, Vec<f64>) {
        let r = |i: usize| crate::math::rng::centered_at(seed.wrapping_mul(1_000_003) + i as u64);
        let d = (0..n)
            .map(|i| if repeat { (i / 4) as f64 } else { 4.0 * r(i) })
            .collect();
        let e = (0..n.saturating_sub(1))
            .map(|i| {
                if repeat && i % 3 == 0 {
                    0.0
                } else if repeat {
                    1e-9 * r(n + i)
                } else {
                    r(n + i)
                }
            })
            .collect();
        (d, e)
    }

    proptest! {
        /// Every eigenvalue by bisection is the QR algorithm's within a few units of roundoff
        /// of ‖T‖, for any choice of ranges, sequential or parallel; Sturm counts agree with
        /// counting the reference eigenvalues (away from them).
        #[test]
        fn bisection_agrees_with_the_qr_algorithm(
            n in 1usize..70,
            seed in 0u64..1000,
            repeat in any::<bool>(),
            cut in 0usize..70,
            par in any::<bool>(),
        ) {
            let (d, e) = random(n, seed, repeat);
            let t = Tridiagonal { d: &d, e: &e };
            let want = reference(t);
            let cut = cut.min(n);
            let ranges = [0..cut / 2, cut..n];
            let b = Bisection::new(t);
            let got = b.eigenvalues(&ranges, if par { Par::rayon(2) } else { Par::Seq });
            let idx: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
            prop_assert_eq!(got.len(), idx.len());
            for (&j, &g) in idx.iter().zip(&got) {
                prop_assert_eq!(b.eigenvalue(j).to_bits(), g.to_bits());
            }
            // a few units of roundoff of ‖T‖, and of the smallest pivot for T = 0
            let tol = 1e-13 * t.norm1() + 1e-300;
            for (&j, &g) in idx.iter().zip(&got) {
                prop_assert!((g - want[j]).abs() <= tol, "λ_{} = {} against {}", j, g, want[j]);
            }
            for &s in &[-1.5, 0.0, 0.3, 2.0] {
                let near = want.iter().any(|&v| (v - s).abs() <= tol);
                if !near {
                    let exact = want.iter().filter(|&&v| v < s).count();
                    prop_assert_eq!(b.count_below(s), exact);
                }
            }
        }
    }

    /// A diagonal matrix: its entries, sorted, whatever their order.
    #[test]
    fn diagonal_matrix_gives_its_sorted_entries() {
        let d = [3.0, -1.0, 2.0, 2.0, 0.0];
        let e = [0.0; 4];
        let t = Tridiagonal { d: &d, e: &e };
        let b = Bisection::new(t);
        let got = b.eigenvalues(&[0..2, 2..5], Par::Seq);
        assert_eq!(b.eigenvalue(4), got[4]);
        for (g, w) in got.iter().zip([-1.0, 0.0, 2.0, 2.0, 3.0]) {
            assert!((g - w).abs() <= 1e-14, "{g} against {w}");
        }
        assert_eq!(b.count_below(2.5), 4);
        assert_eq!(b.count_below(-2.0), 0);
    }
}
