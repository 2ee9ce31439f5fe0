//! Alg. 9 (Huleihel et al. 2019, Appendix; `docs/OVERLAP.md`): triangle counting for the i.i.d. ensemble (every entry of
//! A is Bernoulli(p)) under quantized noisy answers through BSC(q), q known.
//!
//! Phase 1 – infer the gram matrix of S:
//! 1. Sample S (|S| = m) and ask all pairs: Y (m × m).
//! 2. l0-norms D_i = Σ_{l∈S} Y_il ~ Binom(m−1, q+(1−2q)(1−(1−p)^{w_i})) and the MAP weight
//!    ŵ_i = argmax_w log Binom(D_i; m−1, ·) + log Binom(w; k, p) ([`IidStats::map_weight`]).
//! 3. T_ij = Σ_{l∈S∖{i,j}} Y_il·Y_jl ([`triangle_counts`]) and, for every pair, the MAP
//!    overlap ŝ_ij = argmax_{s ≤ min(ŵ_i, ŵ_j)} log P(s | ŵ_i, ŵ_j) + log Binom(T_ij; m−2,
//!    π(ŵ_i, ŵ_j, s)) + log P(Y_ij | s), π from `docs/OVERLAP.md` ([`IidStats::map_overlap`]).
//!    Ĝ has diagonal ŵ.
//!
//! Phase 2 – factor Ĝ (note step 4, "Alg. 5"): an exact core plus a least-mismatch extension,
//! shared with Alg. 6 ([`super::triangle`]); each row x of S outside the core may take a weight
//! in ŵ_x − 1 ..= ŵ_x + 1 (the weights are estimates), the mismatch counting |weight − ŵ_x|.
//!
//! Then every row of S is re-decided by the same vote rule as phase 3, on the answers inside S
//! ([`vote_rows`]; our addition, no extra queries).
//!
//! Phase 3 – extend by thresholded votes (note step 5, which refers to Alg. 6 step 5a, the
//! variant the note recommends): P = m0 members of each cluster of S; every u ∉ S is asked
//! against P; its weight ŵ_u is the MAP weight from its answers on P
//! ([`IidStats::map_weight_on_probes`]) and u joins cluster c iff its yes-fraction f_c on the
//! members of c in P is at least (1 + (1−2q)ρ_u)/2, ρ_u = 1 − (1−p)^{ŵ_u}.
//!
//! p may be unknown: then p̂ inverts the yes rate of S ([`IidStats::estimate_p`]); with
//! `SampleSize::Auto` a pilot S is asked first and S is enlarged to the rule size at p̂.
//! q must be known (the note's two-moment estimator of (p, q) is not implemented).
//!
//! Identifiability: for p ∈ (0, 1) and q < 1/2 all levels π(w_i, w_j, s) differ, so there is no
//! k < 3Δ − 1 style limit; with p ∈ {0, 1} the answers carry no information and the run stops
//! with [`StopReason::LevelsInseparable`].
//!
//! Queries: C(m,2) + (n − m)·|P|.

use crate::active::{Step, StepMachine};

use super::factor::{DEFAULT_NODE_LIMIT, FactorMethod, greedy_basis};
use super::response::Pair;
use super::result::{OverlapError, OverlapEstimate, SampleSize, StopReason, check_k_delta};
use super::stats::{IidStats, binom};
use super::triangle::{
    TriangleRun, TriangleSchedule, factor_core_extend, triangle_counts, vote_fractions,
};

/// Parameters of Alg. 9.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleIidParams {
    /// Number of clusters k (≤ 64).
    pub k: usize,
    /// Membership probability p; `None` estimates it from the yes rate of S.
    pub p: Option<f64>,
    /// Flip probability q of the BSC (known).
    pub q: f64,
    /// |S|. `Auto`: [`IidStats::triangle_sample_size`] with failure probability `fail_prob`
    /// (for unknown p: a pilot of `pilot_size`, then the rule at p̂); capped at n.
    pub sample_size: SampleSize,
    /// m0, members per cluster in the probe set P. `Auto`: [`IidStats::vote_probe_size`].
    pub probes_per_cluster: SampleSize,
    /// δ of the sample-size rules.
    pub fail_prob: f64,
    /// Pilot |S| when p is unknown and the sample size is `Auto`.
    pub pilot_size: usize,
    /// Factorisation of the core.
    pub factor: FactorMethod,
    /// Node limit of the backtracking factorisation.
    pub node_limit: usize,
    /// Seed of the sample.
    pub seed: u64,
}

