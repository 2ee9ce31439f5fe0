//! `compclust simulate`: planted models (Perrot et al. 2020, §2 / App. E.3, Ghoshdastidar et al. 2019, §2.2) answered by a simulated
//! crowd (Perrot et al. 2020, eq. 2), written to a folder with the truth.

use std::path::PathBuf;
use std::str::FromStr;

use anyhow::bail;
use compclust::data::{Comparisons, Dataset, ItemIndex, OutputFormat};
use compclust::math::rng::mix64;
use compclust::models::flat::{Family, PlantedFlat};
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::{Budget, Similarity, n_distinct, sample_comparisons};
use serde::Serialize;

use super::CmdResult;
use crate::output::{OutDir, Outputs};
use crate::progress::spinner;

/// Subcommands of `compclust simulate`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Flat planted model (Perrot et al. 2020, §2, App. E.3) answered by a noisy crowd (Perrot et al. 2020, eq. 2).
    ///
    /// Writes into --out: `triplets.csv` (header `anchor,near,far`: anchor is closer to near
    /// than to far) or `quadruplets.csv` (header `a,b,c,d`: pair (a,b) more similar than
    /// (c,d)), `truth.csv` (header `item,cluster`) and `simulation.json` (the parameters).
    /// Items are named 0..n-1. The same --seed gives byte-identical files.
    ///
    /// Example (the paper's default model, Perrot et al. 2020, §5):
    ///   compclust simulate planted --n 1000 --k 4 --family normal --delta 0.5 --eps 0.75
    ///     --triplets auto --seed 1 --out sim/
    #[command(verbatim_doc_comment)]
    Planted(PlantedArgs),
    /// Hierarchical planted model (Ghoshdastidar et al. 2019, §2.2): 2^L pure clusters of N0 items, w_ij ~ N(μ_ij, σ²)
    /// with μ_ij = μ − (L − ℓ)δ for items first separated at level ℓ.
    ///
    /// Writes into --out: `quadruplets.csv` (or `triplets.csv` with --triplets-only),
    /// `truth.csv` (`item,cluster`: the pure clusters), `levels.csv` (`item,level1,…,levelL`:
    /// the true partition at every level), `truth.json` (the true dendrogram:
    /// `{"items": [...], "steps": [[a, b, height, size], ...]}`) and `simulation.json`.
    ///
    /// Example (Ghoshdastidar et al. 2019, §4.1 defaults with p = 0.01 of all quadruplets):
    ///   compclust simulate hierarchy --levels 3 --n0 30 --mu 0.8 --delta 0.1 --sigma 0.1
    ///     --rate 0.01 --seed 1 --out hsim/
    #[command(verbatim_doc_comment)]
    Hierarchy(HierarchyArgs),
    /// Overlapping memberships (Huleihel et al. 2019, §2: uniform Δ-of-k or i.i.d. Bernoulli(p) ensembles) and
    /// passive same-cluster answers from a simulated oracle (direct A_iᵀA_j, quantized
    /// through BSC(q), or dithered 1[A_iᵀA_j + N(0,σ²) ≥ θ]).
    ///
    /// Writes into --out: `same_cluster.csv` (header `a,b,answer`, one row per sampled pair),
    /// `truth.csv` (the membership: one `item,cluster` row per (item, cluster); an item in no
    /// cluster has one row with an empty cluster) and `simulation.json`.
    ///
    /// Example (uniform ensemble, n = 500, k = 6, Δ = 2, all pairs, direct answers):
    ///   compclust simulate overlap --ensemble uniform --n 500 --k 6 --delta 2 --pairs all
    ///     --seed 1 --out osim/
    #[command(verbatim_doc_comment)]
    Overlap(OverlapArgs),
}

/// The overlap ensembles of Huleihel et al. 2019, §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Ensemble {
    /// Each row uniform among the k-vectors of weight Δ (Huleihel et al. 2019, eq. 1).
    Uniform,
    /// Every entry of A an independent Bernoulli(p).
    Iid,
}

/// The simulated same-cluster oracles of Huleihel et al. 2019, §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OracleChoice {
    /// A_iᵀA_j, the number of shared clusters.
    Direct,
    /// 1[A_iᵀA_j > 0] flipped with probability q.
    Quantized,
    /// 1[A_iᵀA_j + N(0, σ²) ≥ θ].
    Dithered,
}

