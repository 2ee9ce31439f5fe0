//! Passive sampling of triplets / quadruplets and noisy answers (Perrot et al. 2020, §2, eq. 2).
//!
//! Every distinct query gets an id in `0..T`:
//! - triplet `(anchor, {j, k})`: `anchor · C(n−1, 2) + pair(j', k')`, where `j' < k'` index
//!   the other `n − 1` items and `pair(a, b) = b(b−1)/2 + a`; `T = n · C(n−1, 2)`;
//! - quadruplet `{{a, b}, {c, d}}` of two distinct pairs: `pair(p, q)` over the
//!   `P = C(n, 2)` pair ids `p < q`; `T = C(P, 2)`.
//!
//! A uniform m-subset of `0..T` is drawn by the sequential "draw until m distinct" procedure
//! (i.i.d. draws, duplicates skipped), done in parallel chunks with one counter-based stream
//! per chunk so the result does not depend on the thread count; when `m` is a large fraction
//! of `T`, selection sampling (Knuth's Algorithm S) is used instead, followed by a seeded
//! shuffle. Answers use a noise stream keyed by the query id.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Binomial, Distribution};
use rayon::prelude::*;

use super::{OracleError, Similarity};
use crate::data::{Quadruplet, Triplet};
use crate::math::rng::{CounterRng, mix64};

const SALT_DRAW: u64 = 0xd1a5_0001;
const SALT_TOPUP: u64 = 0xd1a5_0002;
const SALT_NOISE: u64 = 0xd1a5_0003;
const SALT_SHUFFLE: u64 = 0xd1a5_0004;
const SALT_BINOM: u64 = 0xd1a5_0005;
const CHUNK: usize = 1 << 15;

/// Number of distinct triplet queries `(anchor, {j, k})` over `n` items: `n · C(n−1, 2)`.
pub fn n_distinct_triplets(n: usize) -> u128 {
    let n = n as u128;
    if n < 3 {
        return 0;
    }
    n * ((n - 1) * (n - 2) / 2)
}

/// Number of distinct quadruplet queries `{{a,b},{c,d}}` (two distinct pairs) over `n` items:
/// `C(C(n, 2), 2)`. Pairs sharing an item, like the quadruplet form `(i,j,i,k)` of a triplet,
/// are included.
pub fn n_distinct_quadruplets(n: usize) -> u128 {
    let n = n as u128;
    let p = n * n.saturating_sub(1) / 2;
    if p < 2 {
        return 0;
    }
    p * (p - 1) / 2
}

/// Inverse of `pair(a, b) = b(b−1)/2 + a` for `a < b`.
#[inline]
fn unpair(r: u64) -> (u64, u64) {
    let mut b = ((1.0 + (1.0 + 8.0 * r as f64).sqrt()) / 2.0) as u64;
    // fix floating point error in either direction
    while (b as u128) * (b as u128 - 1) / 2 > r as u128 {
        b -= 1;
    }
    while ((b + 1) as u128) * (b as u128) / 2 <= r as u128 {
        b += 1;
    }
    let a = r - b * (b - 1) / 2;
    (a, b)
}

fn check_eps(eps: f64) -> Result<(), OracleError> {
    if !(0.0..=1.0).contains(&eps) {
        return Err(OracleError::BadParameter {
            name: "eps",
            value: eps,
            expected: "crowd-noise level ε in [0, 1] (1 = noiseless, 0 = coin flips)",
        });
    }
    Ok(())
}

/// Whether the oracle answers query `id` correctly: probability `(1 + ε)/2` (Perrot et al. 2020, eq. 2).
/// Returns `(correct, tie_coin)`, the second bit breaking exact ties in the similarity.
#[inline]
fn noise(seed: u64, id: u64, eps: f64) -> (bool, bool) {
    let mut r = CounterRng::new(seed, SALT_NOISE, id);
    let correct = eps >= 1.0 || r.uniform() < 0.5 * (1.0 + eps);
    let tie = r.next_u64() & 1 == 1;
    (correct, tie)
}

