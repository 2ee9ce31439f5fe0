//! Running library code without the GIL while Ctrl-C still works.
//!
//! Python runs its signal handlers (the one for SIGINT raises `KeyboardInterrupt`) only on the
//! main thread and only when that thread runs Python code. [`detach`] therefore runs the
//! computation on a worker thread under a [`CancelFlag`] ([`compclust::cancel`]) and keeps the
//! main thread waiting without the GIL, taking it back every [`POLL_EVERY`] to run the signal
//! handlers. When one raises, the flag is set, the library's long loops (AddS accumulation,
//! ADMM iterations, t-STE iterations, the preparation and merges of 4-AL, the 4K-AL kernel; the
//! list is in [`compclust::cancel`]) stop at their next check, and the exception is raised.

use std::sync::Mutex;
use std::time::Duration;

use compclust::cancel::{CancelFlag, with_flag};
use compclust::observe::Observer;
use pyo3::prelude::*;

/// How often the waiting main thread runs Python's signal handlers.
pub const POLL_EVERY: Duration = Duration::from_millis(50);

/// Stack of the worker thread (the main thread's usual size).
const WORKER_STACK: usize = 8 << 20;

/// Run `f` on a worker thread without the GIL; Ctrl-C (or any exception a signal handler
/// raises meanwhile) cancels it and is returned instead of `f`'s result.
pub fn detach<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: Send + FnOnce() -> T,
{
    detach_observed(py, None, |_| f())
}

/// The latest `(done, total)` the worker reported, and whether the main thread has shown it.
#[derive(Default)]
struct Latest {
    step: Option<(usize, usize)>,
    shown: bool,
}

/// The worker's observer: it only records the latest progress (no GIL needed).
struct Recorder<'a>(&'a Mutex<Latest>);

impl Observer for Recorder<'_> {
    fn progress(&mut self, done: usize, total: usize) {
        if let Ok(mut l) = self.0.lock() {
            l.step = Some((done, total));
            l.shown = false;
        }
    }
}

/// [`detach`], with `f` given an observer when `progress` is a Python callable: the waiting
/// main thread calls `progress(done, total)` (with the GIL) at most every [`POLL_EVERY`] when
/// the worker reported a new step, and once more at the end. An exception raised by the
/// callable cancels the computation like Ctrl-C.
pub fn detach_observed<T, F>(py: Python<'_>, progress: Option<Py<PyAny>>, f: F) -> PyResult<T>
where
    T: Send,
    F: Send + FnOnce(Option<&mut dyn Observer>) -> T,
{
    let latest = Mutex::new(Latest::default());
    let observed = progress.is_some();
    let report = |py: Python<'_>| -> PyResult<()> {
        let Some(cb) = &progress else { return Ok(()) };
        let step = match latest.lock() {
            Ok(mut l) if !l.shown => {
                l.shown = true;
                l.step
            }
            _ => None,
        };
        match step {
            Some((done, total)) => cb.call1(py, (done, total)).map(drop),
            None => Ok(()),
        }
    };
    let flag = CancelFlag::new();
    let waiting = std::thread::current();
    let (out, signal) = py.detach(|| {
        std::thread::scope(|s| {
            let worker = std::thread::Builder::new()
                .name("compclust".into())
                .stack_size(WORKER_STACK)
                .spawn_scoped(s, || {
                    let mut recorder = Recorder(&latest);
                    let observer: Option<&mut dyn Observer> =
                        if observed { Some(&mut recorder) } else { None };
                    let out = with_flag(&flag, || f(observer));
                    waiting.unpark();
                    out
                })
                .map_err(|e| {
                    pyo3::exceptions::PyRuntimeError::new_err(format!(
                        "cannot start a worker thread: {e}"
                    ))
                });
            let worker = match worker {
                Ok(w) => w,
                Err(e) => return (None, Some(e)),
            };
            let mut signal = None;
            while !worker.is_finished() {
                std::thread::park_timeout(POLL_EVERY);
                if signal.is_none()
                    && let Err(e) =
                        Python::attach(|py| py.check_signals().and_then(|()| report(py)))
                {
                    flag.cancel();
                    signal = Some(e);
                }
            }
            match worker.join() {
                Ok(out) => (Some(out), signal),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    py.check_signals()?;
    report(py)?;
    Ok(out.expect("the worker returned"))
}
