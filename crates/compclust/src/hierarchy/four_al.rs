//! 4-AL: quadruplets-based average linkage (Ghoshdastidar et al. 2019, §3.3, eq. 4-5).
//!
//! For clusters G₁..G_K, eq. 4 gives the preference between two cluster pairs
//!
//! ```text
//! W_Q(G_p,G_q || G_r,G_s) = 1/(|G_p||G_q||G_r||G_s|) Σ_{i∈G_p, j∈G_q, k∈G_r, l∈G_s} c({i,j},{k,l})
//! ```
//!
//! where `c(e, f)` is the net number of answers "pair e is more similar than pair f" (answers
//! "f more similar than e" count −1; pairs are unordered because similarities are symmetric),
//! and eq. 5 the cluster similarity `W(G_p,G_q) = Σ_{r≠s} W_Q(G_p,G_q||G_r,G_s) / (K(K−1))`.
//! Agglomerative clustering (Ghoshdastidar et al. 2019, Algorithm 1) merges the pair with the largest `W`.
//!
//! **Fast form.** Grouping the sum by item pairs, `W(G_p,G_q) = S(p,q) / (K(K−1)|G_p||G_q|)`
//! with `S(p,q) = Σ_{e∈G_p×G_q} Σ_f c(e,f) ω(f)` and the weight `ω(f) = 2/(|G_x||G_y|)` of an
//! item pair `f = {x,y}` across clusters (0 inside a cluster). A merge of G_r and G_s only
//! changes the weights of the pairs incident to the merged items, so it updates `S` by
//! `c(e,f)·Δω(f)` for every comparison touching those pairs, adds the rows of r and s, and
//! scans the `K²/2` cluster pairs for the next maximum. Ties are broken towards the smallest
//! `(min id, max id)` pair, in both the fast and the naive implementation.

use crate::data::Comparisons;
use crate::observe::{Observer, progress};

use super::common::{IntMap, pair_key, quadruplet_entries, unpack};
use super::{Dendrogram, HierarchyError, Merge};

/// Parameters of 4-AL (Ghoshdastidar et al. 2019, §3.3): optionally a partition of the items into initial clusters
/// (4-AL-I3 / 4-AL-I5 in Ghoshdastidar et al. 2019, §4.1), which are merged first (in item order, at height 0)
/// before the quadruplet linkage takes over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FourAlParams {
    initial_clusters: Option<Vec<usize>>,
}

/// What a 4-AL run reports besides its dendrogram.
#[derive(Clone, Debug, PartialEq)]
pub struct FourAlInfo {
    /// Distinct informative comparisons (unordered pair vs pair, net count ≠ 0).
    pub comparisons: usize,
    /// Rows skipped because they compare a pair with itself or contain a repeated item.
    pub skipped: usize,
    /// Merges made inside the initial clusters (height 0) before 4-AL proper.
    pub initial_merges: usize,
    /// The cluster similarity `W(G_p, G_q)` of eq. 5 at each 4-AL merge, in order.
    pub linkage: Vec<f64>,
}

/// A fitted 4-AL hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct FourAl {
    /// The dendrogram. Heights are `0` for initial-cluster merges and the merge rank
    /// `1, 2, …` afterwards (eq. 5 values are not monotone; they are in
    /// [`FourAlInfo::linkage`]).
    pub dendrogram: Dendrogram,
    /// Run information.
    pub info: FourAlInfo,
}

impl FourAlParams {
    /// Default parameters: start from singletons (plain 4-AL).
    pub fn new() -> Self {
        Self::default()
    }

    /// Start from this partition (one label per item; any label values).
    pub fn with_initial_clusters(mut self, labels: Vec<usize>) -> Self {
        self.initial_clusters = Some(labels);
        self
    }

