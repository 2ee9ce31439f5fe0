//! Overlapping memberships as items × clusters matrices (Huleihel et al. 2019, §2: the
//! membership matrix Z whose rows are the items' cluster indicator vectors), one panel per
//! membership (e.g. the estimate beside the truth), rows in one shared item order.
//!
//! More than [`MAX_ROWS`] items are averaged over blocks of consecutive rows, so a cell shows
//! the share of the block's items in that cluster.

use std::path::Path;

use anyhow::{Context, anyhow};
use compclust::data::Membership;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Format, format_of, init_fonts};

/// Most rows drawn; more items are block-averaged.
pub const MAX_ROWS: usize = 200;
/// Item names are written beside the rows when there are at most this many items.
const MAX_NAMED_ROWS: usize = 60;

/// Width of the item-name column.
const LABEL_W: i32 = 200;

/// Pixel width of a panel of `k` clusters.
fn panel_width(k: usize) -> i32 {
    (24 * k.max(1) as i32).clamp(60, 220)
}

/// One matrix to draw.
pub struct Panel<'a> {
    /// Title above the panel, e.g. "estimate" or "truth".
    pub title: &'a str,
    /// The membership (its items in index order).
    pub membership: &'a Membership,
}

/// Rows ordered by membership pattern: items sharing their cluster set are adjacent, the sets
/// in lexicographic order of their sorted cluster lists, items in no cluster last.
pub fn row_order(m: &Membership) -> Vec<usize> {
    let mut order: Vec<usize> = (0..m.n_items()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (m.clusters_of(a), m.clusters_of(b));
        (ra.is_empty(), ra, a).cmp(&(rb.is_empty(), rb, b))
    });
    order
}

/// The columns of `other` permuted to best match those of `reference`: greedily, the pair of
/// clusters sharing the most items first. Unmatched columns of `other` follow in their order.
pub fn matched_columns(reference: &Membership, other: &Membership) -> Vec<usize> {
    let (a, b) = (reference.columns(), other.columns());
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for (i, ca) in a.iter().enumerate() {
        for (j, cb) in b.iter().enumerate() {
            let shared = ca.iter().filter(|x| cb.binary_search(x).is_ok()).count();
            pairs.push((shared, i, j));
        }
    }
    pairs.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut slot: Vec<Option<usize>> = vec![None; a.len()];
    let mut used = vec![false; b.len()];
    for (_, i, j) in pairs {
        if slot[i].is_none() && !used[j] {
            slot[i] = Some(j);
            used[j] = true;
        }
    }
    let mut order: Vec<usize> = slot.into_iter().flatten().collect();
    order.extend((0..b.len()).filter(|&j| !used[j]));
    order
}

/// The block-averaged share of items in each cluster: `rows × columns`, row-major.
fn grid(m: &Membership, order: &[usize], columns: &[usize], rows: usize) -> Vec<f64> {
    let n = order.len();
    let start = |r: usize| r * n / rows;
    let mut g = vec![0.0; rows * columns.len()];
    for r in 0..rows {
        let block = &order[start(r)..start(r + 1)];
        for (c, &col) in columns.iter().enumerate() {
            let inside = block
                .iter()
                .filter(|&&i| m.clusters_of(i).binary_search(&(col as u32)).is_ok())
                .count();
            g[r * columns.len() + c] = inside as f64 / block.len().max(1) as f64;
        }
    }
    g
}

