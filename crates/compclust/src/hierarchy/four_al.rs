//! 4-AL: quadruplets-based average linkage (Ghoshdastidar et al. 2019, §3.3, eq. 4-5).
//!
//! For clusters G₁..G_K, eq. 4 gives the preference between two cluster pairs
//!
//! ```text
//! W_Q(G_p,G_q || G_r,G_s) = 1/(|G_p||G_q||G_r||G_s|) Σ_{i∈G_p, j∈G_q, k∈G_r, l∈G_s} c({i,j},{k,l})
//! ```
//!
//! where `c(e, f)` is the net number of answers "pair e is more similar than pair f" (answers
//! "f more similar than e" count −1; pairs are unordered because similarities are symmetric),
//! and eq. 5 the cluster similarity `W(G_p,G_q) = Σ_{r≠s} W_Q(G_p,G_q||G_r,G_s) / (K(K−1))`.
//! Agglomerative clustering (Ghoshdastidar et al. 2019, Algorithm 1) merges the pair with the largest `W`.
//!
//! **Fast form.** With the weights `ω'(a, b) = 1/(|G_a||G_b|)` of cluster pairs,
//! `W(G_p,G_q) = 2 S'(p,q) / (K(K−1)|G_p||G_q|)` where `S'(p,q) = Σ_{a<b} C(pq, ab) ω'(a,b)` and
//! `C(pq, ab)` sums `c(e, f)` over the item pairs `e ∈ G_p×G_q`, `f ∈ G_a×G_b`. The comparisons
//! are kept aggregated at this level: every cluster pair holds one list of `(cluster pair, net
//! count)` entries, each the sum of many item-level comparisons. Merging `G_r` and `G_s`
//! changes only the weights of the pairs `{r, t}`, `{s, t}` and `{r, s}`, so it walks just their
//! lists, adding `count · Δω'` to the partner pairs' `S'`; it then joins the lists of `{r, t}`
//! and `{s, t}` (the shorter into the longer), re-keys their entries to the new cluster, sums
//! entries that now name the same pair and drops those that fell inside one cluster. A merge
//! thus costs the length of the lists of the pairs that involve `G_r` or `G_s`, and a list
//! never holds more entries than there are cluster pairs, so the lists shrink as the clusters
//! grow (the first merges still cost about the comparisons touching the two items, as
//! before; the later ones far less). The next pair is the largest
//! `A = 2S'/(|G_p||G_q|)` in floating point. Each cluster keeps its best partner (an upper
//! bound of its row of scores, exact until its best score falls); a merge whose lists hold
//! fewer entries than a quarter of the cluster pairs passes each changed score to its two
//! rows, and the rows whose bound could reach the top are rescanned, so a merge costs its
//! lists and `O(K)` instead of a pass over the `K(K−1)/2` pairs (merges that walk more
//! entries rebuild the rows in that one pass). Every score carries a bound on its rounding
//! error, and the pairs whose intervals overlap the best are compared in exact rational
//! arithmetic from their aggregated integer counts, so the merges are those of exact
//! arithmetic. Ties are broken towards the smallest
//! `(min id, max id)` pair, in both the fast and the naive implementation.
//!
//! While most clusters are small the lists name item pairs that rarely coincide, so summing
//! their repeated targets would shorten them little: a merge then only pushes the weight
//! changes to the scores and concatenates the two lists as they are, and coalesces a joined
//! list (re-keys and sums it) only once its length makes many repeats likely ([`coalesce`]).
//! Up to 256 items an entry names its target by item pair, and one table (small enough for
//! the cache) gives the node each item pair belongs to now, updated for the items of the
//! smaller child at every merge, so that resolving a target is one lookup; beyond, by its two
//! items, resolved through their clusters' slots.
//!
//! All lists live in one arena (one allocation). A list is a chain of segments: joining two
//! long lists without coalescing them links their chains instead of copying them, short
//! ones are copied together, and a coalesced list is written back as one segment, moving to
//! the end of the arena when it outgrows its room; the arena is compacted when the rooms left
//! behind outweigh the lists. Beyond 256 items, where the scores outgrow the cache, a walk
//! over a segment touches the scores of a chunk of its targets in a tight loop of loads
//! before updating them, so that many cache misses into the score array are in flight at
//! once.

use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

use crate::data::{Comparisons, Quadruplet};
use crate::observe::{Observer, progress};

use super::common::{IntMap, pair_key, quadruplet_entries};
use super::{Dendrogram, HierarchyError, Merge};

/// The [`Resolver`] of an engine's tables, borrowing only those fields (so that the walks
/// can update the scores and rows while it is alive).
macro_rules! resolver {
    ($engine:expr) => {
        Resolver {
            node_of: &$engine.node_of,
            pair_of: &$engine.pair_of,
            slot_of: &$engine.slot_of,
            off: &$engine.off,
            sentinel: $engine.tri as u32,
        }
    };
}

/// Parameters of 4-AL (Ghoshdastidar et al. 2019, §3.3): optionally a partition of the items into initial clusters
/// (4-AL-I3 / 4-AL-I5 in Ghoshdastidar et al. 2019, §4.1), which are merged first (in item order, at height 0)
/// before the quadruplet linkage takes over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FourAlParams {
    initial_clusters: Option<Vec<usize>>,
}

/// What a 4-AL run reports besides its dendrogram.
#[derive(Clone, Debug, PartialEq)]
pub struct FourAlInfo {
    /// Distinct informative comparisons (unordered pair vs pair, net count ≠ 0).
    pub comparisons: usize,
    /// Rows skipped because they compare a pair with itself or contain a repeated item.
    pub skipped: usize,
    /// Merges made inside the initial clusters (height 0) before 4-AL proper.
    pub initial_merges: usize,
    /// The cluster similarity `W(G_p, G_q)` of eq. 5 at each 4-AL merge, in order.
    pub linkage: Vec<f64>,
}

/// A fitted 4-AL hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct FourAl {
    /// The dendrogram. Heights are `0` for initial-cluster merges and the merge rank
    /// `1, 2, …` afterwards (eq. 5 values are not monotone; they are in
    /// [`FourAlInfo::linkage`]).
    pub dendrogram: Dendrogram,
    /// Run information.
    pub info: FourAlInfo,
}

impl FourAlParams {
    /// Default parameters: start from singletons (plain 4-AL).
    pub fn new() -> Self {
        Self::default()
    }

    /// Start from this partition (one label per item; any label values).
    pub fn with_initial_clusters(mut self, labels: Vec<usize>) -> Self {
        self.initial_clusters = Some(labels);
        self
    }

    /// Validate against `n` items.
    pub fn check(&self, n: usize) -> Result<(), HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        if let Some(l) = &self.initial_clusters
            && l.len() != n
        {
            return Err(HierarchyError::InitialClustersLength {
                labels: l.len(),
                n_items: n,
            });
        }
        Ok(())
    }

    /// Run 4-AL on `n` items. The observer sees the progress after each merge.
    pub fn fit(
        &self,
        n: usize,
        comparisons: &Comparisons,
        observer: Option<&mut dyn Observer>,
    ) -> Result<FourAl, HierarchyError> {
        let input = self.read(n, comparisons)?;
        self.fit_read(input, observer)
    }

    /// The first half of [`FourAlParams::fit`]: check the parameters and read the comparisons
    /// into the aggregated per-cluster-pair lists of singletons. Exposed so that benchmarks
    /// can time the agglomeration apart from reading its input.
    #[doc(hidden)]
    pub fn read(&self, n: usize, comparisons: &Comparisons) -> Result<FourAlInput, HierarchyError> {
        self.check(n)?;
        // the engine holds n × n/2 scores, bounds and list ids: refuse before reading the rows
        crate::limits::reserve_dense(n, 2).map_err(|e| HierarchyError::Limit(Box::new(e)))?;
        let (engine, skipped) = match comparisons {
            Comparisons::Quadruplets(rows) => Engine::new(n, rows.iter().copied())?,
            Comparisons::Triplets(rows) => Engine::new(n, rows.iter().map(|t| t.to_quadruplet()))?,
            other => {
                return Err(HierarchyError::WrongKind {
                    method: "4-AL",
                    kind: other.kind().to_string(),
                });
            }
        };
        Ok(FourAlInput { engine, skipped })
    }

    /// The second half of [`FourAlParams::fit`]: the agglomeration (Ghoshdastidar et al.
    /// 2019, Algorithm 1) on comparisons read by [`FourAlParams::read`] for the same number
    /// of items.
    #[doc(hidden)]
    pub fn fit_read(
        &self,
        input: FourAlInput,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<FourAl, HierarchyError> {
        let FourAlInput {
            mut engine,
            skipped,
        } = input;
        let n = engine.n;
        self.check(n)?;
        let forced = chain_merges(n, self.initial_clusters.as_deref());
        let total = n - 1;
        for &(a, b) in &forced {
            engine.merge_ids(a, b, 0.0);
            progress(&mut observer, engine.steps.len(), total);
        }
        let mut linkage = Vec::with_capacity(total - forced.len());
        while engine.steps.len() < total {
            check_cancelled()?;
            let (p, q, a) = engine.best();
            let k = engine.alive.len() as f64;
            linkage.push(a / (k * (k - 1.0)));
            engine.merge(p, q, linkage.len() as f64);
            progress(&mut observer, engine.steps.len(), total);
        }
        let comparisons_used = engine.n_entries;
        let dendrogram = Dendrogram::new(n, engine.steps)?;
        Ok(FourAl {
            dendrogram,
            info: FourAlInfo {
                comparisons: comparisons_used,
                skipped,
                initial_merges: forced.len(),
                linkage,
            },
        })
    }
}

/// Comparisons read for 4-AL ([`FourAlParams::read`]), ready for [`FourAlParams::fit_read`].
#[doc(hidden)]
#[derive(Clone)]
pub struct FourAlInput {
    engine: Engine,
    skipped: usize,
}

/// 4-AL from singletons (Ghoshdastidar et al. 2019, eq. 4-5) in one call.
pub fn four_al(n: usize, comparisons: &Comparisons) -> Result<Dendrogram, HierarchyError> {
    Ok(FourAlParams::new().fit(n, comparisons, None)?.dendrogram)
}

