//! MulK-3 and MulK-4 (Perrot et al. 2020, App. A), computed from sparse per-item comparison vectors.
//!
//! Both kernels are inner products `S_ij = ⟨v_i, v_j⟩` of sparse signed vectors:
//! - MulK-3 (Kleindessner & von Luxburg 2017, kernel k1): `v_i[(r,s)] = #(i,r,s) − #(i,s,r)`
//!   for r < s, divided by `sqrt(|T_i| |T_j|)`;
//! - MulK-4 (Ghoshdastidar et al. 2019 = Ghoshdastidar et al. 2019's passive 4K-AL kernel, eq. 3):
//!   `v_i[(ℓ,{r,s})] = #({i,ℓ} ≻ {r,s}) − #({r,s} ≻ {i,ℓ})`.
//!
//! Rather than forming `v_i` densely (n² resp. n³ entries per item), we list the non-zero
//! entries `(key, item, value)`, sort them by key, and for every key add `v_x·v_y` to `S_xy` for
//! all pairs of items sharing it. The cost is `O(E log E + Σ_key |items(key)|²)` for `E` non-zero
//! entries (E ≤ rows for MulK-3, ≤ 4·rows for MulK-4); no n³ or n⁴ array is ever formed.
//! The entries are generated and sorted in blocks of the key's first component (about 256 MB
//! at a time), so only one block is held next to the canonical counts.
//! All numerators are integers, summed exactly in `f64`, so the order of summation (and the
//! thread count, and the blocks) does not change the result.

use faer::Mat;
use rayon::prelude::*;

use super::error::{SimilarityError, check_n};
use super::{Similarity, SimilarityVariant};
use crate::data::{Batch, CanonicalCounts, ComparisonKind, Quadruplet, Triplet};

fn check_rows<const A: usize>(
    n: usize,
    rows: impl Iterator<Item = [u32; A]>,
) -> Result<(), SimilarityError> {
    for (row, items) in rows.enumerate() {
        if let Some(&index) = items.iter().find(|&&x| x as usize >= n) {
            return Err(SimilarityError::IndexOutOfRange {
                row: row as u64,
                index,
                n_items: n,
            });
        }
    }
    Ok(())
}

/// Bytes of `(key, item, value)` entries sorted at a time: the entries are generated and
/// sorted in blocks of the key's first component, so MulK-4 of 10⁸ quadruplets needs one
/// block (not 4 entries per quadruplet, ≈ 10 GB) next to the canonical counts.
const BLOCK_BYTES: usize = 256 << 20;

/// `S_xy = Σ_key v_x[key]·v_y[key]` over the entries that `emit(range, out)` pushes for the
/// keys whose first component lies in `range` (each `(key, item)` at most once), processed in
/// blocks of about `block_bytes` of entries out of `total` in all. Checks for cancellation
/// ([`crate::cancel`]) after every sort and every [`CHECK_EVERY`](crate::cancel::CHECK_EVERY)
/// products.
fn blocked_products<K: Ord + Copy + Send>(
    n: usize,
    total: usize,
    block_bytes: usize,
    emit: impl Fn(std::ops::Range<u32>, &mut Vec<(K, u32, i64)>),
) -> Result<Mat<f64>, SimilarityError> {
    let bytes = total.saturating_mul(std::mem::size_of::<(K, u32, i64)>());
    let blocks = bytes.div_ceil(block_bytes.max(1)).clamp(1, n.max(1));
    let width = n.div_ceil(blocks).max(1);
    let mut s = Mat::<f64>::zeros(n, n);
    let mut entries = Vec::new();
    for lo in (0..n).step_by(width) {
        entries.clear();
        emit(lo as u32..(lo + width).min(n) as u32, &mut entries);
        entries.par_sort_unstable_by_key(|e| (e.0, e.1));
        accumulate_products(&mut s, &entries)?;
    }
    Ok(s)
}

