//! How many comparisons to draw, and drawing them: the comparison budget of the planted
//! experiments, `m = n (ln n)^p` (Perrot, Esser & Ghoshdastidar 2020, §5 and App. E: the
//! number of passive comparisons is varied as `n (ln n)^p`), and one sampler for every budget.
//!
//! **The seed rule.** A simulated instance at seed `s` is the model built with seed `s` and
//! its comparisons drawn with the same seed `s` ([`sample_comparisons`] with `seed = s`). The
//! command-line `simulate` and `demo`, the experiments and Python's `datasets.make_planted`
//! all follow it, so one seed gives byte-identical comparisons everywhere. It is the rule the
//! experiments always used, so the experiment CSVs committed under `docs/figures` stay
//! reproducible.

use super::{
    OracleError, Similarity, n_distinct_quadruplets, n_distinct_triplets, sample_quadruplets,
    sample_quadruplets_bernoulli, sample_triplets, sample_triplets_bernoulli,
};
use crate::data::Comparisons;

/// How many passive comparisons to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Exactly this many distinct comparisons (an error if fewer exist).
    Exactly(usize),
    /// `n (ln n)^p`, rounded, at least 1, capped at the number of distinct comparisons
    /// (see [`comparison_budget`]).
    LogPower(f64),
    /// Every distinct comparison observed independently with this probability (Perrot,
    /// Esser & Ghoshdastidar 2020, §2).
    Rate(f64),
}

impl Budget {
    /// The paper's default budget, `n (ln n)^3` (Perrot, Esser & Ghoshdastidar 2020, §5).
    pub const DEFAULT: Budget = Budget::LogPower(3.0);
}

/// The number of distinct triplets (`quadruplets = false`) or quadruplets over `n` items.
pub fn n_distinct(n: usize, quadruplets: bool) -> u128 {
    if quadruplets {
        n_distinct_quadruplets(n)
    } else {
        n_distinct_triplets(n)
    }
}

/// The comparison budget `n (ln n)^p`, rounded to the nearest integer, at least 1, and capped
/// at the number of distinct triplets (or quadruplets) over `n` items.
pub fn comparison_budget(n: usize, p: f64, quadruplets: bool) -> usize {
    let nf = n as f64;
    let want = (nf * nf.ln().powf(p)).round().max(1.0) as u128;
    want.min(n_distinct(n, quadruplets)) as usize
}

/// Draw passive comparisons answered by `sim` with crowd noise `eps` (each answer correct with
/// probability `(1 + eps)/2`): triplets, or quadruplets when `quadruplets`, as many as
/// `budget` says, with `seed` (by the seed rule above, the seed the model was built with).
pub fn sample_comparisons<S: Similarity + ?Sized>(
    sim: &S,
    quadruplets: bool,
    budget: Budget,
    eps: f64,
    seed: u64,
) -> Result<Comparisons, OracleError> {
    let n = sim.n_items();
    let m = match budget {
        Budget::Exactly(m) => m,
        Budget::LogPower(p) => comparison_budget(n, p, quadruplets),
        Budget::Rate(rate) => {
            return Ok(if quadruplets {
                Comparisons::Quadruplets(sample_quadruplets_bernoulli(sim, rate, eps, seed)?)
            } else {
                Comparisons::Triplets(sample_triplets_bernoulli(sim, rate, eps, seed)?)
            });
        }
    };
    Ok(if quadruplets {
        Comparisons::Quadruplets(sample_quadruplets(sim, m, eps, seed)?)
    } else {
        Comparisons::Triplets(sample_triplets(sim, m, eps, seed)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_is_n_ln_n_power_rounded_and_capped() {
        // 100 · (ln 100)^2 = 2120.7…
        assert_eq!(comparison_budget(100, 2.0, false), 2121);
        // 10 (ln 10)^5 = 647.3: more than the 10 · C(9, 2) = 360 distinct triplets, fewer than
        // the C(45, 2) = 990 distinct quadruplets.
        assert_eq!(comparison_budget(10, 5.0, false), 360);
        assert_eq!(comparison_budget(10, 5.0, true), 647);
        // n = 1: ln 1 = 0, still one comparison asked for (capped at the 0 that exist).
        assert_eq!(comparison_budget(1, 3.0, false), 0);
    }
}
