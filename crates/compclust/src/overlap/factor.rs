//! Recovering a binary B with B Bᵀ = G from a gram matrix G (m × m, diagonal = row weights):
//! Alg. 4 (uniform ensemble) and Alg. 5 (i.i.d. ensemble) as the clique-seeded peeling of
//! `docs/OVERLAP.md`/§4.5, and the exact backtracking factorisation of `docs/OVERLAP.md`s the
//! fallback for small k. Rows are bit masks (k ≤ 64).
//!
//! Alg. 4 and Alg. 5 share one implementation: the only differences the note lists are the
//! diagonal (Δ versus the row weights w_i) and the size threshold, both taken from G itself.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// How to factor G into B Bᵀ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FactorMethod {
    /// Peeling (Alg. 4/5) first; backtracking (`docs/OVERLAP.md`) when peeling does not verify.
    Auto,
    /// Alg. 4/5 only: clique-seeded peeling (`docs/OVERLAP.md`).
    Peeling,
    /// Exact backtracking with column-class symmetry breaking (`docs/OVERLAP.md`).
    Backtracking,
}

crate::names::named_enum!(FactorMethod, "factorisation" {
    Auto => "auto",
    Peeling => "peeling",
    Backtracking => "backtracking",
});

/// Why a factorisation was not found.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error,
)]
pub enum FactorFailure {
    /// The search was exhaustive: no binary B with k columns has B Bᵀ = G.
    #[error("no binary factorisation with k columns exists")]
    Inconsistent,
    /// The backtracking search hit its node limit.
    #[error("backtracking search exceeded its node limit")]
    NodeLimit,
    /// Peeling did not produce a verified factorisation (and no fallback was allowed).
    #[error("peeling (Alg. 4/5) did not verify")]
    PeelingFailed,
    /// k must be at most 64.
    #[error("at most 64 clusters are supported")]
    TooManyClusters,
}

/// Default node limit of the backtracking search.
pub const DEFAULT_NODE_LIMIT: usize = 2_000_000;

/// The gram matrix B Bᵀ of mask rows, row-major.
pub fn gram_of(rows: &[u64]) -> Vec<u32> {
    let m = rows.len();
    let mut g = vec![0u32; m * m];
    for i in 0..m {
        for j in 0..m {
            g[i * m + j] = (rows[i] & rows[j]).count_ones();
        }
    }
    g
}

/// Whether B Bᵀ equals G exactly.
pub fn verify(g: &[u32], rows: &[u64]) -> bool {
    let m = rows.len();
    g.len() == m * m
        && (0..m).all(|i| (0..=i).all(|j| (rows[i] & rows[j]).count_ones() == g[i * m + j]))
}

fn low_bits(class: u64, c: u32) -> u64 {
    let mut x = 0u64;
    let mut rest = class;
    for _ in 0..c {
        let b = rest & rest.wrapping_neg();
        x |= b;
        rest &= !b;
    }
    x
}

struct Bt<'a> {
    g: &'a [u32],
    m: usize,
    rows: Vec<u64>,
    nodes: usize,
    limit: usize,
}

