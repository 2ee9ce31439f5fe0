//! Every command that reads user files, run as the binary on generated and mutated inputs
//! (fixed seed), with earlier outputs in place. For every case:
//!
//! * the process exits by itself with a documented status (0, 2, 3 or 4): no signal (a panic
//!   that aborts, a failed allocation), no `panicked` or `RUST_BACKTRACE` on stderr, no hang;
//! * a failure (status 2) ends with one short `error: …` line that names an input file, and
//!   leaves every file of the folder byte-identical (earlier outputs and inputs), with no
//!   temporary file left behind;
//! * whatever the status, the inputs are never changed, and status 0 replaced every output.
//!
//! The inputs start from valid files of every kind the commands read (comparisons in every
//! format, items, answers of crowd rounds, study files, labels, memberships, dendrograms,
//! features, similarities) and are mutated at the byte, line and token level (the mutations
//! of the readers' fuzz example), or have an item label or cluster name replaced everywhere by
//! an odd one (quotes, delimiters, a header word, 300 characters, huge numbers).
//!
//! Each child runs with at most 2 GiB of address space (`ulimit -v`), so an input that makes
//! a command allocate without a check aborts and is caught here.
//!
//! CI runs `COMMAND_CASES` cases; more with
//! `COMPCLUST_FUZZ_COMMANDS=20000 cargo test -p compclust-cli --test fuzz_commands -- --nocapture`
//! (`COMPCLUST_FUZZ_SEED` picks another seed; docs/BENCHMARKS.md has a recorded run).

// Test fixtures and earlier outputs are written directly (the crate's clippy.toml forbids it
// in the command code, which writes through src/output.rs).
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../../compclust/examples/fuzz/cases.rs"]
mod cases;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cases::{Rng, TOKENS, mutate};

/// Cases run by CI (about 0.1 s each in a debug build).
const COMMAND_CASES: u64 = 900;

/// Address-space limit of each child, in KiB.
const MEMORY_LIMIT_KIB: u64 = 2 << 20;

/// A child that runs longer than this on these few-line inputs hangs.
const TIMEOUT: Duration = Duration::from_secs(120);

const ITEMS: [&str; 6] = ["ant", "bee", "cat", "dog", "eel", "fox"];

/// The planted cluster of item `i` ({ant, bee, cat} and {dog, eel, fox}).
fn cluster(i: usize) -> usize {
    i / 3
}

fn lines(header: &str, rows: impl IntoIterator<Item = String>) -> String {
    let mut s = String::new();
    if !header.is_empty() {
        s.push_str(header);
        s.push('\n');
    }
    for r in rows {
        s.push_str(&r);
        s.push('\n');
    }
    s
}

/// Planted triplets `(anchor, near, far)` by index.
fn planted_triplets() -> Vec<[usize; 3]> {
    let mut v = Vec::new();
    for x in 0..6 {
        for y in 0..6 {
            for z in 0..6 {
                if x != y && cluster(x) == cluster(y) && cluster(z) != cluster(x) {
                    v.push([x, y, z]);
                }
            }
        }
    }
    v
}

/// Every question "is pair p more similar than pair q?" over distinct pairs, answered by the
/// planted clusters (ties by the order of the pairs): `(a,b)` more similar than `(c,d)`.
fn planted_quadruplets(all: bool) -> Vec<[usize; 4]> {
    let pairs: Vec<[usize; 2]> = (0..6)
        .flat_map(|i| (i + 1..6).map(move |j| [i, j]))
        .collect();
    let same = |p: &[usize; 2]| cluster(p[0]) == cluster(p[1]);
    let mut v = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        for q in &pairs[i + 1..] {
            let (win, lose) = if same(q) && !same(p) { (q, p) } else { (p, q) };
            if all || (same(win) && !same(lose)) {
                v.push([win[0], win[1], lose[0], lose[1]]);
            }
        }
    }
    v
}

