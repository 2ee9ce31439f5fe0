//! Readers and writers of every comparisons format on small files written here, validation
//! errors (file, line, field), and round-trip property tests for each reader/writer pair.

use std::path::{Path, PathBuf};

use compclust::data::{
    ComparisonKind, Comparisons, DataError, Dataset, InputFormat, ItemIndex, OutputFormat,
    Quadruplet, ReadOptions, SameCluster, Triplet, read_comparisons, read_comparisons_from,
    read_comparisons_with_report, read_items, read_labels, read_membership, write_comparisons,
    write_comparisons_to, write_labels, write_membership,
};
use compclust::overlap::Membership;
use proptest::prelude::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn read_str(text: &str, opts: &ReadOptions) -> Result<Dataset, DataError> {
    read_comparisons_from(text.as_bytes(), "mem.csv", opts)
}

fn kind(k: ComparisonKind) -> ReadOptions {
    ReadOptions {
        kind: Some(k),
        ..ReadOptions::default()
    }
}

fn format(f: InputFormat) -> ReadOptions {
    ReadOptions {
        format: Some(f),
        ..ReadOptions::default()
    }
}

fn triplets(d: &Dataset) -> Vec<(String, String, String)> {
    let Comparisons::Triplets(v) = &d.comparisons else {
        panic!("triplets expected, got {:?}", d.comparisons.kind())
    };
    let l = |i: u32| d.items.label(i as usize).to_string();
    v.iter()
        .map(|t| (l(t.anchor), l(t.near), l(t.far)))
        .collect()
}

fn t3(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

// ---------------------------------------------------------------- CSV kinds

#[test]
fn csv_triplets_with_header_number_items_in_order_of_appearance() {
    let d = read_str(
        "anchor,near,far\ncat,lion,car\n lion , cat,car\n",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(d.items.labels(), &["cat", "lion", "car"]);
    assert_eq!(
        triplets(&d),
        vec![t3("cat", "lion", "car"), t3("lion", "cat", "car")]
    );
}

#[test]
fn semicolon_space_headerless_needs_kind() {
    let text = "a.jpg; b.jpg; c.jpg\nb.jpg; a.jpg; c.jpg\n";
    let e = read_str(text, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
    let d = read_str(text, &kind(ComparisonKind::Triplets)).unwrap();
    assert_eq!(triplets(&d)[1], t3("b.jpg", "a.jpg", "c.jpg"));
}

#[test]
fn tsv_quadruplets_and_whitespace() {
    let d = read_str("a\tb\tc\td\n1\t2\t3\t4\n", &ReadOptions::default()).unwrap();
    assert_eq!(
        d.comparisons,
        Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 2, 3)])
    );
    // A triplet written as a quadruplet (i,j,i,k) is valid.
    let d = read_str("x y x z\n", &kind(ComparisonKind::Quadruplets)).unwrap();
    assert_eq!(
        d.comparisons,
        Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 0, 2)])
    );
}

#[test]
fn most_central_and_odd_one_out_give_two_triplets() {
    let d = read_str("center,x,y\nm,l,r\n", &ReadOptions::default()).unwrap();
    assert_eq!(triplets(&d), vec![t3("l", "m", "r"), t3("r", "m", "l")]);
    let d = read_str("odd,x,y\no,p,q\n", &ReadOptions::default()).unwrap();
    assert_eq!(triplets(&d), vec![t3("p", "q", "o"), t3("q", "p", "o")]);
}

#[test]
fn same_cluster_answers() {
    let d = read_str(
        "a,b,answer\nx,y,1\nx,z,no\ny,z,2\nz,w,3\n",
        &ReadOptions::default(),
    )
    .unwrap();
    let Comparisons::SameCluster(v) = &d.comparisons else {
        panic!()
    };
    let answers: Vec<f64> = v.iter().map(|s| s.answer).collect();
    assert_eq!(answers, vec![1.0, 0.0, 2.0, 3.0]);
    // An answer is a number of shared clusters: fractions are rejected, as by `overlap`.
    let e = read_str("a,b,answer\nz,w,0.5\n", &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("line 2, field `answer`"), "{e}");
    let e = read_str("a,b,answer\nx,y,1\nx,z,maybe\n", &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::NotANumber { .. }));
    let s = e.to_string();
    assert!(
        s.contains("mem.csv") && s.contains("line 3") && s.contains("answer"),
        "{s}"
    );
}

