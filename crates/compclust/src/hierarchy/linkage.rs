//! Comparison-based single and complete linkage (002 §3.1) as active step machines.
//!
//! SL and CL only need the order of the pairwise similarities (002 Prop. 1): the machine sorts
//! the `N(N−1)/2` item pairs by similarity with a bottom-up merge sort whose comparisons are
//! quadruplet queries "is w_ab > w_cd?" (all merges of one level are asked as one batch), then
//! runs single or complete linkage (kodama) on the ranks. This uses `O(N² log N)` queries, the
//! upper bound of Prop. 1. The same machine runs from a passive set of quadruplets
//! ([`QuadrupletTable`]), reporting the comparisons it needed and did not find.

use std::str::FromStr;

use crate::active::{Oracle, RunOutcome, Step, StepMachine, run};
use crate::data::{Comparisons, Quadruplet};

use super::common::{IntMap, from_kodama, pair_key, quadruplet_entries};
use super::{Dendrogram, HierarchyError};

/// Which cluster similarity of 002 §2.1 the comparison-based linkage uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// Single linkage (SL): `W(G, G') = max w_ij`.
    Single,
    /// Complete linkage (CL): `W(G, G') = min w_ij`.
    Complete,
}

impl Linkage {
    /// The short name (`sl` / `cl`).
    pub fn name(self) -> &'static str {
        match self {
            Linkage::Single => "SL",
            Linkage::Complete => "CL",
        }
    }
}

impl FromStr for Linkage {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sl" | "single" => Ok(Linkage::Single),
            "cl" | "complete" => Ok(Linkage::Complete),
            other => Err(format!("unknown linkage `{other}`; expected sl or cl")),
        }
    }
}

struct MergeState {
    left: Vec<u32>,
    right: Vec<u32>,
    i: usize,
    j: usize,
    out: Vec<u32>,
}

impl MergeState {
    /// Append the rest when one side is exhausted; true when done.
    fn settle(&mut self) -> bool {
        if self.i == self.left.len() {
            self.out.extend_from_slice(&self.right[self.j..]);
            self.j = self.right.len();
            true
        } else if self.j == self.right.len() {
            self.out.extend_from_slice(&self.left[self.i..]);
            self.i = self.left.len();
            true
        } else {
            false
        }
    }
}

/// Active SL / CL (002 §3.1): asks quadruplet queries `Quadruplet{a,b,c,d}` meaning "is
/// `w_ab > w_cd`?" (answer `true` when yes) and produces the dendrogram. Merge heights are
/// the rank of the linking pair's similarity (0 = most similar pair).
pub struct LinkageMachine {
    n: usize,
    method: Linkage,
    pairs: Vec<(u32, u32)>,
    runs: Vec<Vec<u32>>,
    merges: Vec<MergeState>,
    carry: Option<Vec<u32>>,
    pending: IntMap<u64, usize>,
    order: Option<Vec<u32>>,
    answered: usize,
}

impl LinkageMachine {
    /// A machine for `n ≥ 1` items.
    pub fn new(n: usize, method: Linkage) -> Result<Self, HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        crate::limits::check_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
        let mut pairs = Vec::with_capacity(n * (n - 1) / 2);
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                pairs.push((a, b));
            }
        }
        let runs = (0..pairs.len() as u32).map(|p| vec![p]).collect();
        Ok(LinkageMachine {
            n,
            method,
            pairs,
            runs,
            merges: Vec::new(),
            carry: None,
            pending: IntMap::default(),
            order: None,
            answered: 0,
        })
    }

    /// Answers observed so far.
    pub fn answered(&self) -> usize {
        self.answered
    }
}

impl StepMachine for LinkageMachine {
    type Query = Quadruplet;
    type Answer = bool;
    type Output = Result<Dendrogram, HierarchyError>;

