//! SPUR's decision under loose solves: which θ_k must be solved accurately before
//! `k̂ = argmax θ_k` (Perrot et al. 2020, App. D, Algorithm 2) and the early stop at
//! `θ_k > 0.99` can be trusted (`docs/SOLVER.md`, "Adaptive accuracy").
//!
//! SPUR solves every SDP loosely first. A loose θ_k carries an uncertainty `u_k`: the accurate
//! θ_k is assumed to lie in `[θ_k − u_k, θ_k + u_k]` (`u_k = 0` once the solve was tightened).
//! [`decide`] reads the decision off the current values: the scan ends at the first k whose θ
//! exceeds the stop (or at the last k solved), and k̂ is the first maximum before it.
//! [`next_step`] says what must happen before that decision holds for every accurate value
//! inside the intervals: solve more k while no θ is surely above the stop, and tighten every
//! solve that could overtake the leader (with the leader) or end the scan before it. The
//! property test in `tests/sdp_spur.rs` checks that the decision reached this way is the
//! decision on the accurate values.

/// One solved SDP-k as the decision sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theta {
    /// SPUR's criterion θ_k at the tolerance reached so far.
    pub theta: f64,
    /// How far the accurate θ_k may lie from `theta` (0 when solved accurately).
    pub uncertainty: f64,
}

/// SPUR's decision on the solves of a scan (indices in increasing k).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Index of k̂: the first maximum of θ among the solves up to `end`.
    pub leader: usize,
    /// Index of the last solve the scan uses: the first whose θ exceeds the stop, else the
    /// last one solved.
    pub end: usize,
    /// Whether the scan ended on the stop threshold (else it used every solve given).
    pub stopped: bool,
}

/// SPUR's decision on the values `rows` (in increasing k; `None` for a k not solved yet, which
/// the decision skips): the scan ends at the first solved θ above the stop (else at the last
/// solved k), and k̂ is the first maximum before it. `None` when nothing is solved. Ties go to
/// the smaller k, as in the scan.
pub fn decide(rows: &[Option<Theta>], stop: Option<f64>) -> Option<Decision> {
    let solved = || {
        rows.iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, (*r)?)))
    };
    let first_above = stop.and_then(|s| solved().find(|(_, r)| r.theta > s).map(|(i, _)| i));
    let end = first_above.or_else(|| solved().next_back().map(|(i, _)| i))?;
    let mut leader: Option<(usize, f64)> = None;
    for (i, r) in solved().take_while(|&(i, _)| i <= end) {
        if leader.is_none_or(|(_, t)| r.theta > t) {
            leader = Some((i, r.theta));
        }
    }
    Some(Decision {
        leader: leader?.0,
        end,
        stopped: first_above.is_some(),
    })
}

/// What SPUR does next so that its decision holds for every accurate θ within the
/// uncertainties ([`next_step`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// The decision on the current values is the decision on any accurate values.
    Done,
    /// Solve these (indices, increasing) to the accurate tolerance.
    Refine(Vec<usize>),
    /// Solve this k of the range (loosely): the scan needs it before it can end.
    Solve(usize),
}

/// The next step of SPUR's scan on the values `rows` over the whole range of k (`None`: not
/// solved yet). The scan may end only at a solve whose θ is surely above the stop, and needs
/// every k before it (the whole range while none is surely above): the first unsolved one is
/// solved next, whatever order the solves so far came in. With those solved, every solve that
/// could overtake the leader is tightened (with the leader), and so is every solve before the
/// leader whose θ could lie above the stop (it would end the scan before the leader).
pub fn next_step(rows: &[Option<Theta>], stop: Option<f64>) -> Next {
    let surely_above = |r: &Theta| stop.is_some_and(|s| r.theta - r.uncertainty > s);
    let Some(last) = rows.len().checked_sub(1) else {
        return Next::Done;
    };
    let horizon = (rows.iter())
        .position(|r| r.as_ref().is_some_and(surely_above))
        .unwrap_or(last);
    if let Some(i) = rows[..=horizon].iter().position(Option::is_none) {
        return Next::Solve(i);
    }
    // Every row up to the horizon is solved: `flatten` keeps their indices.
    let rows = &rows[..=horizon];
    let Some(d) = decide(rows, stop) else {
        return Next::Done;
    };
    let lead = rows[d.leader].expect("the decision names a solved row");
    let lead_low = lead.theta - lead.uncertainty;
    let mut out = Vec::new();
    let mut contested = false;
    for (i, r) in rows.iter().flatten().enumerate() {
        if i == d.leader {
            continue;
        }
        let overtakes = r.theta + r.uncertainty >= lead_low;
        let cuts = i < d.leader && stop.is_some_and(|s| r.theta + r.uncertainty > s);
        contested |= overtakes;
        if r.uncertainty > 0.0 && (overtakes || cuts) {
            out.push(i);
        }
    }
    if contested && lead.uncertainty > 0.0 {
        out.push(d.leader);
    }
    if out.is_empty() {
        Next::Done
    } else {
        out.sort_unstable();
        Next::Refine(out)
    }
}

