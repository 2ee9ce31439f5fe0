//! The state of one served study, rebuilt from its answer log: the questions of the current
//! round, who holds which, and the result.
//!
//! The state is a function of the committed answers only. After every answer that completes
//! the current round (and at start-up), the algorithm is replayed from the start over all the
//! answers, aggregated by majority vote or one-coin Dawid–Skene
//! ([`compclust::crowd::aggregate_answers`]), through its
//! library entry point: [`HierarchyParams::run`] (Ghoshdastidar et al. 2019, §3.1, eq. 1-2) or
//! [`compclust::overlap::OverlapParams::run`] (Huleihel et al. 2019, Alg. 1-3, 6, 9, 14) over an oracle that looks
//! the answers up; the first batch with unanswered questions is the next round. A passive
//! design (AddS-3 + SPUR, Perrot et al. 2020; 4-AL, Ghoshdastidar et al. 2019, eq. 4-5) has
//! one round: its drawn triplets or quadruplets. So a restart
//! (or `kill -9`) that replays the same log reaches the same state, and the study goes on.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use compclust::active::RunOutcome;
use compclust::crowd::aggregate_answers;
use compclust::data::{Comparisons, Dataset, Quadruplet, SameCluster, Triplet};
use compclust::design::{DesignParams, QuestionKind as DesignKind};
use compclust::flat::FlatParams;
use compclust::hierarchy::{HierarchyMethod, HierarchyParams, QuadrupletTable};
use compclust::overlap::response::{AnswerBook, Pair};
use compclust::overlap::{OverlapEstimate, StopReason};
use serde_json::{Value, json};

use crate::study::{Algorithm, QuestionKind, Study};

/// The largest count of shared clusters a direct same-cluster answer may give.
pub const MAX_SHARED: u32 = 64;

/// A question as asked: item indices in the order shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Question {
    /// `[anchor, x, y]`: is the anchor closer to x (answer 0) or to y (1)?
    Triplet([u32; 3]),
    /// `[a, b, c, d]`: is pair (a, b) (answer 0) or pair (c, d) (1) more similar?
    Quadruplet([u32; 4]),
    /// `[a, b]`: do a and b share a cluster (or how many)?
    Pair([u32; 2]),
}

/// A question as aggregation sees it: equal questions asked in other orders have equal keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    T([u32; 3]),
    Q([u32; 4]),
    P(u32, u32),
}

impl Question {
    /// The question id handed out (`t-0-4-9`, `q-0-1-5-7`, `p-3-8`).
    pub fn id(&self) -> String {
        let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join("-");
        match self {
            Question::Triplet(v) => format!("t-{}", join(v)),
            Question::Quadruplet(v) => format!("q-{}", join(v)),
            Question::Pair(v) => format!("p-{}", join(v)),
        }
    }

    /// Parse a question id over `n` items; `None` for anything else.
    pub fn parse(id: &str, n: usize) -> Option<Question> {
        let mut parts = id.split('-');
        let tag = parts.next()?;
        let mut nums = Vec::new();
        for p in parts {
            if p.is_empty() || p.len() > 10 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let v: u32 = p.parse().ok()?;
            if v as usize >= n {
                return None;
            }
            nums.push(v);
        }
        match (tag, nums.as_slice()) {
            ("t", &[a, x, y]) => Some(Question::Triplet([a, x, y])),
            ("q", &[a, b, c, d]) => Some(Question::Quadruplet([a, b, c, d])),
            ("p", &[a, b]) => Some(Question::Pair([a, b])),
            _ => None,
        }
    }

    /// The item indices, in the order shown.
    pub fn items(&self) -> &[u32] {
        match self {
            Question::Triplet(v) => v,
            Question::Quadruplet(v) => v,
            Question::Pair(v) => v,
        }
    }

    /// The kind of question.
    pub fn kind(&self) -> QuestionKind {
        match self {
            Question::Triplet(_) => QuestionKind::Triplet,
            Question::Quadruplet(_) => QuestionKind::Quadruplet,
            Question::Pair(_) => QuestionKind::SameCluster,
        }
    }

    /// The answered row of a triplet question (`None` for another kind): the question written
    /// as the answer says (Perrot et al. 2020, §2:
    /// `anchor, near, far`; `a, b, c, d` with (a, b) the more similar pair).
    pub fn triplet(&self, answer: u32) -> Option<Triplet> {
        match *self {
            Question::Triplet([a, x, y]) => Some(if answer == 0 {
                Triplet::new(a, x, y)
            } else {
                Triplet::new(a, y, x)
            }),
            _ => None,
        }
    }

    /// The answered row of a quadruplet question (`None` for another kind).
    pub fn quadruplet(&self, answer: u32) -> Option<Quadruplet> {
        match *self {
            Question::Quadruplet([a, b, c, d]) => Some(if answer == 0 {
                Quadruplet::new(a, b, c, d)
            } else {
                Quadruplet::new(c, d, a, b)
            }),
            _ => None,
        }
    }

    /// The aggregation key and the label of `answer` on it (as [`compclust::crowd`] votes).
    fn vote(&self, answer: u32) -> (Key, u32) {
        match *self {
            Question::Triplet(_) => {
                let (k, s) = self.triplet(answer).expect("a triplet").canonical();
                (Key::T(k), u32::from(s > 0))
            }
            Question::Quadruplet(_) => {
                let (k, s) = self.quadruplet(answer).expect("a quadruplet").canonical();
                (Key::Q(k), u32::from(s > 0))
            }
            Question::Pair([a, b]) => (Key::P(a.min(b), a.max(b)), answer),
        }
    }
}

