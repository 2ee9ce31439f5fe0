//! Alg. 6 (Huleihel et al. 2019, §3.2, Thm. 2; `docs/OVERLAP.md`): triangle counting for the uniform ensemble under
//! noisy quantized answers — BSC(q) with q known, Alg. 14 (Thm. 4; `docs/OVERLAP.md`) when q is
//! unknown, and the single-query dithered oracle (`docs/OVERLAP.md`) through the generic law g.
//!
//! Phase 1 – infer the gram matrix of S:
//! 1. Sample S (|S| = m) and ask all pairs: Y (m × m).
//! 2. T_ij = Σ_{l∈S∖{i,j}} Y_il·Y_jl ("triangles").
//! 3. MAP over s ∈ {0..Δ}: ŝ_ij = argmax log h(s) + log Binom(T_ij; m−2, π(s)) + log P(Y_ij | s),
//!    π from `docs/OVERLAP.md` The note offers this MAP rule and a midpoint-threshold rule; we use the
//!    MAP rule, the one it states first (it also covers the dithered law).
//!
//! Phase 2 – factor Ĝ: a core of S (the first c rows; c ≈ 3(k/Δ)(ln k + 3)) is factored exactly
//! by Alg. 4 / the backtracking fallback ([`factor_gram`]); a core whose Ĝ has an error does not
//! factor, and the next block of S is tried. Every other row of S is the weight-Δ vector whose
//! overlaps with the core rows best match Ĝ (fewest absolute differences). This replaces the
//! note's "robust peeling with tol ≈ 0.05" by an exact core plus a least-mismatch extension
//! (our choice; it needs no tolerance).
//!
//! Phase 3 – extend by votes (note step 5a, the recommended variant): P = m0 members of each
//! cluster of S; every u ∉ S is asked against P and joins the Δ clusters with the largest
//! yes-fractions (top-Δ: needs no q).
//!
//! Unknown q (Alg. 14): q̂ from the yes rate of S (moment estimator, triangle-moment fallback
//! when p0 ≈ 1/2). With `SampleSize::Auto` a pilot S is asked first, q̂ is estimated, and S is
//! enlarged to the Bernstein size for q̂.
//!
//! Model check (real data): Alg. 6 assumes the uniform ensemble (every item in Δ of the k
//! clusters). On real categories (items in 1..Δ clusters, clusters of very different sizes)
//! it cannot succeed, so before the items outside S are asked, [`ensemble_fit`] tests the
//! answers on S against it: every item's yes count within S is Binomial(m − 1, p) with one p
//! (so their spread is binomial), and with a known noise law the yes count of S has mean
//! C(m,2)·p. A clear misfit stops the run with [`StopReason::EnsembleMismatch`]. With
//! `SampleSize::Auto` the test runs on a pilot S of `pilot_size` items first (then S is
//! enlarged to the rule size, keeping the pilot's answers), so a misfit costs C(pilot, 2)
//! queries, not every pair.
//!
//! Queries: C(m,2) + (n − m)·|P|.

use crate::active::{Step, StepMachine};

use super::Membership;
use super::factor::{DEFAULT_NODE_LIMIT, FactorFailure, FactorMethod, factor_gram, greedy_basis};
use super::response::Pair;
use super::result::{OverlapError, OverlapEstimate, SampleSize, StopReason, check_k_delta};
use super::sample::{ProbeAnswers, Sample};
use super::stats::{ResponseLaw, UniformStats, binom};

/// The answer model Alg. 6 assumes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Noise {
    /// Quantized answers through BSC(q); `q: None` estimates q (Alg. 14).
    Bsc {
        /// The flip probability, if known.
        q: Option<f64>,
    },
    /// Dithered answers 1[s + N(0, σ²) ≥ θ], one query per pair.
    Dither {
        /// σ.
        sigma: f64,
        /// θ.
        theta: f64,
    },
}