/// Initial clusters as built for 4-AL-I3 / 4-AL-I5 in Ghoshdastidar et al. 2019, §4.1: the items of each true
/// (pure) cluster are drawn uniformly without replacement into groups of `size` (a smaller
/// remainder group when `size` does not divide the cluster). Returns one label per item.
pub fn initial_clusters_from_truth(
    truth: &[usize],
    size: usize,
    seed: u64,
) -> Result<Vec<usize>, HierarchyError> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    if size == 0 {
        return Err(HierarchyError::BadParameter {
            name: "size",
            value: "0".into(),
            reason: "initial clusters need at least one item",
        });
    }
    let mut classes: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &c) in truth.iter().enumerate() {
        classes.entry(c).or_default().push(i);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![0; truth.len()];
    let mut next = 0;
    for (_, mut members) in classes {
        members.shuffle(&mut rng);
        for chunk in members.chunks(size) {
            for &i in chunk {
                out[i] = next;
            }
            next += 1;
        }
    }
    Ok(out)
}

/// The merges that build the initial clusters: clusters in order of their smallest item, each
/// grown item by item in increasing order. Returns cluster-id pairs in the scipy convention.
pub(crate) fn chain_merges(n: usize, labels: Option<&[usize]>) -> Vec<(usize, usize)> {
    let Some(labels) = labels else {
        return Vec::new();
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
    for (i, &l) in labels.iter().enumerate() {
        let g = *group_of.entry(l).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    let mut out = Vec::new();
    for g in groups {
        let mut cur = g[0];
        for &y in &g[1..] {
            out.push((cur.min(y), cur.max(y)));
            cur = n + out.len() - 1;
        }
    }
    out
}

/// The fast 4-AL state: comparisons aggregated over cluster pairs.
///
/// Clusters live in slots (a merged cluster keeps the slot of its larger child; the other
/// slot points to it in a union-find forest). A *node* is an unordered pair of distinct
/// slots, i.e. a cluster pair `{G_a, G_b}` with weight `ω'(a, b) = 1/(|G_a||G_b|)`. Every
/// node with comparisons owns a list of aggregated entries `(v, c)`: the comparisons between
/// its item pairs and those of node `v` add `c · ω'(u)` to `S'(v)`, where
/// `S'(v) = Σ_u C(v, u) ω'(u)` and `C(v, u)` is the net count of "a pair of `v` is more similar
/// than a pair of `u`" over all item pairs of both nodes. Then
/// `A(p, q) = 2 S'(p, q) / (|G_p||G_q|)` and eq. 5 is `W = A / (K(K−1))`.
///
/// A merge of the slots `r` and `s` changes the weights of the nodes `{r, t}`, `{s, t}` (for
/// every other `t`) and `{r, s}` (to 0): it walks their lists once, adds `c·Δω'` to the
/// scores of the targets, and concatenates the lists of `{r, t}` and `{s, t}` (the shorter
/// after the longer). Where [`coalesce`] says so, the walk also re-keys the targets to
/// their current nodes, sums entries that now name the same node and drops those that fell
/// inside one cluster, and the joined list is written back as one segment; otherwise the
/// lists are joined as they are ([`Engine::append`], [`Span`]). The scores `S'` and their rounding-error bounds live in dense upper-triangular
/// slot-pair arrays.
#[derive(Clone)]
struct Engine {
    n: usize,
    /// slot of an item (the initial slots) → the slot of its cluster now (the first `n`
    /// entries of a [`SLOTS`]-entry table)
    slot_of: Box<[u32; SLOTS]>,
    /// slot → cluster size (alive slots)
    size: Vec<u64>,
    /// slot → `1/|G|` (alive slots)
    inv: Vec<f64>,
    /// per alive slot, its best partners (see [`Rows`])
    rows: Rows,
    /// slot → cluster id (scipy convention)
    id: Vec<usize>,
    /// alive slots, ascending
    alive: Vec<u32>,
    /// `off[p] + q` is the index of the slot pair `p < q` in the triangular arrays (the
    /// first `n` entries of a [`SLOTS`]-entry table)
    off: Box<[usize; SLOTS]>,
    /// item pair (its index in the triangular arrays) → the node it belongs to now: the
    /// index of the pair of its items' current slots, or [`Engine::sentinel`] once both items
    /// are in one cluster. The entries of the lists name their targets by item pair, so that
    /// resolving one is a single lookup.
    node_of: Vec<u32>,
    /// node (slot pair `p < q`) → `p << 16 | q`
    pair_of: Vec<u32>,
    /// slot pair → its list (an index into `spans`), or [`NO_LIST`]
    list_of: Vec<u32>,
    /// the lists, in one arena (see [`Span`])
    store: Vec<Entry>,
    spans: Vec<Span>,
    /// entries of `store` that belong to no list (freed or moved lists)
    garbage: usize,
    /// how often the arena was compacted (for the tests)
    compactions: usize,
    /// slot pair → `S'` in floating point, its error bound and the compaction scratch
    nodes: Vec<Node>,
    /// at least every alive node's error bound (`Node::err`) whenever the rows are not stale
    /// ([`Rows`]): tracked walks raise it as they go, [`Engine::rebuild_rows`] after untracked
    /// ones
    max_err: f64,
    steps: Vec<Merge>,
    n_entries: usize,
    /// whether the entries name their targets by item pair, resolved through [`Engine::node_of`]
    /// (below [`BY_PAIR_ITEMS`] items, where that table stays in the cache), or by their two
    /// items packed as `a << 16 | b`, resolved through [`Engine::slot_of`] (`node_of` and
    /// `pair_of` are then empty)
    by_pair: bool,
    /// slot pairs, `n(n−1)/2`: the index of the sentinel node
    tri: usize,
    /// the threshold of [`coalesce`] ([`COALESCE_BELOW`]; the tests vary it)
    coalesce_below: f64,
    /// [`MIN_SEGMENT`] (the tests vary it)
    min_segment: usize,
    /// how often [`Engine::append`] linked two chains (for the tests)
    links: usize,
    /// where [`Engine::coalesce_join`] writes the coalesced entries before storing them
    scratch: Vec<Entry>,
}

/// Entries of the slot tables [`Engine::slot_of`] and [`Engine::off`]: every 16-bit slot, so
/// that the walks over the lists index them without bounds checks.
const SLOTS: usize = 1 << 16;

/// A [`SLOTS`]-entry table whose first `n` entries are `f(0..n)` (the rest `T::default()`).
fn slot_table<T: Copy + Default>(n: usize, f: impl Fn(usize) -> T) -> Box<[T; SLOTS]> {
    let mut table = vec![T::default(); SLOTS];
    for (i, x) in table.iter_mut().take(n).enumerate() {
        *x = f(i);
    }
    match table.into_boxed_slice().try_into() {
        Ok(table) => table,
        Err(_) => unreachable!("the table has SLOTS entries"),
    }
}

/// No list for this slot pair (no comparison involves it).
const NO_LIST: u32 = u32::MAX;

/// `pair_of` of [`Engine`]: every slot pair `p < q` packed as `p << 16 | q`, in the order of
/// the triangular arrays.
fn pairs_of(n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for p in 0..n as u32 {
        for q in p + 1..n as u32 {
            out.push(pack(p, q));
        }
    }
    out
}

/// No slot (a row without partner).
const NO_SLOT: u32 = u32::MAX;

/// Per alive slot `p`, its best partner: the largest floating-point `A(p, q)` over the other
/// alive slots `q`, kept lazily (the role of the per-cluster priority queues of fast average
/// linkage). `best[p]` is always an upper bound of row `p`'s scores, and while `clean[p]` it
/// is the score of `{p, partner[p]}`, so the row's maximum. A score rising to its row's
/// bound becomes the row's best; a fall of the best score leaves the bound and marks the row
/// dirty; a dirty row is rescanned (`O(K)`) only when its bound could reach the top. When a
/// merge walks more list entries than a quarter of the cluster pairs, following its changes
/// costs more than one pass over all pairs: `stale` then says that the rows are rebuilt by
/// that pass.
#[derive(Clone)]
struct Rows {
    best: Vec<f64>,
    partner: Vec<u32>,
    clean: Vec<bool>,
    stale: bool,
}

impl Rows {
    fn new(n: usize) -> Self {
        Rows {
            best: vec![f64::NEG_INFINITY; n],
            partner: vec![NO_SLOT; n],
            clean: vec![false; n],
            stale: true,
        }
    }

    /// `S'` of the slot pair `packed` (`p << 16 | q`) is now `s`: pass its score
    /// `A = 2S'/(|G_p||G_q|)` to both rows, unless the pair involves slot `r` (whose row the
    /// merge rebuilds).
    #[inline]
    fn bump_pair(&mut self, packed: u32, r: u32, s: f64, inv: &[f64]) {
        let (a, b) = (packed >> 16, packed & 0xffff);
        if a != r && b != r {
            let score = s * (2.0 * inv[a as usize]) * inv[b as usize];
            self.bump(a, b, score);
            self.bump(b, a, score);
        }
    }

    /// The score of the pair `{x, y}` is now `a`: update row `x`.
    #[inline]
    fn bump(&mut self, x: u32, y: u32, a: f64) {
        let x = x as usize;
        if a >= self.best[x] {
            self.best[x] = a;
            self.partner[x] = y;
            self.clean[x] = true;
        } else if self.partner[x] == y {
            self.clean[x] = false;
        }
    }
}

/// One segment of a list in the arena of all lists: `store[start..start + len]`, with room up
/// to `start + cap`. A list is a chain of segments (`next`; its first segment, the *head*,
/// is the one [`Engine::list_of`] names, and keeps the chain's last segment and its total
/// length): joining two lists without coalescing them links their chains, and coalescing a
/// list writes it back as one segment, into the head's room if it fits, else into a new room
/// at the end of the arena. When the rooms left behind outweigh the lists, the arena is
/// compacted ([`Engine::compact_store`]), so it stays within a small multiple of the entries.
/// One allocation for all lists: the millions of small lists of a large input cost no
/// allocator calls as they join.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    len: u32,
    cap: u32,
    /// the next segment of the chain, or [`NO_LIST`]
    next: u32,
    /// head only: the chain's last segment
    tail: u32,
    /// head only: the entries of the whole chain
    total: usize,
}

/// Bytes of a [`Span`], for the memory check of [`Engine::new`].
const SPAN_BYTES: u128 = std::mem::size_of::<Span>() as u128;

impl Default for Span {
    fn default() -> Self {
        Span {
            start: 0,
            len: 0,
            cap: 0,
            next: NO_LIST,
            tail: NO_LIST,
            total: 0,
        }
    }
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start..self.start + self.len as usize
    }
}

