//! `compclust overlap`: overlapping clusters from same-cluster queries (Huleihel et al. 2019).
//!
//! Two modes:
//! * simulation: `--membership TRUTH.csv --oracle direct|quantized|dithered` answers the
//!   algorithm's queries from a known membership, and the report carries the gram error;
//! * collected answers: `--answers ANSWERS.csv --items ITEMS.txt` answers from a file. When the
//!   algorithm needs answers the file does not have, they are written to `--missing FILE` and
//!   the command exits with status 3, so a crowd can be asked in rounds.

use super::ExitCode;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use compclust::active::{Oracle, RunOutcome};
use compclust::crowd::{AggregateReport, Aggregation};
use compclust::data::{
    ClusterNames, ComparisonKind, Comparisons, InputFormat, ItemIndex, ReadOptions,
};
use compclust::metrics::gram::{gram_error, permutation_match};
use compclust::overlap::response::{AnswerBook, OracleKind, Pair, SimulatedOracle};
use compclust::overlap::triangle::Noise;
use compclust::overlap::{
    Ensemble, Membership, OverlapEstimate, OverlapMethod, OverlapParams, SampleSize,
};

use super::CmdResult;
use crate::answers::{answers_json, ask_csv};
use crate::output::{Out, Outputs};
use crate::study::{Pinned, StudyFile, StudyParams};

/// Options of `compclust overlap` for planted truths and sweeps (boxed to keep `Args` small).
#[derive(clap::Args, Debug, Default)]
pub struct SimArgs {
    /// Simulate a planted membership instead of reading one: `uniform:N:K:DELTA`,
    /// `iid:N:K:P` or `movielens-like` (seeded by --seed).
    #[arg(long)]
    planted: Option<String>,
    /// Also write the (simulated) truth here (`item,cluster`).
    #[arg(long)]
    write_truth: Option<PathBuf>,
    /// Sweep: run every sample size in this comma-separated list `--trials` times and write
    /// error-versus-queries curves (the shape of Huleihel et al. 2019, Fig. 1) to --curve and --plot.
    #[arg(long, value_delimiter = ',')]
    sweep: Vec<usize>,
    /// Trials per sample size in a sweep (seeds --seed, --seed+1, ...).
    #[arg(long, default_value_t = 10)]
    trials: u64,
    /// Sweep output: CSV `sample_size,trial,queries,gram_error,exact,seconds`.
    #[arg(long)]
    curve: Option<PathBuf>,
    /// Figures (.svg / .png; may be given several times). A sweep draws line charts of mean ±
    /// std, median and max gram error versus queries; a single run draws the estimated
    /// membership matrix (items × clusters), beside the truth when it is known.
    #[arg(long)]
    plot: Vec<PathBuf>,
}

/// Exit status when answers are missing (written to `--missing`).
pub const EXIT_MISSING: u8 = 3;

const AFTER_HELP: &str = "\
FILES
  membership (TRUTH.csv, ESTIMATE.csv): header `item,cluster`, one row per (item, cluster),
      clusters numbered 0..k-1 (an empty cluster field lists an item in no cluster)
      item,cluster
      tiger_shark,1
      tiger_shark,2
      blue_whale,1
  answers (ANSWERS.csv): header `a,b,answer`; answer = number of shared clusters (direct) or
      0/1 (also yes/no) for quantized answers. Item names as in ITEMS.txt. Optional columns
      `worker` and `time` (any order after the three). A pair answered several times is
      decided by --aggregate (majority vote by default; a tie asks the pair again); the
      report counts answers, distinct pairs, disagreements and each worker's agreement.
      a,b,answer,worker
      tiger_shark,blue_whale,1,ann
  items (ITEMS.txt): one item name per line.
  missing (--missing FILE): header `a,b`, the pairs still to ask (each --redundancy times);
      answer them, append the rows with their answers (and worker) to ANSWERS.csv and run
      again.
  study (--study STUDY.toml): written by the first round, checked by every later one (a
      differing flag or items file: exit status 2). See docs/ROUNDS.md.

EXIT STATUS
  0 done; 2 error, or no estimate (a failed factorisation or a rank-deficient sample: nothing
  is written); 3 answers missing (only --missing is written); 4 partial estimate: written, the
  items it could not place have no cluster, and stdout and the report (`complete`: false,
  `unresolved`) say so.

