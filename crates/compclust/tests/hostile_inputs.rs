//! Regression tests for the hostile inputs that once broke the readers (panics, memory
//! blow-ups, readers that disagreed, misleading messages). Each test builds its tiny input
//! in place and names the behaviour it pins.

use std::path::Path;

use compclust::data::{
    Batch, ComparisonKind, Comparisons, DataError, InputFormat, ItemIndex, ReadOptions,
    read_comparisons, read_comparisons_from, read_items, read_labels, read_labels_named,
    read_membership_named, stream_comparisons, write_membership_named,
};

fn opts(format: InputFormat) -> ReadOptions {
    ReadOptions {
        format: Some(format),
        ..ReadOptions::default()
    }
}

fn err(text: &[u8], o: &ReadOptions) -> String {
    read_comparisons_from(text, "in.csv", o)
        .expect_err("must be rejected")
        .to_string()
}

fn file(dir: &Path, name: &str, text: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A list-count count of −2⁶³ is an error, not a "capacity overflow" panic.
#[test]
fn list_count_i64_min_is_rejected() {
    let e = err(
        b"0,1,2,1\n1,2,3,-9223372036854775808\n2,3,0,1\n",
        &opts(InputFormat::ListCount),
    );
    assert!(
        e.contains("line 2") && e.contains("larger than 1000000"),
        "{e}"
    );
}

/// An index of 4,294,967,295 is refused before an item table of that size is built.
#[test]
fn huge_item_index_is_refused_before_allocating() {
    let e = err(b"0,1,2\n1,2,4294967295\n", &opts(InputFormat::ListOrder));
    assert!(
        e.contains("line 2") && e.contains("beyond the limit"),
        "{e}"
    );
    let e = err(b"0,1,2\n1,4294967296,2\n", &opts(InputFormat::ListOrder));
    assert!(
        e.contains("beyond the limit") && !e.contains("not a number"),
        "{e}"
    );
    let e = err(b"0,1,2\n1,-1,2\n", &opts(InputFormat::ListOrder));
    assert!(e.contains("`-1` is not an item index"), "{e}");
}

/// A hierarchy over 100,000 items (one index 99999) is refused with the memory it would need,
/// before any n × n matrix is allocated.
#[test]
fn hierarchy_checks_n_before_the_dense_allocation() {
    let d = read_comparisons_from(
        &b"0,1,2,3\n1,2,3,99999\n"[..],
        "in.csv",
        &opts(InputFormat::ListOrder),
    )
    .unwrap();
    assert_eq!(d.n_items(), 100_000);
    let e = compclust::hierarchy::four_al(d.n_items(), &d.comparisons).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("100000 items") && msg.contains("GB"), "{msg}");
    assert!(compclust::limits::check_dense(compclust::limits::MAX_DENSE_ITEMS, 1).is_ok());
}

/// Same-cluster answers follow one rule everywhere: −1, 0.5, 1e300 and 2⁶³ are rejected.
#[test]
fn same_cluster_answers_are_validated_in_one_place() {
    for bad in ["-1", "0.5", "1e300", "9223372036854775808", "NaN", "65"] {
        let text = format!("a,b,answer\na0,a1,{bad}\n");
        let e = err(text.as_bytes(), &ReadOptions::default());
        assert!(
            e.contains("line 2") && e.contains("field `answer`") && e.contains("shared clusters"),
            "{bad}: {e}"
        );
    }
    let d = read_comparisons_from(
        &b"a,b,answer\na0,a1,2\na0,a2,no\na1,a2,yes\n"[..],
        "in.csv",
        &ReadOptions::default(),
    )
    .unwrap();
    let Comparisons::SameCluster(rows) = d.comparisons else {
        panic!("same-cluster")
    };
    let answers: Vec<f64> = rows.iter().map(|r| r.answer).collect();
    assert_eq!(answers, [2.0, 0.0, 1.0]);
}

/// The same-cluster reader accepts what the CSV reader accepts everywhere: a BOM, `;` and tab
/// delimiters, quoted fields.
#[test]
fn same_cluster_dialects_read_alike() {
    let items = ItemIndex::fixed(["a0", "a1", "a2"]).unwrap();
    let o = ReadOptions {
        kind: Some(ComparisonKind::SameCluster),
        items: Some(items),
        ..ReadOptions::default()
    };
    let plain = read_comparisons_from(&b"a,b,answer\na0,a1,1\na0,a2,0\n"[..], "c.csv", &o).unwrap();
    for text in [
        "\u{feff}a,b,answer\na0,a1,1\na0,a2,0\n",
        "a;b;answer\na0;a1;1\na0;a2;0\n",
        "a\tb\tanswer\na0\ta1\t1\na0\ta2\t0\n",
        "a,b,answer\n\"a0\",\"a1\",1\na0,a2,0\n",
    ] {
        let d = read_comparisons_from(text.as_bytes(), "c.csv", &o).unwrap();
        assert_eq!(d, plain, "{text:?}");
    }
}

/// Non-UTF-8 input names the line, and says so once.
#[test]
fn non_utf8_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(
        dir.path(),
        "in.csv",
        b"anchor,near,far\na,b,c\nb,c,a\nc,\xff\xfeb,a\n",
    );
    let e = read_comparisons(&p, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4") && e.contains("in.csv"), "{e}");
    assert_eq!(e.matches("not UTF-8").count(), 1, "{e}");
    let e = err(b"anchor,near,far\n\xff,b,c\n", &ReadOptions::default());
    assert!(e.contains("line 2"), "{e}");
}

