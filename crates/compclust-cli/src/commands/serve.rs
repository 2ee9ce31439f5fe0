//! `compclust serve`: ask people the questions of a study over HTTP and keep every answer
//! (docs/SERVER.md).

use super::ExitCode;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::bail;
use compclust_server::ServeOptions;

use super::CmdResult;

const AFTER_HELP: &str = "\
HTTP (JSON)
  POST /api/next    {\"study\": S, \"participant\": P}
                    -> {\"question\": Q, \"kind\": K, \"items\": [...], \"answer\": \"0-1\"|\"yes-no\"|\"count\"}
                       | {\"wait\": true} | {\"done\": true, \"code\": C, \"debrief\": D}
  POST /api/answer  {\"study\": S, \"participant\": P, \"question\": Q, \"answer\": A, \"ms\": T}
                    -> {\"ok\": true} once the answer is committed
  GET  /api/studies/S                                    title, instructions
  GET  /api/studies/S/status | /result | /answers.csv    admin: Authorization: Bearer TOKEN

The answer log (--db) is the only state: at start-up every study is replayed from it, so a
crash loses no acknowledged answer and the study goes on where it stopped.

EXAMPLE
  compclust serve --study study.toml --db sqlite:answers.db --admin-token s3cret-token
  compclust crowd --server http://127.0.0.1:8421 --study animals --participants 20 \\
      --truth truth.csv";

/// Arguments of `compclust serve`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A study file (docs/SERVER.md); repeat for several studies.
    #[arg(long, required = true)]
    study: Vec<PathBuf>,
    /// The answer log: `sqlite:PATH` (created when missing; default: next to the first study
    /// file, `STUDY.answers.db`).
    #[arg(long)]
    db: Option<String>,
    /// Address to listen on (port 0: any free port, printed).
    #[arg(long, default_value = "127.0.0.1:8421")]
    bind: SocketAddr,
    /// Token of the admin endpoints (at least 8 characters; a random one is printed when not
    /// given).
    #[arg(long)]
    admin_token: Option<String>,
    /// Requests per second each participant may send to /api/next and /api/answer (more get
    /// 429 with Retry-After; 0: no limit).
    #[arg(long, default_value_t = 10.0)]
    rate_limit: f64,
    /// Requests a participant may send at once before --rate-limit applies.
    #[arg(long, default_value_t = 20.0)]
    burst: f64,
    /// Participants rate-limited at once, at most: a participant id not seen before is
    /// refused (429) while this many are active (bounds the memory of the limits).
    #[arg(long, default_value_t = 100_000)]
    max_active_participants: usize,
}

/// Run `compclust serve`.
pub fn run(a: Args) -> CmdResult {
    if !(a.rate_limit.is_finite() && a.rate_limit >= 0.0) {
        bail!("--rate-limit: give a number of requests per second, 0 or more");
    }
    if !(a.burst.is_finite() && a.burst >= 1.0) {
        bail!("--burst: give a number of requests, 1 or more");
    }
    if a.max_active_participants == 0 {
        bail!("--max-active-participants: give at least 1");
    }
    compclust_server::serve_blocking(ServeOptions {
        studies: a.study,
        db: a.db,
        bind: a.bind,
        admin_token: a.admin_token,
        rate_limit: a.rate_limit,
        burst: a.burst,
        max_active_participants: a.max_active_participants,
    })?;
    Ok(ExitCode::SUCCESS)
}