METHODS
  find-membership  Alg. 1, disjoint clusters, direct answers
  find-similarity  Alg. 2 (+ Alg. 4/5 factorisation), direct answers; needs --k (and --delta
                   for the uniform ensemble, otherwise self-queries are asked)
  clique-cover     Alg. 3/17, quantized noiseless answers, parameter free
  triangle-count   triangle counting, quantized noisy (BSC) answers. --ensemble uniform
                   (default): Alg. 6, needs --k, --delta; also dithered answers; --unknown-q
                   runs Alg. 14 (q estimated). --ensemble iid or iid:P: Alg. 9 (entries
                   Bernoulli(P), P estimated from the yes rate when not given), needs --k and
                   a known q (--flip-prob / --assume-q)

ENSEMBLES (--ensemble)
  uniform   every item in exactly delta of the k clusters (the default)
  iid       every (item, cluster) membership independently with probability P; `iid:P`
            gives P, `iid` estimates it. find-similarity then asks self-queries O(i,i).

EXAMPLES
  compclust overlap --membership truth.csv --oracle quantized --flip-prob 0.1 \\
      --method triangle-count --output est.csv --report report.json
  compclust overlap --planted iid:3000:8:0.25 --oracle quantized --flip-prob 0.05 \\
      --method triangle-count --ensemble iid:0.25 --output est.csv";

/// The simulated oracles of Huleihel et al. (2019), §2, by their command-line names.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SimulatedAnswers {
    /// O(i, j) = A_iᵀA_j.
    Direct,
    /// 1[A_iᵀA_j > 0] through a binary symmetric channel (`--flip-prob`).
    Quantized,
    /// 1[A_iᵀA_j + N(0, σ²) ≥ θ] (`--sigma`, `--threshold`).
    Dithered,
}

impl SimulatedAnswers {
    /// The command-line name, as written in the report.
    fn name(self) -> &'static str {
        match self {
            SimulatedAnswers::Direct => "direct",
            SimulatedAnswers::Quantized => "quantized",
            SimulatedAnswers::Dithered => "dithered",
        }
    }
}

/// Arguments of `compclust overlap`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Known membership to simulate the oracle from (`item,cluster`).
    #[arg(long, conflicts_with_all = ["answers", "items", "planted"], required_unless_present_any = ["answers", "planted"])]
    membership: Option<PathBuf>,
    /// Planted truth and sweeps.
    #[command(flatten)]
    sim: Box<SimArgs>,
    /// Collected answers (`a,b,answer`).
    #[arg(long, requires = "items")]
    answers: Option<PathBuf>,
    /// Item names, one per line (with --answers).
    #[arg(long)]
    items: Option<PathBuf>,
    /// Simulated oracle: direct, quantized or dithered.
    #[arg(long, value_enum, default_value_t = SimulatedAnswers::Direct)]
    oracle: SimulatedAnswers,
    /// Flip probability q of the quantized oracle (BSC).
    #[arg(long, default_value_t = 0.0)]
    flip_prob: f64,
    /// Noise σ of the dithered oracle.
    #[arg(long, default_value_t = 0.5)]
    sigma: f64,
    /// Quantizer threshold θ of the dithered oracle: Y = 1[s + N(0,σ²) ≥ θ].
    #[arg(long, default_value_t = 0.5)]
    threshold: f64,
    /// Algorithm: find-membership, find-similarity, clique-cover, triangle-count.
    #[arg(long, ignore_case = true)]
    method: OverlapMethod,
    /// Number of clusters k (default: from --membership).
    #[arg(long)]
    k: Option<usize>,
    /// Clusters per item Δ (default: from --membership when all items have the same number).
    #[arg(long)]
    delta: Option<usize>,
    /// Membership model: `uniform` (Δ clusters per item; Alg. 6 for triangle-count), `iid`
    /// or `iid:P` (entries Bernoulli(P), P estimated when omitted; Alg. 9 for triangle-count).
    #[arg(long, default_value = "uniform")]
    ensemble: Ensemble,
    /// Flip probability assumed by triangle-count with quantized answers (default: --flip-prob
    /// in simulation, 0 with --answers).
    #[arg(long)]
    assume_q: Option<f64>,
    /// triangle-count: estimate q from the answers (Alg. 14).
    #[arg(long)]
    unknown_q: bool,
    /// Size of the sample S: an integer or `auto` (each method's rule).
    #[arg(long, default_value = "auto")]
    sample_size: SampleSize,
    /// triangle-count: members per cluster in the vote probes, integer or `auto`.
    #[arg(long, default_value = "auto")]
    probes: SampleSize,
    /// Seed of the sample and of the simulated noise.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the estimated membership (`item,cluster`); required unless --sweep.
    #[arg(long, required_unless_present = "sweep")]
    output: Option<PathBuf>,
    /// JSON report: queries, sample, stop reason, gram error (when the truth is known).
    #[arg(long)]
    report: Option<PathBuf>,
    /// With --answers: where to write the pairs still to ask (exit status 3).
    #[arg(long)]
    missing: Option<PathBuf>,
    /// With --answers: the study file (STUDY.toml). The first round writes the method, every
    /// parameter, the seed and the digest of --items; later rounds stop (exit status 2) when a
    /// flag or the items file differs from it.
    #[arg(long, requires = "answers")]
    study: Option<PathBuf>,
    /// With --answers: how several answers to one pair are combined: `majority` (a tie asks
    /// the pair again) or `dawid-skene` (one-coin worker reliabilities by EM; needs a
    /// `worker` column to tell workers apart).
    #[arg(long, default_value = "majority", requires = "answers")]
    aggregate: Aggregation,
    /// With --answers: write every pair to ask this many times to --missing, one row per
    /// person to ask.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000), requires = "answers")]
    redundancy: u32,
    /// Display names for the summary and the plot: a CSV `item,name` (header optional) or a
    /// JSON object from item to name or to `{"name": …}`.
    #[arg(long, value_name = "FILE")]
    items_meta: Option<PathBuf>,
}

