//! Fuzz every reader with generated hostile inputs (see `cases.rs`), on stable Rust:
//!
//! ```text
//! cargo run --release -p compclust --example fuzz -- --cases 1000000 [--seed 1]
//! ```
//!
//! Prints the cases run, how many were read and rejected, every panic (with its case number,
//! so that it can be replayed with `--from N --cases 1`), the peak resident memory and the
//! time. Exits non-zero when anything panicked.

mod cases;

use std::time::Instant;

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, "--cases", 100_000);
    let seed = arg(&args, "--seed", 1);
    let from = arg(&args, "--from", 0);
    // Panics are caught and counted; keep their messages off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let dir = tempfile::tempdir().expect("a scratch folder");
    let start = Instant::now();
    let (mut read, mut rejected, mut panics) = (0u64, 0u64, 0u64);
    for i in from..from + n {
        let c = cases::case(seed, i);
        match cases::run(&c, dir.path()) {
            cases::Outcome::Read => read += 1,
            cases::Outcome::Rejected => rejected += 1,
            cases::Outcome::Panicked(msg) => {
                panics += 1;
                println!("PANIC case {i} ({:?}): {msg}", c.target);
            }
        }
        if (i - from + 1).is_multiple_of(100_000) {
            eprintln!(
                "{} cases, {:.0} s",
                i - from + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "seed {seed}: {n} cases, {read} read, {rejected} rejected, {panics} panics; \
         peak memory {} kB; {:.1} s",
        cases::peak_rss_kb().map_or("?".into(), |k| k.to_string()),
        start.elapsed().as_secs_f64()
    );
    if panics > 0 {
        std::process::exit(1);
    }
}
