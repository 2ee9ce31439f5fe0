//! The browser pages of a served study, shipped inside the binary (plain HTML, CSS and
//! JavaScript; nothing is fetched from elsewhere):
//!
//! - `GET /s/{id}?participant=P` (also `PROLIFIC_PID`, `workerId`, `puid`; an MTurk preview,
//!   `assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE`, shows the instructions only): the participant's
//!   page: the instructions, then one question at a time over `/api/next` and `/api/answer`,
//!   then the debrief with the completion code (and, for an accepted MTurk HIT, the form that
//!   submits the assignment to MTurk);
//! - `GET /admin/{id}`: the researcher's dashboard (it asks for the admin token and calls the
//!   admin endpoints with it);
//! - `GET /s/{id}/items/{file}`: an image of the study's items folder (only the files the study
//!   lists as items);
//! - admin JSON for the dashboard: `GET /api/studies/{id}/dashboard` (items and how they are
//!   shown, per-participant counts, response times and agreement with the others, answers over
//!   time, and for a triplet study the AddS-3 similarity of Perrot et al. 2020, §4).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use compclust::data::Triplet;
use serde_json::{Value, json};

use crate::engine::Question;
use crate::http::{ApiError, App, admin, lock, study};
use crate::store::StoredAnswer;
use crate::study::{ItemDisplay, QuestionKind, Study};

const PARTICIPANT_HTML: &str = include_str!("../assets/participant.html");
const DASHBOARD_HTML: &str = include_str!("../assets/dashboard.html");
const ASSETS: [(&str, &str, &str); 4] = [
    (
        "page.css",
        "text/css; charset=utf-8",
        include_str!("../assets/page.css"),
    ),
    (
        "common.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/common.js"),
    ),
    (
        "participant.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/participant.js"),
    ),
    (
        "dashboard.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/dashboard.js"),
    ),
];

/// Scripts only from this server; styles may be inline (item HTML of the study file);
/// images from this server (the items folder) or inline data; forms sent only here or to
/// Amazon Mechanical Turk's ExternalQuestion submit address (and its sandbox's), where the
/// participant's page submits an accepted HIT.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; object-src 'none'; base-uri 'none'; \
                   form-action 'self' https://www.mturk.com https://workersandbox.mturk.com";

/// Largest number of items for which the dashboard gets a similarity matrix.
pub const MAX_HEATMAP_ITEMS: usize = 300;

/// The page routes (merged into [`crate::http::router`]).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/s/{id}", get(participant_page))
        .route("/admin/{id}", get(dashboard_page))
        .route("/static/{file}", get(asset))
        .route("/s/{id}/items/{file}", get(item_file))
        .route("/api/studies/{id}/dashboard", get(dashboard_json))
}

fn page(html: &'static str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            // Participant ids travel in the page's address: keep them out of Referer headers.
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        html,
    )
        .into_response()
}

fn not_found(what: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{what}\n"),
    )
        .into_response()
}

async fn participant_page(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if app.studies.contains_key(&id) {
        page(PARTICIPANT_HTML)
    } else {
        not_found(&format!("no study `{id}` on this server"))
    }
}

async fn dashboard_page(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if app.studies.contains_key(&id) {
        page(DASHBOARD_HTML)
    } else {
        not_found(&format!("no study `{id}` on this server"))
    }
}

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, mime, text)) => (
            [
                (header::CONTENT_TYPE, *mime),
                (header::CACHE_CONTROL, "no-cache"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            ],
            *text,
        )
            .into_response(),
        None => not_found("no such file"),
    }
}

/// An image of the items folder: only a file name the study lists (never a path), read from
/// the folder the study file names.
async fn item_file(
    State(app): State<Arc<App>>,
    Path((id, file)): Path<(String, String)>,
) -> Response {
    let Some(served) = app.studies.get(&id) else {
        return not_found(&format!("no study `{id}` on this server"));
    };
    let path = {
        let engine = lock(served);
        let s = engine.study();
        s.display.iter().find_map(|d| match d {
            ItemDisplay::Image { file: f, path } if *f == file => Some(path.clone()),
            _ => None,
        })
    };
    let Some(path) = path else {
        return not_found("no such item image in this study");
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, image_type(&file)),
                (header::CACHE_CONTROL, "max-age=3600"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                // An SVG image opened on its own must not run scripts.
                (
                    header::CONTENT_SECURITY_POLICY,
                    "default-src 'none'; style-src 'unsafe-inline'",
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("item image `{file}` cannot be read: {e}\n"),
        )
            .into_response(),
    }
}

/// The media type of an item image, by its extension (the study reads only these).
pub fn image_type(file: &str) -> &'static str {
    let ext = file
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        _ => "application/octet-stream",
    }
}

