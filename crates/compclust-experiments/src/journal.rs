//! The journal of finished trials (`runs.journal` in `--out`): an experiment that can take
//! hours writes each trial's rows there as soon as the trial finishes, so that a run that is
//! stopped (Ctrl-C, a crash, a reboot) loses only the trials in flight. `--resume` reads the
//! journal back and skips every trial it holds; adding seeds with `--seeds` and `--resume`
//! runs only the new ones. The journal is deleted once `runs.csv` of a finished run is written,
//! unless it holds finished trials that run did not write (`--resume` with fewer seeds, or
//! another `--only` or `--shard`): it is their only record, so it stays.
//!
//! Format: JSON lines. Line 1 is `{"experiment": …, "config": …}` (the options that change the
//! trials' results, which a resumed run must match); each further line is one trial,
//! `{"trial": key, "rows": […]}`, written with one `write` and flushed. Values are stored as
//! Rust's shortest round-trip decimal strings, so NaN and infinities survive and the rows read
//! back are bit-identical.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::Row;

/// File name of the journal inside the output folder.
pub const JOURNAL_FILE: &str = "runs.journal";

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Header {
    experiment: String,
    config: String,
}

/// A finished trial: its key and rows.
pub type Finished = (String, Vec<Row>);

#[derive(Serialize, Deserialize)]
struct Entry {
    trial: String,
    rows: Vec<EntryRow>,
}

#[derive(Serialize, Deserialize)]
struct EntryRow {
    method: String,
    params: Vec<(String, String)>,
    seed: u64,
    metric: String,
    value: String,
    time_s: String,
}

impl EntryRow {
    fn of(r: &Row) -> Self {
        EntryRow {
            method: r.method.clone(),
            params: r.params.clone(),
            seed: r.seed,
            metric: r.metric.clone(),
            value: r.value.to_string(),
            time_s: r.time_s.to_string(),
        }
    }

    fn into_row(self) -> Result<Row, String> {
        let num = |field: &str, s: &str| {
            s.parse::<f64>()
                .map_err(|_| format!("field {field:?}: {s:?} is not a number"))
        };
        Ok(Row {
            value: num("value", &self.value)?,
            time_s: num("time_s", &self.time_s)?,
            method: self.method,
            params: self.params,
            seed: self.seed,
            metric: self.metric,
        })
    }
}

/// Finished trials read from an earlier run, and the open journal that new ones are added to.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    done: HashMap<String, Vec<Row>>,
    /// Keys added by [`Journal::import`], and the finished trials a run asked for.
    imported: HashSet<String>,
    reused: Mutex<HashSet<String>>,
}