/// Add `v_x·v_y` to `S_xy` and `S_yx` over all pairs x ≠ y of items sharing a key.
/// `entries` must be sorted by key; within a key each item appears at most once.
fn accumulate_products<K: Eq + Copy>(
    s: &mut Mat<f64>,
    entries: &[(K, u32, i64)],
) -> Result<(), SimilarityError> {
    // Products since the last check (a key shared by g items costs g²/2; the first check
    // comes before any work).
    let mut work = crate::cancel::CHECK_EVERY;
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        if work >= crate::cancel::CHECK_EVERY {
            if crate::cancel::requested() {
                return Err(SimilarityError::Cancelled);
            }
            work = 0;
        }
        work += 1 + group.len() * group.len() / 2;
        for (a, &(_, x, vx)) in group.iter().enumerate() {
            for &(_, y, vy) in &group[a + 1..] {
                let p = (vx * vy) as f64;
                s[(x as usize, y as usize)] += p;
                s[(y as usize, x as usize)] += p;
            }
        }
    }
    Ok(())
}

/// MulK-3 (Perrot et al. 2020, App. A; Kleindessner & von Luxburg 2017) from triplet rows over `0..n_items`:
///
/// `S_ij = Σ_{r<s} (I{(i,r,s)∈T} − I{(i,s,r)∈T})(I{(j,r,s)∈T} − I{(j,s,r)∈T}) / sqrt(|T_i|·|T_j|)`
///
/// for i ≠ j, where `|T_i|` is the number of rows with anchor i; `S_ii = 0`, and entries of an
/// item that anchors no triplet are 0. Degenerate rows are skipped (see [`crate::similarity`]).
pub fn mulk3(n_items: usize, triplets: &[Triplet]) -> Result<Mat<f64>, SimilarityError> {
    mulk3_blocked(n_items, triplets, BLOCK_BYTES)
}

/// [`mulk3`], sorting entries in blocks of about `block_bytes`.
fn mulk3_blocked(
    n_items: usize,
    triplets: &[Triplet],
    block_bytes: usize,
) -> Result<Mat<f64>, SimilarityError> {
    check_n(n_items)?;
    check_rows(n_items, triplets.iter().map(|t| t.items()))?;
    let valid = triplets.iter().filter(|t| !t.is_degenerate());
    let mut anchored = vec![0u64; n_items];
    for t in valid.clone() {
        anchored[t.anchor as usize] += 1;
    }
    let counts = CanonicalCounts::from_signed(valid.map(|t| t.canonical()));
    mulk3_of_counts(n_items, &counts.entries, &anchored, block_bytes)
}

/// MulK-3 from the net signed count of every canonical triplet `(i, r, s)`, r < s (sorted by
/// key, each key once) and the number of non-degenerate rows anchored at each item.
fn mulk3_of_counts(
    n_items: usize,
    entries: &[([u32; 3], i64)],
    anchored: &[u64],
    block_bytes: usize,
) -> Result<Mat<f64>, SimilarityError> {
    // key (r, s) with r < s; item = anchor.
    let mut s = blocked_products(n_items, entries.len(), block_bytes, |range, out| {
        out.extend(
            entries
                .iter()
                .filter(|&&([_, r, _], v)| v != 0 && range.contains(&r))
                .map(|&([i, r, s], v)| ((r, s), i, v)),
        )
    })?;
    let norm: Vec<f64> = anchored.iter().map(|&c| (c as f64).sqrt()).collect();
    for j in 0..n_items {
        for i in 0..n_items {
            let d = norm[i] * norm[j];
            s[(i, j)] = if d > 0.0 { s[(i, j)] / d } else { 0.0 };
        }
    }
    Ok(s)
}

