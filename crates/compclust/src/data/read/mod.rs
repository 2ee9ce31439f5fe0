//! Reading comparisons from every supported input format (see `docs/FORMATS.md`).
//!
//! Formats: header-detected CSV/TSV (`anchor,near,far`, `a,b,c,d`, `center,x,y`, `odd,x,y`,
//! `a,b,answer`, or headerless with a kind), cblearn `list-order` / `list-boolean` /
//! `list-count` (0-based index rows), salmon `responses.csv` (`head, winner, loser`), the
//! 60-cars survey and preprocessed files (1-based ids, most-central answers, Kleindessner &
//! von Luxburg 2017) and the Food-100 raw JSON (Wilber et al. 2014).
//!
//! One file per format family: [`csv`] (kind headers and the rows of each kind), [`cblearn`]
//! (index lists with a response), [`salmon`], [`car`] and [`food`]; [`fields`] turns item
//! fields into indices and checks rows; [`parse`] drives the delimited formats chunk by chunk.

mod car;
mod cblearn;
mod csv;
mod fields;
mod food;
mod parse;
mod salmon;

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::records::{CHUNK_BYTES, TextChunks, read_all};
use super::{
    ComparisonKind, Comparisons, DataError, Dataset, ItemIndex, Quadruplet, SameCluster, Triplet,
};

pub use cblearn::MAX_COUNT;
pub use csv::kind_header;
pub use food::food_label;
use parse::{parse_chunks, parse_text};

/// An input file format. [`InputFormat::Csv`] covers every header-detected or `--kind`
/// delimited file (comma, semicolon, tab or whitespace separated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// Delimited text with a kind header (`anchor,near,far`, `a,b,c,d`, `center,x,y`,
    /// `odd,x,y`, `a,b,answer`), or headerless with an explicit kind. Item fields are labels.
    Csv,
    /// cblearn `list-order`: 0-based index rows `i,j,k` or `i,j,k,l`, the row is the answer.
    ListOrder,
    /// cblearn `list-boolean`: index rows plus a `true`/`false` response (false reverses).
    ListBoolean,
    /// cblearn `list-count`: index rows plus a signed count (−1 reverses, 0 undecided is
    /// skipped, |count| > 1 is unrolled into |count| answers).
    ListCount,
    /// salmon `responses.csv`: a header with `head`, `winner`, `loser` among other columns
    /// (0-based target indices); each row is the triplet (head, winner, loser).
    Salmon,
    /// 60-cars `survey_data.csv`: `survey_round,chosen_center,triplet_object_1,
    /// triplet_object_2,triplet_object_3,response_time` with 1-based ids; the chosen image is
    /// the most central of the three (two triplets per row).
    CarSurvey,
    /// 60-cars `ordinal_data_preprocessed/*.csv`: headerless rows `i,j,k`, 1-based, "i is the
    /// most central of {i,j,k}" (two triplets per row).
    CarOrdinal,
    /// Food-100 raw JSON (one file, or a folder of `*.json` files): grid screens give
    /// triplets (probe, near, far) for every near ∈ `near_answer`, far ∈ `images \
    /// near_answer`; catch trials are skipped.
    FoodJson,
}

impl InputFormat {
    /// All input formats, for help texts.
    pub const ALL: [InputFormat; 8] = [
        InputFormat::Csv,
        InputFormat::ListOrder,
        InputFormat::ListBoolean,
        InputFormat::ListCount,
        InputFormat::Salmon,
        InputFormat::CarSurvey,
        InputFormat::CarOrdinal,
        InputFormat::FoodJson,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::ListOrder => "list-order",
            InputFormat::ListBoolean => "list-boolean",
            InputFormat::ListCount => "list-count",
            InputFormat::Salmon => "salmon",
            InputFormat::CarSurvey => "car-survey",
            InputFormat::CarOrdinal => "car-ordinal",
            InputFormat::FoodJson => "food-json",
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match s.as_str() {
            "csv" | "tsv" => InputFormat::Csv,
            "list-order" => InputFormat::ListOrder,
            "list-boolean" => InputFormat::ListBoolean,
            "list-count" => InputFormat::ListCount,
            "salmon" => InputFormat::Salmon,
            "car-survey" => InputFormat::CarSurvey,
            "car-ordinal" => InputFormat::CarOrdinal,
            "food-json" | "food" => InputFormat::FoodJson,
            _ => {
                return Err(format!(
                    "unknown input format `{s}`; expected one of csv, tsv, list-order, \
                     list-boolean, list-count, salmon, car-survey, car-ordinal, food-json"
                ));
            }
        })
    }
}

/// How to read a comparisons file. Everything is optional: the format and kind are detected
/// from the header (or the `.json` extension / a folder for the food data).
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// The kind of a headerless CSV file (or a check against the header).
    pub kind: Option<ComparisonKind>,
    /// Force a format instead of detecting it.
    pub format: Option<InputFormat>,
    /// A fixed item universe (from an items file): unknown items are errors, listed items
    /// without comparisons still exist, and the index order is the file's order.
    pub items: Option<ItemIndex>,
}

/// What a reader saw besides the comparisons: format, kind as written, how many records and
/// what was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadReport {
    /// The format that was read.
    pub format: InputFormat,
    /// The kind of answers as written (most-central / odd-one-out become two triplets).
    pub kind: ComparisonKind,
    /// Number of input records (rows, or grid screens for the food JSON) that gave answers.
    pub records: usize,
    /// `list-count` rows with count 0 (undecided), skipped.
    pub skipped_undecided: usize,
    /// Food JSON catch-trial screens, skipped.
    pub skipped_catch_trials: usize,
    /// Number of files read (more than one for a folder of JSON files).
    pub files: usize,
    /// Distinct workers of a file with a `worker` column (0 without one).
    pub workers: usize,
}

