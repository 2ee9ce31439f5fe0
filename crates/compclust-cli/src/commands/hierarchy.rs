//! `compclust hierarchy`: hierarchical clustering from comparisons (Ghoshdastidar et al. 2019): 4-AL, 4K-AL,
//! comparison-based SL / CL, from a file of comparisons, in crowd rounds from a file of
//! collected answers, or against a simulated planted hierarchy. Every mode goes through the
//! library's one dispatch, [`HierarchyParams`].

use super::ExitCode;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use compclust::active::RunOutcome;
use compclust::crowd::Aggregation;
use compclust::data::{
    ComparisonKind, Comparisons, DataError, Dataset, ItemIndex, Quadruplet, ReadOptions,
    read_comparisons, read_items, read_labels,
};
use compclust::hierarchy::{
    ActiveKernelParams, Dendrogram, Hierarchy, HierarchyMethod, HierarchyParams, QuadrupletTable,
    ReferencePairs,
};
use compclust::metrics::aari::aari_levels;
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::Similarity;
use serde::Serialize;

use super::CmdResult;
use super::read_args::ReadArgs;
use crate::answers::{answers_json, ask_csv};
use crate::output::{Out, Outputs};
use crate::progress::{bar, spinner};
use crate::study::{Pinned, StudyFile, StudyParams};

/// Exit status when answers are missing (written to `--missing`), as in `compclust overlap`.
const EXIT_MISSING: u8 = 3;

