//! How a served study's items are shown to participants: as their names (text), as HTML
//! fragments the study file gives (`[html]`, item name → HTML), or as the images of a folder
//! (`items = "images/"`: every image file of the folder is an item, named by its file name
//! without the extension, and served at `/s/STUDY/items/FILE`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use compclust::data::ItemIndex;

/// File extensions read as item images.
pub const IMAGE_EXTENSIONS: [&str; 7] = ["png", "jpg", "jpeg", "gif", "webp", "svg", "avif"];

/// Largest number of images read from an items folder.
pub const MAX_IMAGES: usize = 100_000;

/// How one item is shown.
#[derive(Clone, Debug, PartialEq)]
pub enum ItemDisplay {
    /// Its name, as text.
    Text,
    /// An HTML fragment of the study file (never anything a participant sent).
    Html(String),
    /// An image of the items folder.
    Image {
        /// The file name in the folder (the last segment of its URL).
        file: String,
        /// Where it is read from.
        path: PathBuf,
    },
}

/// The images of an items folder, sorted by file name: the items (named by the file names
/// without the extension) and how they are shown. Files with other extensions and hidden files
/// are left out; two images with one name (`cat.png`, `cat.jpg`) are an error.
pub fn read_image_folder(dir: &Path) -> anyhow::Result<(ItemIndex, Vec<ItemDisplay>)> {
    let d = dir.display();
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("folder {d}"))? {
        let entry = entry.with_context(|| format!("folder {d}"))?;
        let Ok(file) = entry.file_name().into_string() else {
            continue;
        };
        let Some((stem, ext)) = file.rsplit_once('.') else {
            continue;
        };
        if stem.is_empty()
            || file.starts_with('.')
            || !IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
            || !entry.path().is_file()
        {
            continue;
        }
        if files.len() == MAX_IMAGES {
            bail!("folder {d}: more than {MAX_IMAGES} images");
        }
        files.push((stem.to_string(), file));
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (stem, file) in &files {
        if let Some(other) = seen.insert(stem, file) {
            bail!("folder {d}: `{other}` and `{file}` are both item `{stem}`; keep one");
        }
    }
    if files.is_empty() {
        bail!(
            "folder {d}: no images ({})",
            IMAGE_EXTENSIONS.map(|e| format!(".{e}")).join(", ")
        );
    }
    let items = ItemIndex::fixed(files.iter().map(|(stem, _)| stem.clone()))
        .with_context(|| format!("folder {d}"))?;
    let display = files
        .into_iter()
        .map(|(_, file)| ItemDisplay::Image {
            path: dir.join(&file),
            file,
        })
        .collect();
    Ok((items, display))
}

/// The display of every item: `html` (item name → fragment) over `base`. A name that is not an
/// item is an error naming the field `html.NAME`.
pub fn with_html(
    items: &ItemIndex,
    mut base: Vec<ItemDisplay>,
    html: &BTreeMap<String, String>,
) -> anyhow::Result<Vec<ItemDisplay>> {
    base.resize(items.len(), ItemDisplay::Text);
    for (name, fragment) in html {
        let Some(i) = (0..items.len()).find(|&i| items.label(i) == name) else {
            bail!("field `html.{name}`: `{name}` is not one of the study's items");
        };
        base[i] = ItemDisplay::Html(fragment.clone());
    }
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_its_images_sorted_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.png", "a.JPG", "notes.txt", ".hidden.png", "c.svg"] {
            std::fs::write(dir.path().join(f), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.png")).unwrap();
        let (items, display) = read_image_folder(dir.path()).unwrap();
        assert_eq!(items.labels(), &["a", "b", "c"]);
        assert!(matches!(&display[0], ItemDisplay::Image { file, .. } if file == "a.JPG"));
        std::fs::write(dir.path().join("a.png"), b"x").unwrap();
        let e = read_image_folder(dir.path()).unwrap_err().to_string();
        assert!(e.contains("`a.JPG` and `a.png`"), "{e}");
    }

    #[test]
    fn html_names_must_be_items() {
        let items = ItemIndex::fixed(["x".to_string(), "y".to_string()]).unwrap();
        let mut html = BTreeMap::new();
        html.insert("y".to_string(), "<b>Y</b>".to_string());
        let d = with_html(&items, Vec::new(), &html).unwrap();
        assert_eq!(
            d,
            vec![ItemDisplay::Text, ItemDisplay::Html("<b>Y</b>".into())]
        );
        html.insert("z".to_string(), "<i>z</i>".to_string());
        let e = with_html(&items, Vec::new(), &html)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `html.z`"), "{e}");
    }
}