#[test]
fn validation_errors_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    // Wrong number of fields on line 3.
    let p = write(dir.path(), "bad.csv", "anchor,near,far\na,b,c\na,b\n");
    let e = read_comparisons(&p, &ReadOptions::default()).unwrap_err();
    assert!(matches!(
        e,
        DataError::FieldCount {
            expected: 3,
            found: 2,
            ..
        }
    ));
    let s = e.to_string();
    assert!(s.contains("bad.csv") && s.contains("line 3"), "{s}");

    // Empty item.
    let e = read_str("anchor,near,far\na,,c\n", &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::EmptyItem { .. }));
    assert!(e.to_string().contains("line 2, field `near`"), "{e}");
    // The same from a file, after rows with numeric labels (the reader's cached lookup):
    // the file, line and field are all named.
    let p = write(
        dir.path(),
        "empty.csv",
        "anchor,near,far\n1,2,3\n 1 , 2 , 3 \n3,,1\n",
    );
    let e = read_comparisons(&p, &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::EmptyItem { .. }));
    assert!(
        e.to_string().contains("empty.csv, line 4, field `near`"),
        "{e}"
    );

    // Item repeated inside one comparison.
    let e = read_str("anchor,near,far\na,b,a\n", &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::RepeatedItem { .. }));
    assert!(e.to_string().contains("field `far`"), "{e}");
    let e = read_str("a,b,c,d\nx,y,y,x\n", &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, DataError::RepeatedItem { .. }), "{e}");
    // A same-cluster row may name one item twice: how many clusters it is in.
    let d = read_str("a,b,answer\nx,x,2\n", &ReadOptions::default()).unwrap();
    assert!(
        matches!(&d.comparisons, Comparisons::SameCluster(v) if v[0].a == v[0].b && v[0].answer == 2.0)
    );

    // Unknown item with an items file.
    let items = write(dir.path(), "items.txt", "a\nb\nc\nlonely\n");
    let idx = read_items(&items).unwrap();
    let opts = ReadOptions {
        items: Some(idx),
        ..ReadOptions::default()
    };
    let e = read_str("anchor,near,far\na,b,c\na,b,zz\n", &opts).unwrap_err();
    assert!(matches!(e, DataError::UnknownItem { .. }));
    assert!(e.to_string().contains("line 3, field `far`"), "{e}");
    let d = read_str("anchor,near,far\nc,b,a\n", &opts).unwrap();
    assert_eq!(d.n_items(), 4, "listed items exist without comparisons");
    assert_eq!(
        d.comparisons,
        Comparisons::Triplets(vec![Triplet::new(2, 1, 0)])
    );

    // Empty input, header only.
    assert!(matches!(
        read_str("", &kind(ComparisonKind::Triplets)).unwrap_err(),
        DataError::Empty { .. }
    ));
    assert!(matches!(
        read_str("anchor,near,far\n\n", &ReadOptions::default()).unwrap_err(),
        DataError::Empty { .. }
    ));
    // Header and kind disagree.
    let e = read_str("a,b,c,d\n1,2,3,4\n", &kind(ComparisonKind::Triplets)).unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
    // Missing file.
    assert!(matches!(
        read_comparisons(&dir.path().join("nope.csv"), &ReadOptions::default()).unwrap_err(),
        DataError::Io { .. }
    ));
}

// ---------------------------------------------------------------- cblearn lists

