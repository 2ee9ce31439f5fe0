//! The browser pages of `compclust serve` in headless Chromium (Debian's `chromium` and
//! `chromium-driver`), driven over WebDriver on loopback: a whole small study per question
//! kind (triplet with images, quadruplet with HTML items, same-cluster with text, and counts),
//! answered by two participants, one with the keyboard and one with clicks and taps, with
//! reloads, a double click, an answer left pending in the browser, a lost connection, a wait
//! for the other participant; then the answers stored (the admin export) must be exactly the
//! answers given, and the dashboard must draw the finished study.
//!
//! Without `chromedriver` (on PATH, or `COMPCLUST_CHROMEDRIVER`) the tests print why and
//! pass; with `COMPCLUST_REQUIRE_BROWSER=1` (CI) they fail instead. Screenshots go to
//! `COMPCLUST_SCREENSHOTS` when set (docs/figures/ of the repository), else to a temporary
//! folder. Every wait is bounded; the whole of each test is bounded by `TEST_BOUND`.

// Test fixtures are written directly (the CLI's own outputs go through `Outputs`).
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const TOKEN: &str = "pages-admin-token";
/// Upper bound of one test (the test fails, and every child process is killed, after it).
const TEST_BOUND: Duration = Duration::from_secs(300);
/// Upper bound of one wait for the page.
const WAIT: Duration = Duration::from_secs(30);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_compclust")
}

/// A child process killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The chromedriver to use, or `None` (the test is skipped) when there is none and the
/// environment does not require it.
fn chromedriver() -> Option<PathBuf> {
    let found = std::env::var_os("COMPCLUST_CHROMEDRIVER")
        .map(PathBuf::from)
        .or_else(|| on_path("chromedriver"));
    if found.is_none() {
        assert!(
            std::env::var_os("COMPCLUST_REQUIRE_BROWSER").is_none(),
            "COMPCLUST_REQUIRE_BROWSER is set but no chromedriver was found \
             (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "SKIPPED: no chromedriver on PATH (Debian: apt-get install chromium \
             chromium-driver); the browser pages were not tested"
        );
    }
    found
}

/// A loopback port nothing listens on, never the same twice in this test binary. The tests
/// run in parallel, and one of them lets its server's port go while the server restarts on
/// it: without the record, the kernel could hand that port to another test's chromedriver
/// meanwhile.
fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<BTreeSet<u16>> = std::sync::Mutex::new(BTreeSet::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
        if given.insert(port) {
            return port;
        }
    }
}

