//! The HTTP contract (JSON):
//!
//! - `POST /api/next` `{"study", "participant"}` → `{"question", "kind", "items", "answer"}`,
//!   `{"wait": true}` or `{"done": true, "code", "debrief"}`;
//! - `POST /api/answer` `{"study", "participant", "question", "answer", "ms"}` → `{"ok": true}`
//!   after the commit;
//! - `GET /api/studies/{id}` → the title and instructions (public);
//! - admin, with `Authorization: Bearer TOKEN`: `GET /api/studies/{id}/status`, `/result`,
//!   `/answers.csv[?format=compclust|cblearn|salmon|log]`.
//!
//! Errors are 4xx (5xx when the store fails) with `{"error": "…", "field": "…"}`; nothing is
//! stored for a refused request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use crate::engine::{Accepted, Engine, Fit, Next, Question, ResultStep};
use crate::limit::{Limited, Limiter};
use crate::store::{NewAnswer, NewHandout, Store, StoredAnswer};
use crate::study::QuestionKind;

/// Largest request body accepted, in bytes.
pub const MAX_BODY: usize = 4096;
/// Longest participant id.
pub const MAX_PARTICIPANT: usize = 128;

/// A study and its state.
pub struct Served {
    /// The state, rebuilt from the log.
    pub engine: Mutex<Engine>,
}

/// Everything the handlers share.
pub struct App {
    /// Studies by id.
    pub studies: HashMap<String, Served>,
    /// The answer log.
    pub store: Store,
    /// The admin bearer token.
    pub admin_token: String,
    /// Per-participant rate limits.
    pub limiter: Limiter,
}

/// An error response: status and `{"error", "field"}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    field: Option<&'static str>,
    message: String,
    /// For 429: when to try again (the `Retry-After` header and `retry_after_ms`).
    retry_after: Option<Duration>,
}

impl ApiError {
    pub(crate) fn new(
        status: u16,
        field: Option<&'static str>,
        message: impl Into<String>,
    ) -> Self {
        ApiError {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
            field,
            message: message.into(),
            retry_after: None,
        }
    }

    fn field(field: &'static str, message: impl std::fmt::Display) -> Self {
        ApiError::new(400, Some(field), format!("field `{field}`: {message}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.message, "field": self.field});
        match self.retry_after {
            Some(d) => {
                body["retry_after_ms"] = json!(d.as_millis() as u64);
                let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
                (
                    self.status,
                    [(header::RETRY_AFTER, secs.to_string())],
                    axum::Json(body),
                )
                    .into_response()
            }
            None => (self.status, axum::Json(body)).into_response(),
        }
    }
}

/// 429 when `participant` of `study` is over its rate, or too many participants are active.
fn rate_limit(app: &App, study: &str, participant: &str) -> Result<(), ApiError> {
    let (message, wait) = match app.limiter.check(study, participant, Instant::now()) {
        Ok(()) => return Ok(()),
        Err(Limited::Participant(wait)) => (
            format!("participant `{participant}` sent too many requests; slow down"),
            wait,
        ),
        Err(Limited::Busy(wait)) => (
            "too many participants are active at once; try again shortly".to_string(),
            wait,
        ),
    };
    let mut e = ApiError::new(429, Some("participant"), message);
    e.retry_after = Some(wait);
    Err(e)
}

type ApiResult = Result<Response, ApiError>;

/// The router of a server.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/next", post(next))
        .route("/api/answer", post(answer))
        .route("/api/studies/{id}", get(info))
        .route("/api/studies/{id}/status", get(status))
        .route("/api/studies/{id}/result", get(result))
        .route("/api/studies/{id}/answers.csv", get(answers_csv))
        .merge(crate::pages::routes())
        .fallback(|| async { ApiError::new(404, None, "no such endpoint") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// The JSON object of a request body.
fn body_object(
    body: Result<Bytes, BytesRejection>,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    let body = body.map_err(|e| {
        let status = e.status().as_u16();
        if status == 413 {
            ApiError::new(
                413,
                None,
                format!("the request body is larger than {MAX_BODY} bytes"),
            )
        } else {
            ApiError::new(status, None, e.body_text())
        }
    })?;
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::new(400, None, "the body must be a JSON object")),
        Err(e) => Err(ApiError::new(
            400,
            None,
            format!("the body is not JSON: {e}"),
        )),
    }
}

fn text_field<'a>(
    m: &'a serde_json::Map<String, Value>,
    field: &'static str,
    max: usize,
) -> Result<&'a str, ApiError> {
    match m.get(field) {
        None => Err(ApiError::field(field, "missing")),
        Some(Value::String(s)) if s.is_empty() => Err(ApiError::field(field, "empty")),
        Some(Value::String(s)) if s.chars().count() > max => Err(ApiError::field(
            field,
            format!("longer than {max} characters"),
        )),
        Some(Value::String(s)) if s.chars().any(char::is_control) => {
            Err(ApiError::field(field, "contains control characters"))
        }
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ApiError::field(field, "must be a string")),
    }
}

