//! Benchmarks of the overlap algorithms (Huleihel et al. 2019) on the project's targets (n = 2000, k = 6, Δ = 2 among them). Run with
//! `cargo bench -p compclust --bench overlap`; results in docs/benchmarks/overlap.md.

use std::hint::black_box;

use compclust::active::{RunOutcome, run};
use compclust::metrics::gram::gram_error;
use compclust::models::overlap::{BernoulliEnsemble, UniformEnsemble, movielens_like};
use compclust::overlap::clique_cover::CliqueCoverParams;
use compclust::overlap::find_similarity::FindSimilarityParams;
use compclust::overlap::response::SimulatedOracle;
use compclust::overlap::triangle::{Noise, TriangleCountParams};
use compclust::overlap::triangle_iid::TriangleIidParams;
use compclust::overlap::{OverlapEstimate, SampleSize};
use criterion::{Criterion, criterion_group, criterion_main};

fn done(o: RunOutcome<OverlapEstimate, compclust::overlap::response::Pair>) -> OverlapEstimate {
    match o {
        RunOutcome::Finished { output, .. } => output,
        RunOutcome::Missing { .. } => unreachable!("simulated oracles answer everything"),
    }
}

fn benches(c: &mut Criterion) {
    let uniform = UniformEnsemble {
        n: 2000,
        k: 6,
        delta: 2,
    }
    .sample(1)
    .unwrap();
    let ml = movielens_like(0);
    let mut g = c.benchmark_group("overlap");
    g.sample_size(10);
    g.bench_function("alg2_direct_n2000_k6_d2", |b| {
        b.iter(|| {
            let p = FindSimilarityParams {
                seed: 5,
                ..FindSimilarityParams::uniform(6, 2)
            };
            black_box(done(run(
                p.build(2000).unwrap(),
                &mut SimulatedOracle::direct(&uniform),
            )))
        })
    });
    g.bench_function("alg6_q0_n2000_k6_d2", |b| {
        b.iter(|| {
            let p = TriangleCountParams {
                seed: 3,
                ..TriangleCountParams::new(6, 2, Noise::Bsc { q: Some(0.0) })
            };
            black_box(done(run(
                p.build(2000).unwrap(),
                &mut SimulatedOracle::quantized(&uniform, 0.0, 0),
            )))
        })
    });
    g.bench_function("alg6_q01_rule_n2000_k6_d2", |b| {
        b.iter(|| {
            let p = TriangleCountParams {
                seed: 4,
                ..TriangleCountParams::new(6, 2, Noise::Bsc { q: Some(0.1) })
            };
            black_box(done(run(
                p.build(2000).unwrap(),
                &mut SimulatedOracle::quantized(&uniform, 0.1, 7),
            )))
        })
    });
    let iid = BernoulliEnsemble {
        n: 1500,
        k: 8,
        p: 0.25,
    }
    .sample(11)
    .unwrap();
    g.bench_function("alg9_q005_n1500_k8_p025_m700", |b| {
        b.iter(|| {
            let mut p = TriangleIidParams::new(8, Some(0.25), 0.05);
            p.sample_size = SampleSize::Fixed(700);
            p.probes_per_cluster = SampleSize::Fixed(60);
            p.seed = 2;
            black_box(done(run(
                p.build(1500).unwrap(),
                &mut SimulatedOracle::quantized(&iid, 0.05, 5),
            )))
        })
    });
    g.bench_function("alg3_movielens_like_m400", |b| {
        b.iter(|| {
            let p = CliqueCoverParams {
                sample_size: SampleSize::Fixed(400),
                expected_k: Some(5),
                seed: 1,
            };
            black_box(done(run(
                p.build(ml.n_items()).unwrap(),
                &mut SimulatedOracle::quantized(&ml, 0.0, 0),
            )))
        })
    });
    g.bench_function("gram_error_n3470", |b| {
        b.iter(|| black_box(gram_error(&ml, &ml).unwrap()))
    });
    g.finish();
}

criterion_group!(overlap, benches);
criterion_main!(overlap);