/// One aggregated comparison in the list of a node `u`: the node that `target` names now
/// gains `c · ω'(u)`. With [`Engine::by_pair`], `target` is an item pair (its index in the
/// triangular arrays; [`Engine::node_of`] gives its node now), else two items packed as
/// `a << 16 | b` (their clusters' slots give the node).
#[derive(Clone, Copy, Debug)]
struct Entry {
    target: u32,
    c: i32,
}

/// Per slot pair: `S'` in floating point, with `|S'_float − S'_exact| ≤ ε · err`
/// (ε = `f64::EPSILON`; `err` is rounded up), and where the list being compacted holds this
/// pair (valid only if the entry there names it). 16 bytes: one cache line per visit.
#[derive(Clone, Copy, Default)]
struct Node {
    s: f64,
    err: f32,
    pos: u32,
}

/// `1 + 2⁻²²`: a sum of a few doubles times this, rounded to the nearest `f32`, is at least the
/// exact sum (the double sums lose at most a few `2⁻⁵³`, the conversion `2⁻²⁴`).
const ROUND_UP: f64 = 1.0 + 1.0 / (1u64 << 22) as f64;

impl Node {
    /// Add `add` to the error bound, rounding up; returns the new bound. (One multiplication
    /// instead of `f32::next_up`, which costs more in the walks over the lists.)
    #[inline]
    fn grow_err(&mut self, add: f64) -> f64 {
        let e = f64::from(self.err) + add;
        self.err = (e * ROUND_UP) as f32;
        f64::from(self.err)
    }
}

#[inline]
fn pack(p: u32, q: u32) -> u32 {
    (p << 16) | q
}

/// [`HierarchyError::Cancelled`] when the run was cancelled ([`crate::cancel`]).
fn check_cancelled() -> Result<(), HierarchyError> {
    if crate::cancel::requested() {
        Err(HierarchyError::Cancelled)
    } else {
        Ok(())
    }
}

/// [`check_cancelled`] at every [`CHECK_EVERY`](crate::cancel::CHECK_EVERY)-th row `i` of a
/// loop (including the first).
fn every_rows(i: usize) -> Result<(), HierarchyError> {
    if crate::cancel::requested_every(i) {
        Err(HierarchyError::Cancelled)
    } else {
        Ok(())
    }
}

/// A candidate for the next merge: slots `p < q` and the floating-point `A`.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    p: u32,
    q: u32,
    a: f64,
}

/// How [`Engine::new`] encodes an entry of a list as one sortable integer: from the top, the
/// list's slot-pair index, the target's two items (`b` bits each, enough for `n − 1`) and
/// the sign of the answer. Sorting the keys groups the lists, and within a list orders the
/// targets by their items (the order of their slot-pair indices) with equal targets adjacent.
#[derive(Clone, Copy)]
struct KeyLayout {
    b: u32,
}

impl KeyLayout {
    fn new(n: usize) -> Self {
        let b = (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1);
        KeyLayout { b }
    }

    /// Bits the keys occupy when lists are slot-pair indices below `tri`.
    fn bits(self, tri: usize) -> u32 {
        let list_bits = usize::BITS - tri.saturating_sub(1).leading_zeros();
        list_bits + 2 * self.b + 1
    }

    #[inline]
    fn key(self, list: usize, a: u32, b: u32, more: bool) -> u64 {
        ((list as u64) << (2 * self.b + 1))
            | (u64::from(a) << (self.b + 1))
            | (u64::from(b) << 1)
            | u64::from(more)
    }

    #[inline]
    fn list(self, key: u64) -> usize {
        (key >> (2 * self.b + 1)) as usize
    }

    /// The target pair, still encoded (equal for equal targets).
    #[inline]
    fn pair(self, key: u64) -> u64 {
        (key >> 1) & ((1 << (2 * self.b)) - 1)
    }

    #[inline]
    fn items(self, pair: u64) -> (u32, u32) {
        let mask = (1 << self.b) - 1;
        ((pair >> self.b) as u32, (pair & mask) as u32)
    }

    /// Whether the entry's target was the more similar pair of its row.
    #[inline]
    fn more(self, key: u64) -> bool {
        key & 1 == 1
    }
}

/// Bits per radix-sort digit: 2048 buckets, whose write positions stay in the cache.
const RADIX_BITS: u32 = 11;

/// Passes of [`radix_sort`] over keys of `bits` bits.
fn radix_passes(bits: u32) -> u32 {
    bits.div_ceil(RADIX_BITS)
}

/// Sort keys of at most `bits` bits: least-significant digit first, one stable counting
/// pass per [`RADIX_BITS`] bits. Checks for cancellation after each pass.
fn radix_sort(keys: &mut Vec<u64>, bits: u32) -> Result<(), HierarchyError> {
    let passes = radix_passes(bits);
    let buckets = 1usize << RADIX_BITS;
    let mask = (buckets - 1) as u64;
    let mut counts = vec![0usize; buckets * passes as usize];
    for &k in keys.iter() {
        for d in 0..passes {
            counts[d as usize * buckets + ((k >> (d * RADIX_BITS)) & mask) as usize] += 1;
        }
    }
    let mut other = vec![0u64; keys.len()];
    for d in 0..passes {
        let count = &mut counts[d as usize * buckets..(d as usize + 1) * buckets];
        let mut sum = 0;
        for c in count.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        let shift = d * RADIX_BITS;
        for &k in keys.iter() {
            let slot = &mut count[((k >> shift) & mask) as usize];
            other[*slot] = k;
            *slot += 1;
        }
        std::mem::swap(keys, &mut other);
        check_cancelled()?;
    }
    Ok(())
}

impl Engine {
    /// The state of singletons, read from the rows: one node per item pair that occurs in a
    /// comparison, its list holding the comparisons with the other pairs summed per pair.
    /// Returns the engine and the number of degenerate rows skipped (a repeated item, or the
    /// same pair on both sides: they say nothing).
    ///
    /// Every row gives two entries, one in the list of each of its pairs; they are encoded as
    /// integer keys (list, target pair, sign) and sorted by a least-significant-digit radix
    /// sort, whose passes stream through memory where filling the lists directly would write
    /// to a different list at every entry. Sorted, the entries of a list are contiguous and
    /// repeated comparisons adjacent, and every list is in the order of its targets, so that
    /// the first merges visit the scores in memory order. Checks for cancellation every
    /// [`CHECK_EVERY`](crate::cancel::CHECK_EVERY) rows of the pass over the rows and after
    /// it, after each radix pass ([`radix_passes`]), and every
    /// [`CHECK_EVERY`](crate::cancel::CHECK_EVERY) lists of the pass that builds the lists
    /// and after it.
    fn new<I>(n: usize, rows: I) -> Result<(Self, usize), HierarchyError>
    where
        I: Iterator<Item = Quadruplet>,
    {
        Self::new_with(n, rows, n <= BY_PAIR_ITEMS)
    }

    /// [`Engine::new`], naming the targets by item pair or not ([`Engine::by_pair`]).
    fn new_with<I>(n: usize, rows: I, by_pair: bool) -> Result<(Self, usize), HierarchyError>
    where
        I: Iterator<Item = Quadruplet>,
    {
        debug_assert!(n <= 1 << 16, "slots are packed into 16 bits");
        let tri = n * n.saturating_sub(1) / 2;
        let off = slot_table(n, |p| {
            (p * n).wrapping_sub(p * (p + 1) / 2).wrapping_sub(p + 1)
        });
        let at = |a: u32, b: u32| off[a as usize].wrapping_add(b as usize);
        let layout = KeyLayout::new(n);
        // pass 1: check the items and encode each row's two entries
        let (lower, _) = rows.size_hint();
        // two entries per row: their keys twice (the sort's two arrays), the arena of the
        // lists (room for twice its entries) and at most one list segment per entry
        crate::limits::check_memory(
            "rows of comparisons",
            lower as u128,
            (lower as u128).saturating_mul(2 * (2 * 8 + 2 * 8 + SPAN_BYTES)),
        )
        .map_err(|e| HierarchyError::Limit(Box::new(e)))?;
        let mut keys: Vec<u64> = Vec::with_capacity(2 * lower);
        let mut skipped = 0;
        for (row, q) in rows.enumerate() {
            every_rows(row)?;
            for item in q.items() {
                if item as usize >= n {
                    return Err(HierarchyError::ItemOutOfRange {
                        row,
                        item: item as usize,
                        n_items: n,
                    });
                }
            }
            if q.is_degenerate() {
                skipped += 1;
                continue;
            }
            let (ea, eb) = (q.a.min(q.b), q.a.max(q.b));
            let (fa, fb) = (q.c.min(q.d), q.c.max(q.d));
            // "{a,b} more similar than {c,d}": S'({a,b}) gains ω'({c,d}), so the list of
            // {c,d} gets ({a,b}, +1); and S'({c,d}) loses ω'({a,b}): the list of {a,b} gets
            // ({c,d}, −1)
            keys.push(layout.key(at(fa, fb), ea, eb, true));
            keys.push(layout.key(at(ea, eb), fa, fb, false));
        }
        check_cancelled()?;
        radix_sort(&mut keys, layout.bits(tri))?;
        // pass 2: one list per pair, repeated comparisons summed, those that cancel dropped;
        // S' of singletons is −Σ c over the list (ω' = 1 everywhere: integers, exact)
        let mut list_of = vec![NO_LIST; tri];
        // room for the lists' growth: the arena stays within about twice its entries
        // ([`Span`]), and reallocating it would copy them all (only the touched pages count)
        let mut store: Vec<Entry> = Vec::with_capacity(2 * keys.len());
        let mut spans: Vec<Span> = Vec::new();
        // one more node: the sentinel, which takes the pushes to pairs inside one cluster
        let mut nodes = vec![Node::default(); tri + 1];
        let mut kept = 0usize;
        let mut i = 0;
        let mut group = 0;
        while i < keys.len() {
            every_rows(group)?;
            group += 1;
            let k = layout.list(keys[i]);
            let mut j = i;
            while j < keys.len() && layout.list(keys[j]) == k {
                j += 1;
            }
            let start = store.len();
            let mut x = i;
            while x < j {
                let pair = layout.pair(keys[x]);
                let mut c = 0i32;
                while x < j && layout.pair(keys[x]) == pair {
                    c += if layout.more(keys[x]) { 1 } else { -1 };
                    x += 1;
                }
                if c != 0 {
                    let (a, b) = layout.items(pair);
                    store.push(Entry {
                        target: if by_pair { at(a, b) as u32 } else { pack(a, b) },
                        c,
                    });
                }
            }
            let list = &store[start..];
            kept += list.len();
            nodes[k].s = -list.iter().map(|e| f64::from(e.c)).sum::<f64>();
            list_of[k] = spans.len() as u32;
            spans.push(Span {
                start,
                len: list.len() as u32,
                cap: list.len() as u32,
                next: NO_LIST,
                tail: spans.len() as u32,
                total: list.len(),
            });
            i = j;
        }
        drop(keys);
        check_cancelled()?;
        let engine = Engine {
            n,
            slot_of: slot_table(n, |p| p as u32),
            size: vec![1; n],
            inv: vec![1.0; n],
            rows: Rows::new(n),
            id: (0..n).collect(),
            alive: (0..n as u32).collect(),
            node_of: if by_pair {
                (0..tri as u32).collect()
            } else {
                Vec::new()
            },
            pair_of: if by_pair { pairs_of(n) } else { Vec::new() },
            by_pair,
            tri,
            off,
            list_of,
            store,
            spans,
            garbage: 0,
            compactions: 0,
            nodes,
            max_err: 0.0,
            steps: Vec::with_capacity(n.saturating_sub(1)),
            // every comparison sits in the lists of both its pairs
            n_entries: kept / 2,
            coalesce_below: COALESCE_BELOW,
            min_segment: MIN_SEGMENT,
            links: 0,
            scratch: Vec::new(),
        };
        Ok((engine, skipped))
    }

