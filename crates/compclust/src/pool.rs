//! Running a parallel computation on rayon's pool instead of beside it.
//!
//! The SDP solvers go parallel thousands of times per solve (faer's products and
//! decompositions, the column passes of ADMM), each time for a millisecond or less. From a
//! thread outside rayon's pool (a program's main thread, the Python binding's worker), every
//! such section is injected into the pool while the caller sleeps on a lock and is woken
//! when it ends: two context switches per section, and a third thread contending for the
//! cores with the two workers. Run on a worker instead, a section's other half is pushed on
//! that worker's own queue for the second worker to steal, and the caller works on its half.
//! At the paper's default of SPUR (n = 1000, two cores) the median wall time of ten seeds fell
//! from 11.48 to 9.69 s and the system time from 2.5 to 1.05 s, with identical results
//! (`docs/SOLVER.md`, "Threads"; `docs/benchmarks/sdp.md`, 2026-11-30, evening).

use crate::cancel;

/// Runs `f` on a worker thread of rayon's current pool (the global one outside any
/// `ThreadPool::install`) and returns its result; directly when this thread is one already.
/// The cancellation flag of this thread ([`cancel::with_flag`]) goes with it, and a panic of
/// `f` resumes on this thread.
pub(crate) fn on_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if rayon::current_thread_index().is_some() {
        return f();
    }
    let flag = cancel::current();
    rayon::scope(|_| cancel::with_current(flag.as_ref(), f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::{CancelFlag, requested, with_flag};

    #[test]
    fn the_work_runs_on_a_worker_of_the_pool() {
        assert_eq!(rayon::current_thread_index(), None);
        assert!(on_pool(rayon::current_thread_index).is_some());
    }

    #[test]
    fn the_callers_cancellation_flag_goes_with_the_work() {
        let flag = CancelFlag::new();
        flag.cancel();
        assert!(with_flag(&flag, || on_pool(requested)));
        assert!(!on_pool(requested));
    }

    #[test]
    fn on_a_worker_the_work_stays_on_it() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (outer, inner) = pool.install(|| {
            let outer = rayon::current_thread_index();
            (outer, on_pool(rayon::current_thread_index))
        });
        assert!(outer.is_some());
        assert_eq!(outer, inner);
    }
}