impl ReadReport {
    fn new(format: InputFormat, kind: ComparisonKind) -> Self {
        ReadReport {
            format,
            kind,
            records: 0,
            skipped_undecided: 0,
            skipped_catch_trials: 0,
            files: 1,
            workers: 0,
        }
    }
}

/// Read comparisons from a file (or, for the food JSON, a folder of files).
pub fn read_comparisons(path: &Path, opts: &ReadOptions) -> Result<Dataset, DataError> {
    read_comparisons_with_report(path, opts).map(|(d, _)| d)
}

/// [`read_comparisons`], also returning what was read and skipped.
pub fn read_comparisons_with_report(
    path: &Path,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport), DataError> {
    if is_food_json(path, opts) {
        return food::read_food_json(path, opts.items.clone());
    }
    parse_chunks(file_chunks(path)?, Some(path), opts, None)?.into_dataset()
}

/// Whether `path` is read as the food grid JSON (forced, a folder, or a `.json` file).
fn is_food_json(path: &Path, opts: &ReadOptions) -> bool {
    let is_json = path.is_dir()
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    match opts.format {
        Some(f) => f == InputFormat::FoodJson,
        None => is_json,
    }
}

/// The file at `path` as chunks of whole lines ([`TextChunks`]).
fn file_chunks(
    path: &Path,
) -> Result<impl Iterator<Item = Result<(Cow<'static, str>, usize), DataError>>, DataError> {
    let f = std::fs::File::open(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(TextChunks::new(f, path, CHUNK_BYTES).map(|c| c.map(|(t, l)| (t.into(), l))))
}

/// Read comparisons from any reader (e.g. in memory); `name_for_errors` names it in errors.
pub fn read_comparisons_from(
    reader: impl std::io::Read,
    name_for_errors: &str,
    opts: &ReadOptions,
) -> Result<Dataset, DataError> {
    read_comparisons_from_with_report(reader, name_for_errors, opts).map(|(d, _)| d)
}

/// [`read_comparisons_from`], also returning what was read and skipped.
pub fn read_comparisons_from_with_report(
    reader: impl std::io::Read,
    name_for_errors: &str,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport), DataError> {
    let name = PathBuf::from(name_for_errors);
    let text = read_all(reader, &name)?;
    let looks_json = text.trim_start().starts_with('[');
    match opts.format {
        Some(InputFormat::FoodJson) => food::parse_food_json(&[(name, text)], opts.items.clone()),
        None if looks_json => food::parse_food_json(&[(name, text)], opts.items.clone()),
        _ => parse_text(&text, Some(&name), opts),
    }
}

/// A batch of comparison rows handed to the callback of [`stream_comparisons`].
#[derive(Clone, Copy, Debug)]
pub enum Batch<'a> {
    /// Triplet rows (most-central and odd-one-out records already turned into two each).
    Triplets(&'a [Triplet]),
    /// Quadruplet rows.
    Quadruplets(&'a [Quadruplet]),
    /// Same-cluster answers.
    SameCluster(&'a [SameCluster]),
}

impl<'a> Batch<'a> {
    /// The rows of `c`, borrowed.
    pub fn of(c: &'a Comparisons) -> Self {
        match c {
            Comparisons::Triplets(v) => Batch::Triplets(v),
            Comparisons::Quadruplets(v) => Batch::Quadruplets(v),
            Comparisons::SameCluster(v) => Batch::SameCluster(v),
        }
    }
}

/// What [`stream_comparisons`] read, besides the rows it handed out.
#[derive(Clone, Debug)]
pub struct StreamSummary {
    /// Item labels ↔ indices (every index of every batch is `< items.len()`).
    pub items: ItemIndex,
    /// The kind of the rows handed out (triplets for most-central / odd-one-out files).
    pub kind: ComparisonKind,
    /// Number of rows handed out.
    pub rows: usize,
    /// Format, kind as written, records and skips.
    pub report: ReadReport,
}

/// The callback of the chunked parser: a batch of rows and the number of items known so far.
type Sink<'s> = &'s mut dyn FnMut(Batch<'_>, usize) -> Result<(), DataError>;

/// Read comparisons without holding them: each chunk of the file (16 MB of text) is parsed
/// and its rows are handed to `on_batch` together with the number of items seen so far, then
/// dropped. Memory stays at one chunk whatever the file size, so a similarity accumulator
/// ([`AddS3Accumulator`](crate::similarity::AddS3Accumulator), which can grow its items) can
/// take a file larger than memory. Delimited formats stream; the food JSON is read whole and
/// handed out as one batch. An error from `on_batch` stops the read and is returned.
pub fn stream_comparisons(
    path: &Path,
    opts: &ReadOptions,
    on_batch: &mut dyn FnMut(Batch<'_>, usize) -> Result<(), DataError>,
) -> Result<StreamSummary, DataError> {
    if is_food_json(path, opts) {
        let (data, report) = food::read_food_json(path, opts.items.clone())?;
        let rows = data.comparisons.len();
        on_batch(Batch::of(&data.comparisons), data.n_items())?;
        return Ok(StreamSummary {
            kind: data.comparisons.kind(),
            items: data.items,
            rows,
            report,
        });
    }
    let p = parse_chunks(file_chunks(path)?, Some(path), opts, Some(on_batch))?;
    Ok(StreamSummary {
        kind: p.kind,
        items: p.items,
        rows: p.n_rows,
        report: p.report,
    })
}
