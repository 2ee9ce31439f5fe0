//! Passive designs: the random questions of a passive study, drawn before any answer is
//! collected (Perrot, Esser & Ghoshdastidar 2020, §2: comparisons observed uniformly at random
//! among the distinct ones; §5: `n (ln n)³` of them recover planted clusters).
//!
//! A design lists each question once (no two rows ask the same question: a triplet
//! `(anchor, {j, k})` or a quadruplet `{{a, b}, {c, d}}` of two distinct pairs), in random order,
//! each shown with its candidates in a random order so that a worker who always picks the
//! first candidate answers at random rather than consistently. `repeat` of them are asked a
//! second time, shown mirrored (the two candidates, or the two pairs, swapped), to measure how
//! consistent the workers are.
//!
//! A question is written as a row of the answered kind (`anchor,near,far` or `a,b,c,d`): the
//! worker answers by keeping the row as asked or by swapping the two candidates (two pairs), so
//! the answered file is read as triplets or quadruplets directly.

use std::str::FromStr;

use crate::data::{Comparisons, Quadruplet, Triplet};
use crate::limits::LimitError;
use crate::math::rng::CounterRng;
use crate::simulate::sample::{decode_quadruplet, decode_triplet, sample_distinct};
use crate::simulate::{comparison_budget, n_distinct_quadruplets, n_distinct_triplets};

const SALT_ORIENT: u64 = 0xde51_0001;
const SALT_REPEAT: u64 = 0xde51_0002;
const SALT_ORDER: u64 = 0xde51_0003;

/// The kind of question of a design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuestionKind {
    /// "Is `anchor` closer to `j` or to `k`?"
    Triplets,
    /// "Is the pair (a, b) or the pair (c, d) more similar?"
    Quadruplets,
}

impl QuestionKind {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            QuestionKind::Triplets => "triplets",
            QuestionKind::Quadruplets => "quadruplets",
        }
    }

    /// The number of distinct questions over `n` items: `n · C(n−1, 2)` triplets or
    /// `C(C(n, 2), 2)` quadruplets.
    pub fn n_distinct(self, n: usize) -> u128 {
        match self {
            QuestionKind::Triplets => n_distinct_triplets(n),
            QuestionKind::Quadruplets => n_distinct_quadruplets(n),
        }
    }
}

/// How many distinct questions to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuestionCount {
    /// `n (ln n)³`, rounded, capped at the number of distinct questions: the budget at which
    /// Perrot, Esser & Ghoshdastidar (2020, §5) recover the planted clusters.
    Auto,
    /// Exactly this many (an error when fewer distinct questions exist).
    Exactly(usize),
}

impl FromStr for QuestionCount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("auto") {
            return Ok(QuestionCount::Auto);
        }
        t.parse::<usize>()
            .map(QuestionCount::Exactly)
            .map_err(|_| format!("expected `auto` or a number of questions, got `{t}`"))
    }
}

/// Errors of [`DesignParams::draw`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DesignError {
    /// More distinct questions asked for than exist.
    #[error(
        "{requested} distinct {what} asked for, but only {available} exist for {n} items \
         (no question is asked twice)"
    )]
    TooMany {
        /// "triplets" or "quadruplets".
        what: &'static str,
        /// The count asked for.
        requested: usize,
        /// The number of distinct questions.
        available: u128,
        /// Items.
        n: usize,
    },
    /// No distinct question exists (fewer than 3 items).
    #[error("no {what} question can be asked about {n} items (at least 3 are needed)")]
    TooFewItems {
        /// "triplets" or "quadruplets".
        what: &'static str,
        /// Items.
        n: usize,
    },
    /// More repeats than questions.
    #[error("{repeat} repeats asked for, but the design has only {count} questions to repeat")]
    RepeatBeyondCount {
        /// Repeats asked for.
        repeat: usize,
        /// Distinct questions drawn.
        count: usize,
    },
    /// More items than question ids can number.
    #[error("{n} items are too many for a design of {what}")]
    TooManyItems {
        /// "triplets" or "quadruplets".
        what: &'static str,
        /// Items.
        n: usize,
    },
    /// A design larger than the rows a reader holds.
    #[error(transparent)]
    Limit(#[from] LimitError),
}

