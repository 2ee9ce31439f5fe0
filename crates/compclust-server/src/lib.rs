//! `compclust serve`: a query service that asks people the questions of the compclust
//! algorithms and never loses an acknowledged answer, and `compclust crowd`, a simulated crowd
//! that answers it over HTTP.
//!
//! - [`study`]: the study file (items, algorithm, redundancy, quota, seed);
//! - [`engine`]: the state of a study, a function of its answer log: the algorithm's library
//!   entry point replayed over the aggregated answers (Ghoshdastidar et al. 2019, §3.1 for
//!   SL / CL, eq. 1-2 for active 4K-AL; Huleihel et al. 2019 for the same-cluster algorithms;
//!   Perrot et al. 2020 for AddS-3 + SPUR on a passive design);
//! - [`store`]: the answer log and the hand-outs (SQLite, WAL, `synchronous=FULL`, group
//!   commit);
//! - [`http`]: the HTTP contract;
//! - [`limit`]: per-participant rate limits in a bounded map;
//! - [`pages`]: the participant's page and the researcher's dashboard; [`items`]: how items
//!   are shown (text, HTML of the study file, images of a folder);
//! - [`crowd`]: simulated participants.

pub mod crowd;
pub mod engine;
pub mod http;
pub mod items;
pub mod limit;
pub mod pages;
pub mod store;
pub mod study;

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::engine::{Engine, Logged, Question};
use crate::http::{App, Served};
use crate::limit::Limiter;
use crate::store::Store;

/// What `compclust serve` is given.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The study files.
    pub studies: Vec<PathBuf>,
    /// The store: `sqlite:PATH`; default: `<first study file>.answers.db`.
    pub db: Option<String>,
    /// Address to listen on.
    pub bind: SocketAddr,
    /// The admin bearer token; a random one is made (and printed) when none is given.
    pub admin_token: Option<String>,
    /// Requests per second each participant may send to `/api/next` and `/api/answer`
    /// (0: no limit).
    pub rate_limit: f64,
    /// Requests a participant may send at once before [`ServeOptions::rate_limit`] applies.
    pub burst: f64,
    /// Participants rate-limited at once, at most (the bound of the limiter's map).
    pub max_active_participants: usize,
}

/// A random admin token (from the operating system's hash keys; 128 bits).
fn random_token() -> String {
    let mut s = String::new();
    for _ in 0..2 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0);
        s.push_str(&format!("{:016x}", h.finish()));
    }
    s
}

/// Read every study and rebuild its state from the store.
pub async fn load(opts: &ServeOptions) -> anyhow::Result<(App, String)> {
    if opts.studies.is_empty() {
        bail!("give at least one --study STUDY.toml");
    }
    let mut studies = HashMap::new();
    let mut read = Vec::new();
    for p in &opts.studies {
        let s = study::read_study(p)?;
        if studies.contains_key(&s.id) || read.iter().any(|r: &study::Study| r.id == s.id) {
            bail!("--study {}: a second study with id `{}`", p.display(), s.id);
        }
        read.push(s);
    }
    let db = match &opts.db {
        Some(d) => d.clone(),
        None => format!(
            "sqlite:{}",
            opts.studies[0].with_extension("answers.db").display()
        ),
    };
    let store = Store::open(&db).await?;
    for s in read {
        let rows = store.answers(&s.id).await?;
        let n = s.items.len();
        let log = rows
            .into_iter()
            .map(|r| {
                let q = Question::parse(&r.question, n).with_context(|| {
                    format!(
                        "{db}: answer {} of study `{}`: question `{}` is not one of the study \
                         (was the study file changed after answers were collected?)",
                        r.id, s.id, r.question
                    )
                })?;
                Ok(Logged {
                    participant: r.participant,
                    question: q,
                    answer: r.answer,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let handed = store.handouts(&s.id).await?;
        let now_ms = store::now_ms();
        let handed: Vec<_> = handed
            .into_iter()
            .filter_map(|h| {
                // A hand-out of a question the study no longer has cannot be answered.
                let q = Question::parse(&h.question, n)?;
                let age = Duration::from_millis(u64::try_from(now_ms - h.time_ms).unwrap_or(0));
                Some((h.participant, q, age))
            })
            .collect();
        let id = s.id.clone();
        let mut engine = Engine::new(Arc::new(s), log)?;
        engine.restore_handouts(handed, Instant::now());
        studies.insert(
            id,
            Served {
                engine: Mutex::new(engine),
            },
        );
    }
    let admin_token = match &opts.admin_token {
        Some(t) if t.len() < 8 => bail!("--admin-token: give at least 8 characters"),
        Some(t) => t.clone(),
        None => {
            let t = random_token();
            eprintln!("admin token (give it as `Authorization: Bearer TOKEN`): {t}");
            t
        }
    };
    Ok((
        App {
            studies,
            store,
            admin_token,
            limiter: Limiter::new(opts.rate_limit, opts.burst, opts.max_active_participants),
        },
        db,
    ))
}

/// Serve until interrupted (Ctrl-C). Prints `listening on http://ADDR` once it accepts
/// connections (with the port chosen when `bind` has port 0).
pub async fn serve(opts: ServeOptions) -> anyhow::Result<()> {
    let (app, db) = load(&opts).await?;
    for (id, s) in &app.studies {
        let st = s.engine.lock().unwrap_or_else(|p| p.into_inner()).status();
        eprintln!(
            "study `{id}`: {} answers in {db}, round {}, done: {}",
            st["answers"], st["rounds"], st["done"]
        );
    }
    let listener = tokio::net::TcpListener::bind(opts.bind)
        .await
        .with_context(|| format!("--bind {}", opts.bind))?;
    let addr = listener.local_addr()?;
    let app = Arc::new(app);
    // a study that finished before a restart gets its result computed again
    for id in app.studies.keys() {
        http::start_final_fit(&app, id);
    }
    println!("listening on http://{addr}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    axum::serve(listener, http::router(app))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving")?;
    Ok(())
}

/// [`serve`] on a new multi-threaded runtime. On return the fit of a finished study still
/// running ([`Engine::final_fit`](engine::Engine::final_fit)) is left behind, not waited for:
/// the answers are stored and the fit is made again at the next start.
pub fn serve_blocking(opts: ServeOptions) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let served = rt.block_on(serve(opts));
    rt.shutdown_background();
    served
}
