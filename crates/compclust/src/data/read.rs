//! Reading comparisons from every supported input format (see `docs/FORMATS.md`).
//!
//! Formats: header-detected CSV/TSV (`anchor,near,far`, `a,b,c,d`, `center,x,y`, `odd,x,y`,
//! `a,b,answer`, or headerless with a kind), cblearn `list-order` / `list-boolean` /
//! `list-count` (0-based index rows, as cblearn writes them), salmon `responses.csv`
//! (`head, winner, loser`), the 60-cars survey and preprocessed files (1-based ids,
//! most-central answers, Kleindessner & von Luxburg 2017) and the Food-100 raw JSON
//! (Wilber et al. 2014).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::records::{CHUNK_BYTES, Delimiter, TextChunks, for_each_record, read_all};
use super::{
    ComparisonKind, Comparisons, DataError, Dataset, ItemIndex, Location, Quadruplet, SameCluster,
    Triplet,
};

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
        return super::datasets::read_food_json(path, opts.items.clone());
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
        Some(InputFormat::FoodJson) => {
            super::datasets::parse_food_json(&[(name, text)], opts.items.clone())
        }
        None if looks_json => super::datasets::parse_food_json(&[(name, text)], opts.items.clone()),
        _ => parse_text(&text, Some(&name), opts),
    }
}

/// How item fields are turned into indices.
pub(crate) enum Ids {
    /// Labels through an item index (growing, or fixed from an items file).
    Labels(ItemIndex),
    /// 0-based integer indices (cblearn, salmon); with an items file they index into it.
    ZeroBased {
        items: Option<ItemIndex>,
        max: Option<u32>,
    },
    /// 1-based integer ids (car data); with an items file they are looked up as labels.
    OneBased { items: Option<ItemIndex>, max: u32 },
}

impl Ids {
    pub(crate) fn labels(items: Option<ItemIndex>) -> Self {
        Ids::Labels(items.unwrap_or_else(ItemIndex::growing))
    }

    /// Index of the item field `s`, already trimmed by [`for_each_record`].
    pub(crate) fn resolve(&mut self, s: &str, at: &Location) -> Result<u32, DataError> {
        match self {
            Ids::Labels(idx) => idx.resolve(s, at),
            Ids::ZeroBased { items, max } => {
                let i = parse_id(s, at)?;
                if let Some(items) = items
                    && i as usize >= items.len()
                {
                    return Err(DataError::Format {
                        at: at.clone(),
                        message: format!(
                            "unknown item: index {i} is beyond the {} items of the items file",
                            items.len()
                        ),
                    });
                }
                *max = Some(max.map_or(i, |m| m.max(i)));
                Ok(i)
            }
            Ids::OneBased { items, max } => {
                let i = parse_id(s, at)?;
                if i == 0 {
                    return Err(DataError::Format {
                        at: at.clone(),
                        message: "item id 0 in a file with 1-based ids".into(),
                    });
                }
                if let Some(items) = items {
                    return items.resolve(s, at);
                }
                *max = (*max).max(i);
                Ok(i - 1)
            }
        }
    }

    /// Number of items known so far: every index resolved until now is below it.
    pub(crate) fn n_so_far(&self) -> usize {
        match self {
            Ids::Labels(idx) => idx.len(),
            Ids::ZeroBased { items: Some(i), .. } | Ids::OneBased { items: Some(i), .. } => i.len(),
            Ids::ZeroBased { items: None, max } => max.map_or(0, |m| m as usize + 1),
            Ids::OneBased { items: None, max } => *max as usize,
        }
    }

    pub(crate) fn finish(self) -> ItemIndex {
        match self {
            Ids::Labels(idx) => idx,
            Ids::ZeroBased { items: Some(i), .. } | Ids::OneBased { items: Some(i), .. } => i,
            Ids::ZeroBased { items: None, max } => {
                ItemIndex::numbered(max.map_or(0, |m| m as usize + 1))
            }
            Ids::OneBased { items: None, max } => {
                let mut idx = ItemIndex::growing();
                let at = Location::default();
                for i in 1..=max {
                    idx.resolve(&i.to_string(), &at).expect("distinct labels");
                }
                idx
            }
        }
    }