/// The parameters of a passive design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DesignParams {
    /// Triplets or quadruplets.
    pub kind: QuestionKind,
    /// Distinct questions to draw.
    pub count: QuestionCount,
    /// Questions asked a second time (mirrored), at most the count.
    pub repeat: usize,
    /// Seed of the draw, of the order and of the orientation of every question.
    pub seed: u64,
}

/// A drawn design.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// The rows to ask, in order: every distinct question once and the repeated ones twice.
    /// A row is written as the answered kind (see the module documentation).
    pub questions: Comparisons,
    /// Distinct questions.
    pub distinct: usize,
    /// Questions asked twice.
    pub repeated: usize,
    /// Distinct questions that exist over the items.
    pub available: u128,
}

/// The number of distinct questions that [`QuestionCount::Auto`] draws for `n` items.
pub fn auto_count(n: usize, kind: QuestionKind) -> usize {
    comparison_budget(n, 3.0, kind == QuestionKind::Quadruplets)
}

impl DesignParams {
    /// Draw the design for `n` items: `count` distinct questions uniformly without
    /// replacement (Perrot et al. 2020, §2), `repeat` of them again, in a seeded random order.
    /// Same seed, same design, whatever the thread count.
    pub fn draw(&self, n: usize) -> Result<Design, DesignError> {
        let what = self.kind.name();
        let available = self.kind.n_distinct(n);
        if available == 0 {
            return Err(DesignError::TooFewItems { what, n });
        }
        let count = match self.count {
            QuestionCount::Auto => auto_count(n, self.kind),
            QuestionCount::Exactly(m) => m,
        };
        if count as u128 > available {
            return Err(DesignError::TooMany {
                what,
                requested: count,
                available,
                n,
            });
        }
        if self.repeat > count {
            return Err(DesignError::RepeatBeyondCount {
                repeat: self.repeat,
                count,
            });
        }
        let rows = count as u128 + self.repeat as u128;
        crate::limits::check_rows(rows, 4 * 4)?;
        let total = u64::try_from(available)
            .ok()
            .filter(|_| n <= u32::MAX as usize)
            .ok_or(DesignError::TooManyItems { what, n })?;
        let ids = sample_distinct(total, count, self.seed);
        let again = sample_distinct(count as u64, self.repeat, self.seed ^ SALT_REPEAT);
        // (question id, mirrored): every question once, the repeated ones a second time.
        let mut asked: Vec<(u64, bool)> = ids.iter().map(|&id| (id, false)).collect();
        asked.extend(again.iter().map(|&i| (ids[i as usize], true)));
        shuffle(&mut asked, self.seed);
        let questions = match self.kind {
            QuestionKind::Triplets => Comparisons::Triplets(
                asked
                    .iter()
                    .map(|&(id, m)| triplet_row(n as u64, id, m, self.seed))
                    .collect(),
            ),
            QuestionKind::Quadruplets => Comparisons::Quadruplets(
                asked
                    .iter()
                    .map(|&(id, m)| quadruplet_row(id, m, self.seed))
                    .collect(),
            ),
        };
        Ok(Design {
            questions,
            distinct: count,
            repeated: self.repeat,
            available,
        })
    }
}

