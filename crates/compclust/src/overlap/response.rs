//! Same-cluster response models of Huleihel et al. 2019, §2 and the oracles that answer with them: direct
//! (A_iᵀA_j), quantized through a binary symmetric channel BSC(q), dithered (Gaussian noise
//! before quantizing), and an oracle backed by a file of collected answers that records which
//! queries it could not answer.
//!
//! All simulated oracles are seeded and *persistent*: the noise of a pair is a deterministic
//! function of (seed, pair), so asking a pair twice gives the same answer (`docs/OVERLAP.md`:
//! every algorithm asks each unordered pair at most once, which makes persistent and fresh
//! noise equivalent). Every oracle counts the queries it answered.

use std::collections::HashMap;

use crate::active::Oracle;

use super::Membership;
use crate::math::rng::splitmix64;

/// One same-cluster query: the unordered pair {a, b}, stored with `a ≤ b`. `a == b` is a
/// self-query, whose direct answer is the row weight ‖A_a‖₀ (`docs/OVERLAP.md`, used when weights are
/// unknown).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Pair {
    /// Smaller item index.
    pub a: u32,
    /// Larger item index.
    pub b: u32,
}

impl Pair {
    /// The unordered pair {x, y}.
    pub fn new(x: u32, y: u32) -> Self {
        if x <= y {
            Pair { a: x, b: y }
        } else {
            Pair { a: y, b: x }
        }
    }
}

/// Which kind of answers an oracle gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OracleKind {
    /// O(i, j) = A_iᵀA_j.
    Direct,
    /// `Y = 1[A_iᵀA_j > 0] XOR Bernoulli(q)`.
    Quantized {
        /// Flip probability q < 1/2.
        q: f64,
    },
    /// Y = 1[A_iᵀA_j + N(0, σ²) ≥ θ].
    Dithered {
        /// Noise standard deviation σ.
        sigma: f64,
        /// Quantizer threshold θ (the note's θ = 1/2; the paper's `Q(x) = 1[x > 0]` is θ = 0).
        theta: f64,
    },
}

/// A uniform number in [0, 1) determined by (seed, pair, stream).
fn pair_uniform(seed: u64, p: Pair, stream: u64) -> f64 {
    let h = splitmix64(
        splitmix64(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93))
            ^ ((p.a as u64) << 32 | p.b as u64),
    );
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// A standard normal number determined by (seed, pair) (Box–Muller).
fn pair_gaussian(seed: u64, p: Pair) -> f64 {
    let u1 = pair_uniform(seed, p, 1).max(1e-300);
    let u2 = pair_uniform(seed, p, 2);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A simulated oracle over a known membership (Huleihel et al. 2019, §2), of any [`OracleKind`].
#[derive(Debug, Clone)]
pub struct SimulatedOracle<'a> {
    membership: &'a Membership,
    kind: OracleKind,
    seed: u64,
    queries: usize,
}

impl<'a> SimulatedOracle<'a> {
    /// The direct oracle O(i, j) = A_iᵀA_j.
    pub fn direct(membership: &'a Membership) -> Self {
        Self::new(membership, OracleKind::Direct, 0)
    }

    /// The quantized oracle through BSC(q), seeded.
    pub fn quantized(membership: &'a Membership, q: f64, seed: u64) -> Self {
        Self::new(membership, OracleKind::Quantized { q }, seed)
    }

    /// The dithered oracle 1[A_iᵀA_j + N(0, σ²) ≥ θ], seeded.
    pub fn dithered(membership: &'a Membership, sigma: f64, theta: f64, seed: u64) -> Self {
        Self::new(membership, OracleKind::Dithered { sigma, theta }, seed)
    }

    /// Any kind.
    pub fn new(membership: &'a Membership, kind: OracleKind, seed: u64) -> Self {
        SimulatedOracle {
            membership,
            kind,
            seed,
            queries: 0,
        }
    }

    /// The answer to `p` without counting it.
    pub fn peek(&self, p: Pair) -> u32 {
        let s = self.membership.shared(p.a as usize, p.b as usize);
        match self.kind {
            OracleKind::Direct => s as u32,
            OracleKind::Quantized { q } => {
                let flip = pair_uniform(self.seed, p, 0) < q;
                ((s > 0) ^ flip) as u32
            }
            OracleKind::Dithered { sigma, theta } => {
                (s as f64 + sigma * pair_gaussian(self.seed, p) >= theta) as u32
            }
        }
    }