    /// Index of the slot pair `{p, q}` (`p ≠ q`) in the triangular arrays.
    #[inline]
    fn at(&self, p: u32, q: u32) -> usize {
        let (p, q) = if p < q { (p, q) } else { (q, p) };
        self.off[p as usize].wrapping_add(q as usize)
    }

    /// The cluster ids of slots `p` and `q`, smaller first (the tie rule's key).
    fn ids(&self, p: u32, q: u32) -> (usize, usize) {
        let (x, y) = (self.id[p as usize], self.id[q as usize]);
        (x.min(y), x.max(y))
    }

    /// `A(p, q) = 2 S'(p, q)/(|G_p||G_q|)` in floating point, for alive slots `p < q` (one
    /// formula for every comparison of scores).
    #[inline]
    fn score(&self, p: u32, q: u32) -> f64 {
        let k = self.off[p as usize].wrapping_add(q as usize);
        self.nodes[k].s * (2.0 * self.inv[p as usize]) * self.inv[q as usize]
    }

    /// Recompute row `p` of [`Rows`] from its scores (`O(K)`).
    fn rescan(&mut self, p: u32) {
        let mut best = f64::NEG_INFINITY;
        let mut partner = NO_SLOT;
        for &q in &self.alive {
            if q == p {
                continue;
            }
            let a = if p < q {
                self.score(p, q)
            } else {
                self.score(q, p)
            };
            if a > best {
                best = a;
                partner = q;
            }
        }
        let p = p as usize;
        self.rows.best[p] = best;
        self.rows.partner[p] = partner;
        self.rows.clean[p] = true;
    }

    /// Recompute every row of [`Rows`] in one pass over the alive pairs (`O(K²)`).
    fn rebuild_rows(&mut self) {
        let rows = &mut self.rows;
        for &p in &self.alive {
            rows.best[p as usize] = f64::NEG_INFINITY;
            rows.partner[p as usize] = NO_SLOT;
            rows.clean[p as usize] = true;
        }
        let mut max_err = 0.0f32;
        for (i, &p) in self.alive.iter().enumerate() {
            let row = self.off[p as usize];
            let two_p = 2.0 * self.inv[p as usize];
            for &q in &self.alive[i + 1..] {
                let node = self.nodes[row.wrapping_add(q as usize)];
                max_err = max_err.max(node.err);
                let a = node.s * two_p * self.inv[q as usize];
                if a > rows.best[p as usize] {
                    rows.best[p as usize] = a;
                    rows.partner[p as usize] = q;
                }
                if a > rows.best[q as usize] {
                    rows.best[q as usize] = a;
                    rows.partner[q as usize] = p;
                }
            }
        }
        rows.stale = false;
        self.max_err = self.max_err.max(f64::from(max_err));
    }

    /// The best pair of slots and its `A = 2 S'/(|G_p||G_q|)`: largest `A`, then smallest
    /// `(min id, max id)`. The largest floating-point score comes from the rows' best
    /// partners ([`Rows`]; dirty rows are rescanned while their bound could reach it); every
    /// pair within a global rounding tolerance of it is a candidate, and the candidates are
    /// separated by their own error bounds and, where those overlap, by exact arithmetic.
    fn best(&mut self) -> (u32, u32, f64) {
        if self.rows.stale {
            self.rebuild_rows();
        }
        // covers the two candidates' own bounds (see `resolve_near_ties`); increasing in `top`
        let max_err = self.max_err;
        let floor = |top: f64| top - 32.0 * f64::EPSILON * (max_err + top.abs());
        let mut top = f64::NEG_INFINITY;
        let mut dirty: Vec<(f64, u32)> = Vec::new();
        for &p in &self.alive {
            let p = p as usize;
            if self.rows.clean[p] {
                top = top.max(self.rows.best[p]);
            } else {
                dirty.push((self.rows.best[p], p as u32));
            }
        }
        dirty.sort_unstable_by(|x, y| y.0.total_cmp(&x.0));
        for (bound, p) in dirty {
            if bound < floor(top) {
                break; // the bounds that follow are lower still
            }
            self.rescan(p);
            top = top.max(self.rows.best[p as usize]);
        }
        // every row holding a pair at or above the threshold has its bound there too
        let threshold = floor(top);
        let mut cands: Vec<Candidate> = Vec::new();
        for (i, &p) in self.alive.iter().enumerate() {
            if self.rows.best[p as usize] < threshold {
                continue;
            }
            for &q in &self.alive[i + 1..] {
                let a = self.score(p, q);
                if a >= threshold {
                    cands.push(Candidate { p, q, a });
                }
            }
        }
        let c = self.resolve_near_ties(cands);
        (c.p, c.q, c.a)
    }

    /// The exact best of the candidates (largest `A`, then smallest `(min id, max id)`).
    fn resolve_near_ties(&self, mut cands: Vec<Candidate>) -> Candidate {
        if cands.len() > 1 {
            // each candidate's own bound: |A_float − A| ≤ err_a
            let err_a = |c: &Candidate| {
                let prod = (self.size[c.p as usize] * self.size[c.q as usize]) as f64;
                let err = f64::from(self.nodes[self.at(c.p, c.q)].err);
                4.0 * f64::EPSILON * (2.0 * err / prod + c.a.abs())
            };
            let lower = cands
                .iter()
                .map(|c| c.a - err_a(c))
                .fold(f64::NEG_INFINITY, f64::max);
            cands.retain(|c| c.a + err_a(c) >= lower);
        }
        if cands.len() == 1 {
            return cands[0];
        }
        let mut best: Option<(BigRational, (usize, usize), Candidate)> = None;
        for c in cands {
            let a = self.exact_a(c.p, c.q);
            let key = self.ids(c.p, c.q);
            let better = match &best {
                None => true,
                Some((ba, bk, _)) => a > *ba || (a == *ba && key < *bk),
            };
            if better {
                best = Some((a, key, c));
            }
        }
        best.expect("at least two clusters").2
    }

    /// `A(p, q) = 2 S'(p, q) / (|G_p||G_q|)` in exact rational arithmetic from the aggregated
    /// counts: `S'(p, q) = Σ_v C({p,q}, v) / (|G_v1||G_v2|)`.
    fn exact_a(&self, p: u32, q: u32) -> BigRational {
        let mut by_denominator: std::collections::BTreeMap<u64, i128> = Default::default();
        let l = self.list_of[self.at(p, q)];
        if l != NO_LIST {
            for e in self.segments(l).flat_map(|span| &self.store[span.range()]) {
                if let Some((a, b)) = self.slots_of(e.target) {
                    let d = self.size[a as usize] * self.size[b as usize];
                    // the list holds C(v, u) = −C(u, v)
                    *by_denominator.entry(d).or_default() -= i128::from(e.c);
                }
            }
        }
        let mut s = BigRational::zero();
        for (d, c) in by_denominator {
            s += BigRational::new(c.into(), d.into());
        }
        let prod = self.size[p as usize] * self.size[q as usize];
        s * BigRational::new(2.into(), prod.into())
    }

    /// Merge the clusters with ids `a` and `b` (used for the initial clusters).
    fn merge_ids(&mut self, a: usize, b: usize, height: f64) {
        let slot = |id: usize| {
            self.alive
                .iter()
                .copied()
                .find(|&p| self.id[p as usize] == id)
                .expect("alive cluster")
        };
        let (r, s) = (slot(a), slot(b));
        self.merge(r, s, height);
    }

