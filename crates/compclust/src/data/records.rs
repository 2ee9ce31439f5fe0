//! Delimited text records with 1-based line numbers: delimiter detection and iteration.
//!
//! The comma, semicolon and tab dialects go through the `csv` crate (quoted fields allowed);
//! whitespace-separated files are split by hand. Every field is whitespace-trimmed (the food
//! CSV uses `"; "`) and blank lines are skipped. There are no comment lines: a label may
//! start with `#`.

use std::path::{Path, PathBuf};

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
    for_each_record_quoted(text, delim, file, |line, fields, _| f(line, fields))
}

/// [`for_each_record`], also telling `f(line, fields, quoted)` whether the record's first
/// field was in double quotes (a writer quotes a row of items named like the header's fields,
/// so that a reader can tell it from a repeated header).
pub(crate) fn for_each_record_quoted<F>(
    text: &str,
    delim: Delimiter,
    file: Option<&Path>,
    mut f: F,
) -> Result<(), DataError>
where
    F: FnMut(usize, &[&str], bool) -> Result<(), DataError>,
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
                f(i + 1, &fields, false)?;
            }
            Ok(())
        }
        _ if is_plain(text) => {
            plain_records(text, delim.as_char(), |line, fields| f(line, fields, false))
        }
        _ => csv_records(text, delim, file, f),
    }
}

/// Whether `text` has no double quote and no line end other than `\n` and `\r\n`: then every
/// line is one record whose fields lie between delimiters, which is what the csv reader finds
/// too, and [`plain_records`] can split it by hand.
fn is_plain(text: &str) -> bool {
    let b = text.as_bytes();
    !text.contains('"')
        && text
            .match_indices('\r')
            .all(|(i, _)| b.get(i + 1) == Some(&b'\n'))
}

/// [`for_each_record`] for text that [`is_plain`]: lines split at `delim`, fields trimmed,
/// blank records skipped (the csv reader's state machine costs more than the split).
fn plain_records<F>(text: &str, delim: char, mut f: F) -> Result<(), DataError>
where
    F: FnMut(usize, &[&str]) -> Result<(), DataError>,
{
    let d = u8::try_from(delim).expect("comma, semicolon or tab");
    let bytes = text.as_bytes();
    let mut short = [""; SHORT_RECORD];
    // One pass over the bytes: `d` ends a field, `\n` (after an optional `\r`) a record.
    let (mut line_no, mut line_start, mut field_start, mut n) = (1, 0, 0, 0);
    let mut emit = |line_no: usize, line: &str, n: usize, short: &[&str]| {
        let long: Vec<&str>;
        let fields: &[&str] = if n <= SHORT_RECORD {
            &short[..n]
        } else {
            long = line.split(delim).map(fast_trim).collect();
            &long
        };
        if fields.iter().all(|x| x.is_empty()) {
            Ok(())
        } else {
            f(line_no, fields)
        }
    };
    for (j, &b) in bytes.iter().enumerate() {
        if b == d {
            if n < SHORT_RECORD {
                short[n] = fast_trim(&text[field_start..j]);
            }
            n += 1;
            field_start = j + 1;
        } else if b == b'\n' {
            let end = if j > field_start && bytes[j - 1] == b'\r' {
                j - 1
            } else {
                j
            };
            if n < SHORT_RECORD {
                short[n] = fast_trim(&text[field_start..end]);
            }
            emit(line_no, &text[line_start..end], n + 1, &short)?;
            (line_no, line_start, field_start, n) = (line_no + 1, j + 1, j + 1, 0);
        }
    }
    if n < SHORT_RECORD {
        short[n] = fast_trim(&text[field_start..]);
    }
    emit(line_no, &text[line_start..], n + 1, &short)
}

