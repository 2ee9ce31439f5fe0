//! Alg. 3 / Alg. 17 (Huleihel et al. 2019, §3.3, Thm. 5; `docs/OVERLAP.md`): worst-case memberships from noiseless
//! quantized answers `1[A_iᵀA_j > 0]`. Parameter free: k and Δ are not needed.
//!
//! 1. Sample S and ask all pairs in S: graph H on S (edge iff "same cluster").
//! 2. Anchored cliques first (Alg. 17): a vertex v whose closed neighbourhood `N[v]` is a clique
//!    lies in one cluster only, and `N[v]` is that cluster restricted to S.
//! 3. Edges still uncovered: maximal cliques of H (Bron–Kerbosch, petgraph
//!    `algo::maximal_cliques`, output sorted), chosen greedily by most uncovered edges (Alg. 3
//!    step 3) until every edge is covered. Each chosen clique is a cluster.
//! 4. Every u ∉ S is asked against the probes of each clique — its anchor when it has one
//!    (`docs/OVERLAP.md` "probe reduction"), otherwise all its members — and joins the clique iff all
//!    probes say yes (Alg. 3 step 4).
//!
//! Queries: C(m,2) + (n − m)·|probes| (= (n − m)·k when every clique is anchored).

use petgraph::graphmap::UnGraphMap;

use crate::active::{Step, StepMachine};

use super::Membership;
use super::response::Pair;
use super::result::{OverlapError, OverlapEstimate, SampleSize, StopReason};
use super::sample::{ProbeAnswers, Sample};

/// Parameters of Alg. 3/17.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CliqueCoverParams {
    /// |S|. `Auto`: ⌈√n · ln n⌉ capped at n (Thm. 5 needs α|S| = ln k + ln n, where α, the
    /// smallest anchor fraction, is unknown; this is enough for α ≳ 1/√n).
    pub sample_size: SampleSize,
    /// The number of clusters, if known: only used to report a mismatch.
    pub expected_k: Option<usize>,
    /// Seed of the sample.
    pub seed: u64,
}

impl Default for CliqueCoverParams {
    fn default() -> Self {
        CliqueCoverParams {
            sample_size: SampleSize::Auto,
            expected_k: None,
            seed: 0,
        }
    }
}

impl CliqueCoverParams {
    /// Validate and build the step machine for `n` items.
    pub fn build(&self, n: usize) -> Result<CliqueCover, OverlapError> {
        if n < 2 {
            return Err(OverlapError::TooFewItems(n));
        }
        let m = match self.sample_size {
            SampleSize::Auto => ((n as f64).sqrt() * (n as f64).ln()).ceil() as usize,
            SampleSize::Fixed(m) => m,
        }
        .clamp(1, n);
        Ok(CliqueCover {
            p: *self,
            sample: Sample::new(n, m, self.seed),
            stage: Stage::Sample,
            cliques: Vec::new(),
            probes: Vec::new(),
            ext: ProbeAnswers::default(),
            queries: 0,
        })
    }
}

/// The cover of H chosen by steps 2–3: cliques as sorted sample positions, and for each the
/// probes (positions) that decide membership of outside items.
pub fn clique_cover(adj: &[Vec<bool>]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let m = adj.len();
    let mut cliques: Vec<Vec<usize>> = Vec::new();
    let mut probes: Vec<Vec<usize>> = Vec::new();
    // anchored cliques
    for v in 0..m {
        let mut nb: Vec<usize> = (0..m).filter(|&u| u == v || adj[v][u]).collect();
        nb.sort_unstable();
        let is_clique = nb.iter().all(|&a| nb.iter().all(|&b| a == b || adj[a][b]));
        if is_clique {
            if let Some(t) = cliques.iter().position(|c| *c == nb) {
                let _ = t;
            } else {
                cliques.push(nb);
                probes.push(vec![v]);
            }
        }
    }
    let mut covered = vec![vec![false; m]; m];
    for c in &cliques {
        for &a in c {
            for &b in c {
                covered[a][b] = true;
            }
        }
    }
    let uncovered =
        |cov: &Vec<Vec<bool>>| (0..m).any(|a| (a + 1..m).any(|b| adj[a][b] && !cov[a][b]));
    if uncovered(&covered) {
        let mut g = UnGraphMap::<usize, ()>::new();
        for (a, row) in adj.iter().enumerate() {
            g.add_node(a);
            for (b, &e) in row.iter().enumerate().skip(a + 1) {
                if e {
                    g.add_edge(a, b, ());
                }
            }
        }
        let mut all: Vec<Vec<usize>> = petgraph::algo::maximal_cliques(&g)
            .into_iter()
            .map(|s| {
                let mut v: Vec<usize> = s.into_iter().collect();
                v.sort_unstable();
                v
            })
            .collect();
        all.sort();
        loop {
            let gain = |c: &Vec<usize>, cov: &Vec<Vec<bool>>| {
                let mut g = 0usize;
                for (x, &a) in c.iter().enumerate() {
                    for &b in &c[x + 1..] {
                        g += !cov[a][b] as usize;
                    }
                }
                g
            };
            let best = all
                .iter()
                .enumerate()
                .map(|(t, c)| (gain(c, &covered), t))
                .max_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
            match best {
                Some((g, t)) if g > 0 => {
                    let c = all.swap_remove(t);
                    for &a in &c {
                        for &b in &c {
                            covered[a][b] = true;
                        }
                    }
                    probes.push(c.clone());
                    cliques.push(c);
                }
                _ => break,
            }
        }
    }
    (cliques, probes)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Sample,
    Cover,
    Extend,
    Done,
}