impl Journal {
    /// Open the journal `path` of `experiment` run with `config`.
    ///
    /// Without `resume`, an existing journal that holds finished trials is an error (it is the
    /// only record of an interrupted run); otherwise a new journal is started. With `resume`,
    /// the journal's trials are read back (its config must equal `config`); an incomplete last
    /// line (the process was killed while writing it) is dropped with a warning, any other bad
    /// line is an error naming the file, line and field.
    pub fn open(path: &Path, experiment: &str, config: &str, resume: bool) -> anyhow::Result<Self> {
        let header = Header {
            experiment: experiment.to_string(),
            config: config.to_string(),
        };
        let mut entries: Vec<Finished> = Vec::new();
        if path.exists() {
            let (found, read) = read_journal(path)?;
            if !resume && !read.is_empty() {
                bail!(
                    "{}: holds {} finished trial(s) of an earlier run that did not finish; pass \
                     --resume to continue it, or delete the file to start over",
                    path.display(),
                    read.len()
                );
            }
            if resume {
                check_header(path, &found, &header)?;
                entries = read;
            }
        } else if resume {
            eprintln!("{}: no journal, so nothing to resume", path.display());
        }
        // Rewrite what was read (drops an incomplete last line), then append to it.
        let mut text = serde_json::to_string(&header)? + "\n";
        for (trial, rows) in &entries {
            text += &entry_line(trial, rows)?;
        }
        compclust::data::write_atomically(path, |w| {
            w.write_all(text.as_bytes())
                .map_err(|source| compclust::data::DataError::Io {
                    path: path.to_path_buf(),
                    source,
                })
        })
        .with_context(|| format!("{}: cannot write the journal", path.display()))?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("{}: cannot open the journal", path.display()))?;
        if !entries.is_empty() {
            eprintln!(
                "{}: resuming, {} trial(s) already done",
                path.display(),
                entries.len()
            );
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            done: entries.into_iter().collect(),
            imported: HashSet::new(),
            reused: Mutex::new(HashSet::new()),
        })
    }

    /// Add finished trials of an earlier run (read from its runs.csv) that the journal does
    /// not hold yet, so that this run reuses them; returns how many were added.
    pub fn import(&mut self, trials: Vec<Finished>) -> anyhow::Result<usize> {
        let mut text = String::new();
        let mut added = Vec::new();
        for (key, rows) in trials {
            if !self.done.contains_key(&key) {
                text += &entry_line(&key, &rows)?;
                added.push((key, rows));
            }
        }
        let mut f = self.file.lock().expect("journal lock not poisoned");
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .with_context(|| format!("{}: cannot append to the journal", self.path.display()))?;
        drop(f);
        let n = added.len();
        for (key, rows) in added {
            self.imported.insert(key.clone());
            self.done.insert(key, rows);
        }
        Ok(n)
    }

    /// How many imported trials no trial of this run asked for (the earlier run had other
    /// options or trials this run does not have).
    pub fn unused_imports(&self) -> usize {
        let reused = self.reused.lock().expect("journal lock not poisoned");
        self.imported.difference(&reused).count()
    }

    /// How many trials read back from the journal (`--resume`, not imported) no trial of this
    /// run asked for: an earlier run with more seeds, or with another `--only` or `--shard`,
    /// finished them, and the journal is their only record.
    pub fn unused_resumed(&self) -> usize {
        let reused = self.reused.lock().expect("journal lock not poisoned");
        self.done
            .keys()
            .filter(|k| !self.imported.contains(*k) && !reused.contains(*k))
            .count()
    }

    /// The rows of trial `key`: from the journal if an earlier run finished it, else from
    /// `run`, whose rows are added to the journal before they are returned.
    pub fn trial(
        &self,
        key: &str,
        run: impl FnOnce() -> anyhow::Result<Vec<Row>>,
    ) -> anyhow::Result<Vec<Row>> {
        if let Some(rows) = self.done.get(key) {
            let mut reused = self.reused.lock().expect("journal lock not poisoned");
            reused.insert(key.to_string());
            return Ok(rows.clone());
        }
        let rows = run()?;
        let line = entry_line(key, &rows)?;
        let mut f = self.file.lock().expect("journal lock not poisoned");
        f.write_all(line.as_bytes())
            .and_then(|()| f.flush())
            .with_context(|| format!("{}: cannot append to the journal", self.path.display()))?;
        Ok(rows)
    }

    /// The finished trials of another run's journal, for `--resume-from` (e.g. a shard that
    /// was stopped before it wrote its runs.csv): its header must name `experiment` and
    /// `config`, as for `--resume`, and an incomplete last line is dropped with a warning.
    pub fn read_finished(
        path: &Path,
        experiment: &str,
        config: &str,
    ) -> anyhow::Result<Vec<Finished>> {
        let (found, trials) = read_journal(path)?;
        let want = Header {
            experiment: experiment.to_string(),
            config: config.to_string(),
        };
        check_header(path, &found, &want)?;
        Ok(trials)
    }

    /// Delete the journal (its run finished and runs.csv holds every row).
    pub fn remove(self) -> anyhow::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
            .with_context(|| format!("{}: cannot delete the journal", self.path.display()))
    }
}

/// A trial's key from its parameters and seed (`name=value` pairs, in order).
pub fn trial_key(params: &[(&str, String)], seed: u64) -> String {
    let mut key: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    key.push(format!("seed={seed}"));
    key.join(" ")
}

fn entry_line(trial: &str, rows: &[Row]) -> anyhow::Result<String> {
    let e = Entry {
        trial: trial.to_string(),
        rows: rows.iter().map(EntryRow::of).collect(),
    };
    Ok(serde_json::to_string(&e)? + "\n")
}

fn check_header(path: &Path, found: &Header, want: &Header) -> anyhow::Result<()> {
    if found.experiment != want.experiment {
        bail!(
            "{}: line 1, field \"experiment\": the journal is of {:?}, not {:?}",
            path.display(),
            found.experiment,
            want.experiment
        );
    }
    if found.config != want.config {
        bail!(
            "{}: line 1, field \"config\": the journal was written with {:?}, this run has {:?}; \
             resume with the same options",
            path.display(),
            found.config,
            want.config
        );
    }
    Ok(())
}

