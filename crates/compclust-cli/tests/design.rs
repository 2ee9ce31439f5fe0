//! `compclust design`: passive designs written as ASK files whose answered form goes straight
//! into `cluster`; repeats, seeds, and errors that name the file, line and field.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use compclust::data::{Quadruplet, Triplet};
use compclust::design::{QuestionKind, auto_count};
use compclust::metrics::ari::adjusted_rand_index;

fn compclust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `n` items named `c<cluster>_<i>`, item `i` in cluster `i % k`.
fn write_items(path: &Path, n: usize, k: usize) -> Vec<String> {
    let names: Vec<String> = (0..n).map(|i| format!("c{}_{i}", i % k)).collect();
    std::fs::write(path, names.join("\n") + "\n").unwrap();
    names
}

fn cluster_of(label: &str) -> usize {
    label[1..label.find('_').unwrap()].parse().unwrap()
}

/// The rows of a CSV file without its header.
fn rows(path: &Path) -> (String, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// Index of a label among `names`.
fn idx(names: &[String], l: &str) -> u32 {
    names.iter().position(|x| x == l).unwrap() as u32
}

#[test]
fn triplet_design_is_answered_and_clustered_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let (items, ask, answers, labels) = (
        dir.path().join("items.txt"),
        dir.path().join("ask.csv"),
        dir.path().join("answers.csv"),
        dir.path().join("labels.csv"),
    );
    let n = 30;
    let names = write_items(&items, n, 3);
    let out = compclust(&[
        "design",
        "triplets",
        "--items",
        items.to_str().unwrap(),
        "--count",
        "auto",
        "--seed",
        "5",
        "--output",
        ask.to_str().unwrap(),
    ]);
    ok(&out);
    let (header, qs) = rows(&ask);
    assert_eq!(header, "anchor,near,far");
    assert_eq!(qs.len(), auto_count(n, QuestionKind::Triplets));
    // No question twice, every row a proper question over the items.
    let mut keys = std::collections::BTreeSet::new();
    for r in &qs {
        let t = Triplet::new(idx(&names, &r[0]), idx(&names, &r[1]), idx(&names, &r[2]));
        assert!(!t.is_degenerate());
        assert!(keys.insert(t.canonical().0), "{r:?} asked twice");
    }
    // The crowd answers by keeping or swapping near and far (the candidate in the anchor's
    // cluster is nearer; without one, the row stays as asked).
    let mut text = String::from("anchor,near,far\n");
    for r in &qs {
        let c = cluster_of(&r[0]);
        let swap = cluster_of(&r[2]) == c && cluster_of(&r[1]) != c;
        let (near, far) = if swap { (&r[2], &r[1]) } else { (&r[1], &r[2]) };
        text += &format!("{},{near},{far}\n", r[0]);
    }
    std::fs::write(&answers, text).unwrap();
    let out = compclust(&[
        "cluster",
        "--input",
        answers.to_str().unwrap(),
        "--items",
        items.to_str().unwrap(),
        "--output",
        labels.to_str().unwrap(),
    ]);
    ok(&out);
    let (_, got) = rows(&labels);
    let truth: Vec<usize> = got.iter().map(|r| cluster_of(&r[0])).collect();
    let pred: Vec<usize> = got.iter().map(|r| r[1].parse().unwrap()).collect();
    assert_eq!(adjusted_rand_index(&truth, &pred), 1.0);
}

#[test]
fn quadruplet_repeats_come_twice_mirrored_and_seeds_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (items, ask, again) = (
        dir.path().join("items.txt"),
        dir.path().join("ask.csv"),
        dir.path().join("again.csv"),
    );
    let names = write_items(&items, 12, 2);
    let run = |out: &Path, seed: &str| {
        compclust(&[
            "design",
            "quadruplets",
            "--items",
            items.to_str().unwrap(),
            "--count",
            "200",
            "--repeat",
            "25",
            "--seed",
            seed,
            "--output",
            out.to_str().unwrap(),
        ])
    };
    ok(&run(&ask, "3"));
    let (header, qs) = rows(&ask);
    assert_eq!(header, "a,b,c,d");
    assert_eq!(qs.len(), 225);
    let mut signs: BTreeMap<[u32; 4], Vec<i8>> = BTreeMap::new();
    for r in &qs {
        let [a, b, c, d] = [0, 1, 2, 3].map(|j| idx(&names, &r[j]));
        let (k, s) = Quadruplet::new(a, b, c, d).canonical();
        signs.entry(k).or_default().push(s);
    }
    assert_eq!(signs.len(), 200);
    let twice: Vec<&Vec<i8>> = signs.values().filter(|s| s.len() == 2).collect();
    assert_eq!(twice.len(), 25);
    assert!(twice.iter().all(|s| s[0] == -s[1]), "repeats are mirrored");
    ok(&run(&again, "3"));
    assert_eq!(std::fs::read(&ask).unwrap(), std::fs::read(&again).unwrap());
    ok(&run(&again, "4"));
    assert_ne!(std::fs::read(&ask).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn bad_designs_are_refused_and_leave_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (items, ask) = (dir.path().join("items.txt"), dir.path().join("ask.csv"));
    write_items(&items, 4, 2);
    std::fs::write(&ask, "earlier output\n").unwrap();
    let run = |args: &[&str]| {
        let mut all = vec![
            "design",
            args[0],
            "--items",
            items.to_str().unwrap(),
            "--output",
            ask.to_str().unwrap(),
        ];
        all.extend_from_slice(&args[1..]);
        compclust(&all)
    };
    // 4 · C(3, 2) = 12 distinct triplets exist over 4 items.
    let out = run(&["triplets", "--count", "13"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("13 distinct triplets") && e.contains("only 12 exist"),
        "{e}"
    );
    let out = run(&["triplets", "--count", "5", "--repeat", "6"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("6 repeats"), "{}", stderr(&out));
    let out = run(&["quadruplets", "--count", "many"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`auto` or a number"),
        "{}",
        stderr(&out)
    );
    let out = run(&["triplets", "--count", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // A duplicate item is named with its file, line and field.
    std::fs::write(&items, "x\ny\nz\ny\n").unwrap();
    let out = run(&["triplets"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("items.txt") && e.contains("line 4") && e.contains("`y`"),
        "{e}"
    );
    // Two items ask nothing.
    std::fs::write(&items, "x\ny\n").unwrap();
    let out = run(&["quadruplets"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at least 3"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&ask).unwrap(), "earlier output\n");
}