fn read_membership_file(path: &Path) -> anyhow::Result<(ItemIndex, Membership, ClusterNames)> {
    let (idx, m, names) = compclust::data::read_membership_named(path, None)?;
    if m.n_clusters() > 64 {
        bail!(
            "{}: {} clusters; at most 64 are supported",
            path.display(),
            m.n_clusters()
        );
    }
    Ok((idx, m, names))
}

/// The outputs of a run, registered (and checked) before any work.
struct OutputFiles {
    study: Option<StudyFile>,
    truth: Option<Out>,
    estimate: Option<Out>,
    report: Option<Out>,
    missing: Option<Out>,
    curve: Option<Out>,
    plots: Vec<Out>,
}

impl OutputFiles {
    fn register(a: &Args, outs: &mut Outputs) -> anyhow::Result<Self> {
        outs.input_opt("--membership", a.membership.as_deref())?;
        outs.input_opt("--answers", a.answers.as_deref())?;
        outs.input_opt("--items", a.items.as_deref())?;
        outs.input_opt("--items-meta", a.items_meta.as_deref())?;
        for p in &a.sim.plot {
            compclust_experiments::plot::format_of(p).context("--plot")?;
        }
        let study = a
            .study
            .as_deref()
            .map(|p| StudyFile::register(outs, p))
            .transpose()?;
        Ok(Self {
            study,
            truth: outs.file_opt("--write-truth", a.sim.write_truth.as_deref())?,
            estimate: outs.file_opt("--output", a.output.as_deref())?,
            report: outs.file_opt("--report", a.report.as_deref())?,
            missing: outs.file_opt("--missing", a.missing.as_deref())?,
            curve: outs.file_opt("--curve", a.sim.curve.as_deref())?,
            plots: a
                .sim
                .plot
                .iter()
                .map(|p| outs.file("--plot", p))
                .collect::<anyhow::Result<_>>()?,
        })
    }
}

/// Exit status of a partial estimate (written, with the items it could not place).
pub const EXIT_PARTIAL: u8 = 4;

/// What the answers came from, to open a message about the estimate: the membership file,
/// the answers file or the planted model.
fn source(a: &Args) -> String {
    match (&a.membership, &a.answers, &a.sim.planted) {
        (Some(p), _, _) | (None, Some(p), _) => p.display().to_string(),
        (None, None, Some(spec)) => format!("--planted {spec}"),
        (None, None, None) => "overlap".to_string(),
    }
}

/// Whether `est` placed no item at all (a failed factorisation, a rank-deficient sample):
/// there is no estimate to write.
fn no_estimate(est: &OverlapEstimate) -> bool {
    use compclust::overlap::StopReason;
    matches!(
        est.stop,
        StopReason::FactorizationFailed { .. }
            | StopReason::RankDeficient { .. }
            | StopReason::EnsembleMismatch { .. }
    ) || (0..est.membership.n_items()).all(|i| est.membership.clusters_of(i).is_empty())
}

