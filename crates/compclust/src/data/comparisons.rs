//! Comparison rows and their canonical sparse multiset (cblearn's "standard" form).

use std::str::FromStr;

use rayon::slice::ParallelSliceMut;
use serde::{Deserialize, Serialize};

use super::{DataError, ItemIndex};

/// "`anchor` is closer to `near` than to `far`" (cblearn `list-order` row `[anchor, near, far]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Triplet {
    /// The reference item.
    pub anchor: u32,
    /// The item judged closer to `anchor`.
    pub near: u32,
    /// The item judged farther from `anchor`.
    pub far: u32,
}

/// "The pair (a, b) is more similar than the pair (c, d)" (cblearn row `[a, b, c, d]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Quadruplet {
    /// First item of the more similar pair.
    pub a: u32,
    /// Second item of the more similar pair.
    pub b: u32,
    /// First item of the less similar pair.
    pub c: u32,
    /// Second item of the less similar pair.
    pub d: u32,
}

/// A same-cluster answer for the pair (a, b): 0/1 for disjoint clusters, or a count (the number
/// of shared clusters, `A_aᵀ A_b`) for overlapping ones (Huleihel et al. 2019, §2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SameCluster {
    /// First item.
    pub a: u32,
    /// Second item.
    pub b: u32,
    /// The answer.
    pub answer: f64,
}

impl Triplet {
    /// A triplet from a `list-order` row.
    pub fn new(anchor: u32, near: u32, far: u32) -> Self {
        Triplet { anchor, near, far }
    }

    /// Canonical key `[anchor, min(near,far), max(near,far)]` and the sign of this answer
    /// (+1 when `near < far`).
    pub fn canonical(self) -> ([u32; 3], i8) {
        if self.near < self.far {
            ([self.anchor, self.near, self.far], 1)
        } else {
            ([self.anchor, self.far, self.near], -1)
        }
    }

    /// The same answer as a quadruplet: `(i, j, i, k)` (Ghoshdastidar et al. 2019, App. B.3).
    pub fn to_quadruplet(self) -> Quadruplet {
        Quadruplet {
            a: self.anchor,
            b: self.near,
            c: self.anchor,
            d: self.far,
        }
    }

    /// "`center` is the most central of {center, x, y}" gives two triplets: x is closer to
    /// center than to y, and y is closer to center than to x (car data, Perrot et al. 2020, App. F.1).
    pub fn from_most_central(center: u32, x: u32, y: u32) -> [Triplet; 2] {
        [Triplet::new(x, center, y), Triplet::new(y, center, x)]
    }

    /// "`odd` is the odd one out of {odd, x, y}": x and y are closer to each other than to
    /// odd, giving two triplets.
    pub fn from_odd_one_out(odd: u32, x: u32, y: u32) -> [Triplet; 2] {
        [Triplet::new(x, y, odd), Triplet::new(y, x, odd)]
    }

    /// The three items, in row order.
    pub fn items(self) -> [u32; 3] {
        [self.anchor, self.near, self.far]
    }

    /// True when the three items are not pairwise distinct. Such a row says nothing: the
    /// triplet set T of Perrot et al. 2020, eq. (1) only holds `(i, j, r)` with `i, j, r` distinct. Readers
    /// reject degenerate rows; the similarities skip them.
    #[inline]
    pub fn is_degenerate(self) -> bool {
        self.anchor == self.near || self.anchor == self.far || self.near == self.far
    }
}

impl Quadruplet {
    /// A quadruplet from a `list-order` row.
    pub fn new(a: u32, b: u32, c: u32, d: u32) -> Self {
        Quadruplet { a, b, c, d }
    }

    /// Canonical key: each pair sorted, then the pair with the smallest index first; the sign
    /// is −1 when the pairs had to be swapped.
    pub fn canonical(self) -> ([u32; 4], i8) {
        let p = (self.a.min(self.b), self.a.max(self.b));
        let q = (self.c.min(self.d), self.c.max(self.d));
        if p <= q {
            ([p.0, p.1, q.0, q.1], 1)
        } else {
            ([q.0, q.1, p.0, p.1], -1)
        }
    }

