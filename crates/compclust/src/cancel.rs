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
//! * the merges of 4-AL (Ghoshdastidar, Perrot & von Luxburg 2019, §3.3):
//!   [`HierarchyError::Cancelled`](crate::hierarchy::HierarchyError::Cancelled).
//!
//! Outside [`with_flag`], [`requested`] is `false` and costs a thread-local read.
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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A request to stop, shared between the thread that runs a computation and the ones that may
/// cancel it. Clones share the same flag.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the computations running under this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelFlag::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
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
