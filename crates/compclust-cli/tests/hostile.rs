//! Hostile inputs through every command's input path, run as the binary: each once crashed,
//! exhausted memory, was read differently by two commands, or gave a misleading message.
//! A failure is exit status 2 with one short message naming the file and line; nothing panics.
// Test fixtures are written directly; the CLI itself writes only through output.rs.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

fn compclust(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run compclust")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit status 2, no panic, and a message containing every one of `want`.
fn fails_with(o: &Output, want: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(!e.contains("panicked") && e.len() < 2000, "{e}");
    for w in want {
        assert!(e.contains(w), "`{w}` not in: {e}");
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A list-count count of −2⁶³ (cluster, convert, hierarchy).
#[test]
fn list_count_i64_min() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "in.csv",
        "0,1,2,1\n1,2,3,-9223372036854775808\n2,3,0,1\n",
    );
    for cmd in [
        &[
            "cluster",
            "-i",
            "in.csv",
            "--format",
            "list-count",
            "-o",
            "out.csv",
        ][..],
        &[
            "convert",
            "-i",
            "in.csv",
            "--format",
            "list-count",
            "-o",
            "c.csv",
        ],
        &[
            "hierarchy",
            "--input",
            "in.csv",
            "--format",
            "list-count",
            "--method",
            "4al",
            "--output",
            "h.json",
        ],
    ] {
        fails_with(
            &compclust(cmd, d),
            &["in.csv", "line 2", "larger than 1000000"],
        );
    }
}

/// `convert` with index 4294967295 and `hierarchy` with index 99999 fail at once, before
/// allocating.
#[test]
fn huge_indices_fail_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "c.csv", "0,1,2\n1,2,4294967295\n");
    let o = compclust(
        &[
            "convert",
            "-i",
            "c.csv",
            "--format",
            "list-order",
            "-o",
            "out.csv",
        ],
        d,
    );
    fails_with(&o, &["c.csv", "line 2", "beyond the limit"]);
    write(d, "h.csv", "0,1,2,3\n1,2,3,99999\n");
    let o = compclust(
        &[
            "hierarchy",
            "--input",
            "h.csv",
            "--format",
            "list-order",
            "--method",
            "4al",
            "--output",
            "h.json",
        ],
        d,
    );
    fails_with(&o, &["100000", "beyond the limit", "GB"]);
    assert!(!d.join("h.json").exists());
}

const ITEMS: &str = "a0\na1\na2\na3\n";

/// `overlap --answers` reads what `convert` reads: a BOM, `;` delimiters, quoted fields.
#[test]
fn overlap_answers_use_the_shared_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "items.txt", ITEMS);
    let rows = [
        ("a0", "a1", 1),
        ("a0", "a2", 0),
        ("a0", "a3", 0),
        ("a1", "a2", 0),
        ("a1", "a3", 0),
        ("a2", "a3", 1),
    ];
    let body = |sep: &str, quote: bool| -> String {
        rows.iter()
            .map(|(a, b, x)| {
                if quote {
                    format!("\"{a}\"{sep}\"{b}\"{sep}{x}\n")
                } else {
                    format!("{a}{sep}{b}{sep}{x}\n")
                }
            })
            .collect()
    };
    write(d, "plain.csv", &format!("a,b,answer\n{}", body(",", false)));
    write(
        d,
        "bom.csv",
        &format!("\u{feff}a,b,answer\n{}", body(",", false)),
    );
    write(
        d,
        "semicolon.csv",
        &format!("a;b;answer\n{}", body(";", false)),
    );
    write(d, "quoted.csv", &format!("a,b,answer\n{}", body(",", true)));
    let run = |f: &str| {
        let o = compclust(
            &[
                "overlap",
                "--answers",
                f,
                "--items",
                "items.txt",
                "--method",
                "find-membership",
                "--output",
                "m.csv",
            ],
            d,
        );
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        std::fs::read_to_string(d.join("m.csv")).unwrap()
    };
    let want = run("plain.csv");
    for f in ["bom.csv", "semicolon.csv", "quoted.csv"] {
        assert_eq!(run(f), want, "{f}");
    }
}

