//! AddS-3 and AddS-4 (Perrot et al. 2020, §4): one pass over the comparisons, adding ±1 per row.
//!
//! AddS-3: `S_ij = Σ_{r≠i,j} I{(i,j,r)∈T} − I{(i,r,j)∈T} + I{(j,i,r)∈T} − I{(j,r,i)∈T}`, so a
//! triplet row `(a, near, far)` adds +1 to `S_{a,near}` and −1 to `S_{a,far}` (and their
//! symmetric entries).
//! AddS-4: `S_ij = Σ_{r<s} I{(i,j,r,s)∈Q} − I{(r,s,i,j)∈Q}`, so a quadruplet row `(a,b,c,d)`
//! adds +1 to `S_{ab}` and −1 to `S_{cd}`.
//!
//! Counts live in an `n × n` `i32` array (only the upper triangle `i < j` is touched, index
//! `i·stride + j` with `stride ≥ n`, so that a streaming accumulator can grow its item range
//! without moving entries on every new item); for n = 1000 that is 4 MB, which stays in L2/L3
//! so the random increments are cache hits. Each row changes an entry by at most 1, so the `i32` counts are spilled into an
//! `i64` array before 2³¹ − 1 rows have been added: no overflow for any stream length.
//! The parallel versions give each rayon thread its own counts over a contiguous chunk of the
//! rows and sum them; integer sums make the result independent of the thread count.

use faer::Mat;
use rayon::prelude::*;

use super::error::{MAX_ITEMS, SimilarityError, check_n};
use crate::data::{Quadruplet, Triplet};

/// Rows added to the `i32` counts between spills (each row moves an entry by at most 1).
const SPILL_EVERY: u64 = i32::MAX as u64;

/// Per-thread dense `i32` accumulators are only used while they take at most this many bytes
/// in total; beyond that (n ≳ 8000 on 2 threads) the pass runs on one thread.
const PARALLEL_MEMORY_BUDGET: usize = 512 << 20;

/// Fewer rows than this are accumulated on one thread (allocation would dominate).
const PARALLEL_MIN_ROWS: usize = 1 << 16;

/// What one comparison row does to the pair counts.
enum Effect {
    /// +1 at the first upper-triangle index, −1 at the second.
    PlusMinus(usize, usize),
    /// Degenerate row, outside the papers' T / Q: ignored.
    Skip,
}

/// A comparison row that AddS can accumulate.
trait AddsRow: Copy + Send + Sync {
    /// Largest item index in the row.
    fn max_item(self) -> u32;
    /// The first item index that is `>= n`, if any.
    fn bad_item(self, n: usize) -> Option<u32>;
    /// Effect of the row (all indices are known to be `< n <= stride`).
    fn effect(self, stride: usize) -> Effect;
}

#[inline(always)]
fn upper(stride: usize, a: u32, b: u32) -> usize {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    lo as usize * stride + hi as usize
}

impl AddsRow for Triplet {
    #[inline(always)]
    fn max_item(self) -> u32 {
        self.anchor.max(self.near).max(self.far)
    }
    fn bad_item(self, n: usize) -> Option<u32> {
        self.items().into_iter().find(|&x| x as usize >= n)
    }
    #[inline(always)]
    fn effect(self, stride: usize) -> Effect {
        if self.is_degenerate() {
            Effect::Skip
        } else {
            let Triplet { anchor, near, far } = self;
            Effect::PlusMinus(upper(stride, anchor, near), upper(stride, anchor, far))
        }
    }
}

impl AddsRow for Quadruplet {
    #[inline(always)]
    fn max_item(self) -> u32 {
        self.a.max(self.b).max(self.c).max(self.d)
    }
    fn bad_item(self, n: usize) -> Option<u32> {
        self.items().into_iter().find(|&x| x as usize >= n)
    }
    #[inline(always)]
    fn effect(self, stride: usize) -> Effect {
        if self.is_degenerate() {
            Effect::Skip
        } else {
            let Quadruplet { a, b, c, d } = self;
            Effect::PlusMinus(upper(stride, a, b), upper(stride, c, d))
        }
    }
}

/// Dense signed pair counts with overflow spill (shared by both accumulators).
#[derive(Clone, Debug)]
struct PairCounts {
    /// Items `0..n` may appear in rows.
    n: usize,
    /// Row length of the count arrays (`>= n`); see [`PairCounts::grow`].
    stride: usize,
    counts: Vec<i32>,
    spill: Option<Vec<i64>>,
    since_spill: u64,
    rows: u64,
    skipped: u64,
}

