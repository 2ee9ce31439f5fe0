//! Line charts with mean ± std bands (error vs queries, ARI vs comparisons), SVG or PNG by the
//! file extension. Generic: any number of named series of (x, mean, std) points, axis labels,
//! a title and an optional log-scaled x axis. [`write_csv`] writes the same data as CSV.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Format, format_of, init_fonts};

/// One named curve: points (x, mean, std), drawn as a line with a shaded mean ± std band.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// (x, mean, std) points; sorted by x when drawn.
    pub points: Vec<(f64, f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Logarithmic x axis (all x must be > 0).
    pub log_x: bool,
    /// The curves.
    pub series: Vec<Series>,
}

/// Write the chart's data as CSV: `series,x,mean,std`.
pub fn write_csv(chart: &LineChart, path: &Path) -> anyhow::Result<()> {
    let mut s = String::from("series,x,mean,std\n");
    for se in &chart.series {
        for &(x, m, sd) in &se.points {
            s.push_str(&format!("{},{x},{m},{sd}\n", se.name.replace(',', ";")));
        }
    }
    super::write_text_atomically(path, &s)
}

/// Draw the chart to `path` (`.svg` or `.png`, 900 × 560).
pub fn draw(chart: &LineChart, path: &Path) -> anyhow::Result<()> {
    init_fonts();
    let size = (900, 560);
    let format = format_of(path)?;
    super::draw_atomically(path, |tmp| {
        let res = match format {
            Format::Svg => draw_on(SVGBackend::new(tmp, size).into_drawing_area(), chart),
            Format::Png => draw_on(BitMapBackend::new(tmp, size).into_drawing_area(), chart),
        };
        res.map_err(|e| anyhow::anyhow!("{}: cannot draw chart: {e}", path.display()))
    })
}

fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &LineChart) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let tx = |x: f64| if c.log_x { x.max(1e-300).log10() } else { x };
    let mut series: Vec<Vec<(f64, f64, f64)>> = c
        .series
        .iter()
        .map(|s| {
            let mut p: Vec<(f64, f64, f64)> = s
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && (!c.log_x || p.0 > 0.0))
                .map(|&(x, m, sd)| (tx(x), m, if sd.is_finite() { sd.abs() } else { 0.0 }))
                .collect();
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p
        })
        .collect();
    let all = series.iter().flatten();
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, m, sd) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(m - sd);
        y1 = y1.max(m + sd);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        series.clear();
    }
    if x1 - x0 < 1e-12 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let (y0, y1) = (y0 - pad, y1 + pad);
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(super::drawable(&c.title), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(y_label_area(y0, y1))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| err(&e))?;
    let log_x = c.log_x;
    let xfmt = move |v: &f64| tick_label(if log_x { 10f64.powf(*v) } else { *v });
    chart
        .configure_mesh()
        .x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .x_label_formatter(&xfmt)
        .y_label_formatter(&|v: &f64| y_tick_label(*v))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (pts, s)) in series.iter().zip(&c.series).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        if pts.iter().any(|p| p.2 > 0.0) {
            let band: Vec<(f64, f64)> = pts
                .iter()
                .map(|p| (p.0, p.1 + p.2))
                .chain(pts.iter().rev().map(|p| (p.0, p.1 - p.2)))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    band,
                    color.mix(0.18).filled(),
                )))
                .map_err(|e| err(&e))?;
        }
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(s.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
            )
            .map_err(|e| err(&e))?;
    }
    if !c.series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Tick label: scientific notation for very large or small magnitudes, else up to three
/// decimals without trailing zeros.
fn tick_label(x: f64) -> String {
    if x.abs() >= 1e4 || (x != 0.0 && x.abs() < 1e-2) {
        format!("{x:.1e}")
    } else {
        format!("{x:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Y tick label: whole numbers below 10⁷ (neighbouring ticks of a Dasgupta cost such as 171,000
/// and 172,000 must not both read `1.7e5`), otherwise as [`tick_label`].
fn y_tick_label(y: f64) -> String {
    if y.abs() >= 1e4 && y.abs() < 1e7 {
        format!("{y:.0}")
    } else {
        tick_label(y)
    }
}

/// Width in pixels of the y label area: the widest tick label over the range (≈ 8 px per
/// character at 14 px) plus room for the rotated axis description, so that the two never touch.
fn y_label_area(y0: f64, y1: f64) -> u32 {
    let widest = (0..=10)
        .map(|i| {
            y_tick_label(y0 + (y1 - y0) * i as f64 / 10.0)
                .chars()
                .count()
        })
        .max()
        .unwrap_or(4);
    (widest as u32) * 8 + 40
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(log_x: bool) -> LineChart {
        LineChart {
            title: "error vs queries".into(),
            x_label: "queries".into(),
            y_label: "gram error".into(),
            log_x,
            series: vec![
                Series {
                    name: "a".into(),
                    points: vec![(10.0, 5.0, 1.0), (100.0, 2.0, 0.5), (1000.0, 0.0, 0.0)],
                },
                Series {
                    name: "b".into(),
                    points: vec![(10.0, 6.0, 0.0), (1000.0, 1.0, 0.2)],
                },
            ],
        }
    }

    #[test]
    fn draws_svg_png_and_csv() {
        let dir = tempfile::tempdir().unwrap();
        for (name, log) in [("x.svg", true), ("x.png", false)] {
            let p = dir.path().join(name);
            draw(&chart(log), &p).unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 1000);
        }
        let svg = std::fs::read_to_string(dir.path().join("x.svg")).unwrap();
        assert!(svg.contains("error vs queries"));
        let csv = dir.path().join("x.csv");
        write_csv(&chart(false), &csv).unwrap();
        let s = std::fs::read_to_string(csv).unwrap();
        assert_eq!(s.lines().count(), 6);
        assert!(draw(&chart(false), &dir.path().join("x.jpg")).is_err());
    }

    /// Wider tick labels get a wider label area, so the axis description never overlaps them.
    #[test]
    fn y_label_area_grows_with_tick_width() {
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(172000.0), "1.7e5");
        assert_eq!(y_tick_label(172000.0), "172000");
        assert_eq!(y_tick_label(0.5), "0.5");
        assert!(y_label_area(0.0, 1.0) < y_label_area(-0.123, 0.456));
        assert!(y_label_area(0.0, 1.0) < y_label_area(170000.0, 180000.0));
    }
}