#[test]
fn cblearn_list_formats() {
    let d = read_str("0,4,2\n3,1,0\n", &format(InputFormat::ListOrder)).unwrap();
    assert_eq!(d.n_items(), 5);
    assert_eq!(
        d.comparisons,
        Comparisons::Triplets(vec![Triplet::new(0, 4, 2), Triplet::new(3, 1, 0)])
    );
    let d = read_str("i,j,k,l\n0,1,2,3\n", &format(InputFormat::ListOrder)).unwrap();
    assert_eq!(d.comparisons.kind(), ComparisonKind::Quadruplets);

    let d = read_str(
        "0,1,2,true\n0,1,2,False\n",
        &format(InputFormat::ListBoolean),
    )
    .unwrap();
    assert_eq!(
        d.comparisons,
        Comparisons::Triplets(vec![Triplet::new(0, 1, 2), Triplet::new(0, 2, 1)])
    );

    let e = read_str("0,1,2,3\n0,1,2,3,-2\n", &format(InputFormat::ListCount)).unwrap_err();
    assert!(
        matches!(
            e,
            DataError::FieldCount {
                expected: 4,
                found: 5,
                ..
            }
        ),
        "{e}"
    );
    let (d, rep) = read_comparisons_from_with_report_str(
        "0,1,2,2\n1,2,3,0\n2,3,0,-1\n",
        InputFormat::ListCount,
    );
    assert_eq!(rep.skipped_undecided, 1);
    assert_eq!(
        d.comparisons,
        Comparisons::Triplets(vec![
            Triplet::new(0, 1, 2),
            Triplet::new(0, 1, 2),
            Triplet::new(2, 0, 3)
        ])
    );
    let e = read_str("0,1,2,x\n", &format(InputFormat::ListCount)).unwrap_err();
    assert!(matches!(e, DataError::NotANumber { .. }));
    assert!(e.to_string().contains("field `response`"), "{e}");
    let e = read_str("0,1,2\n0,1,x\n", &format(InputFormat::ListOrder)).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    let e = read_str("0,1,2\n0,1\n", &format(InputFormat::ListOrder)).unwrap_err();
    assert!(matches!(e, DataError::FieldCount { .. }));
    // Indices index into an items file.
    let opts = ReadOptions {
        format: Some(InputFormat::ListOrder),
        items: Some(ItemIndex::fixed(["u", "v", "w"]).unwrap()),
        ..ReadOptions::default()
    };
    assert_eq!(read_str("2,0,1\n", &opts).unwrap().items.label(2), "w");
    assert!(read_str("3,0,1\n", &opts).is_err());
}

fn read_comparisons_from_with_report_str(
    text: &str,
    f: InputFormat,
) -> (Dataset, compclust::data::ReadReport) {
    compclust::data::read_comparisons_from_with_report(text.as_bytes(), "m", &format(f)).unwrap()
}

// ---------------------------------------------------------------- salmon, car, food

#[test]
fn salmon_responses() {
    let text = "puid,head,left,right,winner,loser,head_html,response_time\n\
                u1,3,1,2,1,2,\"<img src=\"\"a,b.png\"\">\",1.5\n\
                u2,0,1,3,3,1,x,2\n";
    let (d, rep) = compclust::data::read_comparisons_from_with_report(
        text.as_bytes(),
        "responses.csv",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.format, InputFormat::Salmon);
    assert_eq!(d.n_items(), 4);
    assert_eq!(
        d.comparisons,
        Comparisons::Triplets(vec![Triplet::new(3, 1, 2), Triplet::new(0, 3, 1)])
    );
    let e = read_str(
        "head,winner,loser,x\n1,2,3,4\n1,2,3\n",
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn car_survey_and_ordinal_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "survey_data.csv",
        "survey_round,chosen_center,triplet_object_1,triplet_object_2,triplet_object_3,response_time\n\
         1,32,32,16,30,11.108\n1,18,15,18,53,19.483\n",
    );
    let (d, rep) = read_comparisons_with_report(&p, &ReadOptions::default()).unwrap();
    assert_eq!(rep.format, InputFormat::CarSurvey);
    assert_eq!(rep.records, 2);
    assert_eq!(d.n_items(), 53, "items are the 1-based ids 1..=max");
    assert_eq!(
        triplets(&d),
        vec![
            t3("16", "32", "30"),
            t3("30", "32", "16"),
            t3("15", "18", "53"),
            t3("53", "18", "15")
        ]
    );
    let bad = write(
        dir.path(),
        "bad.csv",
        "survey_round,chosen_center,triplet_object_1,triplet_object_2,triplet_object_3,response_time\n\
         1,32,32,16,30,11.1\n1,7,15,18,53,19.4\n",
    );
    let e = read_comparisons(&bad, &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("line 3, field `chosen_center`"),
        "{e}"
    );

    let p = write(dir.path(), "T_ALL_REDUCED.csv", "2,1,16\n25,1,2\n");
    let d = read_comparisons(&p, &format(InputFormat::CarOrdinal)).unwrap();
    assert_eq!(d.n_items(), 25);
    assert_eq!(triplets(&d)[0], t3("1", "2", "16"));
    assert_eq!(d.comparisons.len(), 4);
    let p = write(dir.path(), "zero.csv", "2,0,16\n");
    assert!(read_comparisons(&p, &format(InputFormat::CarOrdinal)).is_err());
}

