//! Outputs, exit statuses and I/O messages: the reproductions of the hostile inputs D08
//! (doubled or wrong I/O messages), D11 (an output equal to an input), D12 (a failed run
//! replaced earlier outputs), D16 (`eval dasgupta` printed NaN / inf with exit 0) and D17 (a
//! failed overlap factorisation exited 0 with every item in no cluster), each as a test.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TRIPLETS: &str = "anchor,near,far\na,b,c\nb,a,c\nc,d,a\nd,c,b\n";

fn compclust(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every file of `dir` (hidden ones included) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            m.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    m
}

/// A folder with `in.csv` (four triplets) and the earlier outputs `names`, each holding
/// `earlier <name>`.
fn folder_with(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.csv"), TRIPLETS).unwrap();
    for n in names {
        std::fs::write(dir.path().join(n), format!("earlier {n}")).unwrap();
    }
    dir
}

/// Run `args` in a folder with earlier outputs `names`; it must fail with status 2 and leave
/// every file of the folder byte-identical (no temporary file left either). Returns stderr.
fn fails_and_leaves_outputs(names: &[&str], args: &[&str]) -> String {
    let dir = folder_with(names);
    let before = snapshot(dir.path());
    let o = compclust(dir.path(), args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert_eq!(snapshot(dir.path()), before, "{args:?} changed the folder");
    stderr(&o)
}

/// One line, no `(os error N)`, no reason said twice.
fn one_clear_sentence(err: &str, reason: &str) {
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert_eq!(err.matches(reason).count(), 1, "{err}");
}

// ---- D08: I/O messages ----

#[test]
fn d08_missing_input_names_path_and_reason_once() {
    let dir = folder_with(&[]);
    let o = compclust(
        dir.path(),
        &["cluster", "-i", "missing.csv", "-o", "out.csv"],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("missing.csv"), "{e}");
    one_clear_sentence(&e, "No such file or directory");
    assert!(!dir.path().join("out.csv").exists());
}

#[test]
fn d08_output_in_a_missing_folder_is_refused_before_any_work() {
    for cmd in ["cluster", "convert"] {
        let e = fails_and_leaves_outputs(&[], &[cmd, "-i", "in.csv", "-o", "nowhere/out.csv"]);
        assert!(e.contains("nowhere"), "{e}");
        one_clear_sentence(&e, "No such file or directory");
        // refused before reading: no "k̂" line or conversion summary was printed
    }
}

#[test]
fn d08_output_that_is_a_folder_says_so() {
    for cmd in ["cluster", "convert"] {
        let e = fails_and_leaves_outputs(&[], &[cmd, "-i", "in.csv", "-o", "."]);
        assert!(e.contains("is a folder"), "{cmd}: {e}");
        assert!(!e.contains("busy"), "{e}");
    }
}

#[test]
fn d08_input_that_is_a_folder_says_so() {
    for cmd in ["cluster", "convert"] {
        let e = fails_and_leaves_outputs(&[], &[cmd, "-i", ".", "-o", "out.csv"]);
        assert!(e.contains("is a folder"), "{cmd}: {e}");
        assert!(!e.contains("no comparisons found"), "{e}");
    }
    let e = fails_and_leaves_outputs(
        &[],
        &["cluster", "-i", "in.csv", "--items", ".", "-o", "out.csv"],
    );
    assert!(
        e.contains("--items . : is a folder") || e.contains("--items .: is a folder"),
        "{e}"
    );
}

// ---- D11: an output equal to an input ----

#[test]
fn d11_output_equal_to_input_is_refused() {
    let e = fails_and_leaves_outputs(&[], &["cluster", "-i", "in.csv", "-o", "in.csv"]);
    assert!(e.contains("is also the input --input"), "{e}");
    // the same file under another name
    fails_and_leaves_outputs(&[], &["cluster", "-i", "in.csv", "-o", "./in.csv"]);
    fails_and_leaves_outputs(&[], &["convert", "-i", "in.csv", "-o", "in.csv"]);
    fails_and_leaves_outputs(
        &[],
        &[
            "convert",
            "-i",
            "in.csv",
            "-o",
            "x.csv",
            "--items-out",
            "in.csv",
        ],
    );
    fails_and_leaves_outputs(
        &[],
        &[
            "hierarchy",
            "--input",
            "in.csv",
            "--method",
            "4al",
            "--output",
            "t.json",
            "--newick",
            "in.csv",
        ],
    );
    fails_and_leaves_outputs(
        &[],
        &[
            "cluster", "-i", "in.csv", "-o", "l.csv", "--report", "in.csv",
        ],
    );
}

#[cfg(unix)]
#[test]
fn d11_a_link_to_the_input_is_the_input() {
    let dir = folder_with(&[]);
    std::fs::hard_link(dir.path().join("in.csv"), dir.path().join("hard.csv")).unwrap();
    std::os::unix::fs::symlink("in.csv", dir.path().join("soft.csv")).unwrap();
    for out in ["hard.csv", "soft.csv"] {
        let o = compclust(dir.path(), &["cluster", "-i", "in.csv", "-o", out]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("in.csv")).unwrap(),
            TRIPLETS
        );
    }
}

