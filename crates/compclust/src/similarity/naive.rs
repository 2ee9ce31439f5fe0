//! Naive reference implementations, written straight from the papers' formulas with explicit
//! loops over all index tuples (O(n³)–O(n⁵) time). Only for tests on tiny inputs; the fast
//! versions in [`crate::similarity`] must agree with these exactly.
//!
//! Indicators `I{x ∈ T}` are read as "number of rows equal to x" (see the multiset convention
//! in [`crate::similarity`]); pairs inside quadruplets are unordered.

use std::collections::HashMap;

use faer::Mat;

use crate::data::{Quadruplet, Triplet};

fn triplet_counts(triplets: &[Triplet]) -> HashMap<(u32, u32, u32), i64> {
    let mut c = HashMap::new();
    for t in triplets {
        if !t.is_degenerate() {
            *c.entry((t.anchor, t.near, t.far)).or_insert(0) += 1;
        }
    }
    c
}

/// An unordered pair as (min, max).
type Pair = (u32, u32);

/// `#{rows with {a,b} ≻ {c,d}}`, as a map keyed by the two sorted pairs.
fn quadruplet_counts(quadruplets: &[Quadruplet]) -> HashMap<(Pair, Pair), i64> {
    let mut c = HashMap::new();
    for q in quadruplets {
        if !q.is_degenerate() {
            let p = (q.a.min(q.b), q.a.max(q.b));
            let r = (q.c.min(q.d), q.c.max(q.d));
            *c.entry((p, r)).or_insert(0) += 1;
        }
    }
    c
}

fn pair(a: usize, b: usize) -> (u32, u32) {
    (a.min(b) as u32, a.max(b) as u32)
}

/// AddS-3, Perrot et al. 2020, §4: `S_ij = Σ_{r≠i,j} I{(i,j,r)} − I{(i,r,j)} + I{(j,i,r)} − I{(j,r,i)}`.
pub fn adds3(n: usize, triplets: &[Triplet]) -> Mat<f64> {
    let c = triplet_counts(triplets);
    let i3 = |a: usize, b: usize, r: usize| *c.get(&(a as u32, b as u32, r as u32)).unwrap_or(&0);
    Mat::from_fn(n, n, |i, j| {
        if i == j {
            return 0.0;
        }
        let mut s = 0i64;
        for r in (0..n).filter(|&r| r != i && r != j) {
            s += i3(i, j, r) - i3(i, r, j) + i3(j, i, r) - i3(j, r, i);
        }
        s as f64
    })
}

/// AddS-4, Perrot et al. 2020, §4: `S_ij = Σ_{r<s} I{(i,j,r,s)} − I{(r,s,i,j)}`.
pub fn adds4(n: usize, quadruplets: &[Quadruplet]) -> Mat<f64> {
    let c = quadruplet_counts(quadruplets);
    let i4 = |p: (u32, u32), q: (u32, u32)| *c.get(&(p, q)).unwrap_or(&0);
    Mat::from_fn(n, n, |i, j| {
        if i == j {
            return 0.0;
        }
        let mut s = 0i64;
        for r in 0..n {
            for t in r + 1..n {
                s += i4(pair(i, j), pair(r, t)) - i4(pair(r, t), pair(i, j));
            }
        }
        s as f64
    })
}

/// MulK-3, Perrot et al. 2020, App. A:
/// `S_ij = Σ_{r<s} (I{(i,r,s)} − I{(i,s,r)})(I{(j,r,s)} − I{(j,s,r)}) / sqrt(|T_i||T_j|)`.
pub fn mulk3(n: usize, triplets: &[Triplet]) -> Mat<f64> {
    let c = triplet_counts(triplets);
    let i3 = |a: usize, b: usize, r: usize| *c.get(&(a as u32, b as u32, r as u32)).unwrap_or(&0);
    let anchored: Vec<i64> = (0..n)
        .map(|i| {
            c.iter()
                .filter(|(k, _)| k.0 as usize == i)
                .map(|(_, v)| *v)
                .sum()
        })
        .collect();
    Mat::from_fn(n, n, |i, j| {
        if i == j || anchored[i] == 0 || anchored[j] == 0 {
            return 0.0;
        }
        let mut s = 0i64;
        for r in 0..n {
            for t in r + 1..n {
                s += (i3(i, r, t) - i3(i, t, r)) * (i3(j, r, t) - i3(j, t, r));
            }
        }
        s as f64 / ((anchored[i] as f64).sqrt() * (anchored[j] as f64).sqrt())
    })
}

/// MulK-4, Perrot et al. 2020, App. A (= Ghoshdastidar et al. 2019, eq. 3, passive 4K-AL kernel):
/// `S_ij = Σ_{ℓ≠i,j} Σ_{r<s} (I{(i,ℓ,r,s)} − I{(r,s,i,ℓ)})(I{(j,ℓ,r,s)} − I{(r,s,j,ℓ)})`.
pub fn mulk4(n: usize, quadruplets: &[Quadruplet]) -> Mat<f64> {
    let c = quadruplet_counts(quadruplets);
    let i4 = |p: (u32, u32), q: (u32, u32)| *c.get(&(p, q)).unwrap_or(&0);
    Mat::from_fn(n, n, |i, j| {
        if i == j {
            return 0.0;
        }
        let mut s = 0i64;
        for l in (0..n).filter(|&l| l != i && l != j) {
            for r in 0..n {
                for t in r + 1..n {
                    let rs = pair(r, t);
                    let vi = i4(pair(i, l), rs) - i4(rs, pair(i, l));
                    let vj = i4(pair(j, l), rs) - i4(rs, pair(j, l));
                    s += vi * vj;
                }
            }
        }
        s as f64
    })
}
