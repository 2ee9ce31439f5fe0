//! 4K-AL: quadruplets kernel average linkage (Ghoshdastidar et al. 2019, §3.2).
//!
//! A kernel `K_ij` measures how alike items i and j compare to references, then standard
//! average linkage runs on it (kodama, dissimilarity `max K − K_ij`).
//! - passive kernel, eq. 3 (= MulK-4): `K_ij = Σ_{k<l} Σ_r s(i,r|k,l) · s(j,r|k,l)` where
//!   `s(i,r|k,l) = I((i,r,k,l)∈Q) − I((k,l,i,r)∈Q)` (net answers "(i,r) more similar than
//!   (k,l)"); computed by grouping the answers by `(reference pair, r)`, so the cost is the sum
//!   of squared group sizes, never `N⁴`.
//! - active kernel, eq. 1-2: random reference pairs `R`, landmarks `S` (each item with
//!   probability `q`), queries "is w_ik > w_{i₀j₀}?" for `k ∈ S`, and
//!   `K_ij = Σ_{(i₀,j₀)∈R} Σ_{k∈S∖{i,j}} a(i,k) a(j,k)` with `a = ±1`; asked through the
//!   step-machine protocol ([`ActiveKernelMachine`]).

use faer::Mat;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::active::{Oracle, RunOutcome, Step, StepMachine, run};
use crate::data::{Comparisons, Quadruplet};

use super::common::{IntMap, average_linkage_of_similarity, pair_key, quadruplet_entries, unpack};
use super::{Dendrogram, HierarchyError};

/// A 4K-AL hierarchy and the kernel it was built from.
#[derive(Clone, Debug)]
pub struct FourKAl {
    /// Average-linkage dendrogram; heights are average dissimilarities `max K − K`.
    pub dendrogram: Dendrogram,
    /// The kernel (symmetric, diagonal 0).
    pub kernel: Mat<f64>,
    /// Queries asked (active kernel) or distinct informative comparisons used (passive).
    pub comparisons: usize,
}

/// The passive 4K-AL kernel of Ghoshdastidar et al. 2019, eq. 3 (MulK-4), as a dense symmetric `n × n` matrix with a
/// zero diagonal. Triplets are read as quadruplets `(i,j,i,k)` (Ghoshdastidar et al. 2019, App. B.3).
/// Stops with [`HierarchyError::Cancelled`] when cancelled ([`crate::cancel`]).
pub fn passive_kernel(n: usize, comparisons: &Comparisons) -> Result<Mat<f64>, HierarchyError> {
    if n == 0 {
        return Err(HierarchyError::NoItems);
    }
    let (entries, _) = quadruplet_entries(n, comparisons, "4K-AL")?;
    // (reference pair, r, item, s(item, r | reference))
    let mut rec: Vec<(u64, u32, u32, i64)> = Vec::with_capacity(4 * entries.len());
    for &(e, f, c) in &entries {
        let (a, b) = unpack(e);
        let (k, l) = unpack(f);
        rec.push((f, b, a, c));
        rec.push((f, a, b, c));
        rec.push((e, l, k, -c));
        rec.push((e, k, l, -c));
    }
    rec.sort_unstable();
    let mut k = vec![0.0f64; n * n];
    let mut start = 0;
    // Products done since the last check for cancellation (a group of g records costs g²/2).
    let mut work = 0usize;
    while start < rec.len() {
        if work >= crate::cancel::CHECK_EVERY {
            if crate::cancel::requested() {
                return Err(HierarchyError::Cancelled);
            }
            work = 0;
        }
        let mut end = start + 1;
        while end < rec.len() && rec[end].0 == rec[start].0 && rec[end].1 == rec[start].1 {
            end += 1;
        }
        let g = &rec[start..end];
        for x in 0..g.len() {
            for y in x + 1..g.len() {
                let (i, j) = (g[x].2 as usize, g[y].2 as usize);
                let v = (g[x].3 * g[y].3) as f64;
                k[i * n + j] += v;
                k[j * n + i] += v;
            }
        }
        work += 1 + (end - start) * (end - start) / 2;
        start = end;
    }
    Ok(Mat::from_fn(n, n, |i, j| k[i * n + j]))
}