/// The unsolved k the scan solves when [`next_step`] asks for index `first`, given the index
/// `guess` the scan solved first. Below the guess, the unsolved index nearest below it, so that
/// the k under SPUR's likeliest k̂ are solved downwards and each starts warm from the solve
/// just above it (the nearest trace: on seeds 0–5 of the paper's default, SDP-2 warm from
/// SDP-3 took 190, 140, 230, 140, 230 and 190 iterations, against 300, 260, 250, 260, 200 and
/// 250 from the SDP-λ_min state). Every index from `first` up to the
/// first solve between them that is surely above the stop is needed before the scan can end,
/// so the order changes which state warms each solve, not what is solved. Otherwise `first`.
pub fn solve_next(rows: &[Option<Theta>], stop: Option<f64>, first: usize, guess: usize) -> usize {
    let surely_above = |r: &Theta| stop.is_some_and(|s| r.theta - r.uncertainty > s);
    let end = (first..guess.min(rows.len()))
        .find(|&j| rows[j].as_ref().is_some_and(surely_above))
        .unwrap_or(guess.min(rows.len()));
    (first..end)
        .rev()
        .find(|&j| rows[j].is_none())
        .unwrap_or(first)
}

/// The margin of a decision: how far the leader's lowest possible θ lies above the highest
/// possible θ of any other solve the scan uses (negative when the intervals overlap; `+∞`
/// when the scan used one solve).
pub fn margin(rows: &[Option<Theta>], d: Decision) -> f64 {
    let Some(lead) = rows[d.leader] else {
        return f64::NAN;
    };
    (rows.iter().enumerate().take(d.end + 1))
        .filter_map(|(i, r)| Some((i, (*r)?)))
        .filter(|&(i, _)| i != d.leader)
        .map(|(_, r)| (lead.theta - lead.uncertainty) - (r.theta + r.uncertainty))
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_k_below_the_guess_are_solved_downwards() {
        let solved = |t: f64, u: f64| {
            Some(Theta {
                theta: t,
                uncertainty: u,
            })
        };
        // Range k = 2..6, the guess k = 4 (index 2) solved first.
        let mut r = vec![None, None, solved(0.992, 0.04), None, None];
        assert_eq!(next_step(&r, Some(0.99)), Next::Solve(0));
        assert_eq!(solve_next(&r, Some(0.99), 0, 2), 1);
        r[1] = solved(0.78, 0.15);
        assert_eq!(solve_next(&r, Some(0.99), 0, 2), 0);
        r[0] = solved(0.71, 0.15);
        // Above the guess, the first unsolved one, as next_step says.
        assert_eq!(next_step(&r, Some(0.99)), Next::Solve(3));
        assert_eq!(solve_next(&r, Some(0.99), 3, 2), 3);
        // A solve surely above the stop between them ends the scan there: what lies beyond
        // it is not needed, so it is never chosen.
        let r = vec![None, solved(0.999, 0.0), None, solved(0.995, 0.001)];
        assert_eq!(solve_next(&r, Some(0.99), 0, 3), 0);
    }

    fn rows(v: &[(f64, f64)]) -> Vec<Option<Theta>> {
        v.iter()
            .map(|&(theta, uncertainty)| Some(Theta { theta, uncertainty }))
            .collect()
    }

    /// `r` with one more k of the range still unsolved.
    fn with_unsolved(r: &[Option<Theta>]) -> Vec<Option<Theta>> {
        let mut r = r.to_vec();
        r.push(None);
        r
    }

    #[test]
    fn decide_takes_the_first_maximum_up_to_the_stop() {
        let r = rows(&[(0.7, 0.0), (0.8, 0.0), (0.995, 0.0), (0.999, 0.0)]);
        let d = decide(&r, Some(0.99)).unwrap();
        assert_eq!((d.leader, d.end, d.stopped), (2, 2, true));
        let d = decide(&r, None).unwrap();
        assert_eq!((d.leader, d.end, d.stopped), (3, 3, false));
        let tie = rows(&[(0.8, 0.0), (0.8, 0.0)]);
        assert_eq!(decide(&tie, None).unwrap().leader, 0);
        assert!(decide(&[], None).is_none());
    }

    #[test]
    fn a_wide_gap_needs_no_refinement() {
        let r = rows(&[(0.6, 1e-3), (0.75, 1e-3), (0.995, 1e-3)]);
        assert_eq!(next_step(&with_unsolved(&r), Some(0.99)), Next::Done);
        let d = decide(&r, Some(0.99)).unwrap();
        assert!((margin(&r, d) - (0.994 - 0.751)).abs() < 1e-12);
    }

    #[test]
    fn a_close_runner_up_and_the_leader_are_refined() {
        let r = rows(&[(0.80, 0.01), (0.81, 0.01), (0.5, 0.01)]);
        assert_eq!(next_step(&r, None), Next::Refine(vec![0, 1]));
        // Once the leader is accurate, only the challenger remains.
        let r = rows(&[(0.80, 0.01), (0.81, 0.0), (0.5, 0.01)]);
        assert_eq!(next_step(&r, None), Next::Refine(vec![0]));
    }

    #[test]
    fn a_leader_near_the_stop_extends_the_scan() {
        // θ = 0.9905 ± 0.001 may lie below the stop: the scan must go on while it can.
        let r = rows(&[(0.6, 1e-3), (0.7, 1e-3), (0.9905, 1e-3)]);
        assert_eq!(next_step(&with_unsolved(&r), Some(0.99)), Next::Solve(3));
        // With the range solved, the leader holds either way.
        assert_eq!(next_step(&r, Some(0.99)), Next::Done);
        // A later solve close to the leader is a contest.
        let r = rows(&[(0.6, 1e-3), (0.7, 1e-3), (0.9905, 1e-3), (0.9901, 1e-3)]);
        assert_eq!(next_step(&r, Some(0.99)), Next::Refine(vec![2, 3]));
    }

    #[test]
    fn a_solve_before_the_leader_that_could_stop_the_scan_is_refined() {
        let r = rows(&[(0.6, 1e-3), (0.9895, 1e-3), (0.995, 0.0)]);
        assert_eq!(
            next_step(&with_unsolved(&r), Some(0.99)),
            Next::Refine(vec![1])
        );
    }

    #[test]
    fn an_unsolved_k_before_a_stop_is_solved_first() {
        // The leader was solved first (surely above the stop): every k before it is needed,
        // the k after it is not.
        let r = vec![
            None,
            None,
            Some(Theta {
                theta: 0.999,
                uncertainty: 1e-3,
            }),
            None,
        ];
        assert_eq!(next_step(&r, Some(0.99)), Next::Solve(0));
        let d = decide(&r, Some(0.99)).unwrap();
        assert_eq!((d.leader, d.end, d.stopped), (2, 2, true));
        // Not surely above: the whole range is needed.
        let r = rows(&[(0.6, 1e-3), (0.7, 1e-3), (0.9905, 1e-3)]);
        assert_eq!(next_step(&with_unsolved(&r), Some(0.99)), Next::Solve(3));
        // Solved out of order and clear: done, the later k ignored.
        let r = rows(&[(0.6, 1e-2), (0.7, 1e-2), (0.999, 1e-3), (0.5, 1e-2)]);
        assert_eq!(next_step(&r, Some(0.99)), Next::Done);
        assert!(decide(&[None, None], None).is_none());
    }
}
