//! Helpers shared by the hierarchy algorithms: canonical quadruplet counts, pair keys, a fast
//! hasher for integer keys, and the conversion of kodama's output.

use std::hash::{BuildHasherDefault, Hasher};

use crate::data::{Comparisons, Quadruplet};

use super::{Dendrogram, HierarchyError, Merge};

/// A multiplicative hasher for integer keys (keys here are packed item or cluster pairs, not
/// attacker-controlled strings).
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, i: u64) {
        // fold the high bits so hashbrown's top-7-bit control bytes vary
        let h = (self.0 ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// `HashMap` with [`IntHasher`].
pub(crate) type IntMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// Pack the unordered pair `{a, b}` as `min << 32 | max`.
#[inline]
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// The two ids of a packed pair, smaller first.
#[inline]
pub(crate) fn unpack(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// `(pair e, pair f, net count)` rows with `e < f`.
pub(crate) type Entries = Vec<(u64, u64, i64)>;

/// Canonical quadruplet answers over `n` items: `(pair e, pair f, net)` meaning "e is more
/// similar than f" answered `net` more times than the reverse (net ≠ 0). Triplets become
/// quadruplets `(i,j,i,k)` (Ghoshdastidar et al. 2019, App. B.3). Degenerate rows (a pair of one item twice, or the
/// same pair on both sides) carry no information and are counted in the second value.
/// Checks for cancellation ([`crate::cancel`]) every
/// [`CHECK_EVERY`](crate::cancel::CHECK_EVERY) rows.
pub(crate) fn quadruplet_entries(
    n: usize,
    comparisons: &Comparisons,
    method: &'static str,
) -> Result<(Entries, usize), HierarchyError> {
    // 4-AL and 4K-AL then hold n × n matrices: refuse before reading the rows.
    crate::limits::reserve_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
    let rows: Vec<Quadruplet> =
        comparisons
            .as_quadruplets()
            .ok_or_else(|| HierarchyError::WrongKind {
                method,
                kind: comparisons.kind().to_string(),
            })?;
    for (row, q) in rows.iter().enumerate() {
        if crate::cancel::requested_every(row) {
            return Err(HierarchyError::Cancelled);
        }
        for item in q.items() {
            if item as usize >= n {
                return Err(HierarchyError::ItemOutOfRange {
                    row,
                    item: item as usize,
                    n_items: n,
                });
            }
        }
    }
    let mut skipped = 0;
    let mut signed: Vec<(u64, u64, i64)> = Vec::with_capacity(rows.len());
    for (row, q) in rows.iter().enumerate() {
        if crate::cancel::requested_every(row) {
            return Err(HierarchyError::Cancelled);
        }
        // Degenerate rows (a repeated item, or the same pair on both sides) say nothing.
        if q.is_degenerate() {
            skipped += 1;
            continue;
        }
        let e = pair_key(q.a, q.b);
        let f = pair_key(q.c, q.d);
        if e < f {
            signed.push((e, f, 1));
        } else {
            signed.push((f, e, -1));
        }
    }
    drop(rows);
    signed.sort_unstable_by_key(|x| (x.0, x.1));
    if crate::cancel::requested() {
        return Err(HierarchyError::Cancelled);
    }
    let mut out: Vec<(u64, u64, i64)> = Vec::with_capacity(signed.len());
    for (e, f, c) in signed {
        match out.last_mut() {
            Some(last) if last.0 == e && last.1 == f => last.2 += c,
            _ => out.push((e, f, c)),
        }
    }
    out.retain(|x| x.2 != 0);
    Ok((out, skipped))
}

/// Convert kodama's steps (scipy labels) into our [`Dendrogram`].
pub(crate) fn from_kodama(
    n: usize,
    d: &kodama::Dendrogram<f64>,
) -> Result<Dendrogram, HierarchyError> {
    let steps = d
        .steps()
        .iter()
        .map(|s| Merge {
            a: s.cluster1.min(s.cluster2),
            b: s.cluster1.max(s.cluster2),
            height: s.dissimilarity,
            size: s.size,
        })
        .collect();
    Ok(Dendrogram::new(n, steps)?)
}

/// Average linkage (kodama) on a dense symmetric similarity given row-major, using the
/// dissimilarity `max − s` so every entry is finite and non-negative.
pub(crate) fn average_linkage_of_similarity(
    n: usize,
    sim: &[f64],
) -> Result<Dendrogram, HierarchyError> {
    if n == 1 {
        return Ok(Dendrogram::new(1, Vec::new())?);
    }
    let mut max = f64::NEG_INFINITY;
    for i in 0..n {
        for j in i + 1..n {
            max = max.max(sim[i * n + j]);
        }
    }
    let mut condensed = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            condensed.push(max - sim[i * n + j]);
        }
    }
    let d = kodama::linkage(&mut condensed, n, kodama::Method::Average);
    from_kodama(n, &d)
}

/// Average linkage on any similarity `w` (Ghoshdastidar et al. 2019, §2.1, `W(G, G') = mean w_ij`), via kodama on the
/// dissimilarity `max w − w`. Used by the embedding baselines of Ghoshdastidar et al. 2019, §4.2 (tSTE-AL: t-STE
/// embedding, then average linkage on the cosine similarity of the embedded points).
pub fn average_linkage<S: crate::simulate::Similarity + ?Sized>(
    sim: &S,
) -> Result<Dendrogram, HierarchyError> {
    let n = sim.n_items();
    if n == 0 {
        return Err(HierarchyError::NoItems);
    }
    crate::limits::reserve_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
    let mut dense = vec![0.0; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let w = sim.similarity(i, j);
            dense[i * n + j] = w;
            dense[j * n + i] = w;
        }
    }
    average_linkage_of_similarity(n, &dense)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::DenseSimilarity;
    use proptest::prelude::*;

    /// Naive average linkage straight from Ghoshdastidar et al. 2019, §2.1: merge the two clusters with the largest
    /// mean item similarity. Returns the clusters formed, as sorted member lists.
    fn naive_average_clusters(n: usize, w: &[f64]) -> Vec<Vec<usize>> {
        let mut clusters: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        let mut formed = Vec::new();
        while clusters.len() > 1 {
            let mut best = (f64::NEG_INFINITY, 0, 0);
            for p in 0..clusters.len() {
                for q in p + 1..clusters.len() {
                    let mut s = 0.0;
                    for &i in &clusters[p] {
                        for &j in &clusters[q] {
                            s += w[i * n + j];
                        }
                    }
                    let v = s / (clusters[p].len() * clusters[q].len()) as f64;
                    if v > best.0 {
                        best = (v, p, q);
                    }
                }
            }
            let (_, p, q) = best;
            let b = clusters.remove(q);
            let mut a = clusters.remove(p);
            a.extend(b);
            a.sort_unstable();
            formed.push(a.clone());
            clusters.push(a);
        }
        formed.sort();
        formed
    }

    proptest! {
        #[test]
        fn average_linkage_matches_naive(n in 2usize..9, seed in 0u64..1000) {
            // distinct random similarities so the merge order is unique
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut w = vec![0.0; n * n];
            for i in 0..n {
                for j in i + 1..n {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let v = (x >> 11) as f64 / (1u64 << 53) as f64;
                    w[i * n + j] = v;
                    w[j * n + i] = v;
                }
            }
            let d = average_linkage(&DenseSimilarity::new(n, w.clone()).unwrap()).unwrap();
            let members = d.members();
            let mut formed: Vec<Vec<usize>> = members[n..]
                .iter()
                .map(|m| {
                    let mut m = m.clone();
                    m.sort_unstable();
                    m
                })
                .collect();
            formed.sort();
            prop_assert_eq!(formed, naive_average_clusters(n, &w));
        }
    }
}
