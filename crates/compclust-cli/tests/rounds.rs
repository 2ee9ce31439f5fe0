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

/// Item `i`'s clusters from an `item,cluster` file with items named `0..n`.
fn read_membership(path: &Path, n: usize) -> compclust::overlap::Membership {
    let text = std::fs::read_to_string(path).unwrap();
    let mut names: Vec<String> = Vec::new();
    let mut rows = vec![Vec::new(); n];
    for line in text.lines().skip(1) {
        let (i, c) = line.split_once(',').unwrap();
        if c.is_empty() {
            continue;
        }
        let ci = names.iter().position(|x| x == c).unwrap_or_else(|| {
            names.push(c.to_string());
            names.len() - 1
        });
        rows[i.parse::<usize>().unwrap()].push(ci as u32);
    }
    compclust::overlap::Membership::new(names.len(), rows)
}

/// A simulated crowd drives `overlap --method triangle-count` (Huleihel et al. 2019, Alg. 14:
/// q estimated) through its file rounds: every pair in ASK.csv is answered by `workers`
/// workers, each flipping the true same-cluster answer with probability 0.2. Returns the last
/// round's output and the report (when the run finished).
fn noisy_crowd_rounds(
    dir: &Path,
    truth: &compclust::overlap::Membership,
    workers: u32,
    seed: u64,
) -> (Output, Option<serde_json::Value>) {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    std::fs::write(dir.join("answers.csv"), "a,b,answer,worker\n").unwrap();
    let report = dir.join("report.json");
    let redundancy = workers.to_string();
    let flags = [
        "--method",
        "triangle-count",
        "--k",
        "4",
        "--delta",
        "1",
        "--unknown-q",
        "--redundancy",
        &redundancy,
        "--report",
        report.to_str().unwrap(),
    ];
    for _round in 0..4 {
        let out = overlap_round(dir, &flags);
        if out.status.code() != Some(3) {
            let r = std::fs::read_to_string(&report)
                .ok()
                .map(|t| serde_json::from_str(&t).unwrap());
            return (out, r);
        }
        let ask = std::fs::read_to_string(dir.join("missing.csv")).unwrap();
        let mut answers = std::fs::read_to_string(dir.join("answers.csv")).unwrap();
        // Each pair comes `workers` times (--redundancy); worker w answers its w-th copy.
        let mut copy = std::collections::HashMap::new();
        for line in ask.lines().skip(1) {
            let (a, b) = line.split_once(',').unwrap();
            let w: &mut u32 = copy.entry(line.to_string()).or_default();
            let same = truth.shared(a.parse().unwrap(), b.parse().unwrap()) as u32;
            let answer = if rng.random_bool(0.2) { 1 - same } else { same };
            answers.push_str(&format!("{a},{b},{answer},w{w}\n"));
            *w += 1;
        }
        std::fs::write(dir.join("answers.csv"), answers).unwrap();
    }
    panic!("more than 4 rounds");
}

/// The promise of repeated answers, for the overlap family through the command line: with 3
/// workers per pair each flipping 20 % of the answers, the majority vote (wrong with
/// probability 3·0.2²·0.8 + 0.2³ = 0.104) lets triangle counting recover the planted clusters
/// exactly (200 items, k = 4, Δ = 1), where one answer per pair (wrong with probability 0.2)
/// gives no estimate. Fixed seeds.
#[test]
fn majority_of_three_noisy_workers_recovers_overlap_clusters_where_one_fails() {
    for seed in [1u64, 2] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let out = bin()
            .args(["overlap", "--planted", "uniform:200:4:1", "--seed"])
            .arg(seed.to_string())
            .args(["--method", "find-similarity", "--write-truth"])
            .arg(d.join("truth.csv"))
            .arg("--output")
            .arg(d.join("ignored.csv"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let truth = read_membership(&d.join("truth.csv"), 200);
        std::fs::write(
            d.join("items.txt"),
            (0..200).map(|i| format!("{i}\n")).collect::<String>(),
        )
        .unwrap();

        let (out, report) = noisy_crowd_rounds(d, &truth, 3, seed);
        assert!(out.status.success(), "seed {seed}: {}", stderr(&out));
        let est = read_membership(&d.join("est.csv"), 200);
        assert_eq!(
            compclust::metrics::gram::gram_error(&truth, &est).unwrap(),
            0,
            "seed {seed}"
        );
        let r = report.unwrap();
        let a = &r["answers"];
        assert_eq!(a["answers"], 3 * 19_900, "{a}");
        assert_eq!(a["questions"], 19_900, "{a}");
        assert!(a["disagreements"].as_u64().unwrap() > 19_900 / 3, "{a}");
        assert_eq!(a["undecided"], 0, "three binary answers never tie");
        // P(a worker agrees with the majority) = 0.8 · 0.96 + 0.2 · 0.36 = 0.84.
        let workers = a["workers"].as_array().unwrap();
        assert_eq!(workers.len(), 3);
        for w in workers {
            let share = w["agreement"].as_f64().unwrap();
            assert!((0.82..0.86).contains(&share), "{w}");
        }

        let single = tempfile::tempdir().unwrap();
        std::fs::copy(d.join("items.txt"), single.path().join("items.txt")).unwrap();
        let (out, _) = noisy_crowd_rounds(single.path(), &truth, 1, seed);
        let failed = !out.status.success()
            || compclust::metrics::gram::gram_error(
                &truth,
                &read_membership(&single.path().join("est.csv"), 200),
            )
            .unwrap()
                > 0;
        assert!(
            failed,
            "seed {seed}: one answer per pair recovered the clusters"
        );
    }
}

/// A tie between the answers to a pair puts the pair back into ASK.csv; the pair is asked
/// `--redundancy` times.
#[test]
fn a_tied_pair_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("items.txt"), "x\ny\nz\n").unwrap();
    std::fs::write(
        d.join("answers.csv"),
        "a,b,answer,worker\nx,y,1,ann\ny,x,1,bob\nx,z,0,ann\nz,x,1,bob\ny,z,0,ann\n",
    )
    .unwrap();
    let out = overlap_round(d, &["--method", "clique-cover", "--redundancy", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("missing.csv")).unwrap(),
        "a,b\nx,z\nx,z\n"
    );
    let e = stderr(&out);
    assert!(e.contains("5 to 3 pairs") && e.contains("1 tied"), "{e}");
}