/// How item `i` is shown: `{"text": …}`, `{"html": …}` (from the study file only) or
/// `{"image": URL, "alt": name}`.
pub fn display_json(s: &Study, i: usize) -> Value {
    let name = s.items.label(i);
    match s.display.get(i) {
        Some(ItemDisplay::Html(h)) => json!({"html": h}),
        Some(ItemDisplay::Image { file, .. }) => json!({
            "image": format!("/s/{}/items/{}", s.id, url_segment(file)),
            "alt": name,
        }),
        Some(ItemDisplay::Text) | None => json!({"text": name}),
    }
}

/// Percent-encode one path segment.
fn url_segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

async fn dashboard_json(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    admin(&app, &headers)?;
    let served = study(&app, &id)?;
    let s = lock(served).study().clone();
    let rows = app
        .store
        .answers(&id)
        .await
        .map_err(|e| ApiError::new(503, None, format!("{e:#}")))?;
    let items: Vec<Value> = (0..s.items.len())
        .map(|i| json!({"name": s.items.label(i), "display": display_json(&s, i)}))
        .collect();
    let kind = s.algorithm.question();
    let similarity = if kind == QuestionKind::Triplet && s.items.len() <= MAX_HEATMAP_ITEMS {
        adds3_of(&rows, s.items.len())
    } else {
        Value::Null
    };
    Ok(axum::Json(json!({
        "study": s.id,
        "title": s.title,
        "question": kind.name(),
        "family": s.algorithm.family(),
        "items": items,
        "participants": participants(&rows, s.items.len()),
        "timeline": timeline(&rows),
        "response_ms": response_times(&rows),
        "similarity": similarity,
    }))
    .into_response())
}

/// What an answer says, in a form equal for equal questions asked in other orders: the
/// question (items sorted as the kind allows) and the choice (the nearer item, the more similar
/// pair, or the answer).
fn vote(q: &Question, answer: u32) -> ([u32; 4], u32) {
    match *q {
        Question::Triplet([a, x, y]) => {
            let near = if answer == 0 { x } else { y };
            ([a, x.min(y), x.max(y), 0], near)
        }
        Question::Quadruplet([a, b, c, d]) => {
            let p = (a.min(b), a.max(b));
            let r = (c.min(d), c.max(d));
            let (lo, hi) = (p.min(r), p.max(r));
            let won = if answer == 0 { p } else { r };
            ([lo.0, lo.1, hi.0, hi.1], u32::from(won == hi))
        }
        Question::Pair([a, b]) => ([a.min(b), a.max(b), 0, 0], answer),
    }
}

/// Per participant: answers, median response time, and agreement with the others: the share of
/// their answers equal to the majority of the other participants' answers to the same question
/// (questions without such a majority left out) — a careless worker agrees about as often as
/// chance.
fn participants(rows: &[StoredAnswer], n: usize) -> Vec<Value> {
    let mut by_q: HashMap<[u32; 4], Vec<(usize, u32)>> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut ms: Vec<Vec<u64>> = Vec::new();
    for r in rows {
        let p = *index.entry(r.participant.as_str()).or_insert_with(|| {
            names.push(r.participant.as_str());
            ms.push(Vec::new());
            names.len() - 1
        });
        if let Some(m) = r.ms {
            ms[p].push(m);
        }
        if let Some(q) = Question::parse(&r.question, n) {
            let (key, choice) = vote(&q, r.answer);
            by_q.entry(key).or_default().push((p, choice));
        }
    }
    let mut answered = vec![0usize; names.len()];
    let mut compared = vec![0usize; names.len()];
    let mut agreed = vec![0usize; names.len()];
    for votes in by_q.values() {
        for &(p, choice) in votes {
            answered[p] += 1;
            let mut counts: HashMap<u32, usize> = HashMap::new();
            for &(o, c) in votes {
                if o != p {
                    *counts.entry(c).or_default() += 1;
                }
            }
            let best = counts.values().copied().max().unwrap_or(0);
            let winners: Vec<u32> = counts
                .iter()
                .filter(|&(_, &v)| v == best)
                .map(|(&c, _)| c)
                .collect();
            if best > 0 && winners.len() == 1 {
                compared[p] += 1;
                agreed[p] += usize::from(winners[0] == choice);
            }
        }
    }
    (0..names.len())
        .map(|p| {
            let mut m = std::mem::take(&mut ms[p]);
            m.sort_unstable();
            json!({
                "participant": names[p],
                "answers": answered[p],
                "median_ms": m.get(m.len() / 2),
                "compared": compared[p],
                "agreement": (compared[p] > 0).then(|| agreed[p] as f64 / compared[p] as f64),
            })
        })
        .collect()
}

