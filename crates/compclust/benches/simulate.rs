//! Benchmarks: passive sampling from the lazy planted model (Perrot et al. 2020, §2) and the metrics.
//!
//! Run: `cargo bench -p compclust --bench simulate`. Targets (task brief): n·ln³n triplets at
//! n = 1,000 (≈ 330k) and n = 10,000 (≈ 7.8M) "in well under a second or so".

use std::hint::black_box;

use compclust::hierarchy::{Dendrogram, Merge};
use compclust::metrics::ari::adjusted_rand_index;
use compclust::metrics::dasgupta::dasgupta_cost;
use compclust::models::flat::{Family, PlantedFlat};
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::{Similarity, sample_quadruplets, sample_triplets};
use criterion::{Criterion, criterion_group, criterion_main};

fn auto(n: usize) -> usize {
    let l = (n as f64).ln();
    (n as f64 * l * l * l).round() as usize
}

fn sampling(c: &mut Criterion) {
    let mut g = c.benchmark_group("sample");
    g.sample_size(10);
    for n in [1_000usize, 10_000] {
        let m = PlantedFlat::new(n, 4, Family::NormalNormal, 0.5, 1).unwrap();
        let count = auto(n);
        g.bench_function(format!("triplets n={n} m={count}"), |b| {
            b.iter(|| black_box(sample_triplets(&m, count, 0.75, 2).unwrap()))
        });
    }
    let m = PlantedFlat::new(1_000, 4, Family::NormalNormal, 0.5, 1).unwrap();
    g.bench_function("quadruplets n=1000 m=329618", |b| {
        b.iter(|| black_box(sample_quadruplets(&m, auto(1000), 0.75, 2).unwrap()))
    });
    g.finish();
}

fn metrics(c: &mut Criterion) {
    let mut g = c.benchmark_group("metrics");
    g.sample_size(10);
    let n = 1_000_000;
    let a: Vec<usize> = (0..n).map(|i| i % 7).collect();
    let b: Vec<usize> = (0..n).map(|i| (i * 31 + i / 3) % 5).collect();
    g.bench_function("ari n=1e6", |bch| {
        bch.iter(|| black_box(adjusted_rand_index(&a, &b)))
    });
    let h = PlantedHierarchy::new(5, 63, 0.8, 0.1, 0.1, 1).unwrap(); // n = 2016
    let d = h.dendrogram();
    g.bench_function(format!("dasgupta planted n={}", h.n_items()), |bch| {
        bch.iter(|| black_box(dasgupta_cost(&d, &h).unwrap()))
    });
    // a caterpillar (worst case for the merge lists)
    let n = h.n_items();
    let mut steps = vec![Merge {
        a: 0,
        b: 1,
        height: 0.0,
        size: 2,
    }];
    for i in 2..n {
        steps.push(Merge {
            a: n + i - 2,
            b: i,
            height: 0.0,
            size: i + 1,
        });
    }
    let cat = Dendrogram::new(n, steps).unwrap();
    g.bench_function(format!("dasgupta caterpillar n={n}"), |bch| {
        bch.iter(|| black_box(dasgupta_cost(&cat, &h).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, sampling, metrics);
criterion_main!(benches);
