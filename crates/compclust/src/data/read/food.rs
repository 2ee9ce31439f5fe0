//! The Food-100 raw JSON (Wilber, Kwak & Belongie, HCOMP 2014): one file, or a folder of
//! `*.json` files; every grid screen gives triplets (probe, near, far).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{InputFormat, ReadReport};
use crate::data::records::read_text;
use crate::data::{ComparisonKind, Comparisons, DataError, Dataset, ItemIndex, Location, Triplet};

#[derive(Deserialize)]
struct Hit {
    #[serde(rename = "HIT_screens")]
    screens: Vec<Screen>,
}

#[derive(Deserialize)]
struct Screen {
    probe: String,
    images: Vec<String>,
    near_answer: Vec<String>,
    #[serde(default)]
    is_catchtrial: bool,
}

/// The item label of a food image path: its file name (`images/abc.jpg` → `abc.jpg`), as in
/// the keys of `ingredients.json`.
pub fn food_label(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Read the Food-100 raw JSON: one file, or every `*.json` file of a folder (sorted by
/// name). Items are numbered in order of first appearance unless `items` is given.
pub(crate) fn read_food_json(
    path: &Path,
    items: Option<ItemIndex>,
) -> Result<(Dataset, ReadReport), DataError> {
    let mut files: Vec<PathBuf> = Vec::new();
    if path.is_dir() {
        let rd = std::fs::read_dir(path).map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        for e in rd {
            let e = e.map_err(|source| DataError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            let p = e.path();
            if p.is_file()
                && p.extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case("json"))
            {
                files.push(p);
            }
        }
        files.sort();
        if files.is_empty() {
            return Err(DataError::Empty {
                at: Location {
                    file: Some(path.to_path_buf()),
                    ..Location::default()
                },
            });
        }
    } else {
        files.push(path.to_path_buf());
    }
    let texts = files
        .into_iter()
        .map(|f| read_text(&f).map(|t| (f, t)))
        .collect::<Result<Vec<_>, _>>()?;
    parse_food_json(&texts, items)
}

/// Parse Food-100 raw JSON texts `(name, text)`: every non-catch-trial screen gives the
/// triplets (probe, near, far) for near ∈ `near_answer` and far ∈ `images \ near_answer`.
pub(crate) fn parse_food_json(
    texts: &[(PathBuf, String)],
    items: Option<ItemIndex>,
) -> Result<(Dataset, ReadReport), DataError> {
    let mut idx = items.unwrap_or_else(ItemIndex::growing);
    let mut triplets = Vec::new();
    let mut report = ReadReport {
        format: InputFormat::FoodJson,
        kind: ComparisonKind::Triplets,
        records: 0,
        skipped_undecided: 0,
        skipped_catch_trials: 0,
        files: texts.len(),
        workers: 0,
    };
    for (file, text) in texts {
        let hits: Vec<Hit> = serde_json::from_str(text).map_err(|e| DataError::Format {
            at: Location {
                file: Some(file.clone()),
                line: Some(e.line()).filter(|&l| l > 0),
                field: None,
            },
            message: format!("not a Food-100 raw JSON file: {e}"),
        })?;
        for (h, hit) in hits.iter().enumerate() {
            for (s, sc) in hit.screens.iter().enumerate() {
                if sc.is_catchtrial {
                    report.skipped_catch_trials += 1;
                    continue;
                }
                let at = |what: &str| Location {
                    file: Some(file.clone()),
                    line: None,
                    field: Some(format!("HIT {}, screen {}, {what}", h + 1, s + 1)),
                };
                let probe = idx.resolve(food_label(&sc.probe), &at("probe"))?;
                let mut near = Vec::with_capacity(sc.near_answer.len());
                for n in &sc.near_answer {
                    near.push(idx.resolve(food_label(n), &at("near_answer"))?);
                }
                let mut far = Vec::with_capacity(sc.images.len());
                for im in &sc.images {
                    let i = idx.resolve(food_label(im), &at("images"))?;
                    if i == probe {
                        return Err(DataError::RepeatedItem {
                            at: at("images"),
                            item: food_label(im).to_string(),
                        });
                    }
                    if !near.contains(&i) {
                        far.push(i);
                    }
                }
                if near.contains(&probe) {
                    return Err(DataError::RepeatedItem {
                        at: at("near_answer"),
                        item: food_label(&sc.probe).to_string(),
                    });
                }
                // A screen of m images gives up to m²/4 triplets: check before holding them.
                let held = triplets.len() as u128 + (near.len() * far.len()) as u128;
                crate::limits::check_rows(held, 12).map_err(|limit| DataError::Limit {
                    at: at("images"),
                    limit: Box::new(limit),
                })?;
                for &n in &near {
                    for &f in &far {
                        triplets.push(Triplet::new(probe, n, f));
                    }
                }
                report.records += 1;
            }
        }
    }
    if triplets.is_empty() {
        return Err(DataError::Empty {
            at: Location {
                file: texts.first().map(|t| t.0.clone()),
                ..Location::default()
            },
        });
    }
    let data = Dataset::new(idx, Comparisons::Triplets(triplets))?;
    Ok((data, report))
}
