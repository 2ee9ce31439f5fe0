//! Repeated and noisy crowd answers: when a question was answered several times (by several
//! workers, or by one worker twice), the answers are aggregated into one before an algorithm
//! sees them.
//!
//! - Majority vote (the default): the most frequent answer; a tie leaves the question
//!   undecided, so it goes back to the crowd.
//! - One-coin Dawid–Skene (Dawid & Skene 1979, with one accuracy per worker as in crowd-kit's
//!   `OneCoinDawidSkene`): EM over the workers' accuracies `p_w` and the label posteriors of
//!   every question, started from the majority-vote proportions.
//!
//! The report counts answers, distinct questions, questions whose answers disagree, and each
//! worker's agreement with the aggregate.

mod dawid_skene;

use serde::Serialize;

use crate::data::{Comparisons, Quadruplet, SameCluster, Triplet};

pub use dawid_skene::{DawidSkeneFit, one_coin_dawid_skene, one_coin_dawid_skene_naive};

/// One answer: `label` for `question`, given by `worker` (a caller-chosen id; answers without
/// a worker can all share one id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vote<K> {
    /// The question, in a canonical form (equal questions have equal keys).
    pub question: K,
    /// The answer, as a small integer (0/1 for comparisons).
    pub label: u32,
    /// Who answered.
    pub worker: u32,
}

/// How repeated answers are combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregation {
    /// The most frequent answer; ties stay undecided.
    #[default]
    Majority,
    /// One-coin Dawid–Skene: EM over one accuracy per worker.
    DawidSkene,
}

crate::names::named_enum!(Aggregation, "aggregation" {
    Majority => "majority" | "mv",
    DawidSkene => "dawid-skene" | "dawid_skene" | "ds",
});

/// Agreement of one worker with the aggregate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkerAgreement {
    /// The worker id.
    pub worker: u32,
    /// Answers given.
    pub answers: usize,
    /// Answers equal to the aggregate (questions left undecided count as disagreeing).
    pub agreeing: usize,
    /// Estimated accuracy `p_w` (Dawid–Skene only).
    pub accuracy: Option<f64>,
}

/// What the aggregation saw and decided.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AggregateReport {
    /// How the answers were combined.
    pub aggregation: Aggregation,
    /// Answers given.
    pub answers: usize,
    /// Distinct questions answered.
    pub questions: usize,
    /// Questions whose answers are not all equal.
    pub disagreements: usize,
    /// Questions left undecided (tied).
    pub undecided: usize,
    /// Per worker, by id.
    pub workers: Vec<WorkerAgreement>,
}

/// The aggregated answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregated<K> {
    /// One answer per decided question, sorted by question.
    pub decided: Vec<(K, u32)>,
    /// Questions whose answers tie (ask them again).
    pub undecided: Vec<K>,
    /// Counts and per-worker agreement.
    pub report: AggregateReport,
}

/// Votes grouped by question: `(question, [(label, worker)])`, questions sorted.
fn group<K: Ord + Copy>(votes: &[Vote<K>]) -> Vec<(K, Vec<(u32, u32)>)> {
    let mut v: Vec<&Vote<K>> = votes.iter().collect();
    v.sort_by_key(|a| a.question);
    let mut out: Vec<(K, Vec<(u32, u32)>)> = Vec::new();
    for x in v {
        match out.last_mut() {
            Some((k, list)) if *k == x.question => list.push((x.label, x.worker)),
            _ => out.push((x.question, vec![(x.label, x.worker)])),
        }
    }
    out
}

/// The majority label of `answers` (`(label, worker)` pairs), or `None` on a tie: the rule of
/// [`Aggregation::Majority`] for one question.
pub fn majority(answers: &[(u32, u32)]) -> Option<u32> {
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for &(l, _) in answers {
        match counts.iter_mut().find(|c| c.0 == l) {
            Some(c) => c.1 += 1,
            None => counts.push((l, 1)),
        }
    }
    let best = counts.iter().map(|c| c.1).max()?;
    let mut top = counts.iter().filter(|c| c.1 == best);
    let first = top.next()?;
    if top.next().is_some() {
        None
    } else {
        Some(first.0)
    }
}