/// Eq. 3 evaluated literally (`O(N⁵)`): a reference for tests on a handful of items.
pub fn passive_kernel_naive(
    n: usize,
    comparisons: &Comparisons,
) -> Result<Mat<f64>, HierarchyError> {
    let (entries, _) = quadruplet_entries(n, comparisons, "4K-AL")?;
    let mut c: IntMap<(u64, u64), i64> = IntMap::default();
    for &(e, f, v) in &entries {
        c.insert((e, f), v);
        c.insert((f, e), -v);
    }
    let s = |i: usize, r: usize, k: usize, l: usize| -> i64 {
        if i == r {
            return 0;
        }
        c.get(&(pair_key(i as u32, r as u32), pair_key(k as u32, l as u32)))
            .copied()
            .unwrap_or(0)
    };
    Ok(Mat::from_fn(n, n, |i, j| {
        if i == j {
            return 0.0;
        }
        let mut sum = 0i64;
        for k in 0..n {
            for l in k + 1..n {
                for r in 0..n {
                    sum += s(i, r, k, l) * s(j, r, k, l);
                }
            }
        }
        sum as f64
    }))
}

/// Passive 4K-AL (Ghoshdastidar et al. 2019, §3.2): average linkage on the eq. 3 kernel.
pub fn four_k_al(n: usize, comparisons: &Comparisons) -> Result<FourKAl, HierarchyError> {
    let kernel = passive_kernel(n, comparisons)?;
    let flat: Vec<f64> = (0..n * n).map(|x| kernel[(x / n, x % n)]).collect();
    let dendrogram = average_linkage_of_similarity(n, &flat)?;
    let comparisons = quadruplet_entries(n, comparisons, "4K-AL")?.0.len();
    Ok(FourKAl {
        dendrogram,
        kernel,
        comparisons,
    })
}

/// How many reference pairs `R` active 4K-AL draws (Ghoshdastidar et al. 2019, eq. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferencePairs {
    /// Exactly this many reference pairs.
    Count(usize),
    /// As many reference pairs as a budget of questions allows: each reference costs one
    /// question per unordered pair `{i, k}` with `k` a landmark (`N(N−1)/2 − 1` with every
    /// item a landmark), so `|R| = ⌊budget / cost⌋`; the authors' ComparisonHC sets the number
    /// of references the same way (`OracleActiveBudget`, Ghoshdastidar et al. 2019 §4.1).
    Budget(usize),
}

/// Parameters of active 4K-AL (Ghoshdastidar et al. 2019, eq. 1-2, §4.1 "4K-AL-act").
///
/// By default every item is a landmark (`q = 1`): each item is compared with each reference
/// pair, as the authors' published ComparisonHC does. With the paper's `q = ln N / N`
/// ([`ActiveKernelParams::paper_landmark_prob`]) only about `ln N` landmarks are drawn, and
/// clusters holding none of them cannot be told apart.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveKernelParams {
    /// Landmark probability `q` in `(0, 1]`: each item is a landmark with probability `q`.
    pub landmark_prob: f64,
    /// Number of random reference pairs `|R|` (eq. 2; eq. 1 is `|R| = 1`), or a budget.
    pub references: ReferencePairs,
    /// Seed for the references and landmarks.
    pub seed: u64,
}

impl Default for ActiveKernelParams {
    fn default() -> Self {
        ActiveKernelParams {
            landmark_prob: 1.0,
            references: ReferencePairs::Count(10),
            seed: 0,
        }
    }
}

impl ActiveKernelParams {
    /// The landmark probability `q = ln N / N` of Ghoshdastidar et al. 2019, §4.1 (Theorem 2 asks `q ≥ C ln N / N`).
    pub fn paper_landmark_prob(n: usize) -> f64 {
        ((n as f64).ln() / n as f64).clamp(f64::MIN_POSITIVE, 1.0)
    }

