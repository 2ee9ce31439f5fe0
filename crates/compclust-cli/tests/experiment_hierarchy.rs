//! `compclust experiment` for Ghoshdastidar et al. 2019 (hierarchy) and Huleihel et al. 2019 (overlap): every experiment of
//! `commands/experiment/{hierarchy,overlap}.rs` runs with `--quick` into a tempdir; the test
//! checks the tidy `runs.csv` (columns, methods, grid, value ranges) and that the figures
//! exist. Real-data experiments are skipped with a printed line when `shared/data` is absent.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> Option<PathBuf> {
    let d = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    if d.is_dir() {
        return Some(d);
    }
    let w = PathBuf::from("/work/shared/data");
    w.is_dir().then_some(w)
}

/// Run `experiment NAME --quick` into a fresh tempdir; return (dir, header, rows as maps).
fn run_quick(
    name: &str,
    data: Option<&Path>,
) -> (
    tempfile::TempDir,
    Vec<String>,
    Vec<BTreeMap<String, String>>,
) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_compclust"));
    cmd.args(["experiment", name, "--quick", "--out"]).arg(&out);
    if let Some(d) = data {
        cmd.arg("--data").arg(d);
    }
    let o = cmd.output().expect("binary runs");
    assert!(
        o.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "row {l:?}");
            header
                .iter()
                .cloned()
                .zip(f.iter().map(|s| s.to_string()))
                .collect()
        })
        .collect();
    (dir, header, rows)
}

fn values(rows: &[BTreeMap<String, String>], key: &str) -> BTreeSet<String> {
    rows.iter().map(|r| r[key].clone()).collect()
}

fn metric(rows: &[BTreeMap<String, String>], m: &str) -> Vec<f64> {
    rows.iter()
        .filter(|r| r["metric"] == m)
        .map(|r| r["value"].parse().unwrap())
        .collect()
}