#[test]
fn two_outputs_naming_one_file_are_refused() {
    let e = fails_and_leaves_outputs(
        &["l.csv"],
        &[
            "cluster", "-i", "in.csv", "-o", "l.csv", "--report", "l.csv",
        ],
    );
    assert!(e.contains("is also the output"), "{e}");
}

// ---- D12: a failed run leaves every earlier output alone ----

#[test]
fn d12_hierarchy_cut_larger_than_n_replaces_nothing() {
    let e = fails_and_leaves_outputs(
        &["tree.json", "tree.nwk", "l.csv"],
        &[
            "hierarchy",
            "--input",
            "in.csv",
            "--method",
            "4al",
            "--output",
            "tree.json",
            "--newick",
            "tree.nwk",
            "--cut",
            "50",
            "--labels",
            "l.csv",
        ],
    );
    assert!(e.contains("--cut 50"), "{e}");
}

#[test]
fn d12_hierarchy_bad_plot_extension_is_refused_before_any_work() {
    let dir = folder_with(&["tree.json"]);
    let before = snapshot(dir.path());
    let o = compclust(
        dir.path(),
        &[
            "hierarchy",
            "--input",
            "in.csv",
            "--method",
            "4al",
            "--output",
            "tree.json",
            "--plot",
            "tree.bmp",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(".svg or .png"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "it ran: {}", stdout(&o));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn d12_unwritable_second_output_replaces_nothing() {
    // A file standing where a folder is expected: the output cannot be written, by anyone.
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["tree.json", "tree.nwk"],
            &[
                "hierarchy",
                "--input",
                "in.csv",
                "--method",
                "4al",
                "--output",
                "tree.json",
                "--newick",
                "tree.nwk",
                "--cut",
                "2",
                "--labels",
                "in.csv/l.csv",
            ],
        ),
        (
            &["labels.csv"],
            &[
                "cluster",
                "-i",
                "in.csv",
                "-o",
                "labels.csv",
                "--report",
                "in.csv/r.json",
            ],
        ),
        (
            &["conv.csv"],
            &[
                "convert",
                "-i",
                "in.csv",
                "-o",
                "conv.csv",
                "--items-out",
                "in.csv/items.txt",
            ],
        ),
    ];
    for (names, args) in cases {
        let e = fails_and_leaves_outputs(names, args);
        assert!(e.contains("in.csv is not a folder"), "{args:?}: {e}");
    }
}

#[test]
fn d12_overlap_unwritable_report_replaces_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    std::fs::write(p("items.txt"), "x\ny\nz\n").unwrap();
    std::fs::write(p("answers.csv"), "a,b,answer\nx,y,1\nx,z,0\ny,z,0\n").unwrap();
    std::fs::write(p("e.csv"), "earlier").unwrap();
    let before = snapshot(dir.path());
    let o = compclust(
        dir.path(),
        &[
            "overlap",
            "--method",
            "clique-cover",
            "--answers",
            "answers.csv",
            "--items",
            "items.txt",
            "--output",
            "e.csv",
            "--report",
            "items.txt/r.json",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_failing_run_after_a_good_one_leaves_its_outputs_byte_identical() {
    let dir = folder_with(&[]);
    let args = |cut: &str| {
        vec![
            "hierarchy".to_string(),
            "--input".into(),
            "in.csv".into(),
            "--method".into(),
            "4al".into(),
            "--output".into(),
            "tree.json".into(),
            "--newick".into(),
            "tree.nwk".into(),
            "--plot".into(),
            "tree.svg".into(),
            "--cut".into(),
            cut.into(),
            "--labels".into(),
            "l.csv".into(),
        ]
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        compclust(dir.path(), &a)
    };
    let o = run(args("2"));
    assert!(o.status.success(), "{}", stderr(&o));
    let good = snapshot(dir.path());
    assert_eq!(good.len(), 5, "{:?}", good.keys());
    let o = run(args("9"));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(snapshot(dir.path()), good);
}

#[test]
fn simulate_into_a_file_is_refused_and_a_new_folder_appears_only_on_success() {
    let dir = folder_with(&[]);
    let o = compclust(
        dir.path(),
        &[
            "simulate",
            "planted",
            "--n",
            "30",
            "--k",
            "2",
            "--triplets",
            "200",
            "--out",
            "in.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a folder"), "{}", stderr(&o));
    let o = compclust(
        dir.path(),
        &[
            "simulate",
            "planted",
            "--n",
            "30",
            "--k",
            "2",
            "--triplets",
            "200",
            "--out",
            "a/b",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<_> = std::fs::read_dir(dir.path().join("a/b"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

// ---- D16: eval never prints NaN or inf ----

fn tree10() -> String {
    let items: Vec<String> = (0..10).map(|i| format!("\"a{i}\"")).collect();
    format!(
        "{{\"items\": [{}], \"steps\": [[0, 1, 0.1, 2], [10, 2, 0.2, 3], [11, 3, 0.3, 4], \
         [12, 4, 0.4, 5], [5, 6, 0.1, 2], [14, 7, 0.2, 3], [15, 8, 0.3, 4], [16, 9, 0.4, 5], \
         [13, 17, 1.0, 10]]}}",
        items.join(", ")
    )
}

#[test]
fn d16_dasgupta_with_huge_features_is_an_error_not_nan() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tree.json"), tree10()).unwrap();
    let mut f = String::from("name,f1,f2\n");
    for i in 0..10 {
        f.push_str(&format!("a{i},1e308,-1e308\n"));
    }
    std::fs::write(dir.path().join("feat.csv"), f).unwrap();
    let run = |kernel: &str| {
        compclust(
            dir.path(),
            &[
                "eval",
                "dasgupta",
                "--dendrogram",
                "tree.json",
                "--features",
                "feat.csv",
                "--kernel",
                kernel,
            ],
        )
    };
    let o = run("cosine");
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
    assert!(err.contains("feat.csv") && err.contains("a0"), "{err}");
    // the gaussian kernel of equal rows is 1 for every pair: finite, Σ_{i<j} |lca(i,j)|
    let o = run("gaussian");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: f64 = stdout(&o).lines().last().unwrap().parse().unwrap();
    assert!(v.is_finite() && v > 0.0, "{v}");
}

#[test]
fn d16_dasgupta_with_huge_weights_is_an_error_not_inf() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tree.json"), tree10()).unwrap();
    std::fs::write(
        dir.path().join("pairs.csv"),
        "a,b,w\na0,a1,1e308\na0,a2,1e308\na3,a4,1e308\n",
    )
    .unwrap();
    let o = compclust(
        dir.path(),
        &[
            "eval",
            "dasgupta",
            "--dendrogram",
            "tree.json",
            "--similarity",
            "pairs.csv",
        ],
    );
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(!out.contains("inf"), "{out}");
    assert!(err.contains("pairs.csv"), "{err}");
}

#[test]
fn dasgupta_with_ordinary_weights_still_works() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tree.json"), tree10()).unwrap();
    std::fs::write(dir.path().join("pairs.csv"), "a,b,w\na0,a1,2\na0,a9,1\n").unwrap();
    let o = compclust(
        dir.path(),
        &[
            "eval",
            "dasgupta",
            "--dendrogram",
            "tree.json",
            "--similarity",
            "pairs.csv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // a0, a1 meet in a cluster of 2; a0, a9 only at the root (10 items)
    assert_eq!(stdout(&o).lines().last(), Some("14"));
}

// ---- D17: a failed overlap factorisation ----

#[test]
fn d17_failed_factorisation_is_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    std::fs::write(p("items.txt"), "a0\na1\na2\na3\n").unwrap();
    std::fs::write(
        p("answers.csv"),
        "a,b,answer\na0,a1,1\na0,a2,0\na0,a3,0\na1,a2,1\na1,a3,0\na2,a3,1\n",
    )
    .unwrap();
    std::fs::write(p("m.csv"), "earlier").unwrap();
    let before = snapshot(dir.path());
    let o = compclust(
        dir.path(),
        &[
            "overlap",
            "--answers",
            "answers.csv",
            "--items",
            "items.txt",
            "--method",
            "find-similarity",
            "--k",
            "2",
            "--delta",
            "1",
            "--output",
            "m.csv",
            "--report",
            "r.json",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no estimate") && err.contains("factorisation"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn exit_statuses_are_documented_in_help() {
    let dir = tempfile::tempdir().unwrap();
    let o = compclust(dir.path(), &["--help"]);
    let h = stdout(&o);
    assert!(h.contains("EXIT STATUS"), "{h}");
    for code in ["0 ", "2 ", "3 ", "4 "] {
        assert!(h.contains(&format!("  {code}")), "{code}: {h}");
    }
}
