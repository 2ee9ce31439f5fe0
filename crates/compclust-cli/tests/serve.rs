//! `compclust serve` end to end on loopback: simulated participants (`compclust_server::crowd`)
//! answer a served study over HTTP; the study's result equals the offline command run on the
//! exported answers; a `kill -9` in the middle loses no acknowledged answer.
//!
//! Every test is bounded: the crowd stops after `MAX_SECONDS`, the server is killed when the
//! test ends.

// Test fixtures are written directly (the CLI's own outputs go through `Outputs`).
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use compclust::data::read_membership_named;
use compclust_server::crowd::{CrowdOptions, CrowdReport, Hold, Truth, run_blocking};
use serde_json::Value;
use std::sync::Arc;

const TOKEN: &str = "test-admin-token";
const MAX_SECONDS: f64 = 60.0;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_compclust")
}

/// A server child process, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `compclust serve` and wait for its `listening on` line.
fn serve(study: &Path, db: &str, bind: &str) -> Server {
    // Simulated participants answer without thinking: a rate far above people's.
    serve_with(
        study,
        db,
        bind,
        &["--rate-limit", "100000", "--burst", "100000"],
    )
}

/// [`serve`] with more flags.
fn serve_with(study: &Path, db: &str, bind: &str, flags: &[&str]) -> Server {
    let mut child = Command::new(bin())
        .args(["serve", "--study"])
        .arg(study)
        .args(["--db", db])
        .args(["--bind", bind, "--admin-token", TOKEN])
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start compclust serve");
    let url = common::listening_url(&mut child);
    Server { child, url }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn get(url: &str, token: Option<&str>) -> (u16, String) {
    rt().block_on(async {
        let c = reqwest::Client::new();
        let mut r = c.get(url);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        let r = r.send().await.expect("GET");
        (r.status().as_u16(), r.text().await.unwrap())
    })
}

fn post(url: &str, body: &str) -> (u16, Value) {
    rt().block_on(async {
        let r = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("POST");
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    })
}

fn admin_json(s: &Server, study: &str, what: &str) -> Value {
    let (code, text) = get(
        &format!("{}/api/studies/{study}/{what}", s.url),
        Some(TOKEN),
    );
    assert_eq!(code, 200, "{what}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// Items `i0..i{n-1}` in `k` equal clusters: the items file and the truth file.
fn planted(dir: &Path, n: usize, k: usize) -> (PathBuf, PathBuf) {
    let items = dir.join("items.txt");
    let truth = dir.join("truth.csv");
    let names: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
    std::fs::write(&items, names.join("\n") + "\n").unwrap();
    let mut t = String::from("item,cluster\n");
    for (i, name) in names.iter().enumerate() {
        t.push_str(&format!("{name},{}\n", i * k / n));
    }
    std::fs::write(&truth, t).unwrap();
    (items, truth)
}

fn truth(path: &Path) -> Truth {
    let (items, membership, _) = read_membership_named(path, None).unwrap();
    Truth { items, membership }
}

fn crowd(
    url: &str,
    study: &str,
    participants: usize,
    flip: f64,
    leave: f64,
    t: Truth,
) -> CrowdReport {
    crowd_held(url, study, participants, flip, leave, t, None)
}

/// [`crowd`] with a [`Hold`].
fn crowd_held(
    url: &str,
    study: &str,
    participants: usize,
    flip: f64,
    leave: f64,
    t: Truth,
    hold: Option<Arc<Hold>>,
) -> CrowdReport {
    let opts = CrowdOptions {
        server: url.to_string(),
        study: study.to_string(),
        participants,
        flip,
        think_ms: 0,
        leave,
        seed: 3,
        max_seconds: MAX_SECONDS,
        prefix: "p".into(),
        hold,
    };
    run_blocking(opts, t).expect("crowd")
}

/// The store of a test: an SQLite file in `dir`.
fn sqlite(dir: &Path, name: &str) -> String {
    format!("sqlite:{}", dir.join(name).display())
}

/// Where a test keeps its answers: a store URL for (folder, name).
type Db<'a> = &'a dyn Fn(&Path, &str) -> String;

fn write_study(dir: &Path, text: &str) -> PathBuf {
    write_study_as(dir, "study.toml", text)
}

fn write_study_as(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Export the answers (compclust format) to `dir/answers.csv`.
fn export(s: &Server, study: &str, dir: &Path) -> PathBuf {
    let (code, csv) = get(
        &format!("{}/api/studies/{study}/answers.csv", s.url),
        Some(TOKEN),
    );
    assert_eq!(code, 200, "{csv}");
    let p = dir.join("answers.csv");
    std::fs::write(&p, csv).unwrap();
    p
}

fn run_cli(args: &[&str]) -> i32 {
    let out = Command::new(bin()).args(args).output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 4,
        "compclust {args:?}: exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    code
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_served_cl_hierarchy_equals_the_offline_rounds_on_its_answers() {
    cl_case(&sqlite, "h");
}

fn cl_case(db: Db, h: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 12, 3);
    let study = write_study(
        dir.path(),
        &format!(
            "id = \"{h}\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\n\
             algorithm = \"cl\"\nseed = 5\nanswers_per_question = 1\ncode = \"DONE-H\"\n"
        ),
    );
    let server = serve(&study, &db(dir.path(), "h.db"), "127.0.0.1:0");
    let r = crowd(&server.url, h, 6, 0.1, 0.0, truth(&truth_csv));
    assert_eq!(r.code.as_deref(), Some("DONE-H"));
    let status = admin_json(&server, h, "status");
    assert_eq!(status["done"], true, "{status}");
    assert_eq!(
        status["answers"].as_u64().unwrap() as usize,
        r.acknowledged.len()
    );
    let result = admin_json(&server, h, "result");
    assert_eq!(result["kind"], "hierarchy");
    assert_eq!(result["partial"], false);
    let answers = export(&server, h, dir.path());
    let tree = dir.path().join("tree.json");
    run_cli(&[
        "hierarchy",
        "--method",
        "cl",
        "--seed",
        "5",
        "--answers",
        s(&answers),
        "--items",
        s(&items),
        "--output",
        s(&tree),
    ]);
    let offline: Value = serde_json::from_str(&std::fs::read_to_string(&tree).unwrap()).unwrap();
    assert_eq!(result["dendrogram"], offline);
}

/// The tree of `compclust hierarchy ARGS --items ITEMS --output tree.json` in `dir`.
fn offline_tree(dir: &Path, items: &Path, args: &[&str]) -> Value {
    let tree = dir.join("tree.json");
    let mut all: Vec<&str> = vec!["hierarchy"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--items", s(items), "--output", s(&tree)]);
    assert_eq!(run_cli(&all), 0, "{all:?}");
    serde_json::from_str(&std::fs::read_to_string(&tree).unwrap()).unwrap()
}

/// Three noisy answers per question combined by one-coin Dawid–Skene: the served study and
/// `compclust hierarchy --answers … --aggregate dawid-skene` on its answers agree.
#[test]
fn a_served_cl_with_dawid_skene_equals_the_offline_rounds_with_dawid_skene() {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 10, 2);
    let study = write_study(
        dir.path(),
        "id = \"d\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"cl\"\n\
         seed = 5\nanswers_per_question = 3\n[parameters]\naggregate = \"dawid-skene\"\n",
    );
    let server = serve(&study, &sqlite(dir.path(), "d.db"), "127.0.0.1:0");
    crowd(&server.url, "d", 6, 0.2, 0.0, truth(&truth_csv));
    let result = admin_json(&server, "d", "result");
    assert_eq!(result["partial"], false, "{result}");
    let answers = export(&server, "d", dir.path());
    let offline = offline_tree(
        dir.path(),
        &items,
        &[
            "--method",
            "cl",
            "--seed",
            "5",
            "--aggregate",
            "dawid-skene",
            "--answers",
            s(&answers),
        ],
    );
    assert_eq!(result["dendrogram"], offline);
}

/// Passive 4-AL over a drawn design of `budget` quadruplets: the served tree equals
/// `compclust hierarchy --method 4al --input` on its answers.
#[test]
fn a_served_4al_design_equals_compclust_hierarchy_4al_on_its_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 10, 2);
    let study = write_study(
        dir.path(),
        "id = \"a\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"4al\"\n\
         budget = 150\nseed = 6\n",
    );
    let server = serve(&study, &sqlite(dir.path(), "a.db"), "127.0.0.1:0");
    let r = crowd(&server.url, "a", 4, 0.1, 0.0, truth(&truth_csv));
    assert_eq!(r.acknowledged.len(), 150);
    let result = admin_json(&server, "a", "result");
    assert_eq!(result["partial"], false, "{result}");
    let answers = export(&server, "a", dir.path());
    let offline = offline_tree(
        dir.path(),
        &items,
        &["--method", "4al", "--seed", "6", "--input", s(&answers)],
    );
    assert_eq!(result["dendrogram"], offline);
    // cblearn's quadruplet rows `i,j,k,l` ((i, j) the more similar pair): the same tree.
    let (code, text) = get(
        &format!("{}/api/studies/a/answers.csv?format=cblearn", server.url),
        Some(TOKEN),
    );
    assert_eq!(code, 200, "{text}");
    assert_eq!(text.lines().count(), 150);
    let file = dir.path().join("cblearn.csv");
    std::fs::write(&file, text).unwrap();
    let from_cblearn = offline_tree(
        dir.path(),
        &items,
        &[
            "--method",
            "4al",
            "--seed",
            "6",
            "--input",
            s(&file),
            "--format",
            "list-order",
        ],
    );
    assert_eq!(from_cblearn, offline);
    let (code, text) = get(
        &format!("{}/api/studies/a/answers.csv?format=salmon", server.url),
        Some(TOKEN),
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((code, v["field"].as_str()), (400, Some("format")), "{v}");
}

#[test]
fn a_served_clique_cover_with_redundancy_and_people_who_leave_equals_the_offline_run() {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 12, 3);
    let study = write_study(
        dir.path(),
        "id = \"o\"\nitems = \"items.txt\"\nquestion = \"same-cluster\"\n\
         algorithm = \"clique-cover\"\nseed = 2\nanswers_per_question = 2\nreissue_after_s = 1\n",
    );
    let server = serve(&study, &sqlite(dir.path(), "o.db"), "127.0.0.1:0");
    let r = crowd(&server.url, "o", 8, 0.0, 0.05, truth(&truth_csv));
    assert!(r.left > 0, "nobody left: the re-issue is not exercised");
    // Those who left hold questions that are re-issued after the timeout: a second crowd
    // finishes the study.
    let status = admin_json(&server, "o", "status");
    if status["done"] != true {
        crowd(&server.url, "o", 4, 0.0, 0.0, truth(&truth_csv));
    }
    let status = admin_json(&server, "o", "status");
    assert_eq!(status["done"], true, "{status}");
    let result = admin_json(&server, "o", "result");
    let answers = export(&server, "o", dir.path());
    let (code, text) = get(
        &format!("{}/api/studies/o/answers.csv?format=cblearn", server.url),
        Some(TOKEN),
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((code, v["field"].as_str()), (400, Some("format")), "{v}");
    let est = dir.path().join("est.csv");
    run_cli(&[
        "overlap",
        "--method",
        "clique-cover",
        "--seed",
        "2",
        "--answers",
        s(&answers),
        "--items",
        s(&items),
        "--output",
        s(&est),
    ]);
    let (idx, m, _) = read_membership_named(&est, None).unwrap();
    let offline: BTreeMap<String, Vec<u32>> = (0..idx.len())
        .map(|i| (idx.label(i).to_string(), m.clusters_of(i).to_vec()))
        .collect();
    let served: BTreeMap<String, Vec<u32>> =
        serde_json::from_value(result["membership"].clone()).unwrap();
    assert_eq!(served, offline);
    // Every pair was answered at least twice, and the noiseless crowd recovers the truth.
    let distinct: BTreeSet<Vec<u32>> = offline.values().cloned().collect();
    assert_eq!(distinct.len(), 3, "{offline:?}");
}

/// The membership written by `compclust overlap --answers` (as item → clusters).
fn offline_membership(dir: &Path, items: &Path, args: &[&str]) -> BTreeMap<String, Vec<u32>> {
    let est = dir.join("est.csv");
    let mut all: Vec<&str> = vec!["overlap"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--items", s(items), "--output", s(&est)]);
    assert_eq!(run_cli(&all), 0, "{all:?}");
    let (idx, m, _) = read_membership_named(&est, None).unwrap();
    (0..idx.len())
        .map(|i| (idx.label(i).to_string(), m.clusters_of(i).to_vec()))
        .collect()
}

/// One server, two studies (FindSimilarity with direct counts, and triangle-count with yes /
/// no answers) answered at once by two crowds: each study's result equals the offline run on
/// its own exported answers, and neither sees the other's answers.
#[test]
fn two_studies_on_one_server_find_similarity_and_triangle_count_equal_the_offline_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 12, 3);
    let fs = write_study_as(
        dir.path(),
        "fs.toml",
        "id = \"fs\"\nitems = \"items.txt\"\nquestion = \"same-cluster\"\n\
         algorithm = \"find-similarity\"\nseed = 3\n[parameters]\nk = 3\ndelta = 1\n",
    );
    let tc = write_study_as(
        dir.path(),
        "tc.toml",
        "id = \"tc\"\nitems = \"items.txt\"\nquestion = \"same-cluster\"\n\
         algorithm = \"triangle-count\"\nseed = 4\n[parameters]\nk = 3\ndelta = 1\n",
    );
    let server = serve_with(
        &fs,
        &sqlite(dir.path(), "two.db"),
        "127.0.0.1:0",
        &["--study", s(&tc), "--rate-limit", "0"],
    );
    let (url1, url2) = (server.url.clone(), server.url.clone());
    let (t1, t2) = (truth(&truth_csv), truth(&truth_csv));
    let a = std::thread::spawn(move || crowd(&url1, "fs", 4, 0.0, 0.0, t1));
    let b = std::thread::spawn(move || crowd(&url2, "tc", 4, 0.0, 0.0, t2));
    let (ra, rb) = (a.join().unwrap(), b.join().unwrap());
    for (id, r, method, seed) in [
        ("fs", &ra, "find-similarity", "3"),
        ("tc", &rb, "triangle-count", "4"),
    ] {
        let status = admin_json(&server, id, "status");
        assert_eq!(status["done"], true, "{id}: {status}");
        assert_eq!(status["answers"], r.acknowledged.len(), "{id}: {status}");
        let result = admin_json(&server, id, "result");
        let answers = export(&server, id, dir.path());
        let text = std::fs::read_to_string(&answers).unwrap();
        assert_eq!(
            text.lines().count() - 1,
            r.acknowledged.len(),
            "{id} exports its own answers only"
        );
        let offline = offline_membership(
            dir.path(),
            &items,
            &[
                "--method",
                method,
                "--k",
                "3",
                "--seed",
                seed,
                "--answers",
                s(&answers),
                "--delta",
                "1",
            ],
        );
        let served: BTreeMap<String, Vec<u32>> =
            serde_json::from_value(result["membership"].clone()).unwrap();
        assert_eq!(served, offline, "{id}");
        let distinct: BTreeSet<&Vec<u32>> = served.values().collect();
        assert_eq!(
            distinct.len(),
            3,
            "{id}: the noiseless crowd's 3 clusters: {served:?}"
        );
    }
}

/// `compclust crowd --planted 3` answers from the study's items in 3 equal clusters: the same
/// answers, and so the same tree, as a crowd given that truth as a file.
#[test]
fn compclust_crowd_planted_answers_as_the_same_truth_given_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (_, truth_csv) = planted(dir.path(), 12, 3);
    let text = |id: &str| {
        format!(
            "id = \"{id}\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\n\
             algorithm = \"cl\"\nseed = 8\n"
        )
    };
    let x = write_study_as(dir.path(), "x.toml", &text("x"));
    let y = write_study_as(dir.path(), "y.toml", &text("y"));
    let server = serve_with(
        &x,
        &sqlite(dir.path(), "xy.db"),
        "127.0.0.1:0",
        &["--study", s(&y), "--rate-limit", "0"],
    );
    let out = Command::new(bin())
        .args(["crowd", "--server", &server.url, "--study", "x"])
        .args([
            "--planted",
            "3",
            "--participants",
            "4",
            "--max-seconds",
            "60",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crowd(&server.url, "y", 4, 0.0, 0.0, truth(&truth_csv));
    let (rx, ry) = (
        admin_json(&server, "x", "result"),
        admin_json(&server, "y", "result"),
    );
    assert_eq!(rx["partial"], false, "{rx}");
    assert_eq!(rx["dendrogram"], ry["dendrogram"]);
    // --planted needs a K the study can hold; --truth and --planted exclude each other.
    for bad in [
        vec!["--planted", "13"],
        vec!["--planted", "3", "--truth", s(&truth_csv)],
    ] {
        let out = Command::new(bin())
            .args(["crowd", "--server", &server.url, "--study", "x"])
            .args(&bad)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?}");
    }
}

#[test]
fn a_served_adds_spur_design_equals_compclust_cluster_on_its_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (items, truth_csv) = planted(dir.path(), 15, 3);
    let study = write_study(
        dir.path(),
        "id = \"f\"\nitems = \"items.txt\"\nquestion = \"triplet\"\nalgorithm = \"adds-spur\"\n\
         budget = 400\nseed = 4\nquestions_per_participant = 100\n",
    );
    let server = serve(&study, &sqlite(dir.path(), "f.db"), "127.0.0.1:0");
    let r = crowd(&server.url, "f", 5, 0.1, 0.0, truth(&truth_csv));
    assert_eq!(r.acknowledged.len(), 400);
    // The last answer started the fit: the status says when its result is ready.
    let status = final_status(&server, "f");
    assert_eq!(
        (&status["done"], &status["result"]),
        (&Value::Bool(true), &"ready".into())
    );
    let result = admin_json(&server, "f", "result");
    assert_eq!(result["partial"], false, "{result}");
    let answers = export(&server, "f", dir.path());
    let labels = dir.path().join("labels.csv");
    run_cli(&[
        "cluster",
        "--input",
        s(&answers),
        "--items",
        s(&items),
        "--seed",
        "4",
        "--output",
        s(&labels),
    ]);
    let text = std::fs::read_to_string(&labels).unwrap();
    let offline: BTreeMap<String, u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.to_string(), b.parse().unwrap())
        })
        .collect();
    let served: BTreeMap<String, u64> = serde_json::from_value(result["labels"].clone()).unwrap();
    assert_eq!(served, offline);
    // The cblearn and salmon exports hold the same answers: the same clusters from each.
    for (format, reader) in [("cblearn", "list-order"), ("salmon", "salmon")] {
        let (code, text) = get(
            &format!("{}/api/studies/f/answers.csv?format={format}", server.url),
            Some(TOKEN),
        );
        assert_eq!(code, 200, "{text}");
        let file = dir.path().join(format!("{format}.csv"));
        std::fs::write(&file, text).unwrap();
        let out = dir.path().join(format!("{format}-labels.csv"));
        run_cli(&[
            "cluster",
            "--input",
            s(&file),
            "--format",
            reader,
            "--items",
            s(&items),
            "--seed",
            "4",
            "--output",
            s(&out),
        ]);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            text_of(&labels),
            "{format}"
        );
    }
}

