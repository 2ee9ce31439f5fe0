//! Criterion benchmarks of the SDP solver (`compclust::sdp`): SDP-k on a noisy 4-block matrix
//! (n = 300), full-EVD vs rank-adaptive projection, and one full-EVD ADMM iteration's
//! eigendecomposition cost. The paper-default n = 1000 pipeline (AddS-3 + SPUR) is measured by
//! `tests/sdp_bench.rs` (see `docs/benchmarks/sdp.md`).
//!
//! `cargo bench -p compclust --bench sdp`

use compclust::sdp::{Projection, SdpParams, solve_sdp_k};
use criterion::{Criterion, criterion_group, criterion_main};
use faer::Mat;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;

fn noisy_blocks(n: usize, k: usize, noise: f64, seed: u64) -> Mat<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut s = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        for i in (j + 1)..n {
            let v = f64::from(u8::from(i % k == j % k)) + rng.random_range(-noise..noise);
            s[(i, j)] = v;
            s[(j, i)] = v;
        }
    }
    s
}

fn bench_sdp(c: &mut Criterion) {
    let s = noisy_blocks(300, 4, 1.0, 1);
    let mut g = c.benchmark_group("sdp_k_n300_k4");
    g.sample_size(10);
    for projection in [Projection::Full, Projection::Adaptive] {
        let p = SdpParams::default().with_projection(projection);
        g.bench_function(format!("{projection:?}"), |b| {
            b.iter(|| black_box(solve_sdp_k(s.as_ref(), 4, &p).unwrap().info.iterations))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_sdp);
criterion_main!(benches);