/// The passive design of a study: `count` distinct questions of `kind` drawn with the study's
/// seed (Perrot et al. 2020, §2), as `compclust design` draws them.
fn passive_design(
    study: &Study,
    kind: DesignKind,
    count: compclust::design::QuestionCount,
) -> anyhow::Result<Vec<Question>> {
    let d = DesignParams {
        kind,
        count,
        repeat: 0,
        seed: study.seed,
    }
    .draw(study.items.len())
    .map_err(|e| anyhow::anyhow!("{}: field `budget`: {e}", study.path.display()))?;
    Ok(match d.questions {
        Comparisons::Triplets(rows) => rows
            .iter()
            .map(|t| Question::Triplet([t.anchor, t.near, t.far]))
            .collect(),
        Comparisons::Quadruplets(rows) => rows
            .iter()
            .map(|q| Question::Quadruplet([q.a, q.b, q.c, q.d]))
            .collect(),
        _ => Vec::new(),
    })
}

/// A fit on the answers of a study at one answer count, taken from the state under its lock
/// and run outside it (an SDP can take seconds; answers keep coming meanwhile).
#[derive(Debug)]
pub struct Fit {
    study: Arc<Study>,
    /// The answer count it is computed at.
    pub count: usize,
    /// Every answered row, in commit order.
    rows: Comparisons,
    /// The participant of each row (for Dawid–Skene).
    workers: Vec<u32>,
    done: bool,
    error: Option<String>,
}

impl Fit {
    /// The result JSON: `{"kind": "flat", "labels", "k"}` or `{"kind": "hierarchy",
    /// "dendrogram"}`, with `"partial"` (and `"error"` when the fit or the study failed).
    pub fn run(&self) -> Value {
        let agg = aggregate_answers(&self.rows, &self.workers, self.study.aggregation);
        let fitted = match agg.comparisons {
            c @ Comparisons::Triplets(_) => flat_fit(&self.study, c),
            c => four_al_fit(&self.study, &c),
        };
        self.finished(fitted.unwrap_or_else(|e| self.failed(e)))
    }

    /// `v` with `"partial"`, and with the study's own error when the study failed.
    fn finished(&self, mut v: Value) -> Value {
        v["partial"] = json!(!self.done);
        if let Some(e) = &self.error {
            v["error"] = json!(e);
        }
        v
    }

    /// [`Fit::run`], with a panic turned into a failed result that names it. A panic is a
    /// bug of compclust; without this the study's fit slot would be freed with nothing kept,
    /// and the status of a finished study would say `computing` until someone asked for the
    /// result (which would panic again).
    pub fn run_guarded(&self) -> Value {
        self.guard(|| self.run())
    }

    /// `run()`, or the failed result naming its panic.
    fn guard(&self, run: impl FnOnce() -> Value) -> Value {
        guarded(run, |what| {
            self.finished(self.failed(format!(
                "the fit panicked ({what}); this is a bug in compclust, please report it \
                 with the study's answers (GET /api/studies/ID/answers.csv)"
            )))
        })
    }

    /// The result of a fit that failed with `error`, in the shape of its kind.
    fn failed(&self, error: String) -> Value {
        match self.rows {
            Comparisons::Triplets(_) => json!({"kind": "flat", "labels": {}, "error": error}),
            _ => json!({"kind": "hierarchy", "error": error}),
        }
    }
}

/// `run()`, or `on_panic(message)` when it panics.
fn guarded(run: impl FnOnce() -> Value, on_panic: impl FnOnce(&str) -> Value) -> Value {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(v) => v,
        Err(payload) => {
            let what = (payload.downcast_ref::<&str>().copied())
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("no message");
            on_panic(what)
        }
    }
}

/// 4-AL (Ghoshdastidar et al. 2019, eq. 4-5) on aggregated quadruplets, as
/// `compclust hierarchy --method 4al --input` runs it.
fn four_al_fit(study: &Study, answers: &Comparisons) -> Result<Value, String> {
    let fit = HierarchyParams::new(HierarchyMethod::FourAl)
        .with_seed(study.seed)
        .fit(study.items.len(), answers, None)
        .map_err(|e| e.to_string())?;
    Ok(dendrogram_json(study, &fit.dendrogram))
}

/// AddS-3 + SPUR on aggregated triplets (Perrot et al. 2020, §4, App. D), as
/// `compclust cluster` runs it.
fn flat_fit(study: &Study, answers: Comparisons) -> Result<Value, String> {
    if answers.is_empty() {
        return Err("no answers yet".into());
    }
    let data = Dataset::new(study.items.clone(), answers).map_err(|e| e.to_string())?;
    let fit = FlatParams::new()
        .with_seed(study.seed)
        .with_sdp_tol(1e-4)
        .fit(&data, None)
        .map_err(|e| e.to_string())?;
    let labels: serde_json::Map<String, Value> = study
        .items
        .labels()
        .iter()
        .zip(&fit.labels)
        .map(|(item, &c)| (item.clone(), json!(c)))
        .collect();
    Ok(json!({"kind": "flat", "labels": labels, "k": fit.k_hat}))
}

fn dendrogram_json(study: &Study, d: &compclust::data::Dendrogram) -> Value {
    let steps: Vec<Value> = d
        .steps()
        .iter()
        .map(|m| json!([m.a, m.b, m.height, m.size]))
        .collect();
    json!({"kind": "hierarchy", "dendrogram": {"items": study.items.labels(), "steps": steps}})
}

/// One committed answer, as replayed.
#[derive(Clone, Debug)]
pub struct Logged {
    /// Who answered.
    pub participant: String,
    /// The question.
    pub question: Question,
    /// The answer (0 / 1, or a count of shared clusters).
    pub answer: u32,
}

/// What `/api/next` hands a participant.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// Ask this question.
    Ask(Question),
    /// Every open question is held by someone else: ask again shortly.
    Wait,
    /// Nothing more for this participant (the study is done, or their quota is reached).
    Done,
}

/// Why an answer is refused (the HTTP layer turns it into a 4xx with this message).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// The field at fault.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

fn refuse(status: u16, field: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        field,
        message: message.into(),
    }
}

/// What to do with an accepted answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// A new answer: commit it, then [`Engine::apply`] it.
    New,
    /// The same answer was committed before: acknowledge it.
    Stored,
    /// The same answer is being committed by another request: commit (it is ignored as a
    /// duplicate) and acknowledge.
    Pending,
}