/// Whether `est` is complete: every item placed, nothing known to be wrong. The uniform
/// ensemble's complement ambiguity (k = 2Δ) leaves the gram matrix exact and counts as
/// complete.
fn complete(est: &OverlapEstimate) -> bool {
    use compclust::overlap::StopReason;
    matches!(
        est.stop,
        StopReason::Completed | StopReason::ComplementAmbiguity
    )
}

/// The error for a run without an estimate: what stopped it and what to try.
fn no_estimate_error(a: &Args, est: &OverlapEstimate) -> anyhow::Error {
    use compclust::overlap::StopReason;
    let why = match est.stop {
        StopReason::FactorizationFailed { cause } => format!(
            "the gram matrix of the sample ({} items) has no factorisation B Bᵀ with B binary \
             and k = {} columns ({cause})",
            est.sample.len(),
            est.membership.n_clusters()
        ),
        StopReason::RankDeficient { rank } => format!(
            "the sample's memberships have rank {rank} < k = {} on every sample tried ({} \
             samples)",
            est.membership.n_clusters(),
            est.failed_samples.len() + 1
        ),
        StopReason::EnsembleMismatch {
            sample,
            yes_rate,
            expected_yes_rate,
            dispersion,
        } => {
            let mean = expected_yes_rate
                .map(|p| format!(" (the model gives {p:.3} for k, Δ and the noise)"))
                .unwrap_or_default();
            return anyhow::anyhow!(
                "{}: stopped after {} queries on a sample of {sample} items: the answers do not \
                 fit the uniform ensemble triangle counting assumes (every item in Δ of the k \
                 clusters): their yes rate is {yes_rate:.3}{mean} and the variance of the \
                 items' yes counts is {dispersion:.1} times a binomial one (about 1 under the \
                 model). Triangle counting \
                 cannot recover such clusters (real categories: items in 1..Δ clusters, \
                 clusters of very different sizes). Instead ask every pair several times, take \
                 the majority vote of its answers, and run --method clique-cover (Alg. 3: no \
                 Δ, no equal cluster sizes) on the voted answers; no output was written",
                a.method.name(),
                est.queries
            );
        }
        other => format!("no item could be placed ({other:?})"),
    };
    anyhow::anyhow!(
        "{}: no estimate: {why}; check --k and --delta against the answers (the answers may \
         not fit k clusters of Δ each), or try --method clique-cover; no output was written",
        a.method.name()
    )
}

/// The collected answers of `--answers`: the aggregated answer of every pair, what the
/// aggregation saw, and the worker names.
struct Collected {
    book: AnswerBook,
    report: Option<AggregateReport>,
    workers: Vec<String>,
}

/// The collected answers of `--answers`, read by the library's one same-cluster reader (the
/// same delimiters, quoting, BOM handling and answer rule as `convert` and Python), with the
/// answers to each pair aggregated into one (a tied pair stays unanswered, so it is asked
/// again).
fn read_answers_file(
    path: &Path,
    items: &ItemIndex,
    how: Aggregation,
) -> anyhow::Result<Collected> {
    let opts = ReadOptions {
        kind: Some(ComparisonKind::SameCluster),
        format: Some(InputFormat::Csv),
        items: Some(items.clone()),
    };
    let data = match compclust::data::read_comparisons(path, &opts) {
        // The first round of a study starts from no answers (a header alone, or nothing).
        Err(compclust::data::DataError::Empty { .. }) => {
            return Ok(Collected {
                book: AnswerBook::new(),
                report: None,
                workers: Vec::new(),
            });
        }
        read => read?,
    };
    let (agg, workers) = crate::answers::aggregate_file(path, &data.comparisons, data.workers, how);
    let Comparisons::SameCluster(rows) = &agg.comparisons else {
        bail!(
            "{}: expected same-cluster answers `a,b,answer`",
            path.display()
        );
    };
    let mut book = AnswerBook::new();
    for r in rows {
        // The reader admits integers 0..=MAX_SHARED_CLUSTERS only.
        book.insert(r.a, r.b, r.answer as u32);
    }
    Ok(Collected {
        book,
        report: Some(agg.report),
        workers,
    })
}

