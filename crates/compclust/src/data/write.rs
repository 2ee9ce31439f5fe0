//! Writing comparisons in every output format that makes sense (see `docs/FORMATS.md`).

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::str::FromStr;

use super::labels::write_atomically;
use super::read::kind_header;
use super::{Comparisons, DataError, Dataset};

/// An output file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// Comma-separated with a header per kind (`anchor,near,far`, `a,b,c,d`, `a,b,answer`);
    /// item fields are labels. Most-central / odd-one-out input is written as its triplets.
    Csv,
    /// Like [`OutputFormat::Csv`], tab-separated.
    Tsv,
    /// cblearn `list-order`: headerless 0-based index rows, as answered.
    ListOrder,
    /// cblearn `list-boolean`: one row per answer in cblearn's standard (canonical) order, with
    /// `true` when the answer agrees with the row as written and `false` when it is reversed.
    ListBoolean,
    /// cblearn `list-count`: one row per distinct canonical query with the net signed count
    /// of its answers (0 when contradicting answers cancel).
    ListCount,
}

impl OutputFormat {
    /// All output formats, for help texts.
    pub const ALL: [OutputFormat; 5] = [
        OutputFormat::Csv,
        OutputFormat::Tsv,
        OutputFormat::ListOrder,
        OutputFormat::ListBoolean,
        OutputFormat::ListCount,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Csv => "csv",
            OutputFormat::Tsv => "tsv",
            OutputFormat::ListOrder => "list-order",
            OutputFormat::ListBoolean => "list-boolean",
            OutputFormat::ListCount => "list-count",
        }
    }

    /// The format suggested by a file extension (`.tsv` → tsv, otherwise csv).
    pub fn from_extension(path: &Path) -> OutputFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("tsv") => OutputFormat::Tsv,
            _ => OutputFormat::Csv,
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match s.as_str() {
            "csv" => OutputFormat::Csv,
            "tsv" => OutputFormat::Tsv,
            "list-order" => OutputFormat::ListOrder,
            "list-boolean" => OutputFormat::ListBoolean,
            "list-count" => OutputFormat::ListCount,
            _ => {
                return Err(format!(
                    "unknown output format `{s}`; expected one of csv, tsv, list-order, \
                     list-boolean, list-count"
                ));
            }
        })
    }
}

/// Write `data` to `path` in `format`, atomically (a temporary file renamed into place).
pub fn write_comparisons(
    path: &Path,
    data: &Dataset,
    format: OutputFormat,
) -> Result<(), DataError> {
    check_writable(data, format)?;
    write_atomically(path, |w| write_inner(w, data, format, path))
}

/// Write `data` to any writer in `format`.
pub fn write_comparisons_to(
    w: &mut dyn Write,
    data: &Dataset,
    format: OutputFormat,
) -> Result<(), DataError> {
    check_writable(data, format)?;
    write_inner(w, data, format, Path::new("<output>"))
}

fn check_writable(data: &Dataset, format: OutputFormat) -> Result<(), DataError> {
    if matches!(data.comparisons, Comparisons::SameCluster(_))
        && !matches!(format, OutputFormat::Csv | OutputFormat::Tsv)
    {
        return Err(DataError::Unsupported(format!(
            "same-cluster answers cannot be written as cblearn {format}; use csv or tsv"
        )));
    }
    Ok(())
}

/// A writer shared between the csv writer and the rows written by hand (flush the csv writer
/// first).
struct Shared<'a, 'w>(&'a std::cell::RefCell<&'w mut dyn Write>);

impl Write for Shared<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