#[derive(Default)]
struct Participant {
    answered: u32,
    /// The question held and when it was handed out.
    holding: Option<(Question, Instant)>,
}

/// Where the algorithm stands.
#[derive(Clone, Debug)]
enum Phase {
    /// These questions are the current round.
    Asking,
    /// Finished: the result.
    Done(Value),
    /// The algorithm stopped with an error (shown by the status and result endpoints).
    Failed(String),
}

/// The state of one study.
pub struct Engine {
    study: Arc<Study>,
    /// The passive design of a flat study.
    design: Vec<Question>,
    log: Vec<Logged>,
    participants: HashMap<String, Participant>,
    /// (participant, key) → label, committed.
    answered: HashMap<(String, Key), u32>,
    /// (participant, question) being committed → answer.
    pending: HashMap<(String, Question), u32>,
    /// Every (participant, question) handed out, and whether the hand-out is committed
    /// (restored from the store at start-up, or committed by the HTTP layer before the
    /// question is sent).
    issued: HashMap<(String, Question), bool>,
    /// Labels per key, committed.
    votes: HashMap<Key, Vec<(u32, u32)>>,
    /// Current round.
    batch: Vec<Question>,
    in_batch: HashSet<Key>,
    /// Questions of the round that still need answers.
    open: usize,
    cursor: usize,
    /// Handed out, not answered yet: key → (participant, when).
    holders: HashMap<Key, Vec<(String, Instant)>>,
    /// The questions of the next round, as the replay found them.
    batch_next: Vec<Question>,
    rounds: usize,
    phase: Phase,
    /// The last [`Fit`] result and the answer count it was computed at.
    cache: Option<(usize, Value)>,
    /// The answer count of the fit running now, if one runs: one fit at a time per study
    /// ([`Engine::result_step`], [`Engine::final_fit`]).
    in_flight: Option<usize>,
}

/// What a request for the result does next ([`Engine::result_step`]).
#[derive(Debug)]
pub enum ResultStep {
    /// The result.
    Ready(Value),
    /// Run this fit outside the lock, then [`Engine::remember`] it.
    Run(Fit),
    /// A fit of this study is running: ask again once it ended.
    Wait,
}

impl Engine {
    /// The state of `study` after the answers of `log` (in commit order).
    pub fn new(study: Arc<Study>, log: Vec<Logged>) -> anyhow::Result<Self> {
        let design = match &study.algorithm {
            Algorithm::AddsSpur { budget } => {
                passive_design(&study, DesignKind::Triplets, *budget)?
            }
            Algorithm::FourAl { budget } => {
                passive_design(&study, DesignKind::Quadruplets, *budget)?
            }
            _ => Vec::new(),
        };
        let mut e = Engine {
            study,
            design,
            log: Vec::new(),
            participants: HashMap::new(),
            answered: HashMap::new(),
            pending: HashMap::new(),
            issued: HashMap::new(),
            votes: HashMap::new(),
            batch: Vec::new(),
            in_batch: HashSet::new(),
            open: 0,
            cursor: 0,
            holders: HashMap::new(),
            batch_next: Vec::new(),
            rounds: 0,
            phase: Phase::Asking,
            cache: None,
            in_flight: None,
        };
        for l in log {
            e.record(l);
        }
        e.replay();
        Ok(e)
    }

    /// The study.
    pub fn study(&self) -> &Study {
        &self.study
    }

    fn record(&mut self, l: Logged) {
        let (key, label) = l.question.vote(l.answer);
        self.answered.insert((l.participant.clone(), key), label);
        self.votes.entry(key).or_default().push((label, 0));
        self.participants
            .entry(l.participant.clone())
            .or_default()
            .answered += 1;
        self.log.push(l);
    }

    /// Answers still needed for `key`: up to `answers_per_question`, then one more while the
    /// majority ties.
    fn deficit(&self, key: &Key) -> usize {
        let want = self.study.answers_per_question as usize;
        let Some(v) = self.votes.get(key) else {
            return want;
        };
        if v.len() < want {
            return want - v.len();
        }
        usize::from(compclust::crowd::majority(v).is_none())
    }

    /// Replay the algorithm over every committed answer: the next round, or the result.
    fn replay(&mut self) {
        self.batch_next.clear();
        let outcome = match self.study.algorithm.clone() {
            Algorithm::AddsSpur { .. } | Algorithm::FourAl { .. } => self.replay_passive(),
            Algorithm::Hierarchy(p) => self.replay_hierarchy(&p),
            Algorithm::Overlap(p) => self.replay_overlap(&p),
        };
        self.batch.clear();
        self.in_batch.clear();
        self.cursor = 0;
        match outcome {
            Ok((Some(result), rounds)) => {
                self.rounds = rounds;
                self.phase = Phase::Done(result);
            }
            Ok((None, rounds)) => {
                self.rounds = rounds;
                self.phase = Phase::Asking;
            }
            Err(e) => self.phase = Phase::Failed(e),
        }
        let batch = std::mem::take(&mut self.batch_next);
        for q in batch {
            let (key, _) = q.vote(0);
            if self.in_batch.insert(key) {
                self.batch.push(q);
            }
        }
        self.open = self
            .batch
            .iter()
            .filter(|q| self.deficit(&q.vote(0).0) > 0)
            .count();
        if matches!(self.phase, Phase::Asking) && self.open == 0 {
            self.phase = Phase::Failed(
                "the algorithm asks for answers that are all given: the answer log and the \
                 algorithm disagree"
                    .into(),
            );
        }
    }

    fn workers(&self) -> (Vec<u32>, HashMap<&str, u32>) {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let of_row = self
            .log
            .iter()
            .map(|l| {
                let next = ids.len() as u32;
                *ids.entry(l.participant.as_str()).or_insert(next)
            })
            .collect();
        (of_row, ids)
    }

    /// The aggregated quadruplets of the log.
    fn quadruplets(&self) -> Comparisons {
        let rows: Vec<Quadruplet> = self
            .log
            .iter()
            .filter_map(|l| l.question.quadruplet(l.answer))
            .collect();
        let (of_row, _) = self.workers();
        aggregate_answers(
            &Comparisons::Quadruplets(rows),
            &of_row,
            self.study.aggregation,
        )
        .comparisons
    }