/// Parameters of Alg. 6 / 14.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleCountParams {
    /// Number of clusters k (≤ 64).
    pub k: usize,
    /// Clusters per item Δ.
    pub delta: usize,
    /// The answer model.
    pub noise: Noise,
    /// |S|. `Auto`: the Bernstein rule of `docs/OVERLAP.md`ith failure probability `fail_prob`
    /// (for unknown q: a pilot of `pilot_size`, then the rule at q̂); capped at n.
    pub sample_size: SampleSize,
    /// m0, members per cluster in the probe set P. `Auto`: Hoeffding, `docs/OVERLAP.md`
    pub probes_per_cluster: SampleSize,
    /// δ of the sample-size rules.
    pub fail_prob: f64,
    /// Pilot |S| for Alg. 14 with `Auto` sample size.
    pub pilot_size: usize,
    /// Factorisation of the core.
    pub factor: FactorMethod,
    /// Node limit of the backtracking factorisation.
    pub node_limit: usize,
    /// Seed of the sample.
    pub seed: u64,
}

impl TriangleCountParams {
    /// Defaults for k, Δ and a noise model.
    pub fn new(k: usize, delta: usize, noise: Noise) -> Self {
        TriangleCountParams {
            k,
            delta,
            noise,
            sample_size: SampleSize::Auto,
            probes_per_cluster: SampleSize::Auto,
            fail_prob: 0.01,
            pilot_size: 300,
            factor: FactorMethod::Auto,
            node_limit: DEFAULT_NODE_LIMIT,
            seed: 0,
        }
    }

    fn stats(&self) -> UniformStats {
        UniformStats {
            k: self.k,
            delta: self.delta,
        }
    }

    /// The sample size `Auto` picks for a known law, capped at n (`None`: levels inseparable).
    pub fn rule_sample_size(&self, law: ResponseLaw, n: usize) -> Option<usize> {
        self.stats()
            .triangle_sample_size(law, self.fail_prob)
            .map(|m| m.min(n))
    }

    /// Validate and build the step machine for `n` items.
    pub fn build(&self, n: usize) -> Result<TriangleCount, OverlapError> {
        check_k_delta(self.k, Some(self.delta))?;
        if n < 3 {
            return Err(OverlapError::TooFewItems(n));
        }
        if !(self.fail_prob > 0.0 && self.fail_prob < 1.0) {
            return Err(OverlapError::BadFailProb(self.fail_prob));
        }
        match self.noise {
            Noise::Bsc { q: Some(q) } if !(0.0..0.5).contains(&q) => {
                return Err(OverlapError::BadFlipProb(q));
            }
            Noise::Dither { sigma, .. } if !(sigma > 0.0 && sigma.is_finite()) => {
                return Err(OverlapError::BadSigma(sigma));
            }
            _ => {}
        }
        let known = self.known_law();
        // With a known law and `Auto`, a pilot first when the rule asks for more: the model
        // check runs on it, then S grows to `target`.
        let (m, target) = match (self.sample_size, known) {
            (SampleSize::Fixed(m), _) => (m.min(n), None),
            (SampleSize::Auto, Some(law)) => {
                let rule = self
                    .rule_sample_size(law, n)
                    .unwrap_or(n.min(self.pilot_size));
                let pilot = self.pilot_size.min(n);
                if rule > pilot {
                    (pilot, Some(rule))
                } else {
                    (rule, None)
                }
            }
            (SampleSize::Auto, None) => (self.pilot_size.min(n), None),
        };
        Ok(TriangleCount {
            p: *self,
            law: known,
            run: TriangleRun::new(n, m.max(3), self.seed),
            target,
        })
    }

    fn known_law(&self) -> Option<ResponseLaw> {
        match self.noise {
            Noise::Bsc { q: Some(q) } => Some(ResponseLaw::Bsc { q }),
            Noise::Bsc { q: None } => None,
            Noise::Dither { sigma, theta } => Some(ResponseLaw::Dither { sigma, theta }),
        }
    }
}

/// T = Y·Y with a zero diagonal (row-major m × m), via bitsets: T_ij = Σ_{l≠i,j} Y_il Y_jl
/// (Y has a zero diagonal).
pub fn triangle_counts(y: &[Vec<bool>]) -> Vec<u32> {
    let m = y.len();
    let words = m.div_ceil(64);
    let bits: Vec<Vec<u64>> = y
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut b = vec![0u64; words];
            for (j, &v) in row.iter().enumerate() {
                if v && j != i {
                    b[j >> 6] |= 1 << (j & 63);
                }
            }
            b
        })
        .collect();
    let mut t = vec![0u32; m * m];
    for i in 0..m {
        for j in i + 1..m {
            let c: u32 = bits[i]
                .iter()
                .zip(&bits[j])
                .map(|(a, b)| (a & b).count_ones())
                .sum();
            t[i * m + j] = c;
            t[j * m + i] = c;
        }
    }
    t
}

