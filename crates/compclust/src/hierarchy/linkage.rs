//! Comparison-based single and complete linkage (Ghoshdastidar et al. 2019, §3.1) as active step machines.
//!
//! SL and CL only need the order of the pairwise similarities (Ghoshdastidar et al. 2019, Prop. 1): the machine sorts
//! the `N(N−1)/2` item pairs by similarity with a randomized quicksort whose comparisons are
//! quadruplet queries "is w_ab > w_cd?" (every open sub-problem compares all its pairs with
//! its pivot in the same round), then runs single or complete linkage (kodama) on the ranks.
//! This uses `O(N² log N)` queries, the upper bound of Prop. 1, in `O(log N)` rounds. The same
//! machine runs from a passive set of quadruplets ([`QuadrupletTable`]), reporting the
//! comparisons it needed and did not find.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::active::{Oracle, RunOutcome, Step, StepMachine, run};
use crate::data::{Comparisons, Quadruplet};
use crate::names::named_enum;

use super::common::{IntMap, from_kodama, pair_key, quadruplet_entries};
use super::{Dendrogram, HierarchyError};

/// Which cluster similarity of Ghoshdastidar et al. 2019, §2.1 the comparison-based linkage uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// Single linkage (SL): `W(G, G') = max w_ij`.
    Single,
    /// Complete linkage (CL): `W(G, G') = min w_ij`.
    Complete,
}

impl Linkage {
    /// The paper's name (`SL` / `CL`).
    pub fn paper_name(self) -> &'static str {
        match self {
            Linkage::Single => "SL",
            Linkage::Complete => "CL",
        }
    }
}

named_enum!(Linkage, "linkage" {
    Single => "sl" | "single",
    Complete => "cl" | "complete",
});

/// One sub-problem of the sort: pair ids whose order is still unknown.
struct Segment {
    /// The pair ids; while a round is out, `items[pivot]` is the pivot.
    items: Vec<u32>,
    pivot: usize,
    /// Pair ids judged more similar than the pivot this round.
    above: Vec<u32>,
    /// Pair ids judged less similar than the pivot this round.
    below: Vec<u32>,
}

/// A sorted stretch of the final order, or a sub-problem still being sorted.
enum Piece {
    Sorted(u32),
    Open(Segment),
}

/// Active SL / CL (Ghoshdastidar et al. 2019, §3.1): asks quadruplet queries `Quadruplet{a,b,c,d}` meaning "is
/// `w_ab > w_cd`?" (answer `true` when yes) and produces the dendrogram. Merge heights are
/// the rank of the linking pair's similarity (0 = most similar pair).
///
/// The pairs are sorted by a randomized quicksort (Hoare 1962) run breadth-first: in one round
/// every open sub-problem draws a random pivot and every other pair of it is compared with that
/// pivot, so all sub-problems advance together. It asks about `2 M ln M` queries for `M =
/// N(N−1)/2` pairs (within Prop. 1's `O(N² log N)`) in `O(log M)` rounds (the height of a
/// random binary search tree, about `4.3 ln M`), where a merge sort needs `O(M)` sequential
/// rounds. The queries depend only on the seed and the answers, so a run replayed with the
/// same answers asks the same questions.
pub struct LinkageMachine {
    n: usize,
    method: Linkage,
    pairs: Vec<(u32, u32)>,
    pieces: Vec<Piece>,
    rng: StdRng,
    /// Pair key of a pair asked this round → (index of its piece, pair id).
    pending: IntMap<u64, (usize, u32)>,
    /// A batch is out: split the segments before the next one.
    out: bool,
    answered: usize,
    rounds: usize,
}