impl TriangleIidParams {
    /// Defaults for k clusters, membership probability p (`None`: estimated) and flip
    /// probability q.
    pub fn new(k: usize, p: Option<f64>, q: f64) -> Self {
        TriangleIidParams {
            k,
            p,
            q,
            sample_size: SampleSize::Auto,
            probes_per_cluster: SampleSize::Auto,
            fail_prob: 0.01,
            pilot_size: 300,
            factor: FactorMethod::Auto,
            node_limit: DEFAULT_NODE_LIMIT,
            seed: 0,
        }
    }

    fn stats(&self, p: f64) -> IidStats {
        IidStats {
            k: self.k,
            p,
            q: self.q,
        }
    }

    /// The sample size `Auto` picks for membership probability p, capped at n (`None`: the
    /// levels are inseparable, p ∈ {0, 1}).
    pub fn rule_sample_size(&self, p: f64, n: usize) -> Option<usize> {
        self.stats(p)
            .triangle_sample_size(self.fail_prob)
            .map(|m| m.min(n))
    }

    /// Validate and build the step machine for `n` items.
    pub fn build(&self, n: usize) -> Result<TriangleIid, OverlapError> {
        check_k_delta(self.k, None)?;
        if n < 3 {
            return Err(OverlapError::TooFewItems(n));
        }
        if !(self.fail_prob > 0.0 && self.fail_prob < 1.0) {
            return Err(OverlapError::BadFailProb(self.fail_prob));
        }
        if !(0.0..0.5).contains(&self.q) {
            return Err(OverlapError::BadFlipProb(self.q));
        }
        if let Some(p) = self.p
            && !(0.0..=1.0).contains(&p)
        {
            return Err(OverlapError::BadMembershipProb(p));
        }
        let m = match (self.sample_size, self.p) {
            (SampleSize::Fixed(m), _) => m.min(n),
            (SampleSize::Auto, Some(p)) => self
                .rule_sample_size(p, n)
                .unwrap_or(n.min(self.pilot_size)),
            (SampleSize::Auto, None) => self.pilot_size.min(n),
        }
        .max(3);
        Ok(TriangleIid {
            p: *self,
            p_used: self.p,
            weights_s: Vec::new(),
            run: TriangleRun::new(n, m, self.seed),
        })
    }
}

/// Alg. 9 steps 2–3: the MAP weights ŵ (step 2) and the estimated gram matrix Ĝ (step 3,
/// row-major m × m, diagonal ŵ) from the answers `y` inside S (zero diagonal) and their
/// triangle counts `t`.
pub fn map_gram_iid(stats: IidStats, y: &[Vec<bool>], t: &[u32]) -> (Vec<usize>, Vec<u32>) {
    let m = y.len();
    let w: Vec<usize> = y
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let d = row
                .iter()
                .enumerate()
                .filter(|&(l, &v)| v && l != i)
                .count();
            stats.map_weight(d, m - 1)
        })
        .collect();
    let table = stats.overlap_table();
    let mut g = vec![0u32; m * m];
    for i in 0..m {
        g[i * m + i] = w[i] as u32;
        for j in i + 1..m {
            let s = table.map(w[i], w[j], t[i * m + j] as usize, m - 2, y[i][j]) as u32;
            g[i * m + j] = s;
            g[j * m + i] = s;
        }
    }
    (w, g)
}

