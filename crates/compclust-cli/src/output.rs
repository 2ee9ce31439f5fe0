//! Every file a command writes goes through [`Outputs`], so that a run's outputs are one set:
//! either all of them are replaced, or none is.
//!
//! * **Before any work** each output is checked ([`Outputs::file`], [`Outputs::folder`]): it
//!   is not a folder, its folder exists (or, for an output folder, can be created), it is not
//!   one of the run's inputs (the same path, or the same file through a link), no two outputs
//!   are the same file, and its folder accepts a new file.
//! * **During the run** each output is written to a temporary file next to its target
//!   (`.compclust-<pid>-<n>.<name>`, so the extension that picks a plot format is kept).
//! * **When the run has succeeded** [`Outputs::commit`] renames them all into place. A rename
//!   within one folder does not fail for want of space; should one fail anyway, the targets
//!   already replaced are restored from hard-linked backups. A run that fails, or that returns
//!   before `commit`, removes its temporary files and leaves every earlier output
//!   byte-identical.
//!
//! Special files (`/dev/null`, `/dev/stdout`, a pipe) cannot be renamed over; they are written
//! at commit, after every regular file is in place.
//!
//! The crate's `clippy.toml` forbids the file-writing functions of `std`, of `compclust::data`
//! and of plotters everywhere else, so a command cannot write around this module.
#![allow(clippy::disallowed_methods)]

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, anyhow, bail};
use compclust::data::{Dataset, InputFormat, ItemIndex, OutputFormat};
use compclust::overlap::Membership;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A registered output: the handle a command writes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out(usize);

/// A registered output folder (`--out DIR`): files are added to it with [`Outputs::file_in`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutDir(usize);

#[derive(Debug)]
struct Input {
    flag: String,
    path: PathBuf,
}

#[derive(Debug)]
struct Staged {
    /// The option that named it (`--output`), for messages.
    flag: String,
    /// Where the file goes (a link already resolved to the file it points to).
    target: PathBuf,
    /// What the user wrote, for messages.
    shown: PathBuf,
    /// The temporary file written during the run.
    tmp: PathBuf,
    /// A special file (device, pipe): written at commit, not renamed over.
    special: bool,
    /// Set once the command has written it; unwritten outputs are left alone at commit.
    written: bool,
}

#[derive(Debug)]
struct Folder {
    flag: String,
    path: PathBuf,
    /// The nearest folder that exists now: where the temporary files of the folder's outputs
    /// are written (same file system, so a rename moves them).
    existing: PathBuf,
}

/// The outputs of one run (see the module documentation).
#[derive(Debug, Default)]
pub struct Outputs {
    inputs: Vec<Input>,
    staged: Vec<Staged>,
    folders: Vec<Folder>,
}

