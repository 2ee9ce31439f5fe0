//! The driver of the delimited formats: records of whole-line chunks, the mode the first
//! record decides (a kind header, a cblearn list, salmon, the car files), and the rows handed
//! to a sink chunk by chunk when streaming.

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::Path;

use super::car::{is_car_survey_header, push_car_survey_row};
use super::cblearn::{check_list_kind, list_kind, push_list_row};
use super::csv::{Extra, header_columns, header_kind, kind_header, push_kind_row};
use super::fields::Ids;
use super::salmon::{is_salmon_header, push_salmon_row, salmon_mode};
use super::{Batch, InputFormat, ReadOptions, ReadReport, Sink};
use crate::data::records::{Delimiter, for_each_record_quoted};
use crate::data::{ComparisonKind, Comparisons, DataError, Dataset, ItemIndex, Location, Workers};

/// An empty bag of rows for answers of `kind` (most-central / odd-one-out become triplets).
fn rows_for(kind: ComparisonKind) -> Comparisons {
    match kind {
        ComparisonKind::Quadruplets => Comparisons::Quadruplets(Vec::new()),
        ComparisonKind::SameCluster => Comparisons::SameCluster(Vec::new()),
        _ => Comparisons::Triplets(Vec::new()),
    }
}

/// A streaming read hands its rows to the sink once it holds this many (12 MB of triplets).
const FLUSH_ROWS: usize = 1 << 20;

/// Error when a record after the first repeats the kind's header (two files concatenated):
/// its fields would otherwise become items named `anchor`, `near`, `far`. A row of items with
/// those names is written quoted (`"anchor","near","far"`) and read as data.
fn check_not_header(kind: ComparisonKind, fields: &[&str], at: &Location) -> Result<(), DataError> {
    let first = kind_header(kind)[0];
    if fields
        .first()
        .is_some_and(|f| f.eq_ignore_ascii_case(first))
        && header_kind(fields) == Some(kind)
    {
        return Err(DataError::Format {
            at: at.clone(),
            message: format!(
                "the header `{}` again (two files concatenated?); remove this line",
                fields.join(",")
            ),
        });
    }
    Ok(())
}

/// Worker labels ↔ ids (in order of first appearance) and the worker of every row read.
#[derive(Default)]
struct WorkerLog {
    ids: std::collections::HashMap<String, u32>,
    workers: Workers,
}

impl WorkerLog {
    /// The id of the worker field `s` (already trimmed); an empty field is an error at `at`.
    fn resolve(&mut self, s: &str, at: &Location) -> Result<u32, DataError> {
        if s.is_empty() {
            return Err(DataError::Format {
                at: at.clone().field("worker"),
                message: "empty worker; name who answered, or drop the worker column".into(),
            });
        }
        if let Some(&w) = self.ids.get(s) {
            return Ok(w);
        }
        let w = self.workers.names.len() as u32;
        self.ids.insert(s.to_string(), w);
        self.workers.names.push(s.to_string());
        Ok(w)
    }
}

/// What the first record decided.
pub(super) enum Mode {
    Kind(ComparisonKind, Extra),
    List {
        format: InputFormat,
        kind: Option<ComparisonKind>,
    },
    Salmon {
        cols: [usize; 3],
        width: usize,
    },
    CarSurvey,
    CarOrdinal,
}

/// The location of a record without the file: cloning it on the hot path allocates nothing;
/// `parse_text` adds the file to an error once, on the way out ([`DataError::in_file`]).
fn loc(line: usize) -> Location {
    Location {
        file: None,
        line: Some(line),
        field: None,
    }
}

pub(super) fn parse_text(
    text: &str,
    file: Option<&Path>,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport), DataError> {
    parse_chunks(std::iter::once(Ok((text.into(), 0))), file, opts, None)?.into_dataset()
}

/// The result of [`parse_chunks`]: the rows (none when they went to a sink), the items, the
/// kind of the rows, the number of rows, and the report.
pub(super) struct Parsed {
    pub(super) items: ItemIndex,
    /// The worker of every row, for a file with a `worker` column read whole.
    pub(super) workers: Option<Workers>,
    pub(super) rows: Comparisons,
    pub(super) kind: ComparisonKind,
    pub(super) n_rows: usize,
    pub(super) report: ReadReport,
}

impl Parsed {
    pub(super) fn into_dataset(self) -> Result<(Dataset, ReadReport), DataError> {
        let mut data = Dataset::new(self.items, self.rows)?;
        if let Some(w) = self.workers {
            data = data.with_workers(w)?;
        }
        Ok((data, self.report))
    }
}