    fn replay_hierarchy(&mut self, p: &HierarchyParams) -> Result<(Option<Value>, usize), String> {
        let n = self.study.items.len();
        let answers = self.quadruplets();
        let mut table = QuadrupletTable::new(n, &answers).map_err(|e| e.to_string())?;
        match p.run(n, &mut table).map_err(|e| e.to_string())? {
            RunOutcome::Finished { output, rounds, .. } => Ok((
                Some(dendrogram_json(&self.study, &output.dendrogram)),
                rounds,
            )),
            RunOutcome::Missing {
                missing, rounds, ..
            } => {
                self.batch_next = missing
                    .iter()
                    .map(|q| Question::Quadruplet([q.a, q.b, q.c, q.d]))
                    .collect();
                Ok((None, rounds))
            }
        }
    }

    fn replay_overlap(
        &mut self,
        p: &compclust::overlap::OverlapParams,
    ) -> Result<(Option<Value>, usize), String> {
        let n = self.study.items.len();
        let rows: Vec<SameCluster> = self
            .log
            .iter()
            .filter_map(|l| match l.question {
                Question::Pair([a, b]) => Some(SameCluster {
                    a,
                    b,
                    answer: f64::from(l.answer),
                }),
                _ => None,
            })
            .collect();
        let (of_row, _) = self.workers();
        let agg = aggregate_answers(
            &Comparisons::SameCluster(rows),
            &of_row,
            self.study.aggregation,
        );
        let mut book = AnswerBook::new();
        if let Comparisons::SameCluster(rows) = &agg.comparisons {
            for r in rows {
                book.insert(r.a, r.b, r.answer as u32);
            }
        }
        match p.run(n, &mut book).map_err(|e| e.to_string())? {
            RunOutcome::Finished { output, rounds, .. } => {
                Ok((Some(self.membership_json(&output)), rounds))
            }
            RunOutcome::Missing {
                missing, rounds, ..
            } => {
                self.batch_next = missing
                    .iter()
                    .map(|q: &Pair| Question::Pair([q.a, q.b]))
                    .collect();
                Ok((None, rounds))
            }
        }
    }

    /// A passive design has one round, its questions; once every one is answered the study
    /// is done (its result, a fit on the answers, is computed by [`Fit::run`] outside the
    /// study's lock).
    fn replay_passive(&mut self) -> Result<(Option<Value>, usize), String> {
        let open: Vec<Question> = self
            .design
            .iter()
            .filter(|q| self.deficit(&q.vote(0).0) > 0)
            .copied()
            .collect();
        if !open.is_empty() {
            self.batch_next = open;
            return Ok((None, 1));
        }
        Ok((Some(Value::Null), 1))
    }

    fn membership_json(&self, est: &OverlapEstimate) -> Value {
        let m = &est.membership;
        let membership: serde_json::Map<String, Value> = self
            .study
            .items
            .labels()
            .iter()
            .enumerate()
            .map(|(i, item)| (item.clone(), json!(m.clusters_of(i))))
            .collect();
        let complete = matches!(
            est.stop,
            StopReason::Completed | StopReason::ComplementAmbiguity
        );
        json!({
            "kind": "overlap",
            "membership": membership,
            "complete": complete,
            "stop": est.stop,
        })
    }

    /// The next question for `participant` at `now`.
    pub fn next(&mut self, participant: &str, now: Instant) -> Next {
        if !matches!(self.phase, Phase::Asking) {
            return Next::Done;
        }
        let timeout = Duration::from_secs(self.study.reissue_after_s);
        let quota = self.study.questions_per_participant;
        // A participant gets an entry when first handed a question (one asking while every
        // question is held by others leaves nothing behind).
        let held = match self.participants.get(participant) {
            Some(p) if quota.is_some_and(|q| p.answered >= q) => return Next::Done,
            Some(p) => p.holding,
            None => None,
        };
        if let Some((q, _)) = held {
            let key = q.vote(0).0;
            let answered = self.answered.contains_key(&(participant.to_string(), key));
            if !answered && self.in_batch.contains(&key) && self.deficit(&key) > 0 {
                return Next::Ask(q);
            }
        }
        let len = self.batch.len();
        for step in 0..len {
            let i = (self.cursor + step) % len;
            let q = self.batch[i];
            let key = q.vote(0).0;
            let deficit = self.deficit(&key);
            if deficit == 0 || self.answered.contains_key(&(participant.to_string(), key)) {
                continue;
            }
            let holders = self.holders.entry(key).or_default();
            holders.retain(|(_, t)| now.duration_since(*t) < timeout);
            if holders.iter().any(|(p, _)| p == participant) || holders.len() >= deficit {
                continue;
            }
            holders.push((participant.to_string(), now));
            self.cursor = (i + 1) % len;
            self.issued
                .entry((participant.to_string(), q))
                .or_insert(false);
            self.participants
                .entry(participant.to_string())
                .or_default()
                .holding = Some((q, now));
            return Next::Ask(q);
        }
        Next::Wait
    }

    /// Whether the hand-out of `q` to `participant` is not committed yet (the HTTP layer
    /// commits it before sending the question, then calls [`Engine::handout_saved`]).
    pub fn handout_unsaved(&self, participant: &str, q: Question) -> bool {
        self.issued.get(&(participant.to_string(), q)) == Some(&false)
    }

    /// The hand-out of `q` to `participant` is committed.
    pub fn handout_saved(&mut self, participant: &str, q: Question) {
        if let Some(saved) = self.issued.get_mut(&(participant.to_string(), q)) {
            *saved = true;
        }
    }

