//! `compclust overlap` end to end: simulation mode, crowd rounds on collected answers with a
//! distinct exit status for missing answers, sweeps, and error messages.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

use compclust::metrics::gram::gram_error;
use compclust::overlap::Membership;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Parse `item,cluster` with numbered items "0".."n-1".
fn read(path: &Path, n: usize) -> Membership {
    let text = std::fs::read_to_string(path).unwrap();
    let mut names: Vec<String> = Vec::new();
    let mut rows = vec![Vec::new(); n];
    for line in text.lines().skip(1) {
        let (i, c) = line.split_once(',').unwrap();
        if c.is_empty() {
            continue;
        }
        let ci = match names.iter().position(|x| x == c) {
            Some(p) => p,
            None => {
                names.push(c.to_string());
                names.len() - 1
            }
        };
        rows[i.parse::<usize>().unwrap()].push(ci as u32);
    }
    Membership::new(names.len(), rows)
}

#[test]
fn simulated_direct_find_similarity_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (truth, est, rep) = (
        dir.path().join("t.csv"),
        dir.path().join("e.csv"),
        dir.path().join("r.json"),
    );
    let out = bin()
        .args([
            "overlap",
            "--planted",
            "uniform:400:6:2",
            "--seed",
            "3",
            "--method",
            "find-similarity",
        ])
        .arg("--write-truth")
        .arg(&truth)
        .arg("--output")
        .arg(&est)
        .arg("--report")
        .arg(&rep)
        .output()
        .unwrap();
    ok(&out);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(r["gram_error"], 0);
    assert_eq!(r["stop"]["kind"], "completed");
    assert_eq!(r["exact_up_to_permutation"], true);
    assert!(r["queries"].as_u64().unwrap() < 400 * 399 / 2);
    assert_eq!(gram_error(&read(&truth, 400), &read(&est, 400)).unwrap(), 0);

    // the same truth from the file, quantized oracle, clique cover
    let out = bin()
        .args([
            "overlap",
            "--oracle",
            "quantized",
            "--method",
            "clique-cover",
            "--sample-size",
            "80",
        ])
        .arg("--membership")
        .arg(&truth)
        .arg("--output")
        .arg(&est)
        .arg("--report")
        .arg(&rep)
        .output()
        .unwrap();
    ok(&out);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(r["gram_error"], 0, "{r}");
}

#[test]
fn collected_answers_in_rounds_with_exit_status_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    // truth: 200 items, uniform k = 5, Δ = 2
    let out = bin()
        .args([
            "overlap",
            "--planted",
            "uniform:200:5:2",
            "--seed",
            "1",
            "--method",
            "find-similarity",
        ])
        .arg("--write-truth")
        .arg(p("truth.csv"))
        .arg("--output")
        .arg(p("ignored.csv"))
        .output()
        .unwrap();
    ok(&out);
    let truth = read(&p("truth.csv"), 200);
    std::fs::write(
        p("items.txt"),
        (0..200).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    std::fs::write(p("answers.csv"), "a,b,answer\n").unwrap();
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds <= 4, "too many rounds");
        let out = bin()
            .args([
                "overlap",
                "--method",
                "find-similarity",
                "--k",
                "5",
                "--delta",
                "2",
                "--sample-size",
                "30",
            ])
            .arg("--answers")
            .arg(p("answers.csv"))
            .arg("--items")
            .arg(p("items.txt"))
            .arg("--output")
            .arg(p("est.csv"))
            .arg("--missing")
            .arg(p("missing.csv"))
            .output()
            .unwrap();
        if out.status.code() == Some(3) {
            let missing = std::fs::read_to_string(p("missing.csv")).unwrap();
            let mut answers = std::fs::read_to_string(p("answers.csv")).unwrap();
            assert!(missing.starts_with("a,b\n"));
            for line in missing.lines().skip(1) {
                let (a, b) = line.split_once(',').unwrap();
                let s = truth.shared(a.parse().unwrap(), b.parse().unwrap());
                answers.push_str(&format!("{a},{b},{s}\n"));
            }
            std::fs::write(p("answers.csv"), answers).unwrap();
            continue;
        }
        ok(&out);
        break;
    }
    assert_eq!(rounds, 3);
    assert_eq!(gram_error(&truth, &read(&p("est.csv"), 200)).unwrap(), 0);
}