impl LinkageMachine {
    /// A machine for `n ≥ 1` items; `seed` draws the pivots.
    pub fn new(n: usize, method: Linkage, seed: u64) -> Result<Self, HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        crate::limits::reserve_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
        let mut pairs = Vec::with_capacity(n * (n - 1) / 2);
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                pairs.push((a, b));
            }
        }
        let all: Vec<u32> = (0..pairs.len() as u32).collect();
        let pieces = if all.len() <= 1 {
            all.into_iter().map(Piece::Sorted).collect()
        } else {
            vec![Piece::Open(Segment {
                items: all,
                pivot: 0,
                above: Vec::new(),
                below: Vec::new(),
            })]
        };
        Ok(LinkageMachine {
            n,
            method,
            pairs,
            pieces,
            rng: StdRng::seed_from_u64(seed),
            pending: IntMap::default(),
            out: false,
            answered: 0,
            rounds: 0,
        })
    }

    /// Answers observed so far.
    pub fn answered(&self) -> usize {
        self.answered
    }

    /// Batches of queries asked so far.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Split every open segment around its pivot (after a round's answers). A pair left
    /// unanswered stays in its segment, which is then asked again.
    fn split(&mut self) {
        let pieces = std::mem::take(&mut self.pieces);
        for piece in pieces {
            let seg = match piece {
                Piece::Sorted(p) => {
                    self.pieces.push(Piece::Sorted(p));
                    continue;
                }
                Piece::Open(seg) => seg,
            };
            let pivot = seg.items[seg.pivot];
            let placed = seg.above.len() + seg.below.len() + 1;
            if placed < seg.items.len() {
                // not every answer came back: keep the segment whole
                self.pieces.push(Piece::Open(Segment {
                    above: Vec::new(),
                    below: Vec::new(),
                    ..seg
                }));
                continue;
            }
            self.push_part(seg.above);
            self.pieces.push(Piece::Sorted(pivot));
            self.push_part(seg.below);
        }
    }

    fn push_part(&mut self, items: Vec<u32>) {
        match items.len() {
            0 => {}
            1 => self.pieces.push(Piece::Sorted(items[0])),
            _ => self.pieces.push(Piece::Open(Segment {
                items,
                pivot: 0,
                above: Vec::new(),
                below: Vec::new(),
            })),
        }
    }
}

impl StepMachine for LinkageMachine {
    type Query = Quadruplet;
    type Answer = bool;
    type Output = Result<Dendrogram, HierarchyError>;

    fn next_queries(&mut self) -> Step<Quadruplet> {
        if std::mem::take(&mut self.out) {
            self.split();
        }
        self.pending.clear();
        let mut batch = Vec::new();
        for (idx, piece) in self.pieces.iter_mut().enumerate() {
            let Piece::Open(seg) = piece else { continue };
            seg.pivot = self.rng.random_range(0..seg.items.len());
            let (c, d) = self.pairs[seg.items[seg.pivot] as usize];
            for (x, &p) in seg.items.iter().enumerate() {
                if x != seg.pivot {
                    let (a, b) = self.pairs[p as usize];
                    self.pending.insert(pair_key(a, b), (idx, p));
                    batch.push(Quadruplet::new(a, b, c, d));
                }
            }
        }
        if batch.is_empty() {
            Step::Done
        } else {
            self.rounds += 1;
            self.out = true;
            Step::Ask(batch)
        }
    }

    fn observe(&mut self, q: &Quadruplet, left_more_similar: bool) {
        let Some(&(idx, p)) = self.pending.get(&pair_key(q.a, q.b)) else {
            return; // not a query of this batch
        };
        let Piece::Open(seg) = &mut self.pieces[idx] else {
            return;
        };
        let (c, d) = self.pairs[seg.items[seg.pivot] as usize];
        if pair_key(q.c, q.d) != pair_key(c, d) {
            return; // compared with another pair than this round's pivot
        }
        self.pending.remove(&pair_key(q.a, q.b));
        self.answered += 1;
        if left_more_similar {
            seg.above.push(p);
        } else {
            seg.below.push(p);
        }
    }

    fn finish(self) -> Result<Dendrogram, HierarchyError> {
        let n = self.n;
        if n == 1 {
            return Ok(Dendrogram::new(1, Vec::new())?);
        }
        let mut condensed = vec![0.0; self.pairs.len()];
        let mut rank = 0usize;
        for piece in &self.pieces {
            // after Done every piece is sorted; an open one (finish called early) gets the
            // ranks of its pairs in id order
            let ids: &[u32] = match piece {
                Piece::Sorted(p) => std::slice::from_ref(p),
                Piece::Open(seg) => &seg.items,
            };
            for &p in ids {
                condensed[p as usize] = rank as f64;
                rank += 1;
            }
        }
        let method = match self.method {
            Linkage::Single => kodama::Method::Single,
            Linkage::Complete => kodama::Method::Complete,
        };
        let d = kodama::linkage(&mut condensed, n, method);
        from_kodama(n, &d)
    }
}

/// SL / CL run against an oracle: the dendrogram, the queries answered and the rounds
/// (batches) asked.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkageFit {
    /// The dendrogram; merge heights are similarity ranks.
    pub dendrogram: Dendrogram,
    /// Queries answered.
    pub queries: usize,
    /// Rounds of queries asked (each a batch whose questions do not depend on each other).
    pub rounds: usize,
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