#[test]
fn the_status_says_that_the_final_fit_failed_before_and_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    // One item more than an n × n similarity may have (docs/FORMATS.md, "Limits"): the study
    // asks its question, the fit of the answer cannot run.
    let n = compclust::limits::MAX_DENSE_ITEMS + 1;
    let (_, truth_csv) = planted(dir.path(), n, 2);
    let study = write_study(
        dir.path(),
        "id = \"big\"\nitems = \"items.txt\"\nquestion = \"triplet\"\n\
         algorithm = \"adds-spur\"\nbudget = 1\nseed = 1\n",
    );
    let db = sqlite(dir.path(), "big.db");
    let server = serve(&study, &db, "127.0.0.1:0");
    let r = crowd(&server.url, "big", 1, 0.0, 0.0, truth(&truth_csv));
    assert_eq!(r.acknowledged.len(), 1);
    let check = |server: &Server, when: &str| {
        let status = final_status(server, "big");
        assert_eq!(status["done"], true, "{when}: {status}");
        assert_eq!(status["result"], "failed", "{when}: {status}");
        let error = status["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("65536"),
            "{when}: the limit is named: {status}"
        );
        let result = admin_json(server, "big", "result");
        assert_eq!(result["error"], status["error"], "{when}");
    };
    check(&server, "before the restart");
    drop(server);
    check(&serve(&study, &db, "127.0.0.1:0"), "after the restart");
}