#[test]
fn bad_answer_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    std::fs::write(p("items.txt"), "x\ny\nz\n").unwrap();
    std::fs::write(p("answers.csv"), "a,b,answer\nx,y,1\nx,z,maybe\n").unwrap();
    let out = bin()
        .args(["overlap", "--method", "clique-cover"])
        .arg("--answers")
        .arg(p("answers.csv"))
        .arg("--items")
        .arg(p("items.txt"))
        .arg("--output")
        .arg(p("e.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("answers.csv, line 3")
            && err.contains("field `answer`")
            && err.contains("maybe"),
        "{err}"
    );

    std::fs::write(p("answers.csv"), "a,b,answer\nx,w,1\n").unwrap();
    let out = bin()
        .args(["overlap", "--method", "clique-cover"])
        .arg("--answers")
        .arg(p("answers.csv"))
        .arg("--items")
        .arg(p("items.txt"))
        .arg("--output")
        .arg(p("e.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("answers.csv, line 2") && err.contains("unknown item `w`"),
        "{err}"
    );
}

#[test]
fn sweep_writes_curve_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    let out = bin()
        .args([
            "overlap",
            "--planted",
            "movielens-like",
            "--oracle",
            "quantized",
            "--method",
            "clique-cover",
        ])
        .args(["--sweep", "20,60", "--trials", "2"])
        .arg("--curve")
        .arg(p("c.csv"))
        .arg("--plot")
        .arg(p("c.svg"))
        .output()
        .unwrap();
    ok(&out);
    let csv = std::fs::read_to_string(p("c.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5);
    assert!(
        std::fs::read_to_string(p("c.svg"))
            .unwrap()
            .contains("<svg")
    );
}

#[test]
fn help_documents_formats_and_exit_status() {
    let out = bin().args(["overlap", "--help"]).output().unwrap();
    ok(&out);
    let h = String::from_utf8_lossy(&out.stdout);
    assert!(h.contains("item,cluster") && h.contains("a,b,answer") && h.contains("EXIT STATUS"));
    assert!(h.contains("--ensemble") && h.contains("Alg. 9"));
}

#[test]
fn triangle_count_iid_ensemble_runs_alg9() {
    let dir = tempfile::tempdir().unwrap();
    let (est, rep) = (dir.path().join("e.csv"), dir.path().join("r.json"));
    let out = bin()
        .args([
            "overlap",
            "--planted",
            "iid:800:6:0.3",
            "--seed",
            "4",
            "--oracle",
            "quantized",
            "--flip-prob",
            "0.05",
            "--method",
            "triangle-count",
            "--ensemble",
            "iid:0.3",
            "--sample-size",
            "400",
        ])
        .arg("--output")
        .arg(&est)
        .arg("--report")
        .arg(&rep)
        .output()
        .unwrap();
    ok(&out);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    // Alg. 9 reports the membership probability it used
    assert_eq!(r["p_used"], 0.3, "{r}");
    assert_eq!(r["stop"]["kind"], "completed", "{r}");
    assert_eq!(r["gram_error"], 0, "{r}");

    // Alg. 9 needs a known q: a clear error, exit status 2
    let out = bin()
        .args([
            "overlap",
            "--planted",
            "iid:100:6:0.3",
            "--oracle",
            "quantized",
            "--method",
            "triangle-count",
            "--ensemble",
            "iid",
            "--unknown-q",
        ])
        .arg("--output")
        .arg(&est)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("iid ensemble"), "{err}");

    let out = bin()
        .args([
            "overlap",
            "--planted",
            "iid:100:6:0.3",
            "--method",
            "triangle-count",
            "--ensemble",
            "normal",
        ])
        .arg("--output")
        .arg(&est)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown ensemble"));
}

#[test]
fn single_run_summarises_and_draws_the_membership_beside_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    let meta = p("meta.json");
    let names: serde_json::Map<String, serde_json::Value> = (0..30)
        .map(|i| {
            (
                i.to_string(),
                serde_json::json!({ "name": format!("film {i}") }),
            )
        })
        .collect();
    std::fs::write(&meta, serde_json::Value::Object(names).to_string()).unwrap();
    let out = bin()
        .args(["overlap", "--planted", "uniform:30:3:1", "--method"])
        .args(["clique-cover", "--output"])
        .arg(p("est.csv"))
        .arg("--plot")
        .arg(p("m.svg"))
        .arg("--items-meta")
        .arg(&meta)
        .output()
        .unwrap();
    ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("items: film ").count(), 3, "{stdout}");
    assert!(
        stdout.contains("items in no cluster: 0, in one: 30, in two or more: 0"),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(p("m.svg")).unwrap();
    assert!(
        svg.contains("estimate") && svg.contains("truth") && svg.contains("film 0"),
        "{}",
        &svg[..svg.len().min(400)]
    );
}
