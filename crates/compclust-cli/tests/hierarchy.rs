//! `compclust hierarchy` end to end: the built binary on files written into a tempdir.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Items on a line with two clear groups {a,b,c} and {x,y,z}; every pair-vs-pair comparison
/// answered from the distances (so SL / CL have everything they need).
fn write_all_quadruplets(path: &Path) {
    let names = ["a", "b", "c", "x", "y", "z"];
    let pos: [f64; 6] = [0.0, 1.0, 2.5, 10.0, 11.2, 13.0];
    let mut pairs = Vec::new();
    for i in 0..6 {
        for j in i + 1..6 {
            pairs.push((i, j));
        }
    }
    let mut text = String::from("a,b,c,d\n");
    for (u, &(i, j)) in pairs.iter().enumerate() {
        for &(k, l) in &pairs[u + 1..] {
            let (d1, d2) = ((pos[i] - pos[j]).abs(), (pos[k] - pos[l]).abs());
            let row = if d1 < d2 { [i, j, k, l] } else { [k, l, i, j] };
            text.push_str(&format!(
                "{},{},{},{}\n",
                names[row[0]], names[row[1]], names[row[2]], names[row[3]]
            ));
        }
    }
    std::fs::write(path, text).unwrap();
}

fn groups_of(labels_csv: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = labels_csv
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_method_writes_tree_newick_cut_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("q.csv");
    write_all_quadruplets(&input);
    for method in ["4al", "4kal", "sl", "cl"] {
        let out = dir.path().join(format!("{method}.json"));
        let nwk = dir.path().join(format!("{method}.nwk"));
        let lab = dir.path().join(format!("{method}.csv"));
        let svg = dir.path().join(format!("{method}.svg"));
        let o = run(&[
            "hierarchy",
            "--input",
            s(&input),
            "--method",
            method,
            "--output",
            s(&out),
            "--newick",
            s(&nwk),
            "--cut",
            "2",
            "--labels",
            s(&lab),
            "--plot",
            s(&svg),
        ]);
        assert!(
            o.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(j["items"].as_array().unwrap().len(), 6);
        assert_eq!(j["steps"].as_array().unwrap().len(), 5);
        assert_eq!(j["steps"][4][3], 6);
        let newick = std::fs::read_to_string(&nwk).unwrap();
        assert!(newick.trim_end().ends_with(';') && newick.contains('x'));
        // the cut into two clusters is {a,b,c} | {x,y,z}
        let g = groups_of(&std::fs::read_to_string(&lab).unwrap());
        assert_eq!(g[0].1, g[1].1, "{method}: {g:?}");
        assert_eq!(g[0].1, g[2].1, "{method}: {g:?}");
        assert_eq!(g[3].1, g[4].1, "{method}: {g:?}");
        assert_eq!(g[3].1, g[5].1, "{method}: {g:?}");
        assert_ne!(g[0].1, g[3].1, "{method}: {g:?}");
        let pic = std::fs::read_to_string(&svg).unwrap();
        assert!(
            pic.contains("<svg") && pic.lines().any(|l| l.trim() == "z"),
            "{method}: labels drawn"
        );
    }
}

#[test]
fn items_meta_names_the_leaves_and_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("q.csv");
    write_all_quadruplets(&input);
    let meta = dir.path().join("meta.tsv");
    std::fs::write(&meta, "a\tApple\nz\tZucchini\n").unwrap();
    let (svg, lab) = (dir.path().join("t.svg"), dir.path().join("l.csv"));
    let o = run(&[
        "hierarchy",
        "--method",
        "4al",
        "-i",
        s(&input),
        "-o",
        s(&dir.path().join("t.json")),
        "--cut",
        "2",
        "--labels",
        s(&lab),
        "--plot",
        s(&svg),
        "--items-meta",
        s(&meta),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("3 items: Apple, b, c") && stdout.contains("3 items: x, y, Zucchini"),
        "{stdout}"
    );
    let pic = std::fs::read_to_string(&svg).unwrap();
    assert!(
        pic.lines().any(|l| l.trim() == "Zucchini"),
        "leaf names drawn"
    );
    // The labels file keeps the item labels: the display names are for people.
    assert!(std::fs::read_to_string(&lab).unwrap().contains("\nz,"));
}

#[test]
fn four_al_with_initial_clusters_and_triplets() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.csv");
    std::fs::write(
        &input,
        "anchor,near,far\na,b,x\nb,a,y\nx,y,a\ny,x,b\na,b,y\nx,y,b\n",
    )
    .unwrap();
    let init = dir.path().join("init.csv");
    std::fs::write(&init, "item,cluster\na,0\nb,0\nx,1\ny,2\n").unwrap();
    let out = dir.path().join("t.json");
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "4al",
        "--init-clusters",
        s(&init),
        "--output",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("1 initial merges"), "{stdout}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // first merge is the initial cluster {a, b} at height 0
    let items: Vec<&str> = j["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let (a, b) = (
        j["steps"][0][0].as_u64().unwrap(),
        j["steps"][0][1].as_u64().unwrap(),
    );
    let mut first = [items[a as usize], items[b as usize]];
    first.sort();
    assert_eq!(first, ["a", "b"]);
    assert_eq!(j["steps"][0][2], 0.0);
}

#[test]
fn clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    // SL from an incomplete set: says what is missing, exit 2
    let input = dir.path().join("q.csv");
    std::fs::write(&input, "a,b,c,d\n0,1,0,2\n").unwrap();
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "sl",
        "--output",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error:") && err.contains("not in the given set"),
        "{err}"
    );
    // a malformed row names file and line
    std::fs::write(&input, "a,b,c,d\n0,1,0,2\n0,1,2\n").unwrap();
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "4al",
        "--output",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("q.csv") && err.contains('3'), "{err}");
    // initial clusters naming an unknown item
    std::fs::write(&input, "a,b,c,d\n0,1,0,2\n").unwrap();
    let init = dir.path().join("init.csv");
    std::fs::write(&init, "item,cluster\n0,0\n1,0\n2,1\nzebra,1\n").unwrap();
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "4al",
        "--init-clusters",
        s(&init),
        "--output",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("init.csv") && err.contains("zebra"), "{err}");
    // unknown method
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "al",
        "--output",
        s(&out),
    ]);
    assert!(!o.status.success());
    // bad plot extension
    let o = run(&[
        "hierarchy",
        "--input",
        s(&input),
        "--method",
        "4al",
        "--output",
        s(&out),
        "--plot",
        s(&dir.path().join("p.gif")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(".svg or .png"));
}

#[test]
fn simulate_reports_queries_and_aari() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let png = dir.path().join("t.png");
    let o = run(&[
        "hierarchy",
        "--simulate",
        "--method",
        "cl",
        "--levels",
        "2",
        "--n0",
        "5",
        "--delta",
        "1.5",
        "--seed",
        "4",
        "--output",
        s(&out),
        "--plot",
        s(&png),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("queries") && stdout.contains("AARI 1.0000"),
        "{stdout}"
    );
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    let o = run(&[
        "hierarchy",
        "--simulate",
        "--method",
        "4al",
        "--output",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
}