impl PairCounts {
    fn new(n: usize) -> Result<Self, SimilarityError> {
        check_n(n)?;
        Ok(PairCounts {
            n,
            stride: n,
            counts: vec![0; n * n],
            spill: None,
            since_spill: 0,
            rows: 0,
            skipped: 0,
        })
    }

    fn spill(&mut self) {
        let spill = self.spill.get_or_insert_with(|| vec![0; self.counts.len()]);
        for (s, c) in spill.iter_mut().zip(self.counts.iter_mut()) {
            *s += i64::from(*c);
            *c = 0;
        }
        self.since_spill = 0;
    }

    /// Extend the item range to `0..n_items` (no-op when it is not larger). The count arrays
    /// grow by at least a quarter of their row length at a time, so that items arriving one by
    /// one (labels first seen in a stream) cost `O(n²)` copies in total, not `O(n³)`.
    fn grow(&mut self, n_items: usize) -> Result<(), SimilarityError> {
        if n_items <= self.n {
            return Ok(());
        }
        check_n(n_items)?;
        if n_items > self.stride {
            let stride = n_items.max(self.stride + self.stride / 4).min(MAX_ITEMS);
            self.counts = restride(&self.counts, self.stride, self.n, stride);
            if let Some(sp) = &self.spill {
                self.spill = Some(restride(sp, self.stride, self.n, stride));
            }
            self.stride = stride;
        }
        self.n = n_items;
        Ok(())
    }

    /// Validate the whole batch (so that an index error leaves the counts untouched), then add
    /// it, checking for cancellation ([`crate::cancel`]) every
    /// [`CHECK_EVERY`](crate::cancel::CHECK_EVERY) rows; a cancelled batch is added up to the
    /// last check before it stopped (`rows` counts what was added).
    fn add<R: AddsRow>(&mut self, rows: &[R]) -> Result<(), SimilarityError> {
        let (n, stride) = (self.n, self.stride);
        let max = rows.iter().map(|r| r.max_item()).max().unwrap_or(0);
        if !rows.is_empty() && max as usize >= n {
            let (pos, index) = rows
                .iter()
                .enumerate()
                .find_map(|(k, r)| r.bad_item(n).map(|x| (k, x)))
                .expect("some row has an index >= n");
            return Err(SimilarityError::IndexOutOfRange {
                row: self.rows + pos as u64,
                index,
                n_items: n,
            });
        }
        let mut rest = rows;
        while !rest.is_empty() {
            if self.since_spill >= SPILL_EVERY {
                self.spill();
            }
            let room = (SPILL_EVERY - self.since_spill).min(rest.len() as u64) as usize;
            let (now, later) = rest.split_at(room);
            for block in now.chunks(crate::cancel::CHECK_EVERY) {
                if crate::cancel::requested() {
                    return Err(SimilarityError::Cancelled);
                }
                self.add_block(block, stride);
            }
            rest = later;
        }
        Ok(())
    }

    /// Add rows known to be in range and to fit before the next spill.
    fn add_block<R: AddsRow>(&mut self, rows: &[R], stride: usize) {
        let mut skipped = 0u64;
        let counts = &mut self.counts[..];
        for &r in rows {
            match r.effect(stride) {
                Effect::PlusMinus(p, m) => {
                    counts[p] += 1;
                    counts[m] -= 1;
                }
                Effect::Skip => skipped += 1,
            }
        }
        self.skipped += skipped;
        self.since_spill += rows.len() as u64;
        self.rows += rows.len() as u64;
    }

    /// Add another accumulator's counts into this one (same n and stride).
    fn merge(&mut self, other: PairCounts) {
        debug_assert_eq!((self.n, self.stride), (other.n, other.stride));
        if self.since_spill + other.since_spill > SPILL_EVERY {
            self.spill();
        }
        for (c, o) in self.counts.iter_mut().zip(&other.counts) {
            *c += *o;
        }
        self.since_spill += other.since_spill;
        if let Some(os) = other.spill {
            let spill = self.spill.get_or_insert_with(|| vec![0; os.len()]);
            for (s, o) in spill.iter_mut().zip(&os) {
                *s += *o;
            }
        }
        self.rows += other.rows;
        self.skipped += other.skipped;
    }

    fn finish(&self) -> Mat<f64> {
        let (n, stride) = (self.n, self.stride);
        let total = |i: usize, j: usize| -> f64 {
            if i == j {
                return 0.0;
            }
            let k = if i < j {
                i * stride + j
            } else {
                j * stride + i
            };
            let s = self.spill.as_ref().map_or(0, |s| s[k]);
            (i64::from(self.counts[k]) + s) as f64
        };
        Mat::from_fn(n, n, total)
    }
}

