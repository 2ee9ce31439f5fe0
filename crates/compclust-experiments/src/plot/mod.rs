//! Figures (SVG and PNG) drawn with plotters and a bundled DejaVu Sans font, so no system
//! font library is needed. One file per kind of figure.

pub mod dendrogram;
pub mod heatmap;
pub mod lines;
pub mod membership;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use plotters::style::{FontStyle, register_font};

static FONT: &[u8] = include_bytes!("../../../../assets/DejaVuSans.ttf");

/// Register the bundled font under the family name "sans-serif" (idempotent). Call before
/// drawing any text.
pub fn init_fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Registering can only fail on a malformed font; the font is compiled in.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// `text` as the bundled font can draw it: plotters lays out one character at a time, so a
/// combining mark (the hat of `k̂`) is drawn as a character of its own (`k^`). Titles keep
/// their meaning in words instead.
pub fn drawable(text: &str) -> String {
    text.replace("k\u{302}", "estimated k")
}

/// Which backend a path asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.svg`
    Svg,
    /// `.png`
    Png,
}

/// The image format implied by the extension of `path` (`.svg` or `.png`).
pub fn format_of(path: &Path) -> anyhow::Result<Format> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
    {
        Some(e) if e == "svg" => Ok(Format::Svg),
        Some(e) if e == "png" => Ok(Format::Png),
        _ => anyhow::bail!("{}: plot files must end in .svg or .png", path.display()),
    }
}

/// Draw a figure with `draw` into a temporary file beside `path` (same extension, so the
/// backend is the same) and move it to `path` only when drawing succeeded: a failing run never
/// leaves a half-drawn figure nor replaces an earlier one.
pub fn draw_atomically(
    path: &Path,
    draw: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let tmp = temporary_beside(path);
    let result = draw(&tmp).and_then(|()| {
        std::fs::rename(&tmp, path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Write `text` to `path` through a temporary file beside it (see [`draw_atomically`]).
pub fn write_text_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    compclust::data::write_atomically(path, |w| {
        w.write_all(text.as_bytes())
            .map_err(|source| compclust::data::DataError::Io {
                path: path.to_path_buf(),
                source,
            })
    })
    .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))
}

/// `.<stem>.tmp-<pid>-<n>.<ext>` in the folder of `path`.
fn temporary_beside(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "figure".into());
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = format!(
        ".{stem}.tmp-{}-{}.{ext}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_lose_their_combining_marks() {
        let t = drawable("SDP solution X (k\u{302} = 4), SPUR k\u{302} = 3");
        assert_eq!(t, "SDP solution X (estimated k = 4), SPUR estimated k = 3");
        assert!(!t.chars().any(|c| ('\u{300}'..='\u{36f}').contains(&c)));
    }
}