/// The status of a finished study once its final fit has ended (polled; at most 60 s).
fn final_status(s: &Server, study: &str) -> Value {
    for _ in 0..240 {
        let status = admin_json(s, study, "status");
        if status["result"] != "computing" {
            return status;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("the final fit of `{study}` did not end within 60 s");
}

fn text_of(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn the_http_contract_refuses_bad_requests_with_the_field_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path(), 6, 2);
    let study = write_study(
        dir.path(),
        "id = \"c\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"sl\"\n",
    );
    let server = serve(&study, &sqlite(dir.path(), "c.db"), "127.0.0.1:0");
    let u = |p: &str| format!("{}{p}", server.url);
    let (code, v) = post(&u("/api/next"), r#"{"study": "c"}"#);
    assert_eq!(
        (code, v["field"].as_str()),
        (400, Some("participant")),
        "{v}"
    );
    let (code, v) = post(&u("/api/next"), r#"{"study": "nope", "participant": "a"}"#);
    assert_eq!((code, v["field"].as_str()), (400, Some("study")), "{v}");
    let (code, v) = post(&u("/api/next"), "not json");
    assert_eq!(code, 400, "{v}");
    let (code, _) = post(
        &u("/api/next"),
        &format!("{{\"x\": \"{}\"}}", "a".repeat(10_000)),
    );
    assert_eq!(code, 413);
    let (code, q) = post(&u("/api/next"), r#"{"study": "c", "participant": "a"}"#);
    assert_eq!(code, 200);
    assert_eq!(q["kind"], "quadruplet");
    assert_eq!(q["items"].as_array().unwrap().len(), 4);
    let qid = q["question"].as_str().unwrap();
    // The same participant asking again gets the question it holds.
    let (_, again) = post(&u("/api/next"), r#"{"study": "c", "participant": "a"}"#);
    assert_eq!(again["question"], q["question"]);
    let answer = |who: &str, a: &str| {
        post(
            &u("/api/answer"),
            &format!(
                r#"{{"study": "c", "participant": "{who}", "question": "{qid}", "answer": {a}, "ms": 10}}"#
            ),
        )
    };
    let (code, v) = answer("a", "2");
    assert_eq!((code, v["field"].as_str()), (400, Some("answer")), "{v}");
    let (code, v) = answer("a", "\"left\"");
    assert_eq!((code, v["field"].as_str()), (400, Some("answer")), "{v}");
    let (code, v) = answer("b", "0");
    assert_eq!((code, v["field"].as_str()), (409, Some("question")), "{v}");
    let (code, v) = post(
        &u("/api/answer"),
        r#"{"study": "c", "participant": "a", "question": "q-0-1-2-99", "answer": 0}"#,
    );
    assert_eq!((code, v["field"].as_str()), (400, Some("question")), "{v}");
    assert_eq!(answer("a", "1").0, 200);
    assert_eq!(answer("a", "1").0, 200, "resubmitting is idempotent");
    let (code, v) = answer("a", "0");
    assert_eq!((code, v["field"].as_str()), (409, Some("answer")), "{v}");
    // Admin endpoints: 401 without the token or with another one.
    let (code, _) = get(&u("/api/studies/c/status"), None);
    assert_eq!(code, 401);
    let (code, _) = get(&u("/api/studies/c/status"), Some("test-admin-tokem"));
    assert_eq!(code, 401);
    let status = admin_json(&server, "c", "status");
    assert_eq!(status["answers"], 1, "{status}");
    assert_eq!(status["participants"], 1, "{status}");
    let (code, log) = get(&u("/api/studies/c/answers.csv?format=log"), Some(TOKEN));
    assert_eq!(code, 200);
    assert_eq!(log.lines().count(), 2, "{log}");
    let partial = admin_json(&server, "c", "result");
    assert_eq!(partial["partial"], true, "{partial}");
}

/// A question handed out before a `kill -9` is answered after the restart (its hand-out was
/// committed before it was sent); the participant who held it is handed it again; a
/// participant it was never handed to is still refused.
#[test]
fn an_answer_to_a_question_handed_out_before_a_restart_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path(), 6, 2);
    let study = write_study(
        dir.path(),
        "id = \"r\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"sl\"\n\
         answers_per_question = 2\n",
    );
    let db = sqlite(dir.path(), "r.db");
    let next = |url: &str, who: &str| {
        let (code, v) = post(
            &format!("{url}/api/next"),
            &format!(r#"{{"study": "r", "participant": "{who}"}}"#),
        );
        assert_eq!(code, 200, "{v}");
        v["question"].as_str().expect("a question").to_string()
    };
    let first = serve(&study, &db, "127.0.0.1:0");
    let qa = next(&first.url, "a");
    let qb = next(&first.url, "b");
    drop(first); // SIGKILL
    let second = serve(&study, &db, "127.0.0.1:0");
    let answer = |who: &str, q: &str| {
        post(
            &format!("{}/api/answer", second.url),
            &format!(r#"{{"study": "r", "participant": "{who}", "question": "{q}", "answer": 0}}"#),
        )
    };
    let (code, v) = answer("a", &qa);
    assert_eq!(code, 200, "{v}");
    let (code, v) = answer("c", &qa);
    assert_eq!((code, v["field"].as_str()), (409, Some("question")), "{v}");
    if qb != qa {
        let (code, v) = answer("a", &qb);
        assert_eq!((code, v["field"].as_str()), (409, Some("question")), "{v}");
    }
    assert_eq!(
        next(&second.url, "b"),
        qb,
        "b holds its question across the restart"
    );
    let status = admin_json(&second, "r", "status");
    assert_eq!(status["answers"], 1, "{status}");
}

/// A participant over its rate gets 429 with `Retry-After` and a JSON error naming the
/// field; others are not affected; past the bound on participants tracked at once, a new id
/// waits (429) while the known ones go on.
#[test]
fn a_participant_over_its_rate_gets_429_and_new_ids_wait_when_the_map_is_full() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path(), 6, 2);
    let study = write_study(
        dir.path(),
        "id = \"l\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"sl\"\n",
    );
    // One request per 100 s after a burst of 2: the third request at once is over the rate.
    let server = serve_with(
        &study,
        &sqlite(dir.path(), "l.db"),
        "127.0.0.1:0",
        &[
            "--rate-limit",
            "0.01",
            "--burst",
            "2",
            "--max-active-participants",
            "2",
        ],
    );
    let next = |who: &str| {
        rt().block_on(async {
            let r = reqwest::Client::new()
                .post(format!("{}/api/next", server.url))
                .body(format!(r#"{{"study": "l", "participant": "{who}"}}"#))
                .send()
                .await
                .unwrap();
            let retry = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            (r.status().as_u16(), retry, r.json::<Value>().await.unwrap())
        })
    };
    assert_eq!(next("a").0, 200);
    assert_eq!(next("a").0, 200);
    let (code, retry, v) = next("a");
    assert_eq!(
        (code, v["field"].as_str()),
        (429, Some("participant")),
        "{v}"
    );
    assert!(retry.is_some_and(|r| r.parse::<u64>().unwrap() >= 1), "{v}");
    assert!(v["retry_after_ms"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(next("b").0, 200, "b has a bucket of its own");
    let (code, _, v) = next("c");
    assert_eq!(code, 429, "a third participant while two are tracked: {v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("too many participants"),
        "{v}"
    );
    assert_eq!(next("b").0, 200, "b goes on");
}

/// `kill -9` while 200 participants answer, restart on the same store: every acknowledged
/// answer is stored once, and the result equals an uninterrupted run's.
#[test]
fn kill_9_loses_no_acknowledged_answer_and_the_study_ends_as_an_uninterrupted_one() {
    kill_case(&sqlite, "k");
}

fn kill_case(db: Db, k: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (_, truth_csv) = planted(dir.path(), 16, 4);
    let text = |id: &str| {
        format!(
            "id = \"{id}\"\nitems = \"items.txt\"\nquestion = \"quadruplet\"\nalgorithm = \"cl\"\n\
             seed = 9\nanswers_per_question = 1\nreissue_after_s = 2\n"
        )
    };
    let study = write_study(dir.path(), &text(k));
    // The uninterrupted run (its own study id: the store may be shared).
    let (reference, ref_answers) = {
        let rk = format!("{k}-ref");
        let ref_study = write_study_as(dir.path(), "ref.toml", &text(&rk));
        let server = serve(&ref_study, &db(dir.path(), "ref.db"), "127.0.0.1:0");
        crowd(&server.url, &rk, 200, 0.0, 0.0, truth(&truth_csv));
        let status = admin_json(&server, &rk, "status");
        assert_eq!(status["done"], true, "{status}");
        let answers = status["answers"].as_u64().unwrap();
        (admin_json(&server, &rk, "result"), answers)
    };
    // Kill after a fixed part of the answers, whatever the machine's speed: the crowd holds
    // every answer after the first `KILL_AFTER` until released, so the study cannot end
    // before the kill, and the held answers meet a dead server.
    const KILL_AFTER: usize = 300;
    assert!(
        ref_answers > KILL_AFTER as u64,
        "the study has {ref_answers} answers: make it larger than {KILL_AFTER}"
    );
    let db = db(dir.path(), "k.db");
    let first = serve(&study, &db, "127.0.0.1:0");
    let url = first.url.clone();
    let bind = url.strip_prefix("http://").unwrap().to_string();
    let t = truth(&truth_csv);
    let crowd_url = url.clone();
    let kk = k.to_string();
    let hold = Hold::new(KILL_AFTER);
    let h = hold.clone();
    let participants =
        std::thread::spawn(move || crowd_held(&crowd_url, &kk, 200, 0.0, 0.0, t, Some(h)));
    let started = Instant::now();
    while !hold.reached() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no progress: {}",
            admin_json(&first, k, "status")
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let before = admin_json(&first, k, "status");
    assert_eq!(before["done"], false, "{before}");
    drop(first); // SIGKILL
    hold.release();
    std::thread::sleep(Duration::from_millis(300));
    let second = serve(&study, &db, &bind);
    let report = participants.join().unwrap();
    assert!(
        report.failed > 0,
        "no request failed: the kill came too late"
    );
    let status = admin_json(&second, k, "status");
    assert_eq!(status["done"], true, "{status}");
    let (code, log) = get(
        &format!("{url}/api/studies/{k}/answers.csv?format=log"),
        Some(TOKEN),
    );
    assert_eq!(code, 200);
    let mut stored = BTreeSet::new();
    for line in log.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
        assert!(stored.insert(key), "stored twice: {line}");
    }
    for (p, q, a) in &report.acknowledged {
        let key = (p.clone(), q.clone(), a.to_string());
        assert!(
            stored.contains(&key),
            "acknowledged but not stored: {key:?}"
        );
    }
    assert_eq!(admin_json(&second, k, "result"), reference);
}

/// The end-to-end and `kill -9` tests against PostgreSQL, when `COMPCLUST_TEST_POSTGRES`
/// gives a database URL (e.g. `postgres://compclust@127.0.0.1:5433/compclust`). Each run
/// uses study ids of its own, so the database may be reused.
#[cfg(feature = "postgres")]
mod postgres {
    use super::*;

    fn url() -> Option<String> {
        std::env::var("COMPCLUST_TEST_POSTGRES")
            .ok()
            .filter(|u| !u.is_empty())
    }

    fn run_id() -> String {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        format!("{}{}", std::process::id(), t.subsec_nanos())
    }

    #[test]
    fn a_served_cl_hierarchy_on_postgres_equals_the_offline_rounds() {
        let Some(u) = url() else {
            eprintln!("COMPCLUST_TEST_POSTGRES is not set: skipped");
            return;
        };
        cl_case(&move |_, _| u.clone(), &format!("h{}", run_id()));
    }

    #[test]
    fn kill_9_on_postgres_loses_no_acknowledged_answer() {
        let Some(u) = url() else {
            eprintln!("COMPCLUST_TEST_POSTGRES is not set: skipped");
            return;
        };
        kill_case(&move |_, _| u.clone(), &format!("k{}", run_id()));
    }
}
