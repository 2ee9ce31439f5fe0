//! Alg. 2 FindSimilarity (Huleihel et al. 2019, §3.1, Thm. 1): overlapping clusters from direct answers
//! A_iᵀA_j, with Alg. 4/5 (`docs/OVERLAP.md`) to factor the sample's gram matrix.
//!
//! 1. Sample S (|S| = m) and ask all pairs in S: G = A_S A_Sᵀ off the diagonal. The diagonal is
//!    Δ for the uniform ensemble (not asked) or the self-queries O(i,i) otherwise (m more).
//! 2. Factor G = B Bᵀ with B binary ([`factor_gram`]); if that fails or B has rank < k, draw a
//!    fresh S of the same size (at most `max_resamples` times per size: on real data Huleihel et al. 2019, §4
//!    "sample again until we succeed" in getting a full-rank gram matrix), then enlarge S
//!    (doubling, at most `max_growth` times; `docs/OVERLAP.md` "on failure enlarge S and retry"). Every
//!    sample given up is reported in [`OverlapEstimate::failed_samples`].
//! 3. T ⊆ S: k rows of B forming a basis of ℝ^k (greedy rank test).
//! 4. Every u ∉ S is asked against T (k queries) and A_u solves B_T A_u = (O(u,t))_{t∈T}.
//!
//! Queries: C(m,2) [+ m] + k(n − m), the count of Thm. 1.

use crate::active::{Step, StepMachine};

use super::Membership;
use super::factor::{BasisSolver, DEFAULT_NODE_LIMIT, FactorMethod, factor_gram, greedy_basis};
use super::response::Pair;
use super::result::{
    OverlapError, OverlapEstimate, SampleAttempt, SampleSize, StopReason, check_k_delta,
};
use super::sample::{ProbeAnswers, Sample};
use super::stats::binom;

/// Default [`FindSimilarityParams::max_resamples`].
pub const DEFAULT_MAX_RESAMPLES: usize = 20;

/// Parameters of Alg. 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindSimilarityParams {
    /// Number of clusters k (≤ 64).
    pub k: usize,
    /// Clusters per item Δ for the uniform ensemble (diagonal known, not asked); `None` asks
    /// the m self-queries O(i,i) instead (i.i.d. / worst case).
    pub delta: Option<usize>,
    /// |S|. `Auto`: Thm. 1's S_uniform = C(k,Δ)/C(k−Δ,Δ−1)·(1 + ln k + ln n) (c₁ = c₂ = 1;
    /// with Δ unknown the Δ = 1 value k·(1 + ln k + ln n)), capped at n.
    pub sample_size: SampleSize,
    /// Factorisation of G (default [`FactorMethod::Auto`]).
    pub factor: FactorMethod,
    /// Node limit of the backtracking factorisation.
    pub node_limit: usize,
    /// How many fresh samples of the same size may replace one whose G cannot be factored or
    /// has rank < k, before S is enlarged (Huleihel et al. 2019, §4 resamples until the gram matrix has full
    /// rank).
    pub max_resamples: usize,
    /// How many times S may be doubled when no sample of its size could be used.
    pub max_growth: usize,
    /// Seed of the sample.
    pub seed: u64,
}

impl FindSimilarityParams {
    /// Defaults for k clusters and Δ per item (uniform ensemble).
    pub fn uniform(k: usize, delta: usize) -> Self {
        FindSimilarityParams {
            k,
            delta: Some(delta),
            sample_size: SampleSize::Auto,
            factor: FactorMethod::Auto,
            node_limit: DEFAULT_NODE_LIMIT,
            max_resamples: DEFAULT_MAX_RESAMPLES,
            max_growth: 3,
            seed: 0,
        }
    }

    /// Thm. 1's sample size S_uniform for n items (c₁ = c₂ = 1), capped at n.
    pub fn auto_sample_size(&self, n: usize) -> usize {
        let d = self.delta.unwrap_or(1) as i64;
        let k = self.k as i64;
        let f = binom(k, d) / binom(k - d, d - 1).max(1.0);
        let m = f * (1.0 + (self.k as f64).ln() + (n as f64).ln());
        (m.ceil() as usize).clamp(2.min(n), n)
    }