/// A 10 MB line is quoted with at most about 80 characters.
#[test]
fn long_lines_are_quoted_short() {
    let big = vec![b'x'; 10 << 20];
    let e = err(&big, &ReadOptions::default());
    assert!(e.len() < 600, "{} bytes", e.len());
    assert!(e.contains("more characters"), "{e}");
    let mut row = b"anchor,near,far\na,b,".to_vec();
    row.extend(vec![b'y'; 1 << 20]);
    row.extend(b",d\n");
    let e = err(&row, &ReadOptions::default());
    assert!(e.len() < 600, "{} bytes", e.len());
}

/// A header repeated mid-file (concatenated files) is an error, not items `anchor`, `near`,
/// `far`.
#[test]
fn repeated_header_is_an_error() {
    let e = err(
        b"anchor,near,far\na,b,c\nb,a,c\nanchor,near,far\nc,d,a\nd,c,b\n",
        &ReadOptions::default(),
    );
    assert!(e.contains("line 4") && e.contains("header"), "{e}");
}

/// A label with a line break is rejected by every reader that could take it (so items
/// files, Newick and round trips never see one).
#[test]
fn labels_with_line_breaks_are_rejected() {
    let e = err(
        b"anchor,near,far\n\"a\nb\",c,d\nc,\"a\nb\",d\n",
        &ReadOptions::default(),
    );
    assert!(e.contains("line break") && e.contains("line 2"), "{e}");
    assert!(ItemIndex::fixed(["a\rb"]).is_err());
    let e = err(b"a,b,answer\n\"x\ry\",z,1\n", &ReadOptions::default());
    assert!(e.contains("line break"), "{e}");
}

/// Cluster names may be any text; the names come back when written.
#[test]
fn cluster_names_are_any_text() {
    let dir = tempfile::tempdir().unwrap();
    let truth = file(
        dir.path(),
        "truth.csv",
        b"item,cluster\nAlien,Sci-Fi\nHeat,Drama\nSolaris,Sci-Fi\nAmelie,Drama\n",
    );
    let (items, labels, names) = read_labels_named(&truth, None).unwrap();
    assert_eq!(labels, [0, 1, 0, 1]);
    assert_eq!(names.names(), ["Sci-Fi", "Drama"]);
    let pred = file(
        dir.path(),
        "pred.csv",
        b"item,cluster\nAlien,0\nHeat,1\nSolaris,0\nAmelie,1\n",
    );
    let (_, p) = read_labels(&pred, Some(&items)).unwrap();
    assert_eq!(
        compclust::metrics::ari::adjusted_rand_index(&labels, &p),
        1.0
    );
    let (items, m, names) = read_membership_named(&truth, None).unwrap();
    let out = dir.path().join("out.csv");
    write_membership_named(&out, &items, &m, &names).unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&truth).unwrap()
    );
    // Numbered clusters keep their numbers.
    let (_, l) = read_labels(
        &file(dir.path(), "n.csv", b"item,cluster\na,3\nb,1\n"),
        None,
    )
    .unwrap();
    assert_eq!(l, [3, 1]);
}

/// Messages say what is wrong: empty labels and items files, list-boolean responses,
/// repeated items of a list, unknown items of a second labels file.
#[test]
fn messages_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let e = read_labels(&file(dir.path(), "lab.csv", b"item,cluster\n"), None).unwrap_err();
    assert!(e.to_string().contains("empty labels file"), "{e}");
    let e = read_items(&file(dir.path(), "items.txt", b"\n")).unwrap_err();
    assert!(e.to_string().contains("empty items file"), "{e}");
    let e = err(b"0,1,2,2\n", &opts(InputFormat::ListBoolean));
    assert!(e.contains("expected a response true/false"), "{e}");
    let e = ItemIndex::fixed(["a", "b", "a"]).unwrap_err().to_string();
    assert!(e.contains("listed twice") && e.contains("entry 3"), "{e}");
    let truth = file(dir.path(), "truth.csv", b"item,cluster\na,0\nb,1\n");
    let pred = file(dir.path(), "pred.csv", b"item,cluster\na,0\nb,1\nc,1\n");
    let (items, _) = read_labels(&truth, None).unwrap();
    let e = read_labels(&pred, Some(&items))
        .map_err(|e| e.unknown_within("the truth file truth.csv"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not in the truth file truth.csv"), "{e}");
    let e = compclust::sdp::check_tol("--sdp-tol", 1e300)
        .unwrap_err()
        .to_string();
    assert!(e.contains("1e300") && e.len() < 100, "{e}");
}

/// A list-count file of a few bytes with counts of 10⁶ streams in bounded batches (the
/// AddS accumulators see every answer without the rows being held at once).
#[test]
fn list_count_streams_in_bounded_batches() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..40)
        .map(|i| format!("{},{},{},1000000\n", i % 5, (i + 1) % 5, (i + 2) % 5))
        .collect();
    let p = file(dir.path(), "in.csv", text.as_bytes());
    let (mut total, mut largest) = (0usize, 0usize);
    let mut sink = |b: Batch<'_>, _n: usize| -> Result<(), DataError> {
        let Batch::Triplets(t) = b else {
            panic!("triplets")
        };
        total += t.len();
        largest = largest.max(t.len());
        Ok(())
    };
    let s = stream_comparisons(&p, &opts(InputFormat::ListCount), &mut sink).unwrap();
    assert_eq!(total, 40_000_000);
    assert_eq!(s.rows, 40_000_000);
    assert!(largest <= 2_100_000, "a batch of {largest} rows");
}
