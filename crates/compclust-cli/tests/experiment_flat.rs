//! `compclust experiment <flat / real-data experiment> --quick` end to end: the binary writes a
//! tidy runs.csv with the expected columns and rows, and the figures (SVG and PNG).
//! Real-data experiments run only when the shared data folder exists.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_compclust")
}

/// `$COMPCLUST_DATA`, else `shared/data` beside the clone (as in CI).
fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    let env = std::env::var_os("COMPCLUST_DATA").map(PathBuf::from);
    env.into_iter().chain([p]).find(|d| d.is_dir())
}

/// Run one quick experiment into a tempdir; return the dir and runs.csv as header + records.
fn run_quick(
    name: &str,
    data: Option<&Path>,
) -> (tempfile::TempDir, Vec<String>, Vec<Vec<String>>) {
    run_quick_with(name, data, &[])
}

/// As [`run_quick`], with extra command-line arguments.
fn run_quick_with(
    name: &str,
    data: Option<&Path>,
    extra: &[&str],
) -> (tempfile::TempDir, Vec<String>, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = Command::new(bin());
    cmd.args(["experiment", name, "--quick", "--out"]).arg(&out);
    cmd.args(extra);
    if let Some(d) = data {
        cmd.arg("--data").arg(d);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (header, records) = read_runs(&out.join("runs.csv"));
    (dir, header, records)
}

/// A runs.csv as header + records.
fn read_runs(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let records: Vec<Vec<String>> = rdr
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, records)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

fn assert_figures(dir: &tempfile::TempDir, stems: &[&str]) {
    for stem in stems {
        for ext in ["svg", "png"] {
            let p = dir.path().join("out").join(format!("{stem}.{ext}"));
            let len = std::fs::metadata(&p)
                .unwrap_or_else(|_| panic!("missing {}", p.display()))
                .len();
            assert!(len > 1000, "{} is only {len} bytes", p.display());
        }
    }
}

/// Distinct values of column `c` among rows with metric `metric`.
fn distinct(rows: &[Vec<String>], header: &[String], c: &str, metric: &str) -> BTreeSet<String> {
    let (ci, mi) = (col(header, c), col(header, "metric"));
    rows.iter()
        .filter(|r| r[mi] == metric)
        .map(|r| r[ci].clone())
        .collect()
}

fn ari_values(rows: &[Vec<String>], header: &[String]) -> Vec<f64> {
    let (mi, vi) = (col(header, "metric"), col(header, "value"));
    rows.iter()
        .filter(|r| r[mi] == "ari")
        .map(|r| r[vi].parse::<f64>().unwrap())
        .collect()
}

#[test]
fn flat_comparisons_quick() {
    let (dir, h, rows) = run_quick("flat-comparisons", None);
    for c in [
        "experiment",
        "method",
        "n",
        "k",
        "family",
        "delta",
        "eps",
        "p",
        "comparisons",
        "k_mode",
        "seed",
        "metric",
        "value",
        "time_s",
    ] {
        col(&h, c);
    }
    // 4 methods × 2 p × 2 seeds × (ari, k_hat).
    assert_eq!(rows.len(), 4 * 2 * 2 * 2);
    assert_eq!(
        distinct(&rows, &h, "method", "ari"),
        ["AddS-3", "AddS-4", "MulK-3", "MulK-4"]
            .map(String::from)
            .into()
    );
    assert!(
        ari_values(&rows, &h)
            .iter()
            .all(|a| (-1.0..=1.0).contains(a))
    );
    // The shape of Perrot et al. 2020, Fig. 1a: AddS-3 improves markedly from n (ln n)^2 to n (ln n)^4
    // comparisons (at n = 40 recovery is not yet exact: measured mean ARI ≈ 0.85 vs ≈ 0.2).
    let (mi, pi, vi, me) = (
        col(&h, "method"),
        col(&h, "p"),
        col(&h, "value"),
        col(&h, "metric"),
    );
    let mean_ari = |p: &str| {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| r[mi] == "AddS-3" && r[pi] == p && r[me] == "ari")
            .map(|r| r[vi].parse::<f64>().unwrap())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(
        mean_ari("4") > mean_ari("2") + 0.3,
        "AddS-3: p=4 {} vs p=2 {}",
        mean_ari("4"),
        mean_ari("2")
    );
    assert_figures(&dir, &["flat-comparisons"]);
}

/// `--n` replaces the planted model's number of items; values below 4 are refused by name.
#[test]
fn n_flag_sets_items_and_is_checked() {
    let (_dir, h, rows) = run_quick_with("flat-noise", None, &["--n", "30"]);
    assert!(!rows.is_empty());
    assert_eq!(
        distinct(&rows, &h, "n", "ari"),
        BTreeSet::from(["30".to_string()])
    );
    let o = Command::new(bin())
        .args(["experiment", "flat-noise", "--quick", "--n", "2", "--out"])
        .arg(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--n"));
}

/// `--replot` redraws the figures from an earlier runs.csv without running anything.
#[test]
fn replot_redraws_figures_from_runs_csv() {
    let (dir, _, _) = run_quick("flat-noise", None);
    let csv = dir.path().join("out").join("runs.csv");
    let again = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(["experiment", "flat-noise", "--replot"])
        .arg(&csv)
        .arg("--out")
        .arg(again.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for ext in ["svg", "png"] {
        assert!(again.path().join(format!("flat-noise.{ext}")).exists());
    }
    assert!(!again.path().join("runs.csv").exists());
}

#[test]
fn flat_noise_quick() {
    let (dir, h, rows) = run_quick("flat-noise", None);
    // 2 methods × 2 p × 2 ε × 2 seeds × 2 metrics.
    assert_eq!(rows.len(), 32);
    assert_eq!(
        distinct(&rows, &h, "eps", "ari"),
        ["0.5", "1"].map(String::from).into()
    );
    assert_eq!(
        distinct(&rows, &h, "p", "ari"),
        ["3", "4"].map(String::from).into()
    );
    assert_figures(&dir, &["flat-noise"]);
}

#[test]
fn flat_distributions_quick() {
    let (dir, h, rows) = run_quick("flat-distributions", None);
    // 4 families × 2 ε × 1 seed × 2 methods × 2 metrics.
    assert_eq!(rows.len(), 32);
    let fams = ["normal", "uniform", "beta", "normal-uniform"];
    assert_eq!(
        distinct(&rows, &h, "family", "ari"),
        fams.map(String::from).into()
    );
    let stems: Vec<String> = fams
        .iter()
        .map(|f| format!("flat-distributions-{f}"))
        .collect();
    assert_figures(&dir, &stems.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn flat_grid_quick() {
    let (dir, h, rows) = run_quick("flat-grid", None);
    // 4 sweeps × 2 values × 2 seeds × 2 methods × 2 metrics.
    assert_eq!(rows.len(), 64);
    assert_eq!(
        distinct(&rows, &h, "sweep", "ari"),
        ["delta", "eps", "k", "n"].map(String::from).into()
    );
    assert_eq!(
        distinct(&rows, &h, "k_mode", "ari"),
        ["known"].map(String::from).into()
    );
    assert_figures(
        &dir,
        &[
            "flat-grid-n-p3-known",
            "flat-grid-delta-p3-known",
            "flat-grid-eps-p3-known",
            "flat-grid-k-p3-known",
        ],
    );
}

#[test]
fn mnist_quick() {
    let Some(data) = shared_data() else {
        eprintln!("skipping: shared/data not found (set COMPCLUST_DATA)");
        return;
    };
    let (dir, h, rows) = run_quick("mnist", Some(&data));
    let methods = distinct(&rows, &h, "method", "ari");
    for m in [
        "AddS-3, k=2",
        "MulK-3, k=2",
        "t-STE, k=2",
        "k-means, k=2",
        "AddS-3, k=10",
        "k-means, k=10",
    ] {
        assert!(methods.contains(m), "{m} missing from {methods:?}");
    }
    // 2 subsets × 1 kernel × 2 p × 2 seeds; 3 methods × 2 metrics + k-means.
    assert_eq!(rows.len(), 2 * 2 * 2 * 7);
    assert_eq!(
        distinct(&rows, &h, "n", "ari"),
        ["40"].map(String::from).into()
    );
    assert_figures(&dir, &["mnist-1vs7-gaussian", "mnist-10-gaussian"]);
}

/// `--spur-refine` reaches mnist's SPUR: the full grid (which runs SPUR) on 40 items, narrowed
/// by `--only` to two trials, carries the tolerance in every row, and a run without it does
/// not reuse them.
#[test]
fn mnist_spur_refine_is_a_column_of_the_rows() {
    let Some(data) = shared_data() else {
        eprintln!("skipping: shared/data not found (set COMPCLUST_DATA)");
        return;
    };
    let narrow = ["--n", "40", "--seeds", "1", "--only", "p=2"];
    let only_gaussian = ["--only", "kernel=gaussian"];
    let mut args = narrow.to_vec();
    args.extend(only_gaussian);
    args.extend(["--spur-refine", "1e-3"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refine");
    let o = Command::new(bin())
        .args(["experiment", "mnist", "--out"])
        .arg(&out)
        .args(&args)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = out.join("runs.csv");
    let (h, rows) = read_runs(&csv);
    let t = col(&h, "spur_refine");
    assert!(!rows.is_empty() && rows.iter().all(|r| r[t] == "0.001"));
    assert_eq!(
        distinct(&rows, &h, "subset", "k_hat"),
        ["10", "1vs7"].map(String::from).into()
    );
    assert!(distinct(&rows, &h, "method", "k_hat").contains("AddS-3, SPUR"));
    let o = Command::new(bin())
        .args(["experiment", "mnist", "--out"])
        .arg(dir.path().join("single"))
        .args(narrow)
        .args(only_gaussian)
        .arg("--resume-from")
        .arg(&csv)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("not trials of this run"),
        "{err}"
    );
}

#[test]
fn car_quick() {
    let Some(data) = shared_data() else {
        eprintln!("skipping: shared/data not found (set COMPCLUST_DATA)");
        return;
    };
    let (dir, h, rows) = run_quick("car", Some(&data));
    // 7 partitions + the classes: an 8 × 8 agreement matrix, plus 7 k̂ rows.
    assert_eq!(rows.len(), 64 + 7);
    let (mi, vi, me, ve) = (
        col(&h, "method"),
        col(&h, "value"),
        col(&h, "metric"),
        col(&h, "versus"),
    );
    for r in rows.iter().filter(|r| r[me] == "ari" && r[mi] == r[ve]) {
        assert_eq!(r[vi], "1", "a partition agrees with itself: {r:?}");
    }
    let spur = rows
        .iter()
        .find(|r| r[me] == "k_hat" && r[mi] == "AddS-3, SPUR")
        .unwrap();
    assert!(["2", "3"].contains(&spur[vi].as_str()), "k̂ {spur:?}");
    assert_figures(&dir, &["car"]);
}

#[test]
fn food_quick() {
    let Some(data) = shared_data() else {
        eprintln!("skipping: shared/data not found (set COMPCLUST_DATA)");
        return;
    };
    let (dir, h, rows) = run_quick("food", Some(&data));
    let me = col(&h, "metric");
    assert_eq!(rows.iter().filter(|r| r[me] == "ari").count(), 9);
    let sizes: f64 = rows
        .iter()
        .filter(|r| r[me] == "size")
        .map(|r| r[col(&h, "value")].parse::<f64>().unwrap())
        .sum();
    assert_eq!(sizes, 100.0);
    let table = std::fs::read_to_string(dir.path().join("out/food-partition.csv")).unwrap();
    assert_eq!(table.lines().count(), 101);
    assert!(table.starts_with("cluster,item,dish,dominant_taste,sweet,savory\n"));
    let md = std::fs::read_to_string(dir.path().join("out/food-partition.md")).unwrap();
    assert!(md.contains("## Cluster 0"));
    assert_figures(&dir, &["food"]);
}

#[test]
fn real_data_experiments_need_the_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(["experiment", "car", "--quick", "--out"])
        .arg(dir.path().join("out"))
        .arg("--data")
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--data folder not found"));
}

/// A run killed part-way leaves its finished trials in runs.journal; `--resume` reuses them
/// (a value edited in the journal shows up in runs.csv) and runs only the rest. Without
/// `--resume` the journal is refused, not overwritten; experiments that write runs.csv only at
/// the end refuse `--resume`.
#[test]
fn killed_run_resumes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let journal = out.join("runs.journal");
    let args = [
        "experiment",
        "flat-noise",
        "--quick",
        "--seeds",
        "10",
        "--n",
        "60",
    ];
    let mut child = Command::new(bin())
        .args(args)
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lines = || {
        std::fs::read_to_string(&journal)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    while lines() < 3 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before it was killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&journal).unwrap();
    let done = text.lines().count() - 1;
    assert!((2..40).contains(&done), "{done} trials journaled");
    // Mark the first journaled value, so that runs.csv shows whether it was reused.
    let pos = text.find("\"value\":\"").unwrap();
    let start = pos + "\"value\":\"".len();
    let end = start + text[start..].find('"').unwrap();
    let marked = format!("{}0.123456789{}", &text[..start], &text[end..]);
    std::fs::write(&journal, &marked).unwrap();

    let again = Command::new(bin())
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!again.status.success());
    let e = String::from_utf8_lossy(&again.stderr);
    assert!(e.contains("runs.journal") && e.contains("--resume"), "{e}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), marked);

    // The stopped run's journal also serves as --resume-from of another run (as the journals
    // of shards stopped on other machines would), read-only; one of other options is refused.
    let merged = dir.path().join("merged");
    let from_journal = Command::new(bin())
        .args(args)
        .arg("--resume-from")
        .arg(&journal)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&from_journal.stderr);
    assert!(from_journal.status.success(), "{e}");
    assert!(e.contains(&format!("{done} finished trial(s)")), "{e}");
    let (header, rows) = read_runs(&merged.join("runs.csv"));
    assert_eq!(rows.len(), 160);
    let v = col(&header, "value");
    assert_eq!(rows.iter().filter(|r| r[v] == "0.123456789").count(), 1);
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), marked);
    let other = dir.path().join("other");
    let refused = Command::new(bin())
        .args(["experiment", "flat-noise", "--quick", "--seeds", "10"])
        .args(["--n", "50", "--resume-from"])
        .arg(&journal)
        .arg("--out")
        .arg(&other)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let e = String::from_utf8_lossy(&refused.stderr);
    assert!(
        e.contains("runs.journal: line 1, field \"config\"") && e.contains("n=60"),
        "{e}"
    );
    assert!(!other.join("runs.journal").exists() && !other.join("runs.csv").exists());

    let resumed = Command::new(bin())
        .args(args)
        .args(["--resume", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(!journal.exists());
    let (header, rows) = read_runs(&out.join("runs.csv"));
    // 2 ε × 2 |T| × 10 seeds, two methods, two metrics each.
    assert_eq!(rows.len(), 160);
    let v = col(&header, "value");
    assert_eq!(rows.iter().filter(|r| r[v] == "0.123456789").count(), 1);

    let o = Command::new(bin())
        .args(["experiment", "car", "--quick", "--resume", "--out"])
        .arg(dir.path().join("car"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("cannot be resumed") && e.contains("flat-noise"),
        "{e}"
    );
}

/// `--resume-from` reuses every trial of a finished run's runs.csv and runs only the new seeds:
/// with seed 0's values marked in the CSV, a run with `--seeds 2` keeps every mark and adds
/// seed 1. Checked for every resumable experiment (mnist when the shared data is there), so
/// each experiment's `trial_key_of` matches the keys its trials use. A CSV of a run with other
/// options reuses nothing and says so.
#[test]
fn resume_from_a_finished_runs_csv_adds_seeds() {
    const MARK: &str = "0.123456789";
    let data = shared_data();
    let mut names = vec![
        "flat-comparisons",
        "flat-noise",
        "flat-distributions",
        "flat-grid",
    ];
    if data.is_some() {
        names.push("mnist");
    }
    for name in names {
        let (dir, header, first) = run_quick_with(name, data.as_deref(), &["--seeds", "1"]);
        let (s, v) = (col(&header, "seed"), col(&header, "value"));
        let marked: Vec<Vec<String>> = first
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r[v] = MARK.to_string();
                r
            })
            .collect();
        let csv = dir.path().join("marked.csv");
        let mut w = csv::Writer::from_path(&csv).unwrap();
        w.write_record(&header).unwrap();
        for r in &marked {
            w.write_record(r).unwrap();
        }
        w.flush().unwrap();
        drop(w);

        let out = dir.path().join("more");
        let mut cmd = Command::new(bin());
        cmd.args(["experiment", name, "--quick", "--seeds", "2", "--out"])
            .arg(&out)
            .arg("--resume-from")
            .arg(&csv);
        if let Some(d) = &data {
            cmd.arg("--data").arg(d);
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {err}");
        assert!(!err.contains("warning"), "{name}: {err}");
        let (header2, rows) = read_runs(&out.join("runs.csv"));
        assert_eq!(header2, header, "{name}");
        let seed0: Vec<&Vec<String>> = rows.iter().filter(|r| r[s] == "0").collect();
        assert_eq!(seed0.len(), first.len(), "{name}");
        assert!(
            seed0.iter().all(|r| r[v] == MARK),
            "{name}: a trial ran again"
        );
        let seed1 = rows.iter().filter(|r| r[s] == "1").count();
        assert_eq!(seed1, first.len(), "{name}: seed 1");
        assert!(!out.join("runs.journal").exists(), "{name}");
    }

    let (dir, _, _) = run_quick_with("flat-noise", None, &["--seeds", "1"]);
    let err = quick_noise_reusing(dir.path(), "other", &["--n", "50"]);
    assert!(
        err.contains("warning") && err.contains("not trials of this run"),
        "{err}"
    );
}

/// `experiment flat-noise --quick EXTRA --out DIR/OUT --resume-from DIR/out/runs.csv`, which
/// must succeed; its stderr.
fn quick_noise_reusing(dir: &Path, out: &str, extra: &[&str]) -> String {
    let o = Command::new(bin())
        .args(["experiment", "flat-noise", "--quick"])
        .args(extra)
        .arg("--out")
        .arg(dir.join(out))
        .arg("--resume-from")
        .arg(dir.join("out/runs.csv"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    err
}

/// `--sdp-tol` is recorded in every row (a run at another tolerance does not reuse them) and
/// is refused by experiments that do not solve SDPs trial by trial.
#[test]
fn sdp_tol_is_a_column_of_the_rows() {
    let (dir, header, rows) =
        run_quick_with("flat-noise", None, &["--seeds", "1", "--sdp-tol", "1e-3"]);
    let t = col(&header, "sdp_tol");
    assert!(rows.iter().all(|r| r[t] == "0.001"), "{rows:?}");
    let err = quick_noise_reusing(dir.path(), "default", &["--seeds", "1"]);
    assert!(err.contains("not trials of this run"), "{err}");
    let (header, _) = read_runs(&dir.path().join("default/runs.csv"));
    assert!(!header.iter().any(|h| h == "sdp_tol"), "{header:?}");

    let o = Command::new(bin())
        .args(["experiment", "car", "--quick", "--sdp-tol", "1e-3", "--out"])
        .arg(dir.path().join("car"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--sdp-tol"));
}

/// A run that fails leaves the folder's earlier runs.csv and figures as they were: here the
/// car data is one malformed line, so the run stops with an error naming the file.
#[test]
fn a_failed_run_leaves_the_earlier_outputs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let earlier = ["runs.csv", "car-matrix.svg", "car-matrix.png"];
    for f in earlier {
        std::fs::write(out.join(f), format!("earlier {f}")).unwrap();
    }
    let data = dir.path().join("data");
    let car = data.join("car/ordinal_data_preprocessed");
    std::fs::create_dir_all(&car).unwrap();
    std::fs::write(car.join("T_ALL_REDUCED.csv"), "1,2,x\n").unwrap();
    let o = Command::new(bin())
        .args(["experiment", "car", "--quick", "--out"])
        .arg(&out)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("T_ALL_REDUCED.csv"), "{e}");
    for f in earlier {
        assert_eq!(
            std::fs::read_to_string(out.join(f)).unwrap(),
            format!("earlier {f}")
        );
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !earlier.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "the failed run left {left:?}");
}

/// `--shard I/M` runs disjoint shares of the trials without figures; a run given every
/// share's runs.csv with `--resume-from` computes nothing and writes the same rows (all but the
/// time column, in the same order) and the figures of one whole run.
#[test]
fn shards_merged_with_resume_from_make_the_whole_run() {
    let name = "flat-noise";
    let (whole_dir, header, whole) = run_quick_with(name, None, &["--seeds", "2"]);
    let dir = tempfile::tempdir().unwrap();
    let mut shard_csvs = Vec::new();
    let mut rows_in_shards = 0;
    for i in 0..3 {
        let out = dir.path().join(format!("shard{i}"));
        let o = Command::new(bin())
            .args(["experiment", name, "--quick", "--seeds", "2"])
            .args(["--shard", &format!("{i}/3"), "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let csv = out.join("runs.csv");
        rows_in_shards += read_runs(&csv).1.len();
        assert!(!out.join("noise.svg").exists() && !out.join("noise.png").exists());
        shard_csvs.push(csv);
    }
    assert_eq!(
        rows_in_shards,
        whole.len(),
        "each trial in exactly one shard"
    );
    let merged = dir.path().join("merged");
    let mut cmd = Command::new(bin());
    cmd.args(["experiment", name, "--quick", "--seeds", "2", "--out"])
        .arg(&merged);
    for c in &shard_csvs {
        cmd.arg("--resume-from").arg(c);
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !err.contains("warning"), "{err}");
    let (header2, rows) = read_runs(&merged.join("runs.csv"));
    assert_eq!(header2, header);
    assert_eq!(
        without_times(&header, &rows),
        without_times(&header, &whole)
    );
    let figures: Vec<_> = std::fs::read_dir(whole_dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|f| f.to_string_lossy().ends_with(".svg"))
        .collect();
    assert!(!figures.is_empty());
    for f in figures {
        assert!(merged.join(&f).exists(), "{f:?} not drawn by the merge");
    }
    usage_error(name, &["--shard", "3/3"], &["--shard", "INDEX/COUNT"]);
}

/// `--only NAME=VALUE` runs exactly the trials with those parameter values (every parameter
/// at once, a list `NAME=A,B` or repeated filters on one parameter as alternatives), writes
/// their rows as the whole run has them and draws no figure; a filter that matches no trial
/// is an error that writes nothing, and a malformed one a usage error.
#[test]
fn only_runs_the_trials_with_the_given_values() {
    let name = "flat-noise";
    let (whole_dir, header, whole) = run_quick_with(name, None, &["--seeds", "2"]);
    let whole_csv = whole_dir.path().join("out/runs.csv");
    let (s, e) = (col(&header, "seed"), col(&header, "eps"));
    let dir = tempfile::tempdir().unwrap();
    // (the --only arguments, which (seed, eps) they keep)
    type Keep = fn(&str, &str) -> bool;
    let cases: [(&[&str], Keep); 4] = [
        (&["--only", "seed=1"], |seed, _| seed == "1"),
        (&["--only", "eps=0.5", "--only", "seed=0"], |seed, eps| {
            seed == "0" && eps == "0.5"
        }),
        (&["--only", "seed=0,1", "--only", "eps=1"], |_, eps| {
            eps == "1"
        }),
        (
            &["--only", "eps=0.5", "--only", "seed=1", "--only", "eps=1"],
            |seed, _| seed == "1",
        ),
    ];
    for (i, (only, keep)) in cases.iter().enumerate() {
        let out = dir.path().join(format!("only{i}"));
        let o = Command::new(bin())
            .args(["experiment", name, "--quick", "--seeds", "2", "--out"])
            .arg(&out)
            .args(*only)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (h, rows) = read_runs(&out.join("runs.csv"));
        assert_eq!(h, header);
        let want: Vec<Vec<String>> = whole
            .iter()
            .filter(|r| keep(&r[s], &r[e]))
            .cloned()
            .collect();
        assert!(!want.is_empty() && want.len() < whole.len());
        assert_eq!(
            without_times(&h, &rows),
            without_times(&h, &want),
            "{only:?}"
        );
        assert!(!out.join("flat-noise.svg").exists() && !out.join("flat-noise.png").exists());
    }
    // a misspelt name: an error naming the filter and showing how trials are named
    let out = dir.path().join("none");
    let o = Command::new(bin())
        .args(["experiment", name, "--quick", "--only", "sed=1", "--out"])
        .arg(&out)
        .arg("--resume-from")
        .arg(&whole_csv)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--only sed=1 matched no trial") && err.contains("seed=0"),
        "{err}"
    );
    assert!(!out.join("runs.csv").exists());
    // the journal it started held only the imported trials and is gone: the corrected
    // command runs as is (and computes nothing, its trials being in the imported runs.csv)
    let o = Command::new(bin())
        .args(["experiment", name, "--quick", "--only", "seed=1", "--out"])
        .arg(&out)
        .arg("--resume-from")
        .arg(&whole_csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, rows) = read_runs(&out.join("runs.csv"));
    let want: Vec<Vec<String>> = whole.iter().filter(|r| r[s] == "1").cloned().collect();
    assert_eq!(rows, want, "the imported rows, times included");
    usage_error(name, &["--only", "seed"], &["--only", "NAME=VALUE"]);
}

/// The rows with their `time_s` cells emptied (two runs of the same trials differ only there).
fn without_times(header: &[String], rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let t = col(header, "time_s");
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            r[t].clear();
            r
        })
        .collect()
}

/// `compclust experiment NAME --quick ARGS` is a usage error (exit 2) whose message has every
/// one of `words`.
fn usage_error(name: &str, args: &[&str], words: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(["experiment", name, "--quick", "--out"])
        .arg(dir.path().join("bad"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(words.iter().all(|w| err.contains(w)), "{err}");
}