const FOOD_HIT: &str = r#"[
 {"worker_id": 1, "HIT_screens": [
   {"probe": "images/p.jpg", "images": ["images/a.jpg", "images/b.jpg", "images/c.jpg"],
    "near_answer": ["images/a.jpg"], "is_catchtrial": false, "timer": 5},
   {"probe": "images/a.jpg", "images": ["images/p.jpg", "images/b.jpg"],
    "near_answer": ["images/p.jpg"], "is_catchtrial": true, "timer": 5}
 ]}
]"#;

#[test]
fn food_json_file_and_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("raw-json");
    std::fs::create_dir(&sub).unwrap();
    let f1 = write(&sub, "grid4_rep1.json", FOOD_HIT);
    write(
        &sub,
        "grid4_rep2.json",
        r#"[{"HIT_screens": [{"probe": "images/b.jpg", "images": ["images/a.jpg",
        "images/c.jpg", "images/d.jpg", "images/p.jpg"], "near_answer": ["images/c.jpg",
        "images/d.jpg"]}]}]"#,
    );
    write(&sub, "notes.txt", "ignored");
    let (d, rep) = read_comparisons_with_report(&f1, &ReadOptions::default()).unwrap();
    assert_eq!(rep.skipped_catch_trials, 1);
    assert_eq!(
        triplets(&d),
        vec![t3("p.jpg", "a.jpg", "b.jpg"), t3("p.jpg", "a.jpg", "c.jpg")]
    );
    let (d, rep) = read_comparisons_with_report(&sub, &ReadOptions::default()).unwrap();
    assert_eq!(rep.files, 2);
    assert_eq!(rep.records, 2);
    // 2 from the first file + 2 near × 2 far from the second.
    assert_eq!(d.comparisons.len(), 6);
    assert_eq!(d.n_items(), 5);
    let bad = write(dir.path(), "bad.json", "[{\"HIT_screens\": [}]");
    let e = read_comparisons(&bad, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("bad.json, line 1"), "{e}");
}

// ---------------------------------------------------------------- writers

#[test]
fn writers_produce_the_documented_files() {
    let items = ItemIndex::fixed(["x", "y", "z"]).unwrap();
    let d = Dataset::new(
        items,
        Comparisons::Triplets(vec![
            Triplet::new(0, 2, 1),
            Triplet::new(0, 1, 2),
            Triplet::new(0, 1, 2),
        ]),
    )
    .unwrap();
    let out = |f| {
        let mut v = Vec::new();
        write_comparisons_to(&mut v, &d, f).unwrap();
        String::from_utf8(v).unwrap()
    };
    assert_eq!(
        out(OutputFormat::Csv),
        "anchor,near,far\nx,z,y\nx,y,z\nx,y,z\n"
    );
    assert_eq!(
        out(OutputFormat::Tsv),
        "anchor\tnear\tfar\nx\tz\ty\nx\ty\tz\nx\ty\tz\n"
    );
    assert_eq!(out(OutputFormat::ListOrder), "0,2,1\n0,1,2\n0,1,2\n");
    assert_eq!(
        out(OutputFormat::ListBoolean),
        "0,1,2,false\n0,1,2,true\n0,1,2,true\n"
    );
    assert_eq!(out(OutputFormat::ListCount), "0,1,2,1\n");
    let s = Dataset::numbered(
        2,
        Comparisons::SameCluster(vec![SameCluster {
            a: 0,
            b: 1,
            answer: 1.0,
        }]),
    )
    .unwrap();
    let mut v = Vec::new();
    assert!(matches!(
        write_comparisons_to(&mut v, &s, OutputFormat::ListOrder),
        Err(DataError::Unsupported(_))
    ));
    write_comparisons_to(&mut v, &s, OutputFormat::Csv).unwrap();
    assert_eq!(String::from_utf8(v).unwrap(), "a,b,answer\n0,1,1\n");
}