/// `convert` rejects the same-cluster answers that `overlap` rejects.
#[test]
fn convert_and_overlap_agree_on_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "items.txt", ITEMS);
    for bad in ["-1", "0.5", "9223372036854775808", "1e300"] {
        write(d, "in.csv", &format!("a,b,answer\na0,a1,{bad}\n"));
        let o = compclust(&["convert", "-i", "in.csv", "-o", "out.csv"], d);
        fails_with(&o, &["in.csv", "line 2", "answer"]);
        let o = compclust(
            &[
                "overlap",
                "--answers",
                "in.csv",
                "--items",
                "items.txt",
                "--method",
                "find-membership",
                "--output",
                "m.csv",
            ],
            d,
        );
        fails_with(&o, &["in.csv", "line 2", "answer"]);
    }
}

/// Non-UTF-8 input names the line, once; a 10 MB line is not echoed.
#[test]
fn messages_are_short_and_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("u.csv"),
        b"anchor,near,far\na,b,c\nb,c,a\nc,\xff\xfeb,a\n",
    )
    .unwrap();
    let o = compclust(&["cluster", "-i", "u.csv", "-o", "out.csv"], d);
    fails_with(&o, &["u.csv", "line 4"]);
    assert_eq!(stderr(&o).matches("not UTF-8").count(), 1, "{}", stderr(&o));
    std::fs::write(d.join("big.csv"), vec![b'x'; 10 << 20]).unwrap();
    let o = compclust(&["cluster", "-i", "big.csv", "-o", "out.csv"], d);
    fails_with(&o, &["big.csv", "line 1", "unrecognised header"]);
}

/// A header repeated mid-file is an error, not three items.
#[test]
fn repeated_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "in.csv",
        "anchor,near,far\na,b,c\nb,a,c\nanchor,near,far\nc,d,a\nd,c,b\n",
    );
    fails_with(
        &compclust(&["cluster", "-i", "in.csv", "-o", "out.csv"], d),
        &["line 4", "header"],
    );
    assert!(!d.join("out.csv").exists());
}

/// A label with a line break is rejected (convert, hierarchy), so it never reaches an items
/// file or a Newick tree.
#[test]
fn newline_in_label() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "in.csv", "anchor,near,far\n\"a\nb\",c,d\nc,\"a\nb\",d\n");
    let o = compclust(
        &[
            "convert",
            "-i",
            "in.csv",
            "-o",
            "idx.csv",
            "--to",
            "list-order",
            "--items-out",
            "items.txt",
        ],
        d,
    );
    fails_with(&o, &["in.csv", "line 2", "line break"]);
    let o = compclust(
        &[
            "hierarchy",
            "--input",
            "in.csv",
            "--method",
            "4al",
            "--output",
            "t.json",
            "--newick",
            "t.nwk",
        ],
        d,
    );
    fails_with(&o, &["line break"]);
    assert!(!d.join("t.nwk").exists());
}

/// Text cluster names are accepted by `eval ari` and `overlap --membership`.
#[test]
fn string_cluster_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "truth.csv",
        "item,cluster\nAlien,Sci-Fi\nHeat,Drama\nSolaris,Sci-Fi\nAmelie,Drama\n",
    );
    write(
        d,
        "pred.csv",
        "item,cluster\nAlien,0\nHeat,1\nSolaris,0\nAmelie,1\n",
    );
    let o = compclust(
        &["eval", "ari", "--truth", "truth.csv", "--pred", "pred.csv"],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains('1'));
    let o = compclust(
        &[
            "overlap",
            "--membership",
            "truth.csv",
            "--method",
            "find-membership",
            "--output",
            "m.csv",
            "--write-truth",
            "t.csv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let t = std::fs::read_to_string(d.join("t.csv")).unwrap();
    assert!(
        t.contains("Alien,Sci-Fi") && t.contains("Heat,Drama"),
        "{t}"
    );
}

/// Misleading wording fixed.
#[test]
fn misleading_messages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "neg.csv", "0,1,2\n1,-1,2\n");
    let o = compclust(
        &[
            "cluster",
            "-i",
            "neg.csv",
            "--format",
            "list-order",
            "-o",
            "o.csv",
        ],
        d,
    );
    fails_with(&o, &["line 2", "`-1` is not an item index"]);
    write(d, "big.csv", "0,1,2\n1,4294967296,2\n");
    let o = compclust(
        &[
            "cluster",
            "-i",
            "big.csv",
            "--format",
            "list-order",
            "-o",
            "o.csv",
        ],
        d,
    );
    fails_with(&o, &["line 2", "beyond the limit"]);
    write(d, "lb.csv", "0,1,2,2\n");
    let o = compclust(
        &[
            "cluster",
            "-i",
            "lb.csv",
            "--format",
            "list-boolean",
            "-o",
            "o.csv",
        ],
        d,
    );
    fails_with(&o, &["line 1", "expected a response true/false"]);
    write(d, "lab.csv", "item,cluster\n");
    let o = compclust(
        &["eval", "ari", "--truth", "lab.csv", "--pred", "lab.csv"],
        d,
    );
    fails_with(&o, &["empty labels file"]);
    write(d, "t.csv", "anchor,near,far\na,b,c\n");
    write(d, "items.txt", "\n");
    let o = compclust(
        &[
            "cluster",
            "-i",
            "t.csv",
            "--items",
            "items.txt",
            "-o",
            "o.csv",
        ],
        d,
    );
    fails_with(&o, &["empty items file"]);
    write(d, "truth.csv", "item,cluster\na,0\nb,1\n");
    write(d, "pred.csv", "item,cluster\na,0\nb,1\nc,1\n");
    let o = compclust(
        &["eval", "ari", "--truth", "truth.csv", "--pred", "pred.csv"],
        d,
    );
    fails_with(&o, &["pred.csv", "line 4", "not in the truth file"]);
    let o = compclust(
        &[
            "cluster",
            "-i",
            "t.csv",
            "-o",
            "o.csv",
            "--sdp-tol",
            "1e300",
        ],
        d,
    );
    fails_with(&o, &["1e300"]);
    assert!(stderr(&o).len() < 400, "{}", stderr(&o));
}