    fn next_queries(&mut self) -> Step<Quadruplet> {
        loop {
            if self.order.is_some() {
                return Step::Done;
            }
            if self.merges.is_empty() {
                if self.runs.len() <= 1 {
                    self.order = Some(self.runs.pop().unwrap_or_default());
                    return Step::Done;
                }
                let mut runs = std::mem::take(&mut self.runs).into_iter();
                while let Some(left) = runs.next() {
                    match runs.next() {
                        Some(right) => self.merges.push(MergeState {
                            out: Vec::with_capacity(left.len() + right.len()),
                            left,
                            right,
                            i: 0,
                            j: 0,
                        }),
                        None => self.carry = Some(left),
                    }
                }
            }
            self.pending.clear();
            let mut batch = Vec::new();
            for (idx, m) in self.merges.iter_mut().enumerate() {
                if !m.settle() {
                    let (a, b) = self.pairs[m.left[m.i] as usize];
                    let (c, d) = self.pairs[m.right[m.j] as usize];
                    self.pending.insert(pair_key(a, b), idx);
                    batch.push(Quadruplet::new(a, b, c, d));
                }
            }
            if !batch.is_empty() {
                return Step::Ask(batch);
            }
            self.runs = self
                .merges
                .drain(..)
                .map(|m| m.out)
                .chain(self.carry.take())
                .collect();
        }
    }

    fn observe(&mut self, q: &Quadruplet, left_more_similar: bool) {
        let Some(idx) = self.pending.remove(&pair_key(q.a, q.b)) else {
            return; // not a query of this batch
        };
        self.answered += 1;
        let m = &mut self.merges[idx];
        if left_more_similar {
            m.out.push(m.left[m.i]);
            m.i += 1;
        } else {
            m.out.push(m.right[m.j]);
            m.j += 1;
        }
    }

    fn finish(self) -> Result<Dendrogram, HierarchyError> {
        let n = self.n;
        if n == 1 {
            return Ok(Dendrogram::new(1, Vec::new())?);
        }
        let order = self.order.unwrap_or_default();
        let mut condensed = vec![0.0; self.pairs.len()];
        for (rank, &p) in order.iter().enumerate() {
            condensed[p as usize] = rank as f64;
        }
        let method = match self.method {
            Linkage::Single => kodama::Method::Single,
            Linkage::Complete => kodama::Method::Complete,
        };
        let d = kodama::linkage(&mut condensed, n, method);
        from_kodama(n, &d)
    }
}

/// Answers quadruplet queries from a passive set of comparisons: "is w_ab > w_cd?" is
/// answered by the sign of the net count of answers about the two pairs; absent or tied
/// comparisons get no answer (`None`).
pub struct QuadrupletTable {
    net: IntMap<(u64, u64), i64>,
}

impl QuadrupletTable {
    /// Index the comparisons (triplets become `(i,j,i,k)`) over `n` items.
    pub fn new(n: usize, comparisons: &Comparisons) -> Result<Self, HierarchyError> {
        let (entries, _) = quadruplet_entries(n, comparisons, "a quadruplet table")?;
        let net = entries.into_iter().map(|(e, f, c)| ((e, f), c)).collect();
        Ok(QuadrupletTable { net })
    }

    /// Net count for "pair (a,b) more similar than pair (c,d)" (0 when absent).
    pub fn net(&self, q: &Quadruplet) -> i64 {
        let e = pair_key(q.a, q.b);
        let f = pair_key(q.c, q.d);
        if e < f {
            self.net.get(&(e, f)).copied().unwrap_or(0)
        } else {
            -self.net.get(&(f, e)).copied().unwrap_or(0)
        }
    }
}

impl Oracle<Quadruplet, bool> for QuadrupletTable {
    fn answer(&mut self, q: &Quadruplet) -> Option<bool> {
        match self.net(q) {
            0 => None,
            c => Some(c > 0),
        }
    }
}

/// Run SL / CL against an oracle; returns the dendrogram and the number of queries asked.
pub fn linkage_active<O: Oracle<Quadruplet, bool>>(
    n: usize,
    method: Linkage,
    oracle: &mut O,
) -> Result<(Dendrogram, usize), HierarchyError> {
    match run(LinkageMachine::new(n, method)?, oracle) {
        RunOutcome::Finished { output, queries } => Ok((output?, queries)),
        RunOutcome::Missing { missing, queries } => Err(HierarchyError::MissingComparisons {
            method: method.name(),
            missing,
            answered: queries,
        }),
    }
}