/// How many same-cluster pairs to sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PairCount {
    /// All C(n, 2) pairs.
    All,
    /// `min(C(n,2), round(n · ln² n))`.
    Auto,
    /// Exactly this many distinct pairs.
    Exactly(usize),
}

impl FromStr for PairCount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(PairCount::All);
        }
        match s.parse::<Count>()? {
            Count::Auto => Ok(PairCount::Auto),
            Count::Exactly(m) => Ok(PairCount::Exactly(m)),
        }
    }
}

/// Arguments of `compclust simulate overlap`.
#[derive(clap::Args, Debug)]
pub struct OverlapArgs {
    /// Ensemble: uniform (Δ of k) or iid (Bernoulli(p)).
    #[arg(long, value_enum, default_value = "uniform")]
    pub ensemble: Ensemble,
    /// Number of items.
    #[arg(long, default_value_t = 500)]
    pub n: usize,
    /// Number of clusters k (1..=64).
    #[arg(long, default_value_t = 6)]
    pub k: usize,
    /// Clusters per item Δ (uniform ensemble).
    #[arg(long, default_value_t = 2)]
    pub delta: usize,
    /// Membership probability p (iid ensemble).
    #[arg(long, default_value_t = 0.3)]
    pub p: f64,
    /// Oracle answering the same-cluster queries.
    #[arg(long, value_enum, default_value = "direct")]
    pub oracle: OracleChoice,
    /// Flip probability q of the quantized oracle.
    #[arg(long, default_value_t = 0.0)]
    pub flip_prob: f64,
    /// Noise σ of the dithered oracle.
    #[arg(long, default_value_t = 0.5)]
    pub sigma: f64,
    /// Threshold θ of the dithered oracle.
    #[arg(long, default_value_t = 0.5)]
    pub theta: f64,
    /// Pairs to query: `all`, `auto` (= n·ln²n) or a count; drawn uniformly without
    /// replacement.
    #[arg(long, default_value = "auto")]
    pub pairs: PairCount,
    /// Master seed (membership, pair sample and oracle noise derive their seeds from it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output folder (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// How many comparisons: `auto` (n·ln³n, Perrot et al. 2020, §5), a count, or a Bernoulli rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Count {
    /// `round(n · (ln n)^3)`, capped at the number of distinct comparisons.
    Auto,
    /// Exactly this many distinct comparisons.
    Exactly(usize),
}

impl FromStr for Count {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("auto") {
            return Ok(Count::Auto);
        }
        // accept 330000, 3.3e5
        if let Ok(m) = t.parse::<usize>() {
            return Ok(Count::Exactly(m));
        }
        match t.parse::<f64>() {
            Ok(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e18 => Ok(Count::Exactly(x as usize)),
            _ => Err(format!(
                "expected `auto` or a non-negative whole number of comparisons, got `{s}`"
            )),
        }
    }
}

/// Shared sampling options.
#[derive(clap::Args, Debug)]
pub struct SamplingArgs {
    /// Crowd noise ε in [0, 1]: each answer is correct with probability (1+ε)/2 (Perrot et al. 2020, eq. 2).
    #[arg(long, default_value_t = 0.75)]
    pub eps: f64,
    /// Instead of a count, keep every distinct comparison independently with probability p
    /// (Perrot et al. 2020, §2 / Ghoshdastidar et al. 2019, §4.1 sampling rate).
    #[arg(long, value_name = "P")]
    pub rate: Option<f64>,
    /// Seed: the model is built with it and the comparisons are drawn with it, so the same seed
    /// gives the same comparisons as `compclust demo`, the experiments and Python.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output folder (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Comparison file format: csv, tsv, list-order, list-boolean, list-count.
    #[arg(long, default_value = "csv")]
    pub format: OutputFormat,
}

/// Arguments of `compclust simulate planted`.
#[derive(clap::Args, Debug)]
pub struct PlantedArgs {
    /// Number of items.
    #[arg(long, default_value_t = 1000)]
    pub n: usize,
    /// Number of planted clusters (sizes as equal as possible).
    #[arg(long, default_value_t = 4)]
    pub k: usize,
    /// F_in/F_out family (Perrot et al. 2020, App. E.3): normal, uniform, beta, normal-uniform.
    #[arg(long, default_value = "normal")]
    pub family: Family,
    /// δ = 2 P(w_in > w_out) − 1 (Perrot et al. 2020, eq. 3), in (0, 1).
    #[arg(long, default_value_t = 0.5)]
    pub delta: f64,
    /// Number of comparisons: `auto` (= n·ln³n) or a count.
    #[arg(long, alias = "count", default_value = "auto", conflicts_with = "rate")]
    pub triplets: Count,
    /// Sample quadruplets instead of triplets (count from --triplets / --rate).
    #[arg(long)]
    pub quadruplets: bool,
    #[command(flatten)]
    pub sampling: SamplingArgs,
}

