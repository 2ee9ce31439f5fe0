//! A simulated crowd: participants who ask `/api/next`, think, and answer over HTTP from a
//! known membership (the planted truth), with a flip probability, response times and people
//! who leave mid-way. For demos, tests and benchmarks.
//!
//! A participant answers a triplet `[anchor, x, y]` by the item that shares more clusters with
//! the anchor, a quadruplet `[a, b, c, d]` by the pair that shares more, a same-cluster
//! question by the number of shared clusters (or whether there is one); ties are broken by a
//! coin that depends on the question only, so every participant answers a question alike
//! when `flip` is 0. With `flip` = p, each binary answer is flipped with probability p, by a
//! coin of (seed, participant, question).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use compclust::data::{ItemIndex, Membership};
use serde_json::{Value, json};

/// How the crowd behaves.
#[derive(Clone, Debug)]
pub struct CrowdOptions {
    /// The server, e.g. `http://127.0.0.1:8421`.
    pub server: String,
    /// The study id.
    pub study: String,
    /// Participants, all answering at once.
    pub participants: usize,
    /// Probability of flipping each binary answer.
    pub flip: f64,
    /// Mean thinking time before an answer (uniform in [0.5, 1.5] × this).
    pub think_ms: u64,
    /// Probability that a participant leaves instead of answering a question (the question is
    /// handed out again after the study's timeout).
    pub leave: f64,
    /// Seed of the noise, the thinking times and the leaving.
    pub seed: u64,
    /// Stop after this long, done or not.
    pub max_seconds: f64,
    /// Participant ids are `{prefix}{i}`.
    pub prefix: String,
    /// Hold every answer after the first `after` ones until released (see [`Hold`]).
    pub hold: Option<Arc<Hold>>,
}

/// A point at which the crowd stops answering until told to go on: the first `after`
/// answers are sent, every later one waits for [`Hold::release`] (or the crowd's deadline).
///
/// Fault tests use it to act at a known point of a study whatever the machine's speed: hold
/// after a part of the answers, kill the server, release, restart. The count is of answers
/// *sent*, so at most `after` answers reach the server before the release.
#[derive(Debug)]
pub struct Hold {
    after: usize,
    sent: AtomicUsize,
    released: tokio::sync::watch::Sender<bool>,
}

impl Hold {
    /// A hold after `after` answers.
    pub fn new(after: usize) -> Arc<Self> {
        Arc::new(Hold {
            after,
            sent: AtomicUsize::new(0),
            released: tokio::sync::watch::Sender::new(false),
        })
    }

    /// Whether `after` answers have been sent (the crowd now waits).
    pub fn reached(&self) -> bool {
        self.sent.load(Ordering::SeqCst) >= self.after
    }

    /// Let every waiting and later answer go.
    pub fn release(&self) {
        self.released.send_replace(true);
    }

    /// Wait, if needed, before sending one more answer; `false` when the deadline passed.
    async fn enter(&self, deadline: Instant) -> bool {
        if self.sent.fetch_add(1, Ordering::SeqCst) < self.after {
            return true;
        }
        let mut rx = self.released.subscribe();
        let deadline = tokio::time::Instant::from_std(deadline);
        matches!(
            tokio::time::timeout_at(deadline, rx.wait_for(|r| *r)).await,
            Ok(Ok(_))
        )
    }
}

/// The planted truth the crowd answers from.
#[derive(Clone, Debug)]
pub struct Truth {
    /// Item names.
    pub items: ItemIndex,
    /// Their clusters.
    pub membership: Membership,
}

/// What the crowd did.
#[derive(Clone, Debug, Default)]
pub struct CrowdReport {
    /// Answers acknowledged by the server (`participant`, `question`, `answer`).
    pub acknowledged: Vec<(String, String, Value)>,
    /// Answers refused (4xx).
    pub refused: usize,
    /// Requests that failed (no connection, 5xx), each retried.
    pub failed: usize,
    /// Requests refused by the rate limit (429), each retried after the time the server
    /// asked for.
    pub limited: usize,
    /// Participants told they were done.
    pub finished: usize,
    /// Participants who left.
    pub left: usize,
    /// Latency of each acknowledged answer, in milliseconds.
    pub answer_ms: Vec<f64>,
    /// Latency of each `/api/next`, in milliseconds.
    pub next_ms: Vec<f64>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The completion code shown to the participants who finished (the last one seen).
    pub code: Option<String>,
}

