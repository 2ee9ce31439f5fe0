//! Loaders for the real data sets in `shared/data` (see its README): the Food-100 raw JSON
//! (Wilber, Kwak & Belongie, HCOMP 2014), the MNIST t-SNE points and the UCI Zoo features used
//! by Perrot et al. (2020) (MNIST) and Ghoshdastidar et al. (2019) (Zoo). The car data sets are plain delimited files read by
//! [`super::read_comparisons`] (formats `car-survey` and `car-ordinal`).

use std::path::Path;

use super::records::{Delimiter, for_each_record, read_text};
use super::{DataError, ItemIndex, Location};

/// The item label of a food image path (the Food-100 reader in `data/read/food.rs`).
pub use super::read::food_label;

/// Items described by feature vectors, with optional class labels (for simulating
/// comparisons from features, Perrot et al. 2020, App. F.3, and for the Zoo quadruplets of Ghoshdastidar et al. 2019, §5).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureTable {
    /// Item labels (row names, or `0..n` when the file has none).
    pub items: ItemIndex,
    /// Names of the feature columns.
    pub feature_names: Vec<String>,
    /// One feature vector per item, in index order.
    pub features: Vec<Vec<f64>>,
    /// The class of each item, when known.
    pub labels: Option<Vec<usize>>,
}

fn parse_f64(s: &str, at: Location) -> Result<f64, DataError> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(DataError::NotANumber {
            at,
            value: s.trim().to_string(),
        }),
    }
}

fn parse_class(s: &str, at: Location) -> Result<usize, DataError> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| DataError::NotANumber {
            at,
            value: s.trim().to_string(),
        })
}

/// Read headerless 2-D points `x,y` (one per line), e.g. the MNIST t-SNE embedding
/// `reduced_test_X.csv` (Perrot et al. 2020, §5: "MNIST 1vs7" and "MNIST 10").
pub fn load_points_2d(path: &Path) -> Result<Vec<[f64; 2]>, DataError> {
    let text = read_text(path)?;
    let mut pts = Vec::new();
    for_each_record(&text, Delimiter::detect(&text), Some(path), |line, f| {
        let at = Location::at(Some(path), line);
        if f.len() != 2 {
            return Err(DataError::FieldCount {
                at,
                expected: 2,
                found: f.len(),
            });
        }
        let x = parse_f64(f[0], at.clone().field("x"))?;
        let y = parse_f64(f[1], at.field("y"))?;
        pts.push([x, y]);
        Ok(())
    })?;
    if pts.is_empty() {
        return Err(DataError::Empty {
            at: Location::at(Some(path), 1),
        });
    }
    Ok(pts)
}

/// Read one non-negative integer class per line, e.g. MNIST `test_labels.csv`.
pub fn load_class_column(path: &Path) -> Result<Vec<usize>, DataError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for_each_record(&text, Delimiter::Comma, Some(path), |line, f| {
        let at = Location::at(Some(path), line);
        if f.len() != 1 {
            return Err(DataError::FieldCount {
                at,
                expected: 1,
                found: f.len(),
            });
        }
        out.push(parse_class(f[0], at.field("label"))?);
        Ok(())
    })?;
    if out.is_empty() {
        return Err(DataError::Empty {
            at: Location::at(Some(path), 1),
        });
    }
    Ok(out)
}

/// The MNIST t-SNE data: points from `reduced_test_X.csv` and digits from `test_labels.csv`
/// (the two files must have the same number of rows).
pub fn load_mnist_tsne(
    points: &Path,
    labels: &Path,
) -> Result<(Vec<[f64; 2]>, Vec<usize>), DataError> {
    let p = load_points_2d(points)?;
    let l = load_class_column(labels)?;
    if p.len() != l.len() {
        return Err(DataError::Format {
            at: Location {
                file: Some(labels.to_path_buf()),
                ..Location::default()
            },
            message: format!(
                "{} labels for {} points in {}",
                l.len(),
                p.len(),
                points.display()
            ),
        });
    }
    Ok((p, l))
}

/// Read a feature table with a header: the first column holds the item names, the other
/// columns numeric features; a column named `label_column` (if given) holds integer classes
/// instead. Repeated names get a suffix `#2`, `#3`, ... (the UCI Zoo file lists `frog` twice).
pub fn load_feature_table(
    path: &Path,
    label_column: Option<&str>,
) -> Result<FeatureTable, DataError> {
    let text = read_text(path)?;
    let mut header: Option<Vec<String>> = None;
    let mut label_pos = None;
    let mut names: Vec<String> = Vec::new();
    let mut features = Vec::new();
    let mut labels = Vec::new();
    for_each_record(&text, Delimiter::detect(&text), Some(path), |line, f| {
        let at = Location::at(Some(path), line);
        let Some(h) = &header else {
            let h: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            if let Some(lc) = label_column {
                label_pos =
                    Some(
                        h.iter()
                            .position(|c| c == lc)
                            .ok_or_else(|| DataError::Format {
                                at: at.clone(),
                                message: format!("no column `{lc}` in the header"),
                            })?,
                    );
            }
            header = Some(h);
            return Ok(());
        };
        if f.len() != h.len() {
            return Err(DataError::FieldCount {
                at,
                expected: h.len(),
                found: f.len(),
            });
        }
        let name = f[0].trim();
        if name.is_empty() {
            return Err(DataError::EmptyItem {
                at: at.field(h[0].clone()),
            });
        }
        let mut row = Vec::with_capacity(h.len() - 1);
        for (j, v) in f.iter().enumerate().skip(1) {
            if Some(j) == label_pos {
                labels.push(parse_class(v, at.clone().field(h[j].clone()))?);
            } else {
                row.push(parse_f64(v, at.clone().field(h[j].clone()))?);
            }
        }
        names.push(name.to_string());
        features.push(row);
        Ok(())
    })?;
    let header = header.ok_or_else(|| DataError::Empty {
        at: Location::at(Some(path), 1),
    })?;
    if features.is_empty() {
        return Err(DataError::Empty {
            at: Location::at(Some(path), 2),
        });
    }
    // Disambiguate repeated names.
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let unique: Vec<String> = names
        .into_iter()
        .map(|n| {
            let c = seen.entry(n.clone()).or_insert(0);
            *c += 1;
            if *c == 1 { n } else { format!("{n}#{c}") }
        })
        .collect();
    let items = ItemIndex::fixed(unique).map_err(|e| DataError::Format {
        at: Location {
            file: Some(path.to_path_buf()),
            ..Location::default()
        },
        message: e.to_string(),
    })?;
    let feature_names = header
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(j, _)| Some(*j) != label_pos)
        .map(|(_, h)| h.clone())
        .collect();
    Ok(FeatureTable {
        items,
        feature_names,
        features,
        labels: label_pos.map(|_| labels),
    })
}

/// The UCI Zoo data (`zoo/zoo.csv`): 16 features per animal and its `class_type` (1–7).
pub fn load_zoo(path: &Path) -> Result<FeatureTable, DataError> {
    load_feature_table(path, Some("class_type"))
}
