//! The papers' experiments: each reproduces one figure or table over its parameter grid and
//! repetitions, writes a tidy CSV (`runs.csv`, one row per run and metric) and draws its
//! figure(s) (SVG and PNG, mean ± std as in the papers).
//!
//! Each experiment implements [`Experiment`] in one of the area modules (`flat`, `realdata`,
//! `hierarchy`, `overlap`) and is listed by that module's `experiments()`; [`registry`] lists
//! them all. Experiments only orchestrate: every algorithm, and every simulated instance, comes
//! from the `compclust` library. [`run`] runs one experiment from [`Options`] and reports its
//! progress through a [`Progress`] observer; nothing here prints (the `compclust experiment`
//! command shows the progress and the outcome).
//!
//! The figures live in [`plot`] (the command-line tool draws with it too): the figures are part
//! of what an experiment reproduces, and `--replot` redraws them from a CSV without the tool.
//!
//! ```no_run
//! use compclust_experiments::{NoProgress, Options, run};
//!
//! let opts = Options {
//!     quick: true,
//!     out: Some("results/flat-comparisons".into()),
//!     ..Options::new("flat-comparisons")
//! };
//! let outcome = run(&opts, Box::new(NoProgress))?;
//! println!("{} rows in {}", outcome.rows, outcome.csv.display());
//! # anyhow::Ok(())
//! ```

pub mod flat;
pub mod hierarchy;
pub mod journal;
pub mod overlap;
pub mod plot;
pub mod progress;
pub mod realdata;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};

use journal::{JOURNAL_FILE, Journal};
use plot::lines::{LineChart, Series};
pub use progress::{NoProgress, Progress};

/// One measured value of one run: the tidy CSV's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Method name as in the paper's legend (e.g. "AddS-3", "4-AL-I3").
    pub method: String,
    /// Grid parameters of this run, in a stable order (e.g. [("n","1000"),("eps","0.75")]).
    pub params: Vec<(String, String)>,
    /// Repetition seed.
    pub seed: u64,
    /// Metric name (e.g. "ari", "aari", "dasgupta", "k_hat", "queries").
    pub metric: String,
    /// Metric value.
    pub value: f64,
    /// Wall time of the run in seconds (the same for every metric of one run).
    pub time_s: f64,
}

impl Row {
    /// A row with the given method, parameters, seed, metric, value and time.
    pub fn new(
        method: impl Into<String>,
        params: &[(&str, String)],
        seed: u64,
        metric: impl Into<String>,
        value: f64,
        time_s: f64,
    ) -> Self {
        Row {
            method: method.into(),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            seed,
            metric: metric.into(),
            value,
            time_s,
        }
    }

    /// The value of parameter `name`, if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What an experiment gets to run with.
pub struct Ctx {
    /// Reduced grid for tests.
    pub quick: bool,
    /// Repetitions asked for on the command line (None: the experiment's default).
    pub seeds: Option<usize>,
    /// Output folder (exists).
    pub out: PathBuf,
    /// Shared data folder, if one was found (real-data experiments require it).
    pub data: Option<PathBuf>,
    /// Progress observer; the experiment sets its length and ticks it once per run.
    pub progress: Box<dyn Progress>,
    /// `--n`: number of items instead of the paper's (flat and mnist experiments).
    pub n: Option<usize>,
    /// `--known-k`: known k instead of SPUR (flat and mnist experiments).
    pub known_k: bool,
    /// Journal of finished trials, for experiments that are [`Experiment::resumable`].
    pub journal: Option<Journal>,
    /// `--sdp-tol`: the SDP stopping tolerance when not the default (flat experiments, mnist).
    pub sdp_tol: Option<f64>,
    /// `--spur-refine`: SPUR's first-pass tolerance (flat experiments, mnist; `None`: every SPUR
    /// solve at the SDP tolerance, as the committed runs were made).
    pub spur_refine: Option<f64>,
    /// `--shard`: run only this share of the trials (resumable experiments).
    pub shard: Option<Shard>,
    /// `--only`: run only the trials that match every one of these (resumable experiments).
    pub only: Vec<TrialFilter>,
    /// Trials that `only` let through (in any shard), and a key of one it held back (for the
    /// error when nothing matched).
    only_seen: std::sync::Mutex<(usize, Option<String>)>,
}

/// One of `count` disjoint shares of an experiment's trials (`--shard INDEX/COUNT`): a trial
/// belongs to the share `FNV-1a(key) mod count`, so every process that runs a share agrees on
/// it without talking to the others, and the shares together are every trial once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This share, `0..count`.
    pub index: usize,
    /// Number of shares.
    pub count: usize,
}