/// `str::trim`, with a shortcut for the common field that starts and ends with a visible
/// ASCII character (nothing to trim).
pub(crate) fn fast_trim(s: &str) -> &str {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(x), Some(y)) if x.is_ascii_graphic() && y.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// [`for_each_record`] through the csv reader (quoted fields, lone `\r` line ends).
fn csv_records<F>(
    text: &str,
    delim: Delimiter,
    file: Option<&Path>,
    mut f: F,
) -> Result<(), DataError>
where
    F: FnMut(usize, &[&str], bool) -> Result<(), DataError>,
{
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
        let bytes = text.as_bytes();
        let (line, start) = rec.position().map_or((0, bytes.len()), |p| {
            // The csv position is taken before blank lines are skipped: step over them.
            let (mut line, mut b) = (p.line() as usize, p.byte() as usize);
            while b < bytes.len() && (bytes[b] == b'\n' || bytes[b] == b'\r') {
                if bytes[b] == b'\n' {
                    line += 1;
                }
                b += 1;
            }
            (line, b)
        });
        let quoted = bytes
            .get(start..)
            .and_then(|rest| rest.iter().find(|&&c| c != b' ' && c != b'\t'))
            == Some(&b'"');
        f(line, fields, quoted)?;
    }
}

/// Bytes read at a time by [`TextChunks`] (a chunk is cut at the last line end of the bytes read
/// that lies outside double quotes).
pub(crate) const CHUNK_BYTES: usize = 16 << 20;

/// A text file read in chunks of whole lines, so that a large comparisons file is parsed
/// without holding all of it in memory: each item is `(text, lines_before)`, the chunk and the
/// number of lines of the file before it (add it to a chunk-relative line number).
///
/// Chunks end after a `\n` at which an even number of `"` has been seen since the start of the
/// file, so a quoted field that spans lines (RFC 4180, doubled quotes inside) is never cut.
/// A file whose quotes never pair up is read as one chunk, as before. The parity assumes that
/// quotes only open and close fields: a stray `"` inside an unquoted field, followed later by a
/// quoted field that spans lines, could put a cut inside that field and split its row in two
/// (comparison files have neither). A `\n` byte is always a character boundary,
/// so each chunk is valid UTF-8 when the file is.
pub(crate) struct TextChunks<R> {
    reader: R,
    name: PathBuf,
    chunk_bytes: usize,
    /// Bytes read and not yet handed out.
    buf: Vec<u8>,
    /// Bytes of `buf` already scanned for a cut, the quote parity there and the last cut.
    scanned: usize,
    in_quotes: bool,
    cut: Option<usize>,
    lines_before: usize,
    eof: bool,
}

impl<R: std::io::Read> TextChunks<R> {
    /// Chunks of about `chunk_bytes` (at least one line each) from `reader`; `name` is used in
    /// I/O and UTF-8 errors.
    pub(crate) fn new(reader: R, name: &Path, chunk_bytes: usize) -> Self {
        TextChunks {
            reader,
            name: name.to_path_buf(),
            chunk_bytes: chunk_bytes.max(1),
            buf: Vec::new(),
            scanned: 0,
            in_quotes: false,
            cut: None,
            lines_before: 0,
            eof: false,
        }
    }

    fn io_error(&self, source: std::io::Error) -> DataError {
        DataError::Io {
            path: self.name.clone(),
            source,
        }
    }

    /// Read up to `chunk_bytes` more bytes (fewer at the end of the file).
    fn fill(&mut self) -> Result<(), DataError> {
        let start = self.buf.len();
        self.buf.resize(start + self.chunk_bytes, 0);
        let mut got = 0;
        while start + got < self.buf.len() {
            match self.reader.read(&mut self.buf[start + got..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
        self.buf.truncate(start + got);
        Ok(())
    }

    /// Scan the new bytes for line ends outside quotes.
    fn scan(&mut self) {
        for (i, &b) in self.buf.iter().enumerate().skip(self.scanned) {
            match b {
                b'"' => self.in_quotes = !self.in_quotes,
                b'\n' if !self.in_quotes => self.cut = Some(i + 1),
                _ => {}
            }
        }
        self.scanned = self.buf.len();
    }

    fn next_chunk(&mut self) -> Result<Option<(String, usize)>, DataError> {
        loop {
            if !self.eof {
                self.fill()?;
                self.scan();
            }
            let end = match self.cut {
                _ if self.eof => self.buf.len(),
                Some(c) => c,
                None => continue,
            };
            if end == 0 {
                return Ok(None);
            }
            let rest = self.buf.split_off(end);
            let bytes = std::mem::replace(&mut self.buf, rest);
            self.scanned -= end;
            self.cut = None;
            let lines_before = self.lines_before;
            self.lines_before += bytes.iter().filter(|&&b| b == b'\n').count();
            let text = decode_utf8(bytes, &self.name, lines_before)?;
            return Ok(Some((text, lines_before)));
        }
    }
}

impl<R: std::io::Read> Iterator for TextChunks<R> {
    type Item = Result<(String, usize), DataError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_chunk().transpose()
    }
}

/// `bytes` as UTF-8 text; otherwise an error naming the file `name` and the line of the first
/// invalid byte (`lines_before` lines of the file precede `bytes`).
pub(crate) fn decode_utf8(
    bytes: Vec<u8>,
    name: &Path,
    lines_before: usize,
) -> Result<String, DataError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let valid = e.utf8_error().valid_up_to();
        let line_start = bytes[..valid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line = lines_before + 1 + bytes[..valid].iter().filter(|&&b| b == b'\n').count();
        DataError::Format {
            at: Location::at(Some(name), line),
            message: format!(
                "not UTF-8 text: byte 0x{:02x} at column {} (save the file as UTF-8)",
                bytes[valid],
                valid - line_start + 1
            ),
        }
    })
}

