//! The answer log: the only state of a served study. An answer is acknowledged after its
//! transaction commits; a restart reads the log back and replays it. Next to it, the
//! hand-outs: which question was handed to which participant, committed before the question
//! is sent, so that an answer to a question handed out before a restart is still accepted
//! (and an answer to a question never handed to that participant still refused).
//!
//! SQLite (a file, WAL journal, `synchronous=FULL`: a committed answer survives a crash of
//! the process or of the machine) is the embedded default; PostgreSQL (`postgres://…`, with the
//! `postgres` feature) is the engine when a lab outgrows one file. Both hold the same table.
//! One writer task commits the answers that arrive together in one transaction (group
//! commit), so that durability does not cost one disk flush per answer.

use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};

#[cfg(feature = "postgres")]
use sqlx::PgPool;
use tokio::sync::{mpsc, oneshot};

/// Answers committed together at most.
const GROUP: usize = 512;

/// One answer to store.
#[derive(Clone, Debug)]
pub struct NewAnswer {
    /// The study id.
    pub study: String,
    /// Who answered.
    pub participant: String,
    /// The question id.
    pub question: String,
    /// The answer (0 / 1, or a count).
    pub answer: u32,
    /// The response time the participant's page measured, in milliseconds.
    pub ms: Option<u64>,
}

/// One stored answer.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAnswer {
    /// Commit order.
    pub id: i64,
    /// Who answered.
    pub participant: String,
    /// The question id.
    pub question: String,
    /// The answer.
    pub answer: u32,
    /// The response time, in milliseconds, if given.
    pub ms: Option<u64>,
    /// When the server received it, in milliseconds since 1970-01-01 UTC.
    pub time_ms: i64,
}

/// One hand-out to store: `question` was handed to `participant`.
#[derive(Clone, Debug)]
pub struct NewHandout {
    /// The study id.
    pub study: String,
    /// Who was asked.
    pub participant: String,
    /// The question id.
    pub question: String,
}

/// One stored hand-out.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredHandout {
    /// Who was asked.
    pub participant: String,
    /// The question id.
    pub question: String,
    /// When it was first handed out, in milliseconds since 1970-01-01 UTC.
    pub time_ms: i64,
}

/// What the writer commits.
#[derive(Clone, Debug)]
enum Job {
    Answer(NewAnswer),
    Handout(NewHandout),
}

type Reply = oneshot::Sender<Result<bool, String>>;

/// The database engine of a store.
#[derive(Clone)]
enum Db {
    Sqlite(SqlitePool),
    #[cfg(feature = "postgres")]
    Postgres(PgPool),
}

/// The answer log of every study of a server.
#[derive(Clone)]
pub struct Store {
    db: Db,
    writer: mpsc::Sender<(Job, Reply)>,
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    study TEXT NOT NULL,
    participant TEXT NOT NULL,
    question TEXT NOT NULL,
    answer INTEGER NOT NULL,
    ms INTEGER,
    time_ms INTEGER NOT NULL,
    UNIQUE (study, participant, question)
)";

/// Hand-outs, one row per (participant, question), with the time of the first.
const HANDOUTS: &str = "CREATE TABLE IF NOT EXISTS handouts (
    study TEXT NOT NULL,
    participant TEXT NOT NULL,
    question TEXT NOT NULL,
    time_ms BIGINT NOT NULL,
    PRIMARY KEY (study, participant, question)
)";

#[cfg(feature = "postgres")]
const PG_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS answers (
    id BIGSERIAL PRIMARY KEY,
    study TEXT NOT NULL,
    participant TEXT NOT NULL,
    question TEXT NOT NULL,
    answer BIGINT NOT NULL,
    ms BIGINT,
    time_ms BIGINT NOT NULL,
    UNIQUE (study, participant, question)
)";

const SELECT: &str = "SELECT id, participant, question, answer, ms, time_ms FROM answers \
                      WHERE study = $1 ORDER BY id";
const SELECT_HANDOUTS: &str = "SELECT participant, question, time_ms FROM handouts \
                               WHERE study = $1 ORDER BY time_ms";