impl Shard {
    /// Whether the trial called `key` is in this share.
    pub fn has(&self, key: &str) -> bool {
        // FNV-1a (64-bit): stable across platforms and releases, unlike std's hasher.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        (h % self.count as u64) as usize == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `INDEX/COUNT`, e.g. `3/16` (0-based index).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("expected INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/4, got `{s}`");
        let (i, c) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = c.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// One `NAME=VALUE[,VALUE…]` term of `--only`: a trial matches it when its key
/// ([`journal::trial_key`], the words `name=value` of its parameters and `seed=S`) has the
/// word `NAME=V` for one of the listed values, so `seed=2` or `eps=0.75,1` select the trials
/// of that seed or of those ε. Values are compared as the keys spell them (the same strings as
/// the columns of runs.csv; no value of a key holds a comma or a space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialFilter {
    /// Parameter name (`seed` for the repetition).
    pub name: String,
    /// Its accepted values, as written in the trial keys.
    pub values: Vec<String>,
}

impl TrialFilter {
    /// Whether the trial called `key` has this parameter at one of these values.
    pub fn matches(&self, key: &str) -> bool {
        key.split(' ').any(|word| {
            word.split_once('=')
                .is_some_and(|(n, v)| n == self.name && self.values.iter().any(|value| value == v))
        })
    }
}

/// Whether the trial called `key` passes every `--only`: filters that name the same parameter
/// are alternatives (`--only eps=0.5 --only eps=1` is `--only eps=0.5,1`), filters that name
/// different parameters must all match.
pub fn passes_filters(filters: &[TrialFilter], key: &str) -> bool {
    filters.iter().all(|f| {
        filters
            .iter()
            .filter(|g| g.name == f.name)
            .any(|g| g.matches(key))
    })
}

impl std::str::FromStr for TrialFilter {
    type Err = String;

    /// `NAME=VALUE[,VALUE…]`, e.g. `seed=2` or `eps=0.75,1` (no spaces: trial keys have none
    /// inside a value).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "expected NAME=VALUE or NAME=VALUE,VALUE,… without spaces or empty values, \
                 e.g. seed=2 or eps=0.5,1, got `{s}`"
            )
        };
        let (name, values) = s.split_once('=').ok_or_else(bad)?;
        let ok = |x: &str| !x.is_empty() && !x.contains(char::is_whitespace) && !x.contains('=');
        let values: Vec<String> = values.split(',').map(str::to_string).collect();
        if !ok(name) || !values.iter().all(|v| ok(v)) {
            return Err(bad());
        }
        Ok(TrialFilter {
            name: name.to_string(),
            values,
        })
    }
}

impl std::fmt::Display for TrialFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.name, self.values.join(","))
    }
}

impl Ctx {
    /// Number of repetitions: `--seeds` if given, else `default`.
    pub fn n_seeds(&self, default: usize) -> usize {
        self.seeds.unwrap_or(default).max(1)
    }

    /// The shared data folder or a clear error naming what was looked for.
    pub fn data_dir(&self) -> anyhow::Result<&Path> {
        self.data.as_deref().context(
            "this experiment needs the shared data sets: pass --data DIR or set COMPCLUST_DATA \
             (looked for ../shared/data and ./shared/data)",
        )
    }

    /// A path inside the output folder.
    pub fn out_path(&self, file: &str) -> PathBuf {
        self.out.join(file)
    }

    /// The rows of one trial: read back from the journal when an interrupted run finished it,
    /// else computed by `run` and journaled (see [`journal`]). `key` names the trial uniquely
    /// within the experiment ([`journal::trial_key`]).
    pub fn trial(
        &self,
        key: &str,
        run: impl FnOnce() -> anyhow::Result<Vec<Row>>,
    ) -> anyhow::Result<Vec<Row>> {
        // --only before --shard: the error for a filter that matches nothing looks at every
        // trial, while a share may hold none of the matching ones
        if !self.only.is_empty() {
            let mut seen = self.only_seen.lock().unwrap_or_else(|e| e.into_inner());
            if !passes_filters(&self.only, key) {
                seen.1.get_or_insert_with(|| key.to_string());
                return Ok(Vec::new());
            }
            seen.0 += 1;
        }
        if let Some(shard) = self.shard
            && !shard.has(key)
        {
            return Ok(Vec::new());
        }
        // The trial in progress (the last one started when trials run in parallel): a
        // paper-size trial can take most of an hour.
        let run = || {
            self.progress.set_message(key);
            run()
        };
        match &self.journal {
            Some(j) => j.trial(key, run),
            None => run(),
        }
    }

    /// The options, besides --seeds, that decide the trials' results (a resumed run must
    /// match the journal's).
    fn config(&self) -> String {
        let mut c = format!(
            "quick={} n={} known_k={}",
            self.quick,
            self.n.map_or("default".to_string(), |n| n.to_string()),
            self.known_k
        );
        // Only when given, so that journals of runs at the default tolerance stay valid.
        if let Some(t) = self.sdp_tol {
            c += &format!(" sdp_tol={t}");
        }
        if let Some(t) = self.spur_refine {
            c += &format!(" spur_refine={t}");
        }
        c
    }
}