/// The `n × n` leading block of a row-major array with row length `old`, copied into a zeroed
/// array with row length `new`.
fn restride<T: Copy + Default>(v: &[T], old: usize, n: usize, new: usize) -> Vec<T> {
    let mut out = vec![T::default(); new * new];
    for i in 0..n {
        out[i * new..i * new + n].copy_from_slice(&v[i * old..i * old + n]);
    }
    out
}

fn parallel_counts<R: AddsRow>(n: usize, rows: &[R]) -> Result<PairCounts, SimilarityError> {
    check_n(n)?;
    let threads = rayon::current_num_threads().max(1);
    let fits = n
        .checked_mul(n)
        .and_then(|x| x.checked_mul(4 * threads))
        .is_some_and(|bytes| bytes <= PARALLEL_MEMORY_BUDGET);
    if threads == 1 || rows.len() < PARALLEL_MIN_ROWS || !fits {
        let mut acc = PairCounts::new(n)?;
        acc.add(rows)?;
        return Ok(acc);
    }
    let chunk = rows.len().div_ceil(threads);
    // rayon's workers do not see this thread's cancellation flag: hand it over.
    let flag = crate::cancel::current();
    let parts: Vec<Result<PairCounts, SimilarityError>> = rows
        .par_chunks(chunk)
        .enumerate()
        .map(|(c, part)| {
            crate::cancel::with_current(flag.as_ref(), || {
                let mut acc = PairCounts::new(n)?;
                // Row numbers in errors are global.
                acc.rows = (c * chunk) as u64;
                acc.add(part)?;
                acc.rows -= (c * chunk) as u64;
                Ok(acc)
            })
        })
        .collect();
    let mut it = parts.into_iter();
    let mut total = it.next().expect("at least one chunk")?;
    for p in it {
        total.merge(p?);
    }
    Ok(total)
}

/// AddS-3 (Perrot et al. 2020, §4) from triplet rows over items `0..n_items`, in one parallel pass.
///
/// `S_ij = Σ_{r≠i,j} I{(i,j,r)∈T} − I{(i,r,j)∈T} + I{(j,i,r)∈T} − I{(j,r,i)∈T}` for i ≠ j,
/// `S_ii = 0`; see the module docs of [`crate::similarity`] for the conventions. The result is
/// the same for any number of threads.
pub fn adds3(n_items: usize, triplets: &[Triplet]) -> Result<Mat<f64>, SimilarityError> {
    Ok(parallel_counts(n_items, triplets)?.finish())
}

/// AddS-4 (Perrot et al. 2020, §4) from quadruplet rows over items `0..n_items`, in one parallel pass.
///
/// `S_ij = Σ_{r<s} I{(i,j,r,s)∈Q} − I{(r,s,i,j)∈Q}` for i ≠ j (pairs unordered), `S_ii = 0`.
pub fn adds4(n_items: usize, quadruplets: &[Quadruplet]) -> Result<Mat<f64>, SimilarityError> {
    Ok(parallel_counts(n_items, quadruplets)?.finish())
}

/// Streaming AddS-3 (Perrot et al. 2020, §4): add triplets batch by batch (e.g. while reading a file larger
/// than memory), then [`finish`](Self::finish). Memory is `4·n²` bytes whatever the number
/// of rows; the result equals [`adds3`] on the concatenated batches.
#[derive(Clone, Debug)]
pub struct AddS3Accumulator(PairCounts);

impl AddS3Accumulator {
    /// An empty accumulator over items `0..n_items`.
    pub fn new(n_items: usize) -> Result<Self, SimilarityError> {
        Ok(AddS3Accumulator(PairCounts::new(n_items)?))
    }

    /// Extend the items to `0..n_items` (a no-op when not larger), for streams whose items
    /// are discovered as they arrive; new items start without comparisons.
    pub fn grow(&mut self, n_items: usize) -> Result<(), SimilarityError> {
        self.0.grow(n_items)
    }

    /// Number of items `n` so far.
    pub fn n_items(&self) -> usize {
        self.0.n
    }

    /// Add a batch of triplets (single-threaded). On an index error (an index `>= n_items`)
    /// nothing of the batch is added; when cancelled ([`crate::cancel`]) the rows before the
    /// cancellation are ([`rows`](Self::rows) counts them).
    pub fn add(&mut self, triplets: &[Triplet]) -> Result<(), SimilarityError> {
        self.0.add(triplets)
    }

    /// Number of rows added so far (including skipped degenerate ones).
    pub fn rows(&self) -> u64 {
        self.0.rows
    }