fn drive_quiet<O: Oracle<Pair, u32>>(
    method: OverlapMethod,
    a: &Args,
    n: usize,
    k: Option<usize>,
    delta: Option<usize>,
    noise: Noise,
    oracle: &mut O,
) -> anyhow::Result<RunOutcome<OverlapEstimate, Pair>> {
    drive_with(method, a, n, k, delta, noise, oracle, false)
}

fn drive<O: Oracle<Pair, u32>>(
    method: OverlapMethod,
    a: &Args,
    n: usize,
    k: Option<usize>,
    delta: Option<usize>,
    noise: Noise,
    oracle: &mut O,
) -> anyhow::Result<RunOutcome<OverlapEstimate, Pair>> {
    drive_with(method, a, n, k, delta, noise, oracle, true)
}

#[allow(clippy::too_many_arguments)]
fn drive_with<O: Oracle<Pair, u32>>(
    method: OverlapMethod,
    a: &Args,
    n: usize,
    k: Option<usize>,
    delta: Option<usize>,
    noise: Noise,
    oracle: &mut O,
    progress: bool,
) -> anyhow::Result<RunOutcome<OverlapEstimate, Pair>> {
    let params = OverlapParams {
        method,
        k,
        delta,
        noise,
        sample_size: a.sample_size,
        probes: a.probes,
        seed: a.seed,
        ensemble: a.ensemble,
    };
    let spinner = progress.then(|| crate::progress::spinner("querying"));
    let out = params.run(n, oracle);
    if let Some(sp) = spinner {
        sp.finish_and_clear();
    }
    Ok(out?)
}