/// Reference for [`triangle_counts`], straight from the definition.
pub fn triangle_counts_naive(y: &[Vec<bool>]) -> Vec<u32> {
    let m = y.len();
    let mut t = vec![0u32; m * m];
    for i in 0..m {
        for j in 0..m {
            if i != j {
                t[i * m + j] = (0..m)
                    .filter(|&l| l != i && l != j && y[i][l] && y[j][l])
                    .count() as u32;
            }
        }
    }
    t
}

/// MAP estimate of the inner products of S (Alg. 6 step 3) from answers `y` and triangle
/// counts `t`; the diagonal is Δ.
pub fn map_gram(stats: UniformStats, law: ResponseLaw, y: &[Vec<bool>], t: &[u32]) -> Vec<u32> {
    let m = y.len();
    let d = stats.delta;
    let levels: Vec<(usize, f64, f64, f64, f64, f64)> = (0..=d)
        .filter(|&s| stats.h(s) > 0.0)
        .map(|s| {
            let pi = stats.pi(s, law).clamp(1e-12, 1.0 - 1e-12);
            let g = law.g(s).clamp(1e-12, 1.0 - 1e-12);
            (
                s,
                stats.h(s).ln(),
                pi.ln(),
                (1.0 - pi).ln(),
                g.ln(),
                (1.0 - g).ln(),
            )
        })
        .collect();
    let mut g = vec![0u32; m * m];
    for i in 0..m {
        g[i * m + i] = d as u32;
        for j in i + 1..m {
            let tij = t[i * m + j] as f64;
            let rest = (m - 2) as f64 - tij;
            let yij = y[i][j];
            let best = levels
                .iter()
                .map(|&(s, lh, lp, lq, lg, lng)| {
                    (s, lh + tij * lp + rest * lq + if yij { lg } else { lng })
                })
                .fold(
                    (0usize, f64::NEG_INFINITY),
                    |a, b| if b.1 > a.1 { b } else { a },
                )
                .0 as u32;
            g[i * m + j] = best;
            g[j * m + i] = best;
        }
    }
    g
}

/// Stage of the triangle-counting step machines (Alg. 6/14 here, Alg. 9 in `triangle_iid`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stage {
    Sample,
    Infer,
    Extend,
    Done,
}

/// The state Alg. 6/14 and Alg. 9 share: the sample S and its answers, the stage of the query
/// schedule, the factored rows of S, the probe items P and their answers, a failure, and the
/// query count. The MAP statistics and the final vote stay with each algorithm.
#[derive(Debug, Clone)]
pub(crate) struct TriangleRun {
    pub(crate) sample: Sample,
    pub(crate) stage: Stage,
    /// Whether S was already enlarged to the rule size for an estimated parameter.
    pub(crate) regrown: bool,
    /// Rows of S (cluster masks), once factored.
    pub(crate) rows_s: Vec<u64>,
    pub(crate) probe_items: Vec<usize>,
    pub(crate) ext: ProbeAnswers,
    pub(crate) failure: Option<StopReason>,
    pub(crate) factor_used: Option<FactorMethod>,
    pub(crate) queries: usize,
}

impl TriangleRun {
    /// A run on `n` items with a sample of `m` drawn with `seed`.
    pub(crate) fn new(n: usize, m: usize, seed: u64) -> Self {
        TriangleRun {
            sample: Sample::new(n, m, seed),
            stage: Stage::Sample,
            regrown: false,
            rows_s: Vec::new(),
            probe_items: Vec::new(),
            ext: ProbeAnswers::default(),
            failure: None,
            factor_used: None,
            queries: 0,
        }
    }