    /// The four items, in row order.
    pub fn items(self) -> [u32; 4] {
        [self.a, self.b, self.c, self.d]
    }

    /// True when a pair repeats an item (`a = b` or `c = d`) or both pairs are the same
    /// unordered pair (`{a, b} = {c, d}`): the quadruplet set Q of Perrot et al. 2020, eq. (1) requires
    /// `i ≠ j`, `r ≠ s` and `(i, j) ≠ (r, s)`. Items may appear in both pairs, e.g. the
    /// triplet-as-quadruplet `(i, j, i, k)` of Ghoshdastidar et al. 2019, App. B.3 is not degenerate. Readers reject
    /// degenerate rows; the similarities skip them.
    #[inline]
    pub fn is_degenerate(self) -> bool {
        self.a == self.b
            || self.c == self.d
            || (self.a.min(self.b), self.a.max(self.b)) == (self.c.min(self.d), self.c.max(self.d))
    }
}

/// What kind of answers a file or data set holds. Most-central and odd-one-out answers are
/// converted to triplets when read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparisonKind {
    /// `anchor,near,far`.
    Triplets,
    /// `a,b,c,d`.
    Quadruplets,
    /// `center,x,y`: two triplets each.
    MostCentral,
    /// `odd,x,y`: two triplets each.
    OddOneOut,
    /// `a,b,answer`.
    SameCluster,
}

impl ComparisonKind {
    /// All kinds, for help texts.
    pub const ALL: [ComparisonKind; 5] = [
        ComparisonKind::Triplets,
        ComparisonKind::Quadruplets,
        ComparisonKind::MostCentral,
        ComparisonKind::OddOneOut,
        ComparisonKind::SameCluster,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            ComparisonKind::Triplets => "triplets",
            ComparisonKind::Quadruplets => "quadruplets",
            ComparisonKind::MostCentral => "most-central",
            ComparisonKind::OddOneOut => "odd-one-out",
            ComparisonKind::SameCluster => "same-cluster",
        }
    }

    /// Number of item fields in one row.
    pub fn arity(self) -> usize {
        match self {
            ComparisonKind::Quadruplets => 4,
            ComparisonKind::SameCluster => 2,
            _ => 3,
        }
    }
}

impl std::fmt::Display for ComparisonKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ComparisonKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        let k = match s.as_str() {
            "triplets" | "triplet" => ComparisonKind::Triplets,
            "quadruplets" | "quadruplet" => ComparisonKind::Quadruplets,
            "most-central" | "mostcentral" => ComparisonKind::MostCentral,
            "odd-one-out" | "oddoneout" => ComparisonKind::OddOneOut,
            "same-cluster" | "samecluster" => ComparisonKind::SameCluster,
            _ => {
                return Err(format!(
                    "unknown kind `{s}`; expected one of triplets, quadruplets, most-central, \
                     odd-one-out, same-cluster"
                ));
            }
        };
        Ok(k)
    }
}

/// A bag of answers of one type, as rows in the order they were given.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparisons {
    /// Triplet answers (most-central / odd-one-out are stored as their triplets).
    Triplets(Vec<Triplet>),
    /// Quadruplet answers.
    Quadruplets(Vec<Quadruplet>),
    /// Same-cluster answers.
    SameCluster(Vec<SameCluster>),
}

/// The canonical sparse multiset: one entry per distinct canonical query, with the signed net
/// count of its answers (+1 per answer as canonically written, −1 per reversed answer).
/// Contradicting answers cancel; how many queries saw both signs is reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CanonicalCounts<K> {
    /// `(key, net signed count)`, sorted by key. A net count of 0 means "undecided".
    pub entries: Vec<(K, i64)>,
    /// Number of answers (rows) that went in.
    pub answers: usize,
    /// Number of distinct queries that received answers of both signs.
    pub contradicted: usize,
}

