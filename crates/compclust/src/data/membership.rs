//! The binary membership matrix A (n × k) of overlapping clusters (Huleihel, Mazumdar, Médard & Pal
//! 2019, §2): the result of the overlap family, read and written by [`super::read_membership`] and
//! [`super::write_membership`], and scored by the gram error.

use serde::{Deserialize, Serialize};

/// Binary memberships: item `i` belongs to the clusters in `clusters_of(i)` (sorted, distinct).
/// This is the row support of Huleihel et al. 2019's matrix A ∈ {0,1}^{n×k}.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    n_clusters: usize,
    rows: Vec<Vec<u32>>,
}

impl Membership {
    /// From per-item cluster lists over `n_clusters` clusters. Each row is sorted and
    /// deduplicated; panics if a cluster id is `>= n_clusters` (a programming error; readers
    /// validate user input before calling this).
    pub fn new(n_clusters: usize, mut rows: Vec<Vec<u32>>) -> Self {
        for r in &mut rows {
            r.sort_unstable();
            r.dedup();
            assert!(
                r.iter().all(|&c| (c as usize) < n_clusters),
                "cluster id out of range"
            );
        }
        Membership { n_clusters, rows }
    }

    /// A disjoint clustering given as one label per item.
    pub fn from_labels(labels: &[usize]) -> Self {
        let k = labels.iter().max().map_or(0, |m| m + 1);
        Self::new(k, labels.iter().map(|&l| vec![l as u32]).collect())
    }

    /// From one bit mask per row (bit `c` set iff the item is in cluster `c`); `n_clusters ≤ 64`.
    pub fn from_masks(n_clusters: usize, masks: &[u64]) -> Self {
        assert!(n_clusters <= 64, "masks hold at most 64 clusters");
        let rows = masks
            .iter()
            .map(|&m| {
                (0..n_clusters as u32)
                    .filter(|&c| m >> c & 1 == 1)
                    .collect()
            })
            .collect();
        Membership { n_clusters, rows }
    }

    /// One bit mask per row (bit `c` set iff the item is in cluster `c`), or `None` when there
    /// are more than 64 clusters.
    pub fn masks(&self) -> Option<Vec<u64>> {
        if self.n_clusters > 64 {
            return None;
        }
        Some(
            self.rows
                .iter()
                .map(|r| r.iter().fold(0u64, |m, &c| m | 1 << c))
                .collect(),
        )
    }

    /// Row weights ‖A_i‖₀ (number of clusters of each item).
    pub fn weights(&self) -> Vec<usize> {
        self.rows.iter().map(Vec::len).collect()
    }

    /// The members of every cluster (column supports of A), each sorted.
    pub fn columns(&self) -> Vec<Vec<u32>> {
        let mut cols = vec![Vec::new(); self.n_clusters];
        for (i, r) in self.rows.iter().enumerate() {
            for &c in r {
                cols[c as usize].push(i as u32);
            }
        }
        cols
    }

    /// The complement J − A (every item in exactly the clusters it was not in). For the
    /// uniform ensemble with k = 2Δ it has the same gram matrix as A (`docs/OVERLAP.md`).
    pub fn complement(&self) -> Self {
        let rows = self
            .rows
            .iter()
            .map(|r| {
                (0..self.n_clusters as u32)
                    .filter(|c| r.binary_search(c).is_err())
                    .collect()
            })
            .collect();
        Membership {
            n_clusters: self.n_clusters,
            rows,
        }
    }

    /// Number of items n.
    pub fn n_items(&self) -> usize {
        self.rows.len()
    }

    /// Number of clusters k.
    pub fn n_clusters(&self) -> usize {
        self.n_clusters
    }

    /// The clusters item `i` belongs to.
    pub fn clusters_of(&self, i: usize) -> &[u32] {
        &self.rows[i]
    }

    /// All rows.
    pub fn rows(&self) -> &[Vec<u32>] {
        &self.rows
    }

    /// `(A Aᵀ)_ij`: the number of clusters items i and j share (the direct oracle's answer).
    pub fn shared(&self, i: usize, j: usize) -> usize {
        let (a, b) = (&self.rows[i], &self.rows[j]);
        let (mut x, mut y, mut c) = (0, 0, 0);
        while x < a.len() && y < b.len() {
            match a[x].cmp(&b[y]) {
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
                std::cmp::Ordering::Equal => {
                    c += 1;
                    x += 1;
                    y += 1;
                }
            }
        }
        c
    }

    /// The dense gram matrix A Aᵀ, row-major n × n.
    pub fn gram(&self) -> Vec<u32> {
        let n = self.n_items();
        let mut g = vec![0u32; n * n];
        for i in 0..n {
            for j in 0..n {
                g[i * n + j] = self.shared(i, j) as u32;
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_counts_common_clusters() {
        let m = Membership::new(3, vec![vec![0, 1], vec![1, 2], vec![2], vec![]]);
        assert_eq!(m.shared(0, 1), 1);
        assert_eq!(m.shared(0, 0), 2);
        assert_eq!(m.shared(0, 2), 0);
        assert_eq!(m.shared(3, 3), 0);
        assert_eq!(m.gram()[4 + 1], 2);
    }
}
