//! `compclust eval`: scores on hand-made files, errors naming file/line/field.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .output()
        .expect("run compclust")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn last_line(o: &Output) -> f64 {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8(o.stdout.clone()).unwrap();
    s.lines().last().unwrap().parse().unwrap()
}

#[test]
fn ari_by_hand_and_matched_by_name() {
    let d = tempfile::tempdir().unwrap();
    let t = write(d.path(), "t.csv", "item,cluster\na,0\nb,0\nc,1\nd,1\n");
    // same items in another order: {a,c},{b,d} → ARI = −0.5
    let p = write(d.path(), "p.csv", "item,cluster\nd,7\nc,3\nb,7\na,3\n");
    let o = run(&[
        "eval",
        "ari",
        "--truth",
        t.to_str().unwrap(),
        "--pred",
        p.to_str().unwrap(),
    ]);
    assert!((last_line(&o) + 0.5).abs() < 1e-12);
    let o = run(&[
        "eval",
        "ari",
        "--truth",
        t.to_str().unwrap(),
        "--pred",
        t.to_str().unwrap(),
    ]);
    assert_eq!(last_line(&o), 1.0);
    // unknown item in the prediction: error names file and line
    let bad = write(d.path(), "bad.csv", "item,cluster\na,0\nzz,1\n");
    let o = run(&[
        "eval",
        "ari",
        "--truth",
        t.to_str().unwrap(),
        "--pred",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(
        e.contains("bad.csv") && e.contains("line 3") && e.contains("zz"),
        "{e}"
    );
}

const TRUTH: &str =
    r#"{"items": ["a", "b", "c", "d"], "steps": [[0, 1, 0.0, 2], [2, 3, 0.0, 2], [4, 5, 1.0, 4]]}"#;

#[test]
fn aari_by_hand() {
    let d = tempfile::tempdir().unwrap();
    let t = write(d.path(), "t.json", TRUTH);
    // ((a,c),(b,d)) written with items in another order: leaves d,c,b,a
    let p = write(
        d.path(),
        "p.json",
        r#"{"items": ["d", "c", "b", "a"], "steps": [[1, 3, 0.0, 2], [0, 2, 0.0, 2], [4, 5, 1.0, 4]]}"#,
    );
    let (ts, ps) = (t.to_str().unwrap(), p.to_str().unwrap());
    // default levels from the truth's heights: k = 2 only → ARI = −0.5
    assert!((last_line(&run(&["eval", "aari", "--truth", ts, "--pred", ps])) + 0.5).abs() < 1e-12);
    // k = 2 and 4: (−0.5 + 1)/2
    let o = run(&["eval", "aari", "--truth", ts, "--pred", ps, "--ks", "2,4"]);
    assert!((last_line(&o) - 0.25).abs() < 1e-12);
    let o = run(&["eval", "aari", "--truth", ts, "--pred", ps, "--ks", "5"]);
    assert_eq!(o.status.code(), Some(2));
    let bad = write(
        d.path(),
        "bad.json",
        r#"{"items": ["a", "b"], "steps": [[0, 0, 0.0, 2]]}"#,
    );
    let o = run(&[
        "eval",
        "aari",
        "--truth",
        ts,
        "--pred",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr).unwrap().contains("bad.json"));
}

#[test]
fn dasgupta_by_hand_from_pairs_and_features() {
    let d = tempfile::tempdir().unwrap();
    let t = write(d.path(), "t.json", TRUTH);
    // w(a,b) = 1 (lca size 2), w(a,c) = 2 (lca 4), w(c,d) = 0.5 (lca 2): 2 + 8 + 1 = 11
    let p = write(d.path(), "w.csv", "a,b,w\na,b,1\nc,a,2\nc,d,0.5\n");
    let o = run(&[
        "eval",
        "dasgupta",
        "--dendrogram",
        t.to_str().unwrap(),
        "--similarity",
        p.to_str().unwrap(),
    ]);
    assert!((last_line(&o) - 11.0).abs() < 1e-12);
    // features: a=(0,0), b=(1,0), c=(0,2), d=(0,3); Gaussian γ=1, exp(−‖·‖²)
    let f = write(d.path(), "f.csv", "name,x,y\nd,0,3\nc,0,2\nb,1,0\na,0,0\n");
    let o = run(&[
        "eval",
        "dasgupta",
        "--dendrogram",
        t.to_str().unwrap(),
        "--features",
        f.to_str().unwrap(),
    ]);
    let e = |d2: f64| (-d2).exp();
    // pairs: ab (2), cd (2), ac ad bc bd (4)
    let want = 2.0 * e(1.0) + 2.0 * e(1.0) + 4.0 * (e(4.0) + e(9.0) + e(5.0) + e(10.0));
    assert!((last_line(&o) - want).abs() < 1e-12);
    let bad = write(d.path(), "bad.csv", "a,b,w\na,b,1\na,q,2\n");
    let o = run(&[
        "eval",
        "dasgupta",
        "--dendrogram",
        t.to_str().unwrap(),
        "--similarity",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(
        e.contains("bad.csv, line 3, field `b`") && e.contains("`q`"),
        "{e}"
    );
}

#[test]
fn gram_error_by_hand() {
    let d = tempfile::tempdir().unwrap();
    // A: a{0,1}, b{1}, c{}; gram: aa=2 ab=1 ac=0 bb=1 bc=0 cc=0
    let t = write(d.path(), "t.csv", "item,cluster\na,0\na,1\nb,1\nc,\n");
    // B: a{0}, b{0}, c{0}; gram: all 1
    let p = write(d.path(), "p.csv", "item,cluster\nc,0\nb,0\na,0\n");
    // differing entries: aa (2≠1), ac/ca (0≠1), bc/cb, cc → 1 + 2 + 2 + 1 = 6; ab/ba, bb equal
    let o = run(&[
        "eval",
        "gram",
        "--truth",
        t.to_str().unwrap(),
        "--pred",
        p.to_str().unwrap(),
    ]);
    assert_eq!(last_line(&o), 6.0);
    let o = run(&[
        "eval",
        "gram",
        "--truth",
        t.to_str().unwrap(),
        "--pred",
        t.to_str().unwrap(),
    ]);
    assert_eq!(last_line(&o), 0.0);
}