/// A paper experiment (one figure or table).
pub trait Experiment: Sync {
    /// Command-line name (e.g. "flat-comparisons").
    fn name(&self) -> &'static str;
    /// One line: paper, figure and what is plotted.
    fn about(&self) -> &'static str;
    /// Run the grid, pushing one [`Row`] per run and metric into `rows` as runs finish.
    fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()>;
    /// Draw the figure(s) from the rows into `ctx.out`; return the files written.
    fn figures(&self, ctx: &Ctx, rows: &[Row]) -> anyhow::Result<Vec<PathBuf>>;
    /// For experiments whose `run` computes its rows trial by trial through [`Ctx::trial`]:
    /// the key of the trial a row belongs to, exactly as that trial passes it to `Ctx::trial`
    /// (so that the rows of an earlier runs.csv can be reused, see `--resume-from`). `None`
    /// for experiments that write their rows only at the end and cannot be resumed.
    fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
        None
    }
    /// Whether an interrupted run can be resumed (the experiment has [`Self::trial_key_of`]).
    fn resumable(&self) -> bool {
        self.trial_key_of().is_some()
    }
}

/// Every experiment, in the order of `experiment list`.
pub fn registry() -> Vec<Box<dyn Experiment>> {
    let mut all = flat::experiments();
    all.extend(realdata::experiments());
    all.extend(hierarchy::experiments());
    all.extend(overlap::experiments());
    all
}

/// What [`run`] is asked to do: the options of `compclust experiment`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Experiment name (see [`registry`]).
    pub name: String,
    /// Reduced grid and repetitions, for tests (each experiment well under a minute).
    pub quick: bool,
    /// Number of repetitions (seeds 0..R); `None`: the experiment's own (paper's) choice.
    pub seeds: Option<usize>,
    /// Output folder (created if missing); with `replot` it defaults to the CSV's folder.
    pub out: Option<PathBuf>,
    /// Folder holding the shared real data sets; `None`: the first of `$COMPCLUST_DATA`,
    /// `../shared/data`, `./shared/data` that exists.
    pub data: Option<PathBuf>,
    /// Number of items instead of the paper's (planted experiments' n, or a seeded subsample
    /// of each MNIST subset).
    pub n: Option<usize>,
    /// Do not run: redraw the figures from this runs.csv.
    pub replot: Option<PathBuf>,
    /// Give the flat methods the planted (or true) number of clusters instead of SPUR.
    pub known_k: bool,
    /// Continue an interrupted run from the trials in `out/runs.journal`.
    pub resume: bool,
    /// Reuse the trials of earlier, finished runs: their runs.csv files (e.g. one per shard).
    pub resume_from: Vec<PathBuf>,
    /// Stopping tolerance of every SDP solve, when not the default.
    pub sdp_tol: Option<f64>,
    /// SPUR's first-pass tolerance (flat experiments, mnist); `None` solves every SDP of SPUR to the
    /// SDP tolerance.
    pub spur_refine: Option<f64>,
    /// Run only this share of the trials, write their rows and draw no figure (the shares'
    /// runs.csv files, given to `resume_from`, make the whole run).
    pub shard: Option<Shard>,
    /// Run only the trials that match every filter (e.g. `seed=2`), write their rows and draw
    /// no figure, as for a shard.
    pub only: Vec<TrialFilter>,
}

impl Options {
    /// The options of a full run of experiment `name`, everything else at its default.
    pub fn new(name: impl Into<String>) -> Self {
        Options {
            name: name.into(),
            ..Options::default()
        }
    }
}

/// What [`run`] did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The experiment's name.
    pub experiment: &'static str,
    /// Rows written to (or, for a replot, read from) `csv`.
    pub rows: usize,
    /// The tidy CSV written (or, for a replot, read).
    pub csv: PathBuf,
    /// The figures drawn.
    pub figures: Vec<PathBuf>,
    /// Wall time of the run in seconds (0 for a replot).
    pub seconds: f64,
    /// Whether this was a replot (nothing ran).
    pub replot: bool,
}

/// The experiment called `name`, or an error listing the known ones.
pub fn find(name: &str) -> anyhow::Result<Box<dyn Experiment>> {
    let all = registry();
    let names: Vec<&str> = all.iter().map(|e| e.name()).collect();
    let known = names.join(", ");
    all.into_iter()
        .find(|e| e.name() == name)
        .with_context(|| format!("unknown experiment {name:?}; known: list, {known}"))
}