/// MulK-4 (Perrot et al. 2020, App. A; Ghoshdastidar et al. 2019) from quadruplet rows over `0..n_items`:
///
/// `S_ij = Σ_{ℓ≠i,j} Σ_{r<s} (I{(i,ℓ,r,s)∈Q} − I{(r,s,i,ℓ)∈Q})(I{(j,ℓ,r,s)∈Q} − I{(r,s,j,ℓ)∈Q})`
///
/// for i ≠ j, `S_ii = 0`, pairs unordered. This is also the passive 4K-AL kernel of Ghoshdastidar et al. 2019, eq. (3)
/// (see [`crate::similarity`] for the correspondence). Triplets can be used through
/// [`Triplet::to_quadruplet`] (`(i,j,i,k)`, Ghoshdastidar et al. 2019, App. B.3).
pub fn mulk4(n_items: usize, quadruplets: &[Quadruplet]) -> Result<Mat<f64>, SimilarityError> {
    mulk4_blocked(n_items, quadruplets, BLOCK_BYTES)
}

/// [`mulk4`], sorting entries in blocks of about `block_bytes`.
fn mulk4_blocked(
    n_items: usize,
    quadruplets: &[Quadruplet],
    block_bytes: usize,
) -> Result<Mat<f64>, SimilarityError> {
    check_n(n_items)?;
    check_rows(n_items, quadruplets.iter().map(|q| q.items()))?;
    let valid = quadruplets.iter().filter(|q| !q.is_degenerate());
    let counts = CanonicalCounts::from_signed(valid.map(|q| q.canonical()));
    mulk4_of_counts(n_items, &counts.entries, block_bytes)
}

/// MulK-4 from the net signed count of every canonical quadruplet (sorted by key, each key
/// once).
fn mulk4_of_counts(
    n_items: usize,
    entries: &[([u32; 4], i64)],
    block_bytes: usize,
) -> Result<Mat<f64>, SimilarityError> {
    // For canonical {p0,p1} ≻ {q0,q1} with net count v: v_{p0}[(p1,q)] += v, v_{p1}[(p0,q)] += v,
    // v_{q0}[(q1,p)] -= v, v_{q1}[(q0,p)] -= v. Each (item, key) arises from exactly one
    // canonical quadruplet, so no further aggregation is needed.
    let total = 4 * entries.len();
    blocked_products(n_items, total, block_bytes, |range, out| {
        for &([p0, p1, q0, q1], v) in entries {
            if v == 0 {
                continue;
            }
            for (key, item, value) in [
                ((p1, q0, q1), p0, v),
                ((p0, q0, q1), p1, v),
                ((q1, p0, p1), q0, -v),
                ((q0, p0, p1), q1, -v),
            ] {
                if range.contains(&key.0) {
                    out.push((key, item, value));
                }
            }
        }
    })
}

/// Rows gathered before they are sorted into the net counts (16 MB of triplet entries): the
/// least work per fold, whatever the number of distinct comparisons.
const FOLD_MIN: usize = 1 << 20;

/// Net signed counts of canonical comparisons, gathered from rows as they arrive: runs of
/// equal keys (a `list-count` row unrolled into a million equal rows) are merged as they come,
/// and the rows gathered are sorted and merged into the counts whenever they are as many as
/// the counts (or [`FOLD_MIN`]). Memory is about twice the distinct comparisons, not the rows.
#[derive(Debug)]
struct NetCounts<K> {
    /// `(key, net count)`, sorted by key, each key once, no zero count.
    folded: Vec<(K, i64)>,
    /// Rows since the last fold, runs of one key merged.
    pending: Vec<(K, i64)>,
}

