//! `compclust hierarchy`: hierarchical clustering from comparisons (Ghoshdastidar et al. 2019): 4-AL, 4K-AL,
//! comparison-based SL / CL, from a file of answers or against a simulated planted hierarchy.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use compclust::data::{
    ComparisonKind, Dataset, InputFormat, ItemIndex, ReadOptions, read_comparisons, read_items,
    read_labels,
};
use compclust::hierarchy::{
    ActiveKernelParams, Dendrogram, FourAlParams, HierarchyMethod, Linkage, ReferencePairs,
    four_k_al, linkage_active, linkage_passive,
};
use compclust::metrics::aari::aari_levels;
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::oracle::Similarity;
use serde::Serialize;

use super::CmdResult;
use crate::output::{Out, Outputs};
use crate::progress::{bar, spinner};

/// Arguments of `compclust hierarchy`.
///
/// Input: a comparisons file (see `compclust convert --help` and docs/FORMATS.md), e.g. a CSV
/// with header `a,b,c,d` (pair (a,b) more similar than (c,d)) or `anchor,near,far` (triplets
/// are used as quadruplets (i,j,i,k), Ghoshdastidar et al. 2019, App. B.3).
///
/// Output: DENDROGRAM.json = {"items": [labels...], "steps": [[a, b, height, size], ...]}
/// (scipy linkage convention: ids < n are items, id n+s is the cluster made at step s).
///
/// Examples:
///   compclust hierarchy --input quadruplets.csv --method 4al --output tree.json --newick tree.nwk
///   compclust hierarchy --input q.csv --method 4al --init-clusters init.csv --output t.json
///     --cut 8 --labels clusters.csv --plot tree.svg
///   compclust hierarchy --simulate --method cl --levels 3 --n0 30 --delta 0.1 --output t.json
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Comparisons file (required unless --simulate).
    #[arg(long, required_unless_present = "simulate")]
    pub input: Option<PathBuf>,
    /// Kind of a headerless CSV file: triplets, quadruplets, most-central, odd-one-out.
    #[arg(long)]
    pub kind: Option<ComparisonKind>,
    /// Force an input format (csv, list-order, list-boolean, list-count, salmon, car-survey,
    /// car-ordinal, food-json) instead of detecting it.
    #[arg(long)]
    pub format: Option<InputFormat>,
    /// Items file (one label per line): fixes the item set and order.
    #[arg(long)]
    pub items: Option<PathBuf>,
    /// Method: 4al (Ghoshdastidar et al. 2019, eq. 4-5), 4kal (eq. 3 passive; eq. 2 active with --simulate),
    /// sl, cl (§3.1; from a file every needed comparison must be present).
    #[arg(long, ignore_case = true)]
    pub method: HierarchyMethod,
    /// Initial clusters for 4-AL (`item,cluster` CSV, e.g. 4-AL-I3 / 4-AL-I5).
    #[arg(long)]
    pub init_clusters: Option<PathBuf>,
    /// Seed (active 4K-AL references and landmarks; the simulated model).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the dendrogram here (JSON).
    #[arg(long)]
    pub output: PathBuf,
    /// Also write the tree in Newick format.
    #[arg(long)]
    pub newick: Option<PathBuf>,
    /// Cut the tree into this many clusters (requires --labels).
    #[arg(long, requires = "labels")]
    pub cut: Option<usize>,
    /// Where to write the clusters of --cut (`item,cluster`).
    #[arg(long, requires = "cut")]
    pub labels: Option<PathBuf>,
    /// Draw the dendrogram (.svg or .png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
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
    #[arg(long, default_value_t = 10)]
    pub references: usize,
    /// Active 4K-AL: landmark probability q (default 1: every item is compared with each
    /// reference pair, as the authors' ComparisonHC runs it; Ghoshdastidar et al. 2019, §4.1 uses ln N / N).
    #[arg(long)]
    pub landmark_prob: Option<f64>,
}

#[derive(Serialize)]
struct DendrogramJson<'a> {
    items: &'a [String],
    steps: Vec<(usize, usize, f64, usize)>,
}

/// Run `compclust hierarchy`.
pub fn run(args: Args) -> CmdResult {
    let mut outs = Outputs::new();
    if let Some(p) = &args.input {
        outs.comparisons_input("--input", p, args.format)?;
    }
    outs.input_opt("--items", args.items.as_deref())?;
    outs.input_opt("--init-clusters", args.init_clusters.as_deref())?;
    let files = OutputFiles::register(&args, &mut outs)?;
    if args.simulate {
        return simulate(&args, outs, files);
    }
    let input = args.input.as_ref().context("--input is required")?;
    let items = match &args.items {
        Some(p) => Some(read_items(p)?),
        None => None,
    };
    let sp = spinner(format!("reading {}", input.display()));
    let data = read_comparisons(
        input,
        &ReadOptions {
            kind: args.kind,
            format: args.format,
            items,
        },
    )?;
    sp.finish_and_clear();
    if matches!(data.comparisons.kind(), ComparisonKind::SameCluster) {
        bail!(
            "{}: same-cluster answers cannot build a comparison-based hierarchy; \
             give triplets or quadruplets",
            input.display()
        );
    }
    let n = data.n_items();
    check_cut(args.cut, n)?;
    let started = Instant::now();
    let (d, note) = fit(&args, &data)?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{}: {n} items, {} comparisons, {note}, {secs:.3} s",
        args.method,
        data.comparisons.len()
    );
    files.write(&args, outs, &data.items, &d)
}