const INSERT_HANDOUT: &str = "INSERT INTO handouts (study, participant, question, time_ms) \
                              VALUES ($1, $2, $3, $4) \
                              ON CONFLICT (study, participant, question) DO NOTHING";
const INSERT: &str = "INSERT INTO answers (study, participant, question, answer, ms, time_ms) \
                      VALUES ($1, $2, $3, $4, $5, $6) \
                      ON CONFLICT (study, participant, question) DO NOTHING";

impl Store {
    /// Open (creating it if needed) the store at `url`: `sqlite:PATH` or `postgres://…`.
    pub async fn open(url: &str) -> anyhow::Result<Store> {
        let db = if let Some(path) = url.strip_prefix("sqlite:") {
            Db::Sqlite(open_sqlite(url, path).await?)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            open_postgres(url).await?
        } else {
            anyhow::bail!("--db {url}: give sqlite:PATH or postgres://USER@HOST/DATABASE");
        };
        let (writer, rx) = mpsc::channel(4096);
        tokio::spawn(write_loop(db.clone(), rx));
        Ok(Store { db, writer })
    }

    /// Commit `a`; `true` when it was new, `false` when the same participant had answered
    /// the same question before (nothing is stored twice).
    pub async fn append(&self, a: NewAnswer) -> anyhow::Result<bool> {
        self.commit(Job::Answer(a), "storing the answer").await
    }

    /// Commit the hand-out `h` (nothing when the same question was handed to the same
    /// participant before).
    pub async fn hand_out(&self, h: NewHandout) -> anyhow::Result<()> {
        self.commit(Job::Handout(h), "storing the hand-out")
            .await
            .map(|_| ())
    }

    async fn commit(&self, job: Job, what: &str) -> anyhow::Result<bool> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send((job, tx))
            .await
            .map_err(|_| anyhow::anyhow!("the answer store has stopped"))?;
        rx.await
            .map_err(|_| anyhow::anyhow!("the answer store has stopped"))?
            .map_err(|e| anyhow::anyhow!("{what}: {e}"))
    }

    /// Every hand-out of `study`, oldest first.
    pub async fn handouts(&self, study: &str) -> anyhow::Result<Vec<StoredHandout>> {
        on_pool!(&self.db, pool => sqlx::query(SELECT_HANDOUTS)
            .bind(study)
            .fetch_all(pool)
            .await
            .context("reading the hand-outs")?
            .iter()
            .map(stored_handout)
            .collect())
    }

    /// Every answer of `study`, in commit order.
    pub async fn answers(&self, study: &str) -> anyhow::Result<Vec<StoredAnswer>> {
        on_pool!(&self.db, pool => sqlx::query(SELECT)
            .bind(study)
            .fetch_all(pool)
            .await
            .context("reading the answers")?
            .iter()
            .map(stored)
            .collect())
    }
}

/// One row of `answers`, whatever the engine.
fn stored<R: Row>(r: &R) -> anyhow::Result<StoredAnswer>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> Option<i64>: sqlx::Decode<'a, R::Database>,
{
    let get = || -> Result<StoredAnswer, sqlx::Error> {
        Ok(StoredAnswer {
            id: r.try_get("id")?,
            participant: r.try_get("participant")?,
            question: r.try_get("question")?,
            answer: u32::try_from(r.try_get::<i64, _>("answer")?).unwrap_or(u32::MAX),
            ms: r
                .try_get::<Option<i64>, _>("ms")?
                .and_then(|m| u64::try_from(m).ok()),
            time_ms: r.try_get("time_ms")?,
        })
    };
    get().context("reading the answers")
}

/// One row of `handouts`, whatever the engine.
fn stored_handout<R: Row>(r: &R) -> anyhow::Result<StoredHandout>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let get = || -> Result<StoredHandout, sqlx::Error> {
        Ok(StoredHandout {
            participant: r.try_get("participant")?,
            question: r.try_get("question")?,
            time_ms: r.try_get("time_ms")?,
        })
    };
    get().context("reading the hand-outs")
}

