//! The header-detected CSV/TSV format: one row per answer of a kind (`anchor,near,far`,
//! `a,b,c,d`, `center,x,y`, `odd,x,y`, `a,b,answer`); item fields are labels.

use super::fields::{Ids, check_quadruplet, check_triplet};
use crate::data::{
    ComparisonKind, Comparisons, DataError, Location, Quadruplet, SameCluster, Triplet,
};

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

pub(super) fn header_kind(fields: &[&str]) -> Option<ComparisonKind> {
    header_columns(fields).map(|(k, _)| k)
}

/// The optional columns after a kind's required ones: `worker` (who answered) and `time`
/// (when; kept for the researcher, not used), in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Extra {
    /// Column of the worker, if any.
    pub(crate) worker: Option<usize>,
    /// Column of the time, if any.
    pub(crate) time: Option<usize>,
    /// Number of columns of a row.
    pub(crate) width: usize,
}

impl Extra {
    /// No optional column: the rows of a headerless file of `kind`.
    pub(crate) fn fixed(kind: ComparisonKind) -> Self {
        Extra {
            width: kind_header(kind).len(),
            ..Extra::default()
        }
    }
}

/// The kind a header names, and its optional `worker` / `time` columns: the kind's fields
/// first, then each optional column at most once.
pub(super) fn header_columns(fields: &[&str]) -> Option<(ComparisonKind, Extra)> {
    let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    ComparisonKind::ALL.into_iter().find_map(|k| {
        let names = kind_header(k);
        if lower.len() < names.len()
            || !names
                .iter()
                .copied()
                .eq(lower[..names.len()].iter().map(String::as_str))
        {
            return None;
        }
        let mut extra = Extra {
            width: lower.len(),
            ..Extra::default()
        };
        for (j, f) in lower.iter().enumerate().skip(names.len()) {
            let slot = match f.as_str() {
                "worker" => &mut extra.worker,
                "time" => &mut extra.time,
                _ => return None,
            };
            if slot.replace(j).is_some() {
                return None;
            }
        }
        Some((k, extra))
    })
}

/// Parse a same-cluster answer, the one rule for every command and for Python: the number of
/// clusters the two items share, an integer from 0 to
/// [`MAX_SHARED_CLUSTERS`](crate::limits::MAX_SHARED_CLUSTERS) (direct answers; 0/1 for
/// quantized ones), or yes/no/true/false for 1/0 (Huleihel et al. 2019, §2).
pub(crate) fn parse_answer(s: &str, at: &Location) -> Result<f64, DataError> {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "yes" | "true" => return Ok(1.0),
        "no" | "false" => return Ok(0.0),
        _ => {}
    }
    let max = crate::limits::MAX_SHARED_CLUSTERS;
    match t.parse::<u32>() {
        Ok(v) if v <= max => Ok(f64::from(v)),
        _ if t.parse::<f64>().is_err() => Err(DataError::NotANumber {
            at: at.clone(),
            value: t.to_string(),
        }),
        _ => Err(DataError::Format {
            at: at.clone(),
            message: format!(
                "expected the number of shared clusters (an integer from 0 to {max}) or \
                 yes/no, got `{}`",
                crate::data::error::quote(t)
            ),
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
            // `a,a,answer` is allowed: it answers how many clusters `a` is in (the diagonal
            // of the Gram matrix, Huleihel et al. 2019, §2), which FindSimilarity asks when
            // Δ is not given.
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