/// The header and the complete trials of a journal file.
fn read_journal(path: &Path) -> anyhow::Result<(Header, Vec<Finished>)> {
    let f = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let lines: Vec<String> = BufReader::new(f)
        .lines()
        .collect::<Result<_, _>>()
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let Some(first) = lines.first() else {
        bail!("{}: line 1: empty journal (no header)", path.display());
    };
    let header: Header = serde_json::from_str(first)
        .with_context(|| format!("{}: line 1: not a journal header", path.display()))?;
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(1) {
        let last = i + 1 == lines.len();
        let parsed = serde_json::from_str::<Entry>(line)
            .map_err(|e| e.to_string())
            .and_then(|e| {
                let rows: Result<Vec<Row>, String> =
                    e.rows.into_iter().map(EntryRow::into_row).collect();
                rows.map(|r| (e.trial, r))
            });
        match parsed {
            Ok(entry) => entries.push(entry),
            Err(e) if last => eprintln!(
                "{}: line {}: incomplete last trial dropped ({e}); it will run again",
                path.display(),
                i + 1
            ),
            Err(e) => bail!("{}: line {}: {e}", path.display(), i + 1),
        }
    }
    Ok((header, entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: f64) -> Vec<Row> {
        vec![
            Row::new("A", &[("p", "2".into())], 1, "ari", v, 0.125),
            Row::new("A", &[("p", "2".into())], 1, "k_hat", f64::NAN, 0.125),
        ]
    }

    #[test]
    fn trials_survive_a_restart_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(JOURNAL_FILE);
        let j = Journal::open(&p, "x", "quick", false).unwrap();
        let r = j.trial("t1", || Ok(rows(0.1 + 0.2))).unwrap();
        drop(j);
        let j = Journal::open(&p, "x", "quick", true).unwrap();
        let again = j.trial("t1", || panic!("t1 is in the journal")).unwrap();
        assert_eq!(again.len(), 2);
        assert_eq!(again[0], r[0]);
        assert_eq!(again[0].value.to_bits(), (0.1f64 + 0.2).to_bits());
        assert!(again[1].value.is_nan());
        let mut ran = false;
        j.trial("t2", || {
            ran = true;
            Ok(rows(1.0))
        })
        .unwrap();
        assert!(ran);
        j.remove().unwrap();
        assert!(!p.exists());
    }

    #[test]
    fn an_unfinished_journal_is_not_overwritten_without_resume() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(JOURNAL_FILE);
        let j = Journal::open(&p, "x", "quick", false).unwrap();
        j.trial("t1", || Ok(rows(0.5))).unwrap();
        drop(j);
        let e = Journal::open(&p, "x", "quick", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("1 finished trial") && e.contains("--resume"),
            "{e}"
        );
        let e = Journal::open(&p, "x", "full", true)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("line 1") && e.contains("config"), "{e}");
        let e = Journal::open(&p, "y", "quick", true)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("line 1") && e.contains("experiment"), "{e}");
        assert!(
            Journal::open(&p, "x", "quick", true)
                .unwrap()
                .done
                .contains_key("t1")
        );
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_a_torn_middle_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(JOURNAL_FILE);
        let j = Journal::open(&p, "x", "c", false).unwrap();
        j.trial("t1", || Ok(rows(0.5))).unwrap();
        j.trial("t2", || Ok(rows(0.25))).unwrap();
        drop(j);
        let full = std::fs::read_to_string(&p).unwrap();
        let torn = &full[..full.len() - 20];
        std::fs::write(&p, torn).unwrap();
        let j = Journal::open(&p, "x", "c", true).unwrap();
        assert!(j.done.contains_key("t1") && !j.done.contains_key("t2"));
        drop(j);
        // The torn line was removed when the journal was reopened.
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 2);
        let mut lines: Vec<&str> = full.lines().collect();
        lines[1] = "{\"trial\": \"t1\", \"rows\": [";
        std::fs::write(&p, lines.join("\n")).unwrap();
        let e = Journal::open(&p, "x", "c", true).err().unwrap().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn keys_name_every_parameter_and_the_seed() {
        let k = trial_key(&[("n", "1000".into()), ("p", "2.5".into())], 3);
        assert_eq!(k, "n=1000 p=2.5 seed=3");
    }
}