fn assert_figures(dir: &tempfile::TempDir, stems: &[&str]) {
    for s in stems {
        for ext in ["svg", "png"] {
            let p = dir.path().join("out").join(format!("{s}.{ext}"));
            let len = std::fs::metadata(&p)
                .unwrap_or_else(|_| panic!("{} missing", p.display()))
                .len();
            assert!(len > 500, "{} is only {len} bytes", p.display());
        }
    }
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn hierarchy_planted_quick() {
    let (dir, header, rows) = run_quick("hierarchy-planted", None);
    assert_eq!(
        header,
        [
            "experiment",
            "method",
            "p",
            "n0",
            "delta",
            "seed",
            "metric",
            "value",
            "time_s"
        ]
    );
    assert_eq!(
        values(&rows, "method"),
        set(&[
            "SL",
            "CL",
            "4K-AL",
            "4K-AL-act",
            "4-AL",
            "4-AL-I3",
            "4-AL-I5"
        ])
    );
    assert_eq!(values(&rows, "p"), set(&["0.01", "0.1", "1"]));
    assert_eq!(values(&rows, "seed"), set(&["0", "1"]));
    // 3 p × 2 δ × 2 seeds × 7 methods runs, 2 metrics each
    assert_eq!(rows.len(), 3 * 2 * 2 * 7 * 2);
    let aari = metric(&rows, "aari");
    assert_eq!(aari.len(), 84);
    assert!(aari.iter().all(|a| (-0.5..=1.0 + 1e-9).contains(a)));
    // the easiest setting (δ = 0.2, initial clusters of 5) recovers much of the hierarchy
    let i5: Vec<f64> = rows
        .iter()
        .filter(|r| r["metric"] == "aari" && r["method"] == "4-AL-I5" && r["delta"] == "0.20")
        .map(|r| r["value"].parse().unwrap())
        .collect();
    assert!(i5.iter().sum::<f64>() / i5.len() as f64 > 0.8, "{i5:?}");
    assert!(metric(&rows, "comparisons").iter().all(|&c| c > 0.0));
    assert_figures(
        &dir,
        &[
            "hierarchy-planted-p0.01",
            "hierarchy-planted-p0.1",
            "hierarchy-planted-p1",
        ],
    );
}

/// `hierarchy-planted-act` runs the 4K-AL-act series of `hierarchy-planted` alone (on the same
/// models, samples and seeds), so its rows can replace that series in a committed runs.csv:
/// they must be the very same numbers.
#[test]
fn hierarchy_planted_act_repeats_the_full_grid_series() {
    let (_full_dir, _, full) = run_quick("hierarchy-planted", None);
    let (dir, _, act) = run_quick("hierarchy-planted-act", None);
    assert_eq!(values(&act, "method"), set(&["4K-AL-act", "4K-AL-act-lnN"]));
    let key = |r: &BTreeMap<String, String>| {
        ["p", "n0", "delta", "seed", "metric", "value"].map(|k| r[k].clone())
    };
    let series = |rows: &[BTreeMap<String, String>]| -> Vec<[String; 6]> {
        rows.iter()
            .filter(|r| r["method"] == "4K-AL-act")
            .map(key)
            .collect()
    };
    let (a, b) = (series(&full), series(&act));
    assert_eq!(a.len(), 3 * 2 * 2 * 2);
    assert_eq!(a, b);
    assert_figures(
        &dir,
        &[
            "hierarchy-planted-act-p0.01",
            "hierarchy-planted-act-p0.1",
            "hierarchy-planted-act-p1",
        ],
    );
}

#[test]
fn hierarchy_zoo_quick() {
    let Some(data) = data_dir() else {
        println!("skipping: shared/data not found (hierarchy-zoo needs zoo/zoo.csv)");
        return;
    };
    let (dir, header, rows) = run_quick("hierarchy-zoo", Some(&data));
    assert_eq!(
        header,
        [
            "experiment",
            "method",
            "p",
            "seed",
            "metric",
            "value",
            "time_s"
        ]
    );
    assert_eq!(
        values(&rows, "method"),
        set(&[
            "SL",
            "CL",
            "4K-AL",
            "4K-AL-act",
            "4-AL",
            "tSTE-AL d=2",
            "FORTE-AL d=2"
        ])
    );
    assert_eq!(values(&rows, "p"), set(&["0.01", "0.02"]));
    let cost = metric(&rows, "dasgupta");
    // SL, CL once per p; 5 methods (4K-AL, 4K-AL-act, 4-AL, tSTE-AL, FORTE-AL) × 2 p × 2 seeds
    assert_eq!(cost.len(), 2 * 2 + 5 * 2 * 2);
    // Dasgupta cost Σ w_ij |lca| of 100 items with cosine weights in [0, 1]: between the
    // all-pairs-at-the-root bound's fraction and that bound.
    assert!(
        cost.iter().all(|&c| c > 1e4 && c < 4950.0 * 100.0),
        "{cost:?}"
    );
    assert_figures(&dir, &["hierarchy-zoo"]);
}

#[test]
fn hierarchy_car_quick() {
    let Some(data) = data_dir() else {
        println!("skipping: shared/data not found (hierarchy-car needs car/)");
        return;
    };
    let (dir, header, rows) = run_quick("hierarchy-car", Some(&data));
    assert_eq!(
        header,
        [
            "experiment",
            "method",
            "k",
            "seed",
            "metric",
            "value",
            "time_s"
        ]
    );
    assert_eq!(
        values(&rows, "method"),
        set(&["4-AL", "4K-AL", "tSTE-AL d=2"])
    );
    let ari = metric(&rows, "ari");
    assert_eq!(ari.len(), 3 * 3);
    assert!(ari.iter().all(|a| (-1.0..=1.0).contains(a)));
    assert_eq!(metric(&rows, "mean_ari_k2_4").len(), 3);
    assert_figures(
        &dir,
        &[
            "hierarchy-car-4-AL",
            "hierarchy-car-4K-AL",
            "hierarchy-car-tSTE-AL-d-2",
            "hierarchy-car-ari",
        ],
    );
}

#[test]
fn real_data_experiments_need_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for name in ["hierarchy-zoo", "hierarchy-car"] {
        let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
            .args(["experiment", name, "--quick", "--out"])
            .arg(dir.path().join(name))
            .arg("--data")
            .arg(&empty)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error:") && err.contains("empty"), "{err}");
        // no data folder at all (ctx.data is None): a clear error naming --data
        let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
            .current_dir(dir.path())
            .env_remove("COMPCLUST_DATA")
            .args(["experiment", name, "--quick", "--out", "x"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--data"), "{err}");
    }
}

#[test]
fn overlap_synthetic_quick() {
    let (dir, header, rows) = run_quick("overlap-synthetic", None);
    assert_eq!(
        header,
        [
            "experiment",
            "method",
            "setting",
            "oracle",
            "sample_size",
            "seed",
            "metric",
            "value",
            "time_s"
        ]
    );
    assert_eq!(
        values(&rows, "method"),
        set(&[
            "clique-cover",
            "find-similarity",
            "triangle-count",
            "find-membership"
        ])
    );
    assert_eq!(
        values(&rows, "setting"),
        set(&["worst-case", "uniform-d2", "uniform-d1"])
    );
    // runs: (3 + 2 + 2 + 2 + 2) sizes × 2 trials, 4 metrics each
    assert_eq!(rows.len(), 11 * 2 * 4);
    let failed = metric(&rows, "failed");
    let err = metric(&rows, "gram_error");
    for (f, e) in failed.iter().zip(&err) {
        assert_eq!(*f == 1.0, *e > 0.0);
    }
    // Alg. 1 and Alg. 2 with direct answers are exact on the uniform ensembles
    for r in rows.iter().filter(|r| {
        r["metric"] == "gram_error"
            && ["find-membership", "find-similarity"].contains(&&*r["method"])
    }) {
        assert_eq!(r["value"], "0", "{r:?}");
    }
    // Alg. 6 with noiseless quantized answers and |S| = 200 of 240 items is exact
    for r in rows.iter().filter(|r| {
        r["metric"] == "gram_error"
            && r["method"] == "triangle-count"
            && r["oracle"] == "quantized q=0"
    }) {
        assert_eq!(r["value"], "0", "{r:?}");
    }
    assert!(
        metric(&rows, "completed")
            .iter()
            .all(|&c| c == 0.0 || c == 1.0)
    );
    // queries never exceed the number of pairs
    assert!(
        metric(&rows, "queries")
            .iter()
            .all(|&q| q > 0.0 && q <= 240.0 * 239.0 / 2.0)
    );
    assert_figures(
        &dir,
        &[
            "overlap-synthetic-worst-case-error",
            "overlap-synthetic-worst-case-failures",
            "overlap-synthetic-uniform-d2-error",
            "overlap-synthetic-uniform-d2-failures",
            "overlap-synthetic-uniform-d1-error",
            "overlap-synthetic-uniform-d1-failures",
        ],
    );
}