/// Arguments of `compclust simulate hierarchy`.
#[derive(clap::Args, Debug)]
pub struct HierarchyArgs {
    /// Height L of the planted tree (2^L pure clusters).
    #[arg(long, default_value_t = 3)]
    pub levels: u32,
    /// Size N0 of each pure cluster.
    #[arg(long, default_value_t = 30)]
    pub n0: usize,
    /// Within-pure-cluster mean similarity μ.
    #[arg(long, default_value_t = 0.8)]
    pub mu: f64,
    /// Separation δ between levels.
    #[arg(long, default_value_t = 0.1)]
    pub delta: f64,
    /// Noise standard deviation σ.
    #[arg(long, default_value_t = 0.1)]
    pub sigma: f64,
    /// Number of comparisons: `auto` (= N·ln³N) or a count.
    #[arg(long, alias = "count", default_value = "auto", conflicts_with = "rate")]
    pub quadruplets: Count,
    /// Sample triplets instead of quadruplets.
    #[arg(long)]
    pub triplets_only: bool,
    /// Crowd noise and output options.
    #[command(flatten)]
    pub sampling: SamplingArgs,
}

/// Run `compclust simulate`.
pub fn run(command: Command) -> CmdResult {
    match command {
        Command::Planted(a) => planted(a),
        Command::Hierarchy(a) => hierarchy(a),
        Command::Overlap(a) => overlap(a),
    }
}

/// Seed of the same-cluster pair sample of `simulate overlap`, independent of the membership's.
/// (Comparisons of the planted models follow the library's one seed rule instead: model and
/// comparisons both from the master seed, see `compclust::simulate::sample_comparisons`.)
fn pairs_seed(seed: u64) -> u64 {
    mix64(seed ^ 0x73_616d_706c_6573) // "samples"
}

/// What was sampled, for `simulation.json` and the summary line.
#[derive(Serialize)]
struct SampleInfo {
    kind: &'static str,
    count: usize,
    distinct_possible: String,
    rate: Option<f64>,
    eps: f64,
    seed: u64,
}

fn sample<S: Similarity>(
    sim: &S,
    quads: bool,
    count: Count,
    s: &SamplingArgs,
) -> anyhow::Result<(Comparisons, SampleInfo)> {
    let n = sim.n_items();
    let total = n_distinct(n, quads);
    let what = if quads { "quadruplets" } else { "triplets" };
    let budget = match (s.rate, count) {
        (Some(p), _) => Budget::Rate(p),
        (None, Count::Auto) => Budget::DEFAULT,
        (None, Count::Exactly(m)) => Budget::Exactly(m),
    };
    let pb = spinner(format!("sampling {what}"));
    // The one seed rule: the model was built with the master seed, and so are its comparisons.
    let comps = sample_comparisons(sim, quads, budget, s.eps, s.seed);
    pb.finish_and_clear();
    let comps = comps?;
    let info = SampleInfo {
        kind: what,
        count: comps.len(),
        distinct_possible: total.to_string(),
        rate: s.rate,
        eps: s.eps,
        seed: s.seed,
    };
    Ok((comps, info))
}

fn write_comps(
    outs: &mut Outputs,
    dir: OutDir,
    items: &ItemIndex,
    comps: Comparisons,
    format: OutputFormat,
) -> anyhow::Result<PathBuf> {
    let stem = match comps {
        Comparisons::Quadruplets(_) => "quadruplets",
        _ => "triplets",
    };
    let ext = match format {
        OutputFormat::Tsv => "tsv",
        OutputFormat::Csv => "csv",
        _ => "txt",
    };
    let out = outs.file_in(dir, &format!("{stem}.{ext}"))?;
    let path = outs.target(out).to_path_buf();
    let pb = spinner(format!("writing {}", path.display()));
    let data = Dataset::new(items.clone(), comps)?;
    outs.write_comparisons(out, &data, format)?;
    pb.finish_and_clear();
    Ok(path)
}

