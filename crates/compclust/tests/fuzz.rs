//! Every reader against a few thousand generated hostile inputs (fixed seed): none may
//! panic, and whatever is read can be written and read back. The `fuzz` example runs the
//! same generator for millions of cases (docs/BENCHMARKS.md).

#[path = "../examples/fuzz/cases.rs"]
mod cases;

#[test]
fn readers_never_panic_on_hostile_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let n = std::env::var("COMPCLUST_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000u64);
    let mut panics = Vec::new();
    let (mut read, mut rejected) = (0, 0);
    for i in 0..n {
        let c = cases::case(7, i);
        match cases::run(&c, dir.path()) {
            cases::Outcome::Read => read += 1,
            cases::Outcome::Rejected => rejected += 1,
            cases::Outcome::Panicked(m) => panics.push((i, format!("{:?}", c.target), m)),
        }
    }
    assert!(
        panics.is_empty(),
        "{} panics: {:?}",
        panics.len(),
        &panics[..panics.len().min(5)]
    );
    // The generator reaches both sides: valid files that read and hostile ones rejected.
    assert!(
        read > n / 20 && rejected > n / 4,
        "read {read}, rejected {rejected}"
    );
}