impl Bt<'_> {
    fn row(&mut self, i: usize, classes: &[u64]) -> Result<bool, FactorFailure> {
        if i == self.m {
            return Ok(true);
        }
        let w = self.g[i * self.m + i];
        self.choose(i, classes, 0, w, 0)
    }

    fn choose(
        &mut self,
        i: usize,
        classes: &[u64],
        j: usize,
        rem: u32,
        x: u64,
    ) -> Result<bool, FactorFailure> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(FactorFailure::NodeLimit);
        }
        let m = self.m;
        if j == classes.len() {
            if rem != 0 {
                return Ok(false);
            }
            if (0..i).any(|r| (x & self.rows[r]).count_ones() != self.g[i * m + r]) {
                return Ok(false);
            }
            self.rows.push(x);
            let refined: Vec<u64> = classes
                .iter()
                .flat_map(|&c| [c & x, c & !x])
                .filter(|&c| c != 0)
                .collect();
            if self.row(i + 1, &refined)? {
                return Ok(true);
            }
            self.rows.pop();
            return Ok(false);
        }
        let size = classes[j].count_ones();
        // Columns left in later classes bound how much weight can still be placed.
        let later: u32 = classes[j + 1..].iter().map(|c| c.count_ones()).sum();
        let lo = rem.saturating_sub(later);
        for c in lo..=size.min(rem) {
            let y = x | low_bits(classes[j], c);
            if (0..i).any(|r| (y & self.rows[r]).count_ones() > self.g[i * m + r]) {
                // more ones only increase the overlaps: larger c fails too
                break;
            }
            if self.choose(i, classes, j + 1, rem - c, y)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Exact binary factorisation by backtracking (`docs/OVERLAP.md`): assign rows one at a time; row i
/// needs weight G_ii and overlap G_ir with every assigned row r. Columns that are identical on
/// all assigned rows form a class, and only a prefix of each class is ever chosen (symmetry
/// breaking). Exponential only in k. Returns *a* factorisation (at k = 2Δ it may be the
/// complement of the truth, `docs/OVERLAP.md`).
pub fn factor_backtracking(
    g: &[u32],
    m: usize,
    k: usize,
    node_limit: usize,
) -> Result<Vec<u64>, FactorFailure> {
    if k > 64 {
        return Err(FactorFailure::TooManyClusters);
    }
    if k == 0 {
        return if g.iter().all(|&x| x == 0) {
            Ok(vec![0; m])
        } else {
            Err(FactorFailure::Inconsistent)
        };
    }
    let all = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
    let mut bt = Bt {
        g,
        m,
        rows: Vec::with_capacity(m),
        nodes: 0,
        limit: node_limit,
    };
    if bt.row(0, &[all])? {
        Ok(bt.rows)
    } else {
        Err(FactorFailure::Inconsistent)
    }
}

/// Reference factorisation by brute force over all (2^k)^m matrices (tests only; tiny inputs).
pub fn factor_naive(g: &[u32], m: usize, k: usize) -> Option<Vec<u64>> {
    let total = 1u64 << (k * m);
    (0..total).find_map(|code| {
        let rows: Vec<u64> = (0..m)
            .map(|i| (code >> (i * k)) & ((1u64 << k) - 1))
            .collect();
        verify(g, &rows).then_some(rows)
    })
}

type Bits = Vec<u64>;

fn bits_new(m: usize) -> Bits {
    vec![0; m.div_ceil(64)]
}
fn bit(b: &Bits, i: usize) -> bool {
    b[i >> 6] >> (i & 63) & 1 == 1
}
fn set(b: &mut Bits, i: usize) {
    b[i >> 6] |= 1 << (i & 63);
}
fn clear(b: &mut Bits, i: usize) {
    b[i >> 6] &= !(1 << (i & 63));
}
fn count(b: &Bits) -> usize {
    b.iter().map(|w| w.count_ones() as usize).sum()
}
fn and_count(a: &Bits, b: &Bits) -> usize {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x & y).count_ones() as usize)
        .sum()
}
fn members(b: &Bits) -> Vec<usize> {
    let mut v = Vec::new();
    for (w, &word) in b.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            v.push(w * 64 + x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
    v
}

/// Alg. 4 / Alg. 5 (`docs/OVERLAP.md`): clique-seeded peeling. For each pair with G_ij = 1 (one
/// shared cluster), the common neighbourhood in H = {G ≥ 1} is pruned to a near-clique
/// (tolerance `tol`: 0 for exact G) and closed; candidate clusters are then chosen one at a time
/// maximising (#pairs with residual ≥ 1) − (#pairs with residual ≤ 0), and the residual is
/// decreased on C × C. A single missing cluster is filled from the row deficits. Returns the
/// rows if the result has k clusters and B Bᵀ = G (exactly when `tol == 0`, else on at least
/// (1 − tol) of the entries); `None` otherwise.
pub fn factor_peeling(g: &[u32], m: usize, k: usize, tol: f64, seed: u64) -> Option<Vec<u64>> {
    if k == 0 || k > 64 || m == 0 {
        return None;
    }
    let mut adj: Vec<Bits> = vec![bits_new(m); m];
    for i in 0..m {
        for j in 0..m {
            if i != j && g[i * m + j] >= 1 {
                set(&mut adj[i], j);
            }
        }
    }
    let mean_w = (0..m).map(|i| g[i * m + i] as f64).sum::<f64>() / m as f64;
    let min_size = (0.3 * m as f64 * mean_w / k as f64).max(3.0).floor() as usize;
    let mut seeds: Vec<(usize, usize)> = (0..m)
        .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
        .filter(|&(i, j)| g[i * m + j] == 1)
        .collect();
    let mut rng = StdRng::seed_from_u64(seed);
    for t in (1..seeds.len()).rev() {
        let u = rng.random_range(0..=t);
        seeds.swap(t, u);
    }
    let mut explained: Vec<Bits> = vec![bits_new(m); m];
    let mut cands: Vec<Bits> = Vec::new();
    for (i, j) in seeds {
        if bit(&explained[i], j) {
            continue;
        }
        let mut mset: Bits = adj[i].iter().zip(&adj[j]).map(|(a, b)| a & b).collect();
        set(&mut mset, i);
        set(&mut mset, j);
        // prune the members with the fewest neighbours inside M
        loop {
            let size = count(&mset);
            let need = (1.0 - tol) * (size as f64 - 1.0);
            let worst = members(&mset)
                .into_iter()
                .map(|v| (and_count(&adj[v], &mset), v))
                .min();
            match worst {
                Some((d, v)) if (d as f64) < need - 1e-9 => clear(&mut mset, v),
                _ => break,
            }
        }
        // close under "adjacent to (almost) all of M"
        let size = count(&mset);
        for (l, nb) in adj.iter().enumerate() {
            if !bit(&mset, l) && and_count(nb, &mset) as f64 >= (1.0 - tol) * size as f64 - 1e-9 {
                set(&mut mset, l);
            }
        }
        let mem = members(&mset);
        for &a in &mem {
            for &b in &mem {
                set(&mut explained[a], b);
            }
        }
        if mem.len() < min_size.min(m) {
            continue;
        }
        let dup = cands.iter().any(|c| {
            let inter = and_count(c, &mset) as f64;
            let uni = (count(c) + mem.len()) as f64 - inter;
            inter / uni > 0.9
        });
        if !dup {
            cands.push(mset);
        }
    }
    // peel k clusters from the residual R = G
    let mut r: Vec<i64> = g.iter().map(|&x| x as i64).collect();
    let mut chosen: Vec<Vec<usize>> = Vec::new();
    let mut cand_members: Vec<Vec<usize>> = cands.iter().map(members).collect();
    while chosen.len() < k && !cand_members.is_empty() {
        let score = |c: &Vec<usize>| -> i64 {
            let mut s = 0;
            for &a in c {
                for &b in c {
                    if r[a * m + b] >= 1 { s += 1 } else { s -= 1 }
                }
            }
            s
        };
        let (best, sc) = cand_members
            .iter()
            .enumerate()
            .map(|(t, c)| (t, score(c)))
            .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))?;
        if sc <= 0 {
            break;
        }
        let c = cand_members.swap_remove(best);
        for &a in &c {
            for &b in &c {
                r[a * m + b] -= 1;
            }
        }
        chosen.push(c);
    }
    let mut rows = vec![0u64; m];
    for (col, c) in chosen.iter().enumerate() {
        for &a in c {
            rows[a] |= 1 << col;
        }
    }
    if chosen.len() + 1 == k {
        let col = chosen.len();
        for (i, row) in rows.iter_mut().enumerate() {
            if row.count_ones() < g[i * m + i] {
                *row |= 1 << col;
            }
        }
        chosen.push(Vec::new());
    }
    if chosen.len() != k {
        return None;
    }
    if tol == 0.0 {
        verify(g, &rows).then_some(rows)
    } else {
        let bad = (0..m)
            .flat_map(|i| (0..m).map(move |j| (i, j)))
            .filter(|&(i, j)| (rows[i] & rows[j]).count_ones() != g[i * m + j])
            .count();
        ((bad as f64) <= tol * (m * m) as f64).then_some(rows)
    }
}

