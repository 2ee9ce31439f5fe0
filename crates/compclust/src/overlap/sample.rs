//! The random sample S shared by the algorithms: a seeded permutation of the items whose
//! prefix of length m is S, with the answers to all pairs inside S (lower-triangular store,
//! so S can grow).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::oracle::Pair;

pub(crate) const UNSET: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Sample {
    /// Seeded permutation of 0..n; S = perm[..m].
    pub perm: Vec<u32>,
    /// Position of every item in `perm`.
    pub pos: Vec<u32>,
    /// Current |S|.
    pub m: usize,
    /// Answers inside S: `tri[p][q]` for positions q ≤ p.
    pub tri: Vec<Vec<u32>>,
}

impl Sample {
    pub fn new(n: usize, m: usize, seed: u64) -> Self {
        let mut perm: Vec<u32> = (0..n as u32).collect();
        let mut rng = StdRng::seed_from_u64(seed);
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            perm.swap(i, j);
        }
        let mut pos = vec![0u32; n];
        for (p, &it) in perm.iter().enumerate() {
            pos[it as usize] = p as u32;
        }
        Sample {
            perm,
            pos,
            m: 0,
            tri: Vec::new(),
        }
        .grown(m.min(n))
    }

    fn grown(mut self, m: usize) -> Self {
        self.m = m;
        self
    }

    pub fn n(&self) -> usize {
        self.perm.len()
    }

    /// Queries for all pairs among S that involve positions ≥ `tri.len()` (the part of S not
    /// asked yet), plus self-queries if `self_queries`. Allocates their answer slots.
    pub fn pending_pairs(&mut self, self_queries: bool) -> Vec<Pair> {
        let from = self.tri.len();
        let mut out = Vec::new();
        for p in from..self.m {
            self.tri.push(vec![UNSET; p + 1]);
            for q in 0..p {
                out.push(Pair::new(self.perm[p], self.perm[q]));
            }
            if self_queries {
                out.push(Pair::new(self.perm[p], self.perm[p]));
            }
        }
        out
    }

    pub fn set(&mut self, p: Pair, ans: u32) {
        let (x, y) = (
            self.pos[p.a as usize] as usize,
            self.pos[p.b as usize] as usize,
        );
        let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
        self.tri[hi][lo] = ans;
    }

    /// Answer between sample positions x and y.
    pub fn get(&self, x: usize, y: usize) -> u32 {
        let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
        self.tri[hi][lo]
    }

    /// Grow S to `m` items (capped at n).
    pub fn grow(&mut self, m: usize) {
        self.m = m.min(self.n()).max(self.m);
    }
}