/// A list-count file of a few kB with counts of 10⁶ streams through AddS in bounded batches.
#[test]
fn list_count_memory_bomb_streams() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text: String = (0..12)
        .map(|i| format!("{},{},{},1000000\n", i % 6, (i + 1) % 6, (i + 3) % 6))
        .collect();
    write(d, "in.csv", &text);
    let o = compclust(
        &[
            "cluster",
            "-i",
            "in.csv",
            "--format",
            "list-count",
            "-o",
            "out.csv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A broken study file (found by the command-level fuzz test): the TOML error is one line
/// naming the file and the line, not the parser's multi-line quote of the file with a caret;
/// an items file that differs from the pinned one is said in one short line; nothing is
/// written, and no "study pinned" note is printed by a round that failed.
#[test]
fn study_file_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "items.txt", "ant\nbee\ncat\ndog\n");
    write(d, "answers.csv", "a,b,c,d\n");
    let round = |d: &Path| {
        compclust(
            &[
                "hierarchy",
                "--answers",
                "answers.csv",
                "--items",
                "items.txt",
                "--method",
                "cl",
                "--missing",
                "ask.csv",
                "--study",
                "study.toml",
                "--output",
                "tree.json",
            ],
            d,
        )
    };
    let first = round(d);
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    assert!(stderr(&first).contains("study pinned to study.toml"));
    let pinned = std::fs::read_to_string(d.join("study.toml")).unwrap();
    write(
        d,
        "study.toml",
        &pinned.replace("[parameters]", "[jarameters"),
    );
    let o = round(d);
    fails_with(
        &o,
        &["--study study.toml", "not a compclust study file: line "],
    );
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    write(d, "study.toml", &pinned);
    write(d, "items.txt", "ant\nbee\ncat\ndog\neel\n");
    let o = round(d);
    fails_with(&o, &["--study study.toml", "items.txt", "now 5 items"]);
    assert!(stderr(&o).len() < 400, "{}", stderr(&o));
    // A first round that fails pins nothing and says nothing about pinning.
    std::fs::remove_file(d.join("study.toml")).unwrap();
    write(d, "answers.csv", "a,b,c,d\nant,bee,cat,wolf\n");
    let o = round(d);
    fails_with(&o, &["answers.csv", "line 2"]);
    assert!(!stderr(&o).contains("pinned"), "{}", stderr(&o));
    assert!(!d.join("study.toml").exists());
}