/// Run SL / CL against an oracle ("is w_ab > w_cd?"); `seed` draws the quicksort pivots.
pub fn linkage_active<O: Oracle<Quadruplet, bool>>(
    n: usize,
    method: Linkage,
    seed: u64,
    oracle: &mut O,
) -> Result<LinkageFit, HierarchyError> {
    match run(LinkageMachine::new(n, method, seed)?, oracle) {
        RunOutcome::Finished {
            output,
            queries,
            rounds,
        } => Ok(LinkageFit {
            dendrogram: output?,
            queries,
            rounds,
        }),
        RunOutcome::Missing {
            missing, queries, ..
        } => Err(HierarchyError::MissingComparisons {
            method: method.paper_name(),
            missing,
            answered: queries,
        }),
    }
}

/// Run SL / CL from a passive set of comparisons (pivots drawn with seed 0): succeeds when
/// every comparison the sort needs is present, and otherwise reports the first batch of
/// missing ones.
pub fn linkage_passive(
    n: usize,
    method: Linkage,
    comparisons: &Comparisons,
) -> Result<LinkageFit, HierarchyError> {
    let mut table = QuadrupletTable::new(n, comparisons)?;
    linkage_active(n, method, 0, &mut table)
}

/// Naive SL / CL from a similarity function, straight from Ghoshdastidar et al. 2019, §2.1: repeatedly merge the
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
            let fit = linkage_active(4, method, 1, &mut oracle).unwrap();
            // quicksort never compares two pairs twice: at most C(6, 2) queries
            assert!(fit.queries >= 5 && fit.queries <= 15, "{}", fit.queries);
            assert!(fit.rounds >= 1 && fit.rounds <= 5, "{}", fit.rounds);
            let s: Vec<(usize, usize)> =
                fit.dendrogram.steps().iter().map(|m| (m.a, m.b)).collect();
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
        let fit = linkage_passive(3, Linkage::Complete, &cmp).unwrap();
        let d = &fit.dendrogram;
        assert_eq!((d.steps()[0].a, d.steps()[0].b), (0, 1));
        assert!(fit.queries >= 2);
        assert!(linkage_passive(1, Linkage::Single, &cmp).is_err()); // item 2 out of range
        assert!(LinkageMachine::new(0, Linkage::Single, 0).is_err());
        assert_eq!("CL".parse::<Linkage>(), Ok(Linkage::Complete));
    }

    /// A round asks every open sub-problem's pairs against its pivot; the questions of a round
    /// never share an element pair, and the machine replays the same questions from the same
    /// answers (what a file-driven crowd round relies on).
    #[test]
    fn rounds_are_independent_batches_and_replay() {
        let x: Vec<f64> = (0..9)
            .map(|i| f64::from((i * 37 % 11) as u32) + 0.01 * f64::from(i))
            .collect();
        let w = |i: usize, j: usize| -(x[i] - x[j]).abs();
        let ask = |seed| {
            let mut m = LinkageMachine::new(9, Linkage::Single, seed).unwrap();
            let mut log = Vec::new();
            while let Step::Ask(batch) = m.next_queries() {
                let mut seen = std::collections::HashSet::new();
                for q in &batch {
                    assert!(
                        seen.insert(pair_key(q.a, q.b)),
                        "pair asked twice in a round"
                    );
                    let ans = w(q.a as usize, q.b as usize) > w(q.c as usize, q.d as usize);
                    m.observe(q, ans);
                }
                log.push(batch);
            }
            (log, m.rounds(), m.answered())
        };
        let (a, rounds, answered) = ask(5);
        assert_eq!(ask(5).0, a);
        assert_eq!(rounds, a.len());
        assert_eq!(answered, a.iter().map(Vec::len).sum::<usize>());
    }

    /// A batch with unanswered questions stops the run with those questions; answering them
    /// too finishes it.
    #[test]
    fn missing_answers_stop_the_run() {
        let w = |i: usize, j: usize| -((i * i) as f64 - (j * j) as f64).abs();
        let answer = |q: &Quadruplet| w(q.a as usize, q.b as usize) > w(q.c as usize, q.d as usize);
        let mut first = true;
        let mut skip_one = |q: &Quadruplet| -> Option<bool> {
            if std::mem::take(&mut first) {
                None
            } else {
                Some(answer(q))
            }
        };
        struct F<'a>(&'a mut dyn FnMut(&Quadruplet) -> Option<bool>);
        impl Oracle<Quadruplet, bool> for F<'_> {
            fn answer(&mut self, q: &Quadruplet) -> Option<bool> {
                (self.0)(q)
            }
        }
        match run(
            LinkageMachine::new(5, Linkage::Complete, 2).unwrap(),
            &mut F(&mut skip_one),
        ) {
            RunOutcome::Missing {
                missing,
                queries,
                rounds,
            } => {
                assert_eq!(missing.len(), 1);
                assert_eq!(rounds, 1);
                assert_eq!(queries, 8); // the other 8 pairs of the first round
            }
            other => panic!("expected a missing answer, got {other:?}"),
        }
    }
}
