//! What a run found, in a few lines a person reads: each cluster's size and its first items.

use std::path::Path;

use compclust::data::{ItemIndex, Membership};

/// Clusters listed before the rest are counted.
const MAX_CLUSTERS: usize = 12;
/// Item names shown per cluster.
const MAX_NAMES: usize = 6;
/// Characters of one item name shown.
const MAX_NAME_CHARS: usize = 24;

/// The name to show for every item: its display name from `--items-meta` when given, else
/// its label.
pub fn display_names(items: &ItemIndex, meta: Option<&Path>) -> anyhow::Result<Vec<String>> {
    Ok(match meta {
        Some(p) => compclust::data::read_item_names(p, items)?,
        None => items.labels().to_vec(),
    })
}

/// One line per cluster (the largest first, at most [`MAX_CLUSTERS`]): its label, its size
/// and its first items in file order, e.g. `  cluster 2: 36 items: apple pie, brownie, …`.
pub fn clusters(names: &[String], labels: &[usize]) -> String {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &c) in labels.iter().enumerate() {
        members[c].push(i);
    }
    cluster_lines(names, &members)
}

/// [`clusters`] for overlapping clusters, then how many items are in none, one or several.
pub fn memberships(names: &[String], m: &Membership) -> String {
    let members: Vec<Vec<usize>> = m
        .columns()
        .into_iter()
        .map(|c| c.into_iter().map(|i| i as usize).collect())
        .collect();
    let mut out = cluster_lines(names, &members);
    let w = m.weights();
    let count = |f: &dyn Fn(usize) -> bool| w.iter().filter(|&&x| f(x)).count();
    out.push_str(&format!(
        "  items in no cluster: {}, in one: {}, in two or more: {}\n",
        count(&|x| x == 0),
        count(&|x| x == 1),
        count(&|x| x >= 2)
    ));
    out
}

/// The lines of [`clusters`] from each cluster's members (in index order).
fn cluster_lines(names: &[String], members: &[Vec<usize>]) -> String {
    let k = members.len();
    let mut order: Vec<usize> = (0..k).filter(|&c| !members[c].is_empty()).collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(members[c].len()), c));
    let mut out = String::new();
    for &c in order.iter().take(MAX_CLUSTERS) {
        let m = &members[c];
        let shown: Vec<String> = m
            .iter()
            .take(MAX_NAMES)
            .map(|&i| short(&names[i]))
            .collect();
        let more = match m.len().saturating_sub(MAX_NAMES) {
            0 => String::new(),
            r => format!(", … ({r} more)"),
        };
        let noun = if m.len() == 1 { "item" } else { "items" };
        out.push_str(&format!(
            "  cluster {c}: {} {noun}: {}{more}\n",
            m.len(),
            shown.join(", ")
        ));
    }
    if order.len() > MAX_CLUSTERS {
        out.push_str(&format!(
            "  … and {} smaller clusters\n",
            order.len() - MAX_CLUSTERS
        ));
    }
    out
}

/// `name` cut to [`MAX_NAME_CHARS`] characters, with line breaks and tabs as spaces.
fn short(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.chars().count() <= MAX_NAME_CHARS {
        clean
    } else {
        let cut: String = clean.chars().take(MAX_NAME_CHARS - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_cluster_first_with_its_first_items() {
        let names: Vec<String> = (0..10).map(|i| format!("item{i}")).collect();
        let labels = [1, 0, 1, 1, 1, 1, 1, 1, 1, 0];
        let text = clusters(&names, &labels);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "  cluster 1: 8 items: item0, item2, item3, item4, item5, item6, … (2 more)",
                "  cluster 0: 2 items: item1, item9",
            ]
        );
    }

    #[test]
    fn many_clusters_are_counted_and_long_names_cut() {
        let long = "x".repeat(100);
        let text = clusters(&[long, "b".into()], &[0, 1]);
        assert!(text.contains(&format!("{}…", "x".repeat(23))), "{text}");
        let names: Vec<String> = (0..20).map(|i| format!("i{i}")).collect();
        let labels: Vec<usize> = (0..20).collect();
        let text = clusters(&names, &labels);
        assert_eq!(text.lines().count(), MAX_CLUSTERS + 1);
        assert!(text.ends_with("… and 8 smaller clusters\n"), "{text}");
    }

    #[test]
    fn overlapping_clusters_list_their_members_and_count_multiple_memberships() {
        let names: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let m = Membership::new(2, vec![vec![0, 1], vec![0], vec![], vec![1]]);
        let text = memberships(&names, &m);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "  cluster 0: 2 items: a, b",
                "  cluster 1: 2 items: a, d",
                "  items in no cluster: 1, in one: 2, in two or more: 1",
            ]
        );
    }
}
