//! `compclust serve`: ask people the questions of a study over HTTP and keep every answer
//! (docs/SERVER.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

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
}

/// Run `compclust serve`.
pub fn run(a: Args) -> CmdResult {
    compclust_server::serve_blocking(ServeOptions {
        studies: a.study,
        db: a.db,
        bind: a.bind,
        admin_token: a.admin_token,
    })?;
    Ok(ExitCode::SUCCESS)
}
