//! `compclust crowd`: simulated participants who answer a served study over HTTP from a
//! planted truth (docs/SERVER.md).

use super::ExitCode;
use std::path::PathBuf;

use anyhow::bail;
use compclust::data::read_membership_named;
use compclust_server::crowd::{CrowdOptions, Truth, percentile, planted_blocking, run_blocking};

use super::CmdResult;

const HELP: &str = "\
Plays participants of a study that `compclust serve` runs, over real HTTP: each asks
/api/next, thinks, and answers from a truth with the given noise; some leave mid-way.

Truth (--truth FILE): a CSV with header `item,cluster`, one row per (item, cluster) pair, the
items named as in the study (an item in several clusters has several rows), e.g.
  item,cluster
  cat,mammal
  dog,mammal
  bee,insect
or --planted K: the study's items in K equal clusters, in the order of its items.

Prints the answers acknowledged and refused, requests that failed and were retried, and the
latency of /api/next and /api/answer (p50, p99).

Example (with `compclust serve --study examples/serve/animals.toml` running):
  compclust crowd --server http://127.0.0.1:8421 --study animals --participants 20
    --truth examples/serve/truth.csv --flip 0.05 --think-ms 50";

/// Arguments of `compclust crowd` (the help text is [`HELP`]).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// The server, e.g. http://127.0.0.1:8421.
    #[arg(long)]
    server: String,
    /// The study id.
    #[arg(long)]
    study: String,
    /// Participants answering at once.
    #[arg(long, default_value_t = 20)]
    participants: usize,
    /// The truth they answer from: `item,cluster` rows (an item may be in several clusters).
    #[arg(long, required_unless_present = "planted", conflicts_with = "planted")]
    truth: Option<PathBuf>,
    /// A planted truth instead of --truth: the study's items (from the server) in K equal
    /// clusters by their order (item i of n in cluster i·K/n).
    #[arg(long, value_name = "K")]
    planted: Option<usize>,
    /// Probability of flipping each binary answer.
    #[arg(long, default_value_t = 0.0)]
    flip: f64,
    /// Mean thinking time before each answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Probability that a participant leaves at a question instead of answering it.
    #[arg(long, default_value_t = 0.0)]
    leave: f64,
    /// Seed of the noise, thinking times and leaving.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many seconds, done or not.
    #[arg(long, default_value_t = 600.0)]
    max_seconds: f64,
    /// Participant ids are PREFIX0, PREFIX1, ...
    #[arg(long, default_value = "sim")]
    prefix: String,
}

/// Run `compclust crowd`.
pub fn run(a: Args) -> CmdResult {
    if !(0.0..=1.0).contains(&a.flip) || !(0.0..=1.0).contains(&a.leave) {
        bail!("--flip and --leave are probabilities: give them in [0, 1]");
    }
    if !(a.max_seconds > 0.0 && a.max_seconds <= 86_400.0) {
        bail!("--max-seconds: give a number of seconds in (0, 86400]");
    }
    if a.participants == 0 || a.participants > 100_000 {
        bail!("--participants: give 1 to 100000");
    }
    let truth = match (&a.truth, a.planted) {
        (Some(path), _) => {
            let (items, membership, _) = read_membership_named(path, None)?;
            Truth { items, membership }
        }
        (None, Some(k)) => planted_blocking(&a.server, &a.study, k)?,
        (None, None) => bail!("give --truth FILE or --planted K"),
    };
    let opts = CrowdOptions {
        server: a.server,
        study: a.study,
        participants: a.participants,
        flip: a.flip,
        think_ms: a.think_ms,
        leave: a.leave,
        seed: a.seed,
        max_seconds: a.max_seconds,
        prefix: a.prefix,
        hold: None,
    };
    let r = run_blocking(opts, truth)?;
    let n = r.acknowledged.len();
    println!(
        "{n} answers acknowledged in {:.1} s ({:.0} answers/s); answer latency p50 {:.1} ms, \
         p99 {:.1} ms; /api/next p50 {:.1} ms, p99 {:.1} ms",
        r.seconds,
        n as f64 / r.seconds.max(1e-9),
        percentile(&r.answer_ms, 50.0),
        percentile(&r.answer_ms, 99.0),
        percentile(&r.next_ms, 50.0),
        percentile(&r.next_ms, 99.0),
    );
    println!(
        "{} participants done, {} left, {} requests refused, {} failed and retried, {} \
         rate-limited and retried{}",
        r.finished,
        r.left,
        r.refused,
        r.failed,
        r.limited,
        r.code
            .map(|c| format!("; completion code {c}"))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}
