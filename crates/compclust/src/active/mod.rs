//! The query/answer protocol shared by every adaptive algorithm: adaptive algorithms are step
//! machines.
//!
//! An algorithm that asks questions never calls a blocking closure inside its loop. It exposes
//! [`StepMachine::next_queries`], which returns a batch of queries to ask (or says it is done),
//! and [`StepMachine::observe`], which takes one answer. The same machine then runs against a
//! simulated oracle in a tight loop ([`run`]), against a file of collected answers (reporting
//! which are still missing), or against people answering over hours.

/// What a step machine wants next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<Q> {
    /// Ask these queries; feed every answer back with [`StepMachine::observe`] before calling
    /// [`StepMachine::next_queries`] again.
    Ask(Vec<Q>),
    /// Finished: take the result with [`StepMachine::finish`].
    Done,
}

/// An algorithm that asks questions.
pub trait StepMachine {
    /// One question.
    type Query: Clone;
    /// Its answer.
    type Answer;
    /// What the algorithm produces.
    type Output;

    /// The next batch of queries, or [`Step::Done`].
    fn next_queries(&mut self) -> Step<Self::Query>;

    /// Record the answer to `query`.
    fn observe(&mut self, query: &Self::Query, answer: Self::Answer);

    /// The result; call after [`Step::Done`].
    fn finish(self) -> Self::Output;
}

/// Something that answers queries (a simulated oracle, a file of answers, a person).
pub trait Oracle<Q, A> {
    /// The answer to `query`, or `None` when this oracle cannot answer it (e.g. the answer is
    /// missing from a file).
    fn answer(&mut self, query: &Q) -> Option<A>;
}

impl<Q, A, F: FnMut(&Q) -> A> Oracle<Q, A> for F {
    fn answer(&mut self, query: &Q) -> Option<A> {
        Some(self(query))
    }
}

/// The result of driving a step machine with [`run`].
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome<O, Q> {
    /// The machine finished.
    Finished {
        /// Its output.
        output: O,
        /// How many queries were answered.
        queries: usize,
        /// How many batches were asked (crowd rounds: the questions of one batch do not
        /// depend on each other's answers).
        rounds: usize,
    },
    /// The oracle could not answer these queries (e.g. absent from a file of answers); ask
    /// them (in a next crowd round) and run again.
    Missing {
        /// The unanswered queries of the batch that stopped the run.
        missing: Vec<Q>,
        /// How many queries were answered before stopping.
        queries: usize,
        /// How many batches were asked, the one that stopped the run included.
        rounds: usize,
    },
}

impl<O, Q> RunOutcome<O, Q> {
    /// Turn a finished output (and the numbers of queries answered and rounds asked) into
    /// another, or fail; missing queries pass through unchanged.
    pub fn try_map<P, E>(
        self,
        f: impl FnOnce(O, usize, usize) -> Result<P, E>,
    ) -> Result<RunOutcome<P, Q>, E> {
        Ok(match self {
            RunOutcome::Finished {
                output,
                queries,
                rounds,
            } => RunOutcome::Finished {
                output: f(output, queries, rounds)?,
                queries,
                rounds,
            },
            RunOutcome::Missing {
                missing,
                queries,
                rounds,
            } => RunOutcome::Missing {
                missing,
                queries,
                rounds,
            },
        })
    }
}

/// Drive `machine` to the end with `oracle`, counting the queries answered and the batches
/// (rounds) asked.
pub fn run<M, O>(mut machine: M, oracle: &mut O) -> RunOutcome<M::Output, M::Query>
where
    M: StepMachine,
    O: Oracle<M::Query, M::Answer>,
{
    let mut queries = 0;
    let mut rounds = 0;
    loop {
        match machine.next_queries() {
            Step::Done => {
                return RunOutcome::Finished {
                    output: machine.finish(),
                    queries,
                    rounds,
                };
            }
            Step::Ask(batch) => {
                rounds += 1;
                let mut missing = Vec::new();
                for q in batch {
                    match oracle.answer(&q) {
                        Some(a) => {
                            machine.observe(&q, a);
                            queries += 1;
                        }
                        None => missing.push(q),
                    }
                }
                if !missing.is_empty() {
                    return RunOutcome::Missing {
                        missing,
                        queries,
                        rounds,
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finds the maximum of a hidden array by asking "is x[i] > x[j]?" queries.
    struct ArgMax {
        n: usize,
        best: usize,
        next: usize,
    }

    impl StepMachine for ArgMax {
        type Query = (usize, usize);
        type Answer = bool;
        type Output = usize;
        fn next_queries(&mut self) -> Step<(usize, usize)> {
            if self.next >= self.n {
                Step::Done
            } else {
                Step::Ask(vec![(self.next, self.best)])
            }
        }
        fn observe(&mut self, q: &(usize, usize), bigger: bool) {
            if bigger {
                self.best = q.0;
            }
            self.next += 1;
        }
        fn finish(self) -> usize {
            self.best
        }
    }

    #[test]
    fn run_drives_to_the_end_and_counts() {
        let x = [3, 9, 2, 7];
        let mut oracle = |q: &(usize, usize)| x[q.0] > x[q.1];
        let out = run(
            ArgMax {
                n: 4,
                best: 0,
                next: 1,
            },
            &mut oracle,
        );
        assert_eq!(
            out,
            RunOutcome::Finished {
                output: 1,
                queries: 3,
                rounds: 3
            }
        );
    }

    #[test]
    fn run_reports_missing_answers() {
        struct NoAnswers;
        impl Oracle<(usize, usize), bool> for NoAnswers {
            fn answer(&mut self, _: &(usize, usize)) -> Option<bool> {
                None
            }
        }
        let out = run(
            ArgMax {
                n: 4,
                best: 0,
                next: 1,
            },
            &mut NoAnswers,
        );
        assert_eq!(
            out,
            RunOutcome::Missing {
                missing: vec![(1, 0)],
                queries: 0,
                rounds: 1
            }
        );
    }
}