    /// The committed hand-outs (participant, question, how long ago), oldest first, read at
    /// start-up: their answers are accepted as before the restart, each participant holds
    /// the last question handed to it that it has not answered, and its hold runs out
    /// `reissue_after_s` after the hand-out as it would have without the restart.
    pub fn restore_handouts(
        &mut self,
        rows: impl IntoIterator<Item = (String, Question, Duration)>,
        now: Instant,
    ) {
        let mut last: HashMap<String, (Question, Instant)> = HashMap::new();
        for (participant, q, age) in rows {
            let at = now.checked_sub(age).unwrap_or(now);
            self.issued.insert((participant.clone(), q), true);
            last.insert(participant, (q, at));
        }
        for (participant, (q, at)) in last {
            let key = q.vote(0).0;
            if self.answered.contains_key(&(participant.clone(), key)) {
                continue;
            }
            self.holders
                .entry(key)
                .or_default()
                .push((participant.clone(), at));
            self.participants.entry(participant).or_default().holding = Some((q, at));
        }
    }

    /// Check an answer before it is committed. `answer` is the JSON value given.
    pub fn check(
        &mut self,
        participant: &str,
        question_id: &str,
        answer: &Value,
    ) -> Result<(Question, u32, Accepted), Refusal> {
        let n = self.study.items.len();
        let q = Question::parse(question_id, n).ok_or_else(|| {
            refuse(
                400,
                "question",
                format!("`{question_id}` is not a question id of this study"),
            )
        })?;
        if q.kind() != self.study.algorithm.question() {
            return Err(refuse(400, "question", "not a question of this study"));
        }
        let label = self.answer_value(answer)?;
        let (key, canon) = q.vote(label);
        let who = participant.to_string();
        if let Some(&was) = self.answered.get(&(who.clone(), key)) {
            return if was == canon {
                Ok((q, label, Accepted::Stored))
            } else {
                Err(refuse(
                    409,
                    "answer",
                    "this participant answered this question otherwise before; an answer \
                     cannot be changed",
                ))
            };
        }
        if let Some(&was) = self.pending.get(&(who.clone(), q)) {
            return if was == label {
                Ok((q, label, Accepted::Pending))
            } else {
                Err(refuse(
                    409,
                    "answer",
                    "another answer to this question is being stored",
                ))
            };
        }
        if !self.issued.contains_key(&(who.clone(), q)) {
            return Err(refuse(
                409,
                "question",
                format!(
                    "`{question_id}` was not handed to participant `{participant}`; ask \
                     /api/next for a question"
                ),
            ));
        }
        self.pending.insert((who, q), label);
        Ok((q, label, Accepted::New))
    }

    fn answer_value(&self, v: &Value) -> Result<u32, Refusal> {
        let counts = self.study.algorithm.counts();
        let kind = self.study.algorithm.question();
        let n = match v {
            Value::Bool(b) if kind == QuestionKind::SameCluster => u32::from(*b),
            Value::Number(x) => match x.as_u64() {
                Some(x) if x <= 1 => x as u32,
                Some(x) if counts && x <= u64::from(MAX_SHARED) => x as u32,
                _ => return Err(refuse(400, "answer", self.expected())),
            },
            _ => return Err(refuse(400, "answer", self.expected())),
        };
        Ok(n)
    }

    fn expected(&self) -> String {
        match self.study.algorithm.question() {
            QuestionKind::Triplet => {
                "give 0 (items[1] is closer to the anchor) or 1 (items[2] is)".into()
            }
            QuestionKind::Quadruplet => {
                "give 0 (the pair (a, b) is more similar) or 1 (the pair (c, d) is)".into()
            }
            QuestionKind::SameCluster if self.study.algorithm.counts() => {
                format!("give true / false, or the number of shared clusters (0 to {MAX_SHARED})")
            }
            QuestionKind::SameCluster => "give true or false".into(),
        }
    }

    /// A checked answer could not be committed: forget it.
    pub fn abandon(&mut self, participant: &str, q: Question) {
        self.pending.remove(&(participant.to_string(), q));
    }

    /// A new answer was committed: add it to the state (and replay when the round is
    /// complete).
    pub fn apply(&mut self, participant: &str, q: Question, answer: u32) {
        self.pending.remove(&(participant.to_string(), q));
        let (key, _) = q.vote(answer);
        let before = self.deficit(&key) > 0;
        self.record(Logged {
            participant: participant.to_string(),
            question: q,
            answer,
        });
        if let Some(h) = self.holders.get_mut(&key) {
            h.retain(|(p, _)| p != participant);
        }
        if let Some(p) = self.participants.get_mut(participant)
            && p.holding.is_some_and(|(h, _)| h == q)
        {
            p.holding = None;
        }
        let after = self.deficit(&key) > 0;
        if self.in_batch.contains(&key) {
            match (before, after) {
                (true, false) => self.open -= 1,
                (false, true) => self.open += 1,
                _ => {}
            }
        }
        if self.open == 0 {
            self.replay();
        }
    }

    /// `{"answers", "participants", "rounds", "done", "result", …}`. `result` is `pending`
    /// while the study asks, `computing` while the fit of a finished study runs, `ready`, or
    /// `failed` (the algorithm or the final fit failed; `error` says why).
    pub fn status(&self) -> Value {
        let (done, mut error) = match &self.phase {
            Phase::Asking => (false, None),
            Phase::Done(_) => (true, None),
            Phase::Failed(e) => (false, Some(e.clone())),
        };
        let result = match &self.phase {
            Phase::Asking => "pending",
            Phase::Failed(_) => "failed",
            Phase::Done(_) if !self.fitted() => "ready",
            Phase::Done(_) => match self.cached() {
                Some(v) => {
                    error = v["error"].as_str().map(str::to_string);
                    if error.is_some() { "failed" } else { "ready" }
                }
                None => "computing",
            },
        };
        json!({
            "study": self.study.id,
            "answers": self.log.len(),
            "participants": self.participants.values().filter(|p| p.answered > 0).count(),
            "rounds": self.rounds,
            "done": done,
            "result": result,
            "open_questions": self.open,
            "round_questions": self.batch.len(),
            "error": error,
        })
    }

    /// How many answers of `participant` are committed.
    pub fn answered_by(&self, participant: &str) -> u32 {
        self.participants.get(participant).map_or(0, |p| p.answered)
    }

