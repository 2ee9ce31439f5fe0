//! Cooperative cancellation of long computations.
//!
//! A caller that wants to stop a computation early (a Python binding on Ctrl-C, a program on a
//! deadline) creates a [`CancelFlag`], runs the computation inside [`with_flag`] on one thread,
//! and calls [`CancelFlag::cancel`] from another. The long loops check [`requested`] once per
//! step and stop with their family's `Cancelled` error:
//!
//! * the ADMM iterations of every SDP solve (Perrot, Esser & Ghoshdastidar 2020, App. D), so
//!   SDP-k, SDP-λ and SPUR: [`SdpError::Cancelled`](crate::sdp::SdpError::Cancelled);
//! * the optimiser iterations of t-STE (van der Maaten & Weinberger 2012):
//!   [`TsteError::Cancelled`](crate::embed::tste::TsteError::Cancelled);
//! * the merges of 4-AL (Ghoshdastidar, Perrot & von Luxburg 2019, §3.3), and the
//!   preparation of the quadruplet answers shared by 4-AL, 4K-AL, SL and CL (counting,
//!   building 4-AL's pair lists, the 4K-AL kernel of eq. 3):
//!   [`HierarchyError::Cancelled`](crate::hierarchy::HierarchyError::Cancelled);
//! * the accumulation of AddS-3 / AddS-4 (Perrot et al. 2020, §4), also on rayon's threads:
//!   [`SimilarityError::Cancelled`](crate::similarity::SimilarityError::Cancelled).
//!
//! Outside [`with_flag`], [`requested`] is `false` and costs a thread-local read. Inner loops
//! over rows check every [`CHECK_EVERY`] rows ([`requested_every`]). A thread-local is not seen
//! by rayon's worker threads: code that goes parallel takes the caller's flag with [`current`]
//! and runs each task under it with [`with_current`].
//!
//! One step that cannot be interrupted bounds how soon a computation stops: a full
//! eigendecomposition of the SDP solvers (`O(n³)`), a sort of the comparisons, one 4-AL merge.
//!
//! ```
//! use compclust::cancel::{CancelFlag, requested, with_flag};
//! let flag = CancelFlag::new();
//! assert!(!with_flag(&flag, requested));
//! flag.cancel();
//! assert!(with_flag(&flag, requested));
//! assert!(!requested()); // no flag outside `with_flag`
//! ```

use std::cell::RefCell;
#[cfg(test)]
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A request to stop, shared between the thread that runs a computation and the ones that may
/// cancel it. Clones share the same flag.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag {
    set: Arc<AtomicBool>,
    /// Tests: reads left before the flag sets itself ([`cancelled_after`]).
    #[cfg(test)]
    reads_left: Option<Arc<std::sync::atomic::AtomicUsize>>,
}

impl CancelFlag {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the computations running under this flag to stop.
    pub fn cancel(&self) {
        self.set.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelFlag::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        #[cfg(test)]
        if let Some(left) = &self.reads_left
            && left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| v.checked_sub(1))
                .is_err()
        {
            self.cancel();
        }
        self.set.load(Ordering::Relaxed)
    }
}

/// Tests: a flag that reads as not set `reads` times and as set from then on, so that a
/// computation can be cancelled at each of its checks in turn.
#[cfg(test)]
pub(crate) fn cancelled_after(reads: usize) -> CancelFlag {
    CancelFlag {
        reads_left: Some(Arc::new(reads.into())),
        ..CancelFlag::default()
    }
}

/// Tests: run `f` cancelled at its first, second, … check until it finishes, asserting that
/// every earlier run stopped with its `Cancelled` error (`is_cancelled`). Returns the number
/// of checks a whole run makes (at most `max_checks`).
#[cfg(test)]
pub(crate) fn stops_at_every_check<T, E: fmt::Debug>(
    max_checks: usize,
    f: impl Fn() -> Result<T, E>,
    is_cancelled: impl Fn(&E) -> bool,
) -> usize {
    for reads in 0..=max_checks {
        match with_flag(&cancelled_after(reads), &f) {
            Ok(_) => return reads,
            Err(e) => assert!(is_cancelled(&e), "check {reads}: {e:?}"),
        }
    }
    panic!("still cancelled after {max_checks} checks")
}

thread_local! {
    static CURRENT: RefCell<Option<CancelFlag>> = const { RefCell::new(None) };
}

/// Run `f` on this thread with `flag` as the flag its long loops check; the previous flag (if
/// any) is restored afterwards, also when `f` panics.
pub fn with_flag<T>(flag: &CancelFlag, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<CancelFlag>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(flag.clone())));
    f()
}

/// Whether the computation running on this thread was asked to stop (see [`with_flag`]).
pub fn requested() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(CancelFlag::is_cancelled))
}

/// Rows an inner loop handles between two checks of [`requested`]: a few hundred
/// microseconds of work, so that a check costs nothing measurable.
pub const CHECK_EVERY: usize = 1 << 14;

