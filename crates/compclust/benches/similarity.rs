//! Benchmarks: AddS-3 / AddS-4 accumulation throughput (target ≥ 100M triplets/s/core) and the
//! MulK kernels, at the paper's default size (n = 1000, |T| = n·ln³n ≈ 330k) and 10× more rows.
//!
//! Run: `cargo bench -p compclust --bench similarity`. Results: docs/benchmarks/flat.md.

use std::hint::black_box;

use compclust::data::{Quadruplet, Triplet};
use compclust::similarity::{AddS3Accumulator, adds3, adds4, mulk3, mulk4};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn random_triplets(n: u32, m: usize, seed: u64) -> Vec<Triplet> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..m)
        .map(|_| {
            let a = rng.random_range(0..n);
            let mut b = rng.random_range(0..n);
            while b == a {
                b = rng.random_range(0..n);
            }
            let mut c = rng.random_range(0..n);
            while c == a || c == b {
                c = rng.random_range(0..n);
            }
            Triplet::new(a, b, c)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let n = 1000usize;
    let m = (n as f64 * (n as f64).ln().powi(3)).round() as usize;
    for (label, rows) in [("330k", m), ("3.3M", 10 * m)] {
        let t = random_triplets(n as u32, rows, 1);
        let q: Vec<Quadruplet> = t.iter().map(|t| t.to_quadruplet()).collect();
        let mut g = c.benchmark_group(format!("n1000_{label}"));
        g.throughput(Throughput::Elements(rows as u64));
        g.sample_size(20);
        g.bench_function("adds3_parallel", |b| {
            b.iter(|| adds3(n, black_box(&t)).unwrap())
        });
        g.bench_function("adds3_accumulator_1thread", |b| {
            b.iter(|| {
                let mut acc = AddS3Accumulator::new(n).unwrap();
                acc.add(black_box(&t)).unwrap();
                acc
            })
        });
        g.bench_function("adds4_parallel", |b| {
            b.iter(|| adds4(n, black_box(&q)).unwrap())
        });
        if rows == m {
            g.bench_function("mulk3", |b| b.iter(|| mulk3(n, black_box(&t)).unwrap()));
            g.bench_function("mulk4", |b| b.iter(|| mulk4(n, black_box(&q)).unwrap()));
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
