//! Errors raised while reading or validating comparison data.

use std::fmt;
use std::path::PathBuf;

/// Longest piece of user text quoted in a message, in characters.
pub const QUOTE_CHARS: usize = 80;

/// `text` for an error message: at most [`QUOTE_CHARS`] characters, line ends and control
/// characters escaped, and a note of how much was left out. A 10 MB line is never echoed.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == QUOTE_CHARS {
            let rest = text.chars().count() - n;
            out.push_str(&format!("… ({rest} more characters)"));
            return out;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Where in a user's input something went wrong: file, 1-based line, and field name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file, when the data came from one.
    pub file: Option<PathBuf>,
    /// 1-based line number (header is line 1 when present).
    pub line: Option<usize>,
    /// Field (column) name or 1-based column number.
    pub field: Option<String>,
}

impl Location {
    /// A location in `file` at 1-based `line`.
    pub fn at(file: Option<&std::path::Path>, line: usize) -> Self {
        Location {
            file: file.map(|p| p.to_path_buf()),
            line: Some(line),
            field: None,
        }
    }

    /// The same location, narrowed to `field`.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(p) = &self.file {
            parts.push(p.display().to_string());
        }
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(fl) = &self.field {
            parts.push(format!("field `{fl}`"));
        }
        if parts.is_empty() {
            write!(f, "<input>")
        } else {
            write!(f, "{}", parts.join(", "))
        }
    }
}

impl DataError {
    /// The location carried by this error, if any.
    pub fn location_mut(&mut self) -> Option<&mut Location> {
        match self {
            DataError::FieldCount { at, .. }
            | DataError::EmptyItem { at }
            | DataError::UnknownItem { at, .. }
            | DataError::RepeatedItem { at, .. }
            | DataError::NotANumber { at, .. }
            | DataError::Empty { at }
            | DataError::Format { at, .. }
            | DataError::DuplicateItem { at, .. }
            | DataError::MissingItem { at, .. }
            | DataError::Limit { at, .. } => Some(at),
            DataError::Io { .. }
            | DataError::Unsupported(_)
            | DataError::IndexOutOfRange { .. } => None,
        }
    }

    /// Names `file` in the location when it does not name one yet. The readers build
    /// locations without the file on the hot path and add it here, once, on the way out.
    pub fn in_file(mut self, file: Option<&std::path::Path>) -> Self {
        if let (Some(at), Some(f)) = (self.location_mut(), file)
            && at.file.is_none()
        {
            at.file = Some(f.to_path_buf());
        }
        self
    }

    /// Says where the item universe of an [`DataError::UnknownItem`] came from (e.g. "the truth
    /// file t.csv" when a second labels file is aligned to a first one).
    pub fn unknown_within(mut self, within: impl Into<String>) -> Self {
        if let DataError::UnknownItem { within: w, .. } = &mut self {
            *w = within.into();
        }
        self
    }

    /// Names `field` in the location when it does not name one yet.
    pub fn in_field(mut self, field: &str) -> Self {
        if let Some(at) = self.location_mut()
            && at.field.is_none()
        {
            at.field = Some(field.to_string());
        }
        self
    }
}

/// Everything that can be wrong with comparison data. Every variant that stems from a user's
/// file carries a [`Location`].
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A row has the wrong number of fields.
    #[error("{at}: expected {expected} fields, found {found}")]
    FieldCount {
        /// Where.
        at: Location,
        /// How many fields the format needs.
        expected: usize,
        /// How many the row has.
        found: usize,
    },
    /// An item label is empty.
    #[error("{at}: empty item label")]
    EmptyItem {
        /// Where.
        at: Location,
    },
    /// An item is not in the items file.
    #[error("{at}: unknown item `{}` (not in {within})", quote(.item))]
    UnknownItem {
        /// Where.
        at: Location,
        /// The label.
        item: String,
        /// Where the known items came from ("the items file" unless said otherwise).
        within: String,
    },
    /// The same item appears twice in one comparison, e.g. `(a, a, b)`.
    #[error("{at}: item `{}` repeated inside one comparison", quote(.item))]
    RepeatedItem {
        /// Where.
        at: Location,
        /// The label.
        item: String,
    },
    /// A value that should be a number is not.
    #[error("{at}: `{}` is not a number", quote(.value))]
    NotANumber {
        /// Where.
        at: Location,
        /// The text found.
        value: String,
    },
    /// The input holds no comparisons.
    #[error("{at}: no comparisons found (empty input)")]
    Empty {
        /// Where.
        at: Location,
    },
    /// The format could not be recognised or is malformed.
    #[error("{at}: {message}")]
    Format {
        /// Where.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// An items, labels or membership file lists the same item twice where that is not
    /// allowed.
    #[error("{at}: item `{}` listed twice", quote(.item))]
    DuplicateItem {
        /// Where.
        at: Location,
        /// The label.
        item: String,
    },
    /// An item of the given index has no row in a labels file.
    #[error("{at}: item `{}` of the items file has no row", quote(.item))]
    MissingItem {
        /// The file.
        at: Location,
        /// The label.
        item: String,
    },
    /// The data cannot be written in the requested format (e.g. same-cluster answers as
    /// cblearn `list-order`).
    #[error("{0}")]
    Unsupported(String),
    /// A size derived from the input is beyond a documented limit ([`crate::limits`]).
    #[error("{at}: {limit}")]
    Limit {
        /// Where.
        at: Location,
        /// The size, the limit and the memory it would need.
        limit: Box<crate::limits::LimitError>,
    },
    /// An item index is out of range for the item universe.
    #[error("item index {index} out of range for {n_items} items")]
    IndexOutOfRange {
        /// The index.
        index: usize,
        /// The number of items.
        n_items: usize,
    },
}