    /// Validate for `n` items.
    pub fn check(&self, n: usize) -> Result<(), HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        let q = self.landmark_prob;
        if !(q > 0.0 && q <= 1.0) {
            return Err(HierarchyError::BadParameter {
                name: "landmark_prob",
                value: q.to_string(),
                reason: "must be in (0, 1]",
            });
        }
        match self.references {
            ReferencePairs::Count(0) => Err(HierarchyError::BadParameter {
                name: "references",
                value: "0".into(),
                reason: "need at least one reference pair",
            }),
            ReferencePairs::Budget(0) => Err(HierarchyError::BadParameter {
                name: "budget",
                value: "0".into(),
                reason: "need a budget of at least one reference pair's questions",
            }),
            _ => Ok(()),
        }
    }

    /// Questions one reference pair costs with `landmarks` landmarks among `n` items (at most;
    /// one fewer when the reference pair itself would be asked).
    pub fn questions_per_reference(n: usize, landmarks: usize) -> usize {
        (landmarks * n.saturating_sub(1))
            .saturating_sub(landmarks * landmarks.saturating_sub(1) / 2)
    }

    /// The step machine for `n` items.
    pub fn machine(&self, n: usize) -> Result<ActiveKernelMachine, HierarchyError> {
        self.check(n)?;
        crate::limits::reserve_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let landmarks: Vec<u32> = if self.landmark_prob >= 1.0 {
            (0..n as u32).collect()
        } else {
            (0..n as u32)
                .filter(|_| rng.random_bool(self.landmark_prob))
                .collect()
        };
        let total_pairs = n * (n - 1) / 2;
        let want = match self.references {
            ReferencePairs::Count(r) => r,
            ReferencePairs::Budget(b) => {
                let cost = Self::questions_per_reference(n, landmarks.len());
                if cost > 0 && b < cost {
                    return Err(HierarchyError::BadParameter {
                        name: "budget",
                        value: b.to_string(),
                        reason: "smaller than the questions of one reference pair \
                                 (N(N−1)/2 − 1 with every item a landmark)",
                    });
                }
                b / cost.max(1)
            }
        }
        .min(total_pairs);
        let mut refs = Vec::with_capacity(want);
        let mut ref_index: IntMap<u64, usize> = IntMap::default();
        while refs.len() < want {
            let i = rng.random_range(0..n as u32);
            let j = rng.random_range(0..n as u32);
            if i != j && !ref_index.contains_key(&pair_key(i, j)) {
                ref_index.insert(pair_key(i, j), refs.len());
                refs.push((i.min(j), i.max(j)));
            }
        }
        let mut pos = vec![usize::MAX; n];
        for (p, &k) in landmarks.iter().enumerate() {
            pos[k as usize] = p;
        }
        Ok(ActiveKernelMachine {
            n,
            signs: vec![0; refs.len() * landmarks.len() * n],
            refs,
            landmarks,
            pos,
            ref_index,
            asked: false,
            answered: 0,
        })
    }

    /// Run active 4K-AL against an oracle answering "is w_ab > w_cd?".
    pub fn fit<O: Oracle<Quadruplet, bool>>(
        &self,
        n: usize,
        oracle: &mut O,
    ) -> Result<FourKAl, HierarchyError> {
        match run(self.machine(n)?, oracle) {
            RunOutcome::Finished { output, .. } => output,
            RunOutcome::Missing {
                missing, queries, ..
            } => Err(HierarchyError::MissingComparisons {
                method: "4K-AL-act",
                missing,
                answered: queries,
            }),
        }
    }
}

/// Active 4K-AL as a step machine: one batch of queries `Quadruplet{a: i, b: k, c: i₀,
/// d: j₀}` ("is w_ik > w_{i₀j₀}?") for every reference pair, landmark `k` and item `i`, each
/// unordered `{i,k}` asked once per reference.
pub struct ActiveKernelMachine {
    n: usize,
    refs: Vec<(u32, u32)>,
    landmarks: Vec<u32>,
    pos: Vec<usize>,
    ref_index: IntMap<u64, usize>,
    /// `a(i,k)` per (reference, landmark position, item): +1, −1, or 0 (not asked / tie).
    signs: Vec<i8>,
    asked: bool,
    answered: usize,
}

impl ActiveKernelMachine {
    /// The reference pairs `R`.
    pub fn references(&self) -> &[(u32, u32)] {
        &self.refs
    }

    /// The landmarks `S`.
    pub fn landmarks(&self) -> &[u32] {
        &self.landmarks
    }

