//! `compclust simulate`: output files, determinism, errors.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run compclust")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn planted_same_seed_gives_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name);
    let args = |o: &Path, seed: &str| {
        let o = o.to_str().unwrap().to_string();
        vec![
            "simulate".to_string(),
            "planted".into(),
            "--n".into(),
            "120".into(),
            "--k".into(),
            "3".into(),
            "--eps".into(),
            "0.75".into(),
            "--triplets".into(),
            "5000".into(),
            "--seed".into(),
            seed.into(),
            "--out".into(),
            o,
        ]
    };
    for (name, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
        let a = args(&out(name), seed);
        let o = bin().args(&a).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in ["triplets.csv", "truth.csv", "simulation.json"] {
        assert_eq!(
            read(&out("a").join(f)),
            read(&out("b").join(f)),
            "{f} differs"
        );
    }
    assert_ne!(
        read(&out("a").join("triplets.csv")),
        read(&out("c").join("triplets.csv"))
    );
    let t = String::from_utf8(read(&out("a").join("triplets.csv"))).unwrap();
    let mut lines = t.lines();
    assert_eq!(lines.next(), Some("anchor,near,far"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 5000);
    let mut distinct = std::collections::HashSet::new();
    for r in &rows {
        let v: Vec<u32> = r.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|&x| x < 120));
        assert!(v[0] != v[1] && v[0] != v[2] && v[1] != v[2]);
        distinct.insert((v[0], v[1].min(v[2]), v[1].max(v[2])));
    }
    assert_eq!(distinct.len(), 5000, "sampling is without replacement");
    let truth = String::from_utf8(read(&out("a").join("truth.csv"))).unwrap();
    let truth: Vec<&str> = truth.lines().collect();
    assert_eq!(truth[0], "item,cluster");
    assert_eq!(truth.len(), 121);
    assert_eq!(truth[1], "0,0");
    assert_eq!(truth[120], "119,2");
}

#[test]
fn planted_quadruplets_auto_count_and_rate() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("q");
    let r = run(&[
        "simulate",
        "planted",
        "--n",
        "50",
        "--k",
        "2",
        "--family",
        "beta",
        "--quadruplets",
        "--seed",
        "1",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let q = String::from_utf8(read(&o.join("quadruplets.csv"))).unwrap();
    assert_eq!(q.lines().next(), Some("a,b,c,d"));
    // auto = round(50 · ln³ 50) = 2993
    assert_eq!(q.lines().count() - 1, 2993);
    let j = String::from_utf8(read(&o.join("simulation.json"))).unwrap();
    assert!(j.contains("\"family\": \"beta\""), "{j}");

    let o2 = dir.path().join("r");
    let r = run(&[
        "simulate",
        "planted",
        "--n",
        "40",
        "--k",
        "2",
        "--rate",
        "0.01",
        "--out",
        o2.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let t = String::from_utf8(read(&o2.join("triplets.csv"))).unwrap();
    let m = t.lines().count() - 1;
    // Binomial(40·C(39,2) = 29640, 0.01): mean 296.4, sd 17.1
    assert!((m as f64 - 296.4).abs() < 6.0 * 17.1, "{m}");
}

#[test]
fn hierarchy_writes_truth_that_scores_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("h");
    let r = run(&[
        "simulate",
        "hierarchy",
        "--levels",
        "3",
        "--n0",
        "4",
        "--quadruplets",
        "1000",
        "--eps",
        "1",
        "--seed",
        "2",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let q = String::from_utf8(read(&o.join("quadruplets.csv"))).unwrap();
    assert_eq!(q.lines().count(), 1001);
    let levels = String::from_utf8(read(&o.join("levels.csv"))).unwrap();
    let l: Vec<&str> = levels.lines().collect();
    assert_eq!(l[0], "item,level1,level2,level3");
    assert_eq!(l[1], "0,0,0,0");
    assert_eq!(l[32], "31,1,3,7");
    let truth = o.join("truth.json");
    let r = run(&[
        "eval",
        "aari",
        "--truth",
        truth.to_str().unwrap(),
        "--pred",
        truth.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let s = String::from_utf8(r.stdout).unwrap();
    assert!(s.contains("levels (clusters): 8,4,2"), "{s}");
    assert_eq!(s.lines().last(), Some("1"));
}

#[test]
fn bad_parameters_exit_2_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x");
    let o = o.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["simulate", "planted", "--n", "10", "--k", "11", "--out", o],
            "`k` = 11",
        ),
        (
            vec![
                "simulate", "planted", "--n", "10", "--eps", "1.5", "--out", o,
            ],
            "eps",
        ),
        (
            vec![
                "simulate",
                "planted",
                "--n",
                "5",
                "--triplets",
                "31",
                "--out",
                o,
            ],
            "only 30 exist",
        ),
        (
            vec!["simulate", "hierarchy", "--delta", "0", "--out", o],
            "delta",
        ),
        // a rate on N = 4000 items asks for 3·10¹¹ quadruplets: refused before any
        // allocation (it aborted the process before)
        (
            vec![
                "simulate",
                "hierarchy",
                "--n0",
                "500",
                "--rate",
                "0.01",
                "--out",
                o,
            ],
            "quadruplets would need",
        ),
    ] {
        let r = run(&args);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8(r.stderr).unwrap();
        assert!(
            e.starts_with("error: ") && e.contains(needle),
            "{args:?}: {e}"
        );
    }
    // unknown family: clap reports it (exit code 2 as well)
    let r = run(&["simulate", "planted", "--family", "cauchy", "--out", o]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8(r.stderr).unwrap().contains("cauchy"));
}

#[test]
fn overlap_writes_answers_matching_the_membership() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    let args = [
        "simulate",
        "overlap",
        "--n",
        "30",
        "--k",
        "4",
        "--delta",
        "2",
        "--pairs",
        "all",
        "--seed",
        "5",
        "--out",
        o.to_str().unwrap(),
    ];
    let r = run(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let truth = String::from_utf8(read(&o.join("truth.csv"))).unwrap();
    let mut clusters = vec![Vec::new(); 30];
    for line in truth.lines().skip(1) {
        let (i, c) = line.split_once(',').unwrap();
        clusters[i.parse::<usize>().unwrap()].push(c.parse::<u32>().unwrap());
    }
    assert!(clusters.iter().all(|c| c.len() == 2), "uniform Δ = 2");
    let ans = String::from_utf8(read(&o.join("same_cluster.csv"))).unwrap();
    let mut lines = ans.lines();
    assert_eq!(lines.next(), Some("a,b,answer"));
    let mut n = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let (a, b): (usize, usize) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let shared = clusters[a]
            .iter()
            .filter(|c| clusters[b].contains(c))
            .count();
        assert_eq!(f[2].parse::<f64>().unwrap(), shared as f64, "{line}");
        n += 1;
    }
    assert_eq!(n, 30 * 29 / 2);
    // same seed → same bytes
    let o2 = dir.path().join("o2");
    let mut args2 = args;
    args2[13] = o2.to_str().unwrap();
    assert!(run(&args2).status.success());
    for f in ["same_cluster.csv", "truth.csv", "simulation.json"] {
        assert_eq!(read(&o.join(f)), read(&o2.join(f)), "{f}");
    }
}