/// Answers per time bin (at most 60 bins of a whole number of seconds).
fn timeline(rows: &[StoredAnswer]) -> Value {
    let (Some(first), Some(last)) = (
        rows.iter().map(|r| r.time_ms).min(),
        rows.iter().map(|r| r.time_ms).max(),
    ) else {
        return json!({"start_ms": null, "bin_ms": 1000, "counts": []});
    };
    let span = (last - first).max(1);
    let bin = ((span / 60 / 1000) + 1) * 1000;
    let mut counts = vec![0u64; ((span / bin) + 1) as usize];
    for r in rows {
        counts[((r.time_ms - first) / bin) as usize] += 1;
    }
    json!({"start_ms": first, "bin_ms": bin, "counts": counts})
}

/// Response times in bins that double: `[0, 250)`, `[250, 500)`, `[500, 1000)`, … ms.
fn response_times(rows: &[StoredAnswer]) -> Value {
    let mut edges = vec![0u64, 250];
    while edges.len() < 10 {
        edges.push(edges[edges.len() - 1] * 2);
    }
    let mut counts = vec![0u64; edges.len()];
    for m in rows.iter().filter_map(|r| r.ms) {
        let b = edges.iter().rposition(|&e| m >= e).unwrap_or(0);
        counts[b] += 1;
    }
    json!({"edges": edges, "counts": counts})
}

/// The AddS-3 similarity of every answer (Perrot et al. 2020, §4), rows of item indices.
fn adds3_of(rows: &[StoredAnswer], n: usize) -> Value {
    let triplets: Vec<Triplet> = rows
        .iter()
        .filter_map(|r| match Question::parse(&r.question, n)? {
            Question::Triplet([a, x, y]) => Some(if r.answer == 0 {
                Triplet::new(a, x, y)
            } else {
                Triplet::new(a, y, x)
            }),
            _ => None,
        })
        .collect();
    match compclust::similarity::adds3(n, &triplets) {
        Ok(m) => Value::Array(
            (0..n)
                .map(|i| json!((0..n).map(|j| m[(i, j)]).collect::<Vec<f64>>()))
                .collect(),
        ),
        Err(e) => json!({"error": e.to_string()}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(p: &str, q: &str, answer: u32) -> StoredAnswer {
        StoredAnswer {
            id: 0,
            participant: p.into(),
            question: q.into(),
            answer,
            ms: Some(1000),
            time_ms: 0,
        }
    }

    #[test]
    fn agreement_compares_each_answer_with_the_others_majority() {
        // The same triplet asked in two orders: a and b say item 1 is nearer, c says item 2.
        let rows = [
            row("a", "t-0-1-2", 0),
            row("b", "t-0-2-1", 1),
            row("c", "t-0-1-2", 1),
            // A question only c answered: nothing to compare with.
            row("c", "t-3-1-2", 0),
        ];
        let p = participants(&rows, 4);
        let get = |name: &str| p.iter().find(|v| v["participant"] == name).unwrap().clone();
        assert_eq!(get("a")["agreement"], json!(null), "a tie among b and c");
        assert_eq!(get("b")["agreement"], json!(null));
        assert_eq!(
            get("c")["agreement"],
            json!(0.0),
            "a and b both disagree with c"
        );
        assert_eq!(get("c")["answers"], json!(2));
        // Quadruplets: the pair chosen, in whatever order the pairs were shown.
        let rows = [
            row("a", "q-0-1-2-3", 0),
            row("b", "q-3-2-1-0", 1),
            row("c", "q-2-3-0-1", 1),
        ];
        let p = participants(&rows, 4);
        for v in &p {
            assert_eq!(v["agreement"], json!(1.0), "{v}");
        }
    }

    #[test]
    fn time_bins_cover_every_answer() {
        let mut rows: Vec<StoredAnswer> = (0..100).map(|i| row("a", "p-0-1", i % 2)).collect();
        for (i, r) in rows.iter_mut().enumerate() {
            r.time_ms = 1_000_000 + i as i64 * 7_919;
            r.ms = Some(i as u64 * 100);
        }
        let t = timeline(&rows);
        let total: u64 = t["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(total, 100);
        assert!(t["counts"].as_array().unwrap().len() <= 61);
        let h = response_times(&rows);
        let total: u64 = h["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(total, 100);
    }

    #[test]
    fn item_urls_are_one_encoded_segment() {
        assert_eq!(url_segment("a b/../c.png"), "a%20b%2F..%2Fc.png");
        assert_eq!(image_type("X.JPG"), "image/jpeg");
    }
}
