//! Study files: the one reader of the TOML files that describe a crowd study, shared by the
//! studies run in file rounds (`compclust hierarchy|overlap --study STUDY.toml`, whose first
//! round pins its parameters) and the served studies (`compclust serve --study STUDY.toml`).
//!
//! - [`read_text`] reads a study file with a size bound (a study file is a few hundred bytes;
//!   anything larger than [`MAX_STUDY_BYTES`] is refused before it is parsed);
//! - [`parse`] / [`read`] turn the text into the caller's type, with errors in one line that
//!   name the file and the line (`study.toml: not a compclust study file: line 3: …`);
//! - [`PinnedStudy`] is the record the first file round writes, [`PinnedStudy::check_agrees`]
//!   what every later round checks against it, and [`file_sha256`] the digest that pins the
//!   items file.
//!
//! Errors display as `PATH: reason`; the command line puts the flag in front
//! (`--study PATH: reason`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Largest study file read, in bytes.
pub const MAX_STUDY_BYTES: u64 = 1 << 20;

/// Why a study file cannot be read, or why a round disagrees with its pinned study.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{path}: not a UTF-8 text file")]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The file is larger than [`MAX_STUDY_BYTES`].
    #[error("{path}: larger than {MAX_STUDY_BYTES} bytes; not a study file")]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file is not TOML, or not the expected table.
    #[error("{path}: not a compclust study file: {}", at_line(*.line, .reason))]
    Toml {
        /// The file.
        path: PathBuf,
        /// The line of the error (1-based), when the parser knows it.
        line: Option<usize>,
        /// What is wrong, in one line.
        reason: String,
    },
    /// A later round does not agree with the pinned study.
    #[error("{path}: {what}; {RESTART}")]
    Disagrees {
        /// The study file.
        path: PathBuf,
        /// What differs, with both values.
        what: String,
    },
}

/// How a disagreement ends.
const RESTART: &str = "a study cannot change between rounds; give the pinned value, or start a \
                       new study with another --study file";

fn at_line(line: Option<usize>, reason: &str) -> String {
    match line {
        Some(l) => format!("line {l}: {reason}"),
        None => reason.to_string(),
    }
}

/// The text of the study file at `path`, refused when larger than [`MAX_STUDY_BYTES`] or not
/// UTF-8.
pub fn read_text(path: &Path) -> Result<String, StudyError> {
    let io = |source| StudyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    f.take(MAX_STUDY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_STUDY_BYTES {
        return Err(StudyError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    String::from_utf8(bytes).map_err(|_| StudyError::NotText {
        path: path.to_path_buf(),
    })
}

/// Parse the `text` of the study file at `path` (named in errors) as a `T`. The error is one
/// line, `line L: reason` (the TOML parser's own text quotes the offending line with a caret
/// under it: several lines of user text).
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, StudyError> {
    toml::from_str(text).map_err(|e| {
        let reason = e.message().trim().replace('\n', " ");
        let reason: String = if reason.chars().count() > 160 {
            reason.chars().take(160).chain("…".chars()).collect()
        } else {
            reason
        };
        let line = e.span().map(|span| {
            text.get(..span.start)
                .map_or(1, |head| head.matches('\n').count() + 1)
        });
        StudyError::Toml {
            path: path.to_path_buf(),
            line,
            reason,
        }
    })
}

/// [`read_text`] then [`parse`].
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, StudyError> {
    parse(path, &read_text(path)?)
}

/// SHA-256 of the file at `path`, lowercase hex.
pub fn file_sha256(path: &Path) -> Result<String, StudyError> {
    let io = |source| StudyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

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

/// The study a first file round pins (STUDY.toml): the command, every parameter that decides
/// which questions are asked, and the items file.
///
/// ```toml
/// command = "overlap"
/// compclust = "0.1.0"
///
/// [items]
/// file = "items.txt"
/// sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
/// count = 120
///
/// [parameters]
/// k = "4"
/// method = "find-similarity"
/// seed = "7"
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedStudy {
    /// The subcommand (`overlap`, `hierarchy`).
    pub command: String,
    /// The version of compclust that wrote it.
    pub compclust: String,
    /// The items file.
    pub items: PinnedItems,
    /// Every parameter by flag name (without `--`), as text.
    pub parameters: BTreeMap<String, String>,
}

impl PinnedStudy {
    /// Error unless `now` (the study a later round would pin) agrees with this one, read from
    /// `path`: the command, every parameter and the items file's digest. The message names
    /// what differs and both values.
    pub fn check_agrees(&self, now: &PinnedStudy, path: &Path) -> Result<(), StudyError> {
        let differs = |what: String| StudyError::Disagrees {
            path: path.to_path_buf(),
            what,
        };
        if self.command != now.command {
            return Err(differs(format!(
                "the study is a `{}` study, this is `{}`",
                self.command, now.command
            )));
        }
        let names: BTreeSet<&String> = self
            .parameters
            .keys()
            .chain(now.parameters.keys())
            .collect();
        for name in names {
            let (was, is) = (self.parameters.get(name), now.parameters.get(name));
            if was != is {
                let show =
                    |v: Option<&String>| v.map_or("nothing".to_string(), |v| format!("`{v}`"));
                return Err(differs(format!(
                    "parameter --{name} differs: the study pinned {}, this round gives {}",
                    show(was),
                    show(is)
                )));
            }
        }
        if self.items.sha256 != now.items.sha256 {
            return Err(differs(format!(
                "the items file {} is not the one the study was pinned to ({}, {} items, \
                 sha256 {}; now {} items, sha256 {}); the questions already asked would name \
                 other items",
                now.items.file,
                self.items.file,
                self.items.count,
                short_digest(&self.items.sha256),
                now.items.count,
                short_digest(&now.items.sha256)
            )));
        }
        Ok(())
    }
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

    fn study(seed: &str, sha: &str) -> PinnedStudy {
        PinnedStudy {
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
        assert!(study("7", "ab").check_agrees(&study("7", "ab"), p).is_ok());
        let e = study("7", "ab")
            .check_agrees(&study("8", "ab"), p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--seed differs") && e.contains("`7`") && e.contains("`8`"),
            "{e}"
        );
        let e = study("7", "ab")
            .check_agrees(&study("7", "cd"), p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("items file") && e.contains("ab") && e.contains("cd"),
            "{e}"
        );
        let mut extra = study("7", "ab");
        extra.parameters.insert("delta".into(), "2".into());
        let e = study("7", "ab")
            .check_agrees(&extra, p)
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
        assert_eq!(parse::<PinnedStudy>(Path::new("s.toml"), &text).unwrap(), s);
    }

    #[test]
    fn a_broken_large_or_binary_file_is_named_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.toml");
        std::fs::write(&p, "command = \"overlap\"\n\ncompclust = nope\n").unwrap();
        let e = read::<PinnedStudy>(&p).unwrap_err().to_string();
        assert!(
            e.contains("s.toml: not a compclust study file: line 3") && !e.contains('\n'),
            "{e}"
        );
        std::fs::write(&p, vec![b'#'; MAX_STUDY_BYTES as usize + 1]).unwrap();
        let e = read_text(&p).unwrap_err().to_string();
        assert!(e.contains("larger than"), "{e}");
        std::fs::write(&p, [0xff, 0xfe, 0x00]).unwrap();
        let e = read_text(&p).unwrap_err().to_string();
        assert!(e.contains("not a UTF-8 text file"), "{e}");
        let e = read_text(&dir.path().join("missing.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.toml"), "{e}");
    }
}