const HELP: &str = "\
Input, one of:
  --input FILE     a comparisons file, every method, passively. CSV files with a header
                   are detected by it:
                     a,b,c,d          quadruplets: pair (a,b) is more similar than (c,d)
                     anchor,near,far  triplets, used as quadruplets (i,j,i,k)
                                      (Ghoshdastidar et al. 2019, App. B.3)
                     center,x,y       most-central answers; odd,x,y odd-one-out answers
                   A headerless file of 3 or 4 item indices is cblearn's list-order; other
                   headerless files need --kind, the cblearn / salmon / car / food formats
                   --format (docs/FORMATS.md). Example rows: `a,b,c,d` then `cat,dog,cat,ant`.
  --answers FILE   collected answers of a crowd study run in rounds (sl, cl, 4kal-act): the
                   method asks its questions; those the file does not answer are written to
                   --missing (header `a,b,c,d`: \"is pair (a,b) more similar than (c,d)?\") and
                   the command exits with status 3. Append the answered rows to FILE (a row
                   a,b,c,d says (a,b) was judged more similar: write the question as asked or
                   with its pairs swapped) and run the same command again. Several answers to
                   one question are a majority vote; a tie asks it again. Needs --items.
  --simulate       a simulated planted hierarchy (Ghoshdastidar et al. 2019, §2.2) answers.

Output: DENDROGRAM.json = {\"items\": [labels...], \"steps\": [[a, b, height, size], ...]}
(scipy linkage convention: ids < n are items, id n+s is the cluster made at step s).
While answers are missing, --output receives the best current estimate (4-AL on the
answers collected so far) and --report says `\"complete\": false`.

Exit status: 0 done; 2 error (no output written); 3 answers missing (--missing written).

Examples:
  compclust hierarchy --input quadruplets.csv --method 4al --output tree.json --newick tree.nwk
  compclust hierarchy --input q.csv --method 4al --init-clusters init.csv --output t.json
    --cut 8 --labels clusters.csv --plot tree.svg
  compclust hierarchy --method cl --answers answers.csv --items items.txt
    --missing ask.csv --output t.json --report round.json
  compclust hierarchy --simulate --method cl --levels 3 --n0 30 --delta 0.1 --output t.json";

/// Arguments of `compclust hierarchy` (the help text is [`HELP`]).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// Comparisons file (one of --input, --answers, --simulate).
    #[arg(long, short, required_unless_present_any = ["simulate", "answers"], conflicts_with_all = ["simulate", "answers"])]
    pub input: Option<PathBuf>,
    /// Collected answers of a study run in rounds (sl, cl, 4kal-act; needs --items).
    #[arg(long, requires = "items", conflicts_with = "simulate")]
    pub answers: Option<PathBuf>,
    /// With --answers: where to write the questions still to ask (exit status 3).
    #[arg(long, requires = "answers")]
    pub missing: Option<PathBuf>,
    /// With --answers: the study file (STUDY.toml). The first round writes the method, every
    /// parameter, the seed and the digest of --items; later rounds stop (exit status 2) when a
    /// flag or the items file differs from it.
    #[arg(long, requires = "answers")]
    pub study: Option<PathBuf>,
    /// With --answers: how several answers to one question are combined: `majority` (a tie
    /// asks the question again) or `dawid-skene` (one-coin worker reliabilities by EM; needs
    /// a `worker` column to tell workers apart).
    #[arg(long, default_value = "majority", requires = "answers")]
    pub aggregate: Aggregation,
    /// With --answers: write every question to ask this many times to --missing, one row per
    /// person to ask.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000), requires = "answers")]
    pub redundancy: u32,
    /// How to read --input or --answers.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Method: 4al (Ghoshdastidar et al. 2019, eq. 4-5), 4kal (eq. 3 passive from --input;
    /// eq. 2 active, also named 4kal-act, with --answers or --simulate), sl, cl (§3.1; from
    /// --input every needed comparison must be present).
    #[arg(long, ignore_case = true)]
    pub method: HierarchyMethod,
    /// Initial clusters for 4-AL (`item,cluster` CSV, e.g. 4-AL-I3 / 4-AL-I5).
    #[arg(long)]
    pub init_clusters: Option<PathBuf>,
    /// Seed (the pivots of SL / CL, active 4K-AL references and landmarks; the simulated
    /// model). Rounds of one study must keep it.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the dendrogram here (JSON).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Also write the tree in Newick format.
    #[arg(long)]
    pub newick: Option<PathBuf>,
    /// Write a JSON report (method, items, queries, rounds, complete, missing).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Cut the tree into this many clusters (requires --labels).
    #[arg(long, requires = "labels")]
    pub cut: Option<usize>,
    /// Where to write the clusters of --cut (`item,cluster`).
    #[arg(long, requires = "cut")]
    pub labels: Option<PathBuf>,
    /// Draw the dendrogram (.svg or .png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Display names for the summary and the plot: a CSV `item,name` (header optional) or a
    /// JSON object from item to name or to `{"name": …}` (e.g. Food-100's `ingredients.json`).
    #[arg(long, value_name = "FILE")]
    pub items_meta: Option<PathBuf>,
    /// Run against a simulated planted hierarchy (Ghoshdastidar et al. 2019, §2.2) instead of a file: sl / cl ask
    /// their quadruplet queries, 4kal runs active 4K-AL (eq. 2); reports queries and AARI.
    #[arg(long)]
    pub simulate: bool,
    /// Planted model: levels L.
    #[arg(long, default_value_t = 3)]
    pub levels: u32,
    /// Planted model: pure-cluster size N0.
    #[arg(long, default_value_t = 30)]
    pub n0: usize,
    /// Planted model: within-cluster mean similarity μ.
    #[arg(long, default_value_t = 0.8)]
    pub mu: f64,
    /// Planted model: level separation δ.
    #[arg(long, default_value_t = 0.1)]
    pub delta: f64,
    /// Planted model: noise σ.
    #[arg(long, default_value_t = 0.1)]
    pub sigma: f64,
    /// Active 4K-AL: number of reference pairs |R| (eq. 2).
    #[arg(long, default_value_t = 10, conflicts_with = "budget")]
    pub references: usize,
    /// Active 4K-AL: as many reference pairs as this many questions allow (the authors'
    /// ComparisonHC sets |R| so; replaces --references).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Active 4K-AL: landmark probability q (default 1: every item is compared with each
    /// reference pair, as the authors' ComparisonHC runs it; Ghoshdastidar et al. 2019, §4.1 uses ln N / N).
    #[arg(long)]
    pub landmark_prob: Option<f64>,
}

/// The library's parameters from the command line (4-AL's initial clusters are added by the
/// passive mode, which has the items).
fn params_of(args: &Args) -> HierarchyParams {
    let references = match args.budget {
        Some(b) => ReferencePairs::Budget(b),
        None => ReferencePairs::Count(args.references),
    };
    HierarchyParams::new(args.method)
        .with_seed(args.seed)
        .with_active(ActiveKernelParams {
            landmark_prob: args.landmark_prob.unwrap_or(1.0),
            references,
            seed: args.seed,
        })
}

#[derive(Serialize)]
struct DendrogramJson<'a> {
    items: &'a [String],
    steps: Vec<(usize, usize, f64, usize)>,
}

