//! `compclust bench` at small sizes: what it prints and writes, and its errors. The timings
//! themselves are not asserted (they are measurements; docs/BENCHMARKS.md records them).

// Test fixtures are read directly (the crate's clippy.toml forbids it in the command code,
// which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .arg("bench")
        .args(args)
        .output()
        .unwrap()
}

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn four_al_at_a_small_size_reports_both_halves_and_a_stable_digest() {
    let dir = tempfile::tempdir().unwrap();
    let mut digests = Vec::new();
    for name in ["a.json", "b.json"] {
        let out = dir.path().join(name);
        let o = run(&[
            "--target",
            "four-al",
            "--n0",
            "4",
            "--repeat",
            "2",
            "--json",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(stdout.starts_with("machine: "), "{stdout}");
        assert!(stdout.contains("N = 32"), "{stdout}");
        assert!(stdout.contains("not judged at these sizes"), "{stdout}");
        let v = json(&out);
        assert!(v["machine"]["logical_cpus"].as_u64().unwrap() >= 1);
        assert!(v["spur"].is_null());
        let f = &v["four_al"];
        assert_eq!(f["n"], 32);
        assert_eq!(f["runs"], 2);
        assert!(f["quadruplets"].as_u64().unwrap() > 0);
        assert!(f["reading_s"].as_f64().unwrap() >= 0.0);
        assert!(f["after_reading_s"].as_f64().unwrap() >= 0.0);
        // the target is judged only on its own input (N0 = 30)
        assert!(f["met"].is_null());
        let aari = f["aari"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&aari), "{aari}");
        let digest = f["digest"].as_str().unwrap().to_string();
        assert_eq!(digest.len(), 16);
        assert!(stdout.contains(&digest), "{stdout}");
        digests.push(digest);
    }
    // fixed seeds: the same dendrogram every run, so a digest can compare two builds
    assert_eq!(digests[0], digests[1]);
}

#[test]
fn spur_at_a_small_size_reports_every_seed_and_the_median() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.json");
    let o = run(&[
        "--target",
        "spur",
        "--n",
        "120",
        "--seeds",
        "2",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("SPUR, seed 0: "), "{stdout}");
    assert!(stdout.contains("SPUR, seed 1: "), "{stdout}");
    assert!(stdout.contains("median"), "{stdout}");
    let s = &json(&out)["spur"];
    assert_eq!(s["n"], 120);
    let seeds = s["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 2);
    let times: Vec<f64> = seeds.iter().map(|r| r["fit_s"].as_f64().unwrap()).collect();
    let median = s["median_s"].as_f64().unwrap();
    assert!((median - (times[0] + times[1]) / 2.0).abs() < 1e-9);
    for r in seeds {
        assert!(r["k_hat"].as_u64().unwrap() >= 1);
        assert!(r["spur_s"].as_f64().unwrap() <= r["fit_s"].as_f64().unwrap());
    }
    // n = 120 is not the paper default: no verdict
    assert!(s["met"].is_null());
}

#[test]
fn sizes_that_measure_nothing_are_errors_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.json");
    let o_str = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["--seeds", "0", "--json", o_str], "--seeds 0"),
        (vec!["--repeat", "0", "--json", o_str], "--repeat 0"),
        (vec!["--n0", "0", "--json", o_str], "--n0 0"),
        (
            vec!["--target", "spur", "--n", "3", "--json", o_str],
            "--n 3",
        ),
        // 3·10¹¹ quadruplets: refused before sampling, not an aborted allocation
        (
            vec!["--target", "four-al", "--n0", "500", "--json", o_str],
            "would need",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("error: ") && e.contains(needle), "{args:?}: {e}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    let o = run(&["--target", "everything"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("four-al-large"));
}