async fn open_sqlite(url: &str, path: &str) -> anyhow::Result<SqlitePool> {
    let opts = SqliteConnectOptions::from_str(&format!("sqlite:{path}"))
        .with_context(|| format!("--db {url}"))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(Duration::from_secs(10));
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(opts)
        .await
        .with_context(|| format!("--db {url}: cannot open the database"))?;
    for table in [SCHEMA, HANDOUTS] {
        sqlx::query(table)
            .execute(&pool)
            .await
            .with_context(|| format!("--db {url}: cannot create the tables"))?;
    }
    Ok(pool)
}

#[cfg(feature = "postgres")]
async fn open_postgres(url: &str) -> anyhow::Result<Db> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(8)
        .connect(url)
        .await
        .with_context(|| format!("--db {url}: cannot connect"))?;
    // Servers started together on one database would race on CREATE TABLE IF NOT EXISTS
    // (PostgreSQL can then fail on its catalogue's unique index): one at a time.
    let create = async {
        let mut tx = pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock(84210001)")
            .execute(&mut *tx)
            .await?;
        for table in [PG_SCHEMA, HANDOUTS] {
            sqlx::query(table).execute(&mut *tx).await?;
        }
        tx.commit().await
    };
    create
        .await
        .with_context(|| format!("--db {url}: cannot create the tables"))?;
    Ok(Db::Postgres(pool))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(url: &str) -> anyhow::Result<Db> {
    anyhow::bail!(
        "--db {url}: this compclust was built without PostgreSQL; build it with \
         `--features compclust-cli/postgres`, or give sqlite:PATH"
    )
}

/// Milliseconds since 1970-01-01 UTC.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Commit the answers and hand-outs waiting in `rx`, as many as have arrived (up to
/// [`GROUP`]) per transaction, and tell each sender whether its row was new.
async fn write_loop(db: Db, mut rx: mpsc::Receiver<(Job, Reply)>) {
    while let Some(first) = rx.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < GROUP {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let committed = on_pool!(&db, pool => commit_on!(pool, &jobs));
        match committed {
            Ok(new) => {
                for ((_, reply), n) in jobs.into_iter().zip(new) {
                    let _ = reply.send(Ok(n));
                }
            }
            Err(e) => {
                for (_, reply) in jobs {
                    let _ = reply.send(Err(e.to_string()));
                }
            }
        }
    }
}

/// `$body` with `$pool` bound to the connection pool of the engine `$db` holds: one text for
/// both engines, whose pools have different types (sqlx's queries are generic over them).
macro_rules! on_pool {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            Db::Sqlite($pool) => $body,
            #[cfg(feature = "postgres")]
            Db::Postgres($pool) => $body,
        }
    };
}
use on_pool;

/// Insert `jobs` in one transaction on `$pool`; for each, whether it was new.
macro_rules! commit_on {
    ($pool:expr, $jobs:expr) => {{
        async {
            let mut tx = $pool.begin().await?;
            let mut new = Vec::with_capacity($jobs.len());
            let time = now_ms();
            for (job, _) in $jobs {
                let r = match job {
                    Job::Answer(a) => {
                        sqlx::query(INSERT)
                            .bind(&a.study)
                            .bind(&a.participant)
                            .bind(&a.question)
                            .bind(i64::from(a.answer))
                            .bind(a.ms.map(|m| m.min(i64::MAX as u64) as i64))
                            .bind(time)
                            .execute(&mut *tx)
                            .await?
                    }
                    Job::Handout(h) => {
                        sqlx::query(INSERT_HANDOUT)
                            .bind(&h.study)
                            .bind(&h.participant)
                            .bind(&h.question)
                            .bind(time)
                            .execute(&mut *tx)
                            .await?
                    }
                };
                new.push(r.rows_affected() == 1);
            }
            tx.commit().await?;
            Ok::<Vec<bool>, sqlx::Error>(new)
        }
        .await
    }};
}
use commit_on;