fn fit(args: &Args, data: &Dataset) -> anyhow::Result<(Dendrogram, String)> {
    let n = data.n_items();
    if args.init_clusters.is_some() && args.method != HierarchyMethod::FourAl {
        bail!("--init-clusters is only used by --method 4al");
    }
    Ok(match args.method {
        HierarchyMethod::FourAl => {
            let mut params = FourAlParams::new();
            if let Some(p) = &args.init_clusters {
                let (_, labels) = read_labels(p, Some(&data.items))?;
                params = params.with_initial_clusters(labels);
            }
            let pb = bar(n.saturating_sub(1) as u64, "4-AL merges");
            let mut cb = |done: usize, _total: usize| pb.set_position(done as u64);
            let fit = params.fit(n, &data.comparisons, Some(&mut cb))?;
            pb.finish_and_clear();
            let note = format!(
                "{} distinct informative comparisons, {} initial merges",
                fit.info.comparisons, fit.info.initial_merges
            );
            (fit.dendrogram, note)
        }
        HierarchyMethod::FourKAl => {
            let sp = spinner("4K-AL kernel (Ghoshdastidar et al. 2019, eq. 3)");
            let fit = four_k_al(n, &data.comparisons)?;
            sp.finish_and_clear();
            (
                fit.dendrogram,
                format!("{} distinct informative comparisons", fit.comparisons),
            )
        }
        HierarchyMethod::Single | HierarchyMethod::Complete => {
            let method = linkage_of(args.method);
            let sp = spinner(format!(
                "{} from the given comparisons",
                method.paper_name()
            ));
            let r = linkage_passive(n, method, &data.comparisons);
            sp.finish_and_clear();
            let fit = r.with_context(|| {
                format!(
                    "{}: {} needs the order of all item pairs; collect the missing \
                     comparisons or use --method 4al / 4kal",
                    args.input.as_deref().unwrap_or(Path::new("?")).display(),
                    method.paper_name()
                )
            })?;
            (
                fit.dendrogram,
                format!(
                    "{} comparisons looked up in {} rounds",
                    fit.queries, fit.rounds
                ),
            )
        }
    })
}

fn linkage_of(m: HierarchyMethod) -> Linkage {
    if m == HierarchyMethod::Single {
        Linkage::Single
    } else {
        Linkage::Complete
    }
}

fn simulate(args: &Args, outs: Outputs, files: OutputFiles) -> CmdResult {
    if args.input.is_some() {
        bail!("--simulate and --input cannot be used together");
    }
    if args.init_clusters.is_some() {
        bail!("--init-clusters cannot be used with --simulate");
    }
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
    let items = ItemIndex::numbered(n);
    let mut oracle = |q: &compclust::data::Quadruplet| {
        model.similarity(q.a as usize, q.b as usize) > model.similarity(q.c as usize, q.d as usize)
    };
    let started = Instant::now();
    let (d, queries, rounds) = match args.method {
        HierarchyMethod::Single | HierarchyMethod::Complete => {
            let sp = spinner(format!("{} asking the oracle", args.method));
            let fit = linkage_active(n, linkage_of(args.method), args.seed, &mut oracle)?;
            sp.finish_and_clear();
            (fit.dendrogram, fit.queries, fit.rounds)
        }
        HierarchyMethod::FourKAl => {
            let p = ActiveKernelParams {
                landmark_prob: args.landmark_prob.unwrap_or(1.0),
                references: ReferencePairs::Count(args.references),
                seed: args.seed,
            };
            let sp = spinner("4K-AL-act asking the oracle");
            let fit = p.fit(n, &mut oracle)?;
            sp.finish_and_clear();
            (fit.dendrogram, fit.comparisons, 1)
        }
        HierarchyMethod::FourAl => bail!(
            "4-AL uses passive comparisons: write them with `compclust simulate hierarchy` \
             and pass the file with --input"
        ),
    };
    let secs = started.elapsed().as_secs_f64();
    let aari = aari_levels(&model.level_partitions(), &d)?;
    println!(
        "{} on a planted hierarchy (L={}, N0={}, N={n}, mu={}, delta={}, sigma={}): \
         {queries} queries in {rounds} rounds, AARI {aari:.4}, {secs:.3} s",
        args.method, args.levels, args.n0, args.mu, args.delta, args.sigma
    );
    files.write(args, outs, &items, &d)
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
    dendrogram: Out,
    newick: Option<Out>,
    labels: Option<Out>,
    plot: Option<Out>,
}

impl OutputFiles {
    fn register(args: &Args, outs: &mut Outputs) -> anyhow::Result<Self> {
        if let Some(p) = &args.plot {
            compclust_experiments::plot::format_of(p).context("--plot")?;
        }
        if args.cut == Some(0) {
            bail!("--cut 0: cut into at least 1 cluster");
        }
        Ok(Self {
            dendrogram: outs.file("--output", &args.output)?,
            newick: outs.file_opt("--newick", args.newick.as_deref())?,
            labels: outs.file_opt("--labels", args.labels.as_deref())?,
            plot: outs.file_opt("--plot", args.plot.as_deref())?,
        })
    }

    /// Write every output, then move them all into place.
    fn write(self, args: &Args, mut outs: Outputs, items: &ItemIndex, d: &Dendrogram) -> CmdResult {
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
                compclust_experiments::plot::dendrogram::draw(p, d, items.labels(), &title)
            })?;
        }
        outs.commit()?;
        Ok(std::process::ExitCode::SUCCESS)
    }
}
