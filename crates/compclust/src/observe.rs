//! Progress of long computations, reported to one observer argument.
//!
//! The library never prints. A long computation (SPUR's sequence of SDP solves, Perrot et al.
//! 2020, App. D, Alg. 2; the merges of 4-AL, Ghoshdastidar et al. 2019, §3.3; each residual
//! check of the ADMM solver) takes an `Option<&mut dyn Observer>` and tells it what it did; a
//! command-line program draws a progress bar or prints a trace from it, a test records it.
//! `None` costs nothing.

use crate::sdp::SdpCheck;

/// Receives the progress of a long computation. Both methods do nothing by default, so an
/// observer implements only what it shows. It is `Send` because the computation may run on
/// one of rayon's worker threads rather than the caller's (the SDP solvers do).
pub trait Observer: Send {
    /// `done` of `total` steps are finished (SDP solves of SPUR or of a known k; merges of
    /// 4-AL). `total` may grow (SPUR knows its range of k only after its two SDP-λ solves)
    /// or shrink (a computation that stops early).
    fn progress(&mut self, done: usize, total: usize) {
        let _ = (done, total);
    }

    /// One residual check of an SDP solve (every `check_every` iterations).
    fn sdp_check(&mut self, check: &SdpCheck) {
        let _ = check;
    }
}

/// A closure `|done, total|` observes progress only.
impl<F: FnMut(usize, usize) + Send> Observer for F {
    fn progress(&mut self, done: usize, total: usize) {
        self(done, total)
    }
}

/// Forward `progress` to an optional observer.
pub(crate) fn progress(observer: &mut Option<&mut dyn Observer>, done: usize, total: usize) {
    if let Some(o) = observer.as_deref_mut() {
        o.progress(done, total);
    }
}

/// Lend an optional observer to one sub-computation (a reborrow that `Option::as_deref_mut`
/// cannot give: the trait object's lifetime has to shrink with the borrow).
pub(crate) fn reborrow<'b>(
    observer: &'b mut Option<&mut dyn Observer>,
) -> Option<&'b mut dyn Observer> {
    match observer {
        Some(o) => Some(&mut **o),
        None => None,
    }
}