/// Run the experiment `opts.name` (or redraw its figures, with `opts.replot`), reporting
/// progress and notes to `progress`.
pub fn run(opts: &Options, progress: Box<dyn Progress>) -> anyhow::Result<Outcome> {
    let exp = find(&opts.name)?;
    let out = match (&opts.out, &opts.replot) {
        (Some(o), _) => o.clone(),
        (None, Some(csv)) => csv
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(".")),
        (None, None) => bail!("--out DIR is required to run an experiment"),
    };
    std::fs::create_dir_all(&out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut ctx = Ctx {
        quick: opts.quick,
        seeds: opts.seeds,
        out,
        data: find_data_dir(opts.data.clone())?,
        progress,
        n: opts.n,
        known_k: opts.known_k,
        journal: None,
        sdp_tol: opts.sdp_tol,
        spur_refine: opts.spur_refine,
        shard: opts.shard,
        only: opts.only.clone(),
        only_seen: Default::default(),
    };
    if let Some(csv) = &opts.replot {
        ctx.progress.finish();
        let rows = read_rows(csv, exp.name())?;
        let figures = exp.figures(&ctx, &rows)?;
        return Ok(Outcome {
            experiment: exp.name(),
            rows: rows.len(),
            csv: csv.clone(),
            figures,
            seconds: 0.0,
            replot: true,
        });
    }
    if let Some(key_of) = exp.trial_key_of() {
        let path = ctx.out_path(JOURNAL_FILE);
        let config = ctx.config();
        // Read --resume-from before the journal is created: a bad file changes nothing.
        let imported = opts
            .resume_from
            .iter()
            .map(|file| Ok((file, trials_of_file(file, exp.name(), &config, key_of)?)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut journal = Journal::open(&path, exp.name(), &config, opts.resume)?;
        for (file, trials) in imported {
            let found = trials.len();
            let added = journal.import(trials)?;
            ctx.progress.note(&format!(
                "{}: {found} finished trial(s), {added} of them new to {}",
                file.display(),
                path.display()
            ));
        }
        ctx.journal = Some(journal);
    } else if opts.resume
        || !opts.resume_from.is_empty()
        || opts.sdp_tol.is_some()
        || opts.spur_refine.is_some()
        || opts.shard.is_some()
        || !opts.only.is_empty()
    {
        let names: Vec<&str> = registry()
            .iter()
            .filter(|e| e.resumable())
            .map(|e| e.name())
            .collect();
        bail!(
            "--resume, --resume-from, --shard, --only, --sdp-tol and --spur-refine work only \
             for {}; {} writes runs.csv \
             at the end and cannot be resumed",
            names.join(", "),
            exp.name()
        );
    }
    run_experiment(exp.as_ref(), ctx)
}

/// Run `exp` with `ctx`, write runs.csv and the figures, and delete the journal once the run
/// has finished. When a trial fails, the finished rows go to runs.partial.csv and nothing
/// else in the folder changes.
fn run_experiment(exp: &dyn Experiment, mut ctx: Ctx) -> anyhow::Result<Outcome> {
    let t0 = Instant::now();
    let mut rows = Vec::new();
    let result = exp.run(&ctx, &mut rows);
    ctx.progress.finish();
    if let Err(e) = result {
        return Err(e.context(failed_run(exp.name(), &ctx, &rows)));
    }
    if let Err(e) = check_only_matched(&ctx) {
        // this run computed nothing: a journal holding only --resume-from's trials would make
        // the corrected command ask for --resume
        close_journal(&mut ctx)?;
        return Err(e);
    }
    // A shard's (or --only's) rows are a share of the grid: its figures would show holes.
    let figures = if ctx.shard.is_some() || !ctx.only.is_empty() {
        Vec::new()
    } else {
        match exp.figures(&ctx, &rows) {
            Ok(f) => f,
            Err(e) => return Err(e.context(failed_run(exp.name(), &ctx, &rows))),
        }
    };
    let csv = ctx.out_path("runs.csv");
    write_rows(&csv, exp.name(), &rows)?;
    // The rows of an earlier failed run are in runs.csv now.
    let _ = std::fs::remove_file(ctx.out_path(PARTIAL_FILE));
    let unused = ctx.journal.as_ref().map_or(0, Journal::unused_imports);
    if unused > 0 {
        ctx.progress.note(&format!(
            "warning: {unused} trial(s) of --resume-from are not trials of this run (other \
             options, or a different --seeds?) and are not in its runs.csv"
        ));
    }
    close_journal(&mut ctx)?;
    Ok(Outcome {
        experiment: exp.name(),
        rows: rows.len(),
        csv,
        figures,
        seconds: t0.elapsed().as_secs_f64(),
        replot: false,
    })
}

/// Delete the run's journal, unless it holds trials resumed from an earlier run that this run
/// did not write (fewer --seeds, or another --only or --shard): they are recorded nowhere
/// else, so it stays and the run says so.
fn close_journal(ctx: &mut Ctx) -> anyhow::Result<()> {
    let Some(j) = ctx.journal.take() else {
        return Ok(());
    };
    let kept = j.unused_resumed();
    if kept == 0 {
        return j.remove();
    }
    ctx.progress.note(&format!(
        "{}: kept, it holds {kept} finished trial(s) that this run did not write (fewer \
         --seeds, or another --only or --shard); --resume with options that include them \
         writes them too",
        ctx.out_path(JOURNAL_FILE).display()
    ));
    Ok(())
}

/// An error when `--only` was given and let no trial through (a misspelt name or value would
/// otherwise write an empty runs.csv): it names the filters and shows a key of the run's
/// trials, whose words are what the filters match.
fn check_only_matched(ctx: &Ctx) -> anyhow::Result<()> {
    if ctx.only.is_empty() {
        return Ok(());
    }
    let seen = ctx.only_seen.lock().unwrap_or_else(|e| e.into_inner());
    if seen.0 > 0 {
        return Ok(());
    }
    let filters: Vec<String> = ctx.only.iter().map(|f| format!("--only {f}")).collect();
    let example = match &seen.1 {
        Some(key) => format!("; the trials are named like `{key}`"),
        None => String::new(),
    };
    bail!(
        "{} matched no trial of this run{example}",
        filters.join(" ")
    )
}

/// What a failed run says, after keeping its finished rows: they go to runs.partial.csv so
/// that hours of work are not lost, while an earlier run's runs.csv (and its figures) in the
/// same folder stay as they were.
fn failed_run(name: &str, ctx: &Ctx, rows: &[Row]) -> String {
    let mut kept = String::new();
    if !rows.is_empty() {
        let partial = ctx.out_path(PARTIAL_FILE);
        kept = match write_rows(&partial, name, rows) {
            Ok(()) => format!("; the finished rows are in {}", partial.display()),
            Err(e) => format!("; the finished rows could not be kept: {e:#}"),
        };
    }
    let resume = if ctx.journal.is_some() {
        " (the finished trials are in runs.journal: --resume continues)"
    } else {
        ""
    };
    format!("experiment {name} failed{resume}{kept}")
}

/// Where a failed run keeps the rows that finished.
pub const PARTIAL_FILE: &str = "runs.partial.csv";

fn find_data_dir(given: Option<PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    if let Some(d) = given {
        if !d.is_dir() {
            bail!("{}: --data folder not found", d.display());
        }
        return Ok(Some(d));
    }
    let env = std::env::var_os("COMPCLUST_DATA").map(PathBuf::from);
    let candidates = env.into_iter().chain([
        PathBuf::from("../shared/data"),
        PathBuf::from("shared/data"),
    ]);
    Ok(candidates.into_iter().find(|d| d.is_dir()))
}

/// Write the tidy CSV: `experiment,method,<params in order of first appearance>,seed,metric,
/// value,time_s`. Missing parameters are left empty. Written atomically.
pub fn write_rows(path: &Path, experiment: &str, rows: &[Row]) -> anyhow::Result<()> {
    let mut cols: Vec<&str> = Vec::new();
    for r in rows {
        for (k, _) in &r.params {
            if !cols.contains(&k.as_str()) {
                cols.push(k);
            }
        }
    }
    let write = |w: &mut dyn Write| -> Result<(), compclust::data::DataError> {
        let mut wtr = csv::Writer::from_writer(w);
        let mut header = vec!["experiment", "method"];
        header.extend(&cols);
        header.extend(["seed", "metric", "value", "time_s"]);
        let io = |e: csv::Error| compclust::data::DataError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        };
        wtr.write_record(&header).map_err(io)?;
        for r in rows {
            let mut rec = vec![experiment.to_string(), r.method.clone()];
            rec.extend(cols.iter().map(|c| r.param(c).unwrap_or("").to_string()));
            rec.extend([
                r.seed.to_string(),
                r.metric.clone(),
                r.value.to_string(),
                format!("{:.4}", r.time_s),
            ]);
            wtr.write_record(&rec).map_err(io)?;
        }
        wtr.flush().map_err(|e| compclust::data::DataError::Io {
            path: path.to_path_buf(),
            source: e,
        })
    };
    compclust::data::write_atomically(path, write)
        .with_context(|| format!("{}: cannot write runs", path.display()))
}

/// Read a tidy CSV written by [`write_rows`] back into rows (for `--replot`). Parameters are
/// the columns between `method` and `seed`; empty cells are parameters the row did not have.
/// Errors name the file, the 1-based line and the field.
pub fn read_rows(path: &Path, experiment: &str) -> anyhow::Result<Vec<Row>> {
    let mut rdr = csv::Reader::from_path(path)
        .with_context(|| format!("{}: cannot open runs", path.display()))?;
    let header: Vec<String> = rdr
        .headers()
        .with_context(|| format!("{}: line 1: cannot read the header", path.display()))?
        .iter()
        .map(String::from)
        .collect();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("{}: line 1: no column {name:?}", path.display()))
    };
    let (c_exp, c_method, c_seed) = (at("experiment")?, at("method")?, at("seed")?);
    let (c_metric, c_value, c_time) = (at("metric")?, at("value")?, at("time_s")?);
    let params: Vec<usize> = (c_method + 1..c_seed).collect();
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let line = i + 2;
        let rec = rec.with_context(|| format!("{}: line {line}: bad CSV", path.display()))?;
        let field = |c: usize| rec.get(c).unwrap_or("");
        let num = |c: usize| -> anyhow::Result<f64> {
            field(c).trim().parse::<f64>().with_context(|| {
                format!(
                    "{}: line {line}, field {:?}: expected a number, got {:?}",
                    path.display(),
                    header[c],
                    field(c)
                )
            })
        };
        if field(c_exp) != experiment {
            bail!(
                "{}: line {line}, field \"experiment\": {:?} is not {experiment:?}",
                path.display(),
                field(c_exp)
            );
        }
        let seed = field(c_seed).trim().parse::<u64>().with_context(|| {
            format!(
                "{}: line {line}, field \"seed\": expected an integer, got {:?}",
                path.display(),
                field(c_seed)
            )
        })?;
        rows.push(Row {
            method: field(c_method).to_string(),
            params: params
                .iter()
                .filter(|&&c| !field(c).is_empty())
                .map(|&c| (header[c].clone(), field(c).to_string()))
                .collect(),
            seed,
            metric: field(c_metric).to_string(),
            value: num(c_value)?,
            time_s: num(c_time)?,
        });
    }
    Ok(rows)
}