    /// The label of index `i` so far (for error messages).
    fn label(&self, i: u32) -> String {
        match self {
            Ids::Labels(idx) => idx.label(i as usize).to_string(),
            Ids::ZeroBased { items: Some(x), .. } => x.label(i as usize).to_string(),
            Ids::ZeroBased { items: None, .. } => i.to_string(),
            Ids::OneBased { items: Some(x), .. } => x.label(i as usize).to_string(),
            Ids::OneBased { items: None, .. } => (i + 1).to_string(),
        }
    }
}

/// An integer item id (`s` trimmed): empty and non-numeric fields are errors at `at`.
fn parse_id(s: &str, at: &Location) -> Result<u32, DataError> {
    if s.is_empty() {
        return Err(DataError::EmptyItem { at: at.clone() });
    }
    s.parse().map_err(|_| DataError::NotANumber {
        at: at.clone(),
        value: s.to_string(),
    })
}

/// An empty bag of rows for answers of `kind` (most-central / odd-one-out become triplets).
fn rows_for(kind: ComparisonKind) -> Comparisons {
    match kind {
        ComparisonKind::Quadruplets => Comparisons::Quadruplets(Vec::new()),
        ComparisonKind::SameCluster => Comparisons::SameCluster(Vec::new()),
        _ => Comparisons::Triplets(Vec::new()),
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
        let (data, report) = super::datasets::read_food_json(path, opts.items.clone())?;
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

/// Field names of each kind, as in its CSV header.
pub fn kind_header(kind: ComparisonKind) -> &'static [&'static str] {
    match kind {
        ComparisonKind::Triplets => &["anchor", "near", "far"],
        ComparisonKind::Quadruplets => &["a", "b", "c", "d"],
        ComparisonKind::MostCentral => &["center", "x", "y"],
        ComparisonKind::OddOneOut => &["odd", "x", "y"],
        ComparisonKind::SameCluster => &["a", "b", "answer"],
    }
}

fn header_kind(fields: &[&str]) -> Option<ComparisonKind> {
    let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    ComparisonKind::ALL.into_iter().find(|&k| {
        kind_header(k)
            .iter()
            .copied()
            .eq(lower.iter().map(String::as_str))
    })
}

fn is_salmon_header(fields: &[&str]) -> bool {
    ["head", "winner", "loser"]
        .iter()
        .all(|n| fields.iter().any(|f| f.eq_ignore_ascii_case(n)))
}

fn is_car_survey_header(fields: &[&str]) -> bool {
    fields.len() == 6
        && (fields[0].eq_ignore_ascii_case("survey_round")
            || fields[0].eq_ignore_ascii_case("round"))
        && (fields[1].eq_ignore_ascii_case("chosen_center")
            || fields[1].eq_ignore_ascii_case("chosen"))
}

/// The error for indices `idx` (named `names`) that are not pairwise distinct: it names the
/// first field repeating an earlier one. `None` when they are distinct.
fn repeated_item(idx: &[u32], names: &[&str], ids: &Ids, at: &Location) -> Option<DataError> {
    (1..idx.len())
        .find(|&j| idx[..j].contains(&idx[j]))
        .map(|j| DataError::RepeatedItem {
            at: at.clone().field(names[j]),
            item: ids.label(idx[j]),
        })
}

/// Error unless the indices `idx` (named `names`) are pairwise distinct (same-cluster pairs).
pub(crate) fn check_distinct(
    idx: &[u32],
    names: &[&str],
    ids: &Ids,
    at: &Location,
) -> Result<(), DataError> {
    repeated_item(idx, names, ids, at).map_or(Ok(()), Err)
}

/// Error when the three items `t` (named `names`) form a degenerate triplet
/// ([`Triplet::is_degenerate`]); also used for most-central / odd-one-out rows, whose three
/// items must be distinct for the same reason.
fn check_triplet(t: [u32; 3], names: &[&str], ids: &Ids, at: &Location) -> Result<(), DataError> {
    if !Triplet::new(t[0], t[1], t[2]).is_degenerate() {
        return Ok(());
    }
    Err(
        repeated_item(&t, names, ids, at).unwrap_or_else(|| DataError::RepeatedItem {
            at: at.clone().field(names[2]),
            item: ids.label(t[2]),
        }),
    )
}

/// Error when `q` is a degenerate quadruplet ([`Quadruplet::is_degenerate`]), naming the
/// offending field.
fn check_quadruplet(q: [u32; 4], ids: &Ids, at: &Location) -> Result<(), DataError> {
    if !Quadruplet::new(q[0], q[1], q[2], q[3]).is_degenerate() {
        return Ok(());
    }
    let names = ["a", "b", "c", "d"];
    Err(repeated_item(&q[..2], &names[..2], ids, at)
        .or_else(|| repeated_item(&q[2..], &names[2..], ids, at))
        .unwrap_or_else(|| DataError::RepeatedItem {
            // Both pairs are the same unordered pair.
            at: at.clone().field("c"),
            item: format!("{}` and `{}", ids.label(q[2]), ids.label(q[3])),
        }))
}

/// Parse a same-cluster answer: a finite number, or yes/no/true/false.
pub(crate) fn parse_answer(s: &str, at: &Location) -> Result<f64, DataError> {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "yes" | "true" => return Ok(1.0),
        "no" | "false" => return Ok(0.0),
        _ => {}
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(DataError::NotANumber {
            at: at.clone(),
            value: t.to_string(),
        }),
    }
}