/// What a run reports (`--report`), besides what it prints.
#[derive(Serialize)]
struct Report {
    method: &'static str,
    mode: &'static str,
    items: usize,
    /// Comparisons used (passive: distinct informative ones; active: questions answered).
    comparisons: usize,
    /// Rounds of questions asked (active methods).
    rounds: usize,
    /// False while answers are missing: the dendrogram is then a partial estimate.
    complete: bool,
    /// Questions written to --missing.
    missing: usize,
    /// How the dendrogram was obtained when `complete` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<String>,
    /// AARI against the planted hierarchy (--simulate).
    #[serde(skip_serializing_if = "Option::is_none")]
    aari: Option<f64>,
    /// --answers: answers, distinct questions, disagreements and per-worker agreement.
    #[serde(skip_serializing_if = "Option::is_none")]
    answers: Option<serde_json::Value>,
    seconds: f64,
}

impl Report {
    /// The report of a finished tree.
    fn finished(args: &Args, mode: &'static str, n: usize, fit: &Hierarchy, seconds: f64) -> Self {
        Report {
            method: args.method.paper_name(),
            mode,
            items: n,
            comparisons: fit.info.comparisons,
            rounds: fit.info.rounds,
            complete: true,
            missing: 0,
            estimate: None,
            aari: None,
            answers: None,
            seconds,
        }
    }
}

/// Run `compclust hierarchy`.
pub fn run(args: Args) -> CmdResult {
    let mut outs = Outputs::new();
    if let Some(p) = &args.input {
        args.read.register(&mut outs, "--input", p)?;
    }
    if let Some(p) = &args.answers {
        args.read.register(&mut outs, "--answers", p)?;
    }
    outs.input_opt("--init-clusters", args.init_clusters.as_deref())?;
    let files = OutputFiles::register(&args, &mut outs)?;
    if args.init_clusters.is_some() && args.method != HierarchyMethod::FourAl {
        bail!("--init-clusters is only used by --method 4al");
    }
    if args.simulate {
        return simulate(&args, outs, files);
    }
    if args.answers.is_some() {
        return rounds(&args, outs, files);
    }
    let input = args.input.as_ref().context("--input is required")?;
    let data = read_input(&args, input)?;
    let n = data.n_items();
    check_cut(args.cut, n)?;
    let started = Instant::now();
    let fit = fit(&args, &data)?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{}: {n} items, {} comparisons, {}, {secs:.3} s",
        args.method,
        data.comparisons.len(),
        note(&fit)
    );
    let report = Report::finished(&args, "passive", n, &fit, secs);
    files.write(&args, outs, &data.items, &fit.dendrogram, &report)?;
    Ok(ExitCode::SUCCESS)
}

/// Read a comparisons file of triplets or quadruplets.
fn read_input(args: &Args, input: &Path) -> anyhow::Result<Dataset> {
    let opts = args.read.options()?;
    let sp = spinner(format!("reading {}", input.display()));
    let data = read_comparisons(input, &opts);
    sp.finish_and_clear();
    let data = data?;
    if matches!(data.comparisons.kind(), ComparisonKind::SameCluster) {
        bail!(
            "{}: same-cluster answers cannot build a comparison-based hierarchy; \
             give triplets or quadruplets",
            input.display()
        );
    }
    Ok(data)
}

/// What the run used, in words.
fn note(fit: &Hierarchy) -> String {
    let i = &fit.info;
    match (i.method, i.active) {
        (HierarchyMethod::FourAl, _) => format!(
            "{} distinct informative comparisons, {} initial merges",
            i.comparisons, i.initial_merges
        ),
        (HierarchyMethod::FourKAl, false) => {
            format!("{} distinct informative comparisons", i.comparisons)
        }
        (_, false) => format!(
            "{} comparisons looked up in {} rounds",
            i.comparisons, i.rounds
        ),
        (_, true) => format!("{} questions asked in {} rounds", i.comparisons, i.rounds),
    }
}

