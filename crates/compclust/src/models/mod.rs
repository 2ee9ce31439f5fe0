//! Planted generators: flat (000 §2, App. E.3), hierarchical (002 §2.2), overlap ensembles
//! (003 §2).
//!
//! The flat and hierarchical models implement [`crate::oracle::Similarity`] and compute every
//! `w_ij` lazily from `(seed, min(i,j), max(i,j))` with a counter-based generator
//! ([`crate::oracle::rng::CounterRng`]), so n = 10,000 items need no n × n matrix and the same
//! seed always gives the same similarities.

pub mod flat;
pub mod hierarchical;
pub mod overlap;

/// Invalid parameters for a planted model.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ModelError {
    /// A parameter out of its range.
    #[error("planted model: `{name}` = {value} is out of range: {expected}")]
    BadParameter {
        /// Parameter name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// What was expected.
        expected: String,
    },
    /// An unknown family name.
    #[error("unknown family `{0}`; expected normal, uniform, beta or normal-uniform")]
    UnknownFamily(String),
}

/// Standard normal cdf Φ(x), from the everywhere-convergent series
/// `Φ(x) = 1/2 + φ(x) Σ_k x^{2k+1} / (2k+1)!!` (all terms of one sign, so no cancellation),
/// and the tail value 0/1 beyond |x| > 38.
pub fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 38.0 {
        return 1.0;
    }
    if x < -38.0 {
        return 0.0;
    }
    if x < -5.0 {
        // avoid cancellation in 1/2 − (…) for the far lower tail: continued fraction of the
        // Mills ratio, Φ(x) = φ(x) / (|x| + 1/(|x| + 2/(|x| + 3/(…))))
        let t = -x;
        let mut f = t;
        for k in (1..=60).rev() {
            f = t + k as f64 / f;
        }
        return normal_pdf(x) / f;
    }
    if x > 5.0 {
        return 1.0 - normal_cdf(-x);
    }
    let mut term = x;
    let mut sum = x;
    let x2 = x * x;
    let mut k = 0.0;
    while term.abs() > 1e-17 * sum.abs() {
        k += 1.0;
        term *= x2 / (2.0 * k + 1.0);
        sum += term;
    }
    0.5 + normal_pdf(x) * sum
}

/// Standard normal density φ(x).
pub fn normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Φ⁻¹(p) for p in (0, 1), by bisection on [`normal_cdf`] to full precision.
pub fn normal_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let (mut lo, mut hi) = (-38.0f64, 38.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(mid) < p {
            lo = mid
        } else {
            hi = mid
        }
        if hi - lo < 1e-15 * (1.0 + mid.abs()) {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-16);
        assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-14);
        assert!((normal_cdf(-1.959_963_984_540_054) - 0.025).abs() < 1e-14);
        assert!((normal_cdf(-6.0) - 9.865_876_450_376_98e-10).abs() < 1e-22);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-12);
        assert!((normal_quantile(0.75) - 0.674_489_750_196_081_7).abs() < 1e-12);
    }
}
