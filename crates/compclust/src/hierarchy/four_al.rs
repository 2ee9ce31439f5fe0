//! 4-AL: quadruplets-based average linkage (002 §3.3, eq. 4-5).
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
//! Agglomerative clustering (002 Algorithm 1) merges the pair with the largest `W`.
//!
//! **Fast form.** Grouping the sum by cluster pairs,
//! `W(G_p,G_q) = S(p,q) / (K(K−1)|G_p||G_q|)` with `S(p,q) = Σ_{r<s} C(pq, rs) · 2/(|G_r||G_s|)`
//! and `C(pq, rs) = Σ_{e∈G_p×G_q, f∈G_r×G_s} c(e, f)`, an integer, antisymmetric, sparse
//! matrix over cluster pairs with at most one nonzero per distinct comparison. Merging G_r and
//! G_s into G_m adds the rows (and columns) of `(r,t)` and `(s,t)` into `(m,t)`, drops
//! `(r,s)`, and changes the weight of the columns `(m,t)` only, so one merge costs a hash
//! update per nonzero touching the merged clusters, plus `O(K)` bookkeeping. A lazy max-heap
//! with version stamps finds the best pair. Ties are broken towards the smallest
//! `(min id, max id)` pair, in both the fast and the naive implementation.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::data::Comparisons;

use super::common::{IntMap, pair_key, quadruplet_entries, unpack};
use super::{Dendrogram, HierarchyError, Merge};