/// Aggregate `votes` into one answer per question.
pub fn aggregate<K: Ord + Copy>(votes: &[Vote<K>], how: Aggregation) -> Aggregated<K> {
    let groups = group(votes);
    type Accuracy = Option<Vec<(u32, f64)>>;
    let (labels, accuracy): (Vec<Option<u32>>, Accuracy) = match how {
        Aggregation::Majority => (groups.iter().map(|(_, a)| majority(a)).collect(), None),
        Aggregation::DawidSkene => {
            let fit = one_coin_dawid_skene(&groups, 100, 1e-9);
            (fit.decisions(), Some(fit.accuracy))
        }
    };
    let mut workers: Vec<WorkerAgreement> = Vec::new();
    let mut decided = Vec::new();
    let mut undecided = Vec::new();
    let mut disagreements = 0;
    for ((q, answers), label) in groups.iter().zip(&labels) {
        disagreements += usize::from(answers.iter().any(|a| a.0 != answers[0].0));
        match label {
            Some(l) => decided.push((*q, *l)),
            None => undecided.push(*q),
        }
        for &(l, w) in answers {
            let i = match workers.binary_search_by_key(&w, |x| x.worker) {
                Ok(i) => i,
                Err(i) => {
                    workers.insert(
                        i,
                        WorkerAgreement {
                            worker: w,
                            answers: 0,
                            agreeing: 0,
                            accuracy: None,
                        },
                    );
                    i
                }
            };
            workers[i].answers += 1;
            workers[i].agreeing += usize::from(*label == Some(l));
        }
    }
    if let Some(acc) = accuracy {
        for (w, p) in acc {
            if let Ok(i) = workers.binary_search_by_key(&w, |x| x.worker) {
                workers[i].accuracy = Some(p);
            }
        }
    }
    let report = AggregateReport {
        aggregation: how,
        answers: votes.len(),
        questions: groups.len(),
        disagreements,
        undecided: undecided.len(),
        workers,
    };
    Aggregated {
        decided,
        undecided,
        report,
    }
}

/// Quadruplet answers as votes on canonical questions (label 1: the canonical first pair was
/// judged more similar). `workers[i]` is the worker of row `i` (0 for all when empty).
pub fn quadruplet_votes(rows: &[Quadruplet], workers: &[u32]) -> Vec<Vote<[u32; 4]>> {
    rows.iter()
        .enumerate()
        .map(|(i, q)| {
            let (key, sign) = q.canonical();
            Vote {
                question: key,
                label: u32::from(sign > 0),
                worker: workers.get(i).copied().unwrap_or(0),
            }
        })
        .collect()
}

/// The decided quadruplets, one row per question, written as answered.
pub fn decided_quadruplets(agg: &Aggregated<[u32; 4]>) -> Vec<Quadruplet> {
    agg.decided
        .iter()
        .map(|&([a, b, c, d], l)| {
            if l == 1 {
                Quadruplet::new(a, b, c, d)
            } else {
                Quadruplet::new(c, d, a, b)
            }
        })
        .collect()
}

/// Triplet answers as votes on canonical questions (label 1: the smaller of the two other
/// items was judged closer to the anchor).
pub fn triplet_votes(rows: &[Triplet], workers: &[u32]) -> Vec<Vote<[u32; 3]>> {
    rows.iter()
        .enumerate()
        .map(|(i, t)| {
            let (key, sign) = t.canonical();
            Vote {
                question: key,
                label: u32::from(sign > 0),
                worker: workers.get(i).copied().unwrap_or(0),
            }
        })
        .collect()
}

/// The decided triplets, one row per question.
pub fn decided_triplets(agg: &Aggregated<[u32; 3]>) -> Vec<Triplet> {
    agg.decided
        .iter()
        .map(|&([a, j, k], l)| {
            if l == 1 {
                Triplet::new(a, j, k)
            } else {
                Triplet::new(a, k, j)
            }
        })
        .collect()
}

/// Same-cluster answers as votes on unordered pairs (label: the answer rounded to an integer,
/// e.g. the number of shared clusters of paper 003).
pub fn same_cluster_votes(rows: &[SameCluster], workers: &[u32]) -> Vec<Vote<(u32, u32)>> {
    rows.iter()
        .enumerate()
        .map(|(i, s)| Vote {
            question: (s.a.min(s.b), s.a.max(s.b)),
            label: s.answer.round().max(0.0) as u32,
            worker: workers.get(i).copied().unwrap_or(0),
        })
        .collect()
}

/// The answers of a file aggregated into one row per question.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregatedAnswers {
    /// One row per decided question, of the kind of the input.
    pub comparisons: Comparisons,
    /// Same-cluster pairs `(a, b)`, `a < b`, whose answers tie: to be asked again.
    pub undecided_pairs: Vec<(u32, u32)>,
    /// Answers, distinct questions, disagreements and per-worker agreement.
    pub report: AggregateReport,
}