/// Fisher–Yates shuffle with a counter-based stream.
fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut r = CounterRng::new(seed, SALT_ORDER, 0);
    for i in (1..v.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// The random orientation bits of question `id`.
fn orientation(id: u64, seed: u64) -> u64 {
    CounterRng::new(seed, SALT_ORIENT, id).next_u64()
}

/// Triplet question `id` as a row: the two candidates in the question's random order, swapped
/// again when `mirrored`.
fn triplet_row(n: u64, id: u64, mirrored: bool, seed: u64) -> Triplet {
    let (a, j, k) = decode_triplet(n, id);
    if (orientation(id, seed) & 1 == 1) != mirrored {
        Triplet::new(a, k, j)
    } else {
        Triplet::new(a, j, k)
    }
}

/// Quadruplet question `id` as a row: pairs and the items within each in the question's random
/// order, the pairs swapped again when `mirrored`.
fn quadruplet_row(id: u64, mirrored: bool, seed: u64) -> Quadruplet {
    let (a, b, c, d) = decode_quadruplet(id);
    let bits = orientation(id, seed);
    let (a, b) = if bits & 2 == 2 { (b, a) } else { (a, b) };
    let (c, d) = if bits & 4 == 4 { (d, c) } else { (c, d) };
    if (bits & 1 == 1) != mirrored {
        Quadruplet::new(c, d, a, b)
    } else {
        Quadruplet::new(a, b, c, d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Every distinct question over `n` items, by canonical key, enumerated from its
    /// definition (Perrot et al. 2020, §2): an anchor and an unordered pair of two other
    /// items; or two distinct unordered pairs.
    fn naive_questions(n: u32, kind: QuestionKind) -> BTreeSet<Vec<u32>> {
        let pairs: Vec<(u32, u32)> = (0..n).flat_map(|b| (0..b).map(move |a| (a, b))).collect();
        let mut out = BTreeSet::new();
        match kind {
            QuestionKind::Triplets => {
                for a in 0..n {
                    for &(j, k) in &pairs {
                        if j != a && k != a {
                            out.insert(vec![a, j, k]);
                        }
                    }
                }
            }
            QuestionKind::Quadruplets => {
                for (x, p) in pairs.iter().enumerate() {
                    for q in &pairs[x + 1..] {
                        let (p, q) = if p <= q { (p, q) } else { (q, p) };
                        out.insert(vec![p.0, p.1, q.0, q.1]);
                    }
                }
            }
        }
        out
    }

    /// The canonical key of every row.
    fn keys(c: &Comparisons) -> Vec<Vec<u32>> {
        match c {
            Comparisons::Triplets(v) => v.iter().map(|t| t.canonical().0.to_vec()).collect(),
            Comparisons::Quadruplets(v) => v.iter().map(|q| q.canonical().0.to_vec()).collect(),
            Comparisons::SameCluster(_) => unreachable!(),
        }
    }

    fn kind_of(quad: bool) -> QuestionKind {
        if quad {
            QuestionKind::Quadruplets
        } else {
            QuestionKind::Triplets
        }
    }

    proptest! {
        /// Against the naive enumeration: every row is a distinct question that exists over
        /// the items (indices < n, not degenerate), the count is honoured, exactly `repeat`
        /// questions come twice, and a count beyond the distinct questions is an error.
        #[test]
        fn design_matches_naive_enumeration(
            n in 0u32..9,
            quad in any::<bool>(),
            count in 0usize..120,
            repeat in 0usize..10,
            seed in any::<u64>(),
        ) {
            let kind = kind_of(quad);
            let all = naive_questions(n, kind);
            prop_assert_eq!(kind.n_distinct(n as usize), all.len() as u128);
            let p = DesignParams { kind, count: QuestionCount::Exactly(count), repeat, seed };
            let res = p.draw(n as usize);
            if all.is_empty() {
                prop_assert!(matches!(res, Err(DesignError::TooFewItems { .. })), "{:?}", res);
                return Ok(());
            }
            if count > all.len() {
                prop_assert!(matches!(res, Err(DesignError::TooMany { .. })), "{:?}", res);
                return Ok(());
            }
            if repeat > count {
                prop_assert!(matches!(res, Err(DesignError::RepeatBeyondCount { .. })), "{:?}", res);
                return Ok(());
            }
            let d = res.unwrap();
            prop_assert_eq!(d.questions.len(), count + repeat);
            prop_assert_eq!((d.distinct, d.repeated), (count, repeat));
            let mut times: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
            for k in keys(&d.questions) {
                prop_assert!(all.contains(&k), "{:?} is not a question over {} items", k, n);
                *times.entry(k).or_default() += 1;
            }
            prop_assert_eq!(times.len(), count);
            prop_assert_eq!(times.values().filter(|&&t| t == 2).count(), repeat);
            prop_assert!(times.values().all(|&t| t <= 2));
            // A full design asks every question.
            if count == all.len() {
                prop_assert_eq!(times.keys().cloned().collect::<BTreeSet<_>>(), all);
            }
            // Same seed, same design.
            prop_assert_eq!(p.draw(n as usize).unwrap(), d);
        }
    }

    /// A repeated question is shown mirrored: once as each answer would be written.
    #[test]
    fn repeats_are_mirrored() {
        for quad in [false, true] {
            let p = DesignParams {
                kind: kind_of(quad),
                count: QuestionCount::Exactly(30),
                repeat: 30,
                seed: 7,
            };
            let d = p.draw(8).unwrap();
            let mut signs: BTreeMap<Vec<u32>, Vec<i8>> = BTreeMap::new();
            match &d.questions {
                Comparisons::Triplets(v) => v.iter().for_each(|t| {
                    let (k, s) = t.canonical();
                    signs.entry(k.to_vec()).or_default().push(s)
                }),
                Comparisons::Quadruplets(v) => v.iter().for_each(|q| {
                    let (k, s) = q.canonical();
                    signs.entry(k.to_vec()).or_default().push(s)
                }),
                Comparisons::SameCluster(_) => unreachable!(),
            }
            assert!(signs.values().all(|s| s.len() == 2 && s[0] == -s[1]));
        }
    }

    /// The draw is uniform: over 1,200 seeds, each of the 12 triplet questions on 4 items is
    /// drawn about 1200 · 3/12 = 300 times (binomial sd 15; the bound is 4 sd), and shown in
    /// either orientation about equally often.
    #[test]
    fn draws_are_uniform_and_orientations_balanced() {
        let mut seen: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
        let mut first_smaller = 0usize;
        for seed in 0..1200 {
            let p = DesignParams {
                kind: QuestionKind::Triplets,
                count: QuestionCount::Exactly(3),
                repeat: 0,
                seed,
            };
            let Comparisons::Triplets(v) = p.draw(4).unwrap().questions else {
                unreachable!()
            };
            for t in v {
                *seen.entry(t.canonical().0.to_vec()).or_default() += 1;
                first_smaller += usize::from(t.near < t.far);
            }
        }
        assert_eq!(seen.len(), 12);
        assert!(seen.values().all(|&c| c.abs_diff(300) <= 60), "{seen:?}");
        // 3600 rows, sd 30.
        assert!(first_smaller.abs_diff(1800) <= 120, "{first_smaller}");
    }

    #[test]
    fn auto_is_n_ln_cubed_n_and_counts_parse() {
        // 100 (ln 100)³ = 9765.6…
        assert_eq!(auto_count(100, QuestionKind::Triplets), 9766);
        // 3 (ln 3)³ = 3.98, capped at the 3 · C(2, 2) = 3 triplets over 3 items
        assert_eq!(auto_count(3, QuestionKind::Triplets), 3);
        assert_eq!("auto".parse(), Ok(QuestionCount::Auto));
        assert_eq!(" 25 ".parse(), Ok(QuestionCount::Exactly(25)));
        assert!("-3".parse::<QuestionCount>().is_err());
        let p = DesignParams {
            kind: QuestionKind::Quadruplets,
            count: QuestionCount::Auto,
            repeat: 0,
            seed: 1,
        };
        assert_eq!(p.draw(20).unwrap().questions.len(), auto_count(20, p.kind));
    }
}
