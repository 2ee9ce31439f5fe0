//! The arguments every command that reads a comparisons file shares (`cluster`, `convert`,
//! `hierarchy`), flattened into each command's arguments so that they read, check and
//! document them in one way.

use std::path::{Path, PathBuf};

use anyhow::Context;
use compclust::data::{ComparisonKind, InputFormat, ReadOptions, read_items};

use crate::output::Outputs;

/// How to read a comparisons file: its kind, its format and the items file.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadArgs {
    /// Kind of a headerless CSV input: triplets, quadruplets, most-central, odd-one-out,
    /// same-cluster (with a header, a check against it).
    #[arg(long, short)]
    pub kind: Option<ComparisonKind>,
    /// Input format: csv, tsv, list-order, list-boolean, list-count, salmon, car-survey,
    /// car-ordinal, food-json (detected when omitted; a headerless file of 3 or 4 integer
    /// columns is list-order).
    #[arg(long, short)]
    pub format: Option<InputFormat>,
    /// Items file (one label per line): fixes the item universe and its order; unknown items
    /// are errors.
    #[arg(long)]
    pub items: Option<PathBuf>,
}

impl ReadArgs {
    /// Register `input` (given with `flag`) and the items file as inputs of the run, so that
    /// no output may replace them.
    pub fn register(&self, outs: &mut Outputs, flag: &str, input: &Path) -> anyhow::Result<()> {
        outs.comparisons_input(flag, input, self.format)?;
        outs.input_opt("--items", self.items.as_deref())
    }

    /// The library's read options (the items file is read here).
    pub fn options(&self) -> anyhow::Result<ReadOptions> {
        let items = match &self.items {
            Some(p) => Some(
                read_items(p).with_context(|| format!("reading the items file {}", p.display()))?,
            ),
            None => None,
        };
        Ok(ReadOptions {
            kind: self.kind,
            format: self.format,
            items,
        })
    }
}