    /// Whether the study is finished.
    pub fn done(&self) -> bool {
        matches!(self.phase, Phase::Done(_))
    }

    /// Whether the result is a fit on the answers, computed on demand ([`Fit`]): AddS-3 +
    /// SPUR and 4-AL, whose passive design ends with every question answered.
    fn fitted(&self) -> bool {
        matches!(
            self.study.algorithm,
            Algorithm::AddsSpur { .. } | Algorithm::FourAl { .. }
        )
    }

    /// The fit that gives a finished study its result, when it is due: the study is
    /// finished, its result not computed at the final answer count and no fit running. The
    /// server asks after every answer, at start-up and whenever a fit ends, and runs it then,
    /// so that the status can say whether it failed without waiting for a request of the
    /// result.
    pub fn final_fit(&mut self) -> Option<Fit> {
        let cached = self.cached().is_some();
        if !self.done() || !self.fitted() || cached || self.in_flight.is_some() {
            return None;
        }
        self.in_flight = Some(self.log.len());
        Some(self.fit())
    }

    /// [`Engine::result`] with one fit at a time per study: the result when it is known, the
    /// fit to run when none runs (it is then running until [`Engine::remember`] or
    /// [`Engine::fit_abandoned`]), else [`ResultStep::Wait`]. Without it every request of a
    /// result that is not computed yet would start a fit of its own, and a dashboard that
    /// asks every few seconds would pile SDPs up while answers come in.
    pub fn result_step(&mut self) -> ResultStep {
        match self.result() {
            Ok(v) => ResultStep::Ready(v),
            Err(_) if self.in_flight.is_some() => ResultStep::Wait,
            Err(fit) => {
                self.in_flight = Some(fit.count);
                ResultStep::Run(fit)
            }
        }
    }

    /// The fit at `count` ended without a result (its task was lost): another may run.
    pub fn fit_abandoned(&mut self, count: usize) {
        if self.in_flight == Some(count) {
            self.in_flight = None;
        }
    }

    /// The result, or the current estimate with `"partial": true`; `Err` with the [`Fit`] to
    /// run when it is a fit on the answers (AddS-3 + SPUR, 4-AL, a hierarchy's estimate) not
    /// computed yet at this answer count: run it outside the study's lock, then
    /// [`Engine::remember`] it.
    pub fn result(&self) -> Result<Value, Fit> {
        let fitted = match (&self.study.algorithm, &self.phase) {
            (Algorithm::AddsSpur { .. } | Algorithm::FourAl { .. }, _) => true,
            (Algorithm::Hierarchy(_), phase) => !matches!(phase, Phase::Done(_)),
            (Algorithm::Overlap(_), _) => false,
        };
        if fitted {
            return self.cached().cloned().ok_or_else(|| self.fit());
        }
        let mut v = match &self.phase {
            Phase::Done(v) => v.clone(),
            // The same-cluster algorithms have no estimate before their sample is answered.
            _ => json!({"kind": "overlap", "membership": {}}),
        };
        v["partial"] = json!(!self.done());
        if let Phase::Failed(e) = &self.phase {
            v["error"] = json!(e);
        }
        Ok(v)
    }

    /// The fit of the answers so far: AddS-3 + SPUR on the triplets, 4-AL on the quadruplets.
    fn fit(&self) -> Fit {
        let (of_row, _) = self.workers();
        let rows = match self.study.algorithm {
            Algorithm::AddsSpur { .. } => Comparisons::Triplets(
                self.log
                    .iter()
                    .filter_map(|l| l.question.triplet(l.answer))
                    .collect(),
            ),
            _ => Comparisons::Quadruplets(
                self.log
                    .iter()
                    .filter_map(|l| l.question.quadruplet(l.answer))
                    .collect(),
            ),
        };
        Fit {
            study: self.study.clone(),
            count: self.log.len(),
            rows,
            workers: of_row,
            done: self.done(),
            error: match &self.phase {
                Phase::Failed(e) => Some(e.clone()),
                _ => None,
            },
        }
    }

    /// The kept [`Fit`] result, if it was computed at the current answer count.
    fn cached(&self) -> Option<&Value> {
        match &self.cache {
            Some((count, v)) if *count == self.log.len() => Some(v),
            _ => None,
        }
    }

    /// Keep `value`, the result of a [`Fit`] at `count` answers (the latest one is kept).
    pub fn remember(&mut self, count: usize, value: Value) {
        self.fit_abandoned(count);
        if self.cache.as_ref().is_none_or(|(c, _)| *c <= count) {
            self.cache = Some((count, value));
        }
    }

    /// [`Engine::result`], running the fit here if needed.
    pub fn result_now(&mut self) -> Value {
        match self.result() {
            Ok(v) => v,
            Err(fit) => {
                let v = fit.run();
                self.remember(fit.count, v.clone());
                v
            }
        }
    }