impl<K: Ord + Copy + Send> NetCounts<K> {
    fn new() -> Self {
        NetCounts {
            folded: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn push(&mut self, key: K, sign: i8) {
        let v = i64::from(sign.signum());
        match self.pending.last_mut() {
            Some(last) if last.0 == key => last.1 = last.1.saturating_add(v),
            _ => {
                self.pending.push((key, v));
                if self.pending.len() >= FOLD_MIN.max(self.folded.len()) {
                    self.fold();
                }
            }
        }
    }

    /// Sort the pending rows and merge them into the counts.
    fn fold(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.par_sort_unstable_by_key(|e| e.0);
        let mut out: Vec<(K, i64)> = Vec::with_capacity(self.folded.len() + self.pending.len());
        let (mut a, mut b) = (
            self.folded.iter().peekable(),
            self.pending.iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            let &(k, v) = next.expect("peeked");
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = last.1.saturating_add(v),
                _ => out.push((k, v)),
            }
        }
        out.retain(|e| e.1 != 0);
        self.folded = out;
        self.pending = Vec::new();
    }

    fn finish(mut self) -> Vec<(K, i64)> {
        self.fold();
        self.folded
    }
}

/// MulK-3 or MulK-4 (Perrot et al. 2020, App. A) from batches of rows whose kind is known only
/// when the first batch arrives (a file read chunk by chunk,
/// [`stream_comparisons`](crate::data::stream_comparisons)); the number of items may grow
/// between batches. It keeps the net count of every distinct comparison rather than the rows
/// (a `list-count` row with a count of a million is one entry) and, for MulK-3, the rows
/// anchored at each item, so memory follows the distinct comparisons and the `n × n` result,
/// not the rows. The result equals [`mulk3`] / [`mulk4`] of all the rows.
#[derive(Debug, Default)]
pub struct MulKAccumulator {
    state: MulKState,
    /// Rows added, degenerate ones included (as [`Similarity::compute`](super::Similarity::compute) counts them).
    rows: u64,
}

#[derive(Debug, Default)]
enum MulKState {
    #[default]
    Empty,
    Three {
        counts: NetCounts<[u32; 3]>,
        anchored: Vec<u64>,
    },
    Four(NetCounts<[u32; 4]>),
}

impl MulKAccumulator {
    /// An accumulator that has seen no rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grow to `n_items` (every index of the batch is below it) and add a batch. The first
    /// batch fixes the kind; same-cluster answers and a batch of the other kind are refused.
    pub fn add(&mut self, batch: Batch<'_>, n_items: usize) -> Result<(), SimilarityError> {
        check_n(n_items)?;
        if let MulKState::Empty = self.state {
            self.state = match batch {
                Batch::Triplets(_) => MulKState::Three {
                    counts: NetCounts::new(),
                    anchored: Vec::new(),
                },
                Batch::Quadruplets(_) => MulKState::Four(NetCounts::new()),
                Batch::SameCluster(_) => {
                    return Err(SimilarityError::UnsupportedKind {
                        kind: ComparisonKind::SameCluster,
                    });
                }
            };
        }
        match (&mut self.state, batch) {
            (MulKState::Three { counts, anchored }, Batch::Triplets(t)) => {
                check_rows(n_items, t.iter().map(|t| t.items()))?;
                anchored.resize(anchored.len().max(n_items), 0);
                for row in t.iter().filter(|t| !t.is_degenerate()) {
                    anchored[row.anchor as usize] += 1;
                    let (key, sign) = row.canonical();
                    counts.push(key, sign);
                }
                self.rows += t.len() as u64;
                Ok(())
            }
            (MulKState::Four(counts), Batch::Quadruplets(q)) => {
                check_rows(n_items, q.iter().map(|q| q.items()))?;
                for row in q.iter().filter(|q| !q.is_degenerate()) {
                    let (key, sign) = row.canonical();
                    counts.push(key, sign);
                }
                self.rows += q.len() as u64;
                Ok(())
            }
            (state, batch) => Err(SimilarityError::MixedKinds {
                first: match state {
                    MulKState::Four(_) => ComparisonKind::Quadruplets,
                    _ => ComparisonKind::Triplets,
                },
                then: match batch {
                    Batch::Triplets(_) => ComparisonKind::Triplets,
                    Batch::Quadruplets(_) => ComparisonKind::Quadruplets,
                    Batch::SameCluster(_) => ComparisonKind::SameCluster,
                },
            }),
        }
    }

