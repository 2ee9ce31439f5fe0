//! Heatmaps of n × n matrices (similarities, SDP solutions), rows and columns ordered by a
//! given permutation (e.g. by predicted cluster), with cluster boundaries drawn as lines.
//!
//! Large matrices are block-averaged down to at most [`MAX_CELLS`] cells per side so that the
//! SVG stays small (a 1000 × 1000 SVG with one rectangle per entry would be ~100 MB).

use std::path::Path;

use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Format, format_of, init_fonts};

/// Most cells drawn per side; larger matrices are averaged over blocks.
pub const MAX_CELLS: usize = 250;

/// How values map to colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Blue (negative) – white (0) – red (positive), symmetric around 0 (similarities).
    Diverging,
    /// White (minimum) to dark blue (maximum) (SDP solutions X ≥ 0).
    Sequential,
}

/// What to draw.
pub struct Heatmap<'a> {
    /// Entry `(i, j)` of the n × n matrix (in item indices, before reordering).
    pub value: &'a dyn Fn(usize, usize) -> f64,
    /// Row/column order: `order[p]` is the item drawn at position `p`.
    pub order: &'a [usize],
    /// Positions (in `0..n`) where a new cluster starts, for the boundary lines.
    pub boundaries: &'a [usize],
    /// Title above the map.
    pub title: &'a str,
    /// Colour scale.
    pub scale: Scale,
}

/// The block-averaged, reordered grid (cells × cells, row-major) and its size.
fn grid(h: &Heatmap<'_>) -> (Vec<f64>, usize, usize) {
    let n = h.order.len();
    let cells = n.clamp(1, MAX_CELLS);
    let start = |c: usize| c * n / cells;
    let mut g = vec![0.0; cells * cells];
    for ci in 0..cells {
        for cj in 0..cells {
            let (i0, i1, j0, j1) = (start(ci), start(ci + 1), start(cj), start(cj + 1));
            let mut s = 0.0;
            for pi in i0..i1 {
                for pj in j0..j1 {
                    s += (h.value)(h.order[pi], h.order[pj]);
                }
            }
            let count = ((i1 - i0) * (j1 - j0)).max(1);
            g[ci * cells + cj] = s / count as f64;
        }
    }
    (g, cells, n)
}

