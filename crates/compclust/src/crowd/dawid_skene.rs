//! One-coin Dawid–Skene (Dawid & Skene 1979, one accuracy per worker): EM over the worker
//! accuracies `p_w`, the label priors `π_k` and the posteriors `T_qk` of each question.
//!
//! - start: `T_qk` = share of the answers to `q` that are `k` (majority-vote proportions);
//! - M-step: `π_k = mean_q T_qk`, `p_w = (Σ_{answers (q, l) of w} T_ql) / #answers of w`;
//! - E-step: `T_qk ∝ π_k Π_{answers (l, w) to q} (p_w if l = k else (1 − p_w)/(K − 1))`,
//!
//! where `K` is the number of distinct labels given. Accuracies are kept in `[1e-6, 1 − 1e-6]`
//! so a perfect worker does not zero a posterior. The iteration stops when no posterior moves
//! by more than `tol`, or after `max_iter` rounds.

/// The fitted model.
#[derive(Clone, Debug, PartialEq)]
pub struct DawidSkeneFit {
    /// The distinct labels, sorted (the columns of `posteriors`).
    pub labels: Vec<u32>,
    /// `T_qk` per question (in the order given) and label.
    pub posteriors: Vec<Vec<f64>>,
    /// Label priors `π_k`.
    pub priors: Vec<f64>,
    /// `(worker, p_w)`, workers sorted.
    pub accuracy: Vec<(u32, f64)>,
    /// EM iterations run.
    pub iterations: usize,
}

impl DawidSkeneFit {
    /// The most probable label of each question; `None` when the two best posteriors tie
    /// (within 1e-9).
    pub fn decisions(&self) -> Vec<Option<u32>> {
        self.posteriors
            .iter()
            .map(|t| {
                let mut best = 0;
                for k in 1..t.len() {
                    if t[k] > t[best] {
                        best = k;
                    }
                }
                let tie = (0..t.len()).any(|k| k != best && (t[best] - t[k]).abs() <= 1e-9);
                (!t.is_empty() && !tie).then(|| self.labels[best])
            })
            .collect()
    }
}

const ACC_MIN: f64 = 1e-6;

fn clamp_acc(p: f64) -> f64 {
    p.clamp(ACC_MIN, 1.0 - ACC_MIN)
}

/// Sorted distinct labels and workers of the answers.
fn labels_and_workers<K>(groups: &[(K, Vec<(u32, u32)>)]) -> (Vec<u32>, Vec<u32>) {
    let mut labels: Vec<u32> = groups
        .iter()
        .flat_map(|g| g.1.iter().map(|a| a.0))
        .collect();
    let mut workers: Vec<u32> = groups
        .iter()
        .flat_map(|g| g.1.iter().map(|a| a.1))
        .collect();
    labels.sort_unstable();
    labels.dedup();
    workers.sort_unstable();
    workers.dedup();
    (labels, workers)
}

/// Fit one-coin Dawid–Skene to answers grouped by question: `(question, [(label, worker)])`.
pub fn one_coin_dawid_skene<K>(
    groups: &[(K, Vec<(u32, u32)>)],
    max_iter: usize,
    tol: f64,
) -> DawidSkeneFit {
    let (labels, workers) = labels_and_workers(groups);
    let nk = labels.len();
    // answers with label and worker as indices
    let idx: Vec<Vec<(usize, usize)>> = groups
        .iter()
        .map(|(_, a)| {
            a.iter()
                .map(|&(l, w)| {
                    (
                        labels.binary_search(&l).expect("label seen"),
                        workers.binary_search(&w).expect("worker seen"),
                    )
                })
                .collect()
        })
        .collect();
    let mut post: Vec<Vec<f64>> = idx
        .iter()
        .map(|a| {
            let mut t = vec![0.0; nk];
            for &(k, _) in a {
                t[k] += 1.0;
            }
            let n = a.len().max(1) as f64;
            t.iter_mut().for_each(|x| *x /= n);
            t
        })
        .collect();
    let mut priors = vec![0.0; nk];
    let mut acc = vec![1.0; workers.len()];
    let mut iterations = 0;
    if nk >= 2 {
        let mut answered = vec![0usize; workers.len()];
        for a in &idx {
            for &(_, w) in a {
                answered[w] += 1;
            }
        }
        while iterations < max_iter {
            iterations += 1;
            // M-step
            priors.iter_mut().for_each(|p| *p = 0.0);
            for t in &post {
                for (p, x) in priors.iter_mut().zip(t) {
                    *p += x / post.len() as f64;
                }
            }
            let mut hit = vec![0.0; workers.len()];
            for (a, t) in idx.iter().zip(&post) {
                for &(k, w) in a {
                    hit[w] += t[k];
                }
            }
            for w in 0..workers.len() {
                acc[w] = clamp_acc(hit[w] / answered[w] as f64);
            }
            // E-step in logs
            let log_right: Vec<f64> = acc.iter().map(|p| p.ln()).collect();
            let log_wrong: Vec<f64> = acc
                .iter()
                .map(|p| ((1.0 - p) / (nk - 1) as f64).ln())
                .collect();
            let mut moved: f64 = 0.0;
            for (a, t) in idx.iter().zip(post.iter_mut()) {
                let mut lp: Vec<f64> = priors.iter().map(|p| p.ln()).collect();
                for &(l, w) in a {
                    for (k, x) in lp.iter_mut().enumerate() {
                        *x += if k == l { log_right[w] } else { log_wrong[w] };
                    }
                }
                let m = lp.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let z: f64 = lp.iter().map(|x| (x - m).exp()).sum();
                for (x, old) in lp.iter().zip(t.iter_mut()) {
                    let new = (x - m).exp() / z;
                    moved = moved.max((new - *old).abs());
                    *old = new;
                }
            }
            if moved <= tol {
                break;
            }
        }
    } else {
        priors.iter_mut().for_each(|p| *p = 1.0);
    }
    DawidSkeneFit {
        labels,
        posteriors: post,
        priors,
        accuracy: workers.into_iter().zip(acc).collect(),
        iterations,
    }
}

