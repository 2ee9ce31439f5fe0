//! Item labels ↔ dense indices `0..n`.

use std::collections::HashMap;

use super::{DataError, Location};

/// Maps item labels (any non-empty string) to dense indices `0..n` and back.
///
/// Built either from an items file (fixed universe and order; unknown labels are errors) or
/// growing, numbering items in order of first appearance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemIndex {
    labels: Vec<String>,
    index: HashMap<String, u32>,
    /// `numeric[v]` is the index of the label written `v` in canonical decimal (no sign, no
    /// leading zero), or [`NOT_SEEN`]: the labels of simulated and cblearn-style files are
    /// numbers, and this lookup replaces hashing a string for every field of a large file.
    /// Such labels below [`NUMERIC_CACHE`] live here, every other label in `index`.
    numeric: Vec<u32>,
    fixed: bool,
}

/// Marks a number that is not (yet) a label in [`ItemIndex::numeric`].
const NOT_SEEN: u32 = u32::MAX;
/// Numeric labels at or above this are looked up by hash only (bounds the cache at 16 MB).
const NUMERIC_CACHE: usize = 1 << 22;

/// The value of `label` if it is a canonical decimal below [`NUMERIC_CACHE`] (so that the
/// label can be rebuilt from the value: `"7"` but not `"07"`, `"+7"` or `"7.0"`).
fn canonical_number(label: &str) -> Option<usize> {
    let b = label.as_bytes();
    if b.is_empty() || b.len() > 7 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut v = 0usize;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + usize::from(c - b'0');
    }
    (v < NUMERIC_CACHE).then_some(v)
}

/// Error unless `label` fits on one line: items files, Newick trees and messages are
/// line-oriented, so a label with a line break could not be written back faithfully.
fn check_label(label: &str, at: &Location) -> Result<(), DataError> {
    if label.contains(['\n', '\r']) {
        return Err(DataError::Format {
            at: at.clone(),
            message: format!(
                "item label `{}` contains a line break; labels must fit on one line",
                super::error::quote(label)
            ),
        });
    }
    Ok(())
}

/// Error when `n` items would be beyond [`MAX_ITEMS`](crate::limits::MAX_ITEMS).
fn check_len(n: usize, at: &Location) -> Result<(), DataError> {
    crate::limits::check_items(n as u128).map_err(|limit| DataError::Limit {
        at: at.clone(),
        limit: Box::new(limit),
    })
}

impl ItemIndex {
    /// An empty, growing index: new labels get the next index.
    pub fn growing() -> Self {
        Self::default()
    }

    /// A fixed universe in the given order. Empty labels, labels with a line break and
    /// duplicate labels are errors naming the entry (1-based).
    pub fn fixed(labels: impl IntoIterator<Item = impl Into<String>>) -> Result<Self, DataError> {
        let mut idx = Self::growing();
        for (entry, l) in labels.into_iter().enumerate() {
            let l: String = l.into();
            let l = l.trim().to_string();
            let at = Location::default().field(format!("entry {}", entry + 1));
            if l.is_empty() {
                return Err(DataError::EmptyItem { at });
            }
            check_label(&l, &at)?;
            if idx.lookup(&l).is_some() {
                return Err(DataError::DuplicateItem { at, item: l });
            }
            check_len(idx.len() + 1, &at)?;
            idx.push(l);
        }
        idx.fixed = true;
        Ok(idx)
    }

    /// Items named `0..n` (the labels are the decimal indices).
    pub fn numbered(n: usize) -> Self {
        let mut idx = Self::growing();
        for i in 0..n {
            idx.push(i.to_string());
        }
        idx
    }

    /// [`ItemIndex::numbered`], with an error instead of an allocation when `n` is beyond
    /// [`MAX_ITEMS`](crate::limits::MAX_ITEMS) (for sizes that come from a user).
    pub fn try_numbered(n: usize) -> Result<Self, DataError> {
        check_len(n, &Location::default())?;
        Ok(Self::numbered(n))
    }