impl<K: Copy + Ord + Send> CanonicalCounts<K> {
    /// Build from `(key, sign)` pairs: sort the signed keys and fold equal keys in place, so
    /// the peak memory is one `(K, i64)` per answer (a hash map of the distinct keys took
    /// about three times that at 10⁸ answers).
    pub fn from_signed(keys: impl IntoIterator<Item = (K, i8)>) -> Self {
        let mut entries: Vec<(K, i64)> = keys
            .into_iter()
            .map(|(k, s)| (k, if s > 0 { 1 } else { -1 }))
            .collect();
        let answers = entries.len();
        entries.par_sort_unstable_by_key(|e| e.0);
        let mut contradicted = 0;
        let mut w = 0;
        let mut r = 0;
        while r < entries.len() {
            let key = entries[r].0;
            let (mut net, mut pos, mut neg) = (0i64, false, false);
            while r < entries.len() && entries[r].0 == key {
                let v = entries[r].1;
                net += v;
                pos |= v > 0;
                neg |= v < 0;
                r += 1;
            }
            contradicted += usize::from(pos && neg);
            entries[w] = (key, net);
            w += 1;
        }
        entries.truncate(w);
        entries.shrink_to_fit();
        CanonicalCounts {
            entries,
            answers,
            contradicted,
        }
    }

    /// Number of distinct queries.
    pub fn distinct(&self) -> usize {
        self.entries.len()
    }
}

impl Comparisons {
    /// The kind of rows stored (most-central and odd-one-out are stored as triplets).
    pub fn kind(&self) -> ComparisonKind {
        match self {
            Comparisons::Triplets(_) => ComparisonKind::Triplets,
            Comparisons::Quadruplets(_) => ComparisonKind::Quadruplets,
            Comparisons::SameCluster(_) => ComparisonKind::SameCluster,
        }
    }

    /// Number of answers (rows).
    pub fn len(&self) -> usize {
        match self {
            Comparisons::Triplets(v) => v.len(),
            Comparisons::Quadruplets(v) => v.len(),
            Comparisons::SameCluster(v) => v.len(),
        }
    }

    /// Whether there are no answers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drop every answer, keeping the kind (and the capacity).
    pub(crate) fn clear(&mut self) {
        match self {
            Comparisons::Triplets(v) => v.clear(),
            Comparisons::Quadruplets(v) => v.clear(),
            Comparisons::SameCluster(v) => v.clear(),
        }
    }

    /// Number of distinct queries (canonical keys), whatever their answers.
    pub fn distinct(&self) -> usize {
        match self {
            Comparisons::Triplets(v) => {
                CanonicalCounts::from_signed(v.iter().map(|t| t.canonical())).distinct()
            }
            Comparisons::Quadruplets(v) => {
                CanonicalCounts::from_signed(v.iter().map(|q| q.canonical())).distinct()
            }
            Comparisons::SameCluster(v) => {
                let mut keys: Vec<(u32, u32)> =
                    v.iter().map(|s| (s.a.min(s.b), s.a.max(s.b))).collect();
                keys.sort_unstable();
                keys.dedup();
                keys.len()
            }
        }
    }

    /// Number of distinct rows as written (e.g. the 190,376 unique food triplets), counting
    /// `(a,b,c)` and the reversed `(a,c,b)` separately, unlike [`Comparisons::distinct`].
    pub fn distinct_rows(&self) -> usize {
        fn count<T: Ord + Clone>(v: &[T]) -> usize {
            let mut s = v.to_vec();
            s.sort_unstable();
            s.dedup();
            s.len()
        }
        match self {
            Comparisons::Triplets(v) => count(v),
            Comparisons::Quadruplets(v) => count(v),
            Comparisons::SameCluster(v) => {
                let keys: Vec<(u32, u32, u64)> =
                    v.iter().map(|s| (s.a, s.b, s.answer.to_bits())).collect();
                count(&keys)
            }
        }
    }

    /// Canonical counts of triplet answers, if these are triplets.
    pub fn triplet_counts(&self) -> Option<CanonicalCounts<[u32; 3]>> {
        match self {
            Comparisons::Triplets(v) => Some(CanonicalCounts::from_signed(
                v.iter().map(|t| t.canonical()),
            )),
            _ => None,
        }
    }