fn planted(a: PlantedArgs) -> CmdResult {
    let mut outs = Outputs::new();
    let dir = outs.folder("--out", &a.sampling.out)?;
    let model = PlantedFlat::new(a.n, a.k, a.family, a.delta, a.sampling.seed)?;
    let (comps, info) = sample(&model, a.quadruplets, a.triplets, &a.sampling)?;
    let items = ItemIndex::numbered(a.n);
    let cpath = write_comps(&mut outs, dir, &items, comps, a.sampling.format)?;
    let truth = outs.file_in(dir, "truth.csv")?;
    outs.write_labels(truth, &items, model.labels())?;
    #[derive(Serialize)]
    struct Params {
        model: &'static str,
        n: usize,
        k: usize,
        family: String,
        delta: f64,
        mu_in: Option<f64>,
        sampling: SampleInfo,
    }
    let summary = format!(
        "wrote {} {} over {} items in {} planted clusters to {}",
        info.count,
        info.kind,
        a.n,
        a.k,
        cpath.display()
    );
    let sim = outs.file_in(dir, "simulation.json")?;
    outs.write_json(
        sim,
        &Params {
            model: "planted-flat (Perrot et al. 2020, §2, App. E.3)",
            n: a.n,
            k: a.k,
            family: a.family.to_string(),
            delta: a.delta,
            mu_in: model.mu_in(),
            sampling: info,
        },
    )?;
    outs.commit()?;
    println!("{summary}");
    Ok(super::ExitCode::SUCCESS)
}

/// The dendrogram JSON file of docs/FORMATS.md.
#[derive(Serialize)]
struct DendrogramJson<'a> {
    items: &'a [String],
    steps: Vec<(usize, usize, f64, usize)>,
}

fn hierarchy(a: HierarchyArgs) -> CmdResult {
    let mut outs = Outputs::new();
    let dir = outs.folder("--out", &a.sampling.out)?;
    let model = PlantedHierarchy::new(a.levels, a.n0, a.mu, a.delta, a.sigma, a.sampling.seed)?;
    let n = model.n_items();
    let (comps, info) = sample(&model, !a.triplets_only, a.quadruplets, &a.sampling)?;
    let items = ItemIndex::numbered(n);
    let cpath = write_comps(&mut outs, dir, &items, comps, a.sampling.format)?;
    let pure = model.level_partition(a.levels);
    let truth = outs.file_in(dir, "truth.csv")?;
    outs.write_labels(truth, &items, &pure)?;
    // levels.csv: item,level1,...,levelL
    let levels = model.level_partitions();
    let mut s = String::from("item");
    for l in 1..=a.levels {
        s.push_str(&format!(",level{l}"));
    }
    s.push('\n');
    for i in 0..n {
        s.push_str(items.label(i));
        for lv in &levels {
            s.push_str(&format!(",{}", lv[i]));
        }
        s.push('\n');
    }
    let levels_out = outs.file_in(dir, "levels.csv")?;
    outs.write_bytes(levels_out, s)?;
    let d = model.dendrogram();
    let tree = outs.file_in(dir, "truth.json")?;
    outs.write_json_compact(
        tree,
        &DendrogramJson {
            items: items.labels(),
            steps: d
                .steps()
                .iter()
                .map(|m| (m.a, m.b, m.height, m.size))
                .collect(),
        },
    )?;
    #[derive(Serialize)]
    struct Params {
        model: &'static str,
        levels: u32,
        n0: usize,
        n: usize,
        mu: f64,
        delta: f64,
        sigma: f64,
        sampling: SampleInfo,
    }
    let summary = format!(
        "wrote {} {} over {} items ({} pure clusters of {}) to {}",
        info.count,
        info.kind,
        n,
        model.n_pure(),
        a.n0,
        cpath.display()
    );
    let sim = outs.file_in(dir, "simulation.json")?;
    outs.write_json(
        sim,
        &Params {
            model: "planted-hierarchy (Ghoshdastidar et al. 2019, §2.2)",
            levels: a.levels,
            n0: a.n0,
            n,
            mu: a.mu,
            delta: a.delta,
            sigma: a.sigma,
            sampling: info,
        },
    )?;
    outs.commit()?;
    println!("{summary}");
    Ok(super::ExitCode::SUCCESS)
}

