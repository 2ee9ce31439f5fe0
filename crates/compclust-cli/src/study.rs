//! Pinned studies (`--study STUDY.toml`): the first round of a study run in file rounds writes
//! the command, every parameter that decides which questions are asked, and the digest of the
//! items file; every later round reads it back and stops (exit status 2) when a flag or the
//! items file disagrees, so that a study can never silently restart with another sample.
//!
//! The API is generic: a command lists its parameters by name (the name of its flag, without
//! `--`) with their values as text ([`StudyParams::param`]), and [`StudyParams::pin`] does the
//! rest. The file:
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
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::output::{Out, Outputs};

/// Largest STUDY.toml read (a study file is a few hundred bytes).
const MAX_STUDY_BYTES: u64 = 1 << 20;

/// The items file a study was pinned to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedItems {
    /// The path given in the first round (for messages only).
    pub file: String,
    /// SHA-256 of the file's bytes, lowercase hex.
    pub sha256: String,
    /// Number of items.
    pub count: usize,
}

/// The contents of STUDY.toml.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// The subcommand (`overlap`, `hierarchy`).
    pub command: String,
    /// The version of compclust that wrote it.
    pub compclust: String,
    /// The items file.
    pub items: PinnedItems,
    /// Every parameter by flag name (without `--`), as text.
    pub parameters: BTreeMap<String, String>,
}

/// The parameters of one round, to be pinned or checked against a study.
#[derive(Clone, Debug)]
pub struct StudyParams {
    command: String,
    params: BTreeMap<String, String>,
}

/// What [`StudyParams::pin`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pinned {
    /// The first round: STUDY.toml is written when the run commits.
    Created,
    /// A later round that agrees with STUDY.toml.
    Agrees,
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

/// SHA-256 of the file at `path`, lowercase hex.
pub fn file_sha256(path: &Path) -> anyhow::Result<String> {
    let mut f = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("{}", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Read STUDY.toml; errors name the file (and the line, for bad TOML).
pub fn read_study(path: &Path) -> anyhow::Result<Study> {
    let f = std::fs::File::open(path).with_context(|| format!("--study {}", path.display()))?;
    let mut text = String::new();
    f.take(MAX_STUDY_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("--study {}: not a UTF-8 text file", path.display()))?;
    if text.len() as u64 > MAX_STUDY_BYTES {
        bail!(
            "--study {}: larger than {MAX_STUDY_BYTES} bytes; not a study file",
            path.display()
        );
    }
    toml::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "--study {}: not a compclust study file: {}",
            path.display(),
            toml_error_line(&text, &e)
        )
    })
}

/// A TOML error in one line: `line L: reason` (the parser's own text quotes the offending
/// line with a caret under it, several lines of user text on stderr).
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let reason = e.message().trim().replace('\n', " ");
    let reason: String = if reason.chars().count() > 160 {
        reason.chars().take(160).chain("…".chars()).collect()
    } else {
        reason
    };
    match e.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(1, |head| head.matches('\n').count() + 1);
            format!("line {line}: {reason}")
        }
        None => reason,
    }
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
                sha256: file_sha256(items)?,
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
                check_agrees(&pinned, &now, path)?;
                Ok(Pinned::Agrees)
            }
        }
    }
}

/// Error unless `now` agrees with the `pinned` study read from `path`.
fn check_agrees(pinned: &Study, now: &Study, path: &Path) -> anyhow::Result<()> {
    let p = path.display();
    let restart = "a study cannot change between rounds; give the pinned value, or start a new \
                   study with another --study file";
    if pinned.command != now.command {
        bail!(
            "--study {p}: the study is a `{}` study, this is `{}`; {restart}",
            pinned.command,
            now.command
        );
    }
    let names: std::collections::BTreeSet<&String> = pinned
        .parameters
        .keys()
        .chain(now.parameters.keys())
        .collect();
    for name in names {
        let (was, is) = (pinned.parameters.get(name), now.parameters.get(name));
        if was != is {
            let show = |v: Option<&String>| v.map_or("nothing".to_string(), |v| format!("`{v}`"));
            bail!(
                "--study {p}: parameter --{name} differs: the study pinned {}, this round gives \
                 {}; {restart}",
                show(was),
                show(is)
            );
        }
    }
    if pinned.items.sha256 != now.items.sha256 {
        bail!(
            "--study {p}: the items file {} is not the one the study was pinned to ({}, {} \
             items, sha256 {}; now {} items, sha256 {}); the questions already asked would \
             name other items; {restart}",
            now.items.file,
            pinned.items.file,
            pinned.items.count,
            short_digest(&pinned.items.sha256),
            now.items.count,
            short_digest(&now.items.sha256)
        );
    }
    Ok(())
}

/// The first 12 hex digits of a digest with an ellipsis (enough to tell two files apart in a
/// message that stays one line; the study file keeps the whole digest).
fn short_digest(sha: &str) -> String {
    match sha.get(..12) {
        Some(head) if sha.len() > 12 => format!("{head}…"),
        _ => sha.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(seed: &str, sha: &str) -> Study {
        Study {
            command: "overlap".into(),
            compclust: "0.1.0".into(),
            items: PinnedItems {
                file: "items.txt".into(),
                sha256: sha.into(),
                count: 3,
            },
            parameters: [("seed", seed), ("k", "4")]
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }

    #[test]
    fn a_differing_parameter_or_items_file_is_named_with_both_values() {
        let p = Path::new("STUDY.toml");
        assert!(check_agrees(&study("7", "ab"), &study("7", "ab"), p).is_ok());
        let e = check_agrees(&study("7", "ab"), &study("8", "ab"), p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--seed differs") && e.contains("`7`") && e.contains("`8`"),
            "{e}"
        );
        let e = check_agrees(&study("7", "ab"), &study("7", "cd"), p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("items file") && e.contains("ab") && e.contains("cd"),
            "{e}"
        );
        let mut extra = study("7", "ab");
        extra.parameters.insert("delta".into(), "2".into());
        let e = check_agrees(&study("7", "ab"), &extra, p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--delta differs") && e.contains("nothing"),
            "{e}"
        );
    }

    #[test]
    fn a_study_round_trips_through_toml() {
        let s = study("18446744073709551615", "ab");
        let text = toml::to_string(&s).unwrap();
        assert_eq!(toml::from_str::<Study>(&text).unwrap(), s);
    }
}