    fn slot(&self, r: usize, k: u32, i: u32) -> usize {
        (r * self.landmarks.len() + self.pos[k as usize]) * self.n + i as usize
    }

    /// The kernel of eq. 2 from the answers so far.
    pub fn kernel(&self) -> Mat<f64> {
        let n = self.n;
        let mut k = vec![0.0f64; n * n];
        for r in 0..self.refs.len() {
            for p in 0..self.landmarks.len() {
                let base = (r * self.landmarks.len() + p) * n;
                let a = &self.signs[base..base + n];
                let lm = self.landmarks[p] as usize;
                for i in 0..n {
                    if a[i] == 0 || i == lm {
                        continue;
                    }
                    for j in i + 1..n {
                        if j != lm && a[j] != 0 {
                            let v = f64::from(a[i] * a[j]);
                            k[i * n + j] += v;
                            k[j * n + i] += v;
                        }
                    }
                }
            }
        }
        Mat::from_fn(n, n, |i, j| k[i * n + j])
    }
}

impl StepMachine for ActiveKernelMachine {
    type Query = Quadruplet;
    type Answer = bool;
    type Output = Result<FourKAl, HierarchyError>;

    fn next_queries(&mut self) -> Step<Quadruplet> {
        if self.asked {
            return Step::Done;
        }
        self.asked = true;
        let mut batch = Vec::new();
        for &(i0, j0) in &self.refs {
            for &k in &self.landmarks {
                for i in 0..self.n as u32 {
                    if i == k || pair_key(i, k) == pair_key(i0, j0) {
                        continue;
                    }
                    if self.pos[i as usize] != usize::MAX && i < k {
                        continue; // asked under landmark i
                    }
                    batch.push(Quadruplet::new(i, k, i0, j0));
                }
            }
        }
        if batch.is_empty() {
            Step::Done
        } else {
            Step::Ask(batch)
        }
    }

    fn observe(&mut self, q: &Quadruplet, greater: bool) {
        let Some(&r) = self.ref_index.get(&pair_key(q.c, q.d)) else {
            return;
        };
        let (i, k) = (q.a, q.b);
        if i as usize >= self.n || k as usize >= self.n {
            return;
        }
        let v = if greater { 1 } else { -1 };
        let mut hit = false;
        if self.pos[k as usize] != usize::MAX {
            let s = self.slot(r, k, i);
            self.signs[s] = v;
            hit = true;
        }
        if self.pos[i as usize] != usize::MAX {
            let s = self.slot(r, i, k);
            self.signs[s] = v;
            hit = true;
        }
        if hit {
            self.answered += 1;
        }
    }

    fn finish(self) -> Result<FourKAl, HierarchyError> {
        let n = self.n;
        let kernel = self.kernel();
        let flat: Vec<f64> = (0..n * n).map(|x| kernel[(x / n, x % n)]).collect();
        let dendrogram = average_linkage_of_similarity(n, &flat)?;
        Ok(FourKAl {
            dendrogram,
            kernel,
            comparisons: self.answered,
        })
    }
}