/// Read a whole file as UTF-8 text, with the path in the error (and the line of the first
/// byte that is not UTF-8).
pub(crate) fn read_text(path: &Path) -> Result<String, DataError> {
    let bytes = std::fs::read(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode_utf8(bytes, path, 0)
}

/// Read all of `reader` as UTF-8 text; `name` is used in errors.
pub(crate) fn read_all(mut reader: impl std::io::Read, name: &Path) -> Result<String, DataError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|source| DataError::Io {
            path: name.to_path_buf(),
            source,
        })?;
    decode_utf8(bytes, name, 0)
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

    type Records = Result<Vec<(usize, Vec<String>)>, String>;

    /// Records of `text` from one of the two splitters, stopping (as the parsers do) at an
    /// error returned on the record with the field `stop`.
    fn run(text: &str, delim: Delimiter, plain: bool) -> Records {
        let mut out = Vec::new();
        let mut f = |l: usize, f: &[&str]| {
            if f.contains(&"stop") {
                return Err(DataError::Empty {
                    at: Location {
                        line: Some(l),
                        ..Location::default()
                    },
                });
            }
            out.push((l, f.iter().map(|s| s.to_string()).collect()));
            Ok(())
        };
        let r = if plain {
            plain_records(text, delim.as_char(), f)
        } else {
            csv_records(text, delim, None, |l, fields, _| f(l, fields))
        };
        r.map_err(|e| e.to_string())?;
        Ok(out)
    }

    proptest::proptest! {
        /// On quote-free text with `\n` / `\r\n` line ends, the hand split gives the csv
        /// reader's records: same fields (trimmed), same line numbers, same blank records
        /// skipped, same stop at an error, for any number of fields.
        #[test]
        fn plain_split_agrees_with_the_csv_reader(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "b7", "12", " x ", "", " ", "\t", ",", ";", "\n", "\r\n", "\n\n", "stop",
                    "é", "#c",
                ]),
                0..80,
            ),
            delim in proptest::sample::select(vec![Delimiter::Comma, Delimiter::Semicolon, Delimiter::Tab]),
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert!(is_plain(&text));
            proptest::prop_assert_eq!(run(&text, delim, true), run(&text, delim, false));
        }
    }

    proptest::proptest! {
        /// The trimming shortcut is `str::trim` (Unicode whitespace included).
        #[test]
        fn fast_trim_is_trim(s in "[ \t\u{a0}\u{3000}a-c#é,]{0,6}") {
            proptest::prop_assert_eq!(fast_trim(&s), s.trim());
        }
    }

    #[test]
    fn quotes_and_lone_carriage_returns_go_to_the_csv_reader() {
        assert!(is_plain("a,b\r\nc,d\n"));
        assert!(!is_plain("a,\"b\"\n"));
        assert!(!is_plain("a,b\rc,d\n"));
        assert!(!is_plain("a,b\r"));
        let lone = collect("anchor,near,far\ra,b,c\r");
        assert_eq!(lone.len(), 2, "{lone:?}");
    }
}