    /// Validate and build the step machine for `n` items.
    pub fn build(&self, n: usize) -> Result<FindSimilarity, OverlapError> {
        check_k_delta(self.k, self.delta)?;
        if n < 2 {
            return Err(OverlapError::TooFewItems(n));
        }
        let m = match self.sample_size {
            SampleSize::Auto => self.auto_sample_size(n),
            SampleSize::Fixed(m) => m.min(n),
        };
        Ok(FindSimilarity {
            p: *self,
            sample: Sample::new(n, m, self.seed),
            selfq: vec![0; n],
            growth: 0,
            resamples: 0,
            failed_samples: Vec::new(),
            stage: Stage::Sample,
            rows_s: Vec::new(),
            basis: Vec::new(),
            solver: None,
            ext: ProbeAnswers::default(),
            failure: None,
            factor_used: None,
            queries: 0,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Sample,
    Factor,
    Extend,
    Done,
}

/// The Alg. 2 step machine (see the module docs).
#[derive(Debug, Clone)]
pub struct FindSimilarity {
    p: FindSimilarityParams,
    sample: Sample,
    selfq: Vec<u32>,
    growth: usize,
    /// Fresh samples drawn at the current size.
    resamples: usize,
    failed_samples: Vec<SampleAttempt>,
    stage: Stage,
    rows_s: Vec<u64>,
    basis: Vec<usize>,
    solver: Option<BasisSolver>,
    /// answers of items outside S against the basis T, in basis order
    ext: ProbeAnswers,
    failure: Option<StopReason>,
    factor_used: Option<FactorMethod>,
    queries: usize,
}

impl FindSimilarity {
    fn gram(&self) -> Vec<u32> {
        let m = self.sample.m;
        let mut g = vec![0u32; m * m];
        for x in 0..m {
            for y in 0..m {
                g[x * m + y] = if x == y {
                    match self.p.delta {
                        Some(d) => d as u32,
                        None => self.selfq[self.sample.perm[x] as usize],
                    }
                } else {
                    self.sample.get(x, y)
                };
            }
        }
        g
    }

    /// Factor S; Ok(()) when a rank-k factorisation was found.
    fn try_factor(&mut self) -> Result<(), StopReason> {
        let m = self.sample.m;
        let g = self.gram();
        let (rows, used) = factor_gram(
            &g,
            m,
            self.p.k,
            self.p.factor,
            self.p.node_limit,
            self.p.seed,
        )
        .map_err(|cause| StopReason::FactorizationFailed { cause })?;
        self.rows_s = rows;
        self.factor_used = Some(used);
        let basis = greedy_basis(&self.rows_s, self.p.k);
        if basis.len() < self.p.k {
            return Err(StopReason::RankDeficient { rank: basis.len() });
        }
        let b: Vec<u64> = basis.iter().map(|&x| self.rows_s[x]).collect();
        self.solver = BasisSolver::new(&b, self.p.k);
        self.basis = basis;
        Ok(())
    }
}

impl FindSimilarity {
    /// S could not be used: record it, then draw a fresh S of the same size (Huleihel et al. 2019, §4), or
    /// enlarge S once the resamples at this size are spent, or stop with `reason`. A sample
    /// that already holds every item is never redrawn.
    fn give_up_sample(&mut self, reason: StopReason) {
        let (m, n) = (self.sample.m, self.sample.n());
        self.failed_samples.push(SampleAttempt {
            size: m,
            queries: self.queries,
            reason,
        });
        if m < n && self.resamples < self.p.max_resamples {
            self.resamples += 1;
            let tries = self.failed_samples.len() as u64;
            self.sample = Sample::new(n, m, resample_seed(self.p.seed, tries));
            self.stage = Stage::Sample;
        } else if m < n && self.growth < self.p.max_growth {
            self.growth += 1;
            self.resamples = 0;
            self.sample.grow(2 * m);
            self.stage = Stage::Sample;
        } else {
            self.failed_samples.pop();
            self.failure = Some(reason);
            self.stage = Stage::Done;
        }
    }
}

/// Seed of the `tries`-th fresh sample: distinct from the first sample's and from each other.
fn resample_seed(seed: u64, tries: u64) -> u64 {
    crate::math::rng::mix64(seed ^ tries.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

impl StepMachine for FindSimilarity {
    type Query = Pair;
    type Answer = u32;
    type Output = OverlapEstimate;

    fn next_queries(&mut self) -> Step<Pair> {
        loop {
            match self.stage {
                Stage::Sample => {
                    self.stage = Stage::Factor;
                    let q = self.sample.pending_pairs(self.p.delta.is_none());
                    if !q.is_empty() {
                        return Step::Ask(q);
                    }
                }
                Stage::Factor => match self.try_factor() {
                    Ok(()) => {
                        self.stage = Stage::Extend;
                        let (ext, queries) =
                            ProbeAnswers::ask(&self.sample, self.basis.iter().copied());
                        self.ext = ext;
                        if !queries.is_empty() {
                            return Step::Ask(queries);
                        }
                    }
                    Err(reason) => self.give_up_sample(reason),
                },
                Stage::Extend => {
                    self.stage = Stage::Done;
                }
                Stage::Done => return Step::Done,
            }
        }
    }

    fn observe(&mut self, q: &Pair, answer: u32) {
        self.queries += 1;
        if q.a == q.b {
            self.selfq[q.a as usize] = answer;
        } else if self.stage == Stage::Factor {
            self.sample.set(*q, answer);
        } else {
            self.ext.record(&self.sample, q, answer);
        }
    }

    fn finish(self) -> OverlapEstimate {
        let n = self.sample.n();
        let (m, k) = (self.sample.m, self.p.k);
        let mut rows: Vec<u64> = vec![0; n];
        let mut unresolved = Vec::new();
        let sample = self.sample.perm[..m].to_vec();
        if self.failure.is_none() {
            for x in 0..m {
                rows[self.sample.perm[x] as usize] = self.rows_s[x];
            }
            if let Some(solver) = &self.solver {
                for (idx, &u) in self.sample.perm[m..].iter().enumerate() {
                    match solver.solve(self.ext.row(idx)) {
                        Some(x) if self.p.delta.is_none_or(|d| x.count_ones() as usize == d) => {
                            rows[u as usize] = x
                        }
                        _ => unresolved.push(u),
                    }
                }
            }
        } else {
            unresolved = (0..n as u32).collect();
        }
        let stop = if let Some(f) = self.failure {
            f
        } else if !unresolved.is_empty() {
            StopReason::Unresolved {
                count: unresolved.len(),
            }
        } else if self.p.delta.is_some_and(|d| 2 * d == k) {
            StopReason::ComplementAmbiguity
        } else {
            StopReason::Completed
        };
        OverlapEstimate {
            membership: Membership::from_masks(k, &rows),
            queries: self.queries,
            sample,
            stop,
            unresolved,
            factor_method: self.factor_used,
            q_used: None,
            p_used: None,
            probes: k,
            failed_samples: self.failed_samples,
        }
    }
}
