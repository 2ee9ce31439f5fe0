//! Items files, flat labels (`item,cluster`), overlapping memberships (one `item,cluster` row
//! per membership) and atomic file writing.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Membership;
use super::records::{Delimiter, for_each_record, read_text};
use super::{DataError, ItemIndex, Location};

static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Write `path` atomically: `f` writes into a temporary file in the same folder, which is
/// renamed over `path` only when `f` succeeds; on any error the temporary file is removed and
/// `path` is left as it was. Usable from any error type that can hold a [`DataError`].
pub fn write_atomically<T, E>(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<DataError>,
{
    let io_err = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let file = File::create(&tmp).map_err(io_err)?;
    let mut w = BufWriter::new(file);
    let result = f(&mut w);
    let finished = match result {
        Ok(v) => w
            .flush()
            .map_err(io_err)
            .and_then(|_| w.get_ref().sync_all().map_err(io_err))
            .map(|_| v),
        Err(e) => {
            drop(w);
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    drop(w);
    match finished {
        Ok(v) => match std::fs::rename(&tmp, path) {
            Ok(()) => Ok(v),
            Err(source) => {
                let _ = std::fs::remove_file(&tmp);
                Err(io_err(source).into())
            }
        },
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.into())
        }
    }
}

/// Read an items file: one label per line (whitespace-trimmed; blank lines skipped). The
/// order of the file is the index order. Empty files and repeated labels are errors.
pub fn read_items(path: &Path) -> Result<ItemIndex, DataError> {
    let text = read_text(path)?;
    read_items_text(&text, Some(path))
}

fn read_items_text(text: &str, file: Option<&Path>) -> Result<ItemIndex, DataError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut idx = ItemIndex::growing();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        let at = Location::at(file, i + 1).field("item");
        if idx.get(l).is_some() {
            return Err(DataError::DuplicateItem {
                at,
                item: l.to_string(),
            });
        }
        idx.resolve(l, &at)?;
    }
    if idx.is_empty() {
        return Err(DataError::Format {
            at: Location {
                file: file.map(Path::to_path_buf),
                ..Location::default()
            },
            message: "no items (an empty items file)".into(),
        });
    }
    idx.freeze();
    Ok(idx)
}