    /// Validate against `n` items.
    pub fn check(&self, n: usize) -> Result<(), HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        if let Some(l) = &self.initial_clusters
            && l.len() != n
        {
            return Err(HierarchyError::InitialClustersLength {
                labels: l.len(),
                n_items: n,
            });
        }
        Ok(())
    }

    /// Run 4-AL on `n` items. The observer sees the progress after each merge.
    pub fn fit(
        &self,
        n: usize,
        comparisons: &Comparisons,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<FourAl, HierarchyError> {
        self.check(n)?;
        let (entries, skipped) = quadruplet_entries(n, comparisons, "4-AL")?;
        let forced = chain_merges(n, self.initial_clusters.as_deref());
        let mut engine = Engine::new(n, &entries)?;
        drop(entries);
        let total = n - 1;
        for &(a, b) in &forced {
            engine.merge_ids(a, b, 0.0);
            progress(&mut observer, engine.steps.len(), total);
        }
        let mut linkage = Vec::with_capacity(total - forced.len());
        while engine.steps.len() < total {
            check_cancelled()?;
            let (p, q, a) = engine.best();
            let k = engine.alive.len() as f64;
            linkage.push(a / (k * (k - 1.0)));
            engine.merge(p, q, linkage.len() as f64);
            progress(&mut observer, engine.steps.len(), total);
        }
        let comparisons_used = engine.n_entries;
        let dendrogram = Dendrogram::new(n, engine.steps)?;
        Ok(FourAl {
            dendrogram,
            info: FourAlInfo {
                comparisons: comparisons_used,
                skipped,
                initial_merges: forced.len(),
                linkage,
            },
        })
    }
}

/// 4-AL from singletons (Ghoshdastidar et al. 2019, eq. 4-5) in one call.
pub fn four_al(n: usize, comparisons: &Comparisons) -> Result<Dendrogram, HierarchyError> {
    Ok(FourAlParams::new().fit(n, comparisons, None)?.dendrogram)
}

/// Initial clusters as built for 4-AL-I3 / 4-AL-I5 in Ghoshdastidar et al. 2019, §4.1: the items of each true
/// (pure) cluster are drawn uniformly without replacement into groups of `size` (a smaller
/// remainder group when `size` does not divide the cluster). Returns one label per item.
pub fn initial_clusters_from_truth(
    truth: &[usize],
    size: usize,
    seed: u64,
) -> Result<Vec<usize>, HierarchyError> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    if size == 0 {
        return Err(HierarchyError::BadParameter {
            name: "size",
            value: "0".into(),
            reason: "initial clusters need at least one item",
        });
    }
    let mut classes: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &c) in truth.iter().enumerate() {
        classes.entry(c).or_default().push(i);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![0; truth.len()];
    let mut next = 0;
    for (_, mut members) in classes {
        members.shuffle(&mut rng);
        for chunk in members.chunks(size) {
            for &i in chunk {
                out[i] = next;
            }
            next += 1;
        }
    }
    Ok(out)
}