/// Aggregate the rows of `c` (row `i` answered by `workers[i]`, or all by one worker when
/// `workers` is empty) into one answer per question, `how` deciding between disagreeing
/// answers: the step every reader of answers takes before an algorithm sees them.
pub fn aggregate_answers(c: &Comparisons, workers: &[u32], how: Aggregation) -> AggregatedAnswers {
    match c {
        Comparisons::Triplets(rows) => {
            let agg = aggregate(&triplet_votes(rows, workers), how);
            AggregatedAnswers {
                comparisons: Comparisons::Triplets(decided_triplets(&agg)),
                undecided_pairs: Vec::new(),
                report: agg.report,
            }
        }
        Comparisons::Quadruplets(rows) => {
            let agg = aggregate(&quadruplet_votes(rows, workers), how);
            AggregatedAnswers {
                comparisons: Comparisons::Quadruplets(decided_quadruplets(&agg)),
                undecided_pairs: Vec::new(),
                report: agg.report,
            }
        }
        Comparisons::SameCluster(rows) => {
            let agg = aggregate(&same_cluster_votes(rows, workers), how);
            let decided = agg
                .decided
                .iter()
                .map(|&((a, b), l)| SameCluster {
                    a,
                    b,
                    answer: f64::from(l),
                })
                .collect();
            AggregatedAnswers {
                comparisons: Comparisons::SameCluster(decided),
                undecided_pairs: agg.undecided,
                report: agg.report,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(q: u32, label: u32, worker: u32) -> Vote<u32> {
        Vote {
            question: q,
            label,
            worker,
        }
    }

    #[test]
    fn majority_decides_and_ties_stay_open() {
        let votes = [
            v(1, 1, 0),
            v(1, 1, 1),
            v(1, 0, 2),
            v(2, 0, 0),
            v(2, 1, 1),
            v(3, 0, 2),
        ];
        let agg = aggregate(&votes, Aggregation::Majority);
        assert_eq!(agg.decided, vec![(1, 1), (3, 0)]);
        assert_eq!(agg.undecided, vec![2]);
        let r = &agg.report;
        assert_eq!(
            (r.answers, r.questions, r.disagreements, r.undecided),
            (6, 3, 2, 1)
        );
        let w: Vec<(u32, usize, usize)> = r
            .workers
            .iter()
            .map(|w| (w.worker, w.answers, w.agreeing))
            .collect();
        assert_eq!(w, vec![(0, 2, 1), (1, 2, 1), (2, 2, 1)]);
        assert_eq!("dawid-skene".parse(), Ok(Aggregation::DawidSkene));
        assert!("vote".parse::<Aggregation>().is_err());
    }

    #[test]
    fn same_cluster_answers_are_voted_per_unordered_pair() {
        let row = |a, b, answer| SameCluster { a, b, answer };
        let rows = Comparisons::SameCluster(vec![
            row(0, 1, 1.0),
            row(1, 0, 1.0),
            row(0, 1, 0.0),
            row(2, 3, 1.0),
            row(3, 2, 0.0),
        ]);
        let agg = aggregate_answers(&rows, &[0, 1, 2, 0, 1], Aggregation::Majority);
        assert_eq!(
            agg.comparisons,
            Comparisons::SameCluster(vec![row(0, 1, 1.0)])
        );
        assert_eq!(agg.undecided_pairs, vec![(2, 3)]);
        assert_eq!((agg.report.answers, agg.report.questions), (5, 2));
    }

    #[test]
    fn quadruplets_round_trip_through_votes() {
        let rows = [
            Quadruplet::new(0, 1, 2, 3),
            Quadruplet::new(3, 2, 1, 0), // same question, other answer
            Quadruplet::new(1, 0, 3, 2), // same as the first
            Quadruplet::new(4, 5, 0, 1),
        ];
        let votes = quadruplet_votes(&rows, &[0, 1, 2, 0]);
        let agg = aggregate(&votes, Aggregation::Majority);
        let out = decided_quadruplets(&agg);
        assert_eq!(
            out,
            vec![Quadruplet::new(0, 1, 2, 3), Quadruplet::new(4, 5, 0, 1)]
        );
        assert_eq!(agg.report.disagreements, 1);
        let t = [
            Triplet::new(0, 2, 1),
            Triplet::new(0, 1, 2),
            Triplet::new(0, 2, 1),
        ];
        let agg = aggregate(&triplet_votes(&t, &[]), Aggregation::Majority);
        assert_eq!(decided_triplets(&agg), vec![Triplet::new(0, 2, 1)]);
    }
}