fn write_inner(
    w: &mut dyn Write,
    data: &Dataset,
    format: OutputFormat,
    path: &Path,
) -> Result<(), DataError> {
    let err = |e: csv::Error| DataError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let delim = if format == OutputFormat::Tsv {
        b'\t'
    } else {
        b','
    };
    let raw = std::cell::RefCell::new(w);
    let mut c = csv::WriterBuilder::new()
        .has_headers(false)
        .delimiter(delim)
        .flexible(true)
        .from_writer(Shared(&raw));
    let items = &data.items;
    let lab = |i: u32| items.label(i as usize);
    match format {
        OutputFormat::Csv | OutputFormat::Tsv => {
            let header = kind_header(data.comparisons.kind());
            c.write_record(header).map_err(err)?;
            // A row of items named like the header's fields is written with every field
            // quoted: the readers take an unquoted one for a repeated header.
            let mut row = |fields: &[&str]| -> Result<(), DataError> {
                if !looks_like_header(fields, header) {
                    return c.write_record(fields).map_err(err);
                }
                c.flush().map_err(|source| DataError::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
                let sep = if delim == b'\t' { "\t" } else { "," };
                let quoted: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
                writeln!(raw.borrow_mut(), "{}", quoted.join(sep)).map_err(|source| DataError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            };
            match &data.comparisons {
                Comparisons::Triplets(v) => {
                    for t in v {
                        row(&[lab(t.anchor), lab(t.near), lab(t.far)])?;
                    }
                }
                Comparisons::Quadruplets(v) => {
                    for q in v {
                        row(&[lab(q.a), lab(q.b), lab(q.c), lab(q.d)])?;
                    }
                }
                Comparisons::SameCluster(v) => {
                    for s in v {
                        c.write_record([lab(s.a), lab(s.b), &s.answer.to_string()])
                            .map_err(err)?;
                    }
                }
            }
        }
        OutputFormat::ListOrder => match &data.comparisons {
            Comparisons::Triplets(v) => {
                for t in v {
                    c.write_record(t.items().map(|i| i.to_string()))
                        .map_err(err)?;
                }
            }
            Comparisons::Quadruplets(v) => {
                for q in v {
                    c.write_record(q.items().map(|i| i.to_string()))
                        .map_err(err)?;
                }
            }
            Comparisons::SameCluster(_) => unreachable!("checked"),
        },
        OutputFormat::ListBoolean => {
            let b = |s: i8| if s > 0 { "true" } else { "false" };
            match &data.comparisons {
                Comparisons::Triplets(v) => {
                    for t in v {
                        let (k, s) = t.canonical();
                        let mut r: Vec<String> = k.iter().map(|i| i.to_string()).collect();
                        r.push(b(s).into());
                        c.write_record(&r).map_err(err)?;
                    }
                }
                Comparisons::Quadruplets(v) => {
                    for q in v {
                        let (k, s) = q.canonical();
                        let mut r: Vec<String> = k.iter().map(|i| i.to_string()).collect();
                        r.push(b(s).into());
                        c.write_record(&r).map_err(err)?;
                    }
                }
                Comparisons::SameCluster(_) => unreachable!("checked"),
            }
        }
        OutputFormat::ListCount => match &data.comparisons {
            Comparisons::Triplets(_) => {
                let cc = data.comparisons.triplet_counts().expect("triplets");
                for (k, n) in cc.entries {
                    let mut r: Vec<String> = k.iter().map(|i| i.to_string()).collect();
                    r.push(n.to_string());
                    c.write_record(&r).map_err(err)?;
                }
            }
            Comparisons::Quadruplets(_) => {
                let cc = data.comparisons.quadruplet_counts().expect("quadruplets");
                for (k, n) in cc.entries {
                    let mut r: Vec<String> = k.iter().map(|i| i.to_string()).collect();
                    r.push(n.to_string());
                    c.write_record(&r).map_err(err)?;
                }
            }
            Comparisons::SameCluster(_) => unreachable!("checked"),
        },
    }
    c.flush().map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether a row of item labels reads like `header` (the same fields, trimmed, in any case):
/// such a row must be written with its fields quoted, since every reader takes an unquoted one
/// for a repeated header (two files concatenated) and refuses it.
pub fn looks_like_header(fields: &[&str], header: &[&str]) -> bool {
    fields.len() == header.len()
        && fields
            .iter()
            .zip(header)
            .all(|(f, h)| f.trim().eq_ignore_ascii_case(h))
}