    /// Number of degenerate rows (items not distinct) that were skipped.
    pub fn skipped(&self) -> u64 {
        self.0.skipped
    }

    /// The AddS-3 similarity of everything added.
    pub fn finish(self) -> Mat<f64> {
        self.0.finish()
    }
}

/// Streaming AddS-4 (Perrot et al. 2020, §4); see [`AddS3Accumulator`].
#[derive(Clone, Debug)]
pub struct AddS4Accumulator(PairCounts);

impl AddS4Accumulator {
    /// An empty accumulator over items `0..n_items`.
    pub fn new(n_items: usize) -> Result<Self, SimilarityError> {
        Ok(AddS4Accumulator(PairCounts::new(n_items)?))
    }

    /// Extend the items to `0..n_items` (a no-op when not larger), for streams whose items
    /// are discovered as they arrive; new items start without comparisons.
    pub fn grow(&mut self, n_items: usize) -> Result<(), SimilarityError> {
        self.0.grow(n_items)
    }

    /// Number of items `n` so far.
    pub fn n_items(&self) -> usize {
        self.0.n
    }

    /// Add a batch of quadruplets (single-threaded). On an index error nothing of the batch is
    /// added; when cancelled the rows before the cancellation are (see
    /// [`AddS3Accumulator::add`]).
    pub fn add(&mut self, quadruplets: &[Quadruplet]) -> Result<(), SimilarityError> {
        self.0.add(quadruplets)
    }

    /// Number of rows added so far (including skipped degenerate ones).
    pub fn rows(&self) -> u64 {
        self.0.rows
    }

    /// Number of degenerate rows (a pair (a,a), or {a,b} = {c,d}) that were skipped.
    pub fn skipped(&self) -> u64 {
        self.0.skipped
    }