/// Reference for [`map_gram_iid`], straight from the note's formulas with probabilities
/// (not logs) and no tables: each ŵ_i maximises C(m−1, D_i)·r^{D_i}(1−r)^{m−1−D_i}·C(k,w)p^w
/// (1−p)^{k−w}, each ŝ_ij maximises P(s | ŵ_i, ŵ_j)·C(m−2, T_ij)·π^{T_ij}(1−π)^{m−2−T_ij}·
/// P(Y_ij | s). Only for small m (the products underflow otherwise).
pub fn map_gram_iid_naive(stats: IidStats, y: &[Vec<bool>]) -> (Vec<usize>, Vec<u32>) {
    let m = y.len();
    let k = stats.k;
    let argmax = |v: Vec<(usize, f64)>| {
        v.into_iter()
            .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a })
            .0
    };
    let bin = |x: usize, n: usize, r: f64| {
        binom(n as i64, x as i64) * r.powi(x as i32) * (1.0 - r).powi((n - x) as i32)
    };
    let w: Vec<usize> = (0..m)
        .map(|i| {
            let d = (0..m).filter(|&l| l != i && y[i][l]).count();
            argmax(
                (0..=k)
                    .map(|w| {
                        let r = stats.q
                            + (1.0 - 2.0 * stats.q) * (1.0 - (1.0 - stats.p).powi(w as i32));
                        (w, bin(d, m - 1, r) * bin(w, k, stats.p))
                    })
                    .collect(),
            )
        })
        .collect();
    let mut g = vec![0u32; m * m];
    for i in 0..m {
        g[i * m + i] = w[i] as u32;
        for j in 0..m {
            if i == j {
                continue;
            }
            let t = (0..m)
                .filter(|&l| l != i && l != j && y[i][l] && y[j][l])
                .count();
            g[i * m + j] = argmax(
                (0..=w[i].min(w[j]))
                    .map(|s| {
                        let prior = binom(w[i] as i64, s as i64)
                            * binom((k - w[i]) as i64, (w[j] - s) as i64)
                            / binom(k as i64, w[j] as i64);
                        let pi = stats.pi(w[i], w[j], s);
                        let gy = if s == 0 { stats.q } else { 1.0 - stats.q };
                        let py = if y[i][j] { gy } else { 1.0 - gy };
                        (s, prior * bin(t, m - 2, pi) * py)
                    })
                    .collect(),
            ) as u32;
        }
    }
    (w, g)
}

/// Tolerance of the robust peeling (`docs/OVERLAP.md`: "tol ≈ 0.05" for noisy gram matrices).
pub const PEELING_TOL: f64 = 0.05;

/// The vote rule of Alg. 9 step 5 applied to the items of S themselves, with the answers
/// already known (our addition; no extra queries): for each x ∈ S, ŵ_x is the MAP weight from
/// its answers Y_xl on the other items of S ([`IidStats::map_weight_on_probes`], probe weights
/// from `rows`), and x joins cluster c iff its yes-fraction on the other members of c (by
/// `rows`) is at least (1 + (1−2q)ρ_x)/2. Heavy rows, whose gram entries are the least
/// reliable, are decided by direct answers on ≈ m·p members per cluster instead.
pub fn vote_rows(stats: IidStats, y: &[Vec<bool>], rows: &[u64]) -> Vec<u64> {
    let (m, k) = (rows.len(), stats.k);
    let weights: Vec<usize> = rows.iter().map(|r| r.count_ones() as usize).collect();
    (0..m)
        .map(|x| {
            let (mut yes, mut no) = (vec![0usize; k + 1], vec![0usize; k + 1]);
            let (mut cy, mut ct) = (vec![0usize; k], vec![0usize; k]);
            for l in (0..m).filter(|&l| l != x) {
                let a = y[x][l];
                if a {
                    yes[weights[l]] += 1;
                } else {
                    no[weights[l]] += 1;
                }
                let mut b = rows[l];
                while b != 0 {
                    let c = b.trailing_zeros() as usize;
                    ct[c] += 1;
                    cy[c] += a as usize;
                    b &= b - 1;
                }
            }
            let thr = stats.vote_threshold(stats.map_weight_on_probes(&yes, &no));
            (0..k)
                .filter(|&c| ct[c] > 0 && cy[c] as f64 / ct[c] as f64 >= thr)
                .fold(0u64, |acc, c| acc | 1 << c)
        })
        .collect()
}

/// Node limit of the backtracking factorisation of one core (a core with an error in Ĝ is
/// abandoned quickly; the next block is tried).
pub const CORE_NODE_LIMIT: usize = 200_000;

/// Rows in a core of Alg. 9's factorisation: max(2k, ⌈5/p⌉), enough for rank k with high
/// probability, and small enough that some core has no error in Ĝ.
pub fn core_size(k: usize, p: f64) -> usize {
    (2 * k).max((5.0 / p.max(1e-3)).ceil() as usize).max(3)
}