    /// Y: the answers on S as a boolean matrix (answer ≥ 1 = same cluster; diagonal false).
    pub(crate) fn answers(&self) -> Vec<Vec<bool>> {
        let m = self.sample.m;
        (0..m)
            .map(|a| {
                (0..m)
                    .map(|b| a != b && self.sample.get(a, b) >= 1)
                    .collect()
            })
            .collect()
    }

    /// P: the first `m0` members of every one of the `k` clusters of S, in sample order.
    pub(crate) fn choose_probes(&mut self, k: usize, m0: usize) {
        let m = self.sample.m;
        let mut items = Vec::new();
        for c in 0..k {
            items.extend((0..m).filter(|&x| self.rows_s[x] >> c & 1 == 1).take(m0));
        }
        items.sort_unstable();
        items.dedup();
        self.probe_items = items;
    }

    /// Records one answer: into S while inferring, into the probe table afterwards.
    pub(crate) fn observe(&mut self, q: &Pair, answer: u32) {
        self.queries += 1;
        if self.stage == Stage::Infer {
            self.sample.set(*q, answer);
        } else {
            self.ext.record(&self.sample, q, answer);
        }
    }

    /// The rows of all n items with those of S filled in, and the unresolved items (all of
    /// them when inference failed, none otherwise).
    pub(crate) fn rows_of_sample(&self) -> (Vec<u64>, Vec<u32>) {
        let n = self.sample.n();
        let mut rows = vec![0u64; n];
        if self.failure.is_some() {
            return (rows, (0..n as u32).collect());
        }
        for x in 0..self.sample.m {
            rows[self.sample.perm[x] as usize] = self.rows_s[x];
        }
        (rows, Vec::new())
    }

    /// The items outside S with their index in the probe-answer table.
    pub(crate) fn outside(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let m = self.sample.m;
        self.sample.perm[m..]
            .iter()
            .enumerate()
            .map(|(idx, &u)| (idx, u as usize))
    }

    /// The estimate with the given rows and stop reason.
    pub(crate) fn estimate(
        self,
        k: usize,
        rows: &[u64],
        unresolved: Vec<u32>,
        stop: StopReason,
        q_used: Option<f64>,
        p_used: Option<f64>,
    ) -> OverlapEstimate {
        OverlapEstimate {
            membership: Membership::from_masks(k, rows),
            queries: self.queries,
            sample: self.sample.perm[..self.sample.m].to_vec(),
            stop,
            unresolved,
            factor_method: self.factor_used,
            q_used,
            p_used,
            probes: self.probe_items.len(),
            failed_samples: Vec::new(),
        }
    }
}

/// The query schedule shared by Alg. 6/14 and Alg. 9: ask the sample's unanswered pairs, infer
/// (which may enlarge the sample and ask again), then, unless inference failed, ask every item
/// outside S against the probe items.
pub(crate) trait TriangleSchedule {
    /// The shared state.
    fn run_mut(&mut self) -> &mut TriangleRun;
    /// Inference on the answered sample; `false` when it enlarged the sample.
    fn run_inference(&mut self) -> bool;

    /// `StepMachine::next_queries` of the schedule above.
    fn schedule(&mut self) -> Step<Pair> {
        loop {
            match self.run_mut().stage {
                Stage::Sample => {
                    let run = self.run_mut();
                    run.stage = Stage::Infer;
                    let q = run.sample.pending_pairs(false);
                    if !q.is_empty() {
                        return Step::Ask(q);
                    }
                }
                Stage::Infer => {
                    if !self.run_inference() {
                        self.run_mut().stage = Stage::Sample;
                        continue;
                    }
                    let run = self.run_mut();
                    run.stage = Stage::Extend;
                    if run.failure.is_some() {
                        continue;
                    }
                    let (ext, queries) =
                        ProbeAnswers::ask(&run.sample, run.probe_items.iter().copied());
                    run.ext = ext;
                    if !queries.is_empty() {
                        return Step::Ask(queries);
                    }
                }
                Stage::Extend => self.run_mut().stage = Stage::Done,
                Stage::Done => return Step::Done,
            }
        }
    }
}

