//! Pinned studies (`--study STUDY.toml`): the first round of a study run in file rounds writes
//! the command, every parameter that decides which questions are asked, and the digest of the
//! items file; every later round reads it back and stops (exit status 2) when a flag or the
//! items file disagrees, so that a study can never silently restart with another sample.
//!
//! The API is generic: a command lists its parameters by name (the name of its flag, without
//! `--`) with their values as text ([`StudyParams::param`]), and [`StudyParams::pin`] does the
//! rest. The reading, the record ([`compclust::study::PinnedStudy`]) and the agreement check
//! are the library's, shared with the served studies of `compclust serve`. The file:
//!
//! ```toml
//! # compclust study: written by the first round; every later round must agree with it.
//! command = "overlap"
//! compclust = "0.1.0"
//!
//! [items]
//! file = "items.txt"
//! sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//! count = 120
//!
//! [parameters]
//! k = "4"
//! method = "find-similarity"
//! seed = "7"
//! ```

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};

use anyhow::Context;
use compclust::study::{PinnedItems, PinnedStudy as Study};

use crate::output::{Out, Outputs};

/// What [`StudyParams::pin`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pinned {
    /// The first round: STUDY.toml is written when the run commits.
    Created,
    /// A later round that agrees with STUDY.toml.
    Agrees,
}

/// The parameters of one round, to be pinned or checked against a study.
#[derive(Clone, Debug)]
pub struct StudyParams {
    command: String,
    params: BTreeMap<String, String>,
}

/// The study file of a run, registered before any work: an input when it exists (a later
/// round), an output otherwise (the first round).
#[derive(Clone, Debug)]
pub enum StudyFile {
    /// A later round: read it.
    Existing(PathBuf),
    /// The first round: write it here.
    New(Out),
}

impl StudyFile {
    /// Register `--study PATH` with the run's outputs.
    pub fn register(outs: &mut Outputs, path: &Path) -> anyhow::Result<Self> {
        if path.exists() {
            outs.input("--study", path)?;
            Ok(StudyFile::Existing(path.to_path_buf()))
        } else {
            Ok(StudyFile::New(outs.file("--study", path)?))
        }
    }
}

/// A study-file error with the flag in front (`--study PATH: reason`).
fn flagged(e: compclust::study::StudyError) -> anyhow::Error {
    anyhow::anyhow!("--study {e}")
}

/// Read STUDY.toml (the library's bounded reader); errors name the file (and the line, for
/// bad TOML).
pub fn read_study(path: &Path) -> anyhow::Result<Study> {
    compclust::study::read(path).map_err(flagged)
}

impl StudyParams {
    /// The parameters of a round of `command`.
    pub fn new(command: &str) -> Self {
        StudyParams {
            command: command.into(),
            params: BTreeMap::new(),
        }
    }

    /// Add parameter `name` (its flag without `--`) with `value`.
    pub fn param(mut self, name: &str, value: impl Display) -> Self {
        self.params.insert(name.into(), value.to_string());
        self
    }

    /// Add an optional parameter: `none` when not given.
    pub fn opt(self, name: &str, value: Option<impl Display>) -> Self {
        let v = value.map_or_else(|| "none".to_string(), |v| v.to_string());
        self.param(name, v)
    }

    /// The study these parameters pin for the items file `items` of `n_items` items.
    fn study(&self, items: &Path, n_items: usize) -> anyhow::Result<Study> {
        Ok(Study {
            command: self.command.clone(),
            compclust: env!("CARGO_PKG_VERSION").into(),
            items: PinnedItems {
                file: items.display().to_string(),
                sha256: compclust::study::file_sha256(items).map_err(|e| anyhow::anyhow!("{e}"))?,
                count: n_items,
            },
            parameters: self.params.clone(),
        })
    }

    /// The first round writes the study (to `file`, at commit); a later round checks that the
    /// command, every parameter and the items file agree with it, and otherwise fails with a
    /// message that names what differs and both values.
    pub fn pin(
        &self,
        file: &StudyFile,
        items: &Path,
        n_items: usize,
        outs: &mut Outputs,
    ) -> anyhow::Result<Pinned> {
        let now = self.study(items, n_items)?;
        match file {
            StudyFile::New(out) => {
                let text = toml::to_string(&now).context("--study: writing the study")?;
                outs.write_bytes(
                    *out,
                    format!(
                        "# compclust study: written by the first round; every later round \
                         must agree with it.\n{text}"
                    ),
                )?;
                Ok(Pinned::Created)
            }
            StudyFile::Existing(path) => {
                let pinned = read_study(path)?;
                pinned.check_agrees(&now, path).map_err(flagged)?;
                Ok(Pinned::Agrees)
            }
        }
    }
}