    /// Canonical counts of quadruplet answers; triplets are turned into quadruplets
    /// `(i,j,i,k)` first (Ghoshdastidar et al. 2019, App. B.3).
    pub fn quadruplet_counts(&self) -> Option<CanonicalCounts<[u32; 4]>> {
        match self {
            Comparisons::Triplets(v) => Some(CanonicalCounts::from_signed(
                v.iter().map(|t| t.to_quadruplet().canonical()),
            )),
            Comparisons::Quadruplets(v) => Some(CanonicalCounts::from_signed(
                v.iter().map(|q| q.canonical()),
            )),
            Comparisons::SameCluster(_) => None,
        }
    }

    /// Quadruplet rows: the rows themselves, or triplets as `(i,j,i,k)`.
    pub fn as_quadruplets(&self) -> Option<Vec<Quadruplet>> {
        match self {
            Comparisons::Triplets(v) => Some(v.iter().map(|t| t.to_quadruplet()).collect()),
            Comparisons::Quadruplets(v) => Some(v.clone()),
            Comparisons::SameCluster(_) => None,
        }
    }

    /// Largest item index used, plus one (0 when empty).
    pub fn max_item(&self) -> usize {
        let m = match self {
            Comparisons::Triplets(v) => v.iter().flat_map(|t| t.items()).max(),
            Comparisons::Quadruplets(v) => v.iter().flat_map(|q| q.items()).max(),
            Comparisons::SameCluster(v) => v.iter().flat_map(|s| [s.a, s.b]).max(),
        };
        m.map_or(0, |m| m as usize + 1)
    }
}

/// Who gave each answer of a file with a `worker` column: worker names (in order of first
/// appearance) and the worker id of every row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workers {
    /// Worker names; a worker id indexes this list.
    pub names: Vec<String>,
    /// The worker of each row of the comparisons.
    pub of_row: Vec<u32>,
}

/// Comparisons together with the items they are about.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// Item labels ↔ indices.
    pub items: ItemIndex,
    /// The answers.
    pub comparisons: Comparisons,
    /// Who gave each answer, when the file said so (a `worker` column).
    pub workers: Option<Workers>,
}

impl Dataset {
    /// Wrap comparisons over `items`, checking every index is in range.
    pub fn new(items: ItemIndex, comparisons: Comparisons) -> Result<Self, DataError> {
        let m = comparisons.max_item();
        if m > items.len() {
            return Err(DataError::IndexOutOfRange {
                index: m - 1,
                n_items: items.len(),
            });
        }
        Ok(Dataset {
            items,
            comparisons,
            workers: None,
        })
    }

    /// The same dataset with the worker of every row.
    pub fn with_workers(mut self, workers: Workers) -> Result<Self, DataError> {
        if workers.of_row.len() != self.comparisons.len()
            || workers
                .of_row
                .iter()
                .any(|&w| w as usize >= workers.names.len())
        {
            return Err(DataError::Unsupported(format!(
                "{} workers for {} rows: every row needs one worker among the {} named",
                workers.of_row.len(),
                self.comparisons.len(),
                workers.names.len()
            )));
        }
        self.workers = Some(workers);
        Ok(self)
    }

