//! `compclust cluster` run as a binary on files written into a temporary folder.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use compclust::models::flat::{Family, PlantedFlat};
use compclust::simulate::sample_triplets;

fn compclust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Planted triplets (n = 150, k = 3, δ = 0.5, ε = 0.75, n·ln⁴n rows: enough for exact
/// recovery at this small n, see crates/compclust/tests/flat.rs) with items named
/// `item<i>`, written as `anchor,near,far`; returns the truth.
fn write_planted(path: &Path) -> Vec<usize> {
    let n = 150;
    let model = PlantedFlat::new(n, 3, Family::NormalNormal, 0.5, 11).unwrap();
    let m = (n as f64 * (n as f64).ln().powi(4)) as usize;
    let t = sample_triplets(&model, m, 0.75, 11).unwrap();
    let mut s = String::from("anchor,near,far\n");
    for r in &t {
        writeln!(s, "item{},item{},item{}", r.anchor, r.near, r.far).unwrap();
    }
    std::fs::write(path, s).unwrap();
    model.labels().to_vec()
}

fn read_labels(path: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("item,cluster"));
    lines
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.to_string(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn clusters_planted_triplets_with_spur_and_writes_report() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("triplets.csv");
    let truth = write_planted(&input);
    let out = dir.path().join("labels.csv");
    let rep = dir.path().join("report.json");
    let o = compclust(&[
        "cluster",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "--plot",
        dir.path().join("similarity.svg").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("k̂ = 3"), "{stdout}");
    // The summary: three clusters of 50, each with its first items.
    assert_eq!(stdout.matches(": 50 items: item").count(), 3, "{stdout}");
    let svg = std::fs::read_to_string(dir.path().join("similarity.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("AddS-3 similarity") && svg.contains("150 items"),
        "{}",
        &svg[..svg.len().min(300)]
    );
    let labels = read_labels(&out);
    assert_eq!(labels.len(), 150);
    // Items appear in first-seen order; map them back to their planted cluster.
    let pred: Vec<usize> = labels.iter().map(|(_, c)| *c).collect();
    let tru: Vec<usize> = labels
        .iter()
        .map(|(item, _)| truth[item.trim_start_matches("item").parse::<usize>().unwrap()])
        .collect();
    assert_eq!(
        compclust::metrics::ari::adjusted_rand_index(&tru, &pred),
        1.0
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(report["k_hat"], 3);
    assert_eq!(report["similarity"], "AddS-3");
    assert!(report["spur"]["table"].as_array().unwrap().len() >= 2);
    assert!(report["sdp"]["iterations"].as_u64().unwrap() > 0);
    assert!(report["timings"]["total_s"].as_f64().unwrap() > 0.0);
    assert_eq!(
        report["cluster_sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>(),
        150
    );
}

/// A file of more than one 16 MB read chunk is clustered from the stream (AddS-3 fed chunk
/// by chunk, the item range growing when an item first appears in a later chunk) exactly as
/// the library clusters the whole file read at once, and the planted partition is recovered.
#[test]
fn a_file_of_several_chunks_streams_into_adds_with_the_same_result() {
    let n = 60;
    let model = PlantedFlat::new(n, 3, Family::NormalNormal, 0.5, 5).unwrap();
    // Sixteen crowds answer 100,000 distinct queries each (of the 102,660 there are).
    let t: Vec<_> = (0..16)
        .flat_map(|seed| sample_triplets(&model, 100_000, 0.75, seed).unwrap())
        .collect();
    // Item 59 only appears after ≈ 23 MB: the second 16 MB chunk adds an item.
    let has_last = |r: &compclust::data::Triplet| r.items().contains(&(n as u32 - 1));
    let (late, early): (Vec<_>, Vec<_>) = t[..1_200_000].iter().partition(|r| has_last(r));
    let mut s = String::from("anchor,near,far\n");
    let mut first_late = 0;
    for (k, r) in early.iter().chain(&late).chain(&t[1_200_000..]).enumerate() {
        if k == early.len() {
            first_late = s.len();
        }
        writeln!(s, "item{},item{},item{}", r.anchor, r.near, r.far).unwrap();
    }
    assert!(
        first_late > 16 << 20,
        "item 59 first appears in the second chunk"
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.csv");
    std::fs::write(&input, &s).unwrap();
    drop(s);
    let out = dir.path().join("labels.csv");
    let rep = dir.path().join("report.json");
    let args = ["cluster", "--input", input.to_str().unwrap(), "--output"];
    let o = compclust(
        &[
            &args[..],
            &[out.to_str().unwrap(), "--report", rep.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let labels = read_labels(&out);

    let data = compclust::data::read_comparisons(&input, &Default::default()).unwrap();
    let fitted = compclust::flat::FlatParams::new().fit(&data, None).unwrap();
    let expected: Vec<(String, usize)> = (0..data.n_items())
        .map(|i| (data.items.label(i).to_string(), fitted.labels[i]))
        .collect();
    assert_eq!(labels, expected);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(report["n_comparisons"], 1_600_000);
    assert_eq!(report["n_items"], n);
    assert_eq!(report["k_hat"], fitted.k_hat);
    let pred: Vec<usize> = labels.iter().map(|(_, c)| *c).collect();
    let tru: Vec<usize> = labels
        .iter()
        .map(|(item, _)| model.labels()[item.trim_start_matches("item").parse::<usize>().unwrap()])
        .collect();
    assert_eq!(
        compclust::metrics::ari::adjusted_rand_index(&tru, &pred),
        1.0
    );
}

/// `--trace-sdp` reports every residual check of every solve on stderr and changes nothing
/// else: the labels are those of the run without it.
#[test]
fn trace_sdp_prints_the_solver_progress_and_keeps_the_labels() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("triplets.csv");
    write_planted(&input);
    let plain = dir.path().join("plain.csv");
    let traced = dir.path().join("traced.csv");
    let args = |out: &Path, trace: bool| {
        let mut a = vec![
            "cluster".to_string(),
            "--input".into(),
            input.to_str().unwrap().into(),
            "--output".into(),
            out.to_str().unwrap().into(),
        ];
        if trace {
            a.push("--trace-sdp".into());
        }
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        compclust(&a)
    };
    let o = run(args(&plain, false));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(args(&traced, true));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(" it=")).collect();
    assert!(lines.iter().any(|l| l.starts_with("SDP-lambda")), "{err}");
    assert!(lines.iter().any(|l| l.starts_with("SDP-k")), "{err}");
    assert!(lines.iter().all(|l| l.contains(" gap=")), "{err}");
    assert_eq!(read_labels(&plain), read_labels(&traced));
}

#[test]
fn known_k_spectral_mulk_headerless_most_central() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("answers.csv");
    // Headerless most-central rows `center,x,y` over six items (two triplets per row).
    let mut s = String::new();
    for (c, p, q) in [
        ("a", "b", "x"),
        ("b", "c", "y"),
        ("c", "a", "z"),
        ("x", "y", "a"),
        ("y", "z", "b"),
        ("z", "x", "c"),
    ] {
        writeln!(s, "{c},{p},{q}").unwrap();
    }
    std::fs::write(&input, s).unwrap();
    let out = dir.path().join("labels.csv");
    let o = compclust(&[
        "cluster",
        "--input",
        input.to_str().unwrap(),
        "--kind",
        "most-central",
        "--n-clusters",
        "2",
        "--partition",
        "spectral",
        "--similarity",
        "mulk",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_labels(&out).len(), 6);
}

#[test]
fn bad_input_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.csv");
    std::fs::write(&input, "anchor,near,far\na,b,c\nb,c\nc,a,b\n").unwrap();
    let out = dir.path().join("labels.csv");
    let o = compclust(&[
        "cluster",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error:"), "{err}");
    assert!(err.contains("bad.csv") && err.contains("line 3"), "{err}");
    assert!(!out.exists());
}

/// `--sdp-tol` reaches every solve: the report names it, each SPUR solve converged to it (no
/// residual above it), and the looser tolerance takes fewer iterations in all. The default
/// two-pass SPUR reports each solve's tolerance and finds the same k̂. A tolerance outside
/// (0, 1) is refused with the flag's name.
#[test]
fn sdp_tol_sets_the_stopping_tolerance_of_every_solve() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("triplets.csv");
    write_planted(&input);
    let run = |extra: &[&str]| -> serde_json::Value {
        let out = dir.path().join("labels.csv");
        let rep = dir.path().join("report.json");
        let mut args = vec![
            "cluster",
            "--input",
            input.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            "--report",
            rep.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = compclust(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap()
    };
    // Every solve meets the tolerance its row reports; `tol` = None: the row's own `tol`.
    let iterations = |rep: &serde_json::Value, tol: Option<f64>| -> u64 {
        let table = rep["spur"]["table"].as_array().unwrap();
        let lambda = rep["spur"]["lambda_rows"].as_array().unwrap();
        let mut total = 0;
        for row in table.iter().chain(lambda) {
            let info = &row["info"];
            assert_eq!(info["converged"], true, "{row}");
            let row_tol = row["tol"].as_f64().unwrap();
            if let Some(t) = tol {
                assert_eq!(row_tol, t, "{row}");
            }
            for r in ["primal_residual", "dual_residual", "gap"] {
                assert!(info[r].as_f64().unwrap() <= row_tol, "{r} of {row}");
            }
            total += info["iterations"].as_u64().unwrap();
        }
        total
    };
    let single = run(&["--spur-refine", "off"]);
    assert_eq!(single["sdp_tol"], 1e-4);
    let loose = run(&["--spur-refine", "off", "--sdp-tol", "1e-3"]);
    assert_eq!(loose["sdp_tol"], 1e-3);
    assert!(iterations(&loose, Some(1e-3)) < iterations(&single, Some(1e-4)));
    // The default two-pass SPUR: the λ solves at 1e-4, each SDP-k at 2e-3 (with the
    // uncertainty it claims; 1e-2 beside a loose θ above the stop) or tightened to 1e-4 (with
    // its loose θ), and the same k̂.
    let two_pass = run(&[]);
    assert_eq!(two_pass["spur"]["refine_tol"], 2e-3);
    assert_eq!(two_pass["k_hat"], single["k_hat"]);
    iterations(&two_pass, None);
    let table = two_pass["spur"]["table"].as_array().unwrap();
    let above_stop = table.iter().any(|r| r["theta"].as_f64().unwrap() > 0.99);
    for row in table {
        let tight = row["tol"] == 1e-4;
        assert_eq!(tight, !row["theta_loose"].is_null(), "{row}");
        assert_eq!(tight, row["theta_uncertainty"] == 0.0, "{row}");
        // A tightened solve was solved loosely first.
        assert!(row["solves"].as_u64().unwrap() > u64::from(tight), "{row}");
        if row["tol"] == 1e-2 {
            assert!(
                above_stop,
                "a probing solve without a θ above the stop: {row}"
            );
        } else if !tight {
            assert_eq!(row["tol"], 2e-3, "{row}");
        }
    }
    // The SDP-λ solves always reach --sdp-tol: SPUR's range of k is their rounded traces.
    for row in two_pass["spur"]["lambda_rows"].as_array().unwrap() {
        assert_eq!(row["tol"], 1e-4, "{row}");
    }
    assert!(two_pass["spur"]["margin"].as_f64().unwrap() >= 0.0);
    for bad in ["0", "1", "-1e-3", "x"] {
        let flag = format!("--sdp-tol={bad}");
        let o = compclust(&["cluster", "--input", "x", "--output", "y", &flag]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--sdp-tol"),
            "{bad}"
        );
    }
    for bad in ["0", "1", "x", "on"] {
        let flag = format!("--spur-refine={bad}");
        let o = compclust(&[
            "cluster",
            "--input",
            input.to_str().unwrap(),
            "--output",
            "unused.csv",
            &flag,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--spur-refine"),
            "{bad}"
        );
    }
}

#[test]
fn bad_options_are_rejected() {
    let o = compclust(&[
        "cluster",
        "--input",
        "x.csv",
        "--output",
        "y.csv",
        "--n-clusters",
        "zero",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = compclust(&[
        "cluster",
        "--input",
        "x.csv",
        "--output",
        "y.csv",
        "--similarity",
        "foo",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = compclust(&[
        "cluster",
        "--input",
        "/nonexistent/x.csv",
        "--output",
        "y.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.csv"));
    let o = compclust(&[
        "cluster", "--input", "x.csv", "--output", "y.csv", "--plot", "p.pdf",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--plot") && e.contains(".svg or .png"), "{e}");
}

#[test]
fn help_documents_the_format_with_an_example() {
    let o = compclust(&["cluster", "--help"]);
    let h = String::from_utf8_lossy(&o.stdout);
    assert!(
        h.contains("anchor,near,far") && h.contains("Example"),
        "{h}"
    );
}

#[test]
fn items_meta_names_the_clusters_members_and_a_bad_one_stops_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("triplets.csv");
    write_planted(&input);
    let meta = dir.path().join("meta.csv");
    let mut m = String::from("item,name\n");
    for i in 0..150 {
        writeln!(m, "item{i},Dish number {i}").unwrap();
    }
    std::fs::write(&meta, m).unwrap();
    let out = dir.path().join("labels.csv");
    let args = |meta: &Path| {
        vec![
            "cluster".to_string(),
            "-i".into(),
            input.display().to_string(),
            "-o".into(),
            out.display().to_string(),
            "--n-clusters".into(),
            "3".into(),
            "--items-meta".into(),
            meta.display().to_string(),
        ]
    };
    let a = args(&meta);
    let o = compclust(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        stdout.matches(": 50 items: Dish number ").count(),
        3,
        "{stdout}"
    );
    std::fs::remove_file(&out).unwrap();
    std::fs::write(&meta, "item,name\nitem1,A\nitem1,B\n").unwrap();
    let a = args(&meta);
    let o = compclust(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("meta.csv") && stderr.contains("line 3") && stderr.contains("item1"),
        "{stderr}"
    );
    assert!(!out.exists(), "a failed run wrote its labels");
}