/// The promise of repeated answers for the flat family through `compclust cluster`: 90
/// planted items (3 clusters, δ = 0.5), 1.7 · n ln³n triplet questions, each answered by 3
/// workers who flip 20 % of the answers, in one file with a `worker` column. `cluster`
/// aggregates by majority before AddS-3 + SDP-k and recovers the clusters exactly (ARI 1);
/// the first worker's answers alone misplace items (ARI < 1). Fixed seeds.
#[test]
fn majority_of_three_noisy_workers_recovers_flat_clusters_where_one_fails() {
    use compclust::metrics::ari::adjusted_rand_index;
    use compclust::models::flat::{Family, PlantedFlat};
    use compclust::simulate::sample_triplets;
    use rand::{RngExt, SeedableRng};
    let n = 90;
    for seed in [0u64, 2] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let model = PlantedFlat::new(n, 3, Family::NormalNormal, 0.5, seed).unwrap();
        let m = (1.7 * n as f64 * (n as f64).ln().powi(3)).round() as usize;
        let truth = sample_triplets(&model, m, 1.0, seed).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut all = String::from("anchor,near,far,worker,time\n");
        let mut first = String::from("anchor,near,far,worker\n");
        for t in &truth {
            for w in 0..3 {
                let (near, far) = if rng.random_bool(0.2) {
                    (t.far, t.near)
                } else {
                    (t.near, t.far)
                };
                let row = format!("{},{near},{far},w{w}", t.anchor);
                all += &format!("{row},2026-11-25\n");
                if w == 0 {
                    first += &format!("{row}\n");
                }
            }
        }
        std::fs::write(d.join("all.csv"), all).unwrap();
        std::fs::write(d.join("first.csv"), first).unwrap();
        std::fs::write(
            d.join("items.txt"),
            (0..n).map(|i| format!("{i}\n")).collect::<String>(),
        )
        .unwrap();
        let ari = |input: &str, extra: &[&str]| {
            let out = bin()
                .args(extra)
                .args(["--n-clusters", "3", "--seed"])
                .arg(seed.to_string())
                .arg("--input")
                .arg(d.join(input))
                .arg("--items")
                .arg(d.join("items.txt"))
                .arg("--output")
                .arg(d.join("labels.csv"))
                .arg("--report")
                .arg(d.join("report.json"))
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", stderr(&out));
            let text = std::fs::read_to_string(d.join("labels.csv")).unwrap();
            let pred: Vec<usize> = text
                .lines()
                .skip(1)
                .map(|l| l.split_once(',').unwrap().1.parse().unwrap())
                .collect();
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap())
                    .unwrap();
            (adjusted_rand_index(model.labels(), &pred), report)
        };
        let (a_major, r) = ari("all.csv", &["cluster"]);
        assert_eq!(a_major, 1.0, "seed {seed}");
        assert_eq!(r["n_comparisons"], m, "one row per question reaches AddS");
        let a = &r["answers"];
        assert_eq!(
            (a["answers"].as_u64(), a["questions"].as_u64()),
            (Some(3 * m as u64), Some(m as u64))
        );
        assert_eq!(a["workers"].as_array().unwrap().len(), 3);
        let (a_single, _) = ari("first.csv", &["cluster"]);
        assert!(a_single < 1.0, "seed {seed}: single answers ARI {a_single}");
        // One-coin Dawid–Skene decides the same way here and estimates each worker's
        // accuracy near the true 0.8.
        let (a_ds, r) = ari("all.csv", &["cluster", "--aggregate", "dawid-skene"]);
        assert_eq!(a_ds, 1.0, "seed {seed}");
        assert_eq!(r["answers"]["aggregation"], "dawid-skene");
        for w in r["answers"]["workers"].as_array().unwrap() {
            let p = w["accuracy"].as_f64().unwrap();
            assert!((0.75..0.85).contains(&p), "{w}");
        }
    }
}