/// Factor G (m × m) into B Bᵀ with k columns by `method`; reports which method succeeded.
pub fn factor_gram(
    g: &[u32],
    m: usize,
    k: usize,
    method: FactorMethod,
    node_limit: usize,
    seed: u64,
) -> Result<(Vec<u64>, FactorMethod), FactorFailure> {
    if k > 64 {
        return Err(FactorFailure::TooManyClusters);
    }
    if matches!(method, FactorMethod::Auto | FactorMethod::Peeling)
        && let Some(rows) = factor_peeling(g, m, k, 0.0, seed)
    {
        return Ok((rows, FactorMethod::Peeling));
    }
    if method == FactorMethod::Peeling {
        return Err(FactorFailure::PeelingFailed);
    }
    factor_backtracking(g, m, k, node_limit).map(|rows| (rows, FactorMethod::Backtracking))
}

/// Indices of rows forming a basis of their real span, chosen greedily in order (Alg. 2 step
/// 2: "find T ⊆ S that forms a basis of ℝ^k"). Rank = returned length.
pub fn greedy_basis(rows: &[u64], k: usize) -> Vec<usize> {
    let mut ech: Vec<(usize, Vec<f64>)> = Vec::new(); // (pivot column, reduced row)
    let mut chosen = Vec::new();
    for (idx, &r) in rows.iter().enumerate() {
        if ech.len() == k {
            break;
        }
        let mut v: Vec<f64> = (0..k).map(|c| (r >> c & 1) as f64).collect();
        for (p, e) in &ech {
            let f = v[*p];
            if f != 0.0 {
                for c in 0..k {
                    v[c] -= f * e[c];
                }
            }
        }
        let (p, mx) = v
            .iter()
            .enumerate()
            .map(|(c, x)| (c, x.abs()))
            .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        if mx > 1e-9 {
            let piv = v[p];
            for x in &mut v {
                *x /= piv;
            }
            for (_, e) in &mut ech {
                let f = e[p];
                if f != 0.0 {
                    for c in 0..k {
                        e[c] -= f * v[c];
                    }
                }
            }
            ech.push((p, v));
            chosen.push(idx);
        }
    }
    chosen
}