/// The Alg. 6 / 14 step machine (see the module docs).
#[derive(Debug, Clone)]
pub struct TriangleCount {
    p: TriangleCountParams,
    law: Option<ResponseLaw>,
    run: TriangleRun,
    /// The rule's |S| when S is a pilot of it (known law, `Auto`).
    target: Option<usize>,
}

impl TriangleCount {
    /// Phase 1 + 2. Returns false when S was enlarged (ask more first).
    fn infer(&mut self) -> bool {
        let m = self.run.sample.m;
        let stats = self.p.stats();
        let y = self.run.answers();
        let t = triangle_counts(&y);
        let known = self.p.known_law().is_some();
        if self.law.is_none() {
            let pairs = (m * (m - 1) / 2) as f64;
            let yes: usize = (0..m)
                .map(|a| (a + 1..m).filter(|&b| y[a][b]).count())
                .sum();
            let tri: f64 = (0..m)
                .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
                .map(|(a, b)| t[a * m + b] as f64)
                .sum();
            let q = stats.estimate_q(yes as f64 / pairs, tri / pairs / (m - 2) as f64);
            self.law = Some(ResponseLaw::Bsc { q });
        }
        let law = self.law.expect("law set");
        // The model check runs on the first (pilot) sample, before S is enlarged.
        if !self.run.regrown
            && let Some(misfit) = ensemble_fit(stats, law, known, &y, self.p.seed)
        {
            self.run.failure = Some(misfit);
            return true;
        }
        if let Some(target) = self.target.take()
            && target > m
        {
            self.run.regrown = true;
            self.run.sample.grow(target);
            return false;
        }
        if !known && self.p.sample_size == SampleSize::Auto && !self.run.regrown {
            self.run.regrown = true;
            if let Some(target) = self.p.rule_sample_size(law, self.run.sample.n())
                && target > m
            {
                self.run.sample.grow(target);
                self.law = None; // re-estimate on the full sample
                return false;
            }
        }
        self.run.regrown = true;
        let law = self.law.expect("law set");
        let ghat = map_gram(stats, law, &y, &t);
        match self.factor_sample(&ghat) {
            Ok(()) => {}
            Err(cause) => {
                self.run.failure = Some(StopReason::FactorizationFailed { cause });
                return true;
            }
        }
        // probes: m0 members of every cluster, in sample order
        let m0 = match self.p.probes_per_cluster {
            SampleSize::Fixed(x) => x,
            SampleSize::Auto => stats
                .vote_probe_size(self.run.sample.n(), law, self.p.fail_prob)
                .unwrap_or(m),
        };
        self.run.choose_probes(self.p.k, m0);
        true
    }

    fn factor_sample(&mut self, ghat: &[u32]) -> Result<(), FactorFailure> {
        let (m, k, d) = (self.run.sample.m, self.p.k, self.p.delta);
        let c = ((3.0 * k as f64 / d as f64 * ((k as f64).ln() + 3.0)).ceil() as usize)
            .max(30)
            .min(m);
        let (rows, used) = factor_core_extend(
            ghat,
            m,
            k,
            c,
            self.p.factor,
            self.p.node_limit,
            self.p.seed,
            8,
            |_| d..=d,
            |_| true,
        )?;
        self.run.factor_used = Some(used);
        self.run.rows_s = rows;
        Ok(())
    }
}

/// Smallest |S| the model check of [`ensemble_fit`] runs on (below it the spread of the yes
/// counts says little).
pub const FIT_MIN_SAMPLE: usize = 30;

/// The model check looks at the first this-many items of S (a random subset of the items).
pub const FIT_MAX_SAMPLE: usize = 300;

/// Samples simulated from the uniform ensemble to calibrate the spread test.
pub const FIT_REPLICATES: usize = 40;

/// How many standard deviations from the model's value count as a misfit in [`ensemble_fit`].
pub const FIT_Z: f64 = 8.0;

/// The yes rate the uniform ensemble gives under `law`: Σ_s h(s)·g(s) (`docs/OVERLAP.md` §2.1).
pub fn model_yes_rate(stats: UniformStats, law: ResponseLaw) -> f64 {
    (0..=stats.delta).map(|s| stats.h(s) * law.g(s)).sum()
}