/// Start chromedriver on a loopback port and open a headless Chromium session.
async fn browser(driver: &Path, profile: &Path) -> (Proc, Client) {
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .arg("--allowed-ips=127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let proc = Proc(child);
    let mut args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-gpu".into(),
        "--no-first-run".into(),
        "--window-size=1100,850".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    args.push("--lang=en-US".into());
    let mut options = json!({ "args": args });
    if let Some(chromium) = std::env::var_os("COMPCLUST_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| on_path("chromium"))
    {
        options["binary"] = json!(chromium);
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let url = format!("http://127.0.0.1:{port}");
    // chromedriver takes a moment to listen: try for a bounded time.
    let mut last = String::new();
    for _ in 0..100 {
        match ClientBuilder::new(connector.clone())
            .capabilities(caps.clone())
            .connect(&url)
            .await
        {
            Ok(c) => return (proc, c),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no WebDriver session at {url}: {last}");
}

/// `compclust serve` on `port`, killed on drop.
fn serve(study: &Path, db: &str, port: u16) -> (Proc, String) {
    let child = Command::new(bin())
        .args(["serve", "--study"])
        .arg(study)
        .args(["--db", db, "--admin-token", TOKEN])
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start compclust serve");
    // Wrapped first, so that the server is killed if its first line is not the URL.
    let mut proc = Proc(child);
    let url = common::listening_url(&mut proc.0);
    (proc, url)
}

async fn admin_get(url: &str) -> (u16, String) {
    let r = reqwest::Client::new()
        .get(url)
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("GET");
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The stored answers: (participant, question, answer) from the admin export of the raw log.
async fn stored(url: &str, study: &str) -> Vec<(String, String, u32)> {
    let (code, text) =
        admin_get(&format!("{url}/api/studies/{study}/answers.csv?format=log")).await;
    assert_eq!(code, 200, "{text}");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (
                rec[1].to_string(),
                rec[2].to_string(),
                rec[3].parse().unwrap(),
            )
        })
        .collect()
}

/// What the page shows, read from its DOM.
#[derive(Debug, Clone, PartialEq)]
struct Shown {
    section: String,
    question: String,
    answer: String,
    items: Vec<String>,
    disabled: bool,
    status: String,
    code: String,
    progress: String,
}

const READ_PAGE: &str = r#"
const vis = [...document.querySelectorAll("main > section")].find((s) => !s.hidden);
const q = document.getElementById("question");
const b = q.querySelector("button, input");
return {
  section: vis ? vis.id : "",
  question: q.dataset.question || "",
  answer: q.querySelector("input") ? "count" : (q.querySelector("[data-answer=true]") ? "yes-no" : "0-1"),
  items: [...q.querySelectorAll("[data-item]")].map((e) => e.dataset.item),
  disabled: b ? b.disabled : true,
  status: document.getElementById("status").textContent,
  code: document.getElementById("code").textContent,
  progress: document.getElementById("progress-text").textContent,
};"#;

async fn read_page(c: &Client) -> Shown {
    let v = c.execute(READ_PAGE, vec![]).await.expect("read the page");
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Shown {
        section: s("section"),
        question: s("question"),
        answer: s("answer"),
        items: v["items"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default(),
        disabled: v["disabled"].as_bool().unwrap_or(true),
        status: s("status"),
        code: s("code"),
        progress: s("progress"),
    }
}

/// Wait (bounded) until the page shows what `ready` accepts.
async fn wait_for(c: &Client, what: &str, ready: impl Fn(&Shown) -> bool) -> Shown {
    let start = tokio::time::Instant::now();
    loop {
        let s = read_page(c).await;
        if ready(&s) {
            return s;
        }
        assert!(
            start.elapsed() < WAIT,
            "the page did not show {what} (it shows {s:?})"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// A question not answered yet, the wait, or the debrief.
async fn next_shown(c: &Client, answered: &BTreeSet<String>) -> Shown {
    wait_for(c, "a new question, the wait or the debrief", |s| {
        s.section == "debrief"
            || s.section == "wait"
            || (s.section == "ask" && !s.disabled && !answered.contains(&s.question))
    })
    .await
}

async fn press(c: &Client, key: char) {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    c.perform_actions(keys).await.expect("key press");
}

/// The truth of a planted study: the item's cluster.
type Truth = BTreeMap<String, usize>;

/// The true answer to the question shown, as the page's answer mode wants it.
fn true_answer(s: &Shown, truth: &Truth) -> u32 {
    let c = |i: usize| truth[&s.items[i]];
    match s.items.len() {
        3 => u32::from(c(0) == c(2) && c(0) != c(1)),
        4 => u32::from(c(2) == c(3) && c(0) != c(1)),
        2 => u32::from(c(0) == c(1)),
        n => panic!("{n} items shown"),
    }
}

/// How a participant answers.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Hand {
    Keyboard,
    Click,
}

/// Give answer `a` to the question shown.
async fn give(c: &Client, s: &Shown, a: u32, hand: Hand, turn: usize) {
    match (hand, s.answer.as_str()) {
        (Hand::Keyboard, "0-1") => {
            let key = match (a, turn % 2) {
                (0, 0) => Key::Left.into(),
                (0, _) => '1',
                (_, 0) => Key::Right.into(),
                _ => '2',
            };
            press(c, key).await;
        }
        (Hand::Keyboard, "yes-no") => press(c, if a == 1 { 'y' } else { 'n' }).await,
        (_, "count") => {
            let input = c.find(Locator::Css("#count")).await.unwrap();
            input.send_keys(&a.to_string()).await.unwrap();
            if hand == Hand::Keyboard {
                press(c, Key::Enter.into()).await;
            } else {
                let b = c.find(Locator::Css("#question button")).await.unwrap();
                b.click().await.unwrap();
            }
        }
        (Hand::Click, "yes-no") => {
            let sel = format!("#question button[data-answer='{}']", a == 1);
            c.find(Locator::Css(&sel))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        }
        (Hand::Click, _) => {
            let sel = format!("#question button[data-answer='{a}']");
            c.find(Locator::Css(&sel))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        }
        other => panic!("{other:?}"),
    }
}

/// A study, its truth, and where the screenshots go.
struct Case {
    dir: tempfile::TempDir,
    study: PathBuf,
    id: &'static str,
    truth: Truth,
    shots: PathBuf,
}

fn shots_dir(tmp: &Path) -> PathBuf {
    match std::env::var_os("COMPCLUST_SCREENSHOTS") {
        Some(d) => {
            let d = PathBuf::from(d);
            std::fs::create_dir_all(&d).unwrap();
            d
        }
        None => tmp.to_path_buf(),
    }
}

/// `n` items in `k` planted clusters named `{prefix}{i}`.
fn planted(prefix: &str, n: usize, k: usize) -> Truth {
    (0..n)
        .map(|i| (format!("{prefix}{i}"), i * k / n))
        .collect()
}

fn case(id: &'static str, truth: Truth, body: &str, setup: impl Fn(&Path)) -> Case {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let study = dir.path().join("study.toml");
    std::fs::write(
        &study,
        format!(
            "id = \"{id}\"\ntitle = \"Which are alike?\"\n\
             instructions = \"You will see a few items at a time. Pick what is more alike: \
             there are no wrong answers, go with your first impression.\"\n\
             debrief = \"Thank you for taking part.\"\ncode = \"CODE-{id}\"\nseed = 5\n{body}"
        ),
    )
    .unwrap();
    let shots = shots_dir(dir.path());
    Case {
        dir,
        study,
        id,
        truth,
        shots,
    }
}

/// A study of the items of `truth`, listed in the study file itself, with the rest of its
/// fields in `body`.
fn inline_case(id: &'static str, truth: Truth, body: &str) -> Case {
    let names: Vec<String> = truth.keys().map(|n| format!("\"{n}\"")).collect();
    let items = format!("items = [{}]\n{body}", names.join(", "));
    case(id, truth, &items, |_| {})
}

async fn shot(c: &Client, case: &Case, name: &str) {
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(case.shots.join(name), png).unwrap();
}

/// What the browser gave: (participant, question, answer).
type Given = BTreeSet<(String, String, u32)>;

/// The participants' side of a study, answered in the browser until both are done.
struct Run<'a> {
    c: &'a Client,
    case: &'a Case,
    url: String,
    given: Given,
    answered: BTreeMap<&'static str, BTreeSet<String>>,
    turn: usize,
    waited: bool,
}

impl<'a> Run<'a> {
    async fn open(&mut self, who: &str) {
        let u = format!("{}/s/{}?PROLIFIC_PID={who}", self.url, self.case.id);
        self.c.goto(&u).await.unwrap();
    }

    /// Answer up to `count` questions as `who`; returns whether the debrief was reached (a
    /// wait for the other participant ends the turn).
    async fn answer(&mut self, who: &'static str, hand: Hand, count: usize) -> bool {
        for _ in 0..count {
            let done = self.answered.entry(who).or_default().clone();
            let s = next_shown(self.c, &done).await;
            if s.section == "debrief" {
                assert_eq!(s.code, format!("CODE-{}", self.case.id));
                return true;
            }
            if s.section == "wait" {
                return false;
            }
            if !self.waited && self.open_questions().await == 1 {
                self.check_wait(who).await;
                continue;
            }
            let a = true_answer(&s, &self.case.truth);
            let k = done.len();
            if k == 2 && hand == Hand::Click && s.answer != "count" {
                // A double click answers once.
                let js = format!(
                    "const b = document.querySelector(\"#question button[data-answer='{}']\"); \
                     b.click(); b.click();",
                    if s.answer == "yes-no" {
                        (a == 1).to_string()
                    } else {
                        a.to_string()
                    }
                );
                self.c.execute(&js, vec![]).await.unwrap();
            } else {
                give(self.c, &s, a, hand, self.turn).await;
            }
            if k == 1 {
                // Reload at once: the answer is sent (or resent from the browser's storage).
                self.c.refresh().await.unwrap();
            }
            self.turn += 1;
            self.given.insert((who.to_string(), s.question.clone(), a));
            self.answered.entry(who).or_default().insert(s.question);
        }
        false
    }

    async fn open_questions(&self) -> u64 {
        let (code, text) =
            admin_get(&format!("{}/api/studies/{}/status", self.url, self.case.id)).await;
        assert_eq!(code, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()["open_questions"]
            .as_u64()
            .unwrap()
    }

    /// `who` holds the round's last open question: the other participant waits, and goes on by
    /// itself once it is answered.
    async fn check_wait(&mut self, who: &'static str) {
        let other = if who == "kb" { "tap" } else { "kb" };
        self.open(other).await;
        let start = wait_for(self.c, "the intro or the wait", |s| {
            s.section == "intro" || s.section == "wait"
        })
        .await;
        if start.section == "intro" {
            let b = self.c.find(Locator::Id("start")).await.unwrap();
            b.click().await.unwrap();
        }
        wait_for(self.c, "the please-wait state", |s| s.section == "wait").await;
        shot(
            self.c,
            self.case,
            &format!("server-{}-wait.png", self.case.id),
        )
        .await;
        self.waited = true;
        self.open(who).await;
    }
}

/// Start the participant's page: the intro, then Start by keyboard (Enter) or click.
async fn start(c: &Client, hand: Hand) {
    let s = wait_for(c, "the instructions", |s| {
        ["intro", "ask", "wait", "debrief"].contains(&s.section.as_str())
    })
    .await;
    if s.section == "intro" {
        let intro = c.find(Locator::Id("instructions")).await.unwrap();
        assert!(intro.text().await.unwrap().contains("first impression"));
        if hand == Hand::Keyboard {
            press(c, Key::Enter.into()).await;
        } else {
            c.find(Locator::Id("start"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        }
    }
}

/// Drive a whole study in the browser with two participants (keyboard `kb`, clicks `tap`),
/// in alternating blocks, and check the stored answers are exactly those given.
async fn drive(c: &Client, case: &Case, url: &str, before: Given) -> Given {
    let mut answered: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    for (who, q, _) in &before {
        let who = if who == "kb" { "kb" } else { "tap" };
        answered.entry(who).or_default().insert(q.clone());
    }
    let mut run = Run {
        c,
        case,
        url: url.to_string(),
        given: before,
        answered,
        turn: 0,
        waited: false,
    };
    let mut finished = BTreeSet::new();
    for block in 0..400 {
        let (who, hand) = if block % 2 == 0 {
            ("kb", Hand::Keyboard)
        } else {
            ("tap", Hand::Click)
        };
        if finished.contains(who) {
            if finished.len() == 2 {
                break;
            }
            continue;
        }
        run.open(who).await;
        start(c, hand).await;
        if block == 0 {
            let s = next_shown(c, &BTreeSet::new()).await;
            if case.id == "images" {
                assert_eq!(s.progress, "Question 1 of 12", "the quota is shown");
            }
            shot(c, case, &format!("server-{}-question.png", case.id)).await;
        }
        if run.answer(who, hand, 4).await {
            finished.insert(who);
        }
    }
    assert_eq!(finished.len(), 2, "both participants reach the debrief");
    let stored: Vec<_> = stored(url, case.id).await;
    let set: Given = stored.iter().cloned().collect();
    assert_eq!(set.len(), stored.len(), "no answer is stored twice");
    assert_eq!(set, run.given, "the answers stored are the answers given");
    assert!(run.waited, "a participant waited for the other's answer");
    run.given
}

/// Open the dashboard with the token and wait until it shows the finished study.
async fn dashboard(c: &Client, case: &Case, url: &str, answers: usize) {
    c.goto(&format!("{url}/admin/{}", case.id)).await.unwrap();
    let token = c
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Id("token"))
        .await
        .unwrap();
    token.send_keys(TOKEN).await.unwrap();
    press(c, Key::Enter.into()).await;
    let want = format!("#board[data-done='true'][data-answers='{answers}']");
    c.wait()
        .at_most(WAIT)
        .for_element(Locator::Css(&want))
        .await
        .expect("the dashboard shows the finished study");
    let rows = c.find_all(Locator::Css("#people tbody tr")).await.unwrap();
    assert_eq!(rows.len(), 2, "two participants");
}

fn sqlite(case: &Case) -> String {
    format!("sqlite:{}", case.dir.path().join("answers.db").display())
}

/// Run `body` with a browser, bounded by `TEST_BOUND`; skipped without chromedriver.
fn with_browser<F>(body: impl FnOnce(Client, PathBuf) -> F)
where
    F: std::future::Future<Output = ()>,
{
    let Some(driver) = chromedriver() else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let profile = tempfile::tempdir().unwrap();
        let (_driver, c) = browser(&driver, profile.path()).await;
        let end = c.clone();
        tokio::time::timeout(TEST_BOUND, body(c, profile.path().to_path_buf()))
            .await
            .expect("the test ran past its bound");
        let _ = end.close().await;
    });
}

/// A coloured disc per item: the clusters differ by hue.
fn write_images(dir: &Path, truth: &Truth) {
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    let hues = ["#c0392b", "#1f6fb2", "#2e8b3a"];
    for (i, (name, &k)) in truth.iter().enumerate() {
        let r = 30 + 8 * (i % 4);
        let svg = format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='160' height='120' viewBox='0 0 160 120'>\
             <rect width='160' height='120' fill='#f7f7f7'/>\
             <circle cx='80' cy='60' r='{r}' fill='{}'/>\
             <text x='80' y='114' font-size='14' text-anchor='middle' font-family='sans-serif'>{name}</text></svg>",
            hues[k % 3]
        );
        std::fs::write(images.join(format!("{name}.svg")), svg).unwrap();
    }
    std::fs::write(images.join("README.txt"), "not an item").unwrap();
}

#[test]
fn a_triplet_study_of_images_in_the_browser() {
    with_browser(|c, _| async move {
        let truth = planted("img", 6, 2);
        let t = truth.clone();
        let case = case(
            "images",
            truth,
            "items = \"images\"\nquestion = \"triplet\"\nalgorithm = \"adds-spur\"\nbudget = 14\n\
             questions_per_participant = 12\n",
            move |d| write_images(d, &t),
        );
        let (_server, url) = serve(&case.study, &sqlite(&case), 0);
        // An item image is served; nothing outside the folder is.
        let r = reqwest::get(format!("{url}/s/images/items/img0.svg"))
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["content-type"], "image/svg+xml");
        for bad in [
            "..%2Fstudy.toml",
            "README.txt",
            "%2E%2E%2Fanswers.db",
            "img9.svg",
        ] {
            let r = reqwest::get(format!("{url}/s/images/items/{bad}"))
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 404, "{bad}");
        }
        // Participants' pages do not reach the result or the answers.
        let r = reqwest::get(format!("{url}/api/studies/images/result"))
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 401);
        let given = drive(&c, &case, &url, Given::new()).await;
        c.set_window_size(1100, 1500).await.unwrap();
        dashboard(&c, &case, &url, given.len()).await;
        c.find(Locator::Css("#result canvas.heatmap"))
            .await
            .unwrap();
        let clusters = c.find_all(Locator::Css("#result .cluster")).await.unwrap();
        assert!(!clusters.is_empty());
        shot(&c, &case, "server-dashboard-flat.png").await;
    });
}

#[test]
fn a_quadruplet_hierarchy_of_html_items_in_the_browser_survives_a_lost_connection() {
    with_browser(|c, _| async move {
        let truth = planted("h", 6, 2);
        // Fruit (h0-h2) and trees (h3-h5), shown as HTML.
        let words = ["Apple", "Pear", "Plum", "Oak", "Elm", "Ash"];
        let mut html = String::from("[html]\n");
        for name in truth.keys() {
            let w = words[name[1..].parse::<usize>().unwrap()];
            html.push_str(&format!(
                "{name} = \"<b>{w}</b> <small>({name})</small>\"\n"
            ));
        }
        let case = inline_case(
            "quads",
            truth,
            &format!("question = \"quadruplet\"\nalgorithm = \"cl\"\n{html}"),
        );
        let port = free_port();
        let server = serve(&case.study, &sqlite(&case), port);
        let url = server.1.clone();
        // A lost connection: the server goes away while a question is shown; the answer
        // waits in the browser and is resent once the server is back (which kept the hand-out
        // through the restart, so it takes the answer).
        c.goto(&format!("{url}/s/quads?participant=kb"))
            .await
            .unwrap();
        start(&c, Hand::Click).await;
        let s = next_shown(&c, &BTreeSet::new()).await;
        shot(&c, &case, "server-quads-question.png").await;
        drop(server);
        give(&c, &s, true_answer(&s, &case.truth), Hand::Click, 0).await;
        wait_for(&c, "the lost-connection notice", |p| {
            p.status.contains("lost")
        })
        .await;
        let (_server, url2) = serve(&case.study, &sqlite(&case), port);
        assert_eq!(url, url2);
        let a = true_answer(&s, &case.truth);
        let mut answered = BTreeSet::new();
        answered.insert(s.question.clone());
        next_shown(&c, &answered).await;
        let first = vec![("kb".to_string(), s.question.clone(), a)];
        assert_eq!(stored(&url, "quads").await, first);
        let given = drive(&c, &case, &url, first.into_iter().collect()).await;
        c.set_window_size(1100, 1000).await.unwrap();
        dashboard(&c, &case, &url, given.len()).await;
        let labels = c.find_all(Locator::Css("#result svg text")).await.unwrap();
        assert_eq!(labels.len(), 6, "the dendrogram names every item");
        shot(&c, &case, "server-dashboard-hierarchy.png").await;
    });
}

#[test]
fn a_same_cluster_study_in_the_browser_at_phone_width() {
    with_browser(|c, _| async move {
        c.set_window_size(390, 844).await.unwrap();
        let case = inline_case(
            "pairs",
            planted("w", 6, 2),
            "question = \"same-cluster\"\nalgorithm = \"clique-cover\"\n",
        );
        let (_server, url) = serve(&case.study, &sqlite(&case), 0);
        // An answer left pending in the browser (the page closed before sending it) is sent
        // when the page is opened again.
        c.goto(&format!("{url}/s/pairs?workerId=kb")).await.unwrap();
        start(&c, Hand::Keyboard).await;
        let s = next_shown(&c, &BTreeSet::new()).await;
        shot(&c, &case, "server-pairs-phone.png").await;
        let a = true_answer(&s, &case.truth);
        let js = format!(
            "localStorage.setItem('compclust:pairs:kb', JSON.stringify({{started: true, \
             pending: {{question: '{}', answer: {}, ms: 900}}}}));",
            s.question,
            a == 1
        );
        c.execute(&js, vec![]).await.unwrap();
        c.refresh().await.unwrap();
        let mut answered = BTreeSet::new();
        answered.insert(s.question.clone());
        next_shown(&c, &answered).await;
        assert_eq!(
            stored(&url, "pairs").await,
            vec![("kb".to_string(), s.question.clone(), a)]
        );
        let before: Given = [("kb".to_string(), s.question, a)].into_iter().collect();
        let given = drive(&c, &case, &url, before).await;
        c.set_window_size(1100, 1100).await.unwrap();
        dashboard(&c, &case, &url, given.len()).await;
        let rows = c
            .find_all(Locator::Css("#membership tbody tr"))
            .await
            .unwrap();
        assert_eq!(rows.len(), 6, "a membership row per item");
    });
}

#[test]
fn a_counting_study_in_the_browser() {
    with_browser(|c, _| async move {
        let case = inline_case(
            "counts",
            planted("c", 5, 2),
            "question = \"same-cluster\"\nalgorithm = \"find-similarity\"\n[parameters]\nk = 2\n",
        );
        let (_server, url) = serve(&case.study, &sqlite(&case), 0);
        drive(&c, &case, &url, Given::new()).await;
    });
}

#[test]
fn an_mturk_preview_asks_nothing_and_an_accepted_hit_is_submitted_back_with_its_code() {
    with_browser(|c, _| async move {
        let case = inline_case(
            "mturk",
            planted("m", 6, 2),
            "question = \"quadruplet\"\nalgorithm = \"4al\"\nbudget = 1\n",
        );
        let (_server, url) = serve(&case.study, &sqlite(&case), 0);
        let hit = "hitId=H1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com";
        // A worker previews the HIT: the instructions, and no way to start.
        let preview = format!("{url}/s/mturk?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&{hit}");
        c.goto(&preview).await.unwrap();
        wait_for(&c, "the instructions", |s| s.section == "intro").await;
        let button = c.find(Locator::Id("start")).await.unwrap();
        assert!(
            !button.is_enabled().await.unwrap(),
            "a preview cannot start"
        );
        assert!(button.text().await.unwrap().contains("Accept the HIT"));
        shot(&c, &case, "server-mturk-preview.png").await;
        // The worker accepts: the study's only question is theirs (the preview held nothing).
        let accepted = format!("{url}/s/mturk?assignmentId=A1&workerId=W1&{hit}");
        c.goto(&accepted).await.unwrap();
        start_and_answer_one(&c, &case).await;
        let s = wait_for(&c, "the debrief", |s| s.section == "debrief").await;
        assert_eq!(s.code, "CODE-mturk");
        let form = c
            .execute(
                "const f = document.getElementById('mturk-submit'); \
                 return {hidden: f.hidden, action: f.action, method: f.method, \
                 assignment: f.elements.assignmentId.value, code: f.elements.code.value};",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            form,
            json!({"hidden": false, "action": "https://workersandbox.mturk.com/mturk/externalSubmit",
                   "method": "post", "assignment": "A1", "code": "CODE-mturk"})
        );
        let stored = stored(&url, case.id).await;
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].0, "W1", "the answer is the worker's");
        // Outside MTurk (no assignment) the debrief has no submit form.
        c.goto(&format!("{url}/s/mturk?participant=P2"))
            .await
            .unwrap();
        start(&c, Hand::Click).await;
        wait_for(&c, "the debrief", |s| s.section == "debrief").await;
        let hidden = c
            .execute(
                "return document.getElementById('mturk-submit').hidden;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(hidden, json!(true));
    });
}

/// Start the page shown and answer its one question with its true answer, by click.
async fn start_and_answer_one(c: &Client, case: &Case) {
    start(c, Hand::Click).await;
    let s = next_shown(c, &BTreeSet::new()).await;
    assert_eq!(s.section, "ask", "the question is handed out: {s:?}");
    let a = true_answer(&s, &case.truth);
    give(c, &s, a, Hand::Click, 0).await;
}
