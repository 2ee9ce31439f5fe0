//! `compclust embed`: t-STE, SOE and FORTE coordinates of planted 2-D points from a triplets
//! file (held-out triplet accuracy of the written CSV), labelled items, and errors that name
//! the file without replacing earlier outputs.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn compclust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `n` uniform points in [0,1]² and `m` noise-free triplets (a, near, far) of them.
fn planted(n: usize, m: usize, seed: u64) -> Vec<(usize, usize, usize)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let x: Vec<(f64, f64)> = (0..n)
        .map(|_| (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)))
        .collect();
    let d2 = |i: usize, j: usize| (x[i].0 - x[j].0).powi(2) + (x[i].1 - x[j].1).powi(2);
    let mut out = Vec::with_capacity(m);
    while out.len() < m {
        let (a, b, c) = (
            rng.random_range(0..n),
            rng.random_range(0..n),
            rng.random_range(0..n),
        );
        if a == b || a == c || b == c {
            continue;
        }
        if d2(a, b) < d2(a, c) {
            out.push((a, b, c));
        } else if d2(a, c) < d2(a, b) {
            out.push((a, c, b));
        }
    }
    out
}

/// The written embedding: header and (label, coordinates) rows.
fn read_embedding(path: &Path) -> (String, Vec<(String, Vec<f64>)>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| {
            let mut f = l.split(',');
            let label = f.next().unwrap().to_string();
            (label, f.map(|v| v.parse().unwrap()).collect())
        })
        .collect();
    (header, rows)
}

#[test]
fn every_method_embeds_planted_points_and_satisfies_held_out_triplets() {
    let dir = tempfile::tempdir().unwrap();
    let n = 60;
    let all = planted(n, 3000, 7);
    let (train, test) = all.split_at(2000);
    // Labelled items `p<i>` in a headed file, so that the output rows are found by label.
    let mut text = String::from("anchor,near,far\n");
    for &(a, b, c) in train {
        text.push_str(&format!("p{a},p{b},p{c}\n"));
    }
    let input = dir.path().join("triplets.csv");
    std::fs::write(&input, text).unwrap();
    for method in ["tste", "soe", "forte"] {
        let out_path = dir.path().join(format!("{method}.csv"));
        let out = compclust(&[
            "embed",
            "-i",
            input.to_str().unwrap(),
            "--method",
            method,
            "--dim",
            "2",
            "-o",
            out_path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{method}: {}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{method}: {n} items")));
        let (header, rows) = read_embedding(&out_path);
        assert_eq!(header, "item,x1,x2");
        assert_eq!(rows.len(), n);
        let mut x = vec![[0.0; 2]; n];
        for (label, coords) in &rows {
            assert_eq!(coords.len(), 2);
            let i: usize = label[1..].parse().unwrap();
            x[i] = [coords[0], coords[1]];
        }
        let d2 = |i: usize, j: usize| (x[i][0] - x[j][0]).powi(2) + (x[i][1] - x[j][1]).powi(2);
        let ok = test
            .iter()
            .filter(|&&(a, b, c)| d2(a, b) < d2(a, c))
            .count();
        let acc = ok as f64 / test.len() as f64;
        println!("{method}: held-out accuracy {acc:.4}");
        assert!(acc >= 0.88, "{method}: held-out accuracy {acc}");
    }
}

#[test]
fn dimension_and_list_order_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.csv");
    // Headerless integer rows: cblearn's list-order.
    let rows: String = planted(12, 200, 1)
        .iter()
        .map(|&(a, b, c)| format!("{a},{b},{c}\n"))
        .collect();
    std::fs::write(&input, rows).unwrap();
    let out_path = dir.path().join("e.csv");
    let out = compclust(&[
        "embed",
        "-i",
        input.to_str().unwrap(),
        "--method",
        "soe",
        "--dim",
        "3",
        "--max-iter",
        "50",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (header, rows) = read_embedding(&out_path);
    assert_eq!(header, "item,x1,x2,x3");
    assert_eq!(rows.len(), 12);
    assert!(rows.iter().all(|(_, c)| c.len() == 3));
}

#[test]
fn bad_inputs_are_one_line_errors_and_keep_earlier_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("e.csv");
    std::fs::write(&out_path, "earlier\n").unwrap();
    let quads = dir.path().join("quads.csv");
    std::fs::write(&quads, "a,b,c,d\n0,1,2,3\n1,2,0,3\n").unwrap();
    let broken = dir.path().join("broken.csv");
    std::fs::write(&broken, "anchor,near,far\n0,1,2\n0,1\n").unwrap();
    let missing = dir.path().join("nope.csv");
    let cases: [(&Path, &[&str], &str); 4] = [
        (&quads, &[], "need triplets"),
        (&broken, &[], "line 3"),
        (&missing, &[], "nope.csv"),
        (&quads, &["--method", "umap"], "umap"),
    ];
    for (input, extra, needle) in cases {
        let mut args = vec![
            "embed",
            "-i",
            input.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = compclust(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&out_path).unwrap(), "earlier\n");
    }
    // Dimension 0 is refused by the argument parser.
    let out = compclust(&[
        "embed",
        "-i",
        quads.to_str().unwrap(),
        "--dim",
        "0",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}