/// Parse one row of a kind whose item fields are resolved by `ids`.
pub(crate) fn push_kind_row(
    kind: ComparisonKind,
    fields: &[&str],
    at: &Location,
    ids: &mut Ids,
    rows: &mut Comparisons,
) -> Result<(), DataError> {
    let names = kind_header(kind);
    if fields.len() != names.len() {
        return Err(DataError::FieldCount {
            at: at.clone(),
            expected: names.len(),
            found: fields.len(),
        });
    }
    let n_items = kind.arity();
    let mut idx = [0u32; 4];
    for j in 0..n_items {
        idx[j] = ids
            .resolve(fields[j], at)
            .map_err(|e| e.in_field(names[j]))?;
    }
    match (kind, rows) {
        (ComparisonKind::Quadruplets, Comparisons::Quadruplets(v)) => {
            check_quadruplet(idx, ids, at)?;
            v.push(Quadruplet::new(idx[0], idx[1], idx[2], idx[3]));
        }
        (ComparisonKind::SameCluster, Comparisons::SameCluster(v)) => {
            check_distinct(&idx[..2], names, ids, at)?;
            let answer = parse_answer(fields[2], at).map_err(|e| e.in_field(names[2]))?;
            v.push(SameCluster {
                a: idx[0],
                b: idx[1],
                answer,
            });
        }
        (k, Comparisons::Triplets(v)) => {
            let [a, b, c] = [idx[0], idx[1], idx[2]];
            check_triplet([a, b, c], names, ids, at)?;
            match k {
                ComparisonKind::MostCentral => v.extend(Triplet::from_most_central(a, b, c)),
                ComparisonKind::OddOneOut => v.extend(Triplet::from_odd_one_out(a, b, c)),
                _ => v.push(Triplet::new(a, b, c)),
            }
        }
        _ => unreachable!("rows are created for their kind"),
    }
    Ok(())
}