/// The passive fit of `--input` through the library's dispatch.
fn fit(args: &Args, data: &Dataset) -> anyhow::Result<Hierarchy> {
    let n = data.n_items();
    let mut params = params_of(args);
    if let Some(p) = &args.init_clusters {
        let (_, labels) = read_labels(p, Some(&data.items))?;
        params = params.with_initial_clusters(labels);
    }
    let pb = bar(
        n.saturating_sub(1) as u64,
        format!("{} merges", args.method),
    );
    let mut cb = |done: usize, _total: usize| pb.set_position(done as u64);
    let fit = params.fit(n, &data.comparisons, Some(&mut cb));
    pb.finish_and_clear();
    match args.method {
        HierarchyMethod::Single | HierarchyMethod::Complete => fit.with_context(|| {
            format!(
                "{}: {} needs the order of all item pairs; collect the missing comparisons \
                 (--answers / --missing runs the study in rounds) or use --method 4al / 4kal",
                data_path(args).display(),
                args.method.paper_name()
            )
        }),
        _ => fit.with_context(|| data_path(args).display().to_string()),
    }
}

fn data_path(args: &Args) -> &Path {
    args.input
        .as_deref()
        .or(args.answers.as_deref())
        .unwrap_or(Path::new("?"))
}

/// One crowd round from `--answers`: run the active method against the collected answers;
/// finished, write the tree (exit 0); otherwise write the questions of the next round to
/// `--missing` and the best current estimate to `--output` (exit 3).
fn rounds(args: &Args, mut outs: Outputs, files: OutputFiles) -> CmdResult {
    if args.method == HierarchyMethod::FourAl {
        bail!(
            "--answers runs an active method (sl, cl, 4kal-act) in rounds; 4-AL uses a passive \
             set of comparisons: give it with --input (e.g. drawn by `compclust design quadruplets`)"
        );
    }
    let path = args.answers.as_deref().context("--answers")?;
    let items = read_items(
        args.read
            .items
            .as_deref()
            .context("--answers needs --items")?,
    )?;
    let n = items.len();
    check_cut(args.cut, n)?;
    // Said once the round's outputs are in place: a round that fails writes no study file.
    let mut pinned_note = None;
    if let (Some(file), Some(shown)) = (&files.study, &args.study) {
        let items_path = args
            .read
            .items
            .as_deref()
            .expect("--answers requires --items");
        if study_params(args).pin(file, items_path, n, &mut outs)? == Pinned::Created {
            pinned_note = Some(format!(
                "study pinned to {} (written with this round)",
                shown.display()
            ));
        }
    }
    let (answers, answers_report) = read_answers(args, path, &items)?;
    let started = Instant::now();
    let mut table = QuadrupletTable::new(n, &answers)?;
    let outcome = params_of(args).run(n, &mut table)?;
    let secs = started.elapsed().as_secs_f64();
    let (tree, report) = match outcome {
        RunOutcome::Finished { output, .. } => {
            println!(
                "{}: {n} items, {} answers read, {}, {secs:.3} s",
                args.method,
                answers.len(),
                note(&output)
            );
            let report = Report {
                answers: answers_report.clone(),
                ..Report::finished(args, "answers", n, &output, secs)
            };
            if let Some(o) = files.missing {
                // Nothing is left to ask: the ASK file of an earlier round is replaced by its
                // header alone, so it no longer lists questions already answered.
                let none = std::iter::empty::<[u32; 4]>();
                outs.write_bytes(o, ask_csv(&items, ["a", "b", "c", "d"], none, 1))?;
            }
            (output.dendrogram, report)
        }
        RunOutcome::Missing {
            missing,
            queries,
            rounds,
        } => {
            let out = files.missing.context(format!(
                "{} answers are missing; give --missing FILE to write them",
                missing.len()
            ))?;
            // "is pair (a,b) more similar than pair (c,d)?"
            let questions = missing.iter().map(|q| [q.a, q.b, q.c, q.d]);
            let ask = ask_csv(&items, ["a", "b", "c", "d"], questions, args.redundancy);
            outs.write_bytes(out, ask)?;
            let (tree, estimate) = partial_estimate(n, &answers)?;
            eprintln!(
                "{} questions to ask (written to {}); {queries} answers used so far in \
                 {rounds} rounds; --output holds {estimate}; exit status {EXIT_MISSING}",
                missing.len(),
                outs.target(out).display(),
            );
            let report = Report {
                method: args.method.paper_name(),
                mode: "answers",
                items: n,
                comparisons: queries,
                rounds,
                complete: false,
                missing: missing.len(),
                estimate: Some(estimate),
                aari: None,
                answers: answers_report.clone(),
                seconds: secs,
            };
            (tree, report)
        }
    };
    let complete = report.complete;
    files.write(args, outs, &items, &tree, &report)?;
    if let Some(note) = pinned_note {
        eprintln!("{note}");
    }
    Ok(if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_MISSING)
    })
}

