//! Alg. 1 FindMembership (Huleihel et al. 2019, §3.1, Prop. 1): disjoint clusters (Δ = 1) from direct answers.
//!
//! Sample S, ask all pairs in S, read its clusters off the "same cluster" graph and keep one
//! representative per cluster (T); then ask every other item against the representatives.
//! Items matching no representative found a new cluster: the first of them becomes its
//! representative and the others are asked against it in the next round (so clusters absent
//! from S are still found). Queries ≤ C(m,2) + k(n − m).

use crate::active::{Step, StepMachine};

use super::Membership;
use super::response::Pair;
use super::result::{OverlapError, OverlapEstimate, SampleSize, StopReason};
use super::sample::{ProbeAnswers, Sample, UNSET};

/// Parameters of Alg. 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindMembershipParams {
    /// |S|. `Auto`: ⌈√n⌉ (Prop. 1 asks for (n/n_min)·log(k n^ε), unknown before querying;
    /// clusters missed by S are found in later rounds anyway).
    pub sample_size: SampleSize,
    /// Seed of the sample.
    pub seed: u64,
}

impl Default for FindMembershipParams {
    fn default() -> Self {
        FindMembershipParams {
            sample_size: SampleSize::Auto,
            seed: 0,
        }
    }
}

impl FindMembershipParams {
    /// Validate and build the step machine for `n` items.
    pub fn build(&self, n: usize) -> Result<FindMembership, OverlapError> {
        if n < 2 {
            return Err(OverlapError::TooFewItems(n));
        }
        let m = match self.sample_size {
            SampleSize::Auto => (n as f64).sqrt().ceil() as usize,
            SampleSize::Fixed(m) => m,
        }
        .clamp(1, n);
        Ok(FindMembership {
            sample: Sample::new(n, m, self.seed),
            labels: vec![UNSET; n],
            reps: Vec::new(),
            pending: Vec::new(),
            ext: ProbeAnswers::default(),
            stage: Stage::Start,
            queries: 0,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Start,
    SampleAsked,
    FirstRound,
    Round,
    Done,
}

/// The Alg. 1 step machine (see the module docs).
#[derive(Debug, Clone)]
pub struct FindMembership {
    sample: Sample,
    labels: Vec<u32>,
    reps: Vec<u32>,
    pending: Vec<u32>,
    /// first round: every item outside S against the representatives found in S
    ext: ProbeAnswers,
    stage: Stage,
    queries: usize,
}

impl FindMembership {
    fn sample_clusters(&mut self) {
        let m = self.sample.m;
        // union-find over "same cluster" answers
        let mut parent: Vec<usize> = (0..m).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            let mut y = x;
            while p[y] != r {
                let nx = p[y];
                p[y] = r;
                y = nx;
            }
            r
        }
        for x in 0..m {
            for y in 0..x {
                if self.sample.get(x, y) >= 1 {
                    let (a, b) = (find(&mut parent, x), find(&mut parent, y));
                    if a != b {
                        parent[a.max(b)] = a.min(b);
                    }
                }
            }
        }
        let mut root_label = vec![UNSET; m];
        for x in 0..m {
            let r = find(&mut parent, x);
            if root_label[r] == UNSET {
                root_label[r] = self.reps.len() as u32;
                self.reps.push(self.sample.perm[x]);
            }
            self.labels[self.sample.perm[x] as usize] = root_label[r];
        }
    }
}

impl StepMachine for FindMembership {
    type Query = Pair;
    type Answer = u32;
    type Output = OverlapEstimate;

    fn next_queries(&mut self) -> Step<Pair> {
        loop {
            match self.stage {
                Stage::Start => {
                    self.stage = Stage::SampleAsked;
                    let q = self.sample.pending_pairs(false);
                    if !q.is_empty() {
                        return Step::Ask(q);
                    }
                }
                Stage::SampleAsked => {
                    self.sample_clusters();
                    self.pending = self.sample.perm[self.sample.m..].to_vec();
                    self.stage = Stage::FirstRound;
                    // the representatives so far all lie in S; slot c is cluster c
                    let reps: Vec<usize> = self
                        .reps
                        .iter()
                        .map(|&r| self.sample.pos[r as usize] as usize)
                        .collect();
                    let (ext, queries) = ProbeAnswers::ask(&self.sample, reps);
                    self.ext = ext;
                    if !queries.is_empty() {
                        return Step::Ask(queries);
                    }
                }
                Stage::FirstRound => {
                    // u joins the first representative that answered "same cluster"
                    for (idx, &u) in self.pending.iter().enumerate() {
                        if let Some(c) = self.ext.row(idx).iter().position(|&a| a >= 1) {
                            self.labels[u as usize] = c as u32;
                        }
                    }
                    self.stage = Stage::Round;
                }
                Stage::Round => {
                    let unmatched: Vec<u32> = self
                        .pending
                        .iter()
                        .copied()
                        .filter(|&u| self.labels[u as usize] == UNSET)
                        .collect();
                    if unmatched.is_empty() {
                        self.stage = Stage::Done;
                        continue;
                    }
                    let rep = unmatched[0];
                    self.labels[rep as usize] = self.reps.len() as u32;
                    self.reps.push(rep);
                    self.pending = unmatched[1..].to_vec();
                    if self.pending.is_empty() {
                        self.stage = Stage::Done;
                        continue;
                    }
                    return Step::Ask(self.pending.iter().map(|&u| Pair::new(u, rep)).collect());
                }
                Stage::Done => return Step::Done,
            }
        }
    }

    fn observe(&mut self, q: &Pair, answer: u32) {
        self.queries += 1;
        if self.stage == Stage::SampleAsked {
            self.sample.set(*q, answer);
            return;
        }
        if self.stage == Stage::FirstRound {
            self.ext.record(&self.sample, q, answer);
            return;
        }
        // later rounds: one side is a representative (labelled), the other a pending item
        let (u, r) = if self.labels[q.a as usize] == UNSET {
            (q.a, q.b)
        } else {
            (q.b, q.a)
        };
        if answer >= 1 && self.labels[u as usize] == UNSET {
            self.labels[u as usize] = self.labels[r as usize];
        }
    }

    fn finish(self) -> OverlapEstimate {
        let k = self.reps.len();
        let rows = self
            .labels
            .iter()
            .map(|&l| if l == UNSET { vec![] } else { vec![l] })
            .collect();
        OverlapEstimate {
            membership: Membership::new(k, rows),
            queries: self.queries,
            sample: self.sample.perm[..self.sample.m].to_vec(),
            stop: StopReason::Completed,
            unresolved: Vec::new(),
            factor_method: None,
            q_used: None,
            p_used: None,
            probes: k,
            failed_samples: Vec::new(),
        }
    }
}
