//! `compclust embed`: ordinal embedding of triplets (t-STE, van der Maaten & Weinberger 2012;
//! SOE, Terada & von Luxburg 2014; FORTE, Jain, Jamieson & Nowak 2016).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use compclust::data::{Comparisons, Dataset, ItemIndex, read_comparisons};
use compclust::embed::EmbedMethod;
use compclust::embed::forte::ForteParams;
use compclust::embed::soe::SoeParams;
use compclust::embed::tste::TsteParams;
use compclust::metrics::triplet::triplet_accuracy;

use super::read_args::ReadArgs;
use super::{CmdResult, ExitCode};
use crate::output::Outputs;

const HELP: &str = "\
Input: a file of triplets (or answers that give triplets). CSV files with a header are
detected by it:
  anchor,near,far      triplets: anchor is closer to near than to far
  center,x,y           most-central answers (two triplets each)
  odd,x,y              odd-one-out answers (two triplets each)
A headerless file of 3 item indices is cblearn's list-order (`0,1,2` = 0 is closer to 1 than
to 2); --format reads cblearn's list-boolean / list-count, salmon and the car survey.
Quadruplets and same-cluster answers cannot be embedded by these methods.

Output: OUT.csv with header `item,x1,...,xD`, one row per item (in the order of --items, or of
first appearance).

Methods (defaults as cblearn 0.4):
  tste    t-STE, Student-t kernel with α = max(D − 1, 1), L-BFGS
  soe     SOE, squared hinge on distances with margin 0.1, L-BFGS, best of 10 starts
  forte   FORTE, rank-D Gram matrix by projected gradient (logistic loss); at most 4000
          items (one n × n eigendecomposition per iteration)

Examples:
  compclust embed -i triplets.csv --method soe --dim 2 -o embedding.csv
  compclust embed -i answers.csv --format list-boolean --method forte --dim 3 -o emb.csv
  compclust embed -i T_ALL_REDUCED.csv --kind most-central --method tste -o car.csv";

/// Arguments of `compclust embed` (the format and example texts are in `HELP`).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// Triplets file.
    #[arg(long, short)]
    pub input: PathBuf,
    /// How to read the input.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Embedding method: tste, soe or forte.
    #[arg(long, short, default_value = "tste")]
    pub method: EmbedMethod,
    /// Dimension D of the embedding.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub dim: u16,
    /// Maximum number of optimiser iterations (per start for soe; default: 1000 for tste and
    /// soe, 500 for forte).
    #[arg(long)]
    pub max_iter: Option<usize>,
    /// Seed of the random start(s).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output embedding (`item,x1,...,xD`).
    #[arg(long, short)]
    pub output: PathBuf,
}

/// `compclust embed`.
pub fn run(args: Args) -> CmdResult {
    let mut outs = Outputs::new();
    args.read.register(&mut outs, "--input", &args.input)?;
    let out = outs.file("--output", &args.output)?;
    let data = read_input(&args, &args.input)?;
    let Comparisons::Triplets(triplets) = &data.comparisons else {
        unreachable!("read_input returns triplets only")
    };
    let (n, d) = (data.n_items(), usize::from(args.dim));
    check_memory(args.method, n, d)?;
    let started = Instant::now();
    let rows = fit(&args, n, triplets)?;
    let secs = started.elapsed().as_secs_f64();
    let acc = triplet_accuracy(&rows, d, triplets)?;
    println!(
        "{}: {n} items, {} triplets, dimension {d}, training triplet accuracy {acc:.4}, {secs:.3} s",
        args.method,
        triplets.len()
    );
    outs.write_with(out, |w| write_embedding(w, &data.items, &rows, d))?;
    outs.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Read the input and keep only triplets.
fn read_input(args: &Args, input: &Path) -> anyhow::Result<Dataset> {
    let opts = args.read.options()?;
    let data = read_comparisons(input, &opts)?;
    match &data.comparisons {
        Comparisons::Triplets(t) if t.is_empty() => {
            bail!("{}: no triplets to embed", input.display())
        }
        Comparisons::Triplets(_) => Ok(data),
        other => bail!(
            "{}: {} cannot be embedded; t-STE, SOE and FORTE need triplets (anchor,near,far)",
            input.display(),
            other.kind()
        ),
    }
}

/// Refuse sizes the machine's memory cannot hold: the optimisers keep about 48 vectors of
/// n · d values (t-STE's L-BFGS history and gradient chunks), FORTE about eight n × n matrices.
fn check_memory(method: EmbedMethod, n: usize, d: usize) -> anyhow::Result<()> {
    let values = (n as u128).saturating_mul(d as u128);
    compclust::limits::check_memory("item coordinates", values, values.saturating_mul(8 * 48))?;
    if method == EmbedMethod::Forte && n <= compclust::embed::forte::MAX_ITEMS {
        compclust::limits::reserve_dense(n, 8)?;
    }
    Ok(())
}

/// The embedding, row-major n × d.
fn fit(args: &Args, n: usize, triplets: &[compclust::data::Triplet]) -> anyhow::Result<Vec<f64>> {
    let d = usize::from(args.dim);
    let context = || format!("{} embedding", args.method);
    Ok(match args.method {
        EmbedMethod::Tste => {
            let mut p = TsteParams::new(d).with_seed(args.seed);
            if let Some(it) = args.max_iter {
                p = p.with_max_iter(it);
            }
            p.fit(n, triplets, None).with_context(context)?.rows()
        }
        EmbedMethod::Soe => {
            let mut p = SoeParams::new(d).with_seed(args.seed);
            if let Some(it) = args.max_iter {
                p = p.with_max_iter(it);
            }
            p.fit(n, triplets, None).with_context(context)?.rows()
        }
        EmbedMethod::Forte => {
            let mut p = ForteParams::new(d).with_seed(args.seed);
            if let Some(it) = args.max_iter {
                p = p.with_max_iter(it);
            }
            p.fit(n, triplets, None).with_context(context)?.rows()
        }
    })
}

/// `item,x1,...,xD` rows, labels quoted as CSV needs.
fn write_embedding(
    w: &mut dyn std::io::Write,
    items: &ItemIndex,
    rows: &[f64],
    d: usize,
) -> anyhow::Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    let mut header = vec!["item".to_string()];
    header.extend((1..=d).map(|l| format!("x{l}")));
    csv.write_record(&header)?;
    for (i, label) in items.labels().iter().enumerate() {
        let mut rec = vec![label.clone()];
        rec.extend(rows[i * d..(i + 1) * d].iter().map(|v| v.to_string()));
        csv.write_record(&rec)?;
    }
    csv.flush()?;
    Ok(())
}