/// A finished round replaces the ASK file of the earlier round by its header alone (exit 0
/// means every output was written): it no longer lists questions already answered.
#[test]
fn finished_rounds_leave_nothing_to_ask() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "items.txt", "ant\nbee\ncat\ndog\n");
    write(
        d,
        "answers.csv",
        "a,b,answer\nant,bee,1\nant,cat,0\nant,dog,0\nbee,cat,0\nbee,dog,0\ncat,dog,1\n",
    );
    write(d, "ask.csv", "a,b\nant,bee\n");
    let o = compclust(
        &[
            "overlap",
            "--answers",
            "answers.csv",
            "--items",
            "items.txt",
            "--method",
            "find-membership",
            "--k",
            "2",
            "--missing",
            "ask.csv",
            "--output",
            "est.csv",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("ask.csv")).unwrap(), "a,b\n");
    let pairs = ["ant", "bee", "cat", "dog"];
    let mut answers = String::from("a,b,c,d\n");
    let same = |x: &str, y: &str| (x < "c") == (y < "c");
    let all: Vec<(&str, &str)> = (0..4)
        .flat_map(|i| (i + 1..4).map(move |j| (pairs[i], pairs[j])))
        .collect();
    for (i, p) in all.iter().enumerate() {
        for q in &all[i + 1..] {
            let (w, l) = if same(q.0, q.1) && !same(p.0, p.1) {
                (q, p)
            } else {
                (p, q)
            };
            answers.push_str(&format!("{},{},{},{}\n", w.0, w.1, l.0, l.1));
        }
    }
    write(d, "hanswers.csv", &answers);
    write(d, "hask.csv", "a,b,c,d\nant,bee,cat,dog\n");
    let o = compclust(
        &[
            "hierarchy",
            "--answers",
            "hanswers.csv",
            "--items",
            "items.txt",
            "--method",
            "cl",
            "--missing",
            "hask.csv",
            "--output",
            "tree.json",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("hask.csv")).unwrap(),
        "a,b,c,d\n"
    );
}

/// `overlap --membership` with a truth that puts no item in any cluster, or on which the
/// method finds no estimate: the message names the membership file (it said "delta = 0" or
/// began with the method's name).
#[test]
fn overlap_truth_problems_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "none.csv", "item,cluster\na,\nb,\nc,\n");
    let args = |truth: &'static str| {
        [
            "overlap",
            "--membership",
            truth,
            "--method",
            "find-similarity",
            "--k",
            "2",
            "--output",
            "est.csv",
        ]
    };
    fails_with(
        &compclust(&args("none.csv"), d),
        &["none.csv", "no item is in any cluster"],
    );
    write(d, "one.csv", "item,cluster\na,0\nb,0\nc,0\nd,0\n");
    fails_with(
        &compclust(&args("one.csv"), d),
        &["one.csv: find-similarity: no estimate"],
    );
    assert!(!d.join("est.csv").exists());
}

/// A file of a few bytes naming item 40000 (within the documented limit of 65,536 items for
/// n × n matrices) asks for tens of GB: `cluster` (both similarities) and `hierarchy` fail at
/// once with the memory it would need and what is available, before allocating it, here under
/// an address-space limit (found by the command-level fuzz test, where such runs
/// aborted on a failed allocation). `convert` needs no n × n matrix and converts it.
#[test]
fn dense_matrices_beyond_the_memory_available_fail_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "big.csv", "0,1,2\n1,2,40000\n2,0,1\n");
    let limited = |args: &[&str]| {
        Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2097152 2>/dev/null; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_compclust"))
            .args(args)
            .current_dir(d)
            .output()
            .unwrap()
    };
    let list = ["--format", "list-order"];
    for (args, memory) in [
        (
            &["cluster", "-i", "big.csv", "-o", "o.csv"][..],
            "GB of memory",
        ),
        (
            &[
                "cluster",
                "-i",
                "big.csv",
                "--similarity",
                "mulk",
                "-o",
                "o.csv",
            ],
            "GB of memory",
        ),
        (
            &[
                "cluster",
                "-i",
                "big.csv",
                "--aggregate",
                "majority",
                "-o",
                "o.csv",
            ],
            "GB of memory",
        ),
        (
            &[
                "hierarchy",
                "--input",
                "big.csv",
                "--method",
                "4al",
                "--output",
                "t.json",
            ],
            "GB of memory",
        ),
    ] {
        let args: Vec<&str> = args.iter().chain(&list).copied().collect();
        // Under the 2 GiB limit whatever the machine (without it, a machine with 30 GB free
        // would run the 25.6 GB hierarchy).
        fails_with(
            &limited(&args),
            &["big.csv", "40001 items", memory, "available"],
        );
    }
    let o = compclust(
        &[
            "convert",
            "-i",
            "big.csv",
            "--format",
            "list-order",
            "-o",
            "c.csv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