/// Run `compclust overlap`.
pub fn run_cmd(a: Args) -> CmdResult {
    let start = Instant::now();
    let mut outs = Outputs::new();
    let files = OutputFiles::register(&a, &mut outs)?;
    let truth;
    let items;
    let (k, delta);
    let loaded = if let Some(path) = &a.membership {
        let (idx, m, names) = read_membership_file(path)?;
        if m.n_items() < 2 {
            bail!("{}: need at least 2 items", path.display());
        }
        if m.weights().iter().all(|&w| w == 0) {
            bail!(
                "{}: no item is in any cluster; there is nothing to recover",
                path.display()
            );
        }
        Some((idx, m, names))
    } else if let Some(spec) = &a.sim.planted {
        let m = planted(spec, a.seed)?;
        let names = ClusterNames::numbered(m.n_clusters());
        Some((ItemIndex::numbered(m.n_items()), m, names))
    } else {
        None
    };
    if let Some((idx, m, names)) = loaded {
        if let Some(o) = files.truth {
            // The truth as read, cluster names included.
            outs.write_membership_named(o, &idx, &m, &names)?;
        }
        let w = m.weights();
        k = Some(a.k.unwrap_or(m.n_clusters()));
        delta = a
            .delta
            .or_else(|| w.iter().all(|&x| x == w[0]).then_some(w[0]));
        items = idx;
        truth = Some(m);
    } else {
        items = compclust::data::read_items(
            a.items
                .as_ref()
                .context("--items is required with --answers")?,
        )?;
        k = a.k;
        delta = a.delta;
        truth = None;
    }
    let n = items.len();
    let names = crate::summary::display_names(&items, a.items_meta.as_deref())?;
    let kind = match a.oracle {
        SimulatedAnswers::Direct => OracleKind::Direct,
        SimulatedAnswers::Quantized => OracleKind::Quantized { q: a.flip_prob },
        SimulatedAnswers::Dithered => OracleKind::Dithered {
            sigma: a.sigma,
            theta: a.threshold,
        },
    };
    if !(0.0..0.5).contains(&a.flip_prob) {
        bail!("--flip-prob must be in [0, 0.5), got {}", a.flip_prob);
    }
    let noise = match kind {
        OracleKind::Dithered { sigma, theta } if truth.is_some() => Noise::Dither { sigma, theta },
        _ if a.unknown_q => Noise::Bsc { q: None },
        _ => Noise::Bsc {
            q: Some(
                a.assume_q
                    .unwrap_or(if truth.is_some() { a.flip_prob } else { 0.0 }),
            ),
        },
    };
    if !a.sim.sweep.is_empty() {
        let t = truth
            .as_ref()
            .context("--sweep needs a known truth (--membership or --planted)")?;
        return sweep(&a, t, kind, k, delta, noise, outs, &files);
    }
    let output = files.estimate.context("--output is required")?;
    let mut answers = None;
    // Said once the round's outputs are in place: a round that fails writes no study file.
    let mut pinned_note = None;
    let (outcome, asked) = if let Some(t) = &truth {
        let mut o = SimulatedOracle::new(t, kind, a.seed ^ 0x5EED);
        let out = drive(a.method, &a, n, k, delta, noise, &mut o).with_context(|| source(&a))?;
        (out, o.queries())
    } else {
        let path = a.answers.as_ref().expect("answers mode");
        if let (Some(file), Some(shown)) = (&files.study, &a.study) {
            let items_path = a.items.as_deref().expect("--answers requires --items");
            if study_params(&a).pin(file, items_path, n, &mut outs)? == Pinned::Created {
                pinned_note = Some(format!(
                    "study pinned to {} (written with this round)",
                    shown.display()
                ));
            }
        }
        let collected = read_answers_file(path, &items, a.aggregate)?;
        let mut book = collected.book;
        if let Some(r) = &collected.report {
            eprintln!(
                "answers: {} to {} pairs, {} with disagreeing answers, {} tied (asked again \
                 when needed)",
                r.answers, r.questions, r.disagreements, r.undecided
            );
            answers = Some(answers_json(r, &collected.workers));
        }
        let out = drive(a.method, &a, n, k, delta, noise, &mut book).with_context(|| source(&a))?;
        (out, book.queries())
    };
    let (est, rounds) = match outcome {
        RunOutcome::Finished { output, rounds, .. } => (output, rounds),
        RunOutcome::Missing {
            missing,
            queries,
            rounds,
        } => {
            let out = files.missing.context(format!(
                "{} answers are missing; give --missing FILE to write them",
                missing.len()
            ))?;
            let questions = missing.iter().map(|p| [p.a, p.b]);
            outs.write_bytes(out, ask_csv(&items, ["a", "b"], questions, a.redundancy))?;
            let shown = outs.target(out).display().to_string();
            outs.commit()?;
            if let Some(note) = pinned_note {
                eprintln!("{note}");
            }
            eprintln!(
                "{} answers missing (written to {shown}); {queries} answers used so far in \
                 {rounds} rounds",
                missing.len(),
            );
            return Ok(ExitCode::from(EXIT_MISSING));
        }
    };
    for (i, f) in est.failed_samples.iter().enumerate() {
        println!(
            "sample {} of {} items given up after {} queries ({:?}); {}",
            i + 1,
            f.size,
            f.queries,
            f.reason,
            if est
                .failed_samples
                .get(i + 1)
                .map_or(est.sample.len(), |g| g.size)
                > f.size
            {
                "enlarged"
            } else {
                "resampled (Huleihel et al. 2019, §4)"
            }
        );
    }
    if no_estimate(&est) {
        return Err(no_estimate_error(&a, &est).context(source(&a)));
    }
    outs.write_membership(output, &items, &est.membership)?;
    for &o in &files.plots {
        outs.write_path(o, |p| {
            draw_membership(p, &est.membership, truth.as_ref(), &names)
        })?;
    }
    if let (Some(o), true) = (files.missing, a.answers.is_some()) {
        // Nothing is left to ask: the ASK file of an earlier round is replaced by its header
        // alone, so it no longer lists pairs already answered.
        outs.write_bytes(o, ask_csv(&items, ["a", "b"], std::iter::empty(), 1))?;
    }
    let is_complete = complete(&est);
    let total_pairs = n * (n - 1) / 2;
    let (gerr, exact) = match &truth {
        Some(t) => (
            Some(gram_error(t, &est.membership)?),
            Some(permutation_match(t, &est.membership)?.is_some()),
        ),
        None => (None, None),
    };
    eprintln!(
        "{}: {} queries in {rounds} rounds ({:.2}% of {} pairs), stop: {:?}{}",
        a.method.name(),
        est.queries,
        100.0 * est.queries as f64 / total_pairs as f64,
        total_pairs,
        est.stop,
        gerr.map(|g| format!(", gram error {g}"))
            .unwrap_or_default()
    );
    print!("{}", crate::summary::memberships(&names, &est.membership));
    if let Some(o) = files.report {
        let report = serde_json::json!({
            "method": a.method.name(),
            "complete": is_complete,
            "oracle": if truth.is_some() { a.oracle.name() } else { "answers" },
            "n": n,
            "k": est.membership.n_clusters(),
            "queries": est.queries,
            "rounds": rounds,
            "oracle_queries": asked,
            "total_pairs": total_pairs,
            "query_fraction": est.queries as f64 / total_pairs as f64,
            "sample": est.sample.iter().map(|&i| items.label(i as usize)).collect::<Vec<_>>(),
            "stop": est.stop,
            "unresolved": est.unresolved.iter().map(|&i| items.label(i as usize)).collect::<Vec<_>>(),
            "factor_method": est.factor_method,
            "failed_samples": est.failed_samples,
            "q_used": est.q_used,
            "p_used": est.p_used,
            "probes": est.probes,
            "gram_error": gerr,
            "exact_up_to_permutation": exact,
            "answers": answers,
            "seconds": start.elapsed().as_secs_f64(),
        });
        outs.write_json(o, &report)?;
    }
    outs.commit()?;
    if let Some(note) = pinned_note {
        eprintln!("{note}");
    }
    if is_complete {
        return Ok(ExitCode::SUCCESS);
    }
    let what = if est.unresolved.is_empty() {
        "every item is placed, but the estimate may be wrong".to_string()
    } else {
        format!(
            "{} of {n} items could not be placed and are written with no cluster{}",
            est.unresolved.len(),
            if a.report.is_some() {
                " (listed under `unresolved` in the report)"
            } else {
                ""
            }
        )
    };
    println!(
        "partial result ({:?}): {what}; exit status {EXIT_PARTIAL}",
        est.stop
    );
    Ok(ExitCode::from(EXIT_PARTIAL))
}

