//! Display names of items (`--items-meta`): a person reads "Pain Perdu", not
//! `167766958abf4eb0b714dac6c16ae063.jpg`.
//!
//! Two formats are read:
//!
//! - CSV or TSV with a header whose first field is `item`; the display name is the column
//!   named `name` (or `display_name`, `title`), else the second column. Without such a header
//!   every row is `item,name`.
//! - JSON (a `.json` file): an object from item to its name, either a string or an object
//!   with a `"name"` string, like the Food-100 `ingredients.json` (Wilber et al. 2014).
//!
//! Items absent from the file, and rows with an empty name or a JSON `null`, keep their item
//! label. Items the file names that the data does not have are ignored: one metadata file can
//! serve several subsets of the items.

use std::collections::HashSet;
use std::path::Path;

use super::records::{Delimiter, for_each_record, read_text};
use super::{DataError, ItemIndex, Location};

/// Header fields that name the display-name column, in order of preference.
const NAME_FIELDS: [&str; 3] = ["name", "display_name", "title"];

/// The display name of every item of `items` (index order), read from `path`.
pub fn read_item_names(path: &Path, items: &ItemIndex) -> Result<Vec<String>, DataError> {
    let text = read_text(path)?;
    let mut names: Vec<String> = items.labels().to_vec();
    let pairs = if path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("json"))
    {
        json_pairs(&text, path)?
    } else {
        csv_pairs(&text, path)?
    };
    let mut seen = HashSet::new();
    for (at, item, name) in pairs {
        if !seen.insert(item.clone()) {
            return Err(DataError::DuplicateItem {
                at: at.field("item"),
                item,
            });
        }
        if let (Some(i), Some(name)) = (items.get(&item), name) {
            names[i as usize] = name;
        }
    }
    Ok(names)
}

/// `(location, item, name)` for every data row of a CSV/TSV metadata file.
type Pair = (Location, String, Option<String>);

fn csv_pairs(text: &str, path: &Path) -> Result<Vec<Pair>, DataError> {
    let delim = Delimiter::detect(text);
    let mut column: Option<usize> = None;
    let mut out = Vec::new();
    for_each_record(text, delim, Some(path), |line, fields| {
        let at = Location::at(Some(path), line);
        if column.is_none() {
            if fields[0].eq_ignore_ascii_case("item") {
                column = Some(name_column(fields, &at)?);
                return Ok(());
            }
            column = Some(1);
        }
        let c = column.expect("set above");
        if fields.len() <= c {
            return Err(DataError::FieldCount {
                at,
                expected: c + 1,
                found: fields.len(),
            });
        }
        if fields[0].is_empty() {
            return Err(DataError::EmptyItem {
                at: at.field("item"),
            });
        }
        let name = (!fields[c].is_empty()).then(|| fields[c].to_string());
        out.push((at, fields[0].to_string(), name));
        Ok(())
    })?;
    Ok(out)
}

/// The display-name column of a header row starting with `item`.
fn name_column(header: &[&str], at: &Location) -> Result<usize, DataError> {
    for want in NAME_FIELDS {
        if let Some(c) = header.iter().position(|h| h.eq_ignore_ascii_case(want)) {
            return Ok(c);
        }
    }
    if header.len() >= 2 {
        return Ok(1);
    }
    Err(DataError::Format {
        at: at.clone(),
        message: "the header names only `item`; add a `name` column".into(),
    })
}

fn json_pairs(text: &str, path: &Path) -> Result<Vec<Pair>, DataError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| DataError::Format {
        at: Location::at(Some(path), e.line()),
        message: format!("not valid JSON: {e}"),
    })?;
    let serde_json::Value::Object(map) = value else {
        return Err(DataError::Format {
            at: Location::at(Some(path), 1),
            message: "expected a JSON object from item to name".into(),
        });
    };
    let mut out = Vec::with_capacity(map.len());
    for (item, v) in map {
        let name = match &v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(o) => match o.get("name") {
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                None | Some(serde_json::Value::Null) => None,
                Some(_) => return Err(not_a_name(path, &item)),
            },
            serde_json::Value::Null => None,
            _ => return Err(not_a_name(path, &item)),
        };
        let name = name.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let at = Location {
            file: Some(path.to_path_buf()),
            ..Location::default()
        };
        out.push((at, item, name));
    }
    Ok(out)
}

fn not_a_name(path: &Path, item: &str) -> DataError {
    DataError::Format {
        at: Location {
            file: Some(path.to_path_buf()),
            line: None,
            field: Some(super::quote(item)),
        },
        message: "expected a string or an object with a string `name`".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: &[&str]) -> ItemIndex {
        ItemIndex::fixed(n.iter().map(|s| s.to_string())).unwrap()
    }

    fn write(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn csv_with_header_picks_the_name_column_and_keeps_missing_labels() {
        let (_d, p) = write("m.csv", "item,kind,name\na,x,Apple pie\nzz,y,Other\nc,z,\n");
        let names = read_item_names(&p, &items(&["a", "b", "c"])).unwrap();
        assert_eq!(names, ["Apple pie", "b", "c"]);
    }

    #[test]
    fn headerless_tsv_reads_item_then_name() {
        let (_d, p) = write("m.tsv", "b\tBanana\na\tApple\n");
        let names = read_item_names(&p, &items(&["a", "b"])).unwrap();
        assert_eq!(names, ["Apple", "Banana"]);
    }

    #[test]
    fn food_style_json_reads_names_and_skips_nulls() {
        let (_d, p) = write(
            "ingredients.json",
            r#"{"a.jpg": {"name": "Pain Perdu", "tastes": []}, "b.jpg": null, "c.jpg": "Soup"}"#,
        );
        let names = read_item_names(&p, &items(&["a.jpg", "b.jpg", "c.jpg"])).unwrap();
        assert_eq!(names, ["Pain Perdu", "b.jpg", "Soup"]);
    }

    #[test]
    fn bad_files_name_the_file_line_and_field() {
        let (_d, p) = write("m.csv", "item,name\na,A\na,B\n");
        let e = read_item_names(&p, &items(&["a"])).unwrap_err().to_string();
        assert!(
            e.contains("m.csv") && e.contains("line 3") && e.contains("item"),
            "{e}"
        );
        let (_d, p) = write("m.csv", "item,name\na\n");
        let e = read_item_names(&p, &items(&["a"])).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("expected 2 fields"),
            "{e}"
        );
        let (_d, p) = write("m.json", "[1, 2]");
        let e = read_item_names(&p, &items(&["a"])).unwrap_err().to_string();
        assert!(e.contains("m.json") && e.contains("JSON object"), "{e}");
        let (_d, p) = write("m.json", r#"{"a": 3}"#);
        let e = read_item_names(&p, &items(&["a"])).unwrap_err().to_string();
        assert!(e.contains("`a`") && e.contains("string"), "{e}");
        let (_d, p) = write("m.json", "{\"a\": ");
        let e = read_item_names(&p, &items(&["a"])).unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{e}");
    }
}