pub(crate) fn study<'a>(app: &'a App, id: &str) -> Result<&'a Served, ApiError> {
    app.studies
        .get(id)
        .ok_or_else(|| ApiError::field("study", format!("no study `{id}` on this server")))
}

pub(crate) fn lock(s: &Served) -> std::sync::MutexGuard<'_, Engine> {
    s.engine.lock().unwrap_or_else(|p| p.into_inner())
}

async fn next(State(app): State<Arc<App>>, body: Result<Bytes, BytesRejection>) -> ApiResult {
    let m = body_object(body)?;
    let study_id = text_field(&m, "study", 64)?;
    let participant = text_field(&m, "participant", MAX_PARTICIPANT)?;
    let served = study(&app, study_id)?;
    rate_limit(&app, study_id, participant)?;
    let (reply, unsaved) = {
        let mut engine = lock(served);
        match engine.next(participant, Instant::now()) {
            Next::Ask(q) => (
                question_json(&engine, &q, participant),
                engine.handout_unsaved(participant, q).then_some(q),
            ),
            Next::Wait => (json!({"wait": true}), None),
            Next::Done => {
                let s = engine.study();
                (
                    json!({"done": true, "code": s.code, "debrief": s.debrief}),
                    None,
                )
            }
        }
    };
    if let Some(q) = unsaved {
        save_handout(&app, served, study_id, participant, q).await?;
    }
    Ok(axum::Json(reply).into_response())
}

/// Commit the hand-out of `q` to `participant` before the question is sent: after a restart
/// its answer is still accepted.
async fn save_handout(
    app: &App,
    served: &Served,
    study_id: &str,
    participant: &str,
    q: Question,
) -> Result<(), ApiError> {
    app.store
        .hand_out(NewHandout {
            study: study_id.to_string(),
            participant: participant.to_string(),
            question: q.id(),
        })
        .await
        .map_err(|e| ApiError::new(503, None, format!("{e:#}; ask again")))?;
    lock(served).handout_saved(participant, q);
    Ok(())
}

fn question_json(engine: &Engine, q: &Question, participant: &str) -> Value {
    let s = engine.study();
    let items: Vec<&str> = q
        .items()
        .iter()
        .map(|&i| s.items.label(i as usize))
        .collect();
    let answer = match q.kind() {
        QuestionKind::SameCluster if s.algorithm.counts() => "count",
        QuestionKind::SameCluster => "yes-no",
        _ => "0-1",
    };
    let display: Vec<Value> = q
        .items()
        .iter()
        .map(|&i| crate::pages::display_json(s, i as usize))
        .collect();
    let progress = json!({
        "answered": engine.answered_by(participant),
        "quota": s.questions_per_participant,
    });
    json!({"question": q.id(), "kind": q.kind().name(), "items": items, "answer": answer,
           "display": display, "progress": progress})
}