    /// Comparisons over items labelled `0..n`.
    pub fn numbered(n: usize, comparisons: Comparisons) -> Result<Self, DataError> {
        Self::new(ItemIndex::numbered(n), comparisons)
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplet_canonical_flips_sign() {
        assert_eq!(Triplet::new(0, 1, 2).canonical(), ([0, 1, 2], 1));
        assert_eq!(Triplet::new(0, 2, 1).canonical(), ([0, 1, 2], -1));
    }

    #[test]
    fn quadruplet_canonical_orders_pairs() {
        assert_eq!(Quadruplet::new(3, 2, 1, 0).canonical(), ([0, 1, 2, 3], -1));
        assert_eq!(Quadruplet::new(0, 5, 4, 1).canonical(), ([0, 5, 1, 4], 1));
    }

    #[test]
    fn degenerate_rows() {
        assert!(!Triplet::new(0, 1, 2).is_degenerate());
        for t in [(0, 0, 1), (0, 1, 0), (1, 0, 0), (2, 2, 2)] {
            assert!(Triplet::new(t.0, t.1, t.2).is_degenerate(), "{t:?}");
        }
        // Items may repeat across the pairs (triplet as quadruplet, Ghoshdastidar et al. 2019, App. B.3).
        assert!(!Quadruplet::new(0, 1, 0, 2).is_degenerate());
        assert!(!Triplet::new(0, 1, 2).to_quadruplet().is_degenerate());
        assert!(!Quadruplet::new(0, 1, 2, 3).is_degenerate());
        for q in [
            (0, 0, 1, 2),
            (0, 1, 2, 2),
            (0, 1, 0, 1),
            (0, 1, 1, 0),
            (3, 3, 3, 3),
        ] {
            assert!(Quadruplet::new(q.0, q.1, q.2, q.3).is_degenerate(), "{q:?}");
        }
    }

    proptest::proptest! {
        /// `is_degenerate` against the definitions of T and Q in Perrot et al. 2020, eq. (1), written with sets.
        #[test]
        fn degenerate_matches_set_definition(a in 0u32..4, b in 0u32..4, c in 0u32..4, d in 0u32..4) {
            use std::collections::BTreeSet;
            let distinct3: BTreeSet<u32> = [a, b, c].into_iter().collect();
            proptest::prop_assert_eq!(Triplet::new(a, b, c).is_degenerate(), distinct3.len() < 3);
            let p: BTreeSet<u32> = [a, b].into_iter().collect();
            let r: BTreeSet<u32> = [c, d].into_iter().collect();
            let proper = p.len() == 2 && r.len() == 2 && p != r;
            proptest::prop_assert_eq!(Quadruplet::new(a, b, c, d).is_degenerate(), !proper);
        }

        /// The sort-and-fold multiset equals the definition: per distinct key, the number of
        /// positive answers minus the negative ones, sorted by key; a key is contradicted when
        /// it got both signs.
        #[test]
        fn canonical_counts_match_a_map_of_the_answers(
            answers in proptest::collection::vec((0u32..6, 0u32..6, proptest::bool::ANY), 0..200)
        ) {
            use std::collections::BTreeMap;
            let signed: Vec<([u32; 2], i8)> =
                answers.iter().map(|&(a, b, s)| ([a, b], if s { 1 } else { -1 })).collect();
            let mut naive: BTreeMap<[u32; 2], (i64, i64)> = BTreeMap::new();
            for &(k, s) in &signed {
                let e = naive.entry(k).or_default();
                if s > 0 { e.0 += 1 } else { e.1 += 1 }
            }
            let cc = CanonicalCounts::from_signed(signed.iter().copied());
            let want: Vec<([u32; 2], i64)> = naive.iter().map(|(k, (p, n))| (*k, p - n)).collect();
            proptest::prop_assert_eq!(cc.entries, want);
            proptest::prop_assert_eq!(cc.answers, signed.len());
            let both = naive.values().filter(|(p, n)| *p > 0 && *n > 0).count();
            proptest::prop_assert_eq!(cc.contradicted, both);
        }
    }

    #[test]
    fn contradictions_cancel_and_are_counted() {
        let c = Comparisons::Triplets(vec![
            Triplet::new(0, 1, 2),
            Triplet::new(0, 2, 1),
            Triplet::new(0, 1, 2),
            Triplet::new(1, 0, 2),
        ]);
        let cc = c.triplet_counts().unwrap();
        assert_eq!(cc.entries, vec![([0, 1, 2], 1), ([1, 0, 2], 1)]);
        assert_eq!(cc.contradicted, 1);
        assert_eq!(cc.answers, 4);
        assert_eq!(c.distinct(), 2);
    }

    #[test]
    fn most_central_and_odd_one_out() {
        assert_eq!(
            Triplet::from_most_central(5, 1, 2),
            [Triplet::new(1, 5, 2), Triplet::new(2, 5, 1)]
        );
        assert_eq!(
            Triplet::from_odd_one_out(5, 1, 2),
            [Triplet::new(1, 2, 5), Triplet::new(2, 1, 5)]
        );
    }

    #[test]
    fn kind_parses() {
        assert_eq!(
            "Most_Central".parse::<ComparisonKind>().unwrap(),
            ComparisonKind::MostCentral
        );
        assert!("pairs".parse::<ComparisonKind>().is_err());
    }
}