/// The finished trials in a `--resume-from` file: a finished run's runs.csv, or the
/// runs.journal of a run that stopped (a journal starts with `{`, its JSON header, where a
/// runs.csv starts with its column names).
fn trials_of_file(
    path: &Path,
    experiment: &str,
    config: &str,
    key_of: fn(&Row) -> String,
) -> anyhow::Result<Vec<journal::Finished>> {
    if starts_like_journal(path)? {
        Journal::read_finished(path, experiment, config)
    } else {
        trials_of_csv(path, experiment, key_of)
    }
}

/// Whether the file's first byte is `{`.
fn starts_like_journal(path: &Path) -> anyhow::Result<bool> {
    use std::io::Read;
    let mut first = [0u8; 1];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut first))
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(read == 1 && first[0] == b'{')
}

/// The trials of an earlier run's runs.csv: its rows grouped by `key_of`, in the order the
/// trials first appear.
fn trials_of_csv(
    csv: &Path,
    experiment: &str,
    key_of: fn(&Row) -> String,
) -> anyhow::Result<Vec<journal::Finished>> {
    let mut trials: Vec<journal::Finished> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for row in read_rows(csv, experiment)? {
        let key = key_of(&row);
        let i = *at.entry(key.clone()).or_insert_with(|| {
            trials.push((key, Vec::new()));
            trials.len() - 1
        });
        trials[i].1.push(row);
    }
    Ok(trials)
}

