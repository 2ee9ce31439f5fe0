//! Delimited text records with 1-based line numbers: delimiter detection and iteration.
//!
//! The comma, semicolon and tab dialects go through the `csv` crate (quoted fields allowed);
//! whitespace-separated files are split by hand. Every field is whitespace-trimmed (the food
//! CSV uses `"; "`) and blank lines are skipped. There are no comment lines: a label may
//! start with `#`.

use std::path::Path;

use super::{DataError, Location};

/// The field separator of a delimited text file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// a tab
    Tab,
    /// runs of spaces
    Whitespace,
}

impl Delimiter {
    /// Guess the delimiter from the first non-blank line: a tab wins, then `;`,
    /// then `,`, then inner whitespace; a single column defaults to `,`.
    pub fn detect(text: &str) -> Delimiter {
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if first.contains('\t') {
            Delimiter::Tab
        } else if first.contains(';') {
            Delimiter::Semicolon
        } else if first.contains(',') {
            Delimiter::Comma
        } else if first.contains(char::is_whitespace) {
            Delimiter::Whitespace
        } else {
            Delimiter::Comma
        }
    }

    /// The separator character (a space for [`Delimiter::Whitespace`]).
    pub fn as_char(self) -> char {
        match self {
            Delimiter::Comma => ',',
            Delimiter::Semicolon => ';',
            Delimiter::Tab => '\t',
            Delimiter::Whitespace => ' ',
        }
    }
}

/// Records with at most this many fields are passed without a heap allocation.
const SHORT_RECORD: usize = 8;

/// Call `f(line, fields)` for every record of `text` (1-based line of the record's start),
/// with every field trimmed. Stops at the first error returned by `f`.
pub(crate) fn for_each_record<F>(
    text: &str,
    delim: Delimiter,
    file: Option<&Path>,
    mut f: F,
) -> Result<(), DataError>
where
    F: FnMut(usize, &[&str]) -> Result<(), DataError>,
{
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match delim {
        Delimiter::Whitespace => {
            let mut fields: Vec<&str> = Vec::new();
            for (i, l) in text.lines().enumerate() {
                let l = l.trim();
                if l.is_empty() {
                    continue;
                }
                fields.clear();
                fields.extend(l.split_whitespace());
                f(i + 1, &fields)?;
            }
            Ok(())
        }
        _ => {
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(delim.as_char() as u8)
                .has_headers(false)
                .flexible(true)
                .from_reader(text.as_bytes());
            let mut rec = csv::StringRecord::new();
            loop {
                match rdr.read_record(&mut rec) {
                    Ok(false) => return Ok(()),
                    Ok(true) => {}
                    Err(e) => {
                        let line = e.position().map_or(0, |p| p.line() as usize);
                        return Err(DataError::Format {
                            at: Location {
                                file: file.map(Path::to_path_buf),
                                line: (line > 0).then_some(line),
                                field: None,
                            },
                            message: format!("malformed delimited text: {e}"),
                        });
                    }
                }
                // Fields are trimmed here, not by the csv reader (its `Trim::All` builds a new
                // record each time). Short records (every comparison format) borrow their
                // fields from a stack array: no allocation per record.
                let mut short = [""; SHORT_RECORD];
                let long: Vec<&str>;
                let fields: &[&str] = if rec.len() <= SHORT_RECORD {
                    for (slot, field) in short.iter_mut().zip(rec.iter()) {
                        *slot = field.trim();
                    }
                    &short[..rec.len()]
                } else {
                    long = rec.iter().map(str::trim).collect();
                    &long
                };
                if fields.iter().all(|f| f.is_empty()) {
                    continue;
                }
                let line = rec.position().map_or(0, |p| {
                    // The csv position is taken before blank lines are skipped: step over them.
                    let bytes = text.as_bytes();
                    let (mut line, mut b) = (p.line() as usize, p.byte() as usize);
                    while b < bytes.len() && (bytes[b] == b'\n' || bytes[b] == b'\r') {
                        if bytes[b] == b'\n' {
                            line += 1;
                        }
                        b += 1;
                    }
                    line
                });
                f(line, fields)?;
            }
        }
    }
}

/// Read a whole file as UTF-8 text, with the path in the error.
pub(crate) fn read_text(path: &Path) -> Result<String, DataError> {
    std::fs::read_to_string(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Read all of `reader` as UTF-8 text; `name` is used in errors.
pub(crate) fn read_all(mut reader: impl std::io::Read, name: &Path) -> Result<String, DataError> {
    let mut s = String::new();
    reader
        .read_to_string(&mut s)
        .map_err(|source| DataError::Io {
            path: name.to_path_buf(),
            source,
        })?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(text: &str) -> Vec<(usize, Vec<String>)> {
        let d = Delimiter::detect(text);
        let mut out = Vec::new();
        for_each_record(text, d, None, |l, f| {
            out.push((l, f.iter().map(|s| s.to_string()).collect()));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn detects_delimiters() {
        assert_eq!(Delimiter::detect("a\tb\tc\n"), Delimiter::Tab);
        assert_eq!(Delimiter::detect("\n\na; b; c\n"), Delimiter::Semicolon);
        assert_eq!(Delimiter::detect("a,b,c"), Delimiter::Comma);
        assert_eq!(Delimiter::detect("a  b c"), Delimiter::Whitespace);
        assert_eq!(Delimiter::detect("abc"), Delimiter::Comma);
    }

    #[test]
    fn line_numbers_skip_blanks_and_trim() {
        let r = collect("x; y; z\n\n   \n1 ;2; 3\n\n\"q;r\";s;t\n");
        assert_eq!(
            r,
            vec![
                (1, vec!["x".into(), "y".into(), "z".into()]),
                (4, vec!["1".into(), "2".into(), "3".into()]),
                (6, vec!["q;r".into(), "s".into(), "t".into()]),
            ]
        );
        let r = collect("a,b\r\n\r\n\r\nc,d\r\ne,f\n\n\ng,h");
        let lines: Vec<usize> = r.iter().map(|x| x.0).collect();
        assert_eq!(lines, vec![1, 4, 5, 8]);
        let r = collect("\n\na,b\n\"x\ny\",z\n\nq,r\n");
        let lines: Vec<usize> = r.iter().map(|x| x.0).collect();
        assert_eq!(lines, vec![3, 4, 7]);
        let w = collect("a b  c\n\nd e f\n");
        assert_eq!(w[1].0, 3);
        assert_eq!(w[1].1, vec!["d", "e", "f"]);
    }
}