/// Answer the triplet query "is `anchor` closer to `j` or to `k`?" from `sim`, with crowd
/// noise `eps` (Perrot et al. 2020, eq. 2): the true answer (larger `w`) with probability `(1+ε)/2`, else the
/// flipped one. Exact ties are broken by a fair coin. `seed`/`id` select the noise draws.
pub fn answer_triplet<S: Similarity + ?Sized>(
    sim: &S,
    anchor: u32,
    j: u32,
    k: u32,
    eps: f64,
    seed: u64,
    id: u64,
) -> Triplet {
    let (correct, tie) = noise(seed, id, eps);
    let wj = sim.similarity(anchor as usize, j as usize);
    let wk = sim.similarity(anchor as usize, k as usize);
    let j_wins = if wj == wk { tie } else { wj > wk };
    if j_wins == correct {
        Triplet::new(anchor, j, k)
    } else {
        Triplet::new(anchor, k, j)
    }
}

/// Answer the quadruplet query "is pair (a,b) or pair (c,d) more similar?" with crowd noise
/// `eps` (Perrot et al. 2020, eq. 2, quadruplet form); ties broken by a fair coin.
#[allow(clippy::too_many_arguments)]
pub fn answer_quadruplet<S: Similarity + ?Sized>(
    sim: &S,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
    eps: f64,
    seed: u64,
    id: u64,
) -> Quadruplet {
    let (correct, tie) = noise(seed, id, eps);
    let w1 = sim.similarity(a as usize, b as usize);
    let w2 = sim.similarity(c as usize, d as usize);
    let first_wins = if w1 == w2 { tie } else { w1 > w2 };
    if first_wins == correct {
        Quadruplet::new(a, b, c, d)
    } else {
        Quadruplet::new(c, d, a, b)
    }
}