fn overlap(a: OverlapArgs) -> CmdResult {
    use compclust::data::SameCluster;
    use compclust::models::overlap::{BernoulliEnsemble, UniformEnsemble};
    use compclust::overlap::response::{OracleKind, Pair, SimulatedOracle};
    use compclust::simulate::sample_pairs;

    let mut outs = Outputs::new();
    let dir = outs.folder("--out", &a.out)?;
    let membership = match a.ensemble {
        Ensemble::Uniform => UniformEnsemble {
            n: a.n,
            k: a.k,
            delta: a.delta,
        }
        .sample(a.seed)?,
        Ensemble::Iid => BernoulliEnsemble {
            n: a.n,
            k: a.k,
            p: a.p,
        }
        .sample(a.seed)?,
    };
    let kind = match a.oracle {
        OracleChoice::Direct => OracleKind::Direct,
        OracleChoice::Quantized => {
            if !(0.0..0.5).contains(&a.flip_prob) {
                bail!("--flip-prob must be in [0, 0.5), got {}", a.flip_prob);
            }
            OracleKind::Quantized { q: a.flip_prob }
        }
        OracleChoice::Dithered => {
            if !(a.sigma >= 0.0 && a.sigma.is_finite() && a.theta.is_finite()) {
                bail!("--sigma must be ≥ 0 and --theta finite");
            }
            OracleKind::Dithered {
                sigma: a.sigma,
                theta: a.theta,
            }
        }
    };
    let total = (a.n as u128) * (a.n.saturating_sub(1) as u128) / 2;
    let m = match a.pairs {
        PairCount::All => total.min(usize::MAX as u128) as usize,
        PairCount::Auto => {
            let l = (a.n.max(1) as f64).ln();
            ((a.n as f64 * l * l).round() as u128).min(total) as usize
        }
        PairCount::Exactly(m) => m,
    };
    let seed = pairs_seed(a.seed);
    let pb = spinner("sampling same-cluster answers");
    let pairs = sample_pairs(a.n, m, seed)?;
    let oracle = SimulatedOracle::new(&membership, kind, mix64(seed ^ 0x6f72_6163_6c65));
    let answers: Vec<SameCluster> = pairs
        .iter()
        .map(|&(x, y)| SameCluster {
            a: x,
            b: y,
            answer: oracle.peek(Pair::new(x, y)) as f64,
        })
        .collect();
    pb.finish_and_clear();
    let items = ItemIndex::numbered(a.n);
    let answers_out = outs.file_in(dir, "same_cluster.csv")?;
    let path = outs.target(answers_out).to_path_buf();
    let data = Dataset::new(items.clone(), Comparisons::SameCluster(answers))?;
    outs.write_comparisons(answers_out, &data, OutputFormat::Csv)?;
    let truth = outs.file_in(dir, "truth.csv")?;
    outs.write_membership(truth, &items, &membership)?;
    #[derive(Serialize)]
    struct Params {
        model: &'static str,
        ensemble: String,
        n: usize,
        k: usize,
        delta: Option<usize>,
        p: Option<f64>,
        oracle: String,
        pairs: usize,
        distinct_possible: String,
        seed: u64,
    }
    let sim = outs.file_in(dir, "simulation.json")?;
    outs.write_json(
        sim,
        &Params {
            model: "overlap ensemble (Huleihel et al. 2019, §2)",
            ensemble: format!("{:?}", a.ensemble).to_lowercase(),
            n: a.n,
            k: a.k,
            delta: (a.ensemble == Ensemble::Uniform).then_some(a.delta),
            p: (a.ensemble == Ensemble::Iid).then_some(a.p),
            oracle: format!("{kind:?}"),
            pairs: m,
            distinct_possible: total.to_string(),
            seed: a.seed,
        },
    )?;
    outs.commit()?;
    println!(
        "wrote {m} same-cluster answers over {} items in {} overlapping clusters to {}",
        a.n,
        a.k,
        path.display()
    );
    Ok(super::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compclust::simulate::comparison_budget;

    #[test]
    fn count_parses() {
        assert_eq!("auto".parse::<Count>().unwrap(), Count::Auto);
        assert_eq!("330000".parse::<Count>().unwrap(), Count::Exactly(330000));
        assert_eq!("3.3e5".parse::<Count>().unwrap(), Count::Exactly(330000));
        assert!("-1".parse::<Count>().is_err());
        assert!("1.5".parse::<Count>().is_err());
        assert_eq!(comparison_budget(1000, 3.0, false), 329_618);
    }
}