fn named(row: &[usize]) -> String {
    row.iter().map(|&i| ITEMS[i]).collect::<Vec<_>>().join(",")
}

fn indexed(row: &[usize]) -> String {
    row.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Valid inputs of every kind the commands read.
struct Seeds {
    items: String,
    triplets: String,
    triplets_workers: String,
    quadruplets: String,
    odd_one_out: String,
    list_order: String,
    list_count: String,
    list_boolean: String,
    same_cluster: String,
    quantized: String,
    answers_all: String,
    answers_some: String,
    labels: String,
    labels_other: String,
    membership: String,
    dendrogram: String,
    dendrogram_other: String,
    features: String,
    similarities: String,
    items_meta: String,
    items_meta_json: String,
}

fn seeds() -> Seeds {
    let t = planted_triplets();
    let pairs: Vec<(usize, usize)> = (0..6)
        .flat_map(|i| (i + 1..6).map(move |j| (i, j)))
        .collect();
    let shared = |i: usize, j: usize| usize::from(cluster(i) == cluster(j));
    let all = planted_quadruplets(true);
    Seeds {
        items: lines("", ITEMS.iter().map(|s| s.to_string())),
        triplets: lines("anchor,near,far", t.iter().map(|r| named(r))),
        triplets_workers: lines(
            "anchor,near,far,worker",
            t.iter()
                .enumerate()
                .map(|(i, r)| format!("{},w{}", named(r), i % 3)),
        ),
        quadruplets: lines(
            "a,b,c,d",
            planted_quadruplets(false).iter().map(|r| named(r)),
        ),
        odd_one_out: lines(
            "odd,x,y",
            t.iter().map(|&[x, y, z]| named(&[z, x, y])),
        ),
        list_order: lines("", t.iter().map(|r| indexed(r))),
        list_count: lines(
            "",
            t.iter().enumerate().map(|(i, &[x, y, z])| {
                if i % 2 == 0 {
                    format!("{},{}", indexed(&[x, y, z]), 1 + i % 3)
                } else {
                    format!("{},-{}", indexed(&[x, z, y]), 1 + i % 3)
                }
            }),
        ),
        list_boolean: lines(
            "",
            t.iter().enumerate().map(|(i, &[x, y, z])| {
                if i % 2 == 0 {
                    format!("{},true", indexed(&[x, y, z]))
                } else {
                    format!("{},false", indexed(&[x, z, y]))
                }
            }),
        ),
        same_cluster: lines(
            "a,b,answer",
            pairs
                .iter()
                .map(|&(i, j)| format!("{},{}", named(&[i, j]), shared(i, j))),
        ),
        quantized: lines(
            "a,b,answer,worker",
            pairs
                .iter()
                .map(|&(i, j)| format!("{},{},w1", named(&[i, j]), shared(i, j))),
        ),
        answers_all: lines("a,b,c,d", all.iter().map(|r| named(r))),
        answers_some: lines("a,b,c,d", all.iter().take(30).map(|r| named(r))),
        labels: lines(
            "item,cluster",
            (0..6).map(|i| format!("{},{}", ITEMS[i], cluster(i))),
        ),
        labels_other: lines(
            "item,cluster",
            (0..6).map(|i| format!("{},{}", ITEMS[i], usize::from(i % 3 == 0))),
        ),
        membership: lines(
            "item,cluster",
            (0..6)
                .map(|i| format!("{},{}", ITEMS[i], cluster(i)))
                .chain(["ant,1".to_string()]),
        ),
        dendrogram: r#"{"items":["ant","bee","cat","dog","eel","fox"],"steps":[[0,1,1.0,2],[3,4,1.0,2],[2,6,2.0,3],[5,7,2.0,3],[8,9,3.0,6]]}"#
            .to_string(),
        dendrogram_other: r#"{"items":["ant","bee","cat","dog","eel","fox"],"steps":[[0,3,1.0,2],[1,4,1.5,2],[2,5,2.0,2],[6,7,2.5,4],[8,9,3.0,6]]}"#
            .to_string(),
        features: lines(
            "item,x,y",
            (0..6).map(|i| format!("{},{},{}", ITEMS[i], cluster(i) * 5 + i % 3, i % 2)),
        ),
        items_meta: lines(
            "item,name",
            ITEMS.iter().map(|i| format!("{i},the {i}")),
        ),
        items_meta_json: format!(
            "{{{}}}",
            ITEMS
                .iter()
                .map(|i| format!("\"{i}\": {{\"name\": \"the {i}\"}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        similarities: lines(
            "a,b,w",
            pairs.iter().map(|&(i, j)| {
                format!("{},{}", named(&[i, j]), if cluster(i) == cluster(j) { 0.9 } else { 0.1 })
            }),
        ),
    }
}

/// One command under test: its arguments (file names are relative to the case's folder), the
/// input files with their valid contents (one is picked per case), and its outputs.
struct Template {
    name: &'static str,
    args: Vec<&'static str>,
    inputs: Vec<(&'static str, Vec<String>)>,
    outputs: Vec<&'static str>,
}

fn t(
    name: &'static str,
    args: &str,
    inputs: Vec<(&'static str, Vec<&String>)>,
    outputs: &[&'static str],
) -> Template {
    let args: Vec<&'static str> = Box::leak(args.to_string().into_boxed_str())
        .split_whitespace()
        .collect();
    Template {
        name,
        args,
        inputs: inputs
            .into_iter()
            .map(|(n, v)| (n, v.into_iter().cloned().collect()))
            .collect(),
        outputs: outputs.to_vec(),
    }
}

/// Every command that reads user files, in the ways it reads them. `studies` are valid study
/// files of a hierarchy round and an overlap round (written by a first round in [`setup`]).
fn templates(s: &Seeds, studies: &[String; 2], runs: &String) -> Vec<Template> {
    let comparisons = vec![
        &s.triplets,
        &s.quadruplets,
        &s.odd_one_out,
        &s.triplets_workers,
    ];
    vec![
        t(
            "cluster",
            "cluster -i in.csv -o labels.csv --report report.json",
            vec![("in.csv", comparisons.clone())],
            &["labels.csv", "report.json"],
        ),
        t(
            "cluster mulk",
            "cluster -i in.csv --similarity mulk -o labels.csv",
            vec![("in.csv", comparisons.clone())],
            &["labels.csv"],
        ),
        t(
            "cluster items k",
            "cluster -i in.csv --items items.txt --n-clusters 2 -o labels.csv --report report.json",
            vec![
                ("in.csv", comparisons.clone()),
                ("items.txt", vec![&s.items]),
            ],
            &["labels.csv", "report.json"],
        ),
        t(
            "cluster items-meta plot",
            "cluster -i in.csv --n-clusters 2 --items-meta meta.csv -o labels.csv --plot s.svg",
            vec![
                ("in.csv", vec![&s.triplets]),
                ("meta.csv", vec![&s.items_meta]),
            ],
            &["labels.csv", "s.svg"],
        ),
        t(
            "hierarchy items-meta json",
            "hierarchy -i in.csv --method 4al --items-meta meta.json -o tree.json --cut 2 \
             --labels cut.csv --plot tree.svg",
            vec![
                ("in.csv", vec![&s.quadruplets]),
                ("meta.json", vec![&s.items_meta_json]),
            ],
            &["tree.json", "cut.csv", "tree.svg"],
        ),
        t(
            "cluster aggregate",
            "cluster -i in.csv --aggregate dawid-skene -o labels.csv",
            vec![("in.csv", vec![&s.triplets_workers, &s.triplets])],
            &["labels.csv"],
        ),
        t(
            "cluster list-count",
            "cluster -i in.csv --format list-count -o labels.csv",
            vec![("in.csv", vec![&s.list_count])],
            &["labels.csv"],
        ),
        t(
            "cluster list-count mulk",
            "cluster -i in.csv --format list-count --similarity mulk -o labels.csv",
            vec![("in.csv", vec![&s.list_count])],
            &["labels.csv"],
        ),
        t(
            "convert",
            "convert -i in.csv -o out.csv --items-out items_out.txt",
            vec![(
                "in.csv",
                vec![&s.triplets, &s.quadruplets, &s.odd_one_out, &s.same_cluster],
            )],
            &["out.csv", "items_out.txt"],
        ),
        t(
            "convert list-order",
            "convert -i in.csv --format list-order --to list-count -o out.csv",
            vec![("in.csv", vec![&s.list_order])],
            &["out.csv"],
        ),
        t(
            "convert list-boolean items",
            "convert -i in.csv --format list-boolean --items items.txt --to csv -o out.csv",
            vec![
                ("in.csv", vec![&s.list_boolean]),
                ("items.txt", vec![&s.items]),
            ],
            &["out.csv"],
        ),
        t(
            "convert list-count",
            "convert -i in.csv --format list-count --to list-order -o out.csv",
            vec![("in.csv", vec![&s.list_count])],
            &["out.csv"],
        ),
        t(
            "embed tste",
            "embed -i in.csv --method tste --dim 2 --max-iter 30 -o emb.csv",
            vec![("in.csv", comparisons.clone())],
            &["emb.csv"],
        ),
        t(
            "embed soe list-order",
            "embed -i in.csv --format list-order --method soe --dim 3 --max-iter 20 -o emb.csv",
            vec![("in.csv", vec![&s.list_order])],
            &["emb.csv"],
        ),
        t(
            "embed forte items",
            "embed -i in.csv --items items.txt --method forte --max-iter 20 -o emb.csv",
            vec![
                ("in.csv", vec![&s.triplets, &s.odd_one_out]),
                ("items.txt", vec![&s.items]),
            ],
            &["emb.csv"],
        ),
        t(
            "hierarchy 4al",
            "hierarchy --input in.csv --method 4al --output tree.json --newick tree.nwk \
             --report report.json --cut 2 --labels cut.csv",
            vec![("in.csv", comparisons.clone())],
            &["tree.json", "tree.nwk", "report.json", "cut.csv"],
        ),
        t(
            "hierarchy 4al init plot",
            "hierarchy --input in.csv --method 4al --init-clusters init.csv --output tree.json \
             --plot tree.svg",
            vec![
                ("in.csv", vec![&s.quadruplets, &s.triplets]),
                ("init.csv", vec![&s.labels]),
            ],
            &["tree.json", "tree.svg"],
        ),
        t(
            "hierarchy 4kal list-order",
            "hierarchy --input in.csv --format list-order --method 4kal --output tree.json \
             --newick tree.nwk",
            vec![("in.csv", vec![&s.list_order])],
            &["tree.json", "tree.nwk"],
        ),
        t(
            "hierarchy cl input",
            "hierarchy --input in.csv --method cl --output tree.json",
            vec![("in.csv", vec![&s.answers_all])],
            &["tree.json"],
        ),
        t(
            "hierarchy rounds",
            "hierarchy --answers answers.csv --items items.txt --method cl --missing ask.csv \
             --output tree.json --report report.json",
            vec![
                ("answers.csv", vec![&s.answers_all, &s.answers_some]),
                ("items.txt", vec![&s.items]),
            ],
            &["ask.csv", "tree.json", "report.json"],
        ),
        t(
            "hierarchy rounds study",
            "hierarchy --answers answers.csv --items items.txt --method cl --missing ask.csv \
             --study study.toml --output tree.json --newick tree.nwk",
            vec![
                ("answers.csv", vec![&s.answers_all, &s.answers_some]),
                ("items.txt", vec![&s.items]),
                ("study.toml", vec![&studies[0]]),
            ],
            &["ask.csv", "tree.json", "tree.nwk"],
        ),
        t(
            "hierarchy rounds 4kal-act",
            "hierarchy --answers answers.csv --items items.txt --method 4kal-act \
             --aggregate dawid-skene --redundancy 2 --missing ask.csv --output tree.json",
            vec![
                ("answers.csv", vec![&s.answers_all, &s.answers_some]),
                ("items.txt", vec![&s.items]),
            ],
            &["ask.csv", "tree.json"],
        ),
        t(
            "overlap answers",
            "overlap --answers answers.csv --items items.txt --method find-membership --k 2 \
             --missing ask.csv --output est.csv --report report.json",
            vec![
                ("answers.csv", vec![&s.same_cluster]),
                ("items.txt", vec![&s.items]),
            ],
            &["ask.csv", "est.csv", "report.json"],
        ),
        t(
            "overlap answers study",
            "overlap --answers answers.csv --items items.txt --method find-membership --k 2 \
             --study study.toml --missing ask.csv --output est.csv",
            vec![
                ("answers.csv", vec![&s.same_cluster]),
                ("items.txt", vec![&s.items]),
                ("study.toml", vec![&studies[1]]),
            ],
            &["ask.csv", "est.csv"],
        ),
        t(
            "overlap clique-cover",
            "overlap --answers answers.csv --items items.txt --method clique-cover \
             --missing ask.csv --output est.csv",
            vec![
                ("answers.csv", vec![&s.quantized, &s.same_cluster]),
                ("items.txt", vec![&s.items]),
            ],
            &["ask.csv", "est.csv"],
        ),
        t(
            "overlap membership",
            "overlap --membership truth.csv --method find-similarity --k 2 --output est.csv \
             --report report.json",
            vec![("truth.csv", vec![&s.membership, &s.labels])],
            &["est.csv", "report.json"],
        ),
        t(
            "overlap membership items-meta plot",
            "overlap --membership truth.csv --method clique-cover --items-meta meta.csv \
             --output est.csv --plot m.svg",
            vec![
                ("truth.csv", vec![&s.membership]),
                ("meta.csv", vec![&s.items_meta]),
            ],
            &["est.csv", "m.svg"],
        ),
        t(
            "design triplets",
            "design triplets --items items.txt --count 5 --output ask.csv",
            vec![("items.txt", vec![&s.items])],
            &["ask.csv"],
        ),
        t(
            "design quadruplets",
            "design quadruplets --items items.txt --repeat 2 --output ask.csv",
            vec![("items.txt", vec![&s.items])],
            &["ask.csv"],
        ),
        t(
            "eval ari",
            "eval ari --truth truth.csv --pred pred.csv",
            vec![
                ("truth.csv", vec![&s.labels]),
                ("pred.csv", vec![&s.labels_other, &s.labels]),
            ],
            &[],
        ),
        t(
            "eval gram",
            "eval gram --truth truth.csv --pred pred.csv",
            vec![
                ("truth.csv", vec![&s.membership]),
                ("pred.csv", vec![&s.labels, &s.membership]),
            ],
            &[],
        ),
        t(
            "eval aari",
            "eval aari --truth truth.json --pred pred.json",
            vec![
                ("truth.json", vec![&s.dendrogram]),
                ("pred.json", vec![&s.dendrogram_other, &s.dendrogram]),
            ],
            &[],
        ),
        t(
            "eval dasgupta features",
            "eval dasgupta --dendrogram tree.json --features features.csv --kernel cosine",
            vec![
                ("tree.json", vec![&s.dendrogram]),
                ("features.csv", vec![&s.features]),
            ],
            &[],
        ),
        t(
            "eval dasgupta similarity",
            "eval dasgupta --dendrogram tree.json --similarity sim.csv",
            vec![
                ("tree.json", vec![&s.dendrogram_other]),
                ("sim.csv", vec![&s.similarities]),
            ],
            &[],
        ),
        t(
            "experiment replot",
            "experiment flat-noise --replot runs.csv",
            vec![("runs.csv", vec![runs])],
            &["flat-noise.svg", "flat-noise.png"],
        ),
        t(
            "experiment resume-from",
            "experiment flat-noise --quick --n 8 --seeds 2 --out . --resume-from prev.csv",
            vec![("prev.csv", vec![runs])],
            &["runs.csv", "flat-noise.svg", "flat-noise.png"],
        ),
    ]
}

/// Item labels that once broke a reader or writer: delimiters and quotes (CSV-quoted where
/// the file is CSV), a header word, Newick's special characters, numbers, 300 characters.
const LABELS: &[&str] = &[
    "x,y",
    "say \"hi\"",
    "anchor",
    "item",
    "a b",
    " a",
    "é✓",
    "(p:q);",
    "[x]",
    "'",
    "-1",
    "99999",
    "4294967295",
    "1e300",
    "NaN",
    "a;b",
    "a\tb",
    "#",
];

/// Item indices or counts within the documented limits whose n × n matrices (tens of GB) are
/// more than a machine, or the 2 GiB the children run with, can give.
const SIZES: &[&str] = &["40000", "65535", "65536", "1000000", "9999999"];

/// Cluster names: text, empty, huge and negative numbers.
const CLUSTER_NAMES: &[&str] = &[
    "Drama",
    "Sci-Fi",
    "",
    "-1",
    "18446744073709551616",
    "4294967295",
    "1.5",
    "NaN",
    " 1",
    "x,y",
];

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Rename item `old` to `new` in one file, as that file spells labels.
fn relabel(name: &str, text: &str, old: &str, new: &str) -> String {
    if name.ends_with(".json") {
        return text.replace(&json_string(old), &json_string(new));
    }
    if name.ends_with(".toml") {
        return text.to_string();
    }
    let field = if name.ends_with(".txt") {
        new.to_string()
    } else {
        csv_field(new)
    };
    text.split('\n')
        .map(|line| {
            if name.ends_with(".txt") {
                return if line == old {
                    field.clone()
                } else {
                    line.to_string()
                };
            }
            line.split(',')
                .map(|f| {
                    if f == old {
                        field.clone()
                    } else {
                        f.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rename cluster `old` to `new` in an `item,cluster` file (other files are left as they are).
fn rename_cluster(text: &str, old: &str, new: &str) -> String {
    if !text.starts_with("item,cluster") {
        return text.to_string();
    }
    text.split('\n')
        .map(|line| match line.split_once(',') {
            Some((item, c)) if c == old => format!("{item},{}", csv_field(new)),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One generated case: the template and the contents of its inputs.
struct Case {
    template: usize,
    files: Vec<(&'static str, Vec<u8>)>,
    what: String,
}

fn case(templates: &[Template], seed: u64, i: u64) -> Case {
    let template = (i % templates.len() as u64) as usize;
    let tp = &templates[template];
    let mut r = Rng::new(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5bd1_e995);
    let mut files: Vec<(&'static str, Vec<u8>)> = tp
        .inputs
        .iter()
        .map(|(n, v)| (*n, r.pick(v).clone().into_bytes()))
        .collect();
    let what;
    match r.below(10) {
        0 => what = "valid".to_string(),
        1 | 2 => {
            let old = *r.pick(&ITEMS);
            let new = *r.pick(LABELS);
            for (n, b) in &mut files {
                *b = relabel(n, &String::from_utf8_lossy(b), old, new).into_bytes();
            }
            what = format!("item {old} renamed {new:?}");
        }
        3 => {
            let old = *r.pick(&["0", "1"]);
            let new = *r.pick(CLUSTER_NAMES);
            for (_, b) in &mut files {
                *b = rename_cluster(&String::from_utf8_lossy(b), old, new).into_bytes();
            }
            what = format!("cluster {old} renamed {new:?}");
        }
        4 => {
            // A number made huge, negative or not a number in every row of one file (in the
            // index formats, an item index that asks for tens of thousands of items).
            let f = r.below(files.len());
            let token = if r.chance(2) {
                *r.pick(SIZES)
            } else {
                *r.pick(TOKENS)
            };
            let text = String::from_utf8_lossy(&files[f].1).into_owned();
            let out: Vec<String> = text
                .split('\n')
                .map(|line| match line.rsplit_once(',') {
                    Some((head, last)) if last.parse::<f64>().is_ok() => {
                        format!("{head},{token}")
                    }
                    _ => line.to_string(),
                })
                .collect();
            files[f].1 = out.join("\n").into_bytes();
            what = format!("{}: numbers {token:?}", files[f].0);
        }
        5 => {
            let f = r.below(files.len());
            let n = r.below(300);
            files[f].1 = (0..n).map(|_| r.next() as u8).collect();
            what = format!("{}: {n} random bytes", files[f].0);
        }
        _ => {
            let f = r.below(files.len());
            let m = 1 + r.below(4);
            for _ in 0..m {
                mutate(&mut r, &mut files[f].1);
            }
            what = format!("{}: {m} mutations", files[f].0);
        }
    }
    Case {
        template,
        files,
        what,
    }
}

/// What one run did.
struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    timed_out: bool,
}

/// Run the binary with `args` in `dir` under the memory limit; stderr goes to `err_file`.
fn run(dir: &Path, args: &[&str], err_file: &Path) -> Ran {
    let err = std::fs::File::create(err_file).unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} 2>/dev/null; exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_compclust"))
        .args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let mut wait = Duration::from_millis(1);
    let (status, timed_out) = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break (s, false);
        }
        if start.elapsed() > TIMEOUT {
            child.kill().ok();
            break (child.wait().unwrap(), true);
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(Duration::from_millis(20));
    };
    Ran {
        code: status.code(),
        signal: status.signal(),
        stderr: String::from_utf8_lossy(&std::fs::read(err_file).unwrap()).into_owned(),
        timed_out,
    }
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

fn earlier(name: &str) -> Vec<u8> {
    format!("earlier {name}\n").into_bytes()
}

/// Run one case: its exit status and what broke a promise (empty when none).
fn check(tp: &Template, c: &Case, scratch: &Path) -> (Option<i32>, Vec<String>) {
    let dir = scratch.join("case");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    for (n, b) in &c.files {
        std::fs::write(dir.join(n), b).unwrap();
    }
    for o in &tp.outputs {
        std::fs::write(dir.join(o), earlier(o)).unwrap();
    }
    let before = snapshot(&dir);
    let ran = run(&dir, &tp.args, &scratch.join("stderr"));
    let after = snapshot(&dir);
    let mut broken = Vec::new();
    let e = &ran.stderr;
    if ran.timed_out {
        broken.push(format!("no exit after {TIMEOUT:?}"));
    }
    if let Some(sig) = ran.signal {
        broken.push(format!("killed by signal {sig}"));
    }
    if e.contains("panicked") || e.contains("RUST_BACKTRACE") {
        broken.push("panicked".into());
    }
    for (n, b) in &c.files {
        if after.get(&dir.join(n)) != Some(b) {
            broken.push(format!("input {n} changed"));
        }
    }
    if after.keys().any(|p| {
        p.file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with(".compclust-"))
    }) {
        broken.push("a temporary file was left behind".into());
    }
    match ran.code {
        Some(0) => {
            for o in &tp.outputs {
                if after.get(&dir.join(o)) == Some(&earlier(o)) {
                    broken.push(format!("exit 0 but {o} was not written"));
                }
            }
        }
        Some(2) => {
            if after != before {
                broken.push("a failed run changed the folder".into());
            }
            let last = e.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            if !last.starts_with("error: ") {
                broken.push("no `error:` line last".into());
            }
            if last.chars().count() > 400 || e.lines().count() > 4 {
                broken.push("message too long".into());
            }
            if !c.files.iter().any(|(n, _)| last.contains(n)) {
                broken.push("the message names no input file".into());
            }
        }
        Some(3 | 4) if tp.outputs.contains(&"ask.csv") || tp.args[0] == "overlap" => {}
        Some(code) => broken.push(format!("undocumented exit status {code}")),
        None => {}
    }
    (ran.code, broken)
}

/// Valid study files of the two round commands, written by a first round.
fn setup(s: &Seeds) -> [String; 2] {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("items.txt"), &s.items).unwrap();
    std::fs::write(d.join("h.csv"), &s.answers_some).unwrap();
    std::fs::write(d.join("o.csv"), &s.same_cluster).unwrap();
    let round = |args: &str, study: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
            .args(args.split_whitespace())
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            matches!(o.status.code(), Some(0 | 3)),
            "{args}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::read_to_string(d.join(study)).unwrap()
    };
    [
        round(
            "hierarchy --answers h.csv --items items.txt --method cl --missing ask.csv \
             --study hs.toml --output tree.json --newick tree.nwk",
            "hs.toml",
        ),
        round(
            "overlap --answers o.csv --items items.txt --method find-membership --k 2 \
             --study os.toml --missing ask.csv --output est.csv",
            "os.toml",
        ),
    ]
}

/// A finished run's runs.csv (`experiment flat-noise`, one seed, 8 items), for `--replot` and
/// `--resume-from`.
fn runs_csv() -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args([
            "experiment",
            "flat-noise",
            "--quick",
            "--n",
            "8",
            "--seeds",
            "1",
        ])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(dir.path().join("runs.csv")).unwrap()
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn commands_never_panic_and_failed_runs_leave_every_file() {
    let s = seeds();
    let studies = setup(&s);
    let runs = runs_csv();
    let templates = templates(&s, &studies, &runs);
    let n = env_u64("COMPCLUST_FUZZ_COMMANDS", COMMAND_CASES);
    let seed = env_u64("COMPCLUST_FUZZ_SEED", 1);
    let workers = std::thread::available_parallelism()
        .map_or(2, |p| p.get())
        .min(4) as u64;
    let next = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    // Exit statuses per template: both sides (success and failure) must be reached.
    let statuses = Mutex::new(BTreeMap::<(&str, i32), u64>::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let scratch = tempfile::tempdir().unwrap();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let c = case(&templates, seed, i);
                    let tp = &templates[c.template];
                    let (code, broken) = check(tp, &c, scratch.path());
                    *statuses
                        .lock()
                        .unwrap()
                        .entry((tp.name, code.unwrap_or(-1)))
                        .or_default() += 1;
                    if !broken.is_empty() {
                        let e = std::fs::read_to_string(scratch.path().join("stderr"))
                            .unwrap_or_default();
                        failures.lock().unwrap().push(format!(
                            "case {i} `{}` ({}): {}\n  stderr: {}",
                            tp.name,
                            c.what,
                            broken.join("; "),
                            tail(&e, 600)
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let statuses = statuses.into_inner().unwrap();
    println!("exit statuses per command: {statuses:?}");
    println!(
        "seed {seed}: {n} cases over {} commands in {:.1} s, {} broke a promise",
        templates.len(),
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} cases broke a promise:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // The generator reaches both sides of every command: runs that succeed (or ask for more
    // answers) and runs that fail.
    for tp in &templates {
        let count = |ok: bool| {
            statuses
                .iter()
                .filter(|((name, code), _)| *name == tp.name && (*code != 2) == ok)
                .map(|(_, k)| k)
                .sum::<u64>()
        };
        assert!(
            n < 20 * templates.len() as u64 || (count(true) > 0 && count(false) > 0),
            "`{}`: {} runs succeeded, {} failed",
            tp.name,
            count(true),
            count(false)
        );
    }
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> String {
    let skip = s.chars().count().saturating_sub(n);
    s.chars().skip(skip).collect()
}