/// Parse delimited comparison records given as chunks of whole lines `(text, lines_before)`
/// (one chunk, or [`TextChunks`](crate::data::records::TextChunks) of a file). The delimiter is detected on the first chunk
/// with a non-blank line; line numbers in errors are the file's. With a `sink`, the rows of
/// each chunk are handed to it (with the number of items so far) and dropped.
pub(super) fn parse_chunks<'t>(
    chunks: impl Iterator<Item = Result<(Cow<'t, str>, usize), DataError>>,
    file: Option<&Path>,
    opts: &ReadOptions,
    mut sink: Option<Sink<'_>>,
) -> Result<Parsed, DataError> {
    let format = opts.format.unwrap_or(InputFormat::Csv);
    check_list_kind(format, opts.kind, file)?;
    let mut mode: Option<Mode> = None;
    // Shared with the loop below, which hands the rows of each chunk to the sink.
    let ids_cell: RefCell<Option<Ids>> = RefCell::new(None);
    let rows_cell: RefCell<Option<Comparisons>> = RefCell::new(None);
    let mut report = ReadReport::new(format, opts.kind.unwrap_or(ComparisonKind::Triplets));
    let streaming = sink.is_some();
    // Rows handed to the sink so far.
    let mut n_rows = 0usize;
    // Workers of a file with a `worker` column (who answered each row, unless streaming).
    let mut workers: Option<WorkerLog> = None;
    // Hand the rows held to the sink once there are at least `min` (never without a sink).
    let mut flush = |min: usize| -> Result<(), DataError> {
        let mut held = rows_cell.borrow_mut();
        let (Some(sink), Some(rows)) = (sink.as_mut(), held.as_mut()) else {
            return Ok(());
        };
        if rows.is_empty() || rows.len() < min {
            return Ok(());
        }
        let n = ids_cell.borrow().as_ref().map_or(0, Ids::n_so_far);
        n_rows += rows.len();
        sink(Batch::of(rows), n).map_err(|e| e.in_file(file))?;
        rows.clear();
        Ok(())
    };

    let mut record = |line: usize, fields: &[&str], quoted: bool| -> Result<(), DataError> {
        let at = loc(line);
        let mut ids = ids_cell.borrow_mut();
        let mut rows = rows_cell.borrow_mut();
        if mode.is_none() {
            // The first record decides the mode; return early when it is a header.
            let (m, header) = first_record_mode(format, fields, opts, &at)?;
            let (kind, id_mode, fmt) = mode_setup(&m, opts);
            report.format = fmt;
            report.kind = kind;
            *ids = Some(id_mode);
            mode = Some(m);
            if header {
                return Ok(());
            }
        }
        let ids = ids.as_mut().expect("set with mode");
        let mode = mode.as_mut().expect("set above");
        match mode {
            Mode::Kind(k, extra) => {
                // A quoted row is data (items named like the header's fields, as the writers
                // quote them), an unquoted one a repeated header.
                if !quoted {
                    check_not_header(*k, fields, &at)?;
                }
                if fields.len() != extra.width {
                    return Err(DataError::FieldCount {
                        at: at.clone(),
                        expected: extra.width,
                        found: fields.len(),
                    });
                }
                let r = rows.get_or_insert_with(|| rows_for(*k));
                let before = r.len();
                push_kind_row(*k, &fields[..kind_header(*k).len()], &at, ids, r)?;
                if let Some(col) = extra.worker {
                    let log = workers.get_or_insert_with(WorkerLog::default);
                    let w = log.resolve(fields[col], &at)?;
                    if !streaming {
                        let added = r.len() - before;
                        log.workers.of_row.extend(std::iter::repeat_n(w, added));
                    }
                }
            }
            Mode::List { format, kind } => {
                let k = *kind.get_or_insert_with(|| list_kind(*format, fields));
                report.kind = k;
                let r = rows.get_or_insert_with(|| rows_for(k));
                let skipped = push_list_row(*format, k, fields, &at, ids, r)?;
                report.skipped_undecided += usize::from(skipped);
                if skipped {
                    return Ok(());
                }
            }
            Mode::Salmon { cols, width } => {
                push_salmon_row(*cols, *width, fields, &at, ids, triplet_rows(&mut rows))?
            }
            Mode::CarSurvey => push_car_survey_row(fields, &at, ids, triplet_rows(&mut rows))?,
            Mode::CarOrdinal => {
                let r = triplet_rows(&mut rows);
                push_kind_row(ComparisonKind::MostCentral, fields, &at, ids, r)?;
            }
        }
        report.records += 1;
        Ok(())
    };
    let mut delim = None;
    for chunk in chunks {
        let (text, lines_before) = chunk?;
        if delim.is_none() && text.trim().is_empty() {
            continue;
        }
        let d = *delim.get_or_insert_with(|| Delimiter::detect(&text));
        for_each_record_quoted(&text, d, file, |line, fields, quoted| {
            record(lines_before + line, fields, quoted)?;
            // `list-count` rows unroll into up to MAX_COUNT rows each: hand them on well
            // before a chunk ends, so that streaming memory stays bounded.
            if streaming {
                flush(FLUSH_ROWS)?;
            }
            Ok(())
        })
        .map_err(|e| e.in_file(file))?;
        flush(1)?;
    }

    let rows = rows_cell.into_inner();
    let n_rows = n_rows + rows.as_ref().map_or(0, Comparisons::len);
    let rows = match rows {
        Some(r) if n_rows > 0 => r,
        _ => {
            return Err(DataError::Empty {
                at: Location {
                    file: file.map(Path::to_path_buf),
                    ..Location::default()
                },
            });
        }
    };
    let kind = rows.kind();
    let items = ids_cell.into_inner().expect("rows imply ids").finish();
    report.workers = workers.as_ref().map_or(0, |w| w.workers.names.len());
    Ok(Parsed {
        items,
        workers: workers.filter(|_| !streaming).map(|w| w.workers),
        rows,
        kind,
        n_rows,
        report,
    })
}