    /// Merge slots `x` and `y`; the new cluster takes the slot of the larger one.
    fn merge(&mut self, x: u32, y: u32, height: f64) {
        let (r, s) = if self.size[x as usize] >= self.size[y as usize] {
            (x, y)
        } else {
            (y, x)
        };
        let (sr, ss) = (self.size[r as usize], self.size[s as usize]);
        let sm = sr + ss;
        let (ida, idb) = (self.id[r as usize], self.id[s as usize]);
        self.steps.push(Merge {
            a: ida.min(idb),
            b: ida.max(idb),
            height,
            size: sm as usize,
        });
        let mut moved = Vec::with_capacity(ss as usize);
        for (item, slot) in self.slot_of[..self.n].iter_mut().enumerate() {
            if *slot == s {
                *slot = r;
                moved.push(item as u32);
            }
        }
        if self.by_pair {
            self.move_items(&moved, r);
        }
        let walk_len = self.walk_len(r, s);
        // the lists this merge joins may move to new rooms (at most 5/4 of their entries):
        // if that would outgrow the arena's allocation and compacting it first makes room,
        // compact (a move of the live entries) rather than let the arena reallocate (a copy
        // of all its entries, garbage included, into fresh pages)
        let growth = walk_len + walk_len / 4 + 1;
        let live = self.store.len() - self.garbage;
        if self.store.len() + growth > self.store.capacity()
            && live + growth <= self.store.capacity()
        {
            self.compact_store();
        }
        // the rows follow the scores this merge changes only while that costs less than one
        // pass over all pairs
        let track = !self.rows.stale && walk_len * 4 <= self.pairs();
        self.rows.stale = !track;
        let mut store = std::mem::take(&mut self.store);
        // {r, s} is now inside one cluster: its weight drops from 1/(|G_r||G_s|) to 0
        let k = self.at(r, s);
        let l = std::mem::replace(&mut self.list_of[k], NO_LIST);
        if l != NO_LIST {
            let w = 1.0 / (sr * ss) as f64;
            self.push_chain(&store, l, -w, w, track.then_some(r));
            self.free(l);
        }
        let k_after = self.alive.len() - 1;
        let pairs_after = k_after * k_after.saturating_sub(1) / 2;
        for i in 0..self.alive.len() {
            let t = self.alive[i];
            if t == r || t == s {
                continue;
            }
            let st = self.size[t as usize];
            let (krt, kst) = (self.at(r, t), self.at(s, t));
            // S'{m,t} = S'{r,t} + S'{s,t} (the weight changes follow)
            let other = std::mem::take(&mut self.nodes[kst]);
            let node = &mut self.nodes[krt];
            node.s += other.s;
            let err = node.grow_err(f64::from(other.err) + node.s.abs());
            self.max_err = self.max_err.max(err);
            let w_new = 1.0 / (sm * st) as f64;
            let lr = self.list_of[krt];
            let ls = std::mem::replace(&mut self.list_of[kst], NO_LIST);
            let side = |size: u64| {
                let w_old = 1.0 / (size * st) as f64;
                (w_new - w_old, w_old + w_new)
            };
            let (dr, mr) = side(sr);
            let (ds, ms) = side(ss);
            // the longer list is the head of the joined one
            let (long, short, (dl, ml), (dsh, msh)) = match (lr, ls) {
                (NO_LIST, NO_LIST) => continue,
                (l, NO_LIST) => (l, NO_LIST, (dr, mr), (ds, ms)),
                (NO_LIST, l) => (l, NO_LIST, (ds, ms), (dr, mr)),
                (a, b) => {
                    if self.spans[a as usize].total >= self.spans[b as usize].total {
                        (a, b, (dr, mr), (ds, ms))
                    } else {
                        (b, a, (ds, ms), (dr, mr))
                    }
                }
            };
            self.list_of[krt] = long;
            let tr = track.then_some(r);
            let upper = self.total(long) + self.total(short);
            if coalesce(upper, pairs_after, self.coalesce_below) {
                self.coalesce_join(&mut store, [(long, dl, ml), (short, dsh, msh)], tr);
            } else {
                // scores only; the chains are linked as they are (re-keyed and summed at a
                // later walk that coalesces)
                self.push_chain(&store, long, dl, ml, tr);
                self.push_chain(&store, short, dsh, msh, tr);
                self.append(&mut store, long, short);
            }
        }
        self.store = store;
        if self.garbage > self.store.len() / 2 {
            self.compact_store();
        }
        self.size[r as usize] = sm;
        self.size[s as usize] = 0;
        self.inv[r as usize] = 1.0 / sm as f64;
        self.id[r as usize] = self.n + self.steps.len() - 1;
        self.alive.retain(|&t| t != s);
        if track {
            self.update_rows(r, s);
        }
    }

    /// The items `moved` now belong to the cluster in slot `r`: their item pairs name the
    /// nodes `{r, t}` (the sentinel for pairs inside the cluster). `|moved| · n` per merge.
    fn move_items(&mut self, moved: &[u32], r: u32) {
        let sentinel = self.sentinel();
        for &a in moved {
            for b in 0..self.n as u32 {
                if b == a {
                    continue;
                }
                let t = self.slot_of[b as usize];
                let node = if t == r {
                    sentinel
                } else {
                    self.at(r, t) as u32
                };
                let item_pair = self.at(a, b);
                self.node_of[item_pair] = node;
            }
        }
    }

    /// The node that takes the pushes to item pairs inside one cluster (after the slot pairs).
    fn sentinel(&self) -> u32 {
        self.tri as u32
    }

    /// The slots `p < q` of the node an entry's target names now, or `None` inside one
    /// cluster.
    fn slots_of(&self, target: u32) -> Option<(u32, u32)> {
        let resolver = resolver!(self);
        let (node, tag) = if self.by_pair {
            resolver.resolve::<true>(target)
        } else {
            resolver.resolve::<false>(target)
        };
        let packed = if self.by_pair {
            *self.pair_of.get(node as usize)?
        } else {
            tag
        };
        (node != self.sentinel()).then_some((packed >> 16, packed & 0xffff))
    }

    /// Free list `l`: the rooms of all its segments become garbage.
    fn free(&mut self, l: u32) {
        let mut seg = l;
        while seg != NO_LIST {
            let span = std::mem::take(&mut self.spans[seg as usize]);
            self.garbage += span.cap as usize;
            seg = span.next;
        }
    }