/// Fisher–Yates shuffle with a counter-based stream (deterministic for a seed).
fn shuffle(v: &mut [u64], seed: u64) {
    let mut r = CounterRng::new(seed, SALT_SHUFFLE, 0);
    for i in (1..v.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// A uniformly random m-subset of `0..total`, in random order. Deterministic for `seed`,
/// independent of the number of threads.
pub(crate) fn sample_distinct(total: u64, m: usize, seed: u64) -> Vec<u64> {
    debug_assert!(m as u64 <= total);
    if m == 0 {
        return Vec::new();
    }
    if total / 8 <= m as u64 {
        // dense: selection sampling over 0..total (O(total) time, O(m) memory), then shuffle
        let mut r = CounterRng::new(seed, SALT_DRAW, u64::MAX);
        let mut out = Vec::with_capacity(m);
        let mut need = m as u64;
        let mut t = 0u64;
        while need > 0 {
            let left = total - t;
            if r.below(left) < need {
                out.push(t);
                need -= 1;
            }
            t += 1;
        }
        shuffle(&mut out, seed);
        return out;
    }
    // sparse: i.i.d. draws in parallel chunks, then skip duplicates and top up
    let mut draws = vec![0u64; m];
    draws.par_chunks_mut(CHUNK).enumerate().for_each(|(c, ch)| {
        let mut r = CounterRng::new(seed, SALT_DRAW, c as u64);
        for x in ch {
            *x = r.below(total);
        }
    });
    let mut sorted = draws.clone();
    sorted.par_sort_unstable();
    let before = sorted.len();
    sorted.dedup();
    if sorted.len() == before {
        return draws; // the first m draws are distinct: they are the first m distinct draws
    }
    // The distinct values of the first m draws are the first |sorted| distinct values of the
    // draw sequence; continue the sequence until m distinct values are seen.
    drop(draws);
    let mut extra: Vec<u64> = Vec::new();
    let mut seen_extra = std::collections::HashSet::new();
    let mut r = CounterRng::new(seed, SALT_TOPUP, 0);
    while sorted.len() + extra.len() < m {
        let x = r.below(total);
        if sorted.binary_search(&x).is_err() && seen_extra.insert(x) {
            extra.push(x);
        }
    }
    sorted.extend(extra);
    shuffle(&mut sorted, seed);
    sorted
}

fn check_n(n: usize, what: &'static str) -> Result<(), OracleError> {
    if n > u32::MAX as usize {
        return Err(OracleError::TooManyItems { n, what });
    }
    Ok(())
}

/// Refuse to sample `m` comparisons of `row` bytes each when the memory does not hold them:
/// [`sample_distinct`] keeps two arrays of `m` ids (the draws and their sorted copy), then the
/// rows are built from the ids. A Bernoulli rate on many items can ask for 10¹¹ rows.
fn check_sample_memory(what: &'static str, m: usize, row: usize) -> Result<(), OracleError> {
    let bytes = (m as u128).saturating_mul(2 * 8 + row as u128);
    Ok(crate::limits::check_memory(what, m as u128, bytes)?)
}

fn total_u64(total: u128, n: usize, what: &'static str) -> Result<u64, OracleError> {
    u64::try_from(total).map_err(|_| OracleError::TooManyItems { n, what })
}

/// The triplet question `(anchor, j, k)` (`j < k`) with id `id` over `n` items (the
/// numbering of the module documentation).
#[inline]
pub(crate) fn decode_triplet(n: u64, id: u64) -> (u32, u32, u32) {
    let per = (n - 1) * (n - 2) / 2;
    let anchor = id / per;
    let (a, b) = unpair(id % per);
    let j = a + (a >= anchor) as u64;
    let k = b + (b >= anchor) as u64;
    (anchor as u32, j as u32, k as u32)
}

/// The quadruplet question `(a, b, c, d)` (`a < b`, `c < d`, pair (a,b) before (c,d)) with
/// id `id` (the numbering of the module documentation).
#[inline]
pub(crate) fn decode_quadruplet(id: u64) -> (u32, u32, u32, u32) {
    let (p, q) = unpair(id);
    let (a, b) = unpair(p);
    let (c, d) = unpair(q);
    (a as u32, b as u32, c as u32, d as u32)
}

fn triplets_from_ids<S: Similarity + ?Sized>(
    sim: &S,
    ids: &[u64],
    eps: f64,
    seed: u64,
) -> Vec<Triplet> {
    let n = sim.n_items() as u64;
    ids.par_iter()
        .map(|&id| {
            let (a, j, k) = decode_triplet(n, id);
            answer_triplet(sim, a, j, k, eps, seed, id)
        })
        .collect()
}

fn quadruplets_from_ids<S: Similarity + ?Sized>(
    sim: &S,
    ids: &[u64],
    eps: f64,
    seed: u64,
) -> Vec<Quadruplet> {
    ids.par_iter()
        .map(|&id| {
            let (a, b, c, d) = decode_quadruplet(id);
            answer_quadruplet(sim, a, b, c, d, eps, seed, id)
        })
        .collect()
}

/// `m` triplets drawn uniformly without replacement among all `n · C(n−1, 2)` distinct
/// queries `(anchor, {j, k})`, answered by `sim` with crowd noise `eps` (Perrot et al. 2020, §2, eq. 2):
/// correct with probability `(1 + ε)/2`. Rows come in random order. Same seed → same output,
/// whatever the thread count.
pub fn sample_triplets<S: Similarity + ?Sized>(
    sim: &S,
    m: usize,
    eps: f64,
    seed: u64,
) -> Result<Vec<Triplet>, OracleError> {
    check_eps(eps)?;
    let n = sim.n_items();
    check_n(n, "triplets")?;
    let total = n_distinct_triplets(n);
    if m as u128 > total {
        return Err(OracleError::TooMany {
            what: "triplets",
            requested: m as u64,
            available: total,
            n,
        });
    }
    let total = total_u64(total, n, "triplets")?;
    check_sample_memory("triplets", m, std::mem::size_of::<Triplet>())?;
    let ids = sample_distinct(total, m, seed);
    Ok(triplets_from_ids(sim, &ids, eps, seed))
}

/// `m` quadruplets drawn uniformly without replacement among all `C(C(n,2), 2)` queries
/// `{{a,b},{c,d}}` of two distinct pairs, answered by `sim` with crowd noise `eps`
/// (Perrot et al. 2020, §2, eq. 2). Row `(a,b,c,d)` means (a,b) was judged more similar than (c,d).
pub fn sample_quadruplets<S: Similarity + ?Sized>(
    sim: &S,
    m: usize,
    eps: f64,
    seed: u64,
) -> Result<Vec<Quadruplet>, OracleError> {
    check_eps(eps)?;
    let n = sim.n_items();
    check_n(n, "quadruplets")?;
    let total = n_distinct_quadruplets(n);
    if m as u128 > total {
        return Err(OracleError::TooMany {
            what: "quadruplets",
            requested: m as u64,
            available: total,
            n,
        });
    }
    let total = total_u64(total, n, "quadruplets")?;
    check_sample_memory("quadruplets", m, std::mem::size_of::<Quadruplet>())?;
    let ids = sample_distinct(total, m, seed);
    Ok(quadruplets_from_ids(sim, &ids, eps, seed))
}

/// `m` unordered pairs `{a, b}` (`a < b`) drawn uniformly without replacement among the
/// `C(n, 2)` pairs of `n` items, in random order (passive same-cluster queries, Huleihel et al. 2019, §2).
pub fn sample_pairs(n: usize, m: usize, seed: u64) -> Result<Vec<(u32, u32)>, OracleError> {
    check_n(n, "pairs")?;
    let total = (n as u128) * (n.saturating_sub(1) as u128) / 2;
    if m as u128 > total {
        return Err(OracleError::TooMany {
            what: "pairs",
            requested: m as u64,
            available: total,
            n,
        });
    }
    let total = total_u64(total, n, "pairs")?;
    check_sample_memory("pairs", m, std::mem::size_of::<(u32, u32)>())?;
    Ok(sample_distinct(total, m, seed)
        .into_iter()
        .map(|id| {
            let (a, b) = unpair(id);
            (a as u32, b as u32)
        })
        .collect())
}

fn check_p(p: f64) -> Result<(), OracleError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(OracleError::BadParameter {
            name: "p",
            value: p,
            expected: "a sampling rate in [0, 1]",
        });
    }
    Ok(())
}