    /// The committed answers, in commit order.
    pub fn log(&self) -> &[Logged] {
        &self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(dir: &std::path::Path, algo: &str, question: &str, extra: &str) -> Arc<Study> {
        let p = dir.join("s.toml");
        let items: Vec<String> = (0..9).map(|i| format!("\"i{i}\"")).collect();
        std::fs::write(
            &p,
            format!(
                "id = \"s\"\nitems = [{}]\nquestion = \"{question}\"\nalgorithm = \"{algo}\"\n\
                 seed = 1\n{extra}",
                items.join(", ")
            ),
        )
        .unwrap();
        Arc::new(crate::study::read_study(&p).unwrap())
    }

    /// Three clusters of three: the true answer to a question.
    fn truth(q: &Question) -> u32 {
        let c = |i: u32| i / 3;
        let same = |a: u32, b: u32| u32::from(c(a) == c(b));
        match *q {
            Question::Triplet([a, x, y]) => u32::from(same(a, y) > same(a, x)),
            Question::Quadruplet([a, b, x, y]) => u32::from(same(x, y) > same(a, b)),
            Question::Pair([a, b]) => same(a, b),
        }
    }

    /// Answer with three participants until done; the engine rebuilt from the log is in the
    /// same state.
    fn run_to_the_end(s: Arc<Study>) -> Engine {
        let mut e = Engine::new(s.clone(), Vec::new()).unwrap();
        let now = Instant::now();
        for _ in 0..20_000 {
            if e.done() {
                break;
            }
            let mut progressed = false;
            for p in ["a", "b", "c"] {
                if let Next::Ask(q) = e.next(p, now) {
                    let (q, label, acc) = e.check(p, &q.id(), &json!(truth(&q))).unwrap();
                    assert_eq!(acc, Accepted::New);
                    e.apply(p, q, label);
                    progressed = true;
                }
            }
            assert!(progressed, "stuck: {}", e.status());
        }
        assert!(e.done(), "{}", e.status());
        let mut again = Engine::new(s, e.log().to_vec()).unwrap();
        assert_eq!(again.result_now(), e.result_now());
        assert_eq!(again.status(), e.status());
        e
    }

    #[test]
    fn every_family_runs_to_the_end_and_replays_to_the_same_state() {
        let dir = tempfile::tempdir().unwrap();
        let mut h = run_to_the_end(study(dir.path(), "cl", "quadruplet", ""));
        assert_eq!(h.result_now()["kind"], "hierarchy");
        let k = run_to_the_end(study(
            dir.path(),
            "4kal-act",
            "quadruplet",
            "[parameters]\nreferences = 4\n",
        ));
        assert_eq!(k.status()["rounds"], 1, "active 4K-AL asks one batch");
        let mut o = run_to_the_end(study(
            dir.path(),
            "clique-cover",
            "same-cluster",
            "answers_per_question = 2\n",
        ));
        let m = &o.result_now()["membership"];
        assert_eq!(m["i0"], m["i2"]);
        assert_ne!(m["i0"], m["i3"]);
        let mut f = run_to_the_end(study(dir.path(), "adds-spur", "triplet", "budget = 200\n"));
        let l = &f.result_now()["labels"];
        assert_eq!(l["i6"], l["i8"], "{l}");
        let mut a = run_to_the_end(study(dir.path(), "4al", "quadruplet", "budget = 300\n"));
        assert_eq!(a.status()["answers"], 300);
        assert_eq!(a.result_now()["kind"], "hierarchy");
        let mut d = run_to_the_end(study(
            dir.path(),
            "cl",
            "quadruplet",
            "answers_per_question = 3\n[parameters]\naggregate = \"dawid-skene\"\n",
        ));
        assert_eq!(
            d.study().aggregation,
            compclust::crowd::Aggregation::DawidSkene
        );
        assert_eq!(d.result_now()["dendrogram"], h.result_now()["dendrogram"]);
    }

    #[test]
    fn restored_hand_outs_are_answerable_and_held_and_others_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "cl", "quadruplet", "reissue_after_s = 60\n");
        let now = Instant::now();
        let mut e = Engine::new(s.clone(), Vec::new()).unwrap();
        let Next::Ask(q) = e.next("a", now) else {
            panic!()
        };
        assert!(e.handout_unsaved("a", q));
        e.handout_saved("a", q);
        assert!(!e.handout_unsaved("a", q));
        // A restart: the same (empty) log and the committed hand-out, handed out 10 s ago.
        let mut r = Engine::new(s.clone(), Vec::new()).unwrap();
        r.restore_handouts([("a".to_string(), q, Duration::from_secs(10))], now);
        assert!(!r.handout_unsaved("a", q));
        assert!(
            matches!(r.next("a", now), Next::Ask(x) if x == q),
            "a holds q"
        );
        assert_eq!(r.check("b", &q.id(), &json!(0)).unwrap_err().status, 409);
        let (q2, l, acc) = r.check("a", &q.id(), &json!(0)).unwrap();
        assert_eq!(acc, Accepted::New);
        r.apply("a", q2, l);
        // Without the restored hand-out the same answer is refused.
        let mut bare = Engine::new(s, Vec::new()).unwrap();
        assert_eq!(bare.check("a", &q.id(), &json!(0)).unwrap_err().status, 409);
    }

    #[test]
    fn a_fit_is_run_once_per_answer_count_and_answers_go_on_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "adds-spur", "triplet", "budget = 60\n");
        let mut e = Engine::new(s, Vec::new()).unwrap();
        for _ in 0..30 {
            answer_one(&mut e);
        }
        let Err(fit) = e.result() else {
            panic!("nothing is computed before it is asked for")
        };
        assert_eq!(fit.count, 30);
        // The fit holds its own copy of the answers: the study takes answers meanwhile.
        answer_one(&mut e);
        let v = fit.run();
        assert_eq!(v["partial"], true, "{v}");
        e.remember(fit.count, v.clone());
        assert!(
            e.result().is_err(),
            "a fit of 30 answers is not the result at 31"
        );
        let v31 = e.result_now();
        assert_eq!(e.result().unwrap(), v31, "kept for 31 answers");
        e.remember(fit.count, v);
        assert_eq!(
            e.result().unwrap(),
            v31,
            "an older fit does not replace a newer one"
        );
    }

    /// Answer the next question handed to participant `a` with its true answer.
    fn answer_one(e: &mut Engine) {
        let Next::Ask(q) = e.next("a", Instant::now()) else {
            panic!("one participant answers a passive design: {}", e.status())
        };
        let (q, l, _) = e.check("a", &q.id(), &json!(truth(&q))).unwrap();
        e.apply("a", q, l);
    }

    /// Answer every question of `e` with `a`'s true answers until the study is done.
    fn answer_all(e: &mut Engine) {
        while !e.done() {
            answer_one(e);
        }
    }

    #[test]
    fn the_status_of_a_finished_passive_study_says_whether_its_final_fit_failed() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "adds-spur", "triplet", "budget = 20\n");
        let mut e = Engine::new(s.clone(), Vec::new()).unwrap();
        assert_eq!(e.status()["result"], "pending");
        assert!(
            e.final_fit().is_none(),
            "no final fit before the last answer"
        );
        answer_all(&mut e);
        assert_eq!(e.status()["result"], "computing", "{}", e.status());
        let fit = e.final_fit().expect("the final fit, once");
        assert!(e.final_fit().is_none(), "handed out once");
        e.remember(fit.count, fit.run());
        let st = e.status();
        assert_eq!(
            (&st["done"], &st["result"]),
            (&json!(true), &json!("ready"))
        );
        assert_eq!(st["error"], Value::Null);
        // After a restart the finished study's fit is due again.
        let mut again = Engine::new(s, e.log().to_vec()).unwrap();
        assert_eq!(again.status()["result"], "computing");
        assert!(again.final_fit().is_some());

        // More items than an n × n similarity may have: the study can ask, its fit fails.
        let items = dir.path().join("many.txt");
        let n = compclust::limits::MAX_DENSE_ITEMS + 1;
        let labels: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
        std::fs::write(&items, labels.join("\n")).unwrap();
        let p = dir.path().join("many.toml");
        std::fs::write(
            &p,
            "id = \"m\"\nitems = \"many.txt\"\nquestion = \"triplet\"\n\
             algorithm = \"adds-spur\"\nseed = 1\nbudget = 1\n",
        )
        .unwrap();
        let mut big =
            Engine::new(Arc::new(crate::study::read_study(&p).unwrap()), Vec::new()).unwrap();
        answer_all(&mut big);
        assert_eq!(big.log().len(), 1);
        let fit = big.final_fit().expect("the final fit");
        big.remember(fit.count, fit.run());
        let (st, error) = failure(&big);
        assert!(error.contains("65536"), "the limit is named: {st}");
        assert_eq!(big.result().unwrap()["error"], st["error"]);
    }

    /// The status of a finished study whose result failed (asserted), and its error.
    fn failure(e: &Engine) -> (Value, String) {
        let st = e.status();
        assert_eq!(
            (&st["done"], &st["result"]),
            (&json!(true), &json!("failed")),
            "{st}"
        );
        let error = st["error"].as_str().unwrap_or_default().to_string();
        (st, error)
    }

    #[test]
    fn a_final_fit_that_panics_leaves_a_failed_result_naming_the_panic() {
        assert_eq!(guarded(|| json!(1), |_| json!(2)), json!(1));
        let message = |run: fn() -> Value| guarded(run, |what| json!(what));
        assert_eq!(message(|| panic!("static")), json!("static"));
        assert_eq!(message(|| panic!("formatted {}", 7)), json!("formatted 7"));

        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "adds-spur", "triplet", "budget = 20\n");
        let mut e = Engine::new(s, Vec::new()).unwrap();
        answer_all(&mut e);
        let fit = e.final_fit().expect("the final fit");
        let v = fit.guard(|| panic!("index 99 out of range"));
        e.remember(fit.count, v);
        let (st, error) = failure(&e);
        assert!(error.contains("index 99 out of range"), "{st}");
        assert!(e.final_fit().is_none(), "not run again at the same count");
        let ResultStep::Ready(v) = e.result_step() else {
            panic!("the failed result is the result")
        };
        assert_eq!((&v["kind"], &v["labels"]), (&json!("flat"), &json!({})));
        assert_eq!((&v["error"], &v["partial"]), (&st["error"], &json!(false)));
    }

    #[test]
    fn one_fit_runs_at_a_time_and_the_final_fit_follows_an_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "adds-spur", "triplet", "budget = 20\n");
        let mut e = Engine::new(s, Vec::new()).unwrap();
        for _ in 0..10 {
            answer_one(&mut e);
        }
        let ResultStep::Run(fit) = e.result_step() else {
            panic!("the first request runs the fit")
        };
        assert_eq!(fit.count, 10);
        assert!(
            matches!(e.result_step(), ResultStep::Wait),
            "the second waits"
        );
        // A fit that panicked frees the slot.
        e.fit_abandoned(10);
        let ResultStep::Run(fit) = e.result_step() else {
            panic!("runs again after an abandoned fit")
        };
        // The study finishes while the fit of 10 answers runs: the final fit waits for it.
        answer_all(&mut e);
        assert!(e.final_fit().is_none(), "one fit at a time");
        assert!(matches!(e.result_step(), ResultStep::Wait));
        e.remember(fit.count, fit.run());
        let last = e.final_fit().expect("due once the older fit ended");
        assert_eq!(last.count, 20);
        assert!(matches!(e.result_step(), ResultStep::Wait));
        e.remember(last.count, last.run());
        let ResultStep::Ready(v) = e.result_step() else {
            panic!("the final result is known")
        };
        assert_eq!(v["partial"], false, "{v}");
        assert!(e.final_fit().is_none(), "nothing more is due");
    }

    #[test]
    fn a_tie_asks_once_more_and_an_unissued_question_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path(), "sl", "quadruplet", "answers_per_question = 2\n");
        let mut e = Engine::new(s, Vec::new()).unwrap();
        let now = Instant::now();
        let Next::Ask(q) = e.next("a", now) else {
            panic!()
        };
        assert!(e.check("b", &q.id(), &json!(0)).is_err());
        let (q, l, _) = e.check("a", &q.id(), &json!(0)).unwrap();
        e.apply("a", q, l);
        // b gets the same question (it needs a second answer) and disagrees: a tie.
        let mut got = None;
        for _ in 0..1000 {
            match e.next("b", now) {
                Next::Ask(x) if x == q => {
                    got = Some(x);
                    break;
                }
                Next::Ask(x) => {
                    let (x, l, _) = e.check("b", &x.id(), &json!(0)).unwrap();
                    e.apply("b", x, l);
                }
                other => panic!("{other:?}"),
            }
        }
        let q = got.expect("b is asked the question a answered");
        let (q, l, _) = e.check("b", &q.id(), &json!(1)).unwrap();
        e.apply("b", q, l);
        assert_eq!(e.deficit(&q.vote(0).0), 1, "a tie needs one more answer");
        assert!(matches!(e.next("a", now), Next::Ask(x) if x != q));
    }
}
