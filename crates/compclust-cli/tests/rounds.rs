//! Crowd rounds through the command line: pinned studies (`--study STUDY.toml`), repeated and
//! noisy answers with a worker column, and their aggregation.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One overlap round on collected answers in `dir` (items.txt, answers.csv; writes
/// missing.csv, est.csv), with `extra` flags.
fn overlap_round(dir: &Path, extra: &[&str]) -> Output {
    let p = |s: &str| dir.join(s).to_str().unwrap().to_string();
    bin()
        .args(["overlap", "--answers", &p("answers.csv")])
        .args(["--items", &p("items.txt")])
        .args(["--output", &p("est.csv"), "--missing", &p("missing.csv")])
        .args(extra)
        .output()
        .unwrap()
}

fn study_flags(study: &Path, seed: &str, k: &str) -> Vec<String> {
    [
        "--method",
        "find-similarity",
        "--k",
        k,
        "--delta",
        "1",
        "--sample-size",
        "12",
        "--seed",
        seed,
        "--study",
        study.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_study_is_pinned_by_its_first_round_and_refuses_changes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let study: PathBuf = d.join("STUDY.toml");
    std::fs::write(
        d.join("items.txt"),
        (0..40).map(|i| format!("i{i}\n")).collect::<String>(),
    )
    .unwrap();
    std::fs::write(d.join("answers.csv"), "a,b,answer\n").unwrap();
    // Round 1 pins the study and asks its first questions.
    let out = overlap_round(d, &strs(&study_flags(&study, "7", "3")));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let pinned = std::fs::read_to_string(&study).unwrap();
    for want in [
        "command = \"overlap\"",
        "seed = \"7\"",
        "k = \"3\"",
        "method = \"find-similarity\"",
        "sha256 = ",
        "count = 40",
    ] {
        assert!(pinned.contains(want), "{want} in\n{pinned}");
    }
    let asked = std::fs::read_to_string(d.join("missing.csv")).unwrap();
    // A changed --seed or --k stops with exit 2, naming the parameter and both values, and
    // writes nothing.
    for (flags, name, was, is) in [
        (study_flags(&study, "8", "3"), "--seed", "`7`", "`8`"),
        (study_flags(&study, "7", "4"), "--k", "`3`", "`4`"),
    ] {
        let out = overlap_round(d, &strs(&flags));
        assert_eq!(out.status.code(), Some(2));
        let e = stderr(&out);
        assert!(
            e.contains(&format!("parameter {name} differs")) && e.contains(was) && e.contains(is),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&study).unwrap(), pinned);
        assert_eq!(
            std::fs::read_to_string(d.join("missing.csv")).unwrap(),
            asked
        );
    }
    // A flag left out that the study pinned (here --delta) differs too.
    let mut no_delta = study_flags(&study, "7", "3");
    no_delta.drain(4..6);
    let e = stderr(&overlap_round(d, &strs(&no_delta)));
    assert!(
        e.contains("--delta differs") && e.contains("`1`") && e.contains("`none`"),
        "{e}"
    );
    // Another items file is refused.
    let mut items = std::fs::read_to_string(d.join("items.txt")).unwrap();
    std::fs::write(d.join("items.txt"), format!("{items}i40\n")).unwrap();
    let out = overlap_round(d, &strs(&study_flags(&study, "7", "3")));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not the one the study was pinned to"),
        "{}",
        stderr(&out)
    );
    // The same flags and items go on with the same questions.
    std::fs::write(d.join("items.txt"), std::mem::take(&mut items)).unwrap();
    let out = overlap_round(d, &strs(&study_flags(&study, "7", "3")));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("missing.csv")).unwrap(),
        asked
    );
    // A broken study file is named.
    std::fs::write(&study, "command = \n").unwrap();
    let out = overlap_round(d, &strs(&study_flags(&study, "7", "3")));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("STUDY.toml") && e.contains("line 1"), "{e}");
}