/// A 64-bit mix of `parts` (SplitMix64 over FNV-1a), stable across runs and platforms.
fn mix(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from `parts`.
fn unit(parts: &[&[u8]]) -> f64 {
    (mix(parts) >> 11) as f64 / (1u64 << 53) as f64
}

impl Truth {
    /// A planted truth: the items of `study` on `server` (from `GET /api/studies/S`), in `k`
    /// equal clusters by index (item `i` of `n` in cluster `i·k / n`), as the planted models
    /// of the papers number them.
    pub async fn planted(server: &str, study: &str, k: usize) -> anyhow::Result<Truth> {
        let url = format!("{}/api/studies/{study}", server.trim_end_matches('/'));
        let r = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?
            .get(&url)
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("GET {url}: {e}"))?;
        let status = r.status();
        let v: Value = r
            .json()
            .await
            .map_err(|e| anyhow::anyhow!("GET {url}: not JSON: {e}"))?;
        if !status.is_success() {
            anyhow::bail!("GET {url}: {status}: {}", v["error"]);
        }
        let names: Vec<String> = v["items"]
            .as_array()
            .ok_or_else(|| anyhow::anyhow!("GET {url}: no `items` in the reply"))?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| anyhow::anyhow!("GET {url}: `items` are not all names"))?;
        let n = names.len();
        if k == 0 || k > n {
            anyhow::bail!("--planted {k}: give 1 to {n} clusters (the study has {n} items)");
        }
        let labels: Vec<usize> = (0..n).map(|i| i * k / n).collect();
        Ok(Truth {
            items: ItemIndex::fixed(names).map_err(|e| anyhow::anyhow!("GET {url}: {e}"))?,
            membership: Membership::from_labels(&labels),
        })
    }

    fn shared(&self, a: &str, b: &str) -> Option<usize> {
        let i = self.items.get(a)? as usize;
        let j = self.items.get(b)? as usize;
        Some(self.membership.shared(i, j))
    }

    /// The true answer to a question (before noise), or `None` when it names an unknown item.
    pub fn answer(&self, q: &Value) -> Option<Value> {
        let kind = q["kind"].as_str()?;
        let items: Vec<&str> = q["items"]
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let id = q["question"].as_str()?.as_bytes();
        let coin = || u8::from(unit(&[b"tie", id]) < 0.5);
        let pick = |s1: usize, s2: usize| -> Value {
            json!(match s1.cmp(&s2) {
                std::cmp::Ordering::Greater => 0,
                std::cmp::Ordering::Less => 1,
                std::cmp::Ordering::Equal => coin(),
            })
        };
        match (kind, items.as_slice()) {
            ("triplet", [a, x, y]) => Some(pick(self.shared(a, x)?, self.shared(a, y)?)),
            ("quadruplet", [a, b, c, d]) => Some(pick(self.shared(a, b)?, self.shared(c, d)?)),
            ("same-cluster", [a, b]) => {
                let s = self.shared(a, b)?;
                Some(if q["answer"] == "count" {
                    json!(s)
                } else {
                    json!(s > 0)
                })
            }
            _ => None,
        }
    }
}

/// `answer` flipped (0 ↔ 1, true ↔ false; counts are not flipped).
fn flipped(answer: &Value) -> Value {
    match answer {
        Value::Bool(b) => json!(!b),
        Value::Number(x) => match x.as_u64() {
            Some(0) => json!(1),
            Some(1) => json!(0),
            _ => answer.clone(),
        },
        other => other.clone(),
    }
}

/// Run the crowd until every participant is done or has left, or `max_seconds` pass.
pub async fn run(opts: CrowdOptions, truth: Truth) -> anyhow::Result<CrowdReport> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let truth = Arc::new(truth);
    let report = Arc::new(Mutex::new(CrowdReport::default()));
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(opts.max_seconds);
    let mut tasks = Vec::new();
    for i in 0..opts.participants {
        let p = Participant {
            id: format!("{}{i}", opts.prefix),
            client: client.clone(),
            opts: opts.clone(),
            truth: truth.clone(),
            report: report.clone(),
            deadline,
        };
        tasks.push(tokio::spawn(p.run()));
    }
    for t in tasks {
        t.await?;
    }
    let mut r = std::mem::take(&mut *report.lock().unwrap_or_else(|p| p.into_inner()));
    r.seconds = start.elapsed().as_secs_f64();
    Ok(r)
}

struct Participant {
    id: String,
    client: reqwest::Client,
    opts: CrowdOptions,
    truth: Arc<Truth>,
    report: Arc<Mutex<CrowdReport>>,
    deadline: Instant,
}

