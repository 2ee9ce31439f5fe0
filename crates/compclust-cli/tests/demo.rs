//! `compclust demo` on a small planted model (the default n = 1000 is exercised by the
//! benchmark in docs/benchmarks/flat.md, not here).

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::process::Command;

#[test]
fn small_demo_recovers_clusters_and_writes_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
        // n·ln⁴n comparisons: exact recovery at this small n (see compclust/tests/flat.rs).
        .args([
            "demo",
            "--n",
            "160",
            "--k",
            "3",
            "--seed",
            "2",
            "--comparisons",
            "106000",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("k̂ = 3"), "{stdout}");
    assert!(
        stdout.contains("ARI vs planted clusters: 1.0000"),
        "{stdout}"
    );
    for f in [
        "labels.csv",
        "truth.csv",
        "report.json",
        "similarity.png",
        "similarity.svg",
        "x.png",
        "x.svg",
    ] {
        let p = out.join(f);
        assert!(p.metadata().map(|m| m.len() > 100).unwrap_or(false), "{f}");
    }
    let png = std::fs::read(out.join("x.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(out.join("similarity.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("<rect"));
}

#[test]
fn demo_rejects_impossible_models() {
    let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(["demo", "--n", "10", "--k", "20"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error:"));
}
