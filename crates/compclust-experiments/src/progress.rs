//! How an experiment reports its progress: one observer, so that the library never prints and
//! a caller (the command-line tool's progress bar, a notebook, a test) decides what to show.

/// Observer of an experiment's progress. Every method has a default that ignores the event.
pub trait Progress: Send + Sync {
    /// The number of runs the experiment will do (it may be set more than once).
    fn set_length(&self, _len: u64) {}
    /// `n` more runs finished.
    fn inc(&self, _n: u64) {}
    /// What is being done now (the trial in progress, the file being read).
    fn set_message(&self, _msg: &str) {}
    /// A note for the user (e.g. how many trials an earlier run supplied), shown once.
    fn note(&self, _msg: &str) {}
    /// The runs are over (clear any display).
    fn finish(&self) {}
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
