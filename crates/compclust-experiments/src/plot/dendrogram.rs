//! Dendrogram pictures with item labels (Ghoshdastidar et al. 2019's figures of learned hierarchies, e.g. the car
//! data in App. B.3). Leaves are laid out in depth-first order; each merge is drawn as a
//! bracket at its height. Labels are written under the leaves for up to 150 items.

use std::path::Path;

use anyhow::anyhow;
use compclust::hierarchy::Dendrogram;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Format, format_of, init_fonts};

/// Leaves in depth-first order (left child first), so no bracket crosses another.
pub fn leaf_order(d: &Dendrogram) -> Vec<usize> {
    let n = d.n_leaves();
    if n == 0 {
        return Vec::new();
    }
    let steps = d.steps();
    let mut out = Vec::with_capacity(n);
    let mut stack = vec![if steps.is_empty() {
        0
    } else {
        n + steps.len() - 1
    }];
    while let Some(id) = stack.pop() {
        if id < n {
            out.push(id);
        } else {
            let m = &steps[id - n];
            stack.push(m.b);
            stack.push(m.a);
        }
    }
    out
}

/// Draw `d` with leaf `labels` into `path` (.svg or .png), titled `title`.
pub fn draw(path: &Path, d: &Dendrogram, labels: &[String], title: &str) -> anyhow::Result<()> {
    init_fonts();
    let n = d.n_leaves();
    let show = n <= 150;
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let label_px = if show {
        (longest as u32 * 7 + 12).clamp(24, 220)
    } else {
        24
    };
    let width = (n as u32 * 14 + 120).clamp(640, 4000);
    let size = (width, 480 + label_px);
    let format = format_of(path)?;
    super::draw_atomically(path, |tmp| {
        let result = match format {
            Format::Svg => {
                let root = SVGBackend::new(tmp, size).into_drawing_area();
                render(&root, d, labels, title, show, label_px)
                    .and_then(|_| root.present().map_err(|e| e.to_string()))
            }
            Format::Png => {
                let root = BitMapBackend::new(tmp, size).into_drawing_area();
                render(&root, d, labels, title, show, label_px)
                    .and_then(|_| root.present().map_err(|e| e.to_string()))
            }
        };
        result.map_err(|e| anyhow!("{}: cannot draw the dendrogram: {e}", path.display()))
    })
}

/// The name of the height axis. Comparison-based methods have no similarity values: 4-AL
/// and 4K-AL record the order of their merges (1, 2, …; 0 inside initial clusters), SL and CL
/// the rank of the pair that links two clusters. Whole-number heights are drawn as ranks.
fn height_axis(d: &Dendrogram) -> &'static str {
    let ranks = d
        .steps()
        .iter()
        .all(|m| m.height >= 0.0 && m.height.fract() == 0.0);
    if ranks {
        "merge rank (an order, not a similarity)"
    } else {
        "merge height"
    }
}

fn render<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &Dendrogram,
    labels: &[String],
    title: &str,
    show: bool,
    label_px: u32,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let n = d.n_leaves();
    let steps = d.steps();
    let order = leaf_order(d);
    let mut x = vec![0.0f64; n + steps.len()];
    let mut y = vec![0.0f64; n + steps.len()];
    for (pos, &leaf) in order.iter().enumerate() {
        x[leaf] = pos as f64;
    }
    for (s, m) in steps.iter().enumerate() {
        x[n + s] = (x[m.a] + x[m.b]) / 2.0;
        // draw monotone brackets even if a method's heights are not
        y[n + s] = m.height.max(y[m.a]).max(y[m.b]);
    }
    let ymax = y.iter().cloned().fold(0.0f64, f64::max).max(1e-9) * 1.05;
    let mut chart = ChartBuilder::on(root)
        .caption(super::drawable(title), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(label_px)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n.max(1) as f64 - 0.5), 0f64..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(height_axis(d))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(err)?;
    let color = RGBColor(31, 87, 163);
    chart
        .draw_series(steps.iter().enumerate().map(|(s, m)| {
            let h = y[n + s];
            PathElement::new(
                vec![(x[m.a], y[m.a]), (x[m.a], h), (x[m.b], h), (x[m.b], y[m.b])],
                color.stroke_width(1),
            )
        }))
        .map_err(err)?;
    if show {
        let style = ("sans-serif", 11)
            .into_font()
            .transform(FontTransform::Rotate90)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (pos, &leaf) in order.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(pos as f64, 0.0));
            let text = labels
                .get(leaf)
                .cloned()
                .unwrap_or_else(|| leaf.to_string());
            root.draw(&Text::new(text, (px, py + 6), style.clone()))
                .map_err(err)?;
        }
    }
    Ok(())
}