/// Whether a first record is three or four item indices (a headerless cblearn list-order
/// row).
fn is_index_row(fields: &[&str]) -> bool {
    (3..=4).contains(&fields.len())
        && fields
            .iter()
            .all(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// The reading mode that the first record of a file decides, and whether that record is a
/// header (to be skipped).
fn first_record_mode(
    format: InputFormat,
    fields: &[&str],
    opts: &ReadOptions,
    at: &Location,
) -> Result<(Mode, bool), DataError> {
    let err = |message: String| DataError::Format {
        at: at.clone(),
        message,
    };
    Ok(match format {
        InputFormat::Csv => {
            if let Some((k, extra)) = header_columns(fields) {
                if let Some(given) = opts.kind
                    && given != k
                {
                    return Err(err(format!(
                        "the header says {k} but the kind given is {given}"
                    )));
                }
                (Mode::Kind(k, extra), true)
            } else if opts.kind.is_none() && is_salmon_header(fields) {
                salmon_mode(fields)
            } else if opts.kind.is_none() && is_car_survey_header(fields) {
                (Mode::CarSurvey, true)
            } else if let Some(k) = opts.kind {
                (Mode::Kind(k, Extra::fixed(k)), false)
            } else if is_index_row(fields) {
                // A headerless file of item indices: cblearn's list-order (triplets `i,j,k`,
                // quadruplets `i,j,k,l`), the format cblearn's own CSV files have.
                (
                    Mode::List {
                        format: InputFormat::ListOrder,
                        kind: None,
                    },
                    false,
                )
            } else {
                return Err(err(format!(
                    "unrecognised header `{}`; expected `anchor,near,far`, `a,b,c,d`, \
                     `center,x,y`, `odd,x,y` or `a,b,answer` (then `worker`, `time`), a \
                     salmon or car survey header, or 3-4 item indices (cblearn list-order); \
                     for other headerless files give --kind or --format",
                    crate::data::error::quote(&fields.join(","))
                )));
            }
        }
        InputFormat::ListOrder | InputFormat::ListBoolean | InputFormat::ListCount => {
            let header = fields.first().is_some_and(|f| f.parse::<i64>().is_err());
            (
                Mode::List {
                    format,
                    kind: opts.kind,
                },
                header,
            )
        }
        InputFormat::Salmon => {
            if !is_salmon_header(fields) {
                return Err(err("a salmon responses.csv needs a header with `head`, \
                                `winner` and `loser` columns"
                    .into()));
            }
            salmon_mode(fields)
        }
        InputFormat::CarSurvey => (Mode::CarSurvey, is_car_survey_header(fields)),
        InputFormat::CarOrdinal => (Mode::CarOrdinal, false),
        InputFormat::FoodJson => unreachable!("handled by the caller"),
    })
}

/// The comparison kind, item-id scheme and format that a reading mode implies.
fn mode_setup(m: &Mode, opts: &ReadOptions) -> (ComparisonKind, Ids, InputFormat) {
    let zero_based = || Ids::ZeroBased {
        items: opts.items.clone(),
        max: None,
    };
    match m {
        Mode::Kind(k, _) => (*k, Ids::labels(opts.items.clone()), InputFormat::Csv),
        Mode::List { format, kind } => (
            kind.unwrap_or(ComparisonKind::Triplets),
            zero_based(),
            *format,
        ),
        Mode::Salmon { .. } => (ComparisonKind::Triplets, zero_based(), InputFormat::Salmon),
        Mode::CarSurvey | Mode::CarOrdinal => (
            ComparisonKind::MostCentral,
            Ids::OneBased {
                items: opts.items.clone(),
                max: 0,
            },
            if matches!(m, Mode::CarSurvey) {
                InputFormat::CarSurvey
            } else {
                InputFormat::CarOrdinal
            },
        ),
    }
}

/// The triplet store of a reader, created on first use.
fn triplet_rows(rows: &mut Option<Comparisons>) -> &mut Comparisons {
    rows.get_or_insert_with(|| Comparisons::Triplets(Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::read::Batch;
    use crate::data::records::TextChunks;
    use crate::similarity::AddS3Accumulator;
    use faer::Mat;
    use proptest::prelude::*;

    /// A CSV field for `label`, quoted (RFC 4180) when it holds a delimiter, quote or line end.
    fn field(label: &str) -> String {
        if label.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", label.replace('"', "\"\""))
        } else {
            label.to_string()
        }
    }

    /// Labels that exercise quoting: an embedded comma, quote and line end.
    const LABELS: [&str; 7] = ["a", "b", "c d", "x\"y", "two\nlines", "semi,colon", "z"];

    /// A triplet file from `rows` of label indices (`None` = a blank line; a row of two labels
    /// is malformed), with `\n` or `\r\n` line ends.
    fn file_text(rows: &[Option<Vec<usize>>], crlf: bool) -> String {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("anchor,near,far{eol}");
        for row in rows {
            if let Some(r) = row {
                let f: Vec<String> = r.iter().map(|&i| field(LABELS[i])).collect();
                text += &f.join(",");
            }
            text += eol;
        }
        text
    }

    /// A headerless file of three or four indices is cblearn's list-order without
    /// `--format`: the same comparisons as with it; other headerless rows still need a kind.
    #[test]
    fn headerless_indices_read_as_list_order() {
        let read = |text: &str, format: Option<InputFormat>| {
            let opts = ReadOptions {
                format,
                ..ReadOptions::default()
            };
            crate::data::read_comparisons_from_with_report(text.as_bytes(), "mem.csv", &opts)
        };
        for text in ["0,1,2\n3,4,5\n2,0,5\n", "0,1,2,3\n4,5,0,1\n"] {
            let (guessed, report) = read(text, None).unwrap();
            let (given, _) = read(text, Some(InputFormat::ListOrder)).unwrap();
            assert_eq!(report.format, InputFormat::ListOrder);
            assert_eq!(guessed.comparisons, given.comparisons);
            assert_eq!(guessed.items, given.items);
        }
        for text in ["0,1\n", "0,1,x\n", "1,2,3,4,5\n", "0,-1,2\n"] {
            let e = read(text, None).unwrap_err().to_string();
            assert!(e.contains("unrecognised header"), "{text:?}: {e}");
        }
    }

    fn chunked(text: &str, chunk: usize) -> Result<(Dataset, ReadReport), DataError> {
        let name = Path::new("t.csv");
        let chunks = TextChunks::new(text.as_bytes(), name, chunk)
            .map(|c| c.map(|(t, l)| (Cow::Owned(t), l)));
        parse_chunks(chunks, Some(name), &ReadOptions::default(), None)?.into_dataset()
    }

    /// [`chunked`] through a sink: the rows of every chunk go to AddS-3 (grown to the items
    /// known so far) and to a list, checking that every index is below that count.
    fn streamed(text: &str, chunk: usize) -> Result<(Dataset, ReadReport, Mat<f64>), DataError> {
        let name = Path::new("t.csv");
        let chunks = TextChunks::new(text.as_bytes(), name, chunk)
            .map(|c| c.map(|(t, l)| (Cow::Owned(t), l)));
        let mut acc = AddS3Accumulator::new(0).expect("n = 0");
        let mut all = Vec::new();
        let mut sink = |b: Batch<'_>, n: usize| -> Result<(), DataError> {
            let Batch::Triplets(t) = b else {
                panic!("a triplet file")
            };
            assert!(
                t.iter()
                    .all(|r| r.items().iter().all(|&i| (i as usize) < n))
            );
            acc.grow(n).expect("small n");
            acc.add(t).expect("indices < n");
            all.extend_from_slice(t);
            Ok(())
        };
        let p = parse_chunks(chunks, Some(name), &ReadOptions::default(), Some(&mut sink))?;
        assert_eq!(p.n_rows, all.len());
        assert_eq!(p.rows.len(), 0, "a sink takes every row");
        acc.grow(p.items.len()).expect("small n");
        let data = Dataset::new(p.items, Comparisons::Triplets(all))?;
        Ok((data, p.report, acc.finish()))
    }

    proptest! {
        /// Reading a file in chunks of whole lines (any chunk size) gives the same dataset and
        /// report as parsing the whole text, and the same error, line number included.
        #[test]
        fn chunked_parse_agrees_with_whole_text(
            rows in proptest::collection::vec(
                (0u8..40, proptest::array::uniform3(0usize..LABELS.len())).prop_map(|(kind, r)| {
                    // mostly triplets; some blank lines; rarely a malformed two-field row
                    match kind {
                        0..=3 => None,
                        4 => Some(r[..2].to_vec()),
                        _ => Some(r.to_vec()),
                    }
                }),
                1..40,
            ),
            crlf in any::<bool>(),
            chunk in 1usize..64,
        ) {
            let text = file_text(&rows, crlf);
            let whole = parse_text(&text, Some(Path::new("t.csv")), &ReadOptions::default());
            let parts = chunked(&text, chunk);
            let stream = streamed(&text, chunk);
            match (&whole, parts) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, &b),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "whole {:?} vs chunked {:?}", a.as_ref().map(|x| &x.1), b.map(|x| x.1)),
            }
            // Streaming the rows to a sink gives the same rows, items, report and AddS-3.
            match (whole, stream) {
                (Ok(a), Ok((d, r, s))) => {
                    let n = a.0.n_items();
                    let Comparisons::Triplets(t) = &a.0.comparisons else { panic!("triplets") };
                    prop_assert_eq!(s, crate::similarity::adds3(n, t).unwrap());
                    prop_assert_eq!(a, (d, r));
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "whole {:?} vs streamed {:?}", a.map(|x| x.1), b.map(|x| x.1)),
            }
        }
    }

    /// Chunks end at line ends outside quotes, cover the text exactly and count the lines
    /// before them.
    #[test]
    fn text_chunks_cut_whole_lines_outside_quotes() {
        let text = "h,x\n\"a\nb\",c\n\nd,e\r\nlast";
        for size in 1..=text.len() + 1 {
            let chunks: Vec<(String, usize)> =
                TextChunks::new(text.as_bytes(), Path::new("t"), size)
                    .collect::<Result<_, _>>()
                    .unwrap();
            assert_eq!(chunks.concat_text(), text, "size {size}");
            let mut lines = 0;
            for (c, before) in &chunks {
                assert_eq!(*before, lines);
                lines += c.matches('\n').count();
                assert_eq!(
                    c.matches('"').count() % 2,
                    0,
                    "cut inside quotes at size {size}"
                );
            }
            for (c, _) in &chunks[..chunks.len() - 1] {
                assert!(c.ends_with('\n'), "size {size}: {c:?}");
            }
        }
    }

    trait ConcatText {
        fn concat_text(&self) -> String;
    }
    impl ConcatText for Vec<(String, usize)> {
        fn concat_text(&self) -> String {
            self.iter().map(|(c, _)| c.as_str()).collect()
        }
    }

    /// Invalid UTF-8 is an error naming the file and its line, as with a whole-file read.
    #[test]
    fn text_chunks_reject_invalid_utf8() {
        let bytes: &[u8] = b"a,b,c\n\xff\xfe,x,y\n";
        let err = TextChunks::new(bytes, Path::new("bad.csv"), 4)
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("bad.csv") && msg.contains("UTF-8"), "{msg}");
        assert!(msg.contains("line 2"), "{msg}");
        assert_eq!(msg.matches("not UTF-8").count(), 1, "said once: {msg}");
    }
}