/// Write an items file (one label per line).
pub fn write_items(path: &Path, items: &ItemIndex) -> Result<(), DataError> {
    write_atomically(path, |w| {
        for l in items.labels() {
            writeln!(w, "{l}").map_err(|source| DataError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        }
        Ok(())
    })
}

fn csv_writer(w: &mut dyn Write) -> csv::Writer<&mut dyn Write> {
    csv::WriterBuilder::new().has_headers(false).from_writer(w)
}

fn csv_err(path: &Path, e: csv::Error) -> DataError {
    DataError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

fn write_item_cluster_rows(
    path: &Path,
    rows: impl Iterator<Item = (String, String)>,
) -> Result<(), DataError> {
    write_atomically(path, |w| {
        let mut c = csv_writer(w);
        c.write_record(["item", "cluster"])
            .map_err(|e| csv_err(path, e))?;
        for (i, k) in rows {
            c.write_record([i.as_str(), k.as_str()])
                .map_err(|e| csv_err(path, e))?;
        }
        c.flush().map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Write a flat clustering as `item,cluster` rows (header `item,cluster`), one per item in
/// index order. `labels.len()` must equal `items.len()`.
pub fn write_labels(path: &Path, items: &ItemIndex, labels: &[usize]) -> Result<(), DataError> {
    if labels.len() != items.len() {
        return Err(DataError::Unsupported(format!(
            "{} labels for {} items",
            labels.len(),
            items.len()
        )));
    }
    write_item_cluster_rows(
        path,
        items
            .labels()
            .iter()
            .zip(labels)
            .map(|(i, l)| (i.clone(), l.to_string())),
    )
}

/// Write overlapping memberships: one `item,cluster` row per (item, cluster) pair, items in
/// index order, clusters by number. An item in no cluster gets one row with an empty cluster
/// field, so that it survives a round trip.
pub fn write_membership(path: &Path, items: &ItemIndex, m: &Membership) -> Result<(), DataError> {
    write_membership_named(path, items, m, &ClusterNames::default())
}

/// Cluster names of a labels or membership file and their dense ids.
///
/// Users name clusters (`Drama`, `Sci-Fi`). When every name is a non-negative integer written
/// canonically (`0`, `7`, not `07`) below [`MAX_ITEMS`](crate::limits::MAX_ITEMS), the id
/// is that integer, as before (clusters numbered `0..k`); otherwise the names get ids
/// `0..k` in order of first appearance. Either way `names()[id]` is the name written back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterNames {
    names: Vec<String>,
}

impl ClusterNames {
    /// Names `0..k` (the ids written in decimal).
    pub fn numbered(k: usize) -> Self {
        ClusterNames {
            names: (0..k).map(|c| c.to_string()).collect(),
        }
    }

    /// The name of each cluster id.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The name of cluster `id` (its decimal id when it has none).
    pub fn name(&self, id: usize) -> String {
        self.names
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// Number of cluster ids.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no clusters.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Dense ids for `names` (the cluster fields of a file, `None` for an empty field) by the
    /// rule of [`ClusterNames`].
    fn assign(names: &[Option<&str>]) -> (Vec<Option<u32>>, Self) {
        let numeric = |n: &str| {
            let canonical = !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n == "0" || !n.starts_with('0'));
            canonical
                .then(|| n.parse::<u32>().ok())
                .flatten()
                .filter(|&v| (v as usize) < crate::limits::MAX_ITEMS)
        };
        let all_numeric = names.iter().flatten().all(|n| numeric(n).is_some());
        if all_numeric {
            let ids: Vec<Option<u32>> = names.iter().map(|n| n.and_then(numeric)).collect();
            let k = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
            return (ids, ClusterNames::numbered(k));
        }
        let mut out = ClusterNames::default();
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let ids = names
            .iter()
            .map(|n| {
                n.map(|n| {
                    *index.entry(n).or_insert_with(|| {
                        out.names.push(n.to_string());
                        (out.names.len() - 1) as u32
                    })
                })
            })
            .collect();
        (ids, out)
    }
}

/// One `item,cluster` row: its location, item label and cluster name (`None` when empty).
struct ItemClusterRow {
    at: Location,
    item: String,
    cluster: Option<String>,
}

/// Parse `item,cluster` rows (header `item,cluster`). `what` names the kind of file in the
/// error for a file without rows.
fn read_item_cluster_rows(path: &Path, what: &str) -> Result<Vec<ItemClusterRow>, DataError> {
    let text = read_text(path)?;
    let mut first = true;
    let mut rows = Vec::new();
    for_each_record(
        &text,
        Delimiter::detect(&text),
        Some(path),
        |line, fields| {
            let at = Location::at(Some(path), line);
            if first {
                first = false;
                let h: Vec<String> = fields.iter().map(|s| s.to_ascii_lowercase()).collect();
                if h == ["item", "cluster"] {
                    return Ok(());
                }
                return Err(DataError::Format {
                    at,
                    message: format!(
                        "expected the header `item,cluster`, found `{}`",
                        super::error::quote(&fields.join(","))
                    ),
                });
            }
            if fields.len() != 2 {
                return Err(DataError::FieldCount {
                    at,
                    expected: 2,
                    found: fields.len(),
                });
            }
            let c = fields[1].trim();
            rows.push(ItemClusterRow {
                at,
                item: fields[0].to_string(),
                cluster: (!c.is_empty()).then(|| c.to_string()),
            });
            Ok(())
        },
    )?;
    if rows.is_empty() {
        return Err(DataError::Format {
            at: Location {
                file: Some(path.to_path_buf()),
                ..Location::default()
            },
            message: format!("no `item,cluster` rows (an empty {what} file)"),
        });
    }
    Ok(rows)
}

/// The rows of a labels or membership file, the cluster id of each, and the names.
type NamedRows = (Vec<ItemClusterRow>, Vec<Option<u32>>, ClusterNames);

/// The rows of `path` with dense cluster ids ([`ClusterNames`]).
fn read_named_rows(path: &Path, what: &str) -> Result<NamedRows, DataError> {
    let rows = read_item_cluster_rows(path, what)?;
    let names: Vec<Option<&str>> = rows.iter().map(|r| r.cluster.as_deref()).collect();
    let (ids, names) = ClusterNames::assign(&names);
    Ok((rows, ids, names))
}

fn universe(items: Option<&ItemIndex>) -> ItemIndex {
    match items {
        Some(i) => {
            let mut i = i.clone();
            i.freeze();
            i
        }
        None => ItemIndex::growing(),
    }
}

/// Read a flat clustering (`item,cluster`, one row per item; cluster names as in
/// [`ClusterNames`]). Without `items` the items are numbered in file order; with `items`, the
/// labels are aligned to that index and an unknown item, a repeated item or an item without a
/// row is an error.
pub fn read_labels(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Vec<usize>), DataError> {
    read_labels_named(path, items).map(|(i, l, _)| (i, l))
}

/// [`read_labels`], also returning the cluster names.
pub fn read_labels_named(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Vec<usize>, ClusterNames), DataError> {
    let mut idx = universe(items);
    let (rows, ids, names) = read_named_rows(path, "labels")?;
    let mut labels: Vec<Option<usize>> = vec![None; idx.len()];
    for (r, c) in rows.iter().zip(ids) {
        let i = idx.resolve(&r.item, &r.at.clone().field("item"))? as usize;
        let Some(c) = c else {
            return Err(DataError::Format {
                at: r.at.clone().field("cluster"),
                message: "empty cluster".into(),
            });
        };
        if i >= labels.len() {
            labels.resize(i + 1, None);
        }
        if labels[i].is_some() {
            return Err(DataError::DuplicateItem {
                at: r.at.clone().field("item"),
                item: r.item.trim().to_string(),
            });
        }
        labels[i] = Some(c as usize);
    }
    let mut out = Vec::with_capacity(labels.len());
    for (i, l) in labels.into_iter().enumerate() {
        match l {
            Some(l) => out.push(l),
            None => {
                return Err(DataError::MissingItem {
                    at: Location {
                        file: Some(path.to_path_buf()),
                        ..Location::default()
                    },
                    item: idx.label(i).to_string(),
                });
            }
        }
    }
    idx.freeze();
    Ok((idx, out, names))
}

/// Read overlapping memberships (`item,cluster`, one row per membership; an empty cluster field
/// lists an item without clusters; cluster names as in [`ClusterNames`]). Without `items` the
/// items are numbered in order of first appearance; with `items` an unknown item is an error
/// and a listed item without rows has no clusters.
pub fn read_membership(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Membership), DataError> {
    read_membership_named(path, items).map(|(i, m, _)| (i, m))
}

/// [`read_membership`], also returning the cluster names.
pub fn read_membership_named(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Membership, ClusterNames), DataError> {
    let mut idx = universe(items);
    let (rows, ids, names) = read_named_rows(path, "membership")?;
    let mut member: Vec<Vec<u32>> = vec![Vec::new(); idx.len()];
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    for (r, c) in rows.iter().zip(ids) {
        let i = idx.resolve(&r.item, &r.at.clone().field("item"))?;
        if i as usize >= member.len() {
            member.resize(i as usize + 1, Vec::new());
        }
        if let Some(c) = c
            && seen.insert((i, c))
        {
            member[i as usize].push(c);
        }
    }
    idx.freeze();
    let k = names.len();
    Ok((idx, Membership::new(k, member), names))
}

/// [`write_membership`] with cluster `c` written as `names.name(c)`.
pub fn write_membership_named(
    path: &Path,
    items: &ItemIndex,
    m: &Membership,
    names: &ClusterNames,
) -> Result<(), DataError> {
    if m.n_items() != items.len() {
        return Err(DataError::Unsupported(format!(
            "membership of {} items for {} items",
            m.n_items(),
            items.len()
        )));
    }
    let rows = items.labels().iter().enumerate().flat_map(|(i, l)| {
        let cs = m.clusters_of(i);
        if cs.is_empty() {
            vec![(l.clone(), String::new())]
        } else {
            cs.iter()
                .map(|&c| (l.clone(), names.name(c as usize)))
                .collect()
        }
    });
    write_item_cluster_rows(path, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_nothing_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        std::fs::write(&p, "old").unwrap();
        let r: Result<(), DataError> = write_atomically(&p, |w| {
            w.write_all(b"half").unwrap();
            Err(DataError::Unsupported("boom".into()))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomically::<_, DataError>(&p, |w| {
            w.write_all(b"new").unwrap();
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn items_file_errors_name_the_line() {
        let e = read_items_text("a\nb\n\na\n", Some(Path::new("it.txt"))).unwrap_err();
        assert!(e.to_string().contains("it.txt, line 4"), "{e}");
        assert!(matches!(e, DataError::DuplicateItem { .. }));
        let idx = read_items_text("x\n y \n", None).unwrap();
        assert_eq!(idx.labels(), &["x", "y"]);
        assert!(idx.is_fixed());
        assert!(read_items_text("\n\n", None).is_err());
    }
}
