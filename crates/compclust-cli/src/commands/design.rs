//! `compclust design`: the random questions of a passive study (Perrot, Esser &
//! Ghoshdastidar 2020, §2, §5), written as an ASK file that the crowd answers and `cluster` or
//! `hierarchy` then reads.

use super::ExitCode;
use std::path::PathBuf;

use anyhow::Context;
use compclust::data::{Dataset, OutputFormat, read_items};
use compclust::design::{DesignParams, QuestionCount, QuestionKind};

use super::CmdResult;
use crate::output::Outputs;

const AFTER_HELP: &str = "\
THE ASK FILE (--output)
  One question per row, written as the answer it would be, with the header of the answered
  kind, so that the answered file goes straight into `compclust cluster` or `hierarchy`:
    triplets      anchor,near,far   \"is `anchor` closer to `near` or to `far`?\"
    quadruplets   a,b,c,d           \"is the pair (a,b) or the pair (c,d) more similar?\"
  The worker answers by keeping the row (the first candidate, or the first pair, is the more
  similar) or by swapping the two candidates (near and far; the pairs (a,b) and (c,d)). Extra
  columns `worker` and `time` may follow. The candidates of each question are shown in a random
  order; no question is asked twice, except the --repeat ones, which come a second time with
  the candidates swapped. A `.tsv` output is tab-separated.

  anchor,near,far
  tiger_shark,blue_whale,hammerhead
  ...

COUNT
  auto   n (ln n)^3 distinct questions, rounded, at most the number that exist: the budget at
         which Perrot, Esser & Ghoshdastidar (2020, section 5) recover planted clusters
  N      exactly N distinct questions (an error when fewer exist: n C(n-1,2) triplets,
         C(C(n,2),2) quadruplets)

EXAMPLES
  compclust design triplets --items animals.txt --count auto --seed 1 --output ask.csv
  # ... the crowd answers ask.csv into answers.csv ...
  compclust cluster --input answers.csv --items animals.txt --output labels.csv";

/// The kind of question.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Kind {
    /// "Is `anchor` closer to `near` or to `far`?" (header `anchor,near,far`)
    Triplets,
    /// "Is the pair (a,b) or the pair (c,d) more similar?" (header `a,b,c,d`)
    Quadruplets,
}

/// Arguments of `compclust design`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Triplets or quadruplets.
    #[arg(value_enum)]
    kind: Kind,
    /// Item names, one per line.
    #[arg(long)]
    items: PathBuf,
    /// Distinct questions: `auto` (n (ln n)^3) or a number.
    #[arg(long, default_value = "auto")]
    count: QuestionCount,
    /// Ask this many of the questions a second time (candidates swapped), to measure how
    /// consistent the workers are.
    #[arg(long, default_value_t = 0)]
    repeat: usize,
    /// Seed of the draw, the order and the orientation of the questions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The questions to ask (ASK.csv).
    #[arg(long)]
    output: PathBuf,
}

/// Run `compclust design`.
pub fn run(a: Args) -> CmdResult {
    let mut outs = Outputs::new();
    outs.input("--items", &a.items)?;
    let out = outs.file("--output", &a.output)?;
    let items = read_items(&a.items).context("reading the items file")?;
    if a.count == QuestionCount::Exactly(0) {
        anyhow::bail!("--count 0: a design needs at least one question");
    }
    let kind = match a.kind {
        Kind::Triplets => QuestionKind::Triplets,
        Kind::Quadruplets => QuestionKind::Quadruplets,
    };
    let params = DesignParams {
        kind,
        count: a.count,
        repeat: a.repeat,
        seed: a.seed,
    };
    let design = params
        .draw(items.len())
        .with_context(|| format!("{}: {} items", a.items.display(), items.len()))?;
    let rows = design.questions.len();
    let data = Dataset::new(items, design.questions)?;
    outs.write_comparisons(out, &data, OutputFormat::from_extension(&a.output))?;
    outs.commit()?;
    println!(
        "{rows} {} to ask: {} distinct of the {} that exist over {} items, {} asked twice; \
         wrote {}",
        kind.name(),
        design.distinct,
        design.available,
        data.n_items(),
        design.repeated,
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
