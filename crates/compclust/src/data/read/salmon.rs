//! salmon's `responses.csv`: a header with `head`, `winner` and `loser` among other columns,
//! 0-based target indices; each row is the triplet (head, winner, loser).

use super::fields::{Ids, check_triplet};
use super::parse::Mode;
use crate::data::{Comparisons, DataError, Location, Triplet};

pub(super) fn is_salmon_header(fields: &[&str]) -> bool {
    ["head", "winner", "loser"]
        .iter()
        .all(|n| fields.iter().any(|f| f.eq_ignore_ascii_case(n)))
}

pub(super) fn salmon_mode(fields: &[&str]) -> (Mode, bool) {
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

/// One record of a salmon `responses.csv`: the triplet (head, winner, loser).
pub(super) fn push_salmon_row(
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
