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
        return Err(DataError::Empty {
            at: Location {
                file: file.map(Path::to_path_buf),
                ..Location::default()
            },
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
/// index order. An item in no cluster gets one row with an empty cluster field, so that it
/// survives a round trip.
pub fn write_membership(path: &Path, items: &ItemIndex, m: &Membership) -> Result<(), DataError> {
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
            cs.iter().map(|c| (l.clone(), c.to_string())).collect()
        }
    });
    write_item_cluster_rows(path, rows)
}

/// Parse `item,cluster` rows: calls `f(line, item, cluster)` (cluster `None` when empty).
fn read_item_cluster_rows(
    path: &Path,
    mut f: impl FnMut(&Location, &str, Option<u32>) -> Result<(), DataError>,
) -> Result<(), DataError> {
    let text = read_text(path)?;
    let mut first = true;
    let mut any = false;
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
                        fields.join(",")
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
            any = true;
            let c = fields[1].trim();
            let cluster = if c.is_empty() {
                None
            } else {
                Some(c.parse::<u32>().map_err(|_| DataError::NotANumber {
                    at: at.clone().field("cluster"),
                    value: c.to_string(),
                })?)
            };
            f(&at, fields[0], cluster)
        },
    )?;
    if !any {
        return Err(DataError::Empty {
            at: Location {
                file: Some(path.to_path_buf()),
                ..Location::default()
            },
        });
    }
    Ok(())
}

/// Read a flat clustering (`item,cluster`, one row per item, clusters non-negative integers).
/// Without `items` the items are numbered in file order; with `items`, the labels are aligned
/// to that index and an unknown item, a repeated item or an item without a row is an error.
pub fn read_labels(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Vec<usize>), DataError> {
    let mut idx = match items {
        Some(i) => {
            let mut i = i.clone();
            i.freeze();
            i
        }
        None => ItemIndex::growing(),
    };
    let mut labels: Vec<Option<usize>> = vec![None; idx.len()];
    read_item_cluster_rows(path, |at, item, cluster| {
        let i = idx.resolve(item, &at.clone().field("item"))? as usize;
        let Some(c) = cluster else {
            return Err(DataError::Format {
                at: at.clone().field("cluster"),
                message: "empty cluster".into(),
            });
        };
        if i >= labels.len() {
            labels.resize(i + 1, None);
        }
        if labels[i].is_some() {
            return Err(DataError::DuplicateItem {
                at: at.clone().field("item"),
                item: item.trim().to_string(),
            });
        }
        labels[i] = Some(c as usize);
        Ok(())
    })?;
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
    Ok((idx, out))
}

/// Read overlapping memberships (`item,cluster`, one row per membership; an empty cluster field
/// lists an item without clusters). Without `items` the items are numbered in order of first
/// appearance; with `items` an unknown item is an error and a listed item without rows has no
/// clusters. The number of clusters is the largest cluster id plus one.
pub fn read_membership(
    path: &Path,
    items: Option<&ItemIndex>,
) -> Result<(ItemIndex, Membership), DataError> {
    let mut idx = match items {
        Some(i) => {
            let mut i = i.clone();
            i.freeze();
            i
        }
        None => ItemIndex::growing(),
    };
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); idx.len()];
    let mut k = 0usize;
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    read_item_cluster_rows(path, |at, item, cluster| {
        let i = idx.resolve(item, &at.clone().field("item"))?;
        if i as usize >= rows.len() {
            rows.resize(i as usize + 1, Vec::new());
        }
        if let Some(c) = cluster {
            if seen.insert((i, c)) {
                rows[i as usize].push(c);
            }
            k = k.max(c as usize + 1);
        }
        Ok(())
    })?;
    idx.freeze();
    Ok((idx, Membership::new(k, rows)))
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