/// [`requested`] at every [`CHECK_EVERY`]-th value of the loop counter `i` (including 0),
/// `false` elsewhere.
#[inline]
pub fn requested_every(i: usize) -> bool {
    i.is_multiple_of(CHECK_EVERY) && requested()
}

/// The flag this thread runs under, if any: hand it to the tasks of other threads (rayon's
/// workers do not see this thread's flag) and run them with [`with_current`].
pub fn current() -> Option<CancelFlag> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Run `f` under `flag` when there is one (a flag taken with [`current`] on the thread that
/// started a parallel computation), else as it is.
pub fn with_current<T>(flag: Option<&CancelFlag>, f: impl FnOnce() -> T) -> T {
    match flag {
        Some(flag) => with_flag(flag, f),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Comparisons, Quadruplet, Triplet};

    fn cancelled<T>(f: impl FnOnce() -> T) -> T {
        let flag = CancelFlag::new();
        flag.cancel();
        with_flag(&flag, f)
    }

    #[test]
    fn a_cancelled_sdp_solve_stops_with_cancelled() {
        let s = faer::Mat::from_fn(4, 4, |i, j| if i / 2 == j / 2 { 1.0 } else { 0.0 });
        let params = crate::sdp::SdpParams::default();
        let r = cancelled(|| crate::sdp::solve_sdp_k(s.as_ref(), 2, &params));
        assert!(matches!(r, Err(crate::sdp::SdpError::Cancelled)));
        assert!(crate::sdp::solve_sdp_k(s.as_ref(), 2, &params).is_ok());
    }

    #[test]
    fn every_cancellation_check_of_an_sdp_solve_stops_it() {
        // Three planted groups of 20 with noise: enough iterations for partial projections
        // and their certification (the checks before the inertia counts and the exact
        // projection), each of which must stop the solve.
        let n = 60;
        let s = faer::Mat::from_fn(n, n, |i, j| {
            let noise = ((i * 31 + j * 17) % 7) as f64 / 7.0 - 0.5;
            if i == j {
                0.0
            } else if i / 20 == j / 20 {
                1.0 + 0.3 * noise
            } else {
                0.3 * noise
            }
        });
        let s = faer::Mat::from_fn(n, n, |i, j| 0.5 * (s[(i, j)] + s[(j, i)]));
        let params = crate::sdp::SdpParams::default();
        let done = crate::sdp::solve_sdp_k(s.as_ref(), 3, &params).unwrap();
        let checks = stops_at_every_check(
            100_000,
            || crate::sdp::solve_sdp_k(s.as_ref(), 3, &params),
            |e| matches!(e, crate::sdp::SdpError::Cancelled),
        );
        // One per iteration, and one more before the certification of the partial projections.
        assert!(done.info.eig_partial > 0 && done.info.converged);
        assert!(checks > done.info.iterations, "{checks} checks");
    }

    #[test]
    fn a_cancelled_four_al_stops_with_cancelled() {
        let c = Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 2, 3)]);
        let r = cancelled(|| crate::hierarchy::four_al(4, &c));
        assert!(matches!(
            r,
            Err(crate::hierarchy::HierarchyError::Cancelled)
        ));
        assert!(crate::hierarchy::four_al(4, &c).is_ok());
    }

    #[test]
    fn a_cancelled_tste_stops_with_cancelled() {
        let t = vec![Triplet::new(0, 1, 2)];
        let p = crate::embed::tste::TsteParams::new(2);
        let r = cancelled(|| p.fit(3, &t, None));
        assert!(matches!(r, Err(crate::embed::tste::TsteError::Cancelled)));
        assert!(p.fit(3, &t, None).is_ok());
    }

    #[test]
    fn current_hands_the_flag_to_other_threads() {
        let flag = CancelFlag::new();
        flag.cancel();
        let seen = with_flag(&flag, || {
            let f = current();
            std::thread::scope(|s| {
                let bare = s.spawn(requested).join().unwrap();
                let handed = s
                    .spawn(|| with_current(f.as_ref(), requested))
                    .join()
                    .unwrap();
                (bare, handed)
            })
        });
        assert_eq!(seen, (false, true));
        assert!(current().is_none());
        assert!(!with_current(None, requested));
    }

    #[test]
    fn requested_every_checks_only_every_check_every_rows() {
        let flag = CancelFlag::new();
        flag.cancel();
        with_flag(&flag, || {
            assert!(requested_every(0) && requested_every(3 * CHECK_EVERY));
            assert!(!requested_every(1) && !requested_every(CHECK_EVERY - 1));
        });
        assert!(!requested_every(0));
    }

    #[test]
    fn the_flag_is_restored_after_with_flag() {
        let outer = CancelFlag::new();
        outer.cancel();
        with_flag(&outer, || {
            assert!(requested());
            with_flag(&CancelFlag::new(), || assert!(!requested()));
            assert!(requested());
        });
        assert!(!requested());
    }
}