/// The estimated membership matrix, beside the truth (columns matched to the estimate's)
/// when it is known (`--plot` without `--sweep`).
fn draw_membership(
    path: &Path,
    est: &Membership,
    truth: Option<&Membership>,
    names: &[String],
) -> anyhow::Result<()> {
    use compclust_experiments::plot::membership::{Panel, draw, matched_columns, row_order};
    let mut panels = vec![Panel {
        title: "estimate",
        membership: est,
    }];
    let mut columns = vec![(0..est.n_clusters()).collect::<Vec<_>>()];
    if let Some(t) = truth {
        panels.push(Panel {
            title: "truth",
            membership: t,
        });
        columns.push(matched_columns(est, t));
    }
    let order = row_order(truth.unwrap_or(est));
    let title = format!(
        "membership of {} items in {} clusters",
        est.n_items(),
        est.n_clusters()
    );
    draw(path, &panels, &columns, &order, names, &title)
}

fn planted(spec: &str, seed: u64) -> anyhow::Result<Membership> {
    use compclust::models::overlap::{BernoulliEnsemble, UniformEnsemble, movielens_like};
    let f: Vec<&str> = spec.split(':').collect();
    let bad = || {
        anyhow::anyhow!(
            "--planted: expected uniform:N:K:DELTA, iid:N:K:P or movielens-like, got `{spec}`"
        )
    };
    let num = |x: &str| x.parse::<usize>().map_err(|_| bad());
    Ok(match f.as_slice() {
        ["movielens-like"] => movielens_like(seed),
        ["uniform", n, k, d] => UniformEnsemble {
            n: num(n)?,
            k: num(k)?,
            delta: num(d)?,
        }
        .sample(seed)?,
        ["iid", n, k, p] => BernoulliEnsemble {
            n: num(n)?,
            k: num(k)?,
            p: p.parse().map_err(|_| bad())?,
        }
        .sample(seed)?,
        _ => return Err(bad()),
    })
}