/// What the first record decided.
enum Mode {
    Kind(ComparisonKind),
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

fn parse_text(
    text: &str,
    file: Option<&Path>,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport), DataError> {
    parse_chunks(std::iter::once(Ok((text.into(), 0))), file, opts, None)?.into_dataset()
}

/// The result of [`parse_chunks`]: the rows (none when they went to a sink), the items, the
/// kind of the rows, the number of rows, and the report.
struct Parsed {
    items: ItemIndex,
    rows: Comparisons,
    kind: ComparisonKind,
    n_rows: usize,
    report: ReadReport,
}

impl Parsed {
    fn into_dataset(self) -> Result<(Dataset, ReadReport), DataError> {
        let data = Dataset::new(self.items, self.rows)?;
        Ok((data, self.report))
    }
}

/// Parse delimited comparison records given as chunks of whole lines `(text, lines_before)`
/// (one chunk, or [`TextChunks`] of a file). The delimiter is detected on the first chunk
/// with a non-blank line; line numbers in errors are the file's. With a `sink`, the rows of
/// each chunk are handed to it (with the number of items so far) and dropped.
fn parse_chunks<'t>(
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
    let mut n_rows = 0usize;

    let mut record = |line: usize, fields: &[&str]| -> Result<(), DataError> {
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
            Mode::Kind(k) => {
                let r = rows.get_or_insert_with(|| rows_for(*k));
                push_kind_row(*k, fields, &at, ids, r)?;
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
        for_each_record(&text, d, file, |line, fields| {
            record(lines_before + line, fields)
        })
        .map_err(|e| e.in_file(file))?;
        if let (Some(sink), Some(rows)) = (sink.as_mut(), rows_cell.borrow_mut().as_mut()) {
            let n = ids_cell.borrow().as_ref().map_or(0, Ids::n_so_far);
            n_rows += rows.len();
            if !rows.is_empty() {
                sink(Batch::of(rows), n).map_err(|e| e.in_file(file))?;
            }
            rows.clear();
        }
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
    Ok(Parsed {
        items,
        rows,
        kind,
        n_rows,
        report,
    })
}

/// cblearn's list formats hold triplets or quadruplets only.
fn check_list_kind(
    format: InputFormat,
    kind: Option<ComparisonKind>,
    file: Option<&Path>,
) -> Result<(), DataError> {
    let list = matches!(
        format,
        InputFormat::ListOrder | InputFormat::ListBoolean | InputFormat::ListCount
    );
    match kind {
        Some(k) if list && !matches!(k, ComparisonKind::Triplets | ComparisonKind::Quadruplets) => {
            Err(DataError::Format {
                at: Location {
                    file: file.map(Path::to_path_buf),
                    ..Location::default()
                },
                message: format!("cblearn {format} holds triplets or quadruplets, not {k}"),
            })
        }
        _ => Ok(()),
    }
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
            if let Some(k) = header_kind(fields) {
                if let Some(given) = opts.kind
                    && given != k
                {
                    return Err(err(format!(
                        "the header says {k} but the kind given is {given}"
                    )));
                }
                (Mode::Kind(k), true)
            } else if opts.kind.is_none() && is_salmon_header(fields) {
                salmon_mode(fields)
            } else if opts.kind.is_none() && is_car_survey_header(fields) {
                (Mode::CarSurvey, true)
            } else if let Some(k) = opts.kind {
                (Mode::Kind(k), false)
            } else {
                return Err(err(format!(
                    "unrecognised header `{}`; expected `anchor,near,far`, \
                     `a,b,c,d`, `center,x,y`, `odd,x,y` or `a,b,answer` (or a \
                     salmon / car survey header); give the kind of a headerless \
                     file (--kind) or its format (--format)",
                    fields.join(",")
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
        Mode::Kind(k) => (*k, Ids::labels(opts.items.clone()), InputFormat::Csv),
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

/// The kind of a cblearn list file without `--kind`: four item columns are quadruplets,
/// otherwise triplets (the boolean and count formats carry one more column, the response).
fn list_kind(format: InputFormat, fields: &[&str]) -> ComparisonKind {
    let with_response = format != InputFormat::ListOrder;
    if fields.len() - usize::from(with_response) == 4 {
        ComparisonKind::Quadruplets
    } else {
        ComparisonKind::Triplets
    }
}

/// The triplet store of a reader, created on first use.
fn triplet_rows(rows: &mut Option<Comparisons>) -> &mut Comparisons {
    rows.get_or_insert_with(|| Comparisons::Triplets(Vec::new()))
}

/// One record of a salmon `responses.csv`: the triplet (head, winner, loser).
fn push_salmon_row(
    cols: [usize; 3],
    width: usize,
    fields: &[&str],
    at: &Location,
    ids: &mut Ids,
    rows: &mut Comparisons,
) -> Result<(), DataError> {
    if fields.len() != width {
        return Err(DataError::FieldCount {
            at: at.clone(),
            expected: width,
            found: fields.len(),
        });
    }
    let names = ["head", "winner", "loser"];
    let mut t = [0u32; 3];
    for j in 0..3 {
        t[j] = ids
            .resolve(fields[cols[j]], at)
            .map_err(|e| e.in_field(names[j]))?;
    }
    check_triplet(t, &names, ids, at)?;
    if let Comparisons::Triplets(v) = rows {
        v.push(Triplet::new(t[0], t[1], t[2]));
    }
    Ok(())
}

/// One record of the car survey (Perrot et al. 2020, App. F.1): the most central of three images, stored as
/// the two triplets it implies.
fn push_car_survey_row(
    fields: &[&str],
    at: &Location,
    ids: &mut Ids,
    rows: &mut Comparisons,
) -> Result<(), DataError> {
    let names = [
        "survey_round",
        "chosen_center",
        "triplet_object_1",
        "triplet_object_2",
        "triplet_object_3",
        "response_time",
    ];
    if fields.len() != 6 {
        return Err(DataError::FieldCount {
            at: at.clone(),
            expected: 6,
            found: fields.len(),
        });
    }
    let mut t = [0u32; 4];
    for j in 0..4 {
        t[j] = ids
            .resolve(fields[j + 1], at)
            .map_err(|e| e.in_field(names[j + 1]))?;
    }
    check_triplet([t[1], t[2], t[3]], &names[2..5], ids, at)?;
    let others: Vec<u32> = t[1..].iter().copied().filter(|&x| x != t[0]).collect();
    if others.len() != 2 {
        return Err(DataError::Format {
            at: at.clone().field("chosen_center"),
            message: format!("chosen image {} is not one of the three shown", fields[1]),
        });
    }
    if let Comparisons::Triplets(v) = rows {
        v.extend(Triplet::from_most_central(t[0], others[0], others[1]));
    }
    Ok(())
}

fn salmon_mode(fields: &[&str]) -> (Mode, bool) {
    let pos = |n: &str| {
        fields
            .iter()
            .position(|f| f.eq_ignore_ascii_case(n))
            .expect("checked by is_salmon_header")
    };
    (
        Mode::Salmon {
            cols: [pos("head"), pos("winner"), pos("loser")],
            width: fields.len(),
        },
        true,
    )
}

/// Largest |count| accepted in a `list-count` row (each count unrolls into that many rows).
pub const MAX_COUNT: i64 = 1_000_000;

/// One cblearn list row. Returns `true` when the row was undecided (count 0) and skipped.
fn push_list_row(
    format: InputFormat,
    kind: ComparisonKind,
    fields: &[&str],
    at: &Location,
    ids: &mut Ids,
    rows: &mut Comparisons,
) -> Result<bool, DataError> {
    let arity = kind.arity();
    let with_response = format != InputFormat::ListOrder;
    let expected = arity + usize::from(with_response);
    if fields.len() != expected {
        return Err(DataError::FieldCount {
            at: at.clone(),
            expected,
            found: fields.len(),
        });
    }
    let names: Vec<String> = (1..=arity).map(|j| format!("column {j}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut idx = [0u32; 4];
    for j in 0..arity {
        idx[j] = ids
            .resolve(fields[j], at)
            .map_err(|e| e.in_field(names[j]))?;
    }
    let count: i64 = match format {
        InputFormat::ListOrder => 1,
        InputFormat::ListBoolean => {
            let r = fields[arity];
            match r.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "t" => 1,
                "false" | "0" | "no" | "f" | "-1" => -1,
                _ => {
                    return Err(DataError::NotANumber {
                        at: at.clone().field("response"),
                        value: r.to_string(),
                    });
                }
            }
        }
        _ => {
            let r = fields[arity];
            let c: i64 = r.parse().map_err(|_| DataError::NotANumber {
                at: at.clone().field("response"),
                value: r.to_string(),
            })?;
            if c.abs() > MAX_COUNT {
                return Err(DataError::Format {
                    at: at.clone().field("response"),
                    message: format!("count {c} is larger than {MAX_COUNT} in absolute value"),
                });
            }
            c
        }
    };
    match rows {
        Comparisons::Quadruplets(v) => {
            check_quadruplet(idx, ids, at)?;
            if count == 0 {
                return Ok(true);
            }
            let q = if count > 0 {
                Quadruplet::new(idx[0], idx[1], idx[2], idx[3])
            } else {
                Quadruplet::new(idx[2], idx[3], idx[0], idx[1])
            };
            v.extend(std::iter::repeat_n(q, count.unsigned_abs() as usize));
        }
        Comparisons::Triplets(v) => {
            check_triplet([idx[0], idx[1], idx[2]], &names, ids, at)?;
            if count == 0 {
                return Ok(true);
            }
            let t = if count > 0 {
                Triplet::new(idx[0], idx[1], idx[2])
            } else {
                Triplet::new(idx[0], idx[2], idx[1])
            };
            v.extend(std::iter::repeat_n(t, count.unsigned_abs() as usize));
        }
        Comparisons::SameCluster(_) => unreachable!("list formats hold triplets or quadruplets"),
    }
    Ok(false)
}

#[cfg(test)]
mod degenerate_tests {
    //! The readers reject exactly the rows [`Triplet::is_degenerate`] /
    //! [`Quadruplet::is_degenerate`] flag, naming the field that repeats an item.
    use super::*;

    fn err(text: &str, format: Option<InputFormat>) -> String {
        let opts = ReadOptions {
            format,
            ..ReadOptions::default()
        };
        let e = read_comparisons_from(text.as_bytes(), "mem.csv", &opts).unwrap_err();
        assert!(matches!(e, DataError::RepeatedItem { .. }), "{e}");
        e.to_string()
    }

    #[test]
    fn degenerate_rows_are_rejected_at_the_repeating_field() {
        assert!(err("anchor,near,far\na,b,a\n", None).contains("field `far`: item `a`"));
        assert!(err("anchor,near,far\na,a,b\n", None).contains("field `near`: item `a`"));
        assert!(err("a,b,c,d\nx,x,y,z\n", None).contains("field `b`: item `x`"));
        assert!(err("a,b,c,d\nx,y,z,z\n", None).contains("field `d`: item `z`"));
        assert!(err("a,b,c,d\nx,y,y,x\n", None).contains("field `c`: item `y` and `x`"));
        let list = Some(InputFormat::ListOrder);
        assert!(err("0,1,1\n", list).contains("field `column 3`"));
        assert!(err("0,1,1,0\n", list).contains("field `c`"));
        let e = err("2,1,2,3,3,9\n", Some(InputFormat::CarSurvey));
        assert!(e.contains("field `triplet_object_3`"), "{e}");
    }

    #[test]
    fn triplet_as_quadruplet_is_accepted() {
        let d = read_comparisons_from(
            "a,b,c,d\nx,y,x,z\n".as_bytes(),
            "mem.csv",
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(d.comparisons.len(), 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    /// Invalid UTF-8 is an I/O error naming the file, as with a whole-file read.
    #[test]
    fn text_chunks_reject_invalid_utf8() {
        let bytes: &[u8] = b"a,b,c\n\xff\xfe,x,y\n";
        let err = TextChunks::new(bytes, Path::new("bad.csv"), 4)
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("bad.csv") && msg.contains("UTF-8"), "{msg}");
    }
}