async fn answer(State(app): State<Arc<App>>, body: Result<Bytes, BytesRejection>) -> ApiResult {
    let m = body_object(body)?;
    let study_id = text_field(&m, "study", 64)?;
    let participant = text_field(&m, "participant", MAX_PARTICIPANT)?;
    let question_id = text_field(&m, "question", 64)?;
    let value = m
        .get("answer")
        .ok_or_else(|| ApiError::field("answer", "missing"))?;
    let ms = match m.get("ms") {
        None | Some(Value::Null) => None,
        Some(Value::Number(x)) if x.as_u64().is_some() => x.as_u64(),
        Some(_) => {
            return Err(ApiError::field(
                "ms",
                "must be a whole number of milliseconds (or left out)",
            ));
        }
    };
    let served = study(&app, study_id)?;
    rate_limit(&app, study_id, participant)?;
    let (q, label, accepted) = lock(served)
        .check(participant, question_id, value)
        .map_err(|r| {
            ApiError::new(
                r.status,
                Some(r.field),
                format!("field `{}`: {}", r.field, r.message),
            )
        })?;
    if accepted == Accepted::Stored {
        return Ok(axum::Json(json!({"ok": true})).into_response());
    }
    // Commit and apply in a task of its own: a client that hangs up must not leave a
    // committed answer out of the state.
    let (app2, study_id, participant) =
        (app.clone(), study_id.to_string(), participant.to_string());
    let done = tokio::spawn(async move {
        let stored = app2
            .store
            .append(NewAnswer {
                study: study_id.clone(),
                participant: participant.clone(),
                question: q.id(),
                answer: label,
                ms,
            })
            .await;
        let Some(served) = app2.studies.get(&study_id) else {
            return Err(anyhow::anyhow!("no study `{study_id}`"));
        };
        match stored {
            // New in the store: the state takes it (once: the store holds it once); the last
            // answer of a passive design starts the study's final fit.
            Ok(true) => {
                lock(served).apply(&participant, q, label);
                start_final_fit(&app2, &study_id);
            }
            // Stored before (a resubmission that raced with its first copy).
            Ok(false) => {}
            Err(e) => {
                if accepted == Accepted::New {
                    lock(served).abandon(&participant, q);
                }
                return Err(e);
            }
        }
        Ok(())
    })
    .await;
    match done {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(ApiError::new(
                503,
                None,
                format!("{e:#}; nothing was stored, send it again"),
            ));
        }
        Err(e) => return Err(ApiError::new(500, None, format!("storing the answer: {e}"))),
    }
    Ok(axum::Json(json!({"ok": true})).into_response())
}

/// Run the fit that gives a finished study its result ([`Engine::final_fit`]) on a blocking
/// thread and keep it, so that the status says whether it failed before anyone asks for the
/// result. Nothing happens when the study is not finished or its fit was started before.
pub(crate) fn start_final_fit(app: &Arc<App>, id: &str) {
    let Some(served) = app.studies.get(id) else {
        return;
    };
    let Some(fit) = lock(served).final_fit() else {
        return;
    };
    tokio::spawn(run_fit(app.clone(), id.to_string(), fit));
}

async fn info(State(app): State<Arc<App>>, Path(id): Path<String>) -> ApiResult {
    let served = study(&app, &id)?;
    let engine = lock(served);
    let s = engine.study();
    Ok(axum::Json(json!({
        "study": s.id,
        "title": s.title,
        "instructions": s.instructions,
        "question": s.algorithm.question().name(),
        "questions_per_participant": s.questions_per_participant,
        "items": s.items.labels(),
    }))
    .into_response())
}

/// 401 unless the request carries the admin token (compared in constant time).
pub(crate) fn admin(app: &App, headers: &HeaderMap) -> Result<(), ApiError> {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let ok: bool = given.as_bytes().ct_eq(app.admin_token.as_bytes()).into();
    if ok && !app.admin_token.is_empty() {
        Ok(())
    } else {
        Err(ApiError::new(
            401,
            None,
            "give the admin token: `Authorization: Bearer TOKEN`",
        ))
    }
}