    /// The segments of list `l`, head first (none for [`NO_LIST`]).
    fn segments(&self, l: u32) -> impl Iterator<Item = Span> + '_ {
        let mut seg = l;
        std::iter::from_fn(move || {
            (seg != NO_LIST).then(|| {
                let span = self.spans[seg as usize];
                seg = span.next;
                span
            })
        })
    }

    /// Entries of list `l` (0 for [`NO_LIST`]).
    fn total(&self, l: u32) -> usize {
        match l {
            NO_LIST => 0,
            l => self.spans[l as usize].total,
        }
    }

    /// Append list `short` (if any) to list `long` as it is: copied into the room of
    /// `long`'s last segment if it fits there; copied with `long` into one new segment while
    /// both hold fewer than [`MIN_SEGMENT`] entries (short segments would make every later
    /// walk chase pointers); else its chain is linked after `long`'s.
    fn append(&mut self, store: &mut Vec<Entry>, long: u32, short: u32) {
        if short == NO_LIST {
            return;
        }
        let (head, tail, other) = (
            self.spans[long as usize],
            self.spans[self.spans[long as usize].tail as usize],
            self.spans[short as usize],
        );
        let single = other.next == NO_LIST;
        if single && tail.len as usize + other.total <= tail.cap as usize {
            let at = tail.start + tail.len as usize;
            store.copy_within(other.range(), at);
            self.spans[head.tail as usize].len += other.len;
            self.spans[long as usize].total += other.total;
            self.free(short);
        } else if single && head.next == NO_LIST && head.total + other.total < self.min_segment {
            let total = head.total + other.total;
            let start = store.len();
            let cap = total + total / 4;
            store.extend_from_within(head.range());
            store.extend_from_within(other.range());
            store.resize(start + cap, Entry { target: 0, c: 0 });
            self.garbage += head.cap as usize;
            self.free(short);
            let span = &mut self.spans[long as usize];
            span.start = start;
            span.len = total as u32;
            span.cap = cap as u32;
            span.total = total;
        } else {
            self.link(long, short);
            self.links += 1;
        }
    }

    /// Link the chain of list `short` after that of list `long`.
    fn link(&mut self, long: u32, short: u32) {
        let (tail, total) = {
            let s = &self.spans[short as usize];
            (s.tail, s.total)
        };
        let last = self.spans[long as usize].tail;
        self.spans[last as usize].next = short;
        let head = &mut self.spans[long as usize];
        head.tail = tail;
        head.total += total;
    }

    /// [`Engine::push`] over every segment of list `l` (none for [`NO_LIST`]).
    fn push_chain(&mut self, store: &[Entry], l: u32, delta: f64, mass: f64, track: Option<u32>) {
        let mut seg = l;
        while seg != NO_LIST {
            let span = self.spans[seg as usize];
            self.push(store, span.range(), delta, mass, track);
            seg = span.next;
        }
    }

    /// Walk the lists `(list, Δω', ω'_old + ω'_new)` (the first one a list, the second one
    /// or [`NO_LIST`]) with [`Engine::spread`], and store the coalesced entries as the first
    /// list, in one segment: in its head's room if they fit there, else in a new room at the
    /// end of the arena with a quarter to spare. The other segments and the second list are
    /// freed.
    fn coalesce_join(
        &mut self,
        store: &mut Vec<Entry>,
        lists: [(u32, f64, f64); 2],
        track: Option<u32>,
    ) {
        let upper = self.total(lists[0].0) + self.total(lists[1].0);
        let mut out = std::mem::take(&mut self.scratch);
        out.resize(upper.max(out.len()), Entry { target: 0, c: 0 });
        let mut kept = 0;
        for (l, delta, mass) in lists {
            let mut seg = l;
            while seg != NO_LIST {
                let span = self.spans[seg as usize];
                kept = self.spread(&store[span.range()], &mut out, kept, delta, mass, track);
                seg = span.next;
            }
        }
        let head = lists[0].0;
        let rest = std::mem::replace(&mut self.spans[head as usize].next, NO_LIST);
        self.free(rest);
        self.free(lists[1].0);
        let mut span = self.spans[head as usize];
        if kept > span.cap as usize {
            self.garbage += span.cap as usize;
            span.start = store.len();
            span.cap = (kept + kept / 4).min(u32::MAX as usize) as u32;
            store.resize(span.start + span.cap as usize, Entry { target: 0, c: 0 });
        }
        store[span.start..span.start + kept].copy_from_slice(&out[..kept]);
        span.len = kept as u32;
        span.tail = head;
        span.total = kept;
        self.spans[head as usize] = span;
        self.scratch = out;
    }

    /// Move the lists down over the garbage, in the order of their places, leaving each its
    /// room; the arena then holds no garbage. A list without room (freed, or empty because
    /// its counts cancelled) is put at 0, so that its empty range stays inside the arena.
    fn compact_store(&mut self) {
        for span in &mut self.spans {
            if span.cap == 0 {
                span.start = 0;
            }
        }
        let mut order: Vec<u32> = (0..self.spans.len() as u32)
            .filter(|&l| self.spans[l as usize].cap > 0)
            .collect();
        order.sort_unstable_by_key(|&l| self.spans[l as usize].start);
        let mut end = 0;
        for l in order {
            let span = &mut self.spans[l as usize];
            self.store
                .copy_within(span.start..span.start + span.len as usize, end);
            span.start = end;
            end += span.cap as usize;
        }
        self.store.truncate(end);
        self.garbage = 0;
        self.compactions += 1;
    }

    /// Entries in the lists that a merge of slots `r` and `s` walks.
    fn walk_len(&self, r: u32, s: u32) -> usize {
        let len = |k: usize| self.total(self.list_of[k]);
        let mut total = len(self.at(r, s));
        for &t in &self.alive {
            if t != r && t != s {
                total += len(self.at(r, t)) + len(self.at(s, t));
            }
        }
        total
    }

    /// Alive cluster pairs, `K(K−1)/2`.
    fn pairs(&self) -> usize {
        let k = self.alive.len();
        k * k.saturating_sub(1) / 2
    }

    /// After slot `s` was merged into slot `r`: row `r` anew, and in every other row the
    /// score with `r` changed and the one with `s` is gone.
    fn update_rows(&mut self, r: u32, s: u32) {
        let mut best = f64::NEG_INFINITY;
        let mut partner = NO_SLOT;
        for i in 0..self.alive.len() {
            let t = self.alive[i];
            if t == r {
                continue;
            }
            let a = if r < t {
                self.score(r, t)
            } else {
                self.score(t, r)
            };
            if a > best {
                best = a;
                partner = t;
            }
            if self.rows.partner[t as usize] == s {
                // its best pair is gone; the bound still holds
                self.rows.clean[t as usize] = false;
            }
            self.rows.bump(t, r, a);
        }
        self.rows.best[r as usize] = best;
        self.rows.partner[r as usize] = partner;
        self.rows.clean[r as usize] = true;
    }

    /// Add `c · delta` to the score of every target of the segment `src`, re-key the targets
    /// to their current nodes, drop those inside one cluster (and entries whose count summed
    /// to 0 in an earlier walk) and sum those that name a node already kept in this walk; the
    /// kept entries are written to `out[from..returned]`, after the `from` entries kept
    /// earlier in this walk. `mass` is `ω'_old + ω'_new`, for the error bound. With
    /// `track = Some(r)`, every changed score of a pair without slot `r` is passed to its two
    /// rows ([`Rows::bump`]).
    fn spread(
        &mut self,
        src: &[Entry],
        out: &mut [Entry],
        from: usize,
        delta: f64,
        mass: f64,
        track: Option<u32>,
    ) -> usize {
        let walk = Walk { from, delta, mass };
        match track {
            Some(r) if self.by_pair => self.walk_with::<true, true, true>(src, out, walk, r),
            Some(r) => self.walk_with::<true, false, true>(src, out, walk, r),
            None if self.by_pair => self.walk_with::<false, true, true>(src, out, walk, NO_SLOT),
            None => self.walk_with::<false, false, true>(src, out, walk, NO_SLOT),
        }
    }

    /// Add `c · delta` to the score of every target of the list `store[src]` (resolved to the
    /// current slots; targets inside one cluster and entries whose counts summed to 0 are
    /// skipped), leaving the list as it is. `mass` and `track` as for [`Engine::spread`].
    fn push(
        &mut self,
        store: &[Entry],
        src: std::ops::Range<usize>,
        delta: f64,
        mass: f64,
        track: Option<u32>,
    ) {
        let (src, walk) = (
            &store[src],
            Walk {
                from: 0,
                delta,
                mass,
            },
        );
        match track {
            Some(r) if self.by_pair => self.walk_with::<true, true, false>(src, &mut [], walk, r),
            Some(r) => self.walk_with::<true, false, false>(src, &mut [], walk, r),
            None if self.by_pair => {
                self.walk_with::<false, true, false>(src, &mut [], walk, NO_SLOT)
            }
            None => self.walk_with::<false, false, false>(src, &mut [], walk, NO_SLOT),
        };
    }

    /// [`Engine::spread`] (`KEEP`) or [`Engine::push`] (not `KEEP`: nothing is written to
    /// `out`), tracking the rows when `TRACK` (slot `r` excepted).
    fn walk_with<const TRACK: bool, const BY_PAIR: bool, const KEEP: bool>(
        &mut self,
        src: &[Entry],
        out: &mut [Entry],
        walk: Walk,
        r: u32,
    ) -> usize {
        let Walk { from, delta, mass } = walk;
        // In chunks of three passes: resolve the targets to their nodes, touch the nodes
        // (beyond `BY_PAIR_ITEMS` items, see `touch`), then update. A target inside one
        // cluster now, or an entry whose count summed to 0 in an earlier walk, resolves to
        // the sentinel node and is not kept; a push updates the sentinel's score as any
        // other (no branch in its loop) and never reads it.
        let resolver = resolver!(self);
        let sentinel = self.sentinel();
        let mut keys = [(0u32, 0i32, 0u32); CHUNK];
        let mut w = from;
        let mut max_err = self.max_err;
        let two_mass = 2.0 * mass;
        for chunk in src.chunks(CHUNK) {
            let keys = &mut keys[..chunk.len()];
            resolver.resolve_chunk::<BY_PAIR>(chunk, keys);
            if !BY_PAIR {
                touch(&self.nodes, keys);
            }
            for &(k, c, tag) in keys.iter() {
                if KEEP && k == sentinel {
                    continue;
                }
                let cf = f64::from(c);
                let node = &mut self.nodes[k as usize];
                node.s += cf * delta;
                // rounding of ω', Δ, c·Δ and the sum (see `Node`)
                let err = node.grow_err(cf.abs() * two_mass + node.s.abs());
                // (a kept walk has skipped the sentinel already)
                if TRACK && (KEEP || k != sentinel) {
                    // untracked walks leave the rows stale: `rebuild_rows` takes the
                    // largest bound then, in the pass over the pairs it makes anyway
                    max_err = max_err.max(err);
                    let packed = resolver.packed::<BY_PAIR>(k, tag);
                    self.rows.bump_pair(packed, r, node.s, &self.inv);
                }
                if !KEEP {
                    continue;
                }
                // a repeated target is summed into the entry kept first; a sum of 0 stays
                // until the next walk of this list drops it
                let p = node.pos as usize;
                if p < w && out[p].target == tag {
                    out[p].c += c;
                } else {
                    node.pos = w as u32;
                    out[w] = Entry { target: tag, c };
                    w += 1;
                }
            }
        }
        self.max_err = max_err;
        w
    }
}

/// Load the nodes of a chunk's resolved keys in a tight loop of independent loads, so that
/// many cache misses are in flight at once before the updates. Only where the nodes outgrow
/// the cache: below [`BY_PAIR_ITEMS`] items (≤ 16 bytes × 32,640 nodes) the pass costs more
/// than it saves (7 % of the time after reading at N = 240, 2026-12-02).
fn touch(nodes: &[Node], keys: &[(u32, i32, u32)]) {
    let mut sum = 0.0;
    for &(k, _, _) in keys {
        sum += nodes[k as usize].s;
    }
    std::hint::black_box(sum);
}

/// Whether a merge should coalesce a joined list of `len` entries (re-key and sum its
/// repeated targets, [`Engine::spread`]) rather than only push its weight change to the
/// scores and concatenate the two lists as they are ([`Engine::push`]): when `len` entries
/// spread at random over the `pairs` alive cluster pairs would name fewer than `below · len`
/// distinct pairs (the expected number is `pairs · (1 − e^{−len/pairs})`). While most clusters
/// are small, the lists name item pairs that rarely coincide, and summing them would cost a
/// lookup per entry and shorten them little; pushing costs a few loads per entry.
fn coalesce(len: usize, pairs: usize, below: f64) -> bool {
    if pairs == 0 {
        return true;
    }
    let (l, d) = (len as f64, pairs as f64);
    let distinct = d * -(-l / d).exp_m1();
    distinct < below * l
}

/// Up to this many items, entries name their targets by item pair ([`Engine::by_pair`]): the
/// table of their nodes takes 4 bytes per pair, 130 kB at 256 items; beyond, a table lookup
/// per visit would miss the cache, where the two slot lookups of the packed items do not.
const BY_PAIR_ITEMS: usize = 256;

/// Lists shorter than this are copied into one segment when they join, not linked
/// ([`Engine::append`]).
const MIN_SEGMENT: usize = 256;

/// The threshold of [`coalesce`]: at N = 240 (the benchmark input) the time after reading
/// varies little between 0.3 and 0.7 and rises towards 1 (always coalesce).
const COALESCE_BELOW: f64 = 0.5;

/// Entries per chunk of a walk: resolved together, (beyond [`BY_PAIR_ITEMS`] items) touched
/// together, then updated.
const CHUNK: usize = 64;

/// Resolves an entry's target to the node it names now ([`Engine::by_pair`]): returns the
/// node (the sentinel inside one cluster) and the target as a coalesced entry stores it (the
/// node's index by item pair, or its two slots packed).
struct Resolver<'a> {
    node_of: &'a [u32],
    pair_of: &'a [u32],
    slot_of: &'a [u32; SLOTS],
    off: &'a [usize; SLOTS],
    sentinel: u32,
}

impl<'a> Resolver<'a> {
    /// The keys `(node, count, stored target)` of a chunk of entries; entries whose count
    /// summed to 0 in an earlier walk resolve to the sentinel.
    #[inline(always)]
    fn resolve_chunk<const BY_PAIR: bool>(&self, chunk: &[Entry], keys: &mut [(u32, i32, u32)]) {
        for (key, e) in keys.iter_mut().zip(chunk) {
            let (k, tag) = self.resolve::<BY_PAIR>(e.target);
            *key = (if e.c == 0 { self.sentinel } else { k }, e.c, tag);
        }
    }