/// Yes rate and dispersion of answers `y` (m × m, zero diagonal): the variance of the items'
/// yes counts d_i over the Binomial(m − 1, p̂) variance (1 for a binomial spread).
pub fn yes_count_dispersion(y: &[Vec<bool>]) -> (f64, f64) {
    let m = y.len();
    let degrees: Vec<f64> = y
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .filter(|&(j, &v)| v && j != i)
                .count() as f64
        })
        .collect();
    let total: f64 = degrees.iter().sum();
    let rate = total / (m * (m - 1)) as f64;
    let mean = total / m as f64;
    let spread = degrees.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / m as f64;
    let binomial = (m - 1) as f64 * rate * (1.0 - rate);
    let dispersion = if binomial > 0.0 {
        spread / binomial
    } else {
        1.0
    };
    (rate, dispersion)
}

/// Answers of m items drawn from the uniform ensemble (each row a uniform Δ-subset of the k
/// clusters) through `law`: the m × m answer matrix Y of Alg. 6 step 1 (zero diagonal).
pub fn simulate_uniform_answers(
    stats: UniformStats,
    law: ResponseLaw,
    m: usize,
    seed: u64,
) -> Vec<Vec<bool>> {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let (k, d) = (stats.k, stats.delta);
    let rows: Vec<u64> = (0..m)
        .map(|_| {
            let mut c: Vec<usize> = (0..k).collect();
            for i in 0..d {
                let j = rng.random_range(i..k);
                c.swap(i, j);
            }
            c[..d].iter().fold(0u64, |acc, &x| acc | 1 << x)
        })
        .collect();
    let g: Vec<f64> = (0..=d).map(|s| law.g(s)).collect();
    let mut y = vec![vec![false; m]; m];
    for a in 0..m {
        for b in a + 1..m {
            let s = (rows[a] & rows[b]).count_ones() as usize;
            let v = rng.random::<f64>() < g[s];
            y[a][b] = v;
            y[b][a] = v;
        }
    }
    y
}

/// The model check of Alg. 6 (module docs) on the answers `y` of S (m × m, zero diagonal):
/// `None` when they fit the uniform ensemble with `law`, else
/// [`StopReason::EnsembleMismatch`]. It looks at the first [`FIT_MAX_SAMPLE`] items.
///
/// * Mean (when `law_known`; with q estimated from the yes rate it fits by construction):
///   under the uniform ensemble the answers to distinct pairs are pairwise independent (given
///   row i, every other row is an independent uniform Δ-subset, and P(yes | row i) is the
///   same p for every row), so the yes count of S has mean C(m,2)·p and variance
///   C(m,2)·p(1 − p); refused beyond [`FIT_Z`] standard deviations.
/// * Spread: every item's yes count is Binomial(m − 1, p) with the same p, so their dispersion
///   is about 1; but items with the same row answer alike, so its spread within one sample
///   depends on k and Δ. It is calibrated by [`FIT_REPLICATES`] samples simulated from the
///   model (seeded by `seed`), and refused beyond their mean plus [`FIT_Z`] of their standard
///   deviations. Real categories (clusters of very different sizes, items in 1..Δ clusters)
///   give dispersions of tens.
pub fn ensemble_fit(
    stats: UniformStats,
    law: ResponseLaw,
    law_known: bool,
    y: &[Vec<bool>],
    seed: u64,
) -> Option<StopReason> {
    let m = y.len().min(FIT_MAX_SAMPLE);
    if m < FIT_MIN_SAMPLE {
        return None;
    }
    let y: Vec<Vec<bool>> = y[..m].iter().map(|r| r[..m].to_vec()).collect();
    let (rate, dispersion) = yes_count_dispersion(&y);
    let expected = law_known.then(|| model_yes_rate(stats, law));
    let pairs = (m * (m - 1) / 2) as f64;
    let mean_off = expected.is_some_and(|p| {
        let sd = (pairs * p * (1.0 - p)).sqrt().max(0.5);
        (rate - p).abs() * pairs > FIT_Z * sd
    });
    let sims: Vec<f64> = (0..FIT_REPLICATES as u64)
        .map(|r| {
            let s = crate::math::rng::mix64(seed ^ 0x6669_7400 ^ r);
            yes_count_dispersion(&simulate_uniform_answers(stats, law, m, s)).1
        })
        .collect();
    let mu = sims.iter().sum::<f64>() / sims.len() as f64;
    let sd = (sims.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (sims.len() - 1) as f64).sqrt();
    let spread_off = dispersion > mu + FIT_Z * sd.max(0.01);
    (spread_off || mean_off).then_some(StopReason::EnsembleMismatch {
        sample: m,
        yes_rate: rate,
        expected_yes_rate: expected,
        dispersion,
    })
}

