//! `compclust convert` run as a binary on files written into a tempdir.

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn compclust(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run compclust")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn converts_csv_to_cblearn_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.csv"),
        "anchor,near,far\ncat,lion,car\nlion,cat,car\ncat,car,lion\ncat,lion,car\n",
    )
    .unwrap();
    let o = compclust(
        &[
            "convert",
            "--input",
            "t.csv",
            "--output",
            "t.txt",
            "--to",
            "list-order",
            "--items-out",
            "items.txt",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("comparisons: 4\n"), "{s}");
    assert!(s.contains("distinct comparisons: 3\n"), "{s}");
    assert!(s.contains("distinct queries: 2\n"), "{s}");
    assert!(s.contains("contradicted queries: 1\n"), "{s}");
    assert!(s.contains("items: 3\n"), "{s}");
    assert_eq!(
        std::fs::read_to_string(d.join("t.txt")).unwrap(),
        "0,1,2\n1,0,2\n0,2,1\n0,1,2\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("items.txt")).unwrap(),
        "cat\nlion\ncar\n"
    );

    let o = compclust(
        &[
            "convert",
            "-i",
            "t.txt",
            "--format",
            "list-order",
            "--items",
            "items.txt",
            "-o",
            "back.tsv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("back.tsv")).unwrap(),
        "anchor\tnear\tfar\ncat\tlion\tcar\nlion\tcat\tcar\ncat\tcar\tlion\ncat\tlion\tcar\n"
    );
}

#[test]
fn bad_line_3_fails_and_leaves_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("bad.csv"), "anchor,near,far\na,b,c\na,b\nc,b,a\n").unwrap();
    std::fs::write(d.join("out.csv"), "previous").unwrap();
    let o = compclust(&["convert", "--input", "bad.csv", "--output", "out.csv"], d);
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("error:") && e.contains("bad.csv") && e.contains("line 3"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out.csv")).unwrap(),
        "previous"
    );
    assert_eq!(
        std::fs::read_dir(d).unwrap().count(),
        2,
        "no temporary file left behind"
    );

    // Non-numeric answer, unknown item: file, line and field.
    std::fs::write(d.join("s.csv"), "a,b,answer\nx,y,1\nx,z,maybe\n").unwrap();
    let o = compclust(&["convert", "-i", "s.csv", "-o", "s2.csv"], d);
    let e = stderr(&o);
    assert!(e.contains("s.csv, line 3, field `answer`"), "{e}");
    assert!(!d.join("s2.csv").exists());
    std::fs::write(d.join("items.txt"), "a\nb\nc\n").unwrap();
    std::fs::write(d.join("u.csv"), "anchor,near,far\na,b,c\na,zz,c\n").unwrap();
    let o = compclust(
        &[
            "convert",
            "-i",
            "u.csv",
            "--items",
            "items.txt",
            "-o",
            "u2.csv",
        ],
        d,
    );
    let e = stderr(&o);
    assert!(
        e.contains("line 3, field `near`") && e.contains("zz"),
        "{e}"
    );
}

#[test]
fn reports_skipped_undecided_and_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("c.csv"), "0,1,2,2\n1,2,3,0\n2,3,0,-1\n").unwrap();
    let o = compclust(
        &["convert", "-i", "c.csv", "-f", "list-count", "-o", "o.csv"],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("comparisons: 3\n") && s.contains("skipped undecided: 1\n"),
        "{s}"
    );
    std::fs::write(d.join("odd.txt"), "o p q\nq o p\n").unwrap();
    let o = compclust(
        &[
            "convert",
            "-i",
            "odd.txt",
            "--kind",
            "odd-one-out",
            "-o",
            "o.csv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("comparisons: 4\n"));
    assert_eq!(
        std::fs::read_to_string(d.join("o.csv")).unwrap(),
        "anchor,near,far\np,q,o\nq,p,o\no,p,q\np,o,q\n"
    );
    let o = compclust(&["convert", "-i", "odd.txt", "-o", "o.csv"], d);
    assert!(
        stderr(&o).contains("line 1"),
        "headerless without --kind: {}",
        stderr(&o)
    );
    let o = compclust(
        &["convert", "-i", "odd.txt", "--kind", "pairs", "-o", "o.csv"],
        d,
    );
    assert!(!o.status.success());
}

#[test]
fn help_documents_every_format() {
    let o = compclust(&["convert", "--help"], Path::new("."));
    assert!(o.status.success());
    let s = stdout(&o);
    for f in [
        "anchor,near,far",
        "a,b,c,d",
        "center,x,y",
        "odd,x,y",
        "a,b,answer",
        "list-order",
        "list-boolean",
        "list-count",
        "salmon",
        "car-survey",
        "car-ordinal",
        "food-json",
        "tsv",
        "EXAMPLES",
    ] {
        assert!(s.contains(f), "--help lacks {f}");
    }
}

fn data_dir() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    if p.exists() {
        Some(p)
    } else {
        println!("skipping: {} not found", p.display());
        None
    }
}

#[test]
fn real_car_survey_and_food() {
    let Some(data) = data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let car = data.join("car/survey_data.csv");
    let o = compclust(
        &["convert", "-i", car.to_str().unwrap(), "-o", "car.csv"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("7097 records")
            && s.contains("comparisons: 14194\n")
            && s.contains("items: 60\n"),
        "{s}"
    );
    let food = data.join("food/raw-json");
    let o = compclust(
        &["convert", "-i", food.to_str().unwrap(), "-o", "food.csv"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("comparisons: 250320\n"), "{s}");
    assert!(s.contains("distinct comparisons: 190376\n"), "{s}");
    assert!(s.contains("items: 100\n"), "{s}");
}