    /// The slots of node `k` (not the sentinel) packed as `p << 16 | q`, from what
    /// [`Resolver::resolve`] returned for it.
    #[inline(always)]
    fn packed<const BY_PAIR: bool>(&self, k: u32, tag: u32) -> u32 {
        if BY_PAIR {
            self.pair_of[k as usize]
        } else {
            tag
        }
    }

    #[inline(always)]
    fn resolve<const BY_PAIR: bool>(&self, target: u32) -> (u32, u32) {
        if BY_PAIR {
            let k = self.node_of[target as usize];
            (k, k)
        } else {
            // the slot tables have 2¹⁶ entries: no bounds checks
            let a = self.slot_of[(target >> 16) as usize];
            let b = self.slot_of[(target & 0xffff) as usize];
            let (lo, hi) = (a.min(b), a.max(b));
            if a == b {
                (self.sentinel, 0)
            } else {
                let k = self.off[(lo & 0xffff) as usize].wrapping_add(hi as usize);
                (k as u32, pack(lo, hi))
            }
        }
    }
}

/// One walk of [`Engine::spread`]: its kept entries are written from `out[from]` on, with
/// the weight change `delta` and `mass = ω'_old + ω'_new`.
struct Walk {
    from: usize,
    delta: f64,
    mass: f64,
}

/// A run of the naive reference implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct NaiveFourAl {
    /// The dendrogram (same conventions as [`FourAl::dendrogram`]).
    pub dendrogram: Dendrogram,
    /// `W` of eq. 5 at each 4-AL merge.
    pub linkage: Vec<f64>,
    /// The smallest gap between the best and second-best `W` over all 4-AL merges, computed
    /// exactly (`0` at a tie; `+∞` when there was never a second candidate).
    pub min_gap: f64,
}

