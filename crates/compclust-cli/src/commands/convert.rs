//! `compclust convert`: read any supported comparisons format, write any supported output.

use super::ExitCode;
use std::path::PathBuf;

use compclust::data::{OutputFormat, read_comparisons_with_report};

use super::CmdResult;
use super::read_args::ReadArgs;
use crate::output::Outputs;

const AFTER_HELP: &str = "\
INPUT FORMATS (--format; detected from the header, a .json extension or a folder when omitted)
  csv           Delimited text (`,` `;` tab or whitespace, auto-detected, fields trimmed) with a
                header naming the kind; item fields are arbitrary labels:
                  anchor,near,far   triplets: anchor is closer to near than to far
                  a,b,c,d           quadruplets: pair (a,b) is more similar than pair (c,d)
                  center,x,y        most-central of three: 2 triplets (x,center,y), (y,center,x)
                  odd,x,y           odd-one-out of three: 2 triplets (x,y,odd), (y,x,odd)
                  a,b,answer        same-cluster: answer 0/1 (or yes/no) or a count
                A headerless file needs --kind (triplets, quadruplets, most-central,
                odd-one-out, same-cluster). `tsv` is an alias. Example:
                  anchor,near,far
                  cat,lion,car
                  lion,cat,car
  list-order    cblearn: headerless 0-based index rows `i,j,k` (or `i,j,k,l`); the row is the
                answer. Example row: `0,4,7`
  list-boolean  cblearn: index rows + response true/false (false reverses the row): `0,4,7,false`
  list-count    cblearn: index rows + signed count: -1 reverses, 0 (undecided) is skipped and
                counted, |count|>1 is unrolled into |count| answers: `0,4,7,-2`
  salmon        salmon responses.csv: header with `head`, `winner`, `loser` among other columns
                (0-based target ids); each row is the triplet (head, winner, loser)
  car-survey    60-cars survey_data.csv: survey_round,chosen_center,triplet_object_1,
                triplet_object_2,triplet_object_3,response_time (1-based ids; the chosen car is
                the most central of the three: 2 triplets)
  car-ordinal   60-cars ordinal_data_preprocessed/*.csv: headerless `i,j,k`, 1-based, i most
                central of {i,j,k}: 2 triplets
  food-json     Food-100 raw JSON, a file or a folder of *.json: every near in near_answer and
                far in images minus near_answer gives (probe, near, far); catch trials skipped

OUTPUT FORMATS (--to; default from the output extension: .tsv -> tsv, else csv)
  csv, tsv      header per kind (anchor,near,far | a,b,c,d | a,b,answer), item labels
  list-order    headerless 0-based index rows as answered (add --items-out to keep labels)
  list-boolean  one row per answer in cblearn's canonical order + true/false
  list-count    one row per distinct canonical query + net signed count

EXAMPLES
  compclust convert --input survey_data.csv --output car.csv
  compclust convert --input raw-json/ --output food.csv --to list-order --items-out food-items.txt
  compclust convert --input t.txt --kind odd-one-out --items items.txt --output t.csv

The outputs are written to temporary files and renamed only when the whole run succeeds, so
they are never left half-written and a failed run leaves earlier outputs as they were.";

/// Arguments of `compclust convert`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = AFTER_HELP, after_help = "Run with --help for every format, with examples.")]
pub struct Args {
    /// Input file (or a folder of food JSON files).
    #[arg(long, short)]
    pub input: PathBuf,
    /// How to read the input.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Output file.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Output format: csv, tsv, list-order, list-boolean, list-count.
    #[arg(long)]
    pub to: Option<OutputFormat>,
    /// Also write the item labels, one per line in index order (useful with the cblearn index
    /// formats).
    #[arg(long)]
    pub items_out: Option<PathBuf>,
}

/// Run `compclust convert`.
pub fn run(args: Args) -> CmdResult {
    let mut outs = Outputs::new();
    args.read.register(&mut outs, "--input", &args.input)?;
    let out = outs.file("--output", &args.output)?;
    let items_out = outs.file_opt("--items-out", args.items_out.as_deref())?;
    let opts = args.read.options()?;
    let sp = crate::progress::spinner(format!("reading {}", args.input.display()));
    let read = read_comparisons_with_report(&args.input, &opts);
    sp.finish_and_clear();
    let (data, report) = read?;
    let to = args
        .to
        .unwrap_or_else(|| OutputFormat::from_extension(&args.output));
    outs.write_comparisons(out, &data, to)?;
    if let Some(o) = items_out {
        outs.write_items(o, &data.items)?;
    }
    outs.commit()?;
    let c = &data.comparisons;
    println!(
        "read {} ({}, {} as {}): {} records",
        args.input.display(),
        report.format,
        report.kind,
        c.kind(),
        report.records
    );
    println!("comparisons: {}", c.len());
    println!("distinct comparisons: {}", c.distinct_rows());
    println!("distinct queries: {}", c.distinct());
    if let Some(cc) = c.triplet_counts() {
        println!("contradicted queries: {}", cc.contradicted);
    } else if let Some(cc) = c.quadruplet_counts() {
        println!("contradicted queries: {}", cc.contradicted);
    }
    if report.skipped_undecided > 0 {
        println!("skipped undecided: {}", report.skipped_undecided);
    }
    if report.skipped_catch_trials > 0 {
        println!("skipped catch trials: {}", report.skipped_catch_trials);
    }
    if report.files > 1 {
        println!("files: {}", report.files);
    }
    println!("items: {}", data.n_items());
    println!("wrote {} ({to})", args.output.display());
    Ok(ExitCode::SUCCESS)
}