/// Parameters of 4-AL (002 §3.3): optionally a partition of the items into initial clusters
/// (4-AL-I3 / 4-AL-I5 in 002 §4.1), which are merged first (in item order, at height 0)
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
    pub fn initial_clusters(mut self, labels: Vec<usize>) -> Self {
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

    /// Run 4-AL on `n` items. `progress(done, total)` is called after each merge.
    pub fn fit(
        &self,
        n: usize,
        comparisons: &Comparisons,
        mut progress: Option<&mut dyn FnMut(usize, usize)>,
    ) -> Result<FourAl, HierarchyError> {
        self.check(n)?;
        let (entries, skipped) = quadruplet_entries(n, comparisons, "4-AL")?;
        let forced = chain_merges(n, self.initial_clusters.as_deref());
        let mut engine = Engine::new(n, &entries);
        drop(entries);
        let total = n - 1;
        for &(a, b) in &forced {
            engine.merge(a as u32, b as u32, 0.0);
            if let Some(p) = progress.as_mut() {
                p(engine.steps.len(), total);
            }
        }
        let mut linkage = Vec::with_capacity(total - forced.len());
        while engine.steps.len() < total {
            let (key, a) = engine.best();
            let k = engine.alive.len() as f64;
            linkage.push(a / (k * (k - 1.0)));
            let (p, q) = unpack(key);
            engine.merge(p, q, linkage.len() as f64);
            if let Some(pr) = progress.as_mut() {
                pr(engine.steps.len(), total);
            }
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

/// 4-AL from singletons (002 eq. 4-5) in one call.
pub fn four_al(n: usize, comparisons: &Comparisons) -> Result<Dendrogram, HierarchyError> {
    Ok(FourAlParams::new().fit(n, comparisons, None)?.dendrogram)
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

/// One cluster pair's row of `C` and its score `S`.
struct Row {
    cols: IntMap<u64, i64>,
    s: f64,
    version: u32,
}

/// Heap entry: `A = S/(|G_p||G_q|)`, larger first, then smaller key first.
struct Entry {
    a: f64,
    key: u64,
    version: u32,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        self.a
            .total_cmp(&o.a)
            .then_with(|| o.key.cmp(&self.key))
            .then_with(|| self.version.cmp(&o.version))
    }
}

struct Engine {
    n: usize,
    size: Vec<u32>,
    /// Alive cluster ids, ascending (new ids are always the largest).
    alive: Vec<u32>,
    rows: IntMap<u64, Row>,
    heap: BinaryHeap<Entry>,
    steps: Vec<Merge>,
    n_entries: usize,
}

impl Engine {
    fn new(n: usize, entries: &[(u64, u64, i64)]) -> Self {
        let mut rows: IntMap<u64, Row> = IntMap::default();
        for &(e, f, c) in entries {
            for (x, y, v) in [(e, f, c), (f, e, -c)] {
                rows.entry(x)
                    .or_insert_with(|| Row {
                        cols: IntMap::default(),
                        s: 0.0,
                        version: 0,
                    })
                    .cols
                    .insert(y, v);
            }
        }
        let mut heap = BinaryHeap::with_capacity(rows.len());
        for (&key, row) in rows.iter_mut() {
            row.s = 2.0 * row.cols.values().map(|&v| v as f64).sum::<f64>();
            heap.push(Entry {
                a: row.s,
                key,
                version: 0,
            });
        }
        Engine {
            n,
            size: vec![1; n],
            alive: (0..n as u32).collect(),
            rows,
            heap,
            steps: Vec::with_capacity(n.saturating_sub(1)),
            n_entries: entries.len(),
        }
    }

    #[inline]
    fn weight(&self, key: u64) -> f64 {
        let (x, y) = unpack(key);
        2.0 / (f64::from(self.size[x as usize]) * f64::from(self.size[y as usize]))
    }

    #[inline]
    fn a_of(&self, key: u64, s: f64) -> f64 {
        let (x, y) = unpack(key);
        s / (f64::from(self.size[x as usize]) * f64::from(self.size[y as usize]))
    }

    /// The best pair and its `A = S/(|G_p||G_q|)`.
    fn best(&mut self) -> (u64, f64) {
        let top = loop {
            match self.heap.peek() {
                None => break None,
                Some(e) => match self.rows.get(&e.key) {
                    Some(r) if r.version == e.version => break Some((e.key, e.a)),
                    _ => {
                        self.heap.pop();
                    }
                },
            }
        };
        let k = self.alive.len();
        let implicit = k * (k - 1) / 2 > self.rows.len();
        if implicit {
            let z = self.smallest_implicit();
            match top {
                Some((key, a)) if a > 0.0 || (a == 0.0 && key < z) => (key, a),
                _ => (z, 0.0),
            }
        } else {
            top.expect("every alive pair has a row")
        }
    }

    /// The smallest alive pair without any comparison (its score is exactly 0).
    fn smallest_implicit(&self) -> u64 {
        for (i, &p) in self.alive.iter().enumerate() {
            for &q in &self.alive[i + 1..] {
                let key = pair_key(p, q);
                if !self.rows.contains_key(&key) {
                    return key;
                }
            }
        }
        unreachable!("called only when an implicit pair exists")
    }

    fn push(&mut self, key: u64) {
        let row = &self.rows[&key];
        self.heap.push(Entry {
            a: self.a_of(key, row.s),
            key,
            version: row.version,
        });
    }

    fn merge(&mut self, r: u32, s: u32, height: f64) {
        let m = (self.n + self.steps.len()) as u32;
        let (ru, su) = (r as usize, s as usize);
        let new_size = self.size[ru] + self.size[su];
        self.steps.push(Merge {
            a: ru.min(su),
            b: ru.max(su),
            height,
            size: new_size as usize,
        });
        self.alive.retain(|&t| t != r && t != s);
        let rs = pair_key(r, s);
        // take out every row of a pair touching r or s
        let mut taken: IntMap<u64, IntMap<u64, i64>> = IntMap::default();
        for &t in &self.alive {
            for x in [r, s] {
                if let Some(row) = self.rows.remove(&pair_key(x, t)) {
                    taken.insert(pair_key(x, t), row.cols);
                }
            }
        }
        if let Some(row) = self.rows.remove(&rs) {
            taken.insert(rs, row.cols);
        }
        // old weights, before the size of m exists
        let old_weight: IntMap<u64, f64> = taken.keys().map(|&k| (k, self.weight(k))).collect();
        self.size.push(new_size);
        let rename = |col: u64| -> Option<u64> {
            if col == rs {
                return None;
            }
            let (x, y) = unpack(col);
            let t = if x == r || x == s { y } else { x };
            Some(pair_key(m, t))
        };
        // mirror entries in rows that stay: rename their columns, adjust their scores
        let mut delta: IntMap<u64, f64> = IntMap::default();
        for (&xk, cols) in &taken {
            let w_old = old_weight[&xk];
            let newk = rename(xk);
            let w_new = newk.map(|k| self.weight(k));
            for (&col, &v) in cols {
                if taken.contains_key(&col) {
                    continue;
                }
                let row = self
                    .rows
                    .get_mut(&col)
                    .expect("C is antisymmetric: the mirror row exists");
                row.cols.remove(&xk);
                let mut d = v as f64 * w_old;
                if let (Some(nk), Some(wn)) = (newk, w_new) {
                    let e = row.cols.entry(nk).or_default();
                    *e -= v;
                    if *e == 0 {
                        row.cols.remove(&nk);
                    }
                    d -= v as f64 * wn;
                }
                *delta.entry(col).or_default() += d;
            }
        }
        // new rows (m, t)
        let others = self.alive.clone();
        for &t in &others {
            let mut cols: IntMap<u64, i64> = IntMap::default();
            for x in [r, s] {
                if let Some(c) = taken.get(&pair_key(x, t)) {
                    for (&col, &v) in c {
                        let col2 = if taken.contains_key(&col) {
                            match rename(col) {
                                Some(k) => k,
                                None => continue,
                            }
                        } else {
                            col
                        };
                        *cols.entry(col2).or_default() += v;
                    }
                }
            }
            cols.retain(|_, v| *v != 0);
            if !cols.is_empty() {
                let s_new: f64 = cols.iter().map(|(&c, &v)| v as f64 * self.weight(c)).sum();
                let key = pair_key(m, t);
                self.rows.insert(
                    key,
                    Row {
                        cols,
                        s: s_new,
                        version: 0,
                    },
                );
                self.push(key);
            }
        }
        self.alive.push(m);
        // rows whose columns changed
        let mut changed: Vec<(u64, f64)> = delta.into_iter().collect();
        changed.sort_unstable_by_key(|e| e.0);
        for (key, d) in changed {
            let row = self.rows.get_mut(&key).expect("touched row exists");
            if row.cols.is_empty() {
                self.rows.remove(&key);
                continue;
            }
            row.s += d;
            row.version = row.version.wrapping_add(1);
            self.push(key);
        }
        if self.heap.len() > 2 * self.rows.len() + 1024 {
            self.rebuild_heap();
        }
    }

    fn rebuild_heap(&mut self) {
        let entries: Vec<Entry> = self
            .rows
            .iter()
            .map(|(&key, row)| Entry {
                a: self.a_of(key, row.s),
                key,
                version: row.version,
            })
            .collect();
        self.heap = BinaryHeap::from(entries);
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

/// Naive 4-AL straight from 002 eq. 4-5: at every step, evaluate eq. 5 for every cluster pair
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
            .initial_clusters(vec![7, 5, 5, 7])
            .fit(4, &cmp, None)
            .unwrap();
        let s = fit.dendrogram.steps();
        assert_eq!((s[0].a, s[0].b, s[0].height), (0, 3, 0.0));
        assert_eq!((s[1].a, s[1].b, s[1].height), (1, 2, 0.0));
        assert_eq!(fit.info.initial_merges, 2);
        assert_eq!(fit.dendrogram.cut(2).unwrap(), vec![0, 1, 1, 0]);
    }

    #[test]
    fn rejects_bad_input() {
        let cmp = Comparisons::Quadruplets(vec![q(0, 1, 2, 9)]);
        assert!(matches!(
            four_al(4, &cmp),
            Err(HierarchyError::ItemOutOfRange { item: 9, .. })
        ));
        assert!(matches!(
            FourAlParams::new().initial_clusters(vec![0]).fit(
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