/// The collected answers, aggregated into one per question by `--aggregate` (a header-only
/// or empty file is the first round: no answers yet), and the report of the aggregation.
fn read_answers(
    args: &Args,
    path: &Path,
    items: &ItemIndex,
) -> anyhow::Result<(Comparisons, Option<serde_json::Value>)> {
    let opts = ReadOptions {
        kind: args.read.kind.or(Some(ComparisonKind::Quadruplets)),
        format: args.read.format,
        items: Some(items.clone()),
    };
    let data = match read_comparisons(path, &opts) {
        Err(DataError::Empty { .. }) => return Ok((Comparisons::Quadruplets(Vec::new()), None)),
        read => read?,
    };
    if matches!(data.comparisons.kind(), ComparisonKind::SameCluster) {
        bail!(
            "{}: same-cluster answers cannot drive a comparison-based hierarchy; \
             answers are rows a,b,c,d (pair (a,b) judged more similar than (c,d))",
            path.display()
        );
    }
    let (agg, workers) =
        crate::answers::aggregate_file(path, &data.comparisons, data.workers, args.aggregate);
    let r = &agg.report;
    eprintln!(
        "answers: {} to {} questions, {} with disagreeing answers, {} tied (asked again when \
         needed)",
        r.answers, r.questions, r.disagreements, r.undecided
    );
    let report = answers_json(r, &workers);
    Ok((agg.comparisons, Some(report)))
}

/// The parameters of a hierarchy study: every flag that decides which questions are asked.
fn study_params(args: &Args) -> StudyParams {
    StudyParams::new("hierarchy")
        .param("method", args.method.name())
        .param("seed", args.seed)
        .param("references", args.references)
        .opt("budget", args.budget)
        .opt("landmark-prob", args.landmark_prob)
        .param("aggregate", args.aggregate.name())
}

/// The best tree from the answers collected so far: passive 4-AL (Ghoshdastidar et al. 2019,
/// eq. 4-5) over them; with no answer yet, every item joins at height 0.
fn partial_estimate(n: usize, answers: &Comparisons) -> anyhow::Result<(Dendrogram, String)> {
    let fit = HierarchyParams::new(HierarchyMethod::FourAl).fit(n, answers, None)?;
    Ok((
        fit.dendrogram,
        format!(
            "a partial estimate: 4-AL on the {} answers so far",
            answers.len()
        ),
    ))
}