fn colour(v: f64, lo: f64, hi: f64, scale: Scale) -> RGBColor {
    let lerp = |a: u8, b: u8, t: f64| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    match scale {
        Scale::Diverging => {
            let m = lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
            let t = (v / m).clamp(-1.0, 1.0);
            if t >= 0.0 {
                RGBColor(255, lerp(255, 30, t), lerp(255, 30, t))
            } else {
                RGBColor(lerp(255, 30, -t), lerp(255, 60, -t), 255)
            }
        }
        Scale::Sequential => {
            let t = if hi > lo {
                ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            RGBColor(lerp(255, 8, t), lerp(255, 48, t), lerp(255, 107, t))
        }
    }
}

fn draw_on<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    h: &Heatmap<'_>,
    side: u32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let top = 40u32;
    let margin = 10u32;
    root.draw_text(
        &super::drawable(h.title),
        &("sans-serif", 18).into_font().color(&BLACK),
        (margin as i32, 10),
    )
    .map_err(err)?;
    let (g, cells, n) = grid(h);
    let lo = g.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let px = |c: usize| (margin + (c as u64 * side as u64 / cells as u64) as u32) as i32;
    let py = |c: usize| (top + (c as u64 * side as u64 / cells as u64) as u32) as i32;
    for ci in 0..cells {
        for cj in 0..cells {
            let c = colour(g[ci * cells + cj], lo, hi, h.scale);
            root.draw(&Rectangle::new(
                [(px(cj), py(ci)), (px(cj + 1), py(ci + 1))],
                c.filled(),
            ))
            .map_err(err)?;
        }
    }
    // Cluster boundaries, in item positions scaled to pixels.
    let pos = |p: usize| (p as u64 * side as u64 / n.max(1) as u64) as i32;
    for &b in h.boundaries.iter().filter(|&&b| b > 0 && b < n) {
        let x = margin as i32 + pos(b);
        let y = top as i32 + pos(b);
        let style = ShapeStyle::from(&BLACK).stroke_width(1);
        root.draw(&PathElement::new(
            vec![(x, top as i32), (x, top as i32 + side as i32)],
            style,
        ))
        .map_err(err)?;
        root.draw(&PathElement::new(
            vec![(margin as i32, y), (margin as i32 + side as i32, y)],
            style,
        ))
        .map_err(err)?;
    }
    let caption = ("sans-serif", 14).into_font().color(&BLACK);
    root.draw_text(
        &format!("{n} items, ordered by cluster (lines: cluster boundaries)"),
        &caption,
        (margin as i32, (top + side + 8) as i32),
    )
    .map_err(err)?;
    colour_bar(
        &root,
        (lo, hi),
        h.scale,
        ((margin + side + 16) as i32, top as i32),
        side,
    )
    .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// A vertical colour bar at `(x, y)`, `height` pixels tall, from the largest value (top) to
/// the smallest, labelled with both (and 0 on a diverging scale).
fn colour_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (lo, hi): (f64, f64),
    scale: Scale,
    (x, y): (i32, i32),
    height: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const STEPS: u32 = 100;
    let width = 18;
    let (top_v, bottom_v) = match scale {
        Scale::Diverging => {
            let m = lo.abs().max(hi.abs());
            (m, -m)
        }
        Scale::Sequential => (hi, lo),
    };
    let at = |s: u32| y + (s as u64 * height as u64 / STEPS as u64) as i32;
    for s in 0..STEPS {
        let t = (s as f64 + 0.5) / STEPS as f64;
        let v = top_v + (bottom_v - top_v) * t;
        root.draw(&Rectangle::new(
            [(x, at(s)), (x + width, at(s + 1))],
            colour(v, lo, hi, scale).filled(),
        ))?;
    }
    root.draw(&Rectangle::new(
        [(x, y), (x + width, y + height as i32)],
        ShapeStyle::from(&BLACK).stroke_width(1),
    ))?;
    let font = ("sans-serif", 13).into_font().color(&BLACK);
    let label = |v: f64| {
        if v.abs() >= 1000.0 || (v != 0.0 && v.abs() < 0.01) {
            format!("{v:.1e}")
        } else {
            format!("{v:.2}")
        }
    };
    root.draw_text(&label(top_v), &font, (x + width + 4, y - 6))?;
    root.draw_text(
        &label(bottom_v),
        &font,
        (x + width + 4, y + height as i32 - 8),
    )?;
    if scale == Scale::Diverging {
        root.draw_text("0", &font, (x + width + 4, y + height as i32 / 2 - 7))?;
    }
    Ok(())
}

/// Draw the heatmap to `path` (`.svg` or `.png`), with a colour bar on its right.
pub fn draw(path: &Path, h: &Heatmap<'_>) -> anyhow::Result<()> {
    init_fonts();
    let side = 720u32;
    let size = (side + 100, side + 75);
    let format = format_of(path)?;
    super::draw_atomically(path, |tmp| {
        let res = match format {
            Format::Svg => draw_on(SVGBackend::new(tmp, size).into_drawing_area(), h, side),
            Format::Png => draw_on(BitMapBackend::new(tmp, size).into_drawing_area(), h, side),
        };
        res.with_context(|| format!("writing {}", path.display()))
    })
}

/// Items ordered by cluster (stable: by label, then index) and the positions where each new
/// cluster starts.
pub fn order_by_labels(labels: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by_key(|&i| (labels[i], i));
    let boundaries = (1..order.len())
        .filter(|&p| labels[order[p]] != labels[order[p - 1]])
        .collect();
    (order, boundaries)
}