/// Eq. 2 evaluated literally from a similarity function, for given references and landmarks:
/// a reference for tests.
pub fn active_kernel_naive(
    n: usize,
    refs: &[(u32, u32)],
    landmarks: &[u32],
    w: impl Fn(usize, usize) -> f64,
) -> Mat<f64> {
    let ind = |x: bool| if x { 1.0 } else { 0.0 };
    Mat::from_fn(n, n, |i, j| {
        if i == j {
            return 0.0;
        }
        let mut sum = 0.0;
        for &(i0, j0) in refs {
            let w0 = w(i0 as usize, j0 as usize);
            for &k in landmarks {
                let k = k as usize;
                if k == i || k == j {
                    continue;
                }
                let (wi, wj) = (w(i, k), w(j, k));
                sum += (ind(wi > w0) - ind(wi < w0)) * (ind(wj > w0) - ind(wj < w0));
            }
        }
        sum
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Triplet;

    #[test]
    fn passive_kernel_small_example() {
        // one answer: (0,1) more similar than (2,3)
        let cmp = Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 2, 3)]);
        let k = passive_kernel(4, &cmp).unwrap();
        // reference (2,3): s(0,1|23) = s(1,0|23) = 1 but different r → no product;
        // reference (0,1): s(2,3|01) = s(3,2|01) = −1, different r → none. All zero.
        for i in 0..4 {
            for j in 0..4 {
                assert_eq!(k[(i, j)], 0.0);
            }
        }
        // two answers sharing r = 2 and the reference (0,1): items 3 and 4 agree
        let cmp = Comparisons::Triplets(vec![Triplet::new(2, 3, 1), Triplet::new(2, 4, 1)]);
        // triplets → (2,3,2,1), (2,4,2,1): s(3,2|1,2) = s(4,2|1,2) = 1
        let k = passive_kernel(5, &cmp).unwrap();
        assert_eq!(k[(3, 4)], 1.0);
        assert_eq!(k, passive_kernel_naive(5, &cmp).unwrap());
    }

    #[test]
    fn every_cancellation_check_of_the_passive_kernel_stops_it() {
        use crate::cancel::{CHECK_EVERY, stops_at_every_check};
        let (n, rows) = (40u32, CHECK_EVERY as u32 + 1);
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let mut item = || rng.random_range(0..n);
        let cmp = Comparisons::Quadruplets(
            (0..rows)
                .map(|_| Quadruplet::new(item(), item(), item(), item()))
                .collect(),
        );
        let checks = stops_at_every_check(
            1000,
            || passive_kernel(n as usize, &cmp),
            |e| *e == HierarchyError::Cancelled,
        );
        // quadruplet_entries makes 2 · 2 + 1 checks; the rest are the kernel's own, at least
        // one per CHECK_EVERY products of its ≥ 4 · rows / 2 records sharing a reference.
        assert!(checks > 5 + 1, "{checks} checks");
    }

    #[test]
    fn active_kernel_is_deterministic_and_validated() {
        // distinct similarities (no ties with a reference): −|2^i − 2^j|
        let w = |i: usize, j: usize| -(2f64.powi(i as i32) - 2f64.powi(j as i32)).abs();
        let p = ActiveKernelParams {
            landmark_prob: 0.5,
            references: ReferencePairs::Count(3),
            seed: 7,
        };
        let mut oracle =
            |q: &Quadruplet| w(q.a as usize, q.b as usize) > w(q.c as usize, q.d as usize);
        let a = p.fit(8, &mut oracle).unwrap();
        let b = p.fit(8, &mut oracle).unwrap();
        assert_eq!(a.dendrogram, b.dendrogram);
        let m = p.machine(8).unwrap();
        let naive = active_kernel_naive(8, m.references(), m.landmarks(), w);
        assert_eq!(a.kernel, naive);
        let bad = ActiveKernelParams {
            landmark_prob: 1.5,
            ..p
        };
        assert!(bad.check(8).is_err());
    }

    /// The default compares every item with each reference pair (q = 1); a budget sets the
    /// number of reference pairs to ⌊budget / (N(N−1)/2)⌋ and the questions stay within it.
    #[test]
    fn budget_sets_the_reference_pairs() {
        let n = 12;
        let per_ref = n * (n - 1) / 2; // 66, one of which is the reference pair itself
        assert_eq!(ActiveKernelParams::questions_per_reference(n, n), per_ref);
        let p = ActiveKernelParams {
            references: ReferencePairs::Budget(3 * per_ref + 10),
            seed: 4,
            ..ActiveKernelParams::default()
        };
        let m = p.machine(n).unwrap();
        assert_eq!(m.landmarks().len(), n);
        assert_eq!(m.references().len(), 3);
        let w = |i: usize, j: usize| -((i * i) as f64 - (j * j) as f64).abs();
        let mut oracle =
            |q: &Quadruplet| w(q.a as usize, q.b as usize) > w(q.c as usize, q.d as usize);
        let fit = p.fit(n, &mut oracle).unwrap();
        assert_eq!(fit.comparisons, 3 * (per_ref - 1));
        let short = ActiveKernelParams {
            references: ReferencePairs::Budget(per_ref - 1),
            ..p
        };
        assert!(matches!(
            short.machine(n),
            Err(HierarchyError::BadParameter { name: "budget", .. })
        ));
    }
}