/// What one request got.
enum Got {
    Ok(Value),
    /// 4xx: refused.
    Refused,
    /// No connection or 5xx: try again.
    Failed,
    /// 429: try again after this many milliseconds.
    Limited(u64),
}

impl Participant {
    fn report(&self) -> std::sync::MutexGuard<'_, CrowdReport> {
        self.report.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn post(&self, path: &str, body: &Value) -> Got {
        let url = format!("{}{path}", self.opts.server.trim_end_matches('/'));
        match self.client.post(url).json(body).send().await {
            Ok(r) => {
                let status = r.status();
                let v = r.json::<Value>().await.unwrap_or(Value::Null);
                if status.is_success() {
                    Got::Ok(v)
                } else if status.as_u16() == 429 {
                    Got::Limited(v["retry_after_ms"].as_u64().unwrap_or(100).clamp(1, 10_000))
                } else if status.is_client_error() {
                    Got::Refused
                } else {
                    Got::Failed
                }
            }
            Err(_) => Got::Failed,
        }
    }

    async fn pause(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    async fn run(self) {
        let who = json!({"study": self.opts.study, "participant": self.id});
        let mut asked = 0u64;
        while Instant::now() < self.deadline {
            let t = Instant::now();
            let got = self.post("/api/next", &who).await;
            let next_ms = t.elapsed().as_secs_f64() * 1e3;
            let q = match got {
                Got::Ok(v) if v.get("question").is_some() => {
                    self.report().next_ms.push(next_ms);
                    v
                }
                Got::Ok(v) if v.get("done").is_some() => {
                    let mut r = self.report();
                    r.finished += 1;
                    r.code = v["code"].as_str().map(str::to_string);
                    return;
                }
                Got::Ok(_) => {
                    self.pause(20).await;
                    continue;
                }
                Got::Refused => {
                    self.report().refused += 1;
                    return;
                }
                Got::Failed => {
                    self.report().failed += 1;
                    self.pause(50).await;
                    continue;
                }
                Got::Limited(ms) => {
                    self.report().limited += 1;
                    self.pause(ms).await;
                    continue;
                }
            };
            asked += 1;
            let qid = q["question"].as_str().unwrap_or_default().to_string();
            let n = asked.to_le_bytes();
            let seed = self.opts.seed.to_le_bytes();
            if unit(&[b"leave", &seed, self.id.as_bytes(), &n]) < self.opts.leave {
                self.report().left += 1;
                return;
            }
            let Some(mut answer) = self.truth.answer(&q) else {
                self.report().refused += 1;
                return;
            };
            if unit(&[b"flip", &seed, self.id.as_bytes(), qid.as_bytes()]) < self.opts.flip {
                answer = flipped(&answer);
            }
            let think = self.opts.think_ms as f64
                * (0.5 + unit(&[b"think", &seed, self.id.as_bytes(), &n]));
            self.pause(think as u64).await;
            if let Some(hold) = &self.opts.hold
                && !hold.enter(self.deadline).await
            {
                return;
            }
            let body = json!({
                "study": self.opts.study,
                "participant": self.id,
                "question": qid,
                "answer": answer,
                "ms": think as u64,
            });
            // Send until acknowledged or refused (resending is idempotent).
            while Instant::now() < self.deadline {
                let t = Instant::now();
                match self.post("/api/answer", &body).await {
                    Got::Ok(_) => {
                        let mut r = self.report();
                        r.answer_ms.push(t.elapsed().as_secs_f64() * 1e3);
                        r.acknowledged
                            .push((self.id.clone(), qid.clone(), answer.clone()));
                        break;
                    }
                    Got::Refused => {
                        // Refused (a changed answer, a question not handed to this
                        // participant): ask for the next one.
                        self.report().refused += 1;
                        break;
                    }
                    Got::Failed => {
                        self.report().failed += 1;
                        self.pause(50).await;
                    }
                    Got::Limited(ms) => {
                        self.report().limited += 1;
                        self.pause(ms).await;
                    }
                }
            }
        }
    }
}

/// Percentile `p` (0 to 100) of `values` (nearest rank), or 0 for none.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// [`Truth::planted`] on a new runtime.
pub fn planted_blocking(server: &str, study: &str, k: usize) -> anyhow::Result<Truth> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(Truth::planted(server, study, k))
}

/// [`run`] on a new multi-threaded runtime.
pub fn run_blocking(opts: CrowdOptions, truth: Truth) -> anyhow::Result<CrowdReport> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(opts, truth))
}