/// Run SL / CL from a passive set of comparisons: succeeds when every comparison the sort
/// needs is present, and otherwise reports the first batch of missing ones.
pub fn linkage_passive(
    n: usize,
    method: Linkage,
    comparisons: &Comparisons,
) -> Result<(Dendrogram, usize), HierarchyError> {
    let mut table = QuadrupletTable::new(n, comparisons)?;
    linkage_active(n, method, &mut table)
}

/// Naive SL / CL from a similarity function, straight from 002 §2.1: repeatedly merge the
/// cluster pair with the largest `max` (SL) or `min` (CL) item similarity, ties towards the
/// smallest cluster ids. `O(N⁴)`: a reference for tests.
pub fn linkage_naive(n: usize, method: Linkage, w: impl Fn(usize, usize) -> f64) -> Dendrogram {
    let mut clusters: Vec<(usize, Vec<usize>)> = (0..n).map(|i| (i, vec![i])).collect();
    let mut steps = Vec::new();
    while clusters.len() > 1 {
        let mut best: Option<(f64, usize, usize)> = None;
        for p in 0..clusters.len() {
            for q in p + 1..clusters.len() {
                let mut v = match method {
                    Linkage::Single => f64::NEG_INFINITY,
                    Linkage::Complete => f64::INFINITY,
                };
                for &i in &clusters[p].1 {
                    for &j in &clusters[q].1 {
                        v = match method {
                            Linkage::Single => v.max(w(i, j)),
                            Linkage::Complete => v.min(w(i, j)),
                        };
                    }
                }
                if best.is_none_or(|b| v > b.0) {
                    best = Some((v, p, q));
                }
            }
        }
        let (v, p, q) = best.expect("two clusters");
        let (ida, mut ma) = clusters.remove(q.max(p));
        let (idb, mb) = clusters.remove(q.min(p));
        ma.extend(mb);
        steps.push(super::Merge {
            a: ida.min(idb),
            b: ida.max(idb),
            height: -v,
            size: ma.len(),
        });
        clusters.push((n + steps.len() - 1, ma));
    }
    Dendrogram::new(n, steps).expect("naive linkage builds a valid tree")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_pairs_and_links() {
        // points on a line: 0, 1, 5, 6 → similarity = −distance
        let x: [f64; 4] = [0.0, 1.0, 5.0, 6.2];
        let w = |i: usize, j: usize| -(x[i] - x[j]).abs();
        for method in [Linkage::Single, Linkage::Complete] {
            let mut oracle =
                |q: &Quadruplet| w(q.a as usize, q.b as usize) > w(q.c as usize, q.d as usize);
            let (d, queries) = linkage_active(4, method, &mut oracle).unwrap();
            assert!(queries > 0 && queries <= 6 * 3);
            let s: Vec<(usize, usize)> = d.steps().iter().map(|m| (m.a, m.b)).collect();
            assert_eq!(s, vec![(0, 1), (2, 3), (4, 5)]);
            let naive = linkage_naive(4, method, w);
            let t: Vec<(usize, usize)> = naive.steps().iter().map(|m| (m.a, m.b)).collect();
            assert_eq!(s, t);
        }
    }

    #[test]
    fn passive_reports_missing() {
        let cmp = Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 0, 2)]);
        match linkage_passive(3, Linkage::Single, &cmp) {
            Err(HierarchyError::MissingComparisons { missing, .. }) => {
                assert!(!missing.is_empty())
            }
            other => panic!("expected missing comparisons, got {other:?}"),
        }
        // all three pair comparisons present: works
        let cmp = Comparisons::Quadruplets(vec![
            Quadruplet::new(0, 1, 0, 2),
            Quadruplet::new(0, 2, 1, 2),
            Quadruplet::new(0, 1, 1, 2),
        ]);
        let (d, q) = linkage_passive(3, Linkage::Complete, &cmp).unwrap();
        assert_eq!((d.steps()[0].a, d.steps()[0].b), (0, 1));
        assert!(q >= 2);
        assert!(linkage_passive(1, Linkage::Single, &cmp).is_err()); // item 2 out of range
        assert!(LinkageMachine::new(0, Linkage::Single).is_err());
        assert_eq!("CL".parse::<Linkage>(), Ok(Linkage::Complete));
    }
}