async fn status(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult {
    admin(&app, &headers)?;
    let served = study(&app, &id)?;
    let v = lock(served).status();
    Ok(axum::Json(v).into_response())
}

async fn result(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult {
    admin(&app, &headers)?;
    let served = study(&app, &id)?;
    // A fit (an SDP can take seconds) runs on a blocking thread, not under the study's lock,
    // one at a time per study: a request that finds one running waits for it.
    let give_up = Instant::now() + RESULT_WAIT;
    loop {
        let step = lock(served).result_step();
        match step {
            ResultStep::Ready(v) => return Ok(axum::Json(v).into_response()),
            ResultStep::Run(fit) => {
                let v = run_fit(app.clone(), id.clone(), fit).await.ok_or_else(|| {
                    ApiError::new(500, None, "computing the result failed; ask again")
                })?;
                start_final_fit(&app, &id);
                return Ok(axum::Json(v).into_response());
            }
            ResultStep::Wait if Instant::now() > give_up => {
                return Err(ApiError::new(
                    503,
                    None,
                    "the result is still being computed; ask again",
                ));
            }
            ResultStep::Wait => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// How long a request of the result waits for a fit that another request started.
const RESULT_WAIT: Duration = Duration::from_secs(600);

/// Run `fit` (from [`Engine::result_step`] or [`Engine::final_fit`]) on a blocking thread
/// and keep its value in the study's state, a panic as a failed result
/// ([`Fit::run_guarded`]); `None` only when the task itself was lost (the study's fit slot is
/// freed then).
async fn run_fit(app: Arc<App>, id: String, fit: Fit) -> Option<Value> {
    let count = fit.count;
    let (app2, id2) = (app.clone(), id.clone());
    let run = tokio::task::spawn_blocking(move || {
        let v = fit.run_guarded();
        if let Some(served) = app2.studies.get(&id2) {
            lock(served).remember(count, v.clone());
        }
        v
    });
    match run.await {
        Ok(v) => Some(v),
        Err(_) => {
            if let Some(served) = app.studies.get(&id) {
                lock(served).fit_abandoned(count);
            }
            None
        }
    }
}

async fn answers_csv(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> ApiResult {
    admin(&app, &headers)?;
    let served = study(&app, &id)?;
    let format = query.get("format").map_or("compclust", String::as_str);
    let (items, kind) = {
        let e = lock(served);
        (e.study().items.clone(), e.study().algorithm.question())
    };
    let rows = app
        .store
        .answers(&id)
        .await
        .map_err(|e| ApiError::new(503, None, format!("{e:#}")))?;
    let text = match format {
        "compclust" => compclust_csv(&items, kind, &rows),
        "log" => log_csv(&rows),
        "cblearn" if kind != QuestionKind::SameCluster => cblearn_csv(&items, &rows),
        "cblearn" => {
            return Err(ApiError::new(
                400,
                Some("format"),
                "field `format`: cblearn holds triplets and quadruplets only; this study asks \
                 same-cluster questions (give compclust or log)",
            ));
        }
        "salmon" if kind == QuestionKind::Triplet => salmon_csv(&items, &rows),
        "salmon" => {
            return Err(ApiError::new(
                400,
                Some("format"),
                "field `format`: salmon's responses.csv holds triplets only; this study asks \
                 other questions (give compclust, cblearn or log)",
            ));
        }
        other => {
            return Err(ApiError::new(
                400,
                Some("format"),
                format!("field `format`: `{other}` (give compclust, cblearn, salmon or log)"),
            ));
        }
    }
    .map_err(|e| ApiError::new(500, None, e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response())
}

/// The answers as compclust reads them (docs/FORMATS.md): every answer written as the answered
/// row (`anchor,near,far`, `a,b,c,d` with the more similar pair first, `a,b,answer`), with
/// `worker` and `time` (milliseconds since 1970-01-01 UTC).
pub fn compclust_csv(
    items: &compclust::data::ItemIndex,
    kind: QuestionKind,
    rows: &[StoredAnswer],
) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header: &[&str] = match kind {
        QuestionKind::Triplet => &["anchor", "near", "far", "worker", "time"],
        QuestionKind::Quadruplet => &["a", "b", "c", "d", "worker", "time"],
        QuestionKind::SameCluster => &["a", "b", "answer", "worker", "time"],
    };
    w.write_record(header)?;
    let name = |i: u32| items.label(i as usize).to_string();
    for r in rows {
        let Some(q) = Question::parse(&r.question, items.len()) else {
            anyhow::bail!(
                "answer {}: question id `{}` is not one of this study",
                r.id,
                r.question
            );
        };
        let mut rec: Vec<String> = match q {
            Question::Triplet([a, x, y]) => {
                let (near, far) = if r.answer == 0 { (x, y) } else { (y, x) };
                vec![name(a), name(near), name(far)]
            }
            Question::Quadruplet([a, b, c, d]) => {
                if r.answer == 0 {
                    vec![name(a), name(b), name(c), name(d)]
                } else {
                    vec![name(c), name(d), name(a), name(b)]
                }
            }
            Question::Pair([a, b]) => vec![name(a), name(b), r.answer.to_string()],
        };
        rec.push(r.participant.clone());
        rec.push(r.time_ms.to_string());
        w.write_record(&rec)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The answers in cblearn's `list-order` layout: headerless rows of 0-based item indices (in
/// the study's item order), one per answer, written as answered: `i,j,k` when `i` is closer
/// to `j` than to `k`, `i,j,k,l` when the pair (i, j) is more similar than (k, l).
fn cblearn_csv(
    items: &compclust::data::ItemIndex,
    rows: &[StoredAnswer],
) -> anyhow::Result<String> {
    use compclust::data::{Comparisons, Dataset, OutputFormat, write_comparisons_to};
    if rows.is_empty() {
        return Ok(String::new());
    }
    let mut triplets = Vec::new();
    let mut quadruplets = Vec::new();
    for r in rows {
        match Question::parse(&r.question, items.len()) {
            Some(q @ Question::Triplet(_)) => triplets.extend(q.triplet(r.answer)),
            Some(q @ Question::Quadruplet(_)) => quadruplets.extend(q.quadruplet(r.answer)),
            _ => anyhow::bail!(
                "answer {}: `{}` is not a triplet or quadruplet question",
                r.id,
                r.question
            ),
        }
    }
    let comparisons = if quadruplets.is_empty() {
        Comparisons::Triplets(triplets)
    } else {
        Comparisons::Quadruplets(quadruplets)
    };
    let data = Dataset::new(items.clone(), comparisons)?;
    let mut out = Vec::new();
    write_comparisons_to(&mut out, &data, OutputFormat::ListOrder)?;
    Ok(String::from_utf8(out)?)
}

/// The answer log as stored: `id,participant,question,answer,ms,time` (question ids as handed
/// out; `time` in milliseconds since 1970-01-01 UTC).
fn log_csv(rows: &[StoredAnswer]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["id", "participant", "question", "answer", "ms", "time"])?;
    for r in rows {
        w.write_record([
            r.id.to_string(),
            r.participant.clone(),
            r.question.clone(),
            r.answer.to_string(),
            r.ms.map_or(String::new(), |m| m.to_string()),
            r.time_ms.to_string(),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Triplet answers in salmon's `responses.csv` layout (0-based indices of the items;
/// `response_time` in seconds).
fn salmon_csv(items: &compclust::data::ItemIndex, rows: &[StoredAnswer]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "puid",
        "head",
        "left",
        "right",
        "winner",
        "loser",
        "response_time",
    ])?;
    for r in rows {
        let Some(Question::Triplet([a, x, y])) = Question::parse(&r.question, items.len()) else {
            anyhow::bail!(
                "answer {}: `{}` is not a triplet question",
                r.id,
                r.question
            );
        };
        let (win, lose) = if r.answer == 0 { (x, y) } else { (y, x) };
        let secs =
            r.ms.map_or(String::new(), |m| format!("{:.3}", m as f64 / 1000.0));
        w.write_record([
            r.participant.clone(),
            a.to_string(),
            x.to_string(),
            y.to_string(),
            win.to_string(),
            lose.to_string(),
            secs,
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