/// Solves B_T x = b for binary x (Alg. 2 step 3), with B_T the k × k basis rows.
#[derive(Debug, Clone)]
pub struct BasisSolver {
    k: usize,
    basis: Vec<u64>,
    inv: Vec<f64>,
}

impl BasisSolver {
    /// Inverts the basis rows (Gauss–Jordan with partial pivoting); `None` if singular.
    pub fn new(basis: &[u64], k: usize) -> Option<Self> {
        if basis.len() != k {
            return None;
        }
        let mut a: Vec<f64> = (0..k * k)
            .map(|t| (basis[t / k] >> (t % k) & 1) as f64)
            .collect();
        let mut inv: Vec<f64> = (0..k * k).map(|t| (t / k == t % k) as u8 as f64).collect();
        for col in 0..k {
            let p =
                (col..k).max_by(|&x, &y| a[x * k + col].abs().total_cmp(&a[y * k + col].abs()))?;
            if a[p * k + col].abs() < 1e-9 {
                return None;
            }
            for c in 0..k {
                a.swap(col * k + c, p * k + c);
                inv.swap(col * k + c, p * k + c);
            }
            let d = a[col * k + col];
            for c in 0..k {
                a[col * k + c] /= d;
                inv[col * k + c] /= d;
            }
            for r in 0..k {
                if r != col {
                    let f = a[r * k + col];
                    if f != 0.0 {
                        for c in 0..k {
                            a[r * k + c] -= f * a[col * k + c];
                            inv[r * k + c] -= f * inv[col * k + c];
                        }
                    }
                }
            }
        }
        Some(BasisSolver {
            k,
            basis: basis.to_vec(),
            inv,
        })
    }

