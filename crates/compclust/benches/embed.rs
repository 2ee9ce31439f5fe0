//! Benchmarks: t-STE fit time on planted 2-D point sets (docs/benchmarks/embed.md).
//!
//! Each configuration draws n uniform points in [0,1]², m_train + m_test noise-free random
//! triplets (fixed seed), writes them as `anchor,near,far` CSV files (0-based) to
//! `$EMBED_BENCH_DIR` (default: cargo's bench tmp dir) for the cblearn comparison script
//! `docs/benchmarks/scripts/tste_cblearn.py`, prints the held-out triplet accuracy of one fit,
//! and times `TsteParams::new(2).seed(0).fit(..)` with criterion.
//!
//! Run: `cargo bench -p compclust --bench embed` (add `-- --quick` for a fast look).

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;

use compclust::data::Triplet;
use compclust::embed::tste::TsteParams;
use compclust::metrics::triplet::triplet_accuracy;
use criterion::{Criterion, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

struct Config {
    name: &'static str,
    n: usize,
    m_train: usize,
    m_test: usize,
    dim: usize,
}

const CONFIGS: [Config; 3] = [
    Config {
        name: "n500_m20k_d2",
        n: 500,
        m_train: 20_000,
        m_test: 10_000,
        dim: 2,
    },
    Config {
        name: "n1000_m100k_d2",
        n: 1000,
        m_train: 100_000,
        m_test: 20_000,
        dim: 2,
    },
    Config {
        name: "n1000_m100k_d5",
        n: 1000,
        m_train: 100_000,
        m_test: 20_000,
        dim: 5,
    },
];

fn planted(n: usize, m: usize, seed: u64) -> Vec<Triplet> {
    let mut rng = StdRng::seed_from_u64(seed);
    let x: Vec<[f64; 2]> = (0..n)
        .map(|_| [rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)])
        .collect();
    let d2 = |i: usize, j: usize| (x[i][0] - x[j][0]).powi(2) + (x[i][1] - x[j][1]).powi(2);
    let mut tr = Vec::with_capacity(m);
    while tr.len() < m {
        let (a, b, c) = (
            rng.random_range(0..n),
            rng.random_range(0..n),
            rng.random_range(0..n),
        );
        if a == b || a == c || b == c {
            continue;
        }
        let (p, q) = (d2(a, b), d2(a, c));
        if p < q {
            tr.push(Triplet::new(a as u32, b as u32, c as u32));
        } else if q < p {
            tr.push(Triplet::new(a as u32, c as u32, b as u32));
        }
    }
    tr
}

fn write_csv(path: &PathBuf, tr: &[Triplet]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create csv"));
    writeln!(f, "anchor,near,far").unwrap();
    for t in tr {
        writeln!(f, "{},{},{}", t.anchor, t.near, t.far).unwrap();
    }
}

fn bench_tste(c: &mut Criterion) {
    let dir = std::env::var_os("EMBED_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("embed-bench"));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let mut group = c.benchmark_group("tste_fit");
    group.sample_size(10);
    for cfg in &CONFIGS {
        let all = planted(cfg.n, cfg.m_train + cfg.m_test, 2026);
        let (train, test) = all.split_at(cfg.m_train);
        write_csv(&dir.join(format!("{}_train.csv", cfg.name)), train);
        write_csv(&dir.join(format!("{}_test.csv", cfg.name)), test);
        let params = TsteParams::new(cfg.dim).seed(0);
        let fit = params.fit(cfg.n, train, None).expect("fit");
        let rows = fit.rows();
        println!(
            "{}: n={} d={} m_train={} held-out acc={:.4} train acc={:.4} iterations={} \
             evaluations={} loss={:.3} stop={:?} (csv in {})",
            cfg.name,
            cfg.n,
            cfg.dim,
            cfg.m_train,
            triplet_accuracy(&rows, cfg.dim, test).unwrap(),
            triplet_accuracy(&rows, cfg.dim, train).unwrap(),
            fit.info.iterations,
            fit.info.evaluations,
            fit.info.loss,
            fit.info.stop,
            dir.display()
        );
        group.bench_function(cfg.name, |b| {
            b.iter(|| black_box(params.fit(cfg.n, black_box(train), None).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_tste);
criterion_main!(benches);