/// Phase 2 of Alg. 6 and Alg. 9: factor an estimated gram matrix Ĝ (m × m, diagonal = the row
/// weights) of S. A core of `core` consecutive rows is factored exactly ([`factor_gram`]) and
/// must have rank k; a core whose Ĝ has an error usually does not factor, and the next block
/// of S is tried (at most `attempts`). Every other row x of S is the mask, among those with a
/// weight in `weights(x)`, minimising Σ_t |B_x·B_t − Ĝ_xt| over the core rows t plus
/// |weight − Ĝ_xx| (ties: the smaller mask). The extended rows are then handed to `accept`,
/// which may refine them and may reject them (then the next block is tried). This is our
/// robust replacement of the note's "Alg. 4/5 with tol ≈ 0.05": an exact core plus a
/// least-mismatch extension.
#[allow(clippy::too_many_arguments)]
pub(crate) fn factor_core_extend(
    ghat: &[u32],
    m: usize,
    k: usize,
    core: usize,
    factor: FactorMethod,
    node_limit: usize,
    seed: u64,
    attempts: usize,
    weights: impl Fn(usize) -> std::ops::RangeInclusive<usize>,
    mut accept: impl FnMut(&mut Vec<u64>) -> bool,
) -> Result<(Vec<u64>, FactorMethod), FactorFailure> {
    let c = core.min(m);
    let mut last = FactorFailure::Inconsistent;
    for attempt in 0..attempts {
        let start = attempt * c;
        if c == 0 || start + c > m {
            break;
        }
        let idx: Vec<usize> = (start..start + c).collect();
        let sub: Vec<u32> = idx
            .iter()
            .flat_map(|&a| idx.iter().map(move |&b| ghat[a * m + b]))
            .collect();
        match factor_gram(&sub, c, k, factor, node_limit, seed ^ attempt as u64) {
            Ok((core_rows, used)) if greedy_basis(&core_rows, k).len() == k => {
                let mut rows = extend_core(ghat, m, k, &idx, &core_rows, &weights)?;
                if accept(&mut rows) {
                    return Ok((rows, used));
                }
                last = FactorFailure::Inconsistent;
            }
            Ok(_) => last = FactorFailure::Inconsistent,
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The least-mismatch extension of [`factor_core_extend`].
fn extend_core(
    ghat: &[u32],
    m: usize,
    k: usize,
    idx: &[usize],
    core_rows: &[u64],
    weights: &impl Fn(usize) -> std::ops::RangeInclusive<usize>,
) -> Result<Vec<u64>, FactorFailure> {
    let mut by_weight: Vec<Option<Vec<u64>>> = vec![None; k + 1];
    let mut rows = vec![0u64; m];
    for (t, &x) in idx.iter().enumerate() {
        rows[x] = core_rows[t];
    }
    for (x, row) in rows.iter_mut().enumerate() {
        if idx.contains(&x) {
            continue;
        }
        let target: Vec<u32> = idx.iter().map(|&t| ghat[x * m + t]).collect();
        let diag = ghat[x * m + x];
        let mut best: Option<(u32, u64)> = None;
        for w in weights(x) {
            if w > k {
                continue;
            }
            if by_weight[w].is_none() {
                if binom(k as i64, w as i64) > 200_000.0 {
                    return Err(FactorFailure::NodeLimit);
                }
                by_weight[w] = Some(weight_masks(k, w));
            }
            for &cand in by_weight[w].as_ref().expect("filled") {
                let cost: u32 = core_rows
                    .iter()
                    .zip(&target)
                    .map(|(&b, &g)| (cand & b).count_ones().abs_diff(g))
                    .sum::<u32>()
                    + (w as u32).abs_diff(diag);
                if best.is_none_or(|b| (cost, cand) < b) {
                    best = Some((cost, cand));
                }
            }
        }
        *row = best.ok_or(FactorFailure::Inconsistent)?.1;
    }
    Ok(rows)
}

/// Alg. 6/9 step 5a: the yes-fraction f_c of one outside item over the probes that belong to
/// cluster c (−1 for a cluster without probes), from its answers `ans` (one per probe, in the
/// order of `probes`, sample positions whose rows are `rows_s`).
pub(crate) fn vote_fractions(rows_s: &[u64], probes: &[usize], ans: &[u32], k: usize) -> Vec<f64> {
    (0..k)
        .map(|c| {
            let (mut yes, mut tot) = (0usize, 0usize);
            for (slot, &x) in probes.iter().enumerate() {
                if rows_s[x] >> c & 1 == 1 {
                    tot += 1;
                    yes += (ans[slot] >= 1) as usize;
                }
            }
            if tot == 0 {
                -1.0
            } else {
                yes as f64 / tot as f64
            }
        })
        .collect()
}

/// All k-bit masks of weight w, in increasing order.
pub(crate) fn weight_masks(k: usize, w: usize) -> Vec<u64> {
    let mut out = Vec::new();
    fn rec(start: usize, k: usize, left: usize, acc: u64, out: &mut Vec<u64>) {
        if left == 0 {
            out.push(acc);
            return;
        }
        for c in start..=k - left {
            rec(c + 1, k, left - 1, acc | 1 << c, out);
        }
    }
    rec(0, k, w, 0, &mut out);
    out
}

impl TriangleSchedule for TriangleCount {
    fn run_mut(&mut self) -> &mut TriangleRun {
        &mut self.run
    }
    fn run_inference(&mut self) -> bool {
        self.infer()
    }
}

impl StepMachine for TriangleCount {
    type Query = Pair;
    type Answer = u32;
    type Output = OverlapEstimate;

    fn next_queries(&mut self) -> Step<Pair> {
        self.schedule()
    }

    fn observe(&mut self, q: &Pair, answer: u32) {
        self.run.observe(q, answer);
    }

    /// Phase 3: every item outside S joins the Δ clusters with the largest yes-fractions.
    fn finish(self) -> OverlapEstimate {
        let (k, d) = (self.p.k, self.p.delta);
        let run = self.run;
        let (mut rows, unresolved) = run.rows_of_sample();
        if run.failure.is_none() {
            for (idx, u) in run.outside() {
                let f = vote_fractions(&run.rows_s, &run.ext.probes, run.ext.row(idx), k);
                let mut f: Vec<(f64, usize)> = f.into_iter().zip(0..k).collect();
                f.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                rows[u] = f[..d].iter().fold(0u64, |acc, &(_, c)| acc | 1 << c);
            }
        }
        let stop = if let Some(f) = run.failure {
            f
        } else if k + 1 < 3 * d {
            StopReason::LevelsInseparable
        } else if 2 * d == k {
            StopReason::ComplementAmbiguity
        } else {
            StopReason::Completed
        };
        let q_used = match self.law {
            Some(ResponseLaw::Bsc { q }) => Some(q),
            _ => None,
        };
        run.estimate(k, &rows, unresolved, stop, q_used, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bitset_triangles_equal_naive(
            (m, bits) in (2usize..70).prop_flat_map(|m| (Just(m), proptest::collection::vec(any::<bool>(), m * m)))
        ) {
            let mut y = vec![vec![false; m]; m];
            for i in 0..m { for j in i + 1..m { y[i][j] = bits[i * m + j]; y[j][i] = bits[i * m + j]; } }
            let fast = triangle_counts(&y);
            let naive = triangle_counts_naive(&y);
            for i in 0..m { for j in 0..m { if i != j { prop_assert_eq!(fast[i * m + j], naive[i * m + j]); } } }
        }
    }

    #[test]
    fn weight_masks_enumerates_binomial_many() {
        let w = weight_masks(6, 2);
        assert_eq!(w.len(), 15);
        assert!(w.iter().all(|x| x.count_ones() == 2));
    }
}