/// Mean ± std curves for a line figure: rows with `metric`, x = numeric parameter `x_param`,
/// one series per distinct value of `series_of(row)` (e.g. the method, or method + n). Rows
/// whose x does not parse are skipped. Std is the sample standard deviation (0 for one seed).
pub fn curves(
    rows: &[Row],
    metric: &str,
    x_param: &str,
    series_of: impl Fn(&Row) -> String,
) -> Vec<Series> {
    let mut groups: BTreeMap<String, BTreeMap<u64, (f64, Vec<f64>)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.metric == metric) {
        let Some(x) = r.param(x_param).and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        let s = series_of(r);
        if !order.contains(&s) {
            order.push(s.clone());
        }
        groups
            .entry(s)
            .or_default()
            .entry(x.to_bits())
            .or_insert((x, Vec::new()))
            .1
            .push(r.value);
    }
    order
        .into_iter()
        .map(|name| {
            let points = groups[&name]
                .values()
                .map(|(x, v)| {
                    let (m, sd) = mean_std(v);
                    (*x, m, sd)
                })
                .collect();
            Series { name, points }
        })
        .collect()
}

/// Appends the rows of every run that succeeded, in order, and returns the first error (so the
/// runs that finished are kept in runs.partial.csv even when one failed).
pub fn collect_rows(
    results: Vec<anyhow::Result<Vec<Row>>>,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut first_err = None;
    for r in results {
        match r {
            Ok(v) => rows.extend(v),
            Err(e) if first_err.is_none() => first_err = Some(e),
            Err(_) => {}
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// Mean and sample standard deviation (0 for fewer than two values).
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n.max(1.0);
    if v.len() < 2 {
        return (m, 0.0);
    }
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, var.sqrt())
}

/// Draw `chart` as `<stem>.svg` and `<stem>.png` in the output folder; return both paths.
pub fn draw_both(ctx: &Ctx, stem: &str, chart: &LineChart) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for ext in ["svg", "png"] {
        let p = ctx.out_path(&format!("{stem}.{ext}"));
        plot::lines::draw(chart, &p)?;
        files.push(p);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_average_over_seeds_per_x_and_series() {
        let rows = vec![
            Row::new("A", &[("m", "10".into())], 0, "ari", 1.0, 0.1),
            Row::new("A", &[("m", "10".into())], 1, "ari", 0.0, 0.1),
            Row::new("A", &[("m", "20".into())], 0, "ari", 0.5, 0.1),
            Row::new("B", &[("m", "10".into())], 0, "ari", 0.2, 0.1),
            Row::new("B", &[("m", "10".into())], 0, "time", 9.0, 0.1),
        ];
        let s = curves(&rows, "ari", "m", |r| r.method.clone());
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "A");
        assert_eq!(s[0].points.len(), 2);
        let (x, m, sd) = s[0].points[0];
        assert_eq!((x, m), (10.0, 0.5));
        assert!((sd - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(s[1].points, vec![(10.0, 0.2, 0.0)]);
    }

    #[test]
    fn tidy_csv_has_union_of_parameter_columns() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("runs.csv");
        let rows = vec![
            Row::new("A", &[("n", "5".into())], 0, "ari", 1.0, 0.25),
            Row::new("B", &[("eps", "0.5".into())], 1, "ari", 0.5, 0.5),
        ];
        write_rows(&p, "x", &rows).unwrap();
        let s = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "experiment,method,n,eps,seed,metric,value,time_s");
        assert_eq!(lines[1], "x,A,5,,0,ari,1,0.2500");
        assert_eq!(lines[2], "x,B,,0.5,1,ari,0.5,0.5000");
    }

    /// Five trials that count their runs and fail at `fail_at`.
    struct Counting {
        fail_at: Option<usize>,
        ran: std::sync::atomic::AtomicUsize,
    }

    impl Experiment for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn about(&self) -> &'static str {
            "test"
        }
        fn trial_key_of(&self) -> Option<fn(&Row) -> String> {
            Some(|r| journal::trial_key(&[("i", r.param("i").unwrap_or("").into())], r.seed))
        }
        fn run(&self, ctx: &Ctx, rows: &mut Vec<Row>) -> anyhow::Result<()> {
            for i in 0..5 {
                let params = [("i", i.to_string())];
                rows.extend(ctx.trial(&journal::trial_key(&params, 0), || {
                    anyhow::ensure!(self.fail_at != Some(i), "trial {i} failed");
                    self.ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok(vec![Row::new("M", &params, 0, "v", i as f64, 0.5)])
                })?);
            }
            Ok(())
        }
        fn figures(&self, _: &Ctx, _: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
            Ok(Vec::new())
        }
    }

    fn counting_ctx(out: &Path, resume: bool) -> Ctx {
        let journal = Journal::open(&out.join(JOURNAL_FILE), "counting", "c", resume).unwrap();
        Ctx {
            quick: true,
            seeds: None,
            out: out.to_path_buf(),
            data: None,
            progress: Box::new(NoProgress),
            n: None,
            known_k: false,
            journal: Some(journal),
            sdp_tol: None,
            spur_refine: None,
            shard: None,
            only: Vec::new(),
            only_seen: Default::default(),
        }
    }

    /// Three shards run disjoint trials that together are all five, draw nothing, and their
    /// runs.csv files make, through the journal's import, the same rows as one whole run.
    #[test]
    fn shards_split_the_trials_and_merge_into_the_whole_run() {
        let dir = tempfile::tempdir().unwrap();
        let whole = Counting {
            fail_at: None,
            ran: 0.into(),
        };
        std::fs::create_dir_all(dir.path().join("whole")).unwrap();
        let all = run_experiment(&whole, counting_ctx(&dir.path().join("whole"), false)).unwrap();
        let mut ran = 0;
        let mut parts = Vec::new();
        for index in 0..3 {
            let out = dir.path().join(format!("shard{index}"));
            std::fs::create_dir_all(&out).unwrap();
            let mut ctx = counting_ctx(&out, false);
            ctx.shard = Some(Shard { index, count: 3 });
            let exp = Counting {
                fail_at: None,
                ran: 0.into(),
            };
            let o = run_experiment(&exp, ctx).unwrap();
            assert!(o.figures.is_empty());
            ran += exp.ran.load(std::sync::atomic::Ordering::Relaxed);
            parts.extend(read_rows(&o.csv, "counting").unwrap());
        }
        assert_eq!(ran, 5, "every trial ran in exactly one shard");
        let key = |r: &Row| r.param("i").unwrap().to_string();
        let mut got: Vec<String> = parts.iter().map(key).collect();
        got.sort();
        let want: Vec<String> = read_rows(&all.csv, "counting")
            .unwrap()
            .iter()
            .map(key)
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn shard_specs_parse_and_bad_ones_say_the_form() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        for bad in ["5/5", "1/0", "x/2", "3", "-1/2"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("INDEX/COUNT") && e.contains(bad), "{e}");
        }
        // Every key is in exactly one share.
        for key in ["a", "seed=3 n=1000", ""] {
            let hits = (0..7).filter(|&i| Shard { index: i, count: 7 }.has(key));
            assert_eq!(hits.count(), 1);
        }
    }

    #[test]
    fn trial_filters_match_whole_words_and_bad_ones_say_the_form() {
        let f: TrialFilter = "seed=1".parse().unwrap();
        assert_eq!(f.to_string(), "seed=1");
        let key = "n=1000 eps=0.55 seed=1";
        assert!(f.matches(key));
        assert!(!f.matches("n=1000 eps=0.55 seed=10"));
        assert!("eps=0.55".parse::<TrialFilter>().unwrap().matches(key));
        assert!(!"eps=0.5".parse::<TrialFilter>().unwrap().matches(key));
        assert!(!"n=100".parse::<TrialFilter>().unwrap().matches(key));
        for bad in [
            "seed", "=1", "seed=", "seed=1=2", "seed= 1", "a b=1", "eps=0.5,", "eps=,1",
        ] {
            let e = bad.parse::<TrialFilter>().unwrap_err();
            assert!(e.contains("NAME=VALUE") && e.contains(bad), "{e}");
        }
    }

    /// `NAME=A,B` accepts either value; repeated filters on one parameter are alternatives,
    /// filters on different parameters must all match.
    #[test]
    fn trial_filters_list_alternatives_and_combine_parameters() {
        let f: TrialFilter = "eps=0.5,1".parse().unwrap();
        assert_eq!(f.values, ["0.5", "1"]);
        assert_eq!(f.to_string(), "eps=0.5,1");
        assert!(f.matches("n=1000 eps=1 seed=2"));
        assert!(f.matches("n=1000 eps=0.5 seed=2"));
        assert!(!f.matches("n=1000 eps=0.55 seed=2"));
        let filters =
            |fs: &[&str]| -> Vec<TrialFilter> { fs.iter().map(|f| f.parse().unwrap()).collect() };
        let keys = [
            "eps=0.5 seed=1",
            "eps=1 seed=1",
            "eps=0.5 seed=2",
            "eps=0.7 seed=2",
        ];
        let passing = |fs: &[&str]| -> Vec<&str> {
            let fs = filters(fs);
            keys.iter()
                .copied()
                .filter(|k| passes_filters(&fs, k))
                .collect()
        };
        assert_eq!(passing(&[]), keys);
        assert_eq!(
            passing(&["eps=0.5", "eps=1"]),
            ["eps=0.5 seed=1", "eps=1 seed=1", "eps=0.5 seed=2"]
        );
        assert_eq!(passing(&["eps=0.5", "eps=1"]), passing(&["eps=0.5,1"]));
        assert_eq!(passing(&["eps=0.5,1", "seed=2"]), ["eps=0.5 seed=2"]);
        assert_eq!(passing(&["seed=2", "eps=0.7", "eps=0.5"]), keys[2..]);
        assert!(passing(&["seed=3", "eps=0.5"]).is_empty());
    }

    /// A run that stops at trial 3 keeps trials 0–2 in the journal; the resumed run computes
    /// only 3 and 4 and writes the same runs.csv as an uninterrupted run, then drops the journal.
    #[test]
    fn an_interrupted_run_resumes_where_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let failing = Counting {
            fail_at: Some(3),
            ran: 0.into(),
        };
        let e = format!(
            "{:#}",
            run_experiment(&failing, counting_ctx(out, false)).unwrap_err()
        );
        assert!(
            e.contains("--resume") && e.contains("trial 3 failed"),
            "{e}"
        );
        assert!(e.contains(PARTIAL_FILE), "{e}");
        assert!(!out.join("runs.csv").exists());
        assert_eq!(
            read_rows(&out.join(PARTIAL_FILE), "counting")
                .unwrap()
                .len(),
            3
        );
        assert!(out.join(JOURNAL_FILE).exists());
        let whole = Counting {
            fail_at: None,
            ran: 0.into(),
        };
        run_experiment(&whole, counting_ctx(out, true)).unwrap();
        assert_eq!(whole.ran.into_inner(), 2);
        let rows = read_rows(&out.join("runs.csv"), "counting").unwrap();
        let values: Vec<f64> = rows.iter().map(|r| r.value).collect();
        assert_eq!(values, [0.0, 1.0, 2.0, 3.0, 4.0]);
        assert!(!out.join(JOURNAL_FILE).exists());
        assert!(!out.join(PARTIAL_FILE).exists());
    }

    /// A resumed run that writes only some of the journal's trials (`--only i=3` here) keeps
    /// the journal, the only record of the others, and a resumed run over all trials then
    /// writes them all and drops it.
    #[test]
    fn a_journal_with_trials_outside_the_run_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let failing = Counting {
            fail_at: Some(4),
            ran: 0.into(),
        };
        run_experiment(&failing, counting_ctx(out, false)).unwrap_err();
        let mut ctx = counting_ctx(out, true);
        ctx.only = vec!["i=3".parse().unwrap()];
        let one = Counting {
            fail_at: None,
            ran: 0.into(),
        };
        run_experiment(&one, ctx).unwrap();
        assert_eq!(one.ran.into_inner(), 0, "trial 3 is in the journal");
        let rows = read_rows(&out.join("runs.csv"), "counting").unwrap();
        assert_eq!(rows.iter().map(|r| r.value).collect::<Vec<_>>(), [3.0]);
        assert!(
            out.join(JOURNAL_FILE).exists(),
            "trials 0-2 live only there"
        );
        let whole = Counting {
            fail_at: None,
            ran: 0.into(),
        };
        run_experiment(&whole, counting_ctx(out, true)).unwrap();
        assert_eq!(whole.ran.into_inner(), 1);
        let rows = read_rows(&out.join("runs.csv"), "counting").unwrap();
        assert_eq!(rows.len(), 5);
        assert!(!out.join(JOURNAL_FILE).exists());
    }

    /// `read_rows` gives back what `write_rows` wrote (parameters a row lacked stay absent).
    #[test]
    fn rows_round_trip_through_csv() {
        let rows = vec![
            Row::new(
                "AddS-3",
                &[("n", "100".into()), ("p", "2.5".into())],
                3,
                "ari",
                0.75,
                1.5,
            ),
            Row::new("MulK-3", &[("n", "100".into())], 4, "k_hat", 4.0, 0.25),
        ];
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("runs.csv");
        write_rows(&p, "flat-noise", &rows).unwrap();
        assert_eq!(read_rows(&p, "flat-noise").unwrap(), rows);
        let e = read_rows(&p, "car").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("experiment"), "{e}");
        let text = std::fs::read_to_string(&p).unwrap().replace("0.75", "x");
        std::fs::write(&p, text).unwrap();
        let e = format!("{:#}", read_rows(&p, "flat-noise").unwrap_err());
        assert!(e.contains("line 2") && e.contains("\"value\""), "{e}");
    }
}