/// The same EM written literally from the formulas on a dense question × worker table,
/// products instead of logs: a reference for tests (small inputs only; a worker's last answer
/// to a question is the one kept, so give at most one answer per worker and question).
pub fn one_coin_dawid_skene_naive<K>(
    groups: &[(K, Vec<(u32, u32)>)],
    max_iter: usize,
    tol: f64,
) -> DawidSkeneFit {
    let (labels, workers) = labels_and_workers(groups);
    let (nq, nw, nk) = (groups.len(), workers.len(), labels.len());
    let mut table: Vec<Vec<Option<usize>>> = vec![vec![None; nw]; nq];
    for (q, (_, a)) in groups.iter().enumerate() {
        for &(l, w) in a {
            let wi = workers.iter().position(|&x| x == w).unwrap();
            table[q][wi] = Some(labels.iter().position(|&x| x == l).unwrap());
        }
    }
    let mut post = vec![vec![0.0; nk]; nq];
    for q in 0..nq {
        let n = table[q].iter().flatten().count() as f64;
        for k in table[q].iter().flatten() {
            post[q][*k] += 1.0 / n;
        }
    }
    let mut priors = vec![1.0; nk];
    let mut acc = vec![1.0; nw];
    let mut iterations = 0;
    if nk >= 2 {
        while iterations < max_iter {
            iterations += 1;
            for k in 0..nk {
                priors[k] = (0..nq).map(|q| post[q][k]).sum::<f64>() / nq as f64;
            }
            for w in 0..nw {
                let (mut num, mut den) = (0.0, 0.0);
                for q in 0..nq {
                    if let Some(l) = table[q][w] {
                        num += post[q][l];
                        den += 1.0;
                    }
                }
                acc[w] = clamp_acc(num / den);
            }
            let mut moved: f64 = 0.0;
            for q in 0..nq {
                let mut un = vec![0.0; nk];
                for k in 0..nk {
                    let mut p = priors[k];
                    for w in 0..nw {
                        if let Some(l) = table[q][w] {
                            p *= if l == k {
                                acc[w]
                            } else {
                                (1.0 - acc[w]) / (nk - 1) as f64
                            };
                        }
                    }
                    un[k] = p;
                }
                let z: f64 = un.iter().sum();
                for k in 0..nk {
                    moved = moved.max((un[k] / z - post[q][k]).abs());
                    post[q][k] = un[k] / z;
                }
            }
            if moved <= tol {
                break;
            }
        }
    }
    DawidSkeneFit {
        labels,
        posteriors: post,
        priors,
        accuracy: workers.into_iter().zip(acc).collect(),
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A reliable majority outvotes a worker who is always wrong, and EM learns who is who.
    #[test]
    fn learns_worker_accuracies() {
        // 30 binary questions with truth q % 2; workers 0 and 1 always right, worker 2 always
        // wrong, worker 3 right on every third question only
        let groups: Vec<(u32, Vec<(u32, u32)>)> = (0..30u32)
            .map(|q| {
                let t = q % 2;
                let w3 = if q % 3 == 0 { t } else { 1 - t };
                (q, vec![(t, 0), (t, 1), (1 - t, 2), (w3, 3)])
            })
            .collect();
        let fit = one_coin_dawid_skene(&groups, 100, 1e-12);
        let d = fit.decisions();
        for (q, x) in d.iter().enumerate() {
            assert_eq!(*x, Some(q as u32 % 2));
        }
        let acc: Vec<f64> = fit.accuracy.iter().map(|a| a.1).collect();
        assert!(acc[0] > 0.99 && acc[1] > 0.99 && acc[2] < 0.01, "{acc:?}");
        assert!((acc[3] - 1.0 / 3.0).abs() < 0.05, "{acc:?}");
    }

    proptest! {
        /// The sparse log-space EM equals the literal EM on small random answer sets.
        #[test]
        fn matches_naive_em(
            answers in prop::collection::vec((0u32..6, 0u32..3, 0u32..5), 1..40),
            iters in 1usize..20,
        ) {
            // at most one answer per (question, worker)
            let mut seen = std::collections::HashSet::new();
            let mut groups: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
            for (q, l, w) in answers {
                if !seen.insert((q, w)) { continue; }
                match groups.iter_mut().find(|g| g.0 == q) {
                    Some(g) => g.1.push((l, w)),
                    None => groups.push((q, vec![(l, w)])),
                }
            }
            // a negative tolerance never stops early: both run exactly `iters` EM steps (with
            // 0.0 an exact fixed point in one and a 1e-17 move in the other could differ by a step)
            let fast = one_coin_dawid_skene(&groups, iters, -1.0);
            let slow = one_coin_dawid_skene_naive(&groups, iters, -1.0);
            prop_assert_eq!(&fast.labels, &slow.labels);
            prop_assert_eq!(fast.iterations, slow.iterations);
            for (a, b) in fast.posteriors.iter().zip(&slow.posteriors) {
                for (x, y) in a.iter().zip(b) {
                    prop_assert!((x - y).abs() < 1e-9, "{:?} vs {:?}", a, b);
                }
            }
            for (a, b) in fast.accuracy.iter().zip(&slow.accuracy) {
                prop_assert_eq!(a.0, b.0);
                prop_assert!((a.1 - b.1).abs() < 1e-9);
            }
        }
    }
}