/// `.compclust-<pid>-<n>.<name>` in `dir`.
fn temporary_in(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(
        ".compclust-{}-{}.{name}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The folder of `path` (`.` for a bare file name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The OS reason of an I/O error without the `(os error N)` suffix.
pub fn reason(e: &std::io::Error) -> String {
    strip_os_codes(&e.to_string())
}

/// `text` without any ` (os error N)` (the reason is already in words).
pub fn strip_os_codes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" (os error ") {
        let tail = &rest[i + " (os error ".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(')') {
            out.push_str(&rest[..i]);
            rest = &tail[digits + 1..];
        } else {
            out.push_str(&rest[..i + 1]);
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Whether `a` and `b` name the same file: the same device and inode when both exist (links
/// included), otherwise the same absolute path.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (absolute(a), absolute(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `path` made absolute with its existing folder resolved (`a/../b.csv` and `./b.csv` agree).
fn absolute(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    Some(fs::canonicalize(parent_of(path)).ok()?.join(name))
}

/// Whether `dir` lies inside `input` (an input folder).
fn inside(dir: &Path, input: &Path) -> bool {
    match (absolute(dir), fs::canonicalize(input)) {
        (Some(d), Ok(i)) => d.starts_with(i),
        _ => false,
    }
}

impl Outputs {
    /// No inputs, no outputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register an input file of the run (`flag` names its option): no output may be the same
    /// file. A folder is refused by name (the readers would report it as an empty file).
    /// Register every input before the outputs.
    pub fn input(&mut self, flag: &str, path: &Path) -> anyhow::Result<()> {
        if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            bail!("{flag} {}: is a folder; give a file", path.display());
        }
        self.push_input(flag, path);
        Ok(())
    }

    /// [`Outputs::input`] for an optional input.
    pub fn input_opt(&mut self, flag: &str, path: Option<&Path>) -> anyhow::Result<()> {
        path.map_or(Ok(()), |p| self.input(flag, p))
    }

    /// Register a comparisons input: a file, or a folder of Food-100 raw JSON files (the only
    /// format read from a folder). A folder holding no `.json` file, or a folder with another
    /// `--format`, is refused by name.
    pub fn comparisons_input(
        &mut self,
        flag: &str,
        path: &Path,
        format: Option<InputFormat>,
    ) -> anyhow::Result<()> {
        if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            if let Some(f) = format.filter(|&f| f != InputFormat::FoodJson) {
                bail!(
                    "{flag} {}: is a folder; the {f} format is read from a file",
                    path.display()
                );
            }
            let has_json = fs::read_dir(path).is_ok_and(|d| {
                d.flatten().any(|e| {
                    e.path()
                        .extension()
                        .is_some_and(|x| x.eq_ignore_ascii_case("json"))
                })
            });
            if !has_json {
                bail!(
                    "{flag} {}: is a folder without .json files; give a comparisons file (a \
                     folder is read only as Food-100 raw JSON files)",
                    path.display()
                );
            }
        }
        self.push_input(flag, path);
        Ok(())
    }

    fn push_input(&mut self, flag: &str, path: &Path) {
        self.inputs.push(Input {
            flag: flag.into(),
            path: path.to_path_buf(),
        });
    }

    /// Register the output file `path` of option `flag` and check it (module documentation).
    pub fn file(&mut self, flag: &str, path: &Path) -> anyhow::Result<Out> {
        let shown = format!("{flag} {}", path.display());
        if path.as_os_str().is_empty() {
            bail!("{flag}: empty file name");
        }
        let meta = fs::metadata(path).ok();
        if meta.as_ref().is_some_and(fs::Metadata::is_dir) || path.file_name().is_none() {
            bail!("{shown}: is a folder; give a file name (e.g. {flag} results.csv)");
        }
        let dir = parent_of(path);
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => bail!("{shown}: {} is not a folder", dir.display()),
            Err(e) => bail!(
                "{shown}: cannot use the folder {}: {}",
                dir.display(),
                reason(&e)
            ),
        }
        let target = self.checked_target(path, &shown)?;
        let special = meta.as_ref().is_some_and(|m| !m.is_file());
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into());
        let stage_dir = if special {
            std::env::temp_dir()
        } else {
            parent_of(&target)
        };
        let tmp = temporary_in(&stage_dir, &name);
        probe(&tmp).with_context(|| format!("{shown}: cannot write in {}", stage_dir.display()))?;
        Ok(self.push(flag, target, path, tmp, special))
    }

    /// [`Outputs::file`] for an optional output.
    pub fn file_opt(&mut self, flag: &str, path: Option<&Path>) -> anyhow::Result<Option<Out>> {
        path.map(|p| self.file(flag, p)).transpose()
    }

    /// Register the output folder `path` of option `flag` (created at commit when missing):
    /// it must not be a file, and its nearest existing folder must accept new files.
    pub fn folder(&mut self, flag: &str, path: &Path) -> anyhow::Result<OutDir> {
        let shown = format!("{flag} {}", path.display());
        let mut existing = path.to_path_buf();
        loop {
            match fs::metadata(&existing) {
                Ok(m) if m.is_dir() => break,
                Ok(_) => bail!("{shown}: {} exists and is not a folder", existing.display()),
                Err(_) => existing = parent_of(&existing),
            }
            if existing == Path::new(".") && fs::metadata(".").is_err() {
                bail!("{shown}: the current folder cannot be read");
            }
        }
        for i in &self.inputs {
            if same_file(path, &i.path) && fs::metadata(&i.path).is_ok_and(|m| !m.is_dir()) {
                bail!(
                    "{shown}: is the input {} {}, a file",
                    i.flag,
                    i.path.display()
                );
            }
        }
        probe(&temporary_in(&existing, "probe"))
            .with_context(|| format!("{shown}: cannot write in {}", existing.display()))?;
        self.folders.push(Folder {
            flag: flag.into(),
            path: path.to_path_buf(),
            existing,
        });
        Ok(OutDir(self.folders.len() - 1))
    }

    /// Register the file `name` inside the output folder `dir`.
    pub fn file_in(&mut self, dir: OutDir, name: &str) -> anyhow::Result<Out> {
        let f = &self.folders[dir.0];
        let (flag, path, existing) = (f.flag.clone(), f.path.join(name), f.existing.clone());
        if existing == parent_of(&path) {
            return self.file(&flag, &path);
        }
        let shown = format!("{flag} {}", path.display());
        let target = self.checked_target(&path, &shown)?;
        let tmp = temporary_in(&existing, name);
        Ok(self.push(&flag, target, &path, tmp, false))
    }

    /// The target of `path`: a link is followed to the file it names; refused when it is an
    /// input or another output.
    fn checked_target(&self, path: &Path, shown: &str) -> anyhow::Result<PathBuf> {
        for i in &self.inputs {
            if same_file(path, &i.path) {
                bail!(
                    "{shown}: is also the input {} {}; refusing to overwrite an input \
                     (choose another output file)",
                    i.flag,
                    i.path.display()
                );
            }
            if fs::metadata(&i.path).is_ok_and(|m| m.is_dir()) && inside(&parent_of(path), &i.path)
            {
                // Writing into an input folder is fine unless the file is read from it; the
                // readers take `*.json` from a folder.
                if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                {
                    bail!(
                        "{shown}: lies in the input folder {} {}, whose .json files are read; \
                         write it elsewhere",
                        i.flag,
                        i.path.display()
                    );
                }
            }
        }
        for s in &self.staged {
            if same_file(path, &s.target) || same_file(path, &s.shown) {
                bail!(
                    "{shown}: is also the output {} {}; give each output its own file",
                    s.flag,
                    s.shown.display()
                );
            }
        }
        let special = fs::metadata(path).is_ok_and(|m| !m.is_file());
        let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !special {
            return fs::canonicalize(path).map_err(|e| {
                anyhow!(
                    "{shown}: is a link to a file that cannot be reached: {}",
                    reason(&e)
                )
            });
        }
        if let Ok(m) = fs::metadata(path)
            && m.is_file()
            && m.permissions().readonly()
        {
            bail!("{shown}: the file is read-only");
        }
        Ok(path.to_path_buf())
    }

    fn push(
        &mut self,
        flag: &str,
        target: PathBuf,
        shown: &Path,
        tmp: PathBuf,
        special: bool,
    ) -> Out {
        self.staged.push(Staged {
            flag: flag.into(),
            target,
            shown: shown.to_path_buf(),
            tmp,
            special,
            written: false,
        });
        Out(self.staged.len() - 1)
    }

    /// Where `out` will be once committed (for messages such as "wrote …").
    pub fn target(&self, out: Out) -> &Path {
        &self.staged[out.0].shown
    }

    /// Write `out` by calling `f` with the temporary file's path (plots, library writers that
    /// take a path). Errors name the target, not the temporary file.
    pub fn write_path<T>(
        &mut self,
        out: Out,
        f: impl FnOnce(&Path) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let s = &mut self.staged[out.0];
        s.written = true;
        f(&s.tmp).map_err(|e| {
            let text = crate::error_text(&e);
            let tmp = s.tmp.display().to_string();
            anyhow!("{}", text.replace(&tmp, &s.shown.display().to_string()))
        })
    }

    /// Write `out` through a buffered writer.
    pub fn write_with(
        &mut self,
        out: Out,
        f: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.write_path(out, |p| {
            let file = File::create(p)?;
            let mut w = std::io::BufWriter::new(file);
            f(&mut w)?;
            w.flush()?;
            w.get_ref().sync_all()?;
            Ok(())
        })
        .with_context(|| format!("cannot write {}", self.target(out).display()))
    }

    /// Write `out` with the bytes `bytes`.
    pub fn write_bytes(&mut self, out: Out, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
        self.write_with(out, |w| Ok(w.write_all(bytes.as_ref())?))
    }

    /// Write `value` as pretty JSON and a final newline.
    pub fn write_json(&mut self, out: Out, value: &impl serde::Serialize) -> anyhow::Result<()> {
        let mut s = serde_json::to_string_pretty(value)?;
        s.push('\n');
        self.write_bytes(out, s)
    }

    /// Write `value` as one line of JSON and a final newline.
    pub fn write_json_compact(
        &mut self,
        out: Out,
        value: &impl serde::Serialize,
    ) -> anyhow::Result<()> {
        let mut s = serde_json::to_string(value)?;
        s.push('\n');
        self.write_bytes(out, s)
    }

    /// Write flat labels (`item,cluster`) with [`compclust::data::write_labels`].
    pub fn write_labels(
        &mut self,
        out: Out,
        items: &ItemIndex,
        labels: &[usize],
    ) -> anyhow::Result<()> {
        self.write_path(out, |p| {
            Ok(compclust::data::write_labels(p, items, labels)?)
        })
    }

    /// Write an overlapping membership with [`compclust::data::write_membership`].
    pub fn write_membership(
        &mut self,
        out: Out,
        items: &ItemIndex,
        m: &Membership,
    ) -> anyhow::Result<()> {
        self.write_path(out, |p| Ok(compclust::data::write_membership(p, items, m)?))
    }

    /// Write an overlapping membership with its cluster names
    /// ([`compclust::data::write_membership_named`]).
    pub fn write_membership_named(
        &mut self,
        out: Out,
        items: &ItemIndex,
        m: &Membership,
        names: &compclust::data::ClusterNames,
    ) -> anyhow::Result<()> {
        self.write_path(out, |p| {
            Ok(compclust::data::write_membership_named(p, items, m, names)?)
        })
    }

    /// Write an items file with [`compclust::data::write_items`].
    pub fn write_items(&mut self, out: Out, items: &ItemIndex) -> anyhow::Result<()> {
        self.write_path(out, |p| Ok(compclust::data::write_items(p, items)?))
    }

    /// Write comparisons with [`compclust::data::write_comparisons`].
    pub fn write_comparisons(
        &mut self,
        out: Out,
        data: &Dataset,
        format: OutputFormat,
    ) -> anyhow::Result<()> {
        self.write_path(out, |p| {
            Ok(compclust::data::write_comparisons(p, data, format)?)
        })
    }

    /// Move every written output into place (module documentation). Outputs never written
    /// (e.g. a report a run returned before) are left as they were.
    pub fn commit(mut self) -> anyhow::Result<()> {
        for f in &self.folders {
            fs::create_dir_all(&f.path).map_err(|e| {
                anyhow!(
                    "{} {}: cannot create the folder: {}",
                    f.flag,
                    f.path.display(),
                    reason(&e)
                )
            })?;
        }
        let staged = std::mem::take(&mut self.staged);
        let (regular, special): (Vec<_>, Vec<_>) = staged
            .into_iter()
            .filter(|s| s.written)
            .partition(|s| !s.special);
        let result = rename_all(&regular).and_then(|()| copy_specials(&special));
        for s in regular.iter().chain(&special) {
            let _ = fs::remove_file(&s.tmp);
        }
        result
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        for s in &self.staged {
            let _ = fs::remove_file(&s.tmp);
        }
    }
}

/// Create and remove `tmp`: the folder accepts new files.
fn probe(tmp: &Path) -> anyhow::Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(|e| anyhow!("{}", reason(&e)))?;
    let _ = fs::remove_file(tmp);
    Ok(())
}

