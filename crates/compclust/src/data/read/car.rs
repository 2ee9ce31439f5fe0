//! The 60-cars data (Kleindessner & von Luxburg 2017): the survey file (`survey_round,
//! chosen_center, triplet_object_1..3, response_time`) and the preprocessed ordinal files
//! (headerless `i,j,k`, "i is the most central"); 1-based ids, two triplets per answer.

use super::fields::{Ids, check_triplet};
use crate::data::{Comparisons, DataError, Location, Triplet};

pub(super) fn is_car_survey_header(fields: &[&str]) -> bool {
    fields.len() == 6
        && (fields[0].eq_ignore_ascii_case("survey_round")
            || fields[0].eq_ignore_ascii_case("round"))
        && (fields[1].eq_ignore_ascii_case("chosen_center")
            || fields[1].eq_ignore_ascii_case("chosen"))
}

/// One record of the car survey (Perrot et al. 2020, App. F.1): the most central of three images, stored as
/// the two triplets it implies.
pub(super) fn push_car_survey_row(
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