/// Naive 4-AL straight from Ghoshdastidar et al. 2019, eq. 4-5: at every step, evaluate eq. 5 for every cluster pair
/// by summing eq. 4 over all ordered pairs `(r, s)`, `r ≠ s`, and all item quadruples, in
/// exact rational arithmetic, and merge the largest (ties: the smallest `(min id, max id)`).
/// `O(K² · N⁴)` per merge: a reference for tests on a handful of items only.
pub fn four_al_naive(
    n: usize,
    comparisons: &Comparisons,
    initial_clusters: Option<&[usize]>,
) -> Result<NaiveFourAl, HierarchyError> {
    FourAlParams {
        initial_clusters: initial_clusters.map(<[usize]>::to_vec),
    }
    .check(n)?;
    let (entries, _) = quadruplet_entries(n, comparisons, "4-AL")?;
    let mut c: IntMap<(u64, u64), i64> = IntMap::default();
    for &(e, f, v) in &entries {
        c.insert((e, f), v);
        c.insert((f, e), -v);
    }
    let cval = |i: usize, j: usize, k: usize, l: usize| -> i64 {
        if i == j || k == l {
            return 0;
        }
        let e = pair_key(i as u32, j as u32);
        let f = pair_key(k as u32, l as u32);
        c.get(&(e, f)).copied().unwrap_or(0)
    };
    // clusters as (id, members), ascending id
    let mut clusters: Vec<(usize, Vec<usize>)> = (0..n).map(|i| (i, vec![i])).collect();
    let mut steps = Vec::new();
    let do_merge = |clusters: &mut Vec<(usize, Vec<usize>)>,
                    steps: &mut Vec<Merge>,
                    a: usize,
                    b: usize,
                    height: f64| {
        let pa = clusters.iter().position(|c| c.0 == a).expect("alive");
        let mut ma = clusters.remove(pa).1;
        let pb = clusters.iter().position(|c| c.0 == b).expect("alive");
        let mb = clusters.remove(pb).1;
        ma.extend(mb);
        let id = n + steps.len();
        steps.push(Merge {
            a: a.min(b),
            b: a.max(b),
            height,
            size: ma.len(),
        });
        clusters.push((id, ma));
    };
    for (a, b) in chain_merges(n, initial_clusters) {
        do_merge(&mut clusters, &mut steps, a, b, 0.0);
    }
    let mut linkage = Vec::new();
    let mut min_gap = f64::INFINITY;
    while clusters.len() > 1 {
        let k = clusters.len();
        // pairs in lexicographic order of ids: the first of equal maxima is the tie rule's
        let mut best: Option<(BigRational, usize, usize)> = None;
        let mut second: Option<BigRational> = None;
        for p in 0..k {
            for q in p + 1..k {
                let mut total = BigRational::zero();
                for r in 0..k {
                    for s in 0..k {
                        if r == s {
                            continue;
                        }
                        // eq. 4
                        let mut sum = 0i64;
                        for &i in &clusters[p].1 {
                            for &j in &clusters[q].1 {
                                for &kk in &clusters[r].1 {
                                    for &l in &clusters[s].1 {
                                        sum += cval(i, j, kk, l);
                                    }
                                }
                            }
                        }
                        let denom = clusters[p].1.len()
                            * clusters[q].1.len()
                            * clusters[r].1.len()
                            * clusters[s].1.len();
                        total += BigRational::new(sum.into(), denom.into());
                    }
                }
                // eq. 5
                let w = total / BigRational::from_integer((k * (k - 1)).into());
                match &best {
                    Some((bw, _, _)) if w <= *bw => {
                        if second.as_ref().is_none_or(|s| w > *s) {
                            second = Some(w);
                        }
                    }
                    _ => {
                        if let Some((bw, _, _)) = best.take() {
                            second = Some(bw);
                        }
                        best = Some((w, p, q));
                    }
                }
            }
        }
        let (w, p, q) = best.expect("at least two clusters");
        if let Some(s) = second {
            min_gap = min_gap.min((&w - s).to_f64().unwrap_or(f64::INFINITY));
        }
        linkage.push(w.to_f64().unwrap_or(f64::NAN));
        let (a, b) = (clusters[p].0, clusters[q].0);
        do_merge(&mut clusters, &mut steps, a, b, linkage.len() as f64);
    }
    Ok(NaiveFourAl {
        dendrogram: Dendrogram::new(n, steps)?,
        linkage,
        min_gap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Quadruplet;

    fn q(a: u32, b: u32, c: u32, d: u32) -> Quadruplet {
        Quadruplet::new(a, b, c, d)
    }

    #[test]
    fn two_obvious_groups() {
        // items {0,1} and {2,3}: within-pairs beat across-pairs
        let mut rows = Vec::new();
        for (a, b) in [(0, 1), (2, 3)] {
            for (c, d) in [(0, 2), (0, 3), (1, 2), (1, 3)] {
                rows.push(q(a, b, c, d));
            }
        }
        rows.push(q(0, 1, 2, 3)); // (0,1) is the tightest pair
        let cmp = Comparisons::Quadruplets(rows);
        let fit = FourAlParams::new().fit(4, &cmp, None).unwrap();
        let s = fit.dendrogram.steps();
        assert_eq!((s[0].a, s[0].b), (0, 1));
        assert_eq!((s[1].a, s[1].b), (2, 3));
        assert_eq!((s[2].a, s[2].b), (4, 5));
        let naive = four_al_naive(4, &cmp, None).unwrap();
        assert_eq!(naive.dendrogram, fit.dendrogram);
        for (x, y) in naive.linkage.iter().zip(&fit.info.linkage) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
    }

    #[test]
    fn initial_clusters_are_merged_first() {
        let cmp = Comparisons::Quadruplets(vec![q(0, 3, 1, 2)]);
        let fit = FourAlParams::new()
            .with_initial_clusters(vec![7, 5, 5, 7])
            .fit(4, &cmp, None)
            .unwrap();
        let s = fit.dendrogram.steps();
        assert_eq!((s[0].a, s[0].b, s[0].height), (0, 3, 0.0));
        assert_eq!((s[1].a, s[1].b, s[1].height), (1, 2, 0.0));
        assert_eq!(fit.info.initial_merges, 2);
        assert_eq!(fit.dendrogram.cut(2).unwrap(), vec![0, 1, 1, 0]);
    }

    /// Random rows over `n` items (fixed seed), enough for several cancellation checks.
    fn many_rows(n: u32, rows: u32) -> Comparisons {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let mut item = || rng.random_range(0..n);
        Comparisons::Quadruplets(
            (0..rows)
                .map(|_| q(item(), item(), item(), item()))
                .collect(),
        )
    }

    #[test]
    fn every_cancellation_check_of_four_al_stops_it() {
        use crate::cancel::{CHECK_EVERY, stops_at_every_check};
        let (n, rows) = (60, 2 * CHECK_EVERY as u32 + 1);
        let cmp = many_rows(n, rows);
        let checks = stops_at_every_check(
            1000,
            || FourAlParams::new().fit(n as usize, &cmp, None),
            |e| *e == HierarchyError::Cancelled,
        );
        // Engine::new: per CHECK_EVERY rows in its pass over the rows and once after it, once
        // per radix pass, per CHECK_EVERY lists (one per item pair that occurs) in its pass
        // building the lists and once after it; then one per merge.
        let Comparisons::Quadruplets(q) = &cmp else {
            unreachable!()
        };
        let mut pairs: Vec<u64> = q
            .iter()
            .filter(|q| !q.is_degenerate())
            .flat_map(|q| [pair_key(q.a, q.b), pair_key(q.c, q.d)])
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let per = |len: usize| len.div_ceil(CHECK_EVERY);
        assert!(per(rows as usize) > 1, "the rows span several checks");
        let tri = n as usize * (n as usize - 1) / 2;
        let passes = radix_passes(KeyLayout::new(n as usize).bits(tri)) as usize;
        assert_eq!(passes, 3, "11 bits of list, 2 × 6 of target, 1 of sign");
        let expected = per(rows as usize) + 1 + passes + per(pairs.len()) + 1 + (n as usize - 1);
        assert_eq!(checks, expected);
    }

    /// Row `p`'s bound covers its scores, and a clean row's bound is its partner's score.
    fn assert_rows_hold(engine: &Engine) {
        if engine.alive.len() < 2 {
            return; // the root: no pairs
        }
        for &p in &engine.alive {
            let score = |q: u32| {
                if p < q {
                    engine.score(p, q)
                } else {
                    engine.score(q, p)
                }
            };
            let top = engine
                .alive
                .iter()
                .filter(|&&q| q != p)
                .map(|&q| score(q))
                .fold(f64::NEG_INFINITY, f64::max);
            let (best, partner) = (
                engine.rows.best[p as usize],
                engine.rows.partner[p as usize],
            );
            assert!(best >= top, "row {p}: bound {best} under its score {top}");
            if engine.rows.clean[p as usize] {
                assert_eq!(
                    best,
                    score(partner),
                    "row {p}: clean bound is not its partner's"
                );
            }
        }
    }

    /// Whenever the rows are not stale, `max_err` covers every alive node's error bound (the
    /// tolerance of [`Engine::best`] relies on it).
    fn assert_max_err_covers(engine: &Engine) {
        assert!(!engine.rows.stale);
        for (i, &p) in engine.alive.iter().enumerate() {
            for &q in &engine.alive[i + 1..] {
                let err = f64::from(engine.nodes[engine.at(p, q)].err);
                assert!(
                    err <= engine.max_err,
                    "{{{p}, {q}}}: bound {err} over max_err"
                );
            }
        }
    }

    /// `count` quadruplets of uniformly drawn items among `n` (repeats allowed: 4-AL skips them).
    fn random_quadruplets(rng: &mut rand::rngs::StdRng, n: u32, count: u32) -> Vec<Quadruplet> {
        use rand::RngExt;
        (0..count)
            .map(|_| {
                let mut i = || rng.random_range(0..n);
                q(i(), i(), i(), i())
            })
            .collect()
    }

    /// Sparse comparisons over more items than the property tests use: most merges change
    /// few scores, so the rows follow them ([`Rows`]) instead of being rebuilt; the rows keep
    /// their invariant after every such merge, and the merges are the naive reference's.
    #[test]
    fn tracked_rows_hold_and_match_the_naive_reference() {
        use rand::{RngExt, SeedableRng};
        let mut tracked = 0;
        for seed in 0..40 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let n = rng.random_range(8..=12u32);
            let count = rng.random_range(1..=2 * n);
            let rows = random_quadruplets(&mut rng, n, count);
            let (mut engine, _) = Engine::new(n as usize, rows.iter().copied()).unwrap();
            while engine.steps.len() + 1 < n as usize {
                let (p, q, _) = engine.best();
                engine.merge(p, q, engine.steps.len() as f64 + 1.0);
                if !engine.rows.stale {
                    tracked += 1;
                    assert_rows_hold(&engine);
                    assert_max_err_covers(&engine);
                }
            }
            let cmp = Comparisons::Quadruplets(rows);
            let naive = four_al_naive(n as usize, &cmp, None).unwrap();
            let fast = FourAlParams::new().fit(n as usize, &cmp, None).unwrap();
            assert_eq!(fast.dendrogram, naive.dendrogram, "seed {seed}");
        }
        assert!(tracked >= 40, "only {tracked} merges were tracked");
    }

    /// Denser comparisons, so that joined lists outgrow their rooms and move, the arena of
    /// the lists is compacted ([`Span`]), and repeated targets sum to 0 (entries the next walk
    /// of their list drops): the merges are still the naive reference's.
    #[test]
    fn moved_and_compacted_lists_match_the_naive_reference() {
        use rand::{RngExt, SeedableRng};
        let mut compactions = 0;
        let mut zeros_seen = 0;
        for seed in 0..12 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(100 + seed);
            let n = rng.random_range(8..=11u32);
            let count = rng.random_range(10 * n..=30 * n);
            let rows = random_quadruplets(&mut rng, n, count);
            let (mut engine, _) = Engine::new(n as usize, rows.iter().copied()).unwrap();
            while engine.steps.len() + 1 < n as usize {
                let (p, q, _) = engine.best();
                assert_max_err_covers(&engine);
                engine.merge(p, q, engine.steps.len() as f64 + 1.0);
                for (k, &l) in engine.list_of.iter().enumerate() {
                    let mut total = 0;
                    for span in engine.segments(l) {
                        assert!(span.len <= span.cap, "node {k}: segment over its room");
                        assert!(span.start + span.cap as usize <= engine.store.len());
                        let list = &engine.store[span.range()];
                        zeros_seen += list.iter().filter(|e| e.c == 0).count();
                        total += list.len();
                    }
                    assert_eq!(total, engine.total(l), "node {k}: chain length");
                }
            }
            compactions += engine.compactions;
            let cmp = Comparisons::Quadruplets(rows);
            let naive = four_al_naive(n as usize, &cmp, None).unwrap();
            let fast = FourAlParams::new().fit(n as usize, &cmp, None).unwrap();
            assert_eq!(fast.dendrogram, naive.dendrogram, "seed {seed}");
        }
        assert!(
            compactions >= 3,
            "the arena was compacted only {compactions} times"
        );
        assert!(zeros_seen > 0, "no walk left a count summed to 0");
    }

    /// Every item pair names the node of its items' slots, or the sentinel inside one cluster.
    fn assert_item_pairs_resolve(engine: &Engine) {
        let n = engine.n as u32;
        for a in 0..n {
            for b in a + 1..n {
                let (p, q) = (engine.slot_of[a as usize], engine.slot_of[b as usize]);
                let expected = if p == q {
                    engine.sentinel()
                } else {
                    engine.at(p, q) as u32
                };
                assert_eq!(
                    engine.node_of[engine.at(a, b)],
                    expected,
                    "pair {{{a}, {b}}}"
                );
            }
        }
    }

    /// Joins that only push and concatenate ([`coalesce`] false), mixed with joins that
    /// coalesce, at thresholds from "never" to "always", with targets named by item pair and
    /// by packed items ([`Engine::by_pair`]): the item pairs resolve to the right nodes after
    /// every merge, every score stays within its rounding bound of the exact value, and the
    /// merges are the naive reference's.
    #[test]
    fn pushed_and_coalesced_joins_match_the_naive_reference() {
        use rand::{RngExt, SeedableRng};
        let mut links = 0;
        for seed in 0..30 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(300 + seed);
            let n = rng.random_range(6..=11u32);
            let count = rng.random_range(2 * n..=25 * n);
            let rows = random_quadruplets(&mut rng, n, count);
            let cmp = Comparisons::Quadruplets(rows.clone());
            let naive = four_al_naive(n as usize, &cmp, None).unwrap();
            let thresholds = [0.0, 0.7, 0.85, 0.9, 0.95, 1.0];
            for (below, by_pair) in thresholds.into_iter().flat_map(|b| [(b, true), (b, false)]) {
                let (mut engine, _) =
                    Engine::new_with(n as usize, rows.iter().copied(), by_pair).unwrap();
                engine.coalesce_below = below;
                // short lists are copied together, longer ones linked
                engine.min_segment = rng.random_range(0..=40);
                while engine.steps.len() + 1 < n as usize {
                    let (p, q, _) = engine.best();
                    engine.merge(p, q, engine.steps.len() as f64 + 1.0);
                    if by_pair {
                        assert_item_pairs_resolve(&engine);
                    }
                    assert_scores_within_bounds(&engine);
                }
                let steps: Vec<(usize, usize)> = engine.steps.iter().map(|m| (m.a, m.b)).collect();
                let expected: Vec<(usize, usize)> = naive
                    .dendrogram
                    .steps()
                    .iter()
                    .map(|m| (m.a, m.b))
                    .collect();
                assert_eq!(steps, expected, "seed {seed}, threshold {below}, {by_pair}");
                links += engine.links;
            }
        }
        assert!(links >= 100, "only {links} chains were linked");
    }

    /// Every alive node's floating-point `S'` is within its error bound of the exact value.
    fn assert_scores_within_bounds(engine: &Engine) {
        use num_traits::{Signed, ToPrimitive};
        for (i, &p) in engine.alive.iter().enumerate() {
            for &q in &engine.alive[i + 1..] {
                let node = engine.nodes[engine.at(p, q)];
                let prod = engine.size[p as usize] * engine.size[q as usize];
                // exact_a is 2 S' / (|G_p||G_q|)
                let exact = engine.exact_a(p, q) * BigRational::new(prod.into(), 2.into());
                let gap = (BigRational::from_float(node.s).unwrap() - exact)
                    .abs()
                    .to_f64()
                    .unwrap();
                let bound = f64::EPSILON * f64::from(node.err);
                assert!(gap <= bound, "{{{p}, {q}}}: off by {gap}, bound {bound}");
            }
        }
    }

    /// Two rows that cancel leave their pairs with empty lists (no room in the arena); the
    /// arena's compaction keeps their empty ranges inside it.
    #[test]
    fn lists_whose_counts_cancel_survive_compaction() {
        let rows = vec![q(3, 1, 0, 2), q(1, 5, 3, 5), q(3, 5, 5, 1)];
        let cmp = Comparisons::Quadruplets(rows);
        let naive = four_al_naive(6, &cmp, None).unwrap();
        let fast = FourAlParams::new().fit(6, &cmp, None).unwrap();
        assert_eq!(fast.dendrogram, naive.dendrogram);
    }

    #[test]
    fn rejects_bad_input() {
        let cmp = Comparisons::Quadruplets(vec![q(0, 1, 2, 9)]);
        assert!(matches!(
            four_al(4, &cmp),
            Err(HierarchyError::ItemOutOfRange { item: 9, .. })
        ));
        assert!(matches!(
            FourAlParams::new().with_initial_clusters(vec![0]).fit(
                4,
                &Comparisons::Quadruplets(vec![]),
                None
            ),
            Err(HierarchyError::InitialClustersLength { .. })
        ));
        assert_eq!(
            four_al(0, &Comparisons::Quadruplets(vec![])),
            Err(HierarchyError::NoItems)
        );
        // no comparisons at all: still a valid dendrogram
        let d = four_al(3, &Comparisons::Quadruplets(vec![])).unwrap();
        assert_eq!(d.steps().len(), 2);
    }
}