#[allow(clippy::too_many_arguments)]
fn sweep(
    a: &Args,
    truth: &Membership,
    kind: OracleKind,
    k: Option<usize>,
    delta: Option<usize>,
    noise: Noise,
    mut outs: Outputs,
    files: &OutputFiles,
) -> CmdResult {
    use compclust_experiments::plot::lines::{LineChart, Series, draw};
    let n = truth.n_items();
    let pb = crate::progress::bar((a.sim.sweep.len() as u64) * a.sim.trials, "sweep");
    let mut csv = String::from("sample_size,trial,queries,gram_error,exact,seconds\n");
    let (mut mean, mut median, mut max) = (Vec::new(), Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for &m in &a.sim.sweep {
        let mut errs = Vec::new();
        let mut qs = Vec::new();
        for t in 0..a.sim.trials {
            let seed = a.seed.wrapping_add(t);
            let args = Args {
                sample_size: SampleSize::Fixed(m),
                seed,
                ..a.clone_for_sweep()
            };
            let mut o = SimulatedOracle::new(truth, kind, seed ^ 0x5EED);
            let t0 = Instant::now();
            let out = match drive_quiet(a.method, &args, n, k, delta, noise, &mut o)? {
                RunOutcome::Finished { output, .. } => output,
                RunOutcome::Missing { .. } => bail!("simulated oracle cannot miss answers"),
            };
            let secs = t0.elapsed().as_secs_f64();
            let e = gram_error(truth, &out.membership)? as f64;
            let exact = permutation_match(truth, &out.membership)?.is_some();
            csv.push_str(&format!("{m},{t},{},{e},{exact},{secs:.4}\n", out.queries));
            errs.push(e);
            qs.push(out.queries as f64);
            pb.inc(1);
        }
        let q = qs.iter().sum::<f64>() / qs.len() as f64;
        let mu = errs.iter().sum::<f64>() / errs.len() as f64;
        let sd = (errs.iter().map(|e| (e - mu).powi(2)).sum::<f64>() / errs.len() as f64).sqrt();
        let mut sorted = errs.clone();
        sorted.sort_by(f64::total_cmp);
        let med = sorted[sorted.len() / 2];
        mean.push((q, mu, sd));
        median.push((q, med, 0.0));
        max.push((q, *sorted.last().expect("trials >= 1"), 0.0));
        failures.push((q, errs.iter().filter(|&&e| e > 0.0).count() as f64, 0.0));
    }
    pb.finish_and_clear();
    if let Some(o) = files.curve {
        outs.write_bytes(o, csv)?;
    }
    let chart = LineChart {
        title: format!(
            "{}: gram error vs queries (n = {n}, {} trials)",
            a.method.name(),
            a.sim.trials
        ),
        x_label: "queries".into(),
        y_label: "entries of AAᵀ wrong".into(),
        log_x: true,
        series: vec![
            Series {
                name: "mean ± std".into(),
                points: mean,
            },
            Series {
                name: "median".into(),
                points: median,
            },
            Series {
                name: "max".into(),
                points: max,
            },
            Series {
                name: "failed trials".into(),
                points: failures,
            },
        ],
    };
    for &o in &files.plots {
        outs.write_path(o, |p| draw(&chart, p))?;
    }
    outs.commit()?;
    Ok(ExitCode::SUCCESS)
}

impl Args {
    fn clone_for_sweep(&self) -> Args {
        Args {
            membership: None,
            sim: Box::default(),
            answers: None,
            items: None,
            oracle: self.oracle,
            flip_prob: self.flip_prob,
            sigma: self.sigma,
            threshold: self.threshold,
            method: self.method,
            k: self.k,
            delta: self.delta,
            ensemble: self.ensemble,
            assume_q: self.assume_q,
            unknown_q: self.unknown_q,
            sample_size: self.sample_size,
            probes: self.probes,
            seed: self.seed,
            output: None,
            report: None,
            missing: None,
            study: None,
            aggregate: self.aggregate,
            redundancy: self.redundancy,
            items_meta: None,
        }
    }
}

/// The parameters of an overlap study: every flag that decides which pairs are asked.
fn study_params(a: &Args) -> StudyParams {
    let size = |s: SampleSize| match s {
        SampleSize::Auto => "auto".to_string(),
        SampleSize::Fixed(m) => m.to_string(),
    };
    let ensemble = match a.ensemble {
        Ensemble::Uniform => "uniform".to_string(),
        Ensemble::Iid { p: None } => "iid".to_string(),
        Ensemble::Iid { p: Some(p) } => format!("iid:{p}"),
    };
    StudyParams::new("overlap")
        .param("method", a.method.name())
        .opt("k", a.k)
        .opt("delta", a.delta)
        .param("ensemble", ensemble)
        .opt("assume-q", a.assume_q)
        .param("unknown-q", a.unknown_q)
        .param("sample-size", size(a.sample_size))
        .param("probes", size(a.probes))
        .param("seed", a.seed)
        .param("aggregate", a.aggregate.name())
}

/// Entry point used by `main`.
pub fn run(a: Args) -> CmdResult {
    run_cmd(a)
}