/// Fraction of off-diagonal entries where B Bᵀ differs from Ĝ.
pub fn mismatch_fraction(ghat: &[u32], m: usize, rows: &[u64]) -> f64 {
    if m < 2 {
        return 0.0;
    }
    let bad: usize = (0..m)
        .map(|i| {
            (i + 1..m)
                .filter(|&j| (rows[i] & rows[j]).count_ones() != ghat[i * m + j])
                .count()
        })
        .sum();
    bad as f64 / (m * (m - 1) / 2) as f64
}

/// Robust clean-up of an approximate factorisation of an estimated gram matrix Ĝ (our
/// addition to note step 4, which says the robust peeling "absorbs" the errors of Ĝ): each row
/// x in turn is replaced by the best local move (one bit flipped, or one bit moved to another
/// cluster) whose weight is in `weights(x)`, minimising Σ_{t≠x} |B_x·B_t − Ĝ_xt| +
/// |weight − Ĝ_xx| against all other current rows (ties keep the current row, then the smaller
/// mask); repeated until no row changes or `sweeps` passes.
/// Returns the number of passes that changed a row.
pub fn refine_rows(
    ghat: &[u32],
    m: usize,
    k: usize,
    rows: &mut [u64],
    weights: impl Fn(usize) -> std::ops::RangeInclusive<usize>,
    sweeps: usize,
) -> usize {
    let mut changed_passes = 0;
    for _ in 0..sweeps {
        let mut changed = false;
        for x in 0..m {
            let diag = ghat[x * m + x];
            let cost = |cand: u64| -> u32 {
                let mut c = (cand.count_ones()).abs_diff(diag);
                for (t, &b) in rows.iter().enumerate() {
                    if t != x {
                        c += (cand & b).count_ones().abs_diff(ghat[x * m + t]);
                    }
                }
                c
            };
            let cur = rows[x];
            let mut best = (cost(cur), cur);
            let allowed = weights(x);
            // local moves: flip one bit, or move one bit to another cluster
            let mut cands: Vec<u64> = (0..k).map(|c| cur ^ 1 << c).collect();
            for a in (0..k).filter(|&a| cur >> a & 1 == 1) {
                for b in (0..k).filter(|&b| cur >> b & 1 == 0) {
                    cands.push(cur ^ 1 << a ^ 1 << b);
                }
            }
            cands.sort_unstable();
            for cand in cands {
                if !allowed.contains(&(cand.count_ones() as usize)) {
                    continue;
                }
                let c = cost(cand);
                if c < best.0 {
                    best = (c, cand);
                }
            }
            if best.1 != rows[x] {
                rows[x] = best.1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        changed_passes += 1;
    }
    changed_passes
}

/// The Alg. 9 step machine (see the module docs).
#[derive(Debug, Clone)]
pub struct TriangleIid {
    p: TriangleIidParams,
    p_used: Option<f64>,
    /// Weights (number of clusters) of the rows of S.
    weights_s: Vec<usize>,
    run: TriangleRun,
}

impl TriangleIid {
    /// The membership probability used (given, or estimated once S was asked).
    pub fn p_used(&self) -> Option<f64> {
        self.p_used
    }

    /// Phases 1 and 2. Returns false when S was enlarged (ask more first).
    fn infer(&mut self) -> bool {
        let m = self.run.sample.m;
        let y = self.run.answers();
        if self.p_used.is_none() {
            let pairs = (m * (m - 1) / 2) as f64;
            let yes: usize = (0..m)
                .map(|a| (a + 1..m).filter(|&b| y[a][b]).count())
                .sum();
            let p = IidStats::estimate_p(self.p.k, self.p.q, yes as f64 / pairs);
            if self.p.sample_size == SampleSize::Auto && !self.run.regrown {
                self.run.regrown = true;
                if let Some(target) = self.p.rule_sample_size(p, self.run.sample.n())
                    && target > m
                {
                    self.run.sample.grow(target);
                    return false; // re-estimate p on the full sample
                }
            }
            self.p_used = Some(p);
        }
        let stats = self.p.stats(self.p_used.expect("p set"));
        let t = triangle_counts(&y);
        let (w, ghat) = map_gram_iid(stats, &y, &t);
        let k = self.p.k;
        let window = |x: usize| w[x].saturating_sub(1)..=(w[x] + 1).min(k);
        // note step 4, "Alg. 5": Ĝ has a fraction of errors (≈ 0.2–1 % at the note's sizes),
        // so Alg. 4/5 ([`factor_gram`]: peeling, then backtracking) runs on small cores of S,
        // small enough that some core is error-free; each factored core is extended by least
        // mismatch, refined against all of S ([`refine_rows`]) and accepted when B Bᵀ differs
        // from Ĝ on at most a fraction PEELING_TOL of the entries (the note's tolerance).
        let c = core_size(k, stats.p).min(m);
        let attempts = (m / c.max(1)).min(64);
        let accept = |rows: &mut Vec<u64>| {
            refine_rows(&ghat, m, k, rows, window, 5);
            mismatch_fraction(&ghat, m, rows) <= PEELING_TOL && greedy_basis(rows, k).len() == k
        };
        match factor_core_extend(
            &ghat,
            m,
            k,
            c,
            self.p.factor,
            self.p.node_limit.min(CORE_NODE_LIMIT),
            self.p.seed,
            attempts,
            window,
            accept,
        ) {
            Ok((rows, used)) => {
                let polished = vote_rows(stats, &y, &rows);
                self.run.rows_s = if greedy_basis(&polished, k).len() == k {
                    polished
                } else {
                    rows
                };
                self.run.factor_used = Some(used);
            }
            Err(cause) => {
                self.run.failure = Some(StopReason::FactorizationFailed { cause });
                return true;
            }
        }
        self.weights_s = self
            .run
            .rows_s
            .iter()
            .map(|r| r.count_ones() as usize)
            .collect();
        let m0 = match self.p.probes_per_cluster {
            SampleSize::Fixed(x) => x,
            SampleSize::Auto => stats
                .vote_probe_size(self.run.sample.n(), self.p.fail_prob)
                .unwrap_or(m),
        };
        self.run.choose_probes(k, m0);
        true
    }
}

impl TriangleSchedule for TriangleIid {
    fn run_mut(&mut self) -> &mut TriangleRun {
        &mut self.run
    }
    fn run_inference(&mut self) -> bool {
        self.infer()
    }
}

impl StepMachine for TriangleIid {
    type Query = Pair;
    type Answer = u32;
    type Output = OverlapEstimate;

    fn next_queries(&mut self) -> Step<Pair> {
        self.schedule()
    }

    fn observe(&mut self, q: &Pair, answer: u32) {
        self.run.observe(q, answer);
    }

    /// Step 5: every item outside S gets its MAP weight from the probe answers and joins the
    /// clusters whose yes-fraction passes the threshold for that weight.
    fn finish(self) -> OverlapEstimate {
        let (n, k) = (self.run.sample.n(), self.p.k);
        let p = self.p_used.unwrap_or(0.0);
        let run = self.run;
        let (mut rows, unresolved) = run.rows_of_sample();
        if run.failure.is_none() {
            let stats = self.p.stats(p);
            let probes = &run.ext.probes;
            for (idx, u) in run.outside() {
                let ans = run.ext.row(idx);
                let (mut yes, mut no) = (vec![0usize; k + 1], vec![0usize; k + 1]);
                for (slot, &x) in probes.iter().enumerate() {
                    if ans[slot] >= 1 {
                        yes[self.weights_s[x]] += 1;
                    } else {
                        no[self.weights_s[x]] += 1;
                    }
                }
                let wu = stats.map_weight_on_probes(&yes, &no);
                let thr = stats.vote_threshold(wu);
                let f = vote_fractions(&run.rows_s, probes, ans, k);
                rows[u] = f
                    .iter()
                    .enumerate()
                    .filter(|&(_, &fc)| fc >= thr)
                    .fold(0u64, |acc, (c, _)| acc | 1 << c);
            }
        }
        let stop = if let Some(f) = run.failure {
            f
        } else if self.p.rule_sample_size(p, n).is_none() {
            StopReason::LevelsInseparable
        } else {
            StopReason::Completed
        };
        run.estimate(k, &rows, unresolved, stop, Some(self.p.q), self.p_used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::active::{RunOutcome, run};
    use crate::metrics::gram::{gram_error, permutation_match};
    use crate::models::overlap::BernoulliEnsemble;
    use crate::overlap::Membership;
    use crate::overlap::response::SimulatedOracle;
    use proptest::prelude::*;

    fn finished(out: RunOutcome<OverlapEstimate, Pair>) -> OverlapEstimate {
        match out {
            RunOutcome::Finished { output, .. } => output,
            RunOutcome::Missing { .. } => panic!("simulated oracles answer everything"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Alg. 9 steps 2–3: the table-driven log-MAP equals the plain-probability reference.
        #[test]
        fn map_gram_matches_naive(
            (m, bits) in (3usize..14).prop_flat_map(|m| (Just(m), proptest::collection::vec(any::<bool>(), m * m))),
            k in 1usize..7,
            p in 0.05f64..0.6,
            q in 0.0f64..0.3,
        ) {
            let mut y = vec![vec![false; m]; m];
            for i in 0..m { for j in i + 1..m { y[i][j] = bits[i * m + j]; y[j][i] = bits[i * m + j]; } }
            let stats = IidStats { k, p, q };
            let t = triangle_counts(&y);
            let (w, g) = map_gram_iid(stats, &y, &t);
            let (wn, gn) = map_gram_iid_naive(stats, &y);
            prop_assert_eq!(w, wn);
            prop_assert_eq!(g, gn);
        }
    }

    fn planted(n: usize, k: usize, p: f64, seed: u64) -> Membership {
        BernoulliEnsemble { n, k, p }.sample(seed).unwrap()
    }

    #[test]
    fn alg9_bsc_exact_recovery_known_p() {
        let (n, k, p, q) = (1500, 8, 0.25, 0.05);
        let truth = planted(n, k, p, 11);
        let mut a = TriangleIidParams::new(k, Some(p), q);
        a.sample_size = SampleSize::Fixed(700);
        a.probes_per_cluster = SampleSize::Fixed(60);
        a.seed = 2; // S below the Bernstein rule (5162 > n), m0 below Hoeffding's 363
        let mut o = SimulatedOracle::quantized(&truth, q, 5);
        let est = finished(run(a.build(n).unwrap(), &mut o));
        assert_eq!(est.stop, StopReason::Completed);
        assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
        assert!(
            permutation_match(&truth, &est.membership)
                .unwrap()
                .is_some()
        );
        let m = 700;
        assert_eq!(est.queries, m * (m - 1) / 2 + (n - m) * est.probes);
        assert!(est.queries < n * (n - 1) / 2);
    }

    #[test]
    fn alg9_estimates_p_and_recovers() {
        let (n, k, p, q) = (1500, 8, 0.25, 0.05);
        let truth = planted(n, k, p, 12);
        let mut a = TriangleIidParams::new(k, None, q);
        a.sample_size = SampleSize::Fixed(700);
        a.seed = 3; // probes: the Hoeffding rule (m0 = 363 ≥ every cluster's size in S)
        let mut o = SimulatedOracle::quantized(&truth, q, 6);
        let est = finished(run(a.build(n).unwrap(), &mut o));
        let p_hat = est.p_used.unwrap();
        assert!((p_hat - p).abs() < 0.02, "p̂ = {p_hat}");
        assert_eq!(est.stop, StopReason::Completed);
        assert_eq!(gram_error(&truth, &est.membership).unwrap(), 0);
    }

    #[test]
    fn alg9_too_small_sample_is_reported() {
        let (n, k, p, q) = (400, 8, 0.25, 0.1);
        let truth = planted(n, k, p, 13);
        let mut a = TriangleIidParams::new(k, Some(p), q);
        a.sample_size = SampleSize::Fixed(12);
        let est = finished(run(
            a.build(n).unwrap(),
            &mut SimulatedOracle::quantized(&truth, q, 1),
        ));
        assert!(
            matches!(est.stop, StopReason::FactorizationFailed { .. }),
            "{:?}",
            est.stop
        );
        assert_eq!(est.unresolved.len(), n);
    }

    #[test]
    fn alg9_degenerate_p_is_inseparable() {
        // p = 1: every item is in every cluster, every answer is "yes" up to noise; the levels
        // π(w_i, w_j, s) coincide and no sample size identifies A.
        let a = TriangleIidParams::new(5, Some(1.0), 0.1);
        assert_eq!(a.rule_sample_size(1.0, 1000), None);
        let truth = planted(200, 5, 1.0, 1);
        let mut a = a;
        a.sample_size = SampleSize::Fixed(100);
        let est = finished(run(
            a.build(200).unwrap(),
            &mut SimulatedOracle::quantized(&truth, 0.1, 1),
        ));
        assert!(
            matches!(
                est.stop,
                StopReason::LevelsInseparable | StopReason::FactorizationFailed { .. }
            ),
            "{:?}",
            est.stop
        );
    }

    #[test]
    fn alg9_bad_parameters_are_errors() {
        assert!(matches!(
            TriangleIidParams::new(8, Some(1.5), 0.1).build(100),
            Err(OverlapError::BadMembershipProb(_))
        ));
        assert!(matches!(
            TriangleIidParams::new(8, None, 0.5).build(100),
            Err(OverlapError::BadFlipProb(_))
        ));
        assert!(matches!(
            TriangleIidParams::new(0, None, 0.1).build(100),
            Err(OverlapError::BadClusterCount(0))
        ));
    }

    #[test]
    fn alg9_same_seed_same_output() {
        let truth = planted(500, 6, 0.3, 4);
        let go = || {
            let mut a = TriangleIidParams::new(6, Some(0.3), 0.05);
            a.sample_size = SampleSize::Fixed(200);
            a.probes_per_cluster = SampleSize::Fixed(20);
            a.seed = 9;
            finished(run(
                a.build(500).unwrap(),
                &mut SimulatedOracle::quantized(&truth, 0.05, 2),
            ))
        };
        assert_eq!(go(), go());
    }

    /// The accuracy table of docs/benchmarks/overlap.md (not a correctness claim; slow in the
    /// dev profile): `cargo test -p compclust --lib alg9_accuracy_table -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore]
    fn alg9_accuracy_table() {
        let auto = SampleSize::Auto;
        for &(n, k, p, q, m, m0, known_p) in &[
            (
                1500usize,
                8usize,
                0.25f64,
                0.05f64,
                700usize,
                SampleSize::Fixed(60),
                true,
            ),
            (1500, 8, 0.25, 0.05, 700, auto, true),
            (1500, 8, 0.25, 0.05, 700, auto, false),
            (1500, 8, 0.25, 0.1, 700, auto, true),
            (3000, 10, 0.2, 0.05, 1500, auto, true),
            (3000, 10, 0.2, 0.1, 1500, SampleSize::Fixed(80), true),
            (3000, 10, 0.2, 0.1, 1500, auto, true),
        ] {
            let truth = planted(n, k, p, 11);
            let mut a = TriangleIidParams::new(k, known_p.then_some(p), q);
            a.sample_size = SampleSize::Fixed(m);
            a.probes_per_cluster = m0;
            a.seed = 2;
            let t0 = std::time::Instant::now();
            let est = finished(run(
                a.build(n).unwrap(),
                &mut SimulatedOracle::quantized(&truth, q, 5),
            ));
            let secs = t0.elapsed().as_secs_f64();
            let ge = gram_error(&truth, &est.membership).unwrap();
            let exact = permutation_match(&truth, &est.membership)
                .unwrap()
                .is_some();
            let rows = crate::metrics::gram::exact_row_fraction(&truth, &est.membership)
                .unwrap_or(f64::NAN);
            eprintln!(
                "| {n} | {k} | {p} | {q} | {} | {m} ({:?}) | {m0:?} → {} | {} ({:.1} %) | {ge} | {rows:.4} | {exact} | {:?} | {secs:.2} |",
                if known_p {
                    "given".to_string()
                } else {
                    format!("p̂ = {:.3}", est.p_used.unwrap_or(f64::NAN))
                },
                a.rule_sample_size(p, usize::MAX),
                est.probes,
                est.queries,
                100.0 * est.queries as f64 / (n * (n - 1) / 2) as f64,
                est.stop,
            );
        }
    }
}