/// Draw `panels` side by side to `path` (`.svg` or `.png`), rows in `order` (item indices),
/// the columns of panel `p` in `columns[p]`, the rows named by `names` when there are few.
pub fn draw(
    path: &Path,
    panels: &[Panel<'_>],
    columns: &[Vec<usize>],
    order: &[usize],
    names: &[String],
    title: &str,
) -> anyhow::Result<()> {
    init_fonts();
    let panels_w: i32 = columns.iter().map(|c| panel_width(c.len()) + 40).sum();
    let label_w = if order.len() <= MAX_NAMED_ROWS {
        LABEL_W
    } else {
        40
    };
    let size = ((label_w + panels_w).max(420) as u32, 760);
    let format = format_of(path)?;
    super::draw_atomically(path, |tmp| {
        let res = match format {
            Format::Svg => draw_on(
                SVGBackend::new(tmp, size).into_drawing_area(),
                panels,
                columns,
                order,
                names,
                title,
            ),
            Format::Png => draw_on(
                BitMapBackend::new(tmp, size).into_drawing_area(),
                panels,
                columns,
                order,
                names,
                title,
            ),
        };
        res.with_context(|| format!("writing {}", path.display()))
    })
}

fn draw_on<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    panels: &[Panel<'_>],
    columns: &[Vec<usize>],
    order: &[usize],
    names: &[String],
    title: &str,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let font = ("sans-serif", 13).into_font().color(&BLACK);
    root.draw_text(
        &super::drawable(title),
        &("sans-serif", 18).into_font().color(&BLACK),
        (10, 10),
    )
    .map_err(err)?;
    let n = order.len();
    let rows = n.clamp(1, MAX_ROWS);
    let (top, height) = (60i32, 640i32);
    let named = n <= MAX_NAMED_ROWS;
    let y = |r: usize| top + (r as i64 * height as i64 / rows as i64) as i32;
    if named {
        for (r, &i) in order.iter().enumerate() {
            let name: String = names[i].chars().take(26).collect();
            root.draw_text(&name, &font, (10, (y(r) + y(r + 1)) / 2 - 7))
                .map_err(err)?;
        }
    }
    let mut x0 = if named { LABEL_W } else { 40 };
    for (p, cols) in panels.iter().zip(columns) {
        let g = grid(p.membership, order, cols, rows);
        let k = cols.len().max(1);
        let width = panel_width(k);
        let x = |c: usize| x0 + (c as i64 * width as i64 / k as i64) as i32;
        root.draw_text(p.title, &font, (x0, top - 20))
            .map_err(err)?;
        for r in 0..rows {
            for c in 0..cols.len() {
                let v = g[r * cols.len() + c];
                let shade = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * v).round() as u8;
                let colour = RGBColor(shade(255, 8), shade(255, 48), shade(255, 107));
                root.draw(&Rectangle::new(
                    [(x(c), y(r)), (x(c + 1), y(r + 1))],
                    colour.filled(),
                ))
                .map_err(err)?;
            }
        }
        root.draw(&Rectangle::new(
            [(x0, top), (x0 + width, top + height)],
            ShapeStyle::from(&BLACK).stroke_width(1),
        ))
        .map_err(err)?;
        root.draw_text(
            &format!("{} clusters", cols.len()),
            &font,
            (x0, top + height + 8),
        )
        .map_err(err)?;
        x0 += width + 40;
    }
    let caption = if n > MAX_ROWS {
        format!("{n} items in {rows} rows (a cell: share of its items in the cluster)")
    } else {
        format!("{n} items; dark: in the cluster")
    };
    root.draw_text(&caption, &font, (10, top + height + 28))
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_group_items_by_cluster_set_with_unclustered_last() {
        let m = Membership::new(3, vec![vec![2], vec![], vec![0, 1], vec![0], vec![2]]);
        assert_eq!(row_order(&m), [3, 2, 0, 4, 1]);
    }

    #[test]
    fn columns_of_a_relabelled_copy_are_matched_back() {
        let a = Membership::new(3, vec![vec![0], vec![1], vec![2], vec![0, 2]]);
        // b is a with clusters 0→2, 1→0, 2→1.
        let b = Membership::new(3, vec![vec![2], vec![0], vec![1], vec![1, 2]]);
        assert_eq!(matched_columns(&a, &b), [2, 0, 1]);
    }

    #[test]
    fn blocks_average_membership() {
        let m = Membership::new(1, vec![vec![0], vec![], vec![0], vec![0]]);
        let order = [0, 1, 2, 3];
        assert_eq!(grid(&m, &order, &[0], 2), [0.5, 1.0]);
    }

    #[test]
    fn draws_svg_and_png() {
        let dir = tempfile::tempdir().unwrap();
        let m = Membership::new(2, vec![vec![0], vec![0, 1], vec![1]]);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        for f in ["m.svg", "m.png"] {
            let p = dir.path().join(f);
            let panels = [Panel {
                title: "estimate",
                membership: &m,
            }];
            draw(&p, &panels, &[vec![0, 1]], &row_order(&m), &names, "t").unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 100);
        }
    }
}
