//! Item fields of every delimited format: labels or integer ids turned into indices, and the
//! checks that a row's items are distinct.

use crate::data::{DataError, ItemIndex, Location, Quadruplet, Triplet};

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

    /// Index of the item field `s`, already trimmed by [`for_each_record`](crate::data::records::for_each_record).
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

/// An integer item id (`s` trimmed): empty, negative and non-integer fields are errors at
/// `at`, and so is an id at or beyond [`MAX_ITEMS`](crate::limits::MAX_ITEMS) (an id defines
/// that many items, and the item table is allocated from it).
fn parse_id(s: &str, at: &Location) -> Result<u32, DataError> {
    if s.is_empty() {
        return Err(DataError::EmptyItem { at: at.clone() });
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DataError::Format {
            at: at.clone(),
            message: format!(
                "`{}` is not an item index (a non-negative integer)",
                crate::data::error::quote(s)
            ),
        });
    }
    let max = crate::limits::MAX_ITEMS;
    match s.parse::<u64>() {
        Ok(i) if i < max as u64 => Ok(i as u32),
        _ => Err(DataError::Format {
            at: at.clone(),
            message: format!(
                "item index {} is beyond the limit of {max} items (see the limits in \
                 docs/FORMATS.md)",
                crate::data::error::quote(s)
            ),
        }),
    }
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

/// Error when the three items `t` (named `names`) form a degenerate triplet
/// ([`Triplet::is_degenerate`]); also used for most-central / odd-one-out rows, whose three
/// items must be distinct for the same reason.
pub(super) fn check_triplet(
    t: [u32; 3],
    names: &[&str],
    ids: &Ids,
    at: &Location,
) -> Result<(), DataError> {
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
pub(super) fn check_quadruplet(q: [u32; 4], ids: &Ids, at: &Location) -> Result<(), DataError> {
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

#[cfg(test)]
mod degenerate_tests {
    //! The readers reject exactly the rows [`Triplet::is_degenerate`] /
    //! [`Quadruplet::is_degenerate`] flag, naming the field that repeats an item.
    use super::*;
    use crate::data::read::{InputFormat, ReadOptions, read_comparisons_from};

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