    /// Number of queries answered so far.
    pub fn queries(&self) -> usize {
        self.queries
    }

    /// The oracle kind.
    pub fn kind(&self) -> OracleKind {
        self.kind
    }
}

impl Oracle<Pair, u32> for SimulatedOracle<'_> {
    fn answer(&mut self, p: &Pair) -> Option<u32> {
        if p.b as usize >= self.membership.n_items() {
            return None;
        }
        self.queries += 1;
        Some(self.peek(*p))
    }
}

/// An oracle backed by collected answers (a file of `a,b,answer` rows). Queries absent from
/// the file are answered `None` and remembered in [`AnswerBook::missing`], so they can be put
/// to a crowd in the next round.
#[derive(Debug, Clone, Default)]
pub struct AnswerBook {
    answers: HashMap<Pair, u32>,
    missing: Vec<Pair>,
    queries: usize,
}

impl AnswerBook {
    /// An empty book.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record an answer; a later answer for the same unordered pair replaces an earlier one.
    pub fn insert(&mut self, x: u32, y: u32, answer: u32) {
        self.answers.insert(Pair::new(x, y), answer);
    }

    /// Number of distinct pairs answered in the book.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether the book holds no answer.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The queries asked but not in the book, in the order asked (deduplicated).
    pub fn missing(&self) -> &[Pair] {
        &self.missing
    }

    /// Number of queries answered from the book.
    pub fn queries(&self) -> usize {
        self.queries
    }
}

impl Oracle<Pair, u32> for AnswerBook {
    fn answer(&mut self, p: &Pair) -> Option<u32> {
        match self.answers.get(p) {
            Some(&a) => {
                self.queries += 1;
                Some(a)
            }
            None => {
                if self.missing.last() != Some(p) {
                    self.missing.push(*p);
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracles_answer_and_count() {
        let m = Membership::new(3, vec![vec![0, 1], vec![1, 2], vec![2]]);
        let mut d = SimulatedOracle::direct(&m);
        assert_eq!(d.answer(&Pair::new(1, 0)), Some(1));
        assert_eq!(d.answer(&Pair::new(0, 0)), Some(2));
        assert_eq!(d.answer(&Pair::new(0, 2)), Some(0));
        assert_eq!(d.answer(&Pair::new(0, 9)), None);
        assert_eq!(d.queries(), 3);
        let mut q = SimulatedOracle::quantized(&m, 0.0, 1);
        assert_eq!(q.answer(&Pair::new(0, 1)), Some(1));
        assert_eq!(q.answer(&Pair::new(0, 2)), Some(0));
    }

    #[test]
    fn bsc_flip_rate_and_persistence() {
        let rows = vec![vec![0u32]; 400];
        let m = Membership::new(1, rows);
        let mut o = SimulatedOracle::quantized(&m, 0.2, 7);
        let mut flips = 0;
        for i in 0..400u32 {
            for j in i + 1..400 {
                let p = Pair::new(i, j);
                let y = o.answer(&p).unwrap();
                assert_eq!(y, o.peek(p));
                flips += (y == 0) as usize;
            }
        }
        let rate = flips as f64 / (400.0 * 399.0 / 2.0);
        assert!((rate - 0.2).abs() < 0.01, "{rate}");
    }

    #[test]
    fn dither_yes_rate_matches_phi() {
        // s = 1, θ = 1/2, σ = 0.5: P(yes) = Φ(1) ≈ 0.8413.
        let m = Membership::new(1, vec![vec![0u32]; 300]);
        let o = SimulatedOracle::dithered(&m, 0.5, 0.5, 3);
        let mut yes = 0;
        let mut tot = 0;
        for i in 0..300u32 {
            for j in i + 1..300 {
                yes += o.peek(Pair::new(i, j)) as usize;
                tot += 1;
            }
        }
        let rate = yes as f64 / tot as f64;
        assert!((rate - 0.8413).abs() < 0.01, "{rate}");
    }

    #[test]
    fn answer_book_reports_missing() {
        let mut b = AnswerBook::new();
        b.insert(2, 1, 1);
        assert_eq!(b.answer(&Pair::new(1, 2)), Some(1));
        assert_eq!(b.answer(&Pair::new(0, 2)), None);
        assert_eq!(b.missing(), &[Pair::new(0, 2)]);
        assert_eq!(b.queries(), 1);
    }
}