/// Rename every temporary file over its target; on a failure put back the targets already
/// replaced (from hard-linked backups) and remove the ones that did not exist.
fn rename_all(staged: &[Staged]) -> anyhow::Result<()> {
    let backups: Vec<Option<PathBuf>> = staged
        .iter()
        .map(|s| {
            let b = temporary_in(&parent_of(&s.target), "backup");
            fs::hard_link(&s.target, &b).ok().map(|()| b)
        })
        .collect();
    let mut result = Ok(());
    for (i, s) in staged.iter().enumerate() {
        if let Err(e) = fs::rename(&s.tmp, &s.target) {
            for (t, b) in staged[..i].iter().zip(&backups) {
                let _ = match b {
                    Some(b) => fs::rename(b, &t.target),
                    None => fs::remove_file(&t.target),
                };
            }
            result = Err(anyhow!(
                "{} {}: cannot move the new file into place: {}; no output was replaced",
                s.flag,
                s.shown.display(),
                reason(&e)
            ));
            break;
        }
    }
    for b in backups.iter().flatten() {
        let _ = fs::remove_file(b);
    }
    result
}

/// Copy the temporary files of special targets (devices, pipes) into them.
fn copy_specials(staged: &[Staged]) -> anyhow::Result<()> {
    for s in staged {
        let mut from = File::open(&s.tmp)?;
        let mut to = fs::OpenOptions::new()
            .write(true)
            .open(&s.target)
            .map_err(|e| anyhow!("{} {}: {}", s.flag, s.shown.display(), reason(&e)))?;
        std::io::copy(&mut from, &mut to)
            .map_err(|e| anyhow!("{} {}: {}", s.flag, s.shown.display(), reason(&e)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_codes_are_stripped_once_each() {
        assert_eq!(
            strip_os_codes("a: No such file or directory (os error 2)"),
            "a: No such file or directory"
        );
        assert_eq!(
            strip_os_codes("x (os error y) (os error 13)"),
            "x (os error y)"
        );
    }

    #[test]
    fn nothing_is_replaced_until_commit_and_a_dropped_run_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.json");
        fs::write(&a, "old a").unwrap();
        let mut outs = Outputs::new();
        let oa = outs.file("--output", &a).unwrap();
        let ob = outs.file("--report", &b).unwrap();
        outs.write_bytes(oa, "new a").unwrap();
        outs.write_bytes(ob, "new b").unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        drop(outs);
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert!(!b.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

        let mut outs = Outputs::new();
        let oa = outs.file("--output", &a).unwrap();
        let ob = outs.file("--report", &b).unwrap();
        outs.write_bytes(oa, "new a").unwrap();
        outs.write_bytes(ob, "new b").unwrap();
        outs.commit().unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "new b");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn refuses_inputs_folders_missing_folders_and_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let i = dir.path().join("in.csv");
        fs::write(&i, "x").unwrap();
        let mut outs = Outputs::new();
        outs.input("--input", &i).unwrap();
        let e = outs.file("-o", &i).unwrap_err().to_string();
        assert!(e.contains("is also the input --input"), "{e}");
        let dotted = dir.path().join(".").join("in.csv");
        assert!(outs.file("-o", &dotted).is_err());
        let e = outs.file("-o", dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = outs
            .file("-o", &dir.path().join("nope/x.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot use the folder"), "{e}");
        assert!(!e.contains("os error"), "{e}");
        let o = dir.path().join("o.csv");
        outs.file("-o", &o).unwrap();
        let e = outs.file("--report", &o).unwrap_err().to_string();
        assert!(e.contains("is also the output -o"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_to_the_input_is_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let i = dir.path().join("in.csv");
        fs::write(&i, "x").unwrap();
        let l = dir.path().join("link.csv");
        fs::hard_link(&i, &l).unwrap();
        let mut outs = Outputs::new();
        outs.input("--input", &i).unwrap();
        assert!(outs.file("-o", &l).is_err());
    }

    #[test]
    fn an_output_folder_is_created_at_commit_only() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("new/deeper");
        let mut outs = Outputs::new();
        let d = outs.folder("--out", &sub).unwrap();
        let f = outs.file_in(d, "truth.csv").unwrap();
        outs.write_bytes(f, "t").unwrap();
        assert!(!sub.exists());
        outs.commit().unwrap();
        assert_eq!(fs::read_to_string(sub.join("truth.csv")).unwrap(), "t");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_special_file_is_written_not_replaced() {
        let mut outs = Outputs::new();
        let o = outs.file("--report", Path::new("/dev/null")).unwrap();
        outs.write_bytes(o, "x").unwrap();
        outs.commit().unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}