fn simulate(args: &Args, outs: Outputs, files: OutputFiles) -> CmdResult {
    let model = PlantedHierarchy::new(
        args.levels,
        args.n0,
        args.mu,
        args.delta,
        args.sigma,
        args.seed,
    )?;
    let n = model.n_items();
    check_cut(args.cut, n)?;
    if args.method == HierarchyMethod::FourAl {
        bail!(
            "4-AL uses passive comparisons: write them with `compclust simulate hierarchy` \
             and pass the file with --input"
        );
    }
    let items = ItemIndex::numbered(n);
    let mut oracle = |q: &Quadruplet| {
        model.similarity(q.a as usize, q.b as usize) > model.similarity(q.c as usize, q.d as usize)
    };
    let started = Instant::now();
    let sp = spinner(format!("{} asking the oracle", args.method));
    let outcome = params_of(args).run(n, &mut oracle);
    sp.finish_and_clear();
    let RunOutcome::Finished { output: fit, .. } = outcome? else {
        unreachable!("the simulated oracle answers every question")
    };
    let secs = started.elapsed().as_secs_f64();
    let aari = aari_levels(&model.level_partitions(), &fit.dendrogram)?;
    println!(
        "{} on a planted hierarchy (L={}, N0={}, N={n}, mu={}, delta={}, sigma={}): \
         {} queries in {} rounds, AARI {aari:.4}, {secs:.3} s",
        args.method,
        args.levels,
        args.n0,
        args.mu,
        args.delta,
        args.sigma,
        fit.info.comparisons,
        fit.info.rounds
    );
    let report = Report {
        aari: Some(aari),
        ..Report::finished(args, "simulate", n, &fit, secs)
    };
    files.write(args, outs, &items, &fit.dendrogram, &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `--cut k` needs 1 ≤ k ≤ n: checked before the tree is built.
fn check_cut(cut: Option<usize>, n: usize) -> anyhow::Result<()> {
    match cut {
        Some(k) if k > n => {
            bail!("--cut {k}: the tree has {n} items: cannot cut {n} items into {k} clusters")
        }
        _ => Ok(()),
    }
}

/// The outputs of a run, registered (and checked) before any work.
struct OutputFiles {
    study: Option<StudyFile>,
    dendrogram: Out,
    newick: Option<Out>,
    report: Option<Out>,
    missing: Option<Out>,
    labels: Option<Out>,
    plot: Option<Out>,
}

impl OutputFiles {
    fn register(args: &Args, outs: &mut Outputs) -> anyhow::Result<Self> {
        if let Some(p) = &args.plot {
            compclust_experiments::plot::format_of(p).context("--plot")?;
        }
        outs.input_opt("--items-meta", args.items_meta.as_deref())?;
        if args.cut == Some(0) {
            bail!("--cut 0: cut into at least 1 cluster");
        }
        let study = args
            .study
            .as_deref()
            .map(|p| StudyFile::register(outs, p))
            .transpose()?;
        Ok(Self {
            study,
            dendrogram: outs.file("--output", &args.output)?,
            newick: outs.file_opt("--newick", args.newick.as_deref())?,
            report: outs.file_opt("--report", args.report.as_deref())?,
            missing: outs.file_opt("--missing", args.missing.as_deref())?,
            labels: outs.file_opt("--labels", args.labels.as_deref())?,
            plot: outs.file_opt("--plot", args.plot.as_deref())?,
        })
    }

    /// Write every output, then move them all into place.
    fn write(
        self,
        args: &Args,
        mut outs: Outputs,
        items: &ItemIndex,
        d: &Dendrogram,
        report: &Report,
    ) -> anyhow::Result<()> {
        let names = crate::summary::display_names(items, args.items_meta.as_deref())?;
        let cut = match args.cut {
            Some(k) => Some(
                d.cut(k)
                    .with_context(|| format!("--cut {k}: the tree has {} items", items.len()))?,
            ),
            None => None,
        };
        let json = DendrogramJson {
            items: items.labels(),
            steps: d
                .steps()
                .iter()
                .map(|m| (m.a, m.b, m.height, m.size))
                .collect(),
        };
        outs.write_json_compact(self.dendrogram, &json)?;
        if let Some(o) = self.newick {
            let mut t = d.to_newick(items.labels());
            t.push('\n');
            outs.write_bytes(o, t)?;
        }
        if let (Some(o), Some(labels)) = (self.labels, &cut) {
            outs.write_labels(o, items, labels)?;
        }
        if let Some(o) = self.plot {
            let title = args.method.to_string();
            outs.write_path(o, |p| {
                compclust_experiments::plot::dendrogram::draw(p, d, &names, &title)
            })?;
        }
        if let Some(o) = self.report {
            outs.write_json(o, report)?;
        }
        outs.commit()?;
        if let (Some(k), Some(labels)) = (args.cut, &cut) {
            println!("the tree cut into {k} clusters:");
            print!("{}", crate::summary::clusters(&names, labels));
        }
        Ok(())
    }
}