/// The Alg. 3/17 step machine (see the module docs).
#[derive(Debug, Clone)]
pub struct CliqueCover {
    p: CliqueCoverParams,
    sample: Sample,
    stage: Stage,
    cliques: Vec<Vec<usize>>,
    probes: Vec<Vec<usize>>,
    /// answers of outside items against the distinct probe positions
    ext: ProbeAnswers,
    queries: usize,
}

impl StepMachine for CliqueCover {
    type Query = Pair;
    type Answer = u32;
    type Output = OverlapEstimate;

    fn next_queries(&mut self) -> Step<Pair> {
        loop {
            match self.stage {
                Stage::Sample => {
                    self.stage = Stage::Cover;
                    let q = self.sample.pending_pairs(false);
                    if !q.is_empty() {
                        return Step::Ask(q);
                    }
                }
                Stage::Cover => {
                    let m = self.sample.m;
                    let adj: Vec<Vec<bool>> = (0..m)
                        .map(|a| {
                            (0..m)
                                .map(|b| a != b && self.sample.get(a, b) >= 1)
                                .collect()
                        })
                        .collect();
                    let (c, p) = clique_cover(&adj);
                    self.cliques = c;
                    self.probes = p;
                    self.stage = Stage::Extend;
                    let (ext, queries) =
                        ProbeAnswers::ask(&self.sample, self.probes.iter().flatten().copied());
                    self.ext = ext;
                    if !queries.is_empty() {
                        return Step::Ask(queries);
                    }
                }
                Stage::Extend => self.stage = Stage::Done,
                Stage::Done => return Step::Done,
            }
        }
    }

    fn observe(&mut self, q: &Pair, answer: u32) {
        self.queries += 1;
        if self.stage == Stage::Cover {
            self.sample.set(*q, answer);
            return;
        }
        self.ext.record(&self.sample, q, answer);
    }

    fn finish(self) -> OverlapEstimate {
        let n = self.sample.n();
        let m = self.sample.m;
        let k = self.cliques.len();
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (c, members) in self.cliques.iter().enumerate() {
            for &x in members {
                rows[self.sample.perm[x] as usize].push(c as u32);
            }
        }
        let np = self.ext.len();
        let mut unresolved = Vec::new();
        for (idx, &u) in self.sample.perm[m..].iter().enumerate() {
            let ans = self.ext.row(idx);
            for (c, pr) in self.probes.iter().enumerate() {
                let all_yes = pr
                    .iter()
                    .all(|&x| self.ext.slot(x).is_some_and(|t| ans[t] >= 1));
                if all_yes {
                    rows[u as usize].push(c as u32);
                }
            }
            if rows[u as usize].is_empty() {
                unresolved.push(u);
            }
        }
        let stop = match self.p.expected_k {
            Some(e) if e != k => StopReason::ClusterCountMismatch {
                found: k,
                expected: e,
            },
            _ if !unresolved.is_empty() => StopReason::Unresolved {
                count: unresolved.len(),
            },
            _ => StopReason::Completed,
        };
        OverlapEstimate {
            membership: Membership::new(k, rows),
            queries: self.queries,
            sample: self.sample.perm[..m].to_vec(),
            stop,
            unresolved,
            factor_method: None,
            q_used: None,
            p_used: None,
            probes: np,
            failed_samples: Vec::new(),
        }
    }
}