    /// The AddS-4 similarity of everything added.
    pub fn finish(self) -> Mat<f64> {
        self.0.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_triplet() {
        let s = adds3(3, &[Triplet::new(0, 1, 2)]).unwrap();
        assert_eq!(s[(0, 1)], 1.0);
        assert_eq!(s[(1, 0)], 1.0);
        assert_eq!(s[(0, 2)], -1.0);
        assert_eq!(s[(2, 0)], -1.0);
        assert_eq!(s[(1, 2)], 0.0);
        assert_eq!(s[(0, 0)], 0.0);
    }

    #[test]
    fn spill_keeps_totals() {
        let mut acc = PairCounts::new(3).unwrap();
        acc.add(&[Triplet::new(0, 1, 2); 5]).unwrap();
        acc.spill();
        acc.add(&[Triplet::new(0, 1, 2); 2]).unwrap();
        let s = acc.finish();
        assert_eq!(s[(0, 1)], 7.0);
        assert_eq!(s[(2, 0)], -7.0);
    }

    #[test]
    fn bad_index_late_in_a_long_batch_adds_nothing_of_it() {
        let n = 50u32;
        let row = |i: u32| Triplet::new(i % n, (i * 7 + 1) % n, (i * 13 + 2) % n);
        let first: Vec<Triplet> = (0..300).map(row).collect();
        let mut second: Vec<Triplet> = (300..3000).map(row).collect();
        second[2100] = Triplet::new(3, 99, 4);
        let mut acc = AddS3Accumulator::new(n as usize).unwrap();
        acc.add(&first).unwrap();
        let skipped = acc.skipped();
        let err = acc.add(&second).unwrap_err();
        assert_eq!(
            err,
            SimilarityError::IndexOutOfRange {
                row: 2400,
                index: 99,
                n_items: n as usize
            }
        );
        assert_eq!((acc.rows(), acc.skipped()), (300, skipped));
        assert!(skipped > 0, "the rows include degenerate ones");
        assert_eq!(acc.finish(), adds3(n as usize, &first).unwrap());
    }

    #[test]
    fn bad_index_leaves_accumulator_unchanged() {
        let mut acc = AddS3Accumulator::new(3).unwrap();
        acc.add(&[Triplet::new(0, 1, 2)]).unwrap();
        let err = acc
            .add(&[Triplet::new(0, 1, 2), Triplet::new(0, 7, 2)])
            .unwrap_err();
        assert_eq!(
            err,
            SimilarityError::IndexOutOfRange {
                row: 2,
                index: 7,
                n_items: 3
            }
        );
        assert_eq!(acc.rows(), 1);
        assert_eq!(acc.finish()[(0, 1)], 1.0);
    }

    #[test]
    fn growth_keeps_counts_and_spill() {
        let mut acc = PairCounts::new(3).unwrap();
        acc.add(&[Triplet::new(0, 1, 2); 5]).unwrap();
        acc.spill();
        acc.add(&[Triplet::new(2, 0, 1)]).unwrap();
        acc.grow(4).unwrap();
        assert_eq!(acc.stride, 4);
        acc.grow(5).unwrap();
        assert_eq!((acc.n, acc.stride), (5, 5), "grows by at least a quarter");
        acc.grow(2).unwrap();
        assert_eq!(acc.n, 5, "never shrinks");
        acc.add(&[Triplet::new(4, 1, 3)]).unwrap();
        let s = acc.finish();
        let mut rows = vec![Triplet::new(0, 1, 2); 5];
        rows.extend([Triplet::new(2, 0, 1), Triplet::new(4, 1, 3)]);
        assert_eq!(s, adds3(5, &rows).unwrap());
        let mut too_many = PairCounts::new(1).unwrap();
        assert!(matches!(
            too_many.grow(MAX_ITEMS + 1),
            Err(SimilarityError::TooManyItems { .. })
        ));
    }

    #[test]
    fn a_cancelled_accumulation_stops_with_cancelled_also_on_rayon_threads() {
        use crate::cancel::{CancelFlag, with_flag};
        let n = 30u32;
        // Enough rows for the parallel path: from this thread (not one of rayon's), with two
        // or more threads in rayon's pool, every chunk runs on a worker that sees the flag
        // only because parallel_counts hands it over.
        let rows: Vec<Triplet> = (0..PARALLEL_MIN_ROWS as u32 * 2)
            .map(|i| Triplet::new(i % n, (i * 7 + 1) % n, (i * 13 + 2) % n))
            .collect();
        let quads: Vec<Quadruplet> = rows
            .iter()
            .map(|t| Quadruplet::new(t.anchor, t.near, t.anchor, t.far))
            .collect();
        let flag = CancelFlag::new();
        flag.cancel();
        assert_eq!(
            with_flag(&flag, || adds3(n as usize, &rows)),
            Err(SimilarityError::Cancelled)
        );
        assert_eq!(
            with_flag(&flag, || adds4(n as usize, &quads)),
            Err(SimilarityError::Cancelled)
        );
        let checks = crate::cancel::stops_at_every_check(
            100,
            || AddS4Accumulator::new(n as usize).unwrap().add(&quads),
            |e| *e == SimilarityError::Cancelled,
        );
        assert_eq!(checks, quads.len().div_ceil(crate::cancel::CHECK_EVERY));
        let mut acc = AddS3Accumulator::new(n as usize).unwrap();
        let r = with_flag(&flag, || acc.add(&rows));
        assert_eq!((r, acc.rows()), (Err(SimilarityError::Cancelled), 0));
        acc.add(&rows).unwrap();
        assert_eq!(acc.finish(), adds3(n as usize, &rows).unwrap());
    }

    proptest::proptest! {
        /// Growing the item range between batches (a stream that discovers its items) gives
        /// the AddS-3 / AddS-4 of all rows over the final items.
        #[test]
        fn growing_accumulators_agree_with_one_pass(
            raw in proptest::collection::vec((0u32..40, 0u32..40, 0u32..40, 0u32..40), 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..6),
        ) {
            let trip: Vec<Triplet> = raw.iter().map(|&(a, b, c, _)| Triplet::new(a, b, c)).collect();
            let quad: Vec<Quadruplet> =
                raw.iter().map(|&(a, b, c, d)| Quadruplet::new(a, b, c, d)).collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(raw.len())).collect();
            cuts.push(raw.len());
            cuts.sort_unstable();
            let mut a3 = AddS3Accumulator::new(0).unwrap();
            let mut a4 = AddS4Accumulator::new(0).unwrap();
            let mut from = 0;
            for &to in &cuts {
                let need = |m: u32| m as usize + 1;
                let n3 = trip[from..to].iter().map(|t| need(t.max_item())).max().unwrap_or(0);
                let n4 = quad[from..to].iter().map(|q| need(q.max_item())).max().unwrap_or(0);
                a3.grow(n3).unwrap();
                a4.grow(n4).unwrap();
                a3.add(&trip[from..to]).unwrap();
                a4.add(&quad[from..to]).unwrap();
                from = to;
            }
            let (n3, n4) = (a3.n_items(), a4.n_items());
            proptest::prop_assert_eq!(a3.finish(), adds3(n3, &trip).unwrap());
            proptest::prop_assert_eq!(a4.finish(), adds4(n4, &quad).unwrap());
        }
    }
}
