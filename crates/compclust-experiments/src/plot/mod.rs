//! Figures (SVG and PNG) drawn with plotters and a bundled DejaVu Sans font, so no system
//! font library is needed. One file per kind of figure.

pub mod dendrogram;
pub mod heatmap;
pub mod lines;

use std::path::Path;

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