    /// The similarity over `n_items` (at least the items seen so far).
    pub fn finish(self, n_items: usize) -> Result<Similarity, SimilarityError> {
        check_n(n_items)?;
        let (matrix, kind) = match self.state {
            MulKState::Three {
                counts,
                mut anchored,
            } => {
                anchored.resize(anchored.len().max(n_items), 0);
                let entries = counts.finish();
                let m = mulk3_of_counts(n_items, &entries, &anchored, BLOCK_BYTES)?;
                (m, SimilarityVariant::MulK3)
            }
            MulKState::Four(counts) => {
                let entries = counts.finish();
                let m = mulk4_of_counts(n_items, &entries, BLOCK_BYTES)?;
                (m, SimilarityVariant::MulK4)
            }
            MulKState::Empty => return Err(SimilarityError::NoRows),
        };
        Ok(Similarity {
            matrix,
            kind,
            n_comparisons: usize::try_from(self.rows).unwrap_or(usize::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulk3_two_anchors_agree() {
        // Both 0 and 1 say "2 closer than 3": v_0 = v_1 = e_(2,3), |T_0| = |T_1| = 1.
        let s = mulk3(4, &[Triplet::new(0, 2, 3), Triplet::new(1, 2, 3)]).unwrap();
        assert_eq!(s[(0, 1)], 1.0);
        assert_eq!(s[(1, 0)], 1.0);
        assert_eq!(s[(0, 0)], 0.0);
        assert_eq!(s[(2, 3)], 0.0);
    }

    proptest::proptest! {
        /// Sorting in many small blocks gives exactly the one-block result.
        #[test]
        fn blocks_do_not_change_the_result(
            n in 4usize..12,
            rows in proptest::collection::vec((0u32..12, 0u32..12, 0u32..12, 0u32..12), 0..80),
            block in 1usize..200,
        ) {
            let rows: Vec<[u32; 4]> = rows.iter().map(|&(a, b, c, d)| [a, b, c, d].map(|x| x % n as u32)).collect();
            let t: Vec<Triplet> = rows.iter().map(|r| Triplet::new(r[0], r[1], r[2])).collect();
            let q: Vec<Quadruplet> = rows.iter().map(|r| Quadruplet::new(r[0], r[1], r[2], r[3])).collect();
            proptest::prop_assert_eq!(mulk3_blocked(n, &t, block).unwrap(), mulk3(n, &t).unwrap());
            proptest::prop_assert_eq!(mulk4_blocked(n, &q, block).unwrap(), mulk4(n, &q).unwrap());
        }
    }

    proptest::proptest! {
        /// Rows fed in batches of any size, the items growing between them, give exactly
        /// MulK-3 / MulK-4 of all the rows; a row repeated (a list-count row unrolled) is
        /// merged as it comes.
        #[test]
        fn accumulator_equals_the_whole(
            n in 4usize..12,
            rows in proptest::collection::vec((0u32..12, 0u32..12, 0u32..12, 0u32..12, 1usize..4), 0..60),
            batch in 1usize..50,
        ) {
            let mut rows: Vec<[u32; 4]> = rows
                .iter()
                .flat_map(|&(a, b, c, d, times)| {
                    std::iter::repeat_n([a, b, c, d].map(|x| x % n as u32), times)
                })
                .collect();
            // The items seen so far grow: sort by the largest index of a row.
            rows.sort_by_key(|r| *r.iter().max().unwrap());
            let t: Vec<Triplet> = rows.iter().map(|r| Triplet::new(r[0], r[1], r[2])).collect();
            let q: Vec<Quadruplet> = rows.iter().map(|r| Quadruplet::new(r[0], r[1], r[2], r[3])).collect();
            let seen = |rows: &[[u32; 4]], k: usize| {
                rows.iter().map(|r| r[..k].iter().max().map_or(0, |&m| m as usize + 1)).max().unwrap_or(0)
            };
            let (mut a3, mut a4) = (MulKAccumulator::new(), MulKAccumulator::new());
            let mut so_far = (0, 0);
            for (i, chunk) in t.chunks(batch).enumerate() {
                let r = &rows[i * batch..i * batch + chunk.len()];
                so_far = (so_far.0.max(seen(r, 3)), so_far.1.max(seen(r, 4)));
                a3.add(Batch::Triplets(chunk), so_far.0).unwrap();
                a4.add(Batch::Quadruplets(&q[i * batch..i * batch + chunk.len()]), so_far.1).unwrap();
            }
            if rows.is_empty() {
                proptest::prop_assert_eq!(a3.finish(n).unwrap_err(), SimilarityError::NoRows);
            } else {
                let s3 = a3.finish(n).unwrap();
                let s4 = a4.finish(n).unwrap();
                proptest::prop_assert_eq!(s3.matrix, mulk3(n, &t).unwrap());
                proptest::prop_assert_eq!(s4.matrix, mulk4(n, &q).unwrap());
                proptest::prop_assert_eq!(s3.n_comparisons, rows.len());
                proptest::prop_assert_eq!(s4.kind, SimilarityVariant::MulK4);
            }
        }
    }

    #[test]
    fn net_counts_fold_and_merge() {
        let mut c = NetCounts::new();
        for i in 0..(3 * FOLD_MIN as u32) {
            // Runs merge as they come; keys alternate so that folds happen.
            c.push([i % 5, 0, 0], if i % 3 == 0 { -1 } else { 1 });
        }
        c.push([7, 0, 0], 1);
        c.push([7, 0, 0], -1);
        let got = c.finish();
        let mut want = [0i64; 5];
        for i in 0..(3 * FOLD_MIN as u32) {
            want[(i % 5) as usize] += if i % 3 == 0 { -1 } else { 1 };
        }
        let want: Vec<([u32; 3], i64)> = (0..5u32)
            .map(|k| ([k, 0, 0], want[k as usize]))
            .filter(|e| e.1 != 0)
            .collect();
        assert_eq!(got, want, "the zero net count of [7, 0, 0] is dropped");
    }

    #[test]
    fn every_cancellation_check_of_mulk_stops_it() {
        use crate::cancel::stops_at_every_check;
        use rand::{RngExt, SeedableRng};
        let n = 40u32;
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let mut item = || rng.random_range(0..n);
        let rows: Vec<[u32; 4]> = (0..5000)
            .map(|_| [item(), item(), item(), item()])
            .collect();
        let t: Vec<Triplet> = rows
            .iter()
            .map(|r| Triplet::new(r[0], r[1], r[2]))
            .collect();
        let q: Vec<Quadruplet> = rows
            .iter()
            .map(|r| Quadruplet::new(r[0], r[1], r[2], r[3]))
            .collect();
        let cancelled = |e: &SimilarityError| *e == SimilarityError::Cancelled;
        // Several blocks, each with a check before its products and more within them.
        let c3 = stops_at_every_check(1000, || mulk3_blocked(n as usize, &t, 20_000), cancelled);
        let c4 = stops_at_every_check(1000, || mulk4_blocked(n as usize, &q, 20_000), cancelled);
        assert!(c3 > 2 && c4 > 2, "{c3} and {c4} checks");
    }

    #[test]
    fn mulk4_shared_reference() {
        // {0,4} ≻ {2,3} and {1,4} ≻ {2,3}: v_0[(4,(2,3))] = v_1[(4,(2,3))] = 1.
        let q = [Quadruplet::new(0, 4, 2, 3), Quadruplet::new(4, 1, 3, 2)];
        let s = mulk4(5, &q).unwrap();
        assert_eq!(s[(0, 1)], 1.0);
        assert_eq!(s[(1, 0)], 1.0);
    }
}