    /// The binary x with B_T x = b exactly, or `None` if the solution is not binary.
    pub fn solve(&self, b: &[u32]) -> Option<u64> {
        let k = self.k;
        let mut x = 0u64;
        for r in 0..k {
            let v: f64 = (0..k).map(|c| self.inv[r * k + c] * b[c] as f64).sum();
            let rounded = v.round();
            if (v - rounded).abs() > 1e-6 || !(rounded == 0.0 || rounded == 1.0) {
                return None;
            }
            if rounded == 1.0 {
                x |= 1 << r;
            }
        }
        self.basis
            .iter()
            .zip(b)
            .all(|(&t, &bt)| (t & x).count_ones() == bt)
            .then_some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rand_rows(m: usize, k: usize, w: u32, seed: u64) -> Vec<u64> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..m)
            .map(|_| {
                let mut x = 0u64;
                while x.count_ones() < w {
                    x |= 1 << rng.random_range(0..k);
                }
                x
            })
            .collect()
    }

    proptest! {
        #[test]
        fn backtracking_agrees_with_brute_force(
            rows in (1usize..4, 1usize..4).prop_flat_map(|(m, k)| proptest::collection::vec(0u64..(1 << k), m).prop_map(move |r| (r, k)))
        ) {
            let (rows, k) = rows;
            let m = rows.len();
            let g = gram_of(&rows);
            let fast = factor_backtracking(&g, m, k, DEFAULT_NODE_LIMIT);
            let naive = factor_naive(&g, m, k);
            prop_assert!(naive.is_some());
            let b = fast.unwrap();
            prop_assert!(verify(&g, &b));
            // a random symmetric integer matrix: both agree on existence
        }

        #[test]
        fn backtracking_existence_matches_brute_force(
            (m, k, vals) in (1usize..4, 1usize..3).prop_flat_map(|(m, k)| (Just(m), Just(k), proptest::collection::vec(0u32..3, m * m)))
        ) {
            let mut g = vals;
            for i in 0..m { for j in 0..i { g[i * m + j] = g[j * m + i]; } }
            let fast = factor_backtracking(&g, m, k, DEFAULT_NODE_LIMIT);
            let naive = factor_naive(&g, m, k);
            prop_assert_eq!(fast.is_ok(), naive.is_some());
            if let Ok(b) = fast { prop_assert!(verify(&g, &b)); }
        }

        #[test]
        fn basis_solver_recovers_rows(seed in 0u64..1000) {
            let k = 6;
            let rows = rand_rows(40, k, 2, seed);
            let t = greedy_basis(&rows, k);
            if t.len() == k {
                let basis: Vec<u64> = t.iter().map(|&i| rows[i]).collect();
                let s = BasisSolver::new(&basis, k).unwrap();
                for &r in &rows {
                    let b: Vec<u32> = basis.iter().map(|&x| (x & r).count_ones()).collect();
                    prop_assert_eq!(s.solve(&b), Some(r));
                }
            }
        }
    }

    #[test]
    fn peeling_recovers_uniform_gram_exactly() {
        for seed in 0..5 {
            let rows = rand_rows(120, 12, 2, seed);
            let g = gram_of(&rows);
            let b = factor_peeling(&g, 120, 12, 0.0, seed).expect("peeling");
            assert!(verify(&g, &b));
        }
    }

    #[test]
    fn backtracking_handles_dense_regime() {
        // `docs/OVERLAP.md`: k = 10, Δ = 4 defeats peeling; backtracking is exact.
        let rows = rand_rows(60, 10, 4, 3);
        let g = gram_of(&rows);
        let (b, _) = factor_gram(&g, 60, 10, FactorMethod::Auto, DEFAULT_NODE_LIMIT, 0).unwrap();
        assert!(verify(&g, &b));
    }

    #[test]
    fn inconsistent_gram_is_reported() {
        // three rows pairwise sharing one cluster, weight 1 each, but k = 1 forces all equal
        let g = vec![1, 0, 0, 1];
        assert_eq!(
            factor_backtracking(&g, 2, 1, 1000),
            Err(FactorFailure::Inconsistent)
        );
    }
}