// ---------------------------------------------------------------- labels, memberships

#[test]
fn labels_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "l.csv", "item,cluster\nb,1\na,0\nc,1\n");
    let (idx, l) = read_labels(&p, None).unwrap();
    assert_eq!(idx.labels(), &["b", "a", "c"]);
    assert_eq!(l, vec![1, 0, 1]);
    let given = ItemIndex::fixed(["a", "b", "c"]).unwrap();
    let (_, l) = read_labels(&p, Some(&given)).unwrap();
    assert_eq!(l, vec![0, 1, 1], "aligned to the given index");
    let more = ItemIndex::fixed(["a", "b", "c", "d"]).unwrap();
    let e = read_labels(&p, Some(&more)).unwrap_err();
    assert!(matches!(e, DataError::MissingItem { .. }), "{e}");
    let fewer = ItemIndex::fixed(["a", "b"]).unwrap();
    let e = read_labels(&p, Some(&fewer)).unwrap_err();
    assert!(e.to_string().contains("line 4"), "{e}");
    let p = write(dir.path(), "d.csv", "item,cluster\na,1\na,0\n");
    assert!(matches!(
        read_labels(&p, None).unwrap_err(),
        DataError::DuplicateItem { .. }
    ));
    // Cluster names may be any text (clusters named by users); an empty one is an error.
    let p = write(dir.path(), "n.csv", "item,cluster\na,one\nb,two\nc,one\n");
    let (_, l) = read_labels(&p, None).unwrap();
    assert_eq!(l, vec![0, 1, 0]);
    let p = write(dir.path(), "n.csv", "item,cluster\na,\n");
    let e = read_labels(&p, None).unwrap_err();
    assert!(e.to_string().contains("line 2, field `cluster`"), "{e}");
    let p = write(dir.path(), "h.csv", "a,1\n");
    assert!(read_labels(&p, None).is_err());
}

#[test]
fn membership_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.csv", "item,cluster\nx,0\nx,2\ny,2\nz,\n");
    let (idx, m) = read_membership(&p, None).unwrap();
    assert_eq!(idx.labels(), &["x", "y", "z"]);
    assert_eq!(m.n_clusters(), 3);
    assert_eq!(m.rows(), &[vec![0, 2], vec![2], vec![]]);
    let given = ItemIndex::fixed(["w", "x", "y", "z"]).unwrap();
    let (_, m) = read_membership(&p, Some(&given)).unwrap();
    assert_eq!(m.rows(), &[vec![], vec![0, 2], vec![2], vec![]]);
    let small = ItemIndex::fixed(["x", "y"]).unwrap();
    assert!(matches!(
        read_membership(&p, Some(&small)).unwrap_err(),
        DataError::UnknownItem { .. }
    ));
}

// ---------------------------------------------------------------- round trips