fn binomial_count(total: u64, p: f64, seed: u64) -> Result<usize, OracleError> {
    let b = Binomial::new(total, p).map_err(|_| OracleError::BadParameter {
        name: "p",
        value: p,
        expected: "a sampling rate in [0, 1]",
    })?;
    let mut rng = StdRng::seed_from_u64(mix64(seed ^ SALT_BINOM));
    let m = b.sample(&mut rng);
    usize::try_from(m).map_err(|_| OracleError::BadParameter {
        name: "p",
        value: p,
        expected: "a rate giving fewer comparisons than fit in memory",
    })
}

/// The Bernoulli(p) sampling of Perrot et al. 2020, §2: every distinct triplet query is observed independently
/// with probability `p`. Implemented as `M ~ Binomial(T, p)` followed by a uniform M-subset,
/// which has the same law and never loops over the `n³` queries.
pub fn sample_triplets_bernoulli<S: Similarity + ?Sized>(
    sim: &S,
    p: f64,
    eps: f64,
    seed: u64,
) -> Result<Vec<Triplet>, OracleError> {
    check_p(p)?;
    let n = sim.n_items();
    check_n(n, "triplets")?;
    let total = total_u64(n_distinct_triplets(n), n, "triplets")?;
    let m = binomial_count(total, p, seed)?;
    sample_triplets(sim, m, eps, seed)
}

