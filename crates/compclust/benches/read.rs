//! Benchmarks: reading delimited comparison files (`data::read`), the first step of
//! `compclust cluster` on a large input.
//!
//! Run: `cargo bench -p compclust --bench read`. One million simulated triplets (and
//! quadruplets) over 10,000 items, written as the headered CSV that `compclust simulate` writes,
//! then parsed from memory, so the disk is not measured.

use std::hint::black_box;

use compclust::data::{ReadOptions, read_comparisons_from};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A headered CSV of `rows` comparisons of `arity` items drawn from `n` labels `0..n`.
fn csv_text(header: &str, arity: usize, rows: usize, n: u64) -> String {
    let mut s = String::with_capacity(rows * 6 * arity);
    s.push_str(header);
    s.push('\n');
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..rows {
        let mut ids = [0u64; 4];
        for j in 0..arity {
            // Distinct labels in one row (xorshift draws, rejection on repeats).
            loop {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = x % n;
                if !ids[..j].contains(&v) {
                    ids[j] = v;
                    break;
                }
            }
        }
        let row: Vec<String> = ids[..arity].iter().map(u64::to_string).collect();
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

fn read(c: &mut Criterion) {
    let mut g = c.benchmark_group("read");
    g.sample_size(10);
    let rows = 1_000_000;
    for (name, header, arity) in [
        ("triplets", "anchor,near,far", 3),
        ("quadruplets", "a,b,c,d", 4),
    ] {
        let text = csv_text(header, arity, rows, 10_000);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("{name} csv 1M rows n=10000"), |b| {
            b.iter(|| {
                black_box(
                    read_comparisons_from(text.as_bytes(), "bench.csv", &ReadOptions::default())
                        .unwrap(),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