#[test]
fn items_named_like_the_header_round_trip_and_a_repeated_header_is_still_an_error() {
    let cases = [
        (
            vec!["anchor", "near", "far"],
            Comparisons::Triplets(vec![Triplet::new(0, 1, 2), Triplet::new(2, 1, 0)]),
        ),
        (
            vec!["a", "b", "c", "d"],
            Comparisons::Quadruplets(vec![
                Quadruplet::new(0, 1, 2, 3),
                Quadruplet::new(3, 2, 1, 0),
            ]),
        ),
    ];
    for (labels, comparisons) in cases {
        let d = Dataset::new(ItemIndex::fixed(labels).unwrap(), comparisons).unwrap();
        for to in [OutputFormat::Csv, OutputFormat::Tsv] {
            let mut buf = Vec::new();
            write_comparisons_to(&mut buf, &d, to).unwrap();
            let text = String::from_utf8(buf.clone()).unwrap();
            let back = read_comparisons_from(buf.as_slice(), "rt", &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{to}: {e}\n{text}"));
            assert_eq!(back.comparisons, d.comparisons, "{text}");
            assert_eq!(back.items.labels(), d.items.labels(), "{text}");
            // The same file with the quotes removed repeats its header: an error, as before.
            let unquoted = text.replace('"', "");
            assert!(
                read_comparisons_from(unquoted.as_bytes(), "rt", &ReadOptions::default()).is_err(),
                "{unquoted}"
            );
        }
    }
}

/// Labels, often named like the fields of a header (`a`…`d`, `anchor`, `near`, `far`), so
/// that some rows equal the header.
fn labels_strategy() -> impl Strategy<Value = Vec<String>> {
    let header_names = proptest::sample::select(vec![
        "a", "b", "c", "d", "anchor", "near", "far", "Anchor", "answer",
    ])
    .prop_map(String::from);
    proptest::collection::hash_set(
        prop_oneof![
            1 => "[a-zA-Z0-9_.#]{1,6}( [a-z]{1,3})?",
            1 => header_names,
        ],
        4..9,
    )
    .prop_map(|s| s.into_iter().collect())
}

#[derive(Debug, Clone, Copy)]
enum K {
    T,
    Q,
    S,
}

fn dataset_strategy() -> impl Strategy<Value = Dataset> {
    (
        labels_strategy(),
        prop_oneof![Just(K::T), Just(K::Q), Just(K::S)],
        any::<u64>(),
        1..40usize,
    )
        .prop_map(|(labels, k, seed, m)| {
            use rand::{RngExt, SeedableRng, rngs::StdRng, seq::SliceRandom};
            let n = labels.len() as u32;
            let mut rng = StdRng::seed_from_u64(seed);
            let mut pick = |c: usize| {
                let mut v: Vec<u32> = (0..n).collect();
                v.shuffle(&mut rng);
                v.truncate(c);
                v
            };
            let comparisons = match k {
                K::T => Comparisons::Triplets(
                    (0..m)
                        .map(|_| {
                            let v = pick(3);
                            Triplet::new(v[0], v[1], v[2])
                        })
                        .collect(),
                ),
                K::Q => Comparisons::Quadruplets(
                    (0..m)
                        .map(|_| {
                            let v = pick(4);
                            Quadruplet::new(v[0], v[1], v[2], v[3])
                        })
                        .collect(),
                ),
                K::S => {
                    let pairs: Vec<Vec<u32>> = (0..m).map(|_| pick(2)).collect();
                    let mut r = StdRng::seed_from_u64(seed ^ 1);
                    Comparisons::SameCluster(
                        pairs
                            .into_iter()
                            .map(|v| SameCluster {
                                a: v[0],
                                b: v[1],
                                answer: [0.0, 1.0, 2.0, 3.0][r.random_range(0..4)],
                            })
                            .collect(),
                    )
                }
            };
            Dataset::new(ItemIndex::fixed(labels).unwrap(), comparisons).unwrap()
        })
}

fn roundtrip(d: &Dataset, to: OutputFormat, opts: &ReadOptions) -> Dataset {
    let mut buf = Vec::new();
    write_comparisons_to(&mut buf, d, to).unwrap();
    read_comparisons_from(buf.as_slice(), "rt", opts).unwrap()
}

fn nonzero<K: Clone>(e: &[(K, i64)]) -> Vec<(K, i64)> {
    e.iter().filter(|x| x.1 != 0).cloned().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn csv_and_tsv_round_trip(d in dataset_strategy()) {
        for to in [OutputFormat::Csv, OutputFormat::Tsv] {
            // With the items given, everything comes back identical.
            let opts = ReadOptions { items: Some(d.items.clone()), ..ReadOptions::default() };
            let back = roundtrip(&d, to, &opts);
            prop_assert_eq!(&back.comparisons, &d.comparisons);
            prop_assert_eq!(back.items.labels(), d.items.labels());
            // Without, the same answers over the same labels.
            let back = roundtrip(&d, to, &ReadOptions::default());
            let relabel = |x: &Dataset| {
                let mut b = Vec::new();
                write_comparisons_to(&mut b, x, OutputFormat::Csv).unwrap();
                b
            };
            prop_assert_eq!(relabel(&back), relabel(&d));
        }
    }

    #[test]
    fn list_formats_round_trip(d in dataset_strategy()) {
        if matches!(d.comparisons, Comparisons::SameCluster(_)) {
            return Ok(());
        }
        let opts = |f| ReadOptions { format: Some(f), ..ReadOptions::default() };
        let back = roundtrip(&d, OutputFormat::ListOrder, &opts(InputFormat::ListOrder));
        prop_assert_eq!(&back.comparisons, &d.comparisons);
        prop_assert_eq!(back.n_items(), d.comparisons.max_item());

        let back = roundtrip(&d, OutputFormat::ListBoolean, &opts(InputFormat::ListBoolean));
        prop_assert_eq!(back.comparisons.len(), d.comparisons.len());
        prop_assert_eq!(back.comparisons.quadruplet_counts(), d.comparisons.quadruplet_counts());
        prop_assert_eq!(back.comparisons.triplet_counts(), d.comparisons.triplet_counts());

        let mut buf = Vec::new();
        write_comparisons_to(&mut buf, &d, OutputFormat::ListCount).unwrap();
        match read_comparisons_from(buf.as_slice(), "rt", &opts(InputFormat::ListCount)) {
            Ok(back) => {
                if let Some(c) = d.comparisons.triplet_counts() {
                    let b = back.comparisons.triplet_counts().unwrap();
                    prop_assert_eq!(b.entries, nonzero(&c.entries));
                } else {
                    let c = d.comparisons.quadruplet_counts().unwrap();
                    let b = back.comparisons.quadruplet_counts().unwrap();
                    prop_assert_eq!(b.entries, nonzero(&c.entries));
                }
            }
            // Every query contradicted to a net count of 0: nothing left.
            Err(DataError::Empty { .. }) => {
                let c = d.comparisons.quadruplet_counts().unwrap();
                prop_assert!(c.entries.iter().all(|e| e.1 == 0));
            }
            Err(e) => prop_assert!(false, "{e}"),
        }
    }

    #[test]
    fn labels_round_trip(labels in labels_strategy(), seed in any::<u64>()) {
        use rand::{RngExt, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let idx = ItemIndex::fixed(labels).unwrap();
        let l: Vec<usize> = (0..idx.len()).map(|_| rng.random_range(0..4)).collect();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("labels.csv");
        write_labels(&p, &idx, &l).unwrap();
        let (i2, l2) = read_labels(&p, None).unwrap();
        prop_assert_eq!(i2.labels(), idx.labels());
        prop_assert_eq!(&l2, &l);
        let (_, l3) = read_labels(&p, Some(&idx)).unwrap();
        prop_assert_eq!(l3, l);
    }

    #[test]
    fn membership_round_trip(labels in labels_strategy(), seed in any::<u64>()) {
        use rand::{RngExt, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let idx = ItemIndex::fixed(labels).unwrap();
        let rows: Vec<Vec<u32>> = (0..idx.len())
            .map(|_| (0..5u32).filter(|_| rng.random_range(0..3) == 0).collect())
            .collect();
        let m = Membership::new(5, rows);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.csv");
        write_membership(&p, &idx, &m).unwrap();
        let (i2, m2) = read_membership(&p, None).unwrap();
        prop_assert_eq!(i2.labels(), idx.labels());
        prop_assert_eq!(m2.rows(), m.rows());
        let k = m.rows().iter().flatten().max().map_or(0, |&c| c as usize + 1);
        prop_assert_eq!(m2.n_clusters(), k);
    }

    #[test]
    fn atomic_file_writer_round_trip(d in dataset_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        write_comparisons(&p, &d, OutputFormat::Csv).unwrap();
        let opts = ReadOptions { items: Some(d.items.clone()), ..ReadOptions::default() };
        let back = read_comparisons(&p, &opts).unwrap();
        prop_assert_eq!(back.comparisons, d.comparisons.clone());
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[test]
fn in_memory_reader_detects_food_json() {
    let (d, rep) = compclust::data::read_comparisons_from_with_report(
        FOOD_HIT.as_bytes(),
        "hit.json",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.format, InputFormat::FoodJson);
    assert_eq!(rep.skipped_catch_trials, 1);
    assert_eq!(d.comparisons.len(), 2);
    let e = read_comparisons_from(
        "[{\"HIT_screens\": [{\"probe\": \"p\", \"images\": [\"p\", \"a\"], \"near_answer\": [\"a\"]}]}]"
            .as_bytes(),
        "x.json",
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, DataError::RepeatedItem { .. }), "{e}");
    assert!(e.to_string().contains("HIT 1, screen 1"), "{e}");
}
