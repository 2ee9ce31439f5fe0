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
    fixed: bool,
}

impl ItemIndex {
    /// An empty, growing index: new labels get the next index.
    pub fn growing() -> Self {
        Self::default()
    }

    /// A fixed universe in the given order. Duplicate or empty labels are errors.
    pub fn fixed(labels: impl IntoIterator<Item = impl Into<String>>) -> Result<Self, DataError> {
        let mut idx = Self::growing();
        for (line, l) in labels.into_iter().enumerate() {
            let l: String = l.into();
            let l = l.trim().to_string();
            let at = Location::at(None, line + 1).field("item");
            if l.is_empty() {
                return Err(DataError::EmptyItem { at });
            }
            if idx.index.contains_key(&l) {
                return Err(DataError::RepeatedItem { at, item: l });
            }
            idx.push(l);
        }
        idx.fixed = true;
        Ok(idx)
    }

    /// Items named `0..n` (the labels are the decimal indices).
    pub fn numbered(n: usize) -> Self {
        let mut idx = Self::fixed((0..n).map(|i| i.to_string())).expect("distinct labels");
        idx.fixed = false;
        idx
    }

    fn push(&mut self, label: String) -> u32 {
        let i = self.labels.len() as u32;
        self.index.insert(label.clone(), i);
        self.labels.push(label);
        i
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
        let label = label.trim();
        if label.is_empty() {
            return Err(DataError::EmptyItem { at: at.clone() });
        }
        if let Some(&i) = self.index.get(label) {
            return Ok(i);
        }
        if self.fixed {
            return Err(DataError::UnknownItem {
                at: at.clone(),
                item: label.to_string(),
            });
        }
        Ok(self.push(label.to_string()))
    }

    /// Index of `label`, if known.
    pub fn get(&self, label: &str) -> Option<u32> {
        self.index.get(label).copied()
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
