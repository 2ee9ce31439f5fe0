//! cblearn's list formats: `list-order`, `list-boolean` and `list-count`, 0-based index rows
//! (triplets `i,j,k` or quadruplets `i,j,k,l`), the last two with a response column.

use std::path::Path;

use super::InputFormat;
use super::fields::{Ids, check_quadruplet, check_triplet};
use crate::data::{ComparisonKind, Comparisons, DataError, Location, Quadruplet, Triplet};

/// cblearn's list formats hold triplets or quadruplets only.
pub(super) fn check_list_kind(
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

/// The kind of a cblearn list file without `--kind`: four item columns are quadruplets,
/// otherwise triplets (the boolean and count formats carry one more column, the response).
pub(super) fn list_kind(format: InputFormat, fields: &[&str]) -> ComparisonKind {
    let with_response = format != InputFormat::ListOrder;
    if fields.len() - usize::from(with_response) == 4 {
        ComparisonKind::Quadruplets
    } else {
        ComparisonKind::Triplets
    }
}

/// Largest |count| accepted in a `list-count` row (each count unrolls into that many rows).
pub const MAX_COUNT: i64 = crate::limits::MAX_COUNT;

/// The response of a `list-boolean` row: `true`/`1`/`yes`/`t` keeps the row, `false`/`0`/
/// `-1`/`no`/`f` reverses it.
fn list_boolean(r: &str, at: &Location) -> Result<i64, DataError> {
    match r.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "t" => Ok(1),
        "false" | "0" | "no" | "f" | "-1" => Ok(-1),
        _ => Err(DataError::Format {
            at: at.clone().field("response"),
            message: format!(
                "expected a response true/false (or 1/0, -1, yes/no, t/f), got `{}`",
                crate::data::error::quote(r)
            ),
        }),
    }
}

/// The signed count of a `list-count` row, at most [`MAX_COUNT`] in absolute value.
fn list_count(r: &str, at: &Location) -> Result<i64, DataError> {
    let at = || at.clone().field("response");
    let c: i64 = r.parse().map_err(|_| match r.parse::<f64>() {
        // A number, but not an integer count (`1.5`, or beyond 64 bits).
        Ok(_) => DataError::Format {
            at: at(),
            message: format!(
                "expected an integer count, got `{}`",
                crate::data::error::quote(r)
            ),
        },
        Err(_) => DataError::NotANumber {
            at: at(),
            value: r.to_string(),
        },
    })?;
    if c.unsigned_abs() > MAX_COUNT.unsigned_abs() {
        return Err(DataError::Format {
            at: at(),
            message: format!(
                "count {c} is larger than {MAX_COUNT} in absolute value (see the limits in \
                 docs/FORMATS.md)"
            ),
        });
    }
    Ok(c)
}

/// One cblearn list row. Returns `true` when the row was undecided (count 0) and skipped.
pub(super) fn push_list_row(
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
        InputFormat::ListBoolean => list_boolean(fields[arity], at)?,
        _ => list_count(fields[arity], at)?,
    };
    let held = rows.len() as u128 + u128::from(count.unsigned_abs());
    let row_bytes = if arity == 4 { 16 } else { 12 };
    crate::limits::check_rows(held, row_bytes).map_err(|limit| DataError::Limit {
        at: at.clone().field("response"),
        limit: Box::new(limit),
    })?;
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