/// The Bernoulli(p) sampling of Perrot et al. 2020, §2 for quadruplets (see [`sample_triplets_bernoulli`]).
pub fn sample_quadruplets_bernoulli<S: Similarity + ?Sized>(
    sim: &S,
    p: f64,
    eps: f64,
    seed: u64,
) -> Result<Vec<Quadruplet>, OracleError> {
    check_p(p)?;
    let n = sim.n_items();
    check_n(n, "quadruplets")?;
    let total = total_u64(n_distinct_quadruplets(n), n, "quadruplets")?;
    let m = binomial_count(total, p, seed)?;
    sample_quadruplets(sim, m, eps, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::DenseSimilarity;
    use proptest::prelude::*;

    /// A rate that asks for more comparisons than memory holds is an error before anything of
    /// that size is allocated (3·10¹¹ quadruplets on 4000 items at p = 0.01, 10 TB).
    #[test]
    fn sampling_more_than_memory_holds_is_an_error() {
        let sim = DenseSimilarity::new(2, vec![0.0, 1.0, 1.0, 0.0]).unwrap();
        struct Big(DenseSimilarity);
        impl Similarity for Big {
            fn n_items(&self) -> usize {
                4000
            }
            fn similarity(&self, i: usize, j: usize) -> f64 {
                self.0.similarity(i % 2, j % 2)
            }
        }
        let e = sample_quadruplets_bernoulli(&Big(sim), 0.01, 1.0, 0).unwrap_err();
        match e {
            OracleError::Limit(l) => {
                assert_eq!(l.what, "quadruplets");
                assert!(l.bytes.unwrap() > l.available.unwrap());
            }
            other => panic!("expected a memory limit, got {other}"),
        }
    }
    use std::collections::HashSet;

    /// Naive enumeration of triplet queries in id order.
    fn naive_triplets(n: u32) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        for a in 0..n {
            let others: Vec<u32> = (0..n).filter(|&x| x != a).collect();
            for kk in 0..others.len() {
                for jj in 0..kk {
                    v.push((a, others[jj], others[kk]));
                }
            }
        }
        v
    }

    fn naive_quadruplets(n: u32) -> Vec<(u32, u32, u32, u32)> {
        let mut pairs = Vec::new();
        for b in 0..n {
            for a in 0..b {
                pairs.push((a, b));
            }
        }
        let mut v = Vec::new();
        for q in 0..pairs.len() {
            for p in 0..q {
                v.push((pairs[p].0, pairs[p].1, pairs[q].0, pairs[q].1));
            }
        }
        v
    }

    #[test]
    fn decoding_matches_enumeration() {
        for n in 3..9u32 {
            let t = naive_triplets(n);
            assert_eq!(t.len() as u128, n_distinct_triplets(n as usize));
            for (id, &x) in t.iter().enumerate() {
                assert_eq!(decode_triplet(n as u64, id as u64), x);
            }
            let q = naive_quadruplets(n);
            assert_eq!(q.len() as u128, n_distinct_quadruplets(n as usize));
            for (id, &x) in q.iter().enumerate() {
                assert_eq!(decode_quadruplet(id as u64), x);
            }
        }
    }

    #[test]
    fn unpair_large() {
        for r in [0u64, 1, 2, 3, 1 << 40, (1 << 52) + 12345, u64::MAX / 4] {
            let (a, b) = unpair(r);
            assert!(a < b);
            assert_eq!(b * (b - 1) / 2 + a, r);
        }
    }

    fn block_sim(n: usize) -> DenseSimilarity {
        // distinct values so there are no ties: w_ij = (i + j) mod 7 + tiny unique part
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    let (a, b) = (i.min(j), i.max(j));
                    w[i * n + j] = ((a + b) % 7) as f64 + (a * n + b) as f64 * 1e-6;
                }
            }
        }
        DenseSimilarity::new(n, w).unwrap()
    }

    #[test]
    fn noiseless_answers_agree_with_similarity() {
        let s = block_sim(20);
        let t = sample_triplets(&s, 500, 1.0, 3).unwrap();
        assert_eq!(t.len(), 500);
        for x in &t {
            let (a, j, k) = (x.anchor as usize, x.near as usize, x.far as usize);
            assert!(s.similarity(a, j) > s.similarity(a, k));
        }
        let q = sample_quadruplets(&s, 500, 1.0, 3).unwrap();
        for x in &q {
            assert!(
                s.similarity(x.a as usize, x.b as usize) > s.similarity(x.c as usize, x.d as usize)
            );
        }
    }

    #[test]
    fn noise_rate_matches_eps() {
        let s = block_sim(60);
        let m = 40_000;
        let eps = 0.6;
        let t = sample_triplets(&s, m, eps, 11).unwrap();
        let wrong = t
            .iter()
            .filter(|x| {
                s.similarity(x.anchor as usize, x.near as usize)
                    < s.similarity(x.anchor as usize, x.far as usize)
            })
            .count() as f64;
        let expect = m as f64 * (1.0 - eps) / 2.0; // 8000, sd ≈ 80
        assert!((wrong - expect).abs() < 5.0 * (m as f64 * 0.2 * 0.8).sqrt());
    }

    #[test]
    fn all_queries_when_m_equals_total() {
        let s = block_sim(7);
        let total = n_distinct_triplets(7) as usize;
        let t = sample_triplets(&s, total, 1.0, 1).unwrap();
        let keys: HashSet<[u32; 3]> = t.iter().map(|x| x.canonical().0).collect();
        assert_eq!(keys.len(), total);
        assert!(matches!(
            sample_triplets(&s, total + 1, 1.0, 1),
            Err(OracleError::TooMany { .. })
        ));
        assert!(sample_triplets(&s, 1, 1.5, 1).is_err());
        let q = sample_quadruplets(&s, n_distinct_quadruplets(7) as usize, 0.5, 1).unwrap();
        let keys: HashSet<[u32; 4]> = q.iter().map(|x| x.canonical().0).collect();
        assert_eq!(keys.len(), q.len());
    }

    #[test]
    fn sparse_sampling_is_distinct_and_uniform() {
        // total = 10^7 > 8m: the sparse path, with duplicates to top up at m = 3·10^5
        let total = 10_000_000u64;
        let m = 300_000;
        let v = sample_distinct(total, m, 5);
        assert_eq!(v.len(), m);
        let set: HashSet<u64> = v.iter().copied().collect();
        assert_eq!(set.len(), m);
        assert!(v.iter().all(|&x| x < total));
        // uniformity: 10 equal bins, each ≈ m/10 (sd ≈ 164)
        let mut bins = [0usize; 10];
        for &x in &v {
            bins[(x / (total / 10)) as usize] += 1;
        }
        for b in bins {
            assert!((b as f64 - 30_000.0).abs() < 1000.0, "{bins:?}");
        }
        assert_eq!(v, sample_distinct(total, m, 5));
        assert_ne!(v, sample_distinct(total, m, 6));
    }

    #[test]
    fn uniform_over_all_subsets_small() {
        // total = 5, m = 2: each of the 10 subsets has probability 1/10 (dense path)
        let mut counts = std::collections::HashMap::new();
        for seed in 0..20_000u64 {
            let mut v = sample_distinct(5, 2, seed);
            v.sort();
            *counts.entry(v).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), 10);
        for c in counts.values() {
            assert!((*c as f64 - 2000.0).abs() < 250.0, "{counts:?}");
        }
        // sparse path: total = 40, m = 2 (40/8 = 5 > 2): all 780 subsets ≈ equally likely
        let mut counts = std::collections::HashMap::new();
        for seed in 0..78_000u64 {
            let mut v = sample_distinct(40, 2, seed);
            v.sort();
            *counts.entry(v).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), 780);
        let chi2: f64 = counts
            .values()
            .map(|&c| (c as f64 - 100.0).powi(2) / 100.0)
            .sum();
        // chi-square with 779 dof: mean 779, sd ≈ 39.5
        assert!(chi2 < 779.0 + 6.0 * 39.5, "chi2 = {chi2}");
    }

    #[test]
    fn pairs_are_distinct_and_cover_all() {
        let p = sample_pairs(6, 15, 2).unwrap();
        let set: HashSet<(u32, u32)> = p.iter().copied().collect();
        assert_eq!(set.len(), 15);
        assert!(p.iter().all(|&(a, b)| a < b && b < 6));
        assert!(sample_pairs(6, 16, 2).is_err());
        assert_eq!(
            sample_pairs(1000, 500, 3).unwrap(),
            sample_pairs(1000, 500, 3).unwrap()
        );
    }

    #[test]
    fn bernoulli_count_is_binomial() {
        let s = block_sim(30);
        let total = n_distinct_triplets(30) as f64; // 12180
        let p = 0.1;
        let t = sample_triplets_bernoulli(&s, p, 1.0, 9).unwrap();
        let sd = (total * p * (1.0 - p)).sqrt();
        assert!((t.len() as f64 - total * p).abs() < 5.0 * sd);
        assert!(sample_triplets_bernoulli(&s, 1.2, 1.0, 9).is_err());
        let q = sample_quadruplets_bernoulli(&s, 0.0, 1.0, 9).unwrap();
        assert!(q.is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn prop_same_seed_same_output(n in 3usize..25, m in 0usize..200, seed in any::<u64>(), eps in 0.0f64..=1.0) {
            let s = block_sim(n);
            let m = m.min(n_distinct_triplets(n) as usize);
            let a = sample_triplets(&s, m, eps, seed).unwrap();
            prop_assert_eq!(&a, &sample_triplets(&s, m, eps, seed).unwrap());
            let keys: HashSet<[u32; 3]> = a.iter().map(|x| x.canonical().0).collect();
            prop_assert_eq!(keys.len(), m);
            for x in &a {
                prop_assert!(x.anchor != x.near && x.anchor != x.far && x.near != x.far);
                prop_assert!((x.anchor as usize) < n && (x.near as usize) < n && (x.far as usize) < n);
            }
        }
    }
}
