//! The random sample S shared by the algorithms: a seeded permutation of the items whose
//! prefix of length m is S, with the answers to all pairs inside S (lower-triangular store,
//! so S can grow).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::response::Pair;

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

/// The extension phase every algorithm shares: each item outside S (positions m..n of the
/// permutation) is asked against a fixed list of probe positions inside S, and the answers are
/// kept in an (n − m) × |probes| table. Used by Alg. 1 (representatives), Alg. 2 (basis T),
/// Alg. 3/17 (clique probes), Alg. 6 and Alg. 9 (vote probes P).
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeAnswers {
    /// Probe positions in S, in slot order (distinct).
    pub probes: Vec<usize>,
    /// Slot of every position of S (`UNSET` for non-probes).
    slot_of: Vec<u32>,
    /// |S| when the probes were asked.
    m: usize,
    /// Answers, row-major: row = position − m of the outside item, column = slot.
    table: Vec<u32>,
}

impl ProbeAnswers {
    /// Probes at the given sample positions (duplicates dropped, first occurrence kept) and
    /// the queries "every u ∉ S against every probe", u-major. Answers default to 0.
    pub fn ask(sample: &Sample, probes: impl IntoIterator<Item = usize>) -> (Self, Vec<Pair>) {
        let (n, m) = (sample.n(), sample.m);
        let mut slot_of = vec![UNSET; m];
        let mut list = Vec::new();
        for x in probes {
            if x < m && slot_of[x] == UNSET {
                slot_of[x] = list.len() as u32;
                list.push(x);
            }
        }
        let ids: Vec<u32> = list.iter().map(|&x| sample.perm[x]).collect();
        let queries = sample.perm[m..]
            .iter()
            .flat_map(|&u| ids.iter().map(move |&p| Pair::new(u, p)))
            .collect();
        let table = vec![0; (n - m) * list.len()];
        (
            ProbeAnswers {
                probes: list,
                slot_of,
                m,
                table,
            },
            queries,
        )
    }

    /// Record the answer to one of the queries of [`ProbeAnswers::ask`] (others are ignored).
    pub fn record(&mut self, sample: &Sample, q: &Pair, answer: u32) {
        let (pa, pb) = (
            sample.pos[q.a as usize] as usize,
            sample.pos[q.b as usize] as usize,
        );
        let (u, t) = if pa >= self.m { (pa, pb) } else { (pb, pa) };
        if u < self.m || t >= self.m {
            return;
        }
        let slot = self.slot_of[t];
        if slot != UNSET {
            let np = self.probes.len();
            self.table[(u - self.m) * np + slot as usize] = answer;
        }
    }

    /// Number of probes.
    pub fn len(&self) -> usize {
        self.probes.len()
    }

    /// Answers of the `idx`-th outside item (position m + idx), one per probe slot.
    pub fn row(&self, idx: usize) -> &[u32] {
        let np = self.probes.len();
        &self.table[idx * np..(idx + 1) * np]
    }

    /// Slot of a probe position.
    pub fn slot(&self, pos: usize) -> Option<usize> {
        self.slot_of
            .get(pos)
            .copied()
            .filter(|&s| s != UNSET)
            .map(|s| s as usize)
    }
}