    fn push(&mut self, label: String) -> u32 {
        let i = self.labels.len() as u32;
        match canonical_number(&label) {
            Some(v) => {
                if self.numeric.len() <= v {
                    self.numeric.resize(v + 1, NOT_SEEN);
                }
                self.numeric[v] = i;
            }
            None => {
                self.index.insert(label.clone(), i);
            }
        }
        self.labels.push(label);
        i
    }

    /// Index of `label` (trimmed, non-empty), if known.
    fn lookup(&self, label: &str) -> Option<u32> {
        match canonical_number(label) {
            Some(v) => self.numeric.get(v).copied().filter(|&i| i != NOT_SEEN),
            None => self.index.get(label).copied(),
        }
    }

    /// Whether the universe is fixed (from an items file).
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    /// Fix the universe from now on: later unknown labels are errors.
    pub fn freeze(&mut self) {
        self.fixed = true;
    }

    /// Index of `label`, inserting it when the index is growing.
    /// `at` is used for the error when the label is empty or unknown.
    pub fn resolve(&mut self, label: &str, at: &Location) -> Result<u32, DataError> {
        let label = super::records::fast_trim(label);
        if label.is_empty() {
            return Err(DataError::EmptyItem { at: at.clone() });
        }
        if let Some(i) = self.lookup(label) {
            return Ok(i);
        }
        if !self.fixed {
            check_label(label, at)?;
            check_len(self.labels.len() + 1, at)?;
        }
        if self.fixed {
            return Err(DataError::UnknownItem {
                at: at.clone(),
                item: label.to_string(),
                within: "the items file".into(),
            });
        }
        Ok(self.push(label.to_string()))
    }

    /// Index of `label`, if known.
    pub fn get(&self, label: &str) -> Option<u32> {
        self.lookup(label)
    }

    /// Label of index `i`.
    pub fn label(&self, i: usize) -> &str {
        &self.labels[i]
    }

    /// All labels in index order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growing_numbers_in_order_of_first_appearance() {
        let mut idx = ItemIndex::growing();
        let at = Location::default();
        assert_eq!(idx.resolve("b", &at).unwrap(), 0);
        assert_eq!(idx.resolve("a", &at).unwrap(), 1);
        assert_eq!(idx.resolve(" b ", &at).unwrap(), 0);
        assert_eq!(idx.labels(), &["b", "a"]);
    }

    proptest::proptest! {
        /// The numeric cache is invisible: indices agree with numbering by first appearance
        /// through a plain map, for labels mixing canonical numbers, numbers with leading
        /// zeros or signs, large numbers and words.
        #[test]
        fn numeric_cache_agrees_with_a_plain_map(
            picks in proptest::collection::vec((0usize..6, 0u32..40), 1..200)
        ) {
            let label = |(form, v): (usize, u32)| match form {
                0 | 1 => v.to_string(),
                2 => format!("0{v}"),
                3 => format!("+{v}"),
                4 => (v as usize + NUMERIC_CACHE - 20).to_string(),
                _ => format!("item{v}"),
            };
            let mut idx = ItemIndex::growing();
            let mut reference: HashMap<String, u32> = HashMap::new();
            let at = Location::default();
            for p in picks {
                let l = label(p);
                let next = reference.len() as u32;
                let want = *reference.entry(l.clone()).or_insert(next);
                proptest::prop_assert_eq!(idx.resolve(&l, &at).unwrap(), want);
                proptest::prop_assert_eq!(idx.get(&l), Some(want));
            }
            for (l, &i) in &reference {
                proptest::prop_assert_eq!(idx.label(i as usize), l.as_str());
            }
            proptest::prop_assert_eq!(idx.get("999999"), reference.get("999999").copied());
        }
    }

    #[test]
    fn fixed_rejects_unknown_and_empty() {
        let mut idx = ItemIndex::fixed(["x", "y", "lonely"]).unwrap();
        let at = Location::at(None, 3);
        assert!(matches!(
            idx.resolve("z", &at),
            Err(DataError::UnknownItem { .. })
        ));
        assert!(matches!(
            idx.resolve("", &at),
            Err(DataError::EmptyItem { .. })
        ));
        assert_eq!(idx.len(), 3, "listed items exist even if never compared");
        assert!(ItemIndex::fixed(["x", "x"]).is_err());
    }
}
