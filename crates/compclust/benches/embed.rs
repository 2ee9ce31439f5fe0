//! Benchmarks: t-STE fit time on planted 2-D point sets (docs/benchmarks/embed.md).
//!
//! Each configuration draws n uniform points in [0,1]², m_train + m_test noise-free random
//! triplets (fixed seed), writes them as `anchor,near,far` CSV files (0-based) to
//! `$EMBED_BENCH_DIR` (default: cargo's bench tmp dir) for the cblearn comparison script
//! `docs/benchmarks/scripts/tste_cblearn.py`, prints the held-out triplet accuracy of one fit,
//! and times `TsteParams::new(2).with_seed(0).fit(..)` with criterion.
//!
//! Run: `cargo bench -p compclust --bench embed` (add `-- --quick` for a fast look).

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

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

const SEEDS: u64 = 5;

/// CPU time of this process (all threads), user + system, from `/proc/self/stat` (Linux; 0
/// elsewhere). Clock ticks are taken as 100 Hz, the Linux default.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        0.5 * (v[k / 2 - 1] + v[k / 2])
    }
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
        // Seeds 0..SEEDS, one timed fit each (the same protocol as the cblearn script), then
        // criterion on seed 0.
        let mut times = Vec::new();
        let mut accs = Vec::new();
        let mut cpus = Vec::new();
        for seed in 0..SEEDS {
            let (start, cpu0) = (Instant::now(), cpu_seconds());
            let fit = TsteParams::new(cfg.dim)
                .with_seed(seed)
                .fit(cfg.n, train, None)
                .expect("fit");
            let secs = start.elapsed().as_secs_f64();
            let cpu = cpu_seconds() - cpu0;
            let rows = fit.rows();
            let acc = triplet_accuracy(&rows, cfg.dim, test).unwrap();
            println!(
                "{} seed={seed} time={secs:.3}s cpu={cpu:.2}s iterations={} evaluations={} held-out acc={acc:.4} \
                 train acc={:.4} loss={:.3} stop={:?}",
                cfg.name,
                fit.info.iterations,
                fit.info.evaluations,
                triplet_accuracy(&rows, cfg.dim, train).unwrap(),
                fit.info.loss,
                fit.info.stop,
            );
            times.push(secs);
            cpus.push(cpu);
            accs.push(acc);
        }
        println!(
            "{} compclust t-STE median time={:.3}s median cpu={:.2}s median held-out acc={:.4} (csv in {})",
            cfg.name,
            median(&mut times),
            median(&mut cpus),
            median(&mut accs),
            dir.display()
        );
        let params = TsteParams::new(cfg.dim).with_seed(0);
        group.bench_function(cfg.name, |b| {
            b.iter(|| black_box(params.fit(cfg.n, black_box(train), None).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_tste);
criterion_main!(benches);