/// The merges that build the initial clusters: clusters in order of their smallest item, each
/// grown item by item in increasing order. Returns cluster-id pairs in the scipy convention.
pub(crate) fn chain_merges(n: usize, labels: Option<&[usize]>) -> Vec<(usize, usize)> {
    let Some(labels) = labels else {
        return Vec::new();
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
    for (i, &l) in labels.iter().enumerate() {
        let g = *group_of.entry(l).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    let mut out = Vec::new();
    for g in groups {
        let mut cur = g[0];
        for &y in &g[1..] {
            out.push((cur.min(y), cur.max(y)));
            cur = n + out.len() - 1;
        }
    }
    out
}

/// The fast 4-AL state.
///
/// Item pairs that occur in comparisons get compact ids; `L(g)` lists, for every such pair
/// `g`, the pairs `h` compared with it and `c(h, g)`, so that a change `Δ` of the weight
/// `ω(g) = 2/(|G_x||G_y|)` moves the cluster-pair score `S(cl(h))` by `c(h,g)·Δ`. The scores
/// `S(p, q) = Σ_{e∈G_p×G_q} Σ_f c(e,f) ω(f)` live in a dense symmetric slot matrix (a merged
/// cluster takes the slot of its first child). A merge visits the pairs incident to the
/// merged items and the comparisons that touch them: `O(Σ_{x∈G_m} deg(x) + Σ |L(g)|)`, plus
/// an `O(K²)` scan for the next best pair.
struct Engine {
    n: usize,
    ends: Vec<(u32, u32)>,
    l_off: Vec<usize>,
    l_other: Vec<u32>,
    l_c: Vec<i32>,
    inc_off: Vec<usize>,
    inc: Vec<u32>,
    /// item → slot
    cl: Vec<u32>,
    members: Vec<Vec<u32>>,
    size: Vec<f64>,
    /// slot → cluster id (scipy convention)
    id: Vec<usize>,
    /// alive slots
    alive: Vec<u32>,
    s: Vec<f64>,
    steps: Vec<Merge>,
    n_entries: usize,
}

/// [`HierarchyError::Cancelled`] when the run was cancelled ([`crate::cancel`]).
fn check_cancelled() -> Result<(), HierarchyError> {
    if crate::cancel::requested() {
        Err(HierarchyError::Cancelled)
    } else {
        Ok(())
    }
}

/// [`check_cancelled`] at every [`CHECK_EVERY`](crate::cancel::CHECK_EVERY)-th row `i` of a
/// loop (including the first).
fn every_rows(i: usize) -> Result<(), HierarchyError> {
    if crate::cancel::requested_every(i) {
        Err(HierarchyError::Cancelled)
    } else {
        Ok(())
    }
}

impl Engine {
    /// The state of singletons. Checks for cancellation between its passes over the entries
    /// and every [`CHECK_EVERY`](crate::cancel::CHECK_EVERY) rows of the long ones.
    fn new(n: usize, entries: &[(u64, u64, i64)]) -> Result<Self, HierarchyError> {
        // compact ids of the item pairs that occur
        let mut keys: Vec<u64> = Vec::with_capacity(2 * entries.len());
        for &(e, f, _) in entries {
            keys.push(e);
            keys.push(f);
        }
        check_cancelled()?;
        keys.sort_unstable();
        keys.dedup();
        check_cancelled()?;
        let mut index: IntMap<u64, u32> = IntMap::default();
        index.reserve(keys.len());
        for (i, &k) in keys.iter().enumerate() {
            every_rows(i)?;
            index.insert(k, i as u32);
        }
        let ends: Vec<(u32, u32)> = keys.iter().map(|&k| unpack(k)).collect();
        let m = keys.len();
        drop(keys);
        let mut ids: Vec<(u32, u32)> = Vec::with_capacity(entries.len());
        for (i, &(e, f, _)) in entries.iter().enumerate() {
            every_rows(i)?;
            ids.push((index[&e], index[&f]));
        }
        drop(index);
        // L(g): for (e, f, c): L(f) ∋ (e, c), L(e) ∋ (f, −c)
        let mut deg = vec![0usize; m + 1];
        for &(e, f) in &ids {
            deg[e as usize] += 1;
            deg[f as usize] += 1;
        }
        let mut l_off = vec![0usize; m + 1];
        for g in 0..m {
            l_off[g + 1] = l_off[g] + deg[g];
        }
        let mut fill = l_off.clone();
        let mut l_other = vec![0u32; l_off[m]];
        let mut l_c = vec![0i32; l_off[m]];
        for (i, (&(e, f), &(_, _, c))) in ids.iter().zip(entries).enumerate() {
            every_rows(i)?;
            let c = c.clamp(i64::from(i32::MIN + 1), i64::from(i32::MAX)) as i32;
            let k = fill[f as usize];
            l_other[k] = e;
            l_c[k] = c;
            fill[f as usize] += 1;
            let k = fill[e as usize];
            l_other[k] = f;
            l_c[k] = -c;
            fill[e as usize] += 1;
        }
        drop(fill);
        check_cancelled()?;
        // incident pairs per item
        let mut ideg = vec![0usize; n + 1];
        for &(a, b) in &ends {
            ideg[a as usize] += 1;
            ideg[b as usize] += 1;
        }
        let mut inc_off = vec![0usize; n + 1];
        for x in 0..n {
            inc_off[x + 1] = inc_off[x] + ideg[x];
        }
        let mut fill = inc_off.clone();
        let mut inc = vec![0u32; inc_off[n]];
        for (g, &(a, b)) in ends.iter().enumerate() {
            inc[fill[a as usize]] = g as u32;
            fill[a as usize] += 1;
            inc[fill[b as usize]] = g as u32;
            fill[b as usize] += 1;
        }
        check_cancelled()?;
        // S for singletons: ω = 2 everywhere
        let mut s = vec![0.0f64; n * n];
        for (i, (&(e, f), &(_, _, c))) in ids.iter().zip(entries).enumerate() {
            every_rows(i)?;
            let (a, b) = ends[e as usize];
            s[a as usize * n + b as usize] += 2.0 * c as f64;
            let (a, b) = ends[f as usize];
            s[a as usize * n + b as usize] -= 2.0 * c as f64;
        }
        check_cancelled()?;
        Ok(Engine {
            n,
            ends,
            l_off,
            l_other,
            l_c,
            inc_off,
            inc,
            cl: (0..n as u32).collect(),
            members: (0..n as u32).map(|i| vec![i]).collect(),
            size: vec![1.0; n],
            id: (0..n).collect(),
            alive: (0..n as u32).collect(),
            s,
            steps: Vec::with_capacity(n.saturating_sub(1)),
            n_entries: entries.len(),
        })
    }

    #[inline]
    fn at(&self, p: u32, q: u32) -> usize {
        let (p, q) = if p < q { (p, q) } else { (q, p) };
        p as usize * self.n + q as usize
    }

    /// The best pair of slots and its `A = S/(|G_p||G_q|)`: largest `A`, then smallest
    /// `(min id, max id)`.
    fn best(&self) -> (u32, u32, f64) {
        let mut best: Option<(f64, (usize, usize), u32, u32)> = None;
        for (i, &p) in self.alive.iter().enumerate() {
            let row = p as usize * self.n;
            let inv_p = 1.0 / self.size[p as usize];
            for &q in &self.alive[i + 1..] {
                let sv = if p < q {
                    self.s[row + q as usize]
                } else {
                    self.s[q as usize * self.n + p as usize]
                };
                let a = sv * inv_p / self.size[q as usize];
                let better = match &best {
                    None => true,
                    Some((ba, bk, _, _)) => {
                        a > *ba
                            || (a == *ba && {
                                let (x, y) = (self.id[p as usize], self.id[q as usize]);
                                (x.min(y), x.max(y)) < *bk
                            })
                    }
                };
                if better {
                    let (x, y) = (self.id[p as usize], self.id[q as usize]);
                    best = Some((a, (x.min(y), x.max(y)), p, q));
                }
            }
        }
        let (a, _, p, q) = best.expect("at least two clusters");
        (p, q, a)
    }

    /// Merge the clusters with ids `a` and `b` (used for the initial clusters).
    fn merge_ids(&mut self, a: usize, b: usize, height: f64) {
        let slot = |id: usize| {
            self.alive
                .iter()
                .copied()
                .find(|&p| self.id[p as usize] == id)
                .expect("alive cluster")
        };
        let (r, s) = (slot(a), slot(b));
        self.merge(r, s, height);
    }

    /// Merge slots `r` and `s`; the new cluster takes slot `r`.
    fn merge(&mut self, r: u32, s: u32, height: f64) {
        let (sr, ss) = (self.size[r as usize], self.size[s as usize]);
        let sm = sr + ss;
        let (ida, idb) = (self.id[r as usize], self.id[s as usize]);
        self.steps.push(Merge {
            a: ida.min(idb),
            b: ida.max(idb),
            height,
            size: sm as usize,
        });
        for side in [r, s] {
            let s_side = self.size[side as usize];
            for mi in 0..self.members[side as usize].len() {
                let x = self.members[side as usize][mi];
                for k in self.inc_off[x as usize]..self.inc_off[x as usize + 1] {
                    let f = self.inc[k] as usize;
                    let (a, b) = self.ends[f];
                    let y = if a == x { b } else { a };
                    let cy = self.cl[y as usize];
                    let d = if cy == side {
                        continue; // inside one child: weight 0 before and after
                    } else if cy == r || cy == s {
                        if side != r {
                            continue; // across the two children: handled once
                        }
                        -2.0 / (sr * ss)
                    } else {
                        let st = self.size[cy as usize];
                        2.0 / (sm * st) - 2.0 / (s_side * st)
                    };
                    for j in self.l_off[f]..self.l_off[f + 1] {
                        let (ea, eb) = self.ends[self.l_other[j] as usize];
                        let (p, q) = (self.cl[ea as usize], self.cl[eb as usize]);
                        if p != q {
                            let at = self.at(p, q);
                            self.s[at] += f64::from(self.l_c[j]) * d;
                        }
                    }
                }
            }
        }
        // rows of r and s combine into the new cluster's row (slot r)
        for i in 0..self.alive.len() {
            let t = self.alive[i];
            if t == r || t == s {
                continue;
            }
            let (ar, as_) = (self.at(r, t), self.at(s, t));
            self.s[ar] += self.s[as_];
            self.s[as_] = 0.0;
        }
        let ars = self.at(r, s);
        self.s[ars] = 0.0;
        let moved = std::mem::take(&mut self.members[s as usize]);
        for &x in &moved {
            self.cl[x as usize] = r;
        }
        self.members[r as usize].extend(moved);
        self.size[r as usize] = sm;
        self.id[r as usize] = self.n + self.steps.len() - 1;
        self.alive.retain(|&t| t != s);
    }
}

/// A run of the naive reference implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct NaiveFourAl {
    /// The dendrogram (same conventions as [`FourAl::dendrogram`]).
    pub dendrogram: Dendrogram,
    /// `W` of eq. 5 at each 4-AL merge.
    pub linkage: Vec<f64>,
    /// The smallest gap between the best and second-best `W` over all 4-AL merges
    /// (`+∞` when there was never a second candidate): small gaps mean near-ties.
    pub min_gap: f64,
}

/// Naive 4-AL straight from Ghoshdastidar et al. 2019, eq. 4-5: at every step, evaluate eq. 5 for every cluster pair
/// by summing eq. 4 over all ordered pairs `(r, s)`, `r ≠ s`, and all item quadruples.
/// `O(K² · N⁴)` per merge: a reference for tests on a handful of items only.
pub fn four_al_naive(
    n: usize,
    comparisons: &Comparisons,
    initial_clusters: Option<&[usize]>,
) -> Result<NaiveFourAl, HierarchyError> {
    FourAlParams {
        initial_clusters: initial_clusters.map(<[usize]>::to_vec),
    }
    .check(n)?;
    let (entries, _) = quadruplet_entries(n, comparisons, "4-AL")?;
    let mut c: IntMap<(u64, u64), i64> = IntMap::default();
    for &(e, f, v) in &entries {
        c.insert((e, f), v);
        c.insert((f, e), -v);
    }
    let cval = |i: usize, j: usize, k: usize, l: usize| -> f64 {
        if i == j || k == l {
            return 0.0;
        }
        let e = pair_key(i as u32, j as u32);
        let f = pair_key(k as u32, l as u32);
        c.get(&(e, f)).copied().unwrap_or(0) as f64
    };
    // clusters as (id, members), ascending id
    let mut clusters: Vec<(usize, Vec<usize>)> = (0..n).map(|i| (i, vec![i])).collect();
    let mut steps = Vec::new();
    let do_merge = |clusters: &mut Vec<(usize, Vec<usize>)>,
                    steps: &mut Vec<Merge>,
                    a: usize,
                    b: usize,
                    height: f64| {
        let pa = clusters.iter().position(|c| c.0 == a).expect("alive");
        let mut ma = clusters.remove(pa).1;
        let pb = clusters.iter().position(|c| c.0 == b).expect("alive");
        let mb = clusters.remove(pb).1;
        ma.extend(mb);
        let id = n + steps.len();
        steps.push(Merge {
            a: a.min(b),
            b: a.max(b),
            height,
            size: ma.len(),
        });
        clusters.push((id, ma));
    };
    for (a, b) in chain_merges(n, initial_clusters) {
        do_merge(&mut clusters, &mut steps, a, b, 0.0);
    }
    let mut linkage = Vec::new();
    let mut min_gap = f64::INFINITY;
    while clusters.len() > 1 {
        let k = clusters.len();
        let mut best: Option<(f64, usize, usize)> = None;
        let mut second = f64::NEG_INFINITY;
        for p in 0..k {
            for q in p + 1..k {
                let mut total = 0.0;
                for r in 0..k {
                    for s in 0..k {
                        if r == s {
                            continue;
                        }
                        // eq. 4
                        let mut sum = 0.0;
                        for &i in &clusters[p].1 {
                            for &j in &clusters[q].1 {
                                for &kk in &clusters[r].1 {
                                    for &l in &clusters[s].1 {
                                        sum += cval(i, j, kk, l);
                                    }
                                }
                            }
                        }
                        let denom = (clusters[p].1.len()
                            * clusters[q].1.len()
                            * clusters[r].1.len()
                            * clusters[s].1.len()) as f64;
                        total += sum / denom;
                    }
                }
                // eq. 5
                let w = total / (k * (k - 1)) as f64;
                match best {
                    Some((bw, _, _)) if w <= bw => second = second.max(w),
                    _ => {
                        if let Some((bw, _, _)) = best {
                            second = second.max(bw);
                        }
                        best = Some((w, p, q));
                    }
                }
            }
        }
        let (w, p, q) = best.expect("at least two clusters");
        min_gap = min_gap.min(w - second);
        linkage.push(w);
        let (a, b) = (clusters[p].0, clusters[q].0);
        do_merge(&mut clusters, &mut steps, a, b, linkage.len() as f64);
    }
    Ok(NaiveFourAl {
        dendrogram: Dendrogram::new(n, steps)?,
        linkage,
        min_gap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Quadruplet;

    fn q(a: u32, b: u32, c: u32, d: u32) -> Quadruplet {
        Quadruplet::new(a, b, c, d)
    }

    #[test]
    fn two_obvious_groups() {
        // items {0,1} and {2,3}: within-pairs beat across-pairs
        let mut rows = Vec::new();
        for (a, b) in [(0, 1), (2, 3)] {
            for (c, d) in [(0, 2), (0, 3), (1, 2), (1, 3)] {
                rows.push(q(a, b, c, d));
            }
        }
        rows.push(q(0, 1, 2, 3)); // (0,1) is the tightest pair
        let cmp = Comparisons::Quadruplets(rows);
        let fit = FourAlParams::new().fit(4, &cmp, None).unwrap();
        let s = fit.dendrogram.steps();
        assert_eq!((s[0].a, s[0].b), (0, 1));
        assert_eq!((s[1].a, s[1].b), (2, 3));
        assert_eq!((s[2].a, s[2].b), (4, 5));
        let naive = four_al_naive(4, &cmp, None).unwrap();
        assert_eq!(naive.dendrogram, fit.dendrogram);
        for (x, y) in naive.linkage.iter().zip(&fit.info.linkage) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
    }

    #[test]
    fn initial_clusters_are_merged_first() {
        let cmp = Comparisons::Quadruplets(vec![q(0, 3, 1, 2)]);
        let fit = FourAlParams::new()
            .with_initial_clusters(vec![7, 5, 5, 7])
            .fit(4, &cmp, None)
            .unwrap();
        let s = fit.dendrogram.steps();
        assert_eq!((s[0].a, s[0].b, s[0].height), (0, 3, 0.0));
        assert_eq!((s[1].a, s[1].b, s[1].height), (1, 2, 0.0));
        assert_eq!(fit.info.initial_merges, 2);
        assert_eq!(fit.dendrogram.cut(2).unwrap(), vec![0, 1, 1, 0]);
    }

    /// Random rows over `n` items (fixed seed), enough for several cancellation checks.
    fn many_rows(n: u32, rows: u32) -> Comparisons {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let mut item = || rng.random_range(0..n);
        Comparisons::Quadruplets(
            (0..rows)
                .map(|_| q(item(), item(), item(), item()))
                .collect(),
        )
    }

    #[test]
    fn every_cancellation_check_of_four_al_stops_it() {
        use crate::cancel::{CHECK_EVERY, stops_at_every_check};
        let (n, rows) = (60, 2 * CHECK_EVERY as u32 + 1);
        let cmp = many_rows(n, rows);
        let checks = stops_at_every_check(
            1000,
            || FourAlParams::new().fit(n as usize, &cmp, None),
            |e| *e == HierarchyError::Cancelled,
        );
        // quadruplet_entries: per CHECK_EVERY rows while validating and while counting, then
        // after the sort; Engine::new: 5 between its passes, per CHECK_EVERY pairs while
        // numbering the pairs and per CHECK_EVERY entries in 3 passes; then one per merge.
        let (entries, _) = quadruplet_entries(n as usize, &cmp, "4-AL").unwrap();
        let mut pairs: Vec<u64> = entries.iter().flat_map(|&(e, f, _)| [e, f]).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let per = |len: usize| len.div_ceil(CHECK_EVERY);
        assert!(per(entries.len()) > 1, "the entries span several checks");
        let expected = 2 * per(rows as usize)
            + 1
            + 5
            + per(pairs.len())
            + 3 * per(entries.len())
            + (n as usize - 1);
        assert_eq!(checks, expected);
    }

    #[test]
    fn rejects_bad_input() {
        let cmp = Comparisons::Quadruplets(vec![q(0, 1, 2, 9)]);
        assert!(matches!(
            four_al(4, &cmp),
            Err(HierarchyError::ItemOutOfRange { item: 9, .. })
        ));
        assert!(matches!(
            FourAlParams::new().with_initial_clusters(vec![0]).fit(
                4,
                &Comparisons::Quadruplets(vec![]),
                None
            ),
            Err(HierarchyError::InitialClustersLength { .. })
        ));
        assert_eq!(
            four_al(0, &Comparisons::Quadruplets(vec![])),
            Err(HierarchyError::NoItems)
        );
        // no comparisons at all: still a valid dendrogram
        let d = four_al(3, &Comparisons::Quadruplets(vec![])).unwrap();
        assert_eq!(d.steps().len(), 2);
    }
}
