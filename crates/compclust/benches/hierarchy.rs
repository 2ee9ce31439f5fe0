//! Benchmarks: hierarchy (Ghoshdastidar et al. 2019). Run with
//! `cargo bench -p compclust --bench hierarchy` (criterion timing of 4-AL on the Ghoshdastidar et al. 2019, §4.1
//! planted model). With `HIERARCHY_TABLES=1` it also prints the tables of
//! docs/benchmarks/hierarchy.md: AARI over δ for 4-AL / 4K-AL / SL / CL (Ghoshdastidar et al. 2019, Fig. 2a), the
//! N = 2000 4-AL run with ~10⁷ quadruplets (time, peak memory), and Dasgupta costs on Zoo.
//! With `HIERARCHY_LARGE=1` it runs only the N = 2000 4-AL run (and the check below); with
//! `HIERARCHY_SMALL=1` only the dendrogram digest and the fastest of 5 timings of the two
//! halves of 4-AL (reading, agglomeration) on the criterion input.

use std::path::Path;
use std::time::Instant;

use compclust::data::datasets::load_zoo;
use compclust::data::{Comparisons, Quadruplet};
use compclust::hierarchy::{FourAlParams, Linkage, four_k_al, linkage_active};
use compclust::metrics::aari::aari_levels;
use compclust::metrics::dasgupta::dasgupta_cost;
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::{
    FeatureSimilarity, Kernel, Similarity, sample_quadruplets, sample_quadruplets_bernoulli,
};
use criterion::{BatchSize, Criterion};

fn peak_rss_mb() -> f64 {
    compclust::limits::peak_resident_memory().map_or(f64::NAN, |b| b as f64 / (1 << 20) as f64)
}

fn active<S: Similarity>(sim: &S, method: Linkage) -> (compclust::hierarchy::Dendrogram, usize) {
    let mut o = |q: &Quadruplet| {
        sim.similarity(q.a as usize, q.b as usize) > sim.similarity(q.c as usize, q.d as usize)
    };
    let fit = linkage_active(sim.n_items(), method, 0, &mut o).expect("oracle answers everything");
    (fit.dendrogram, fit.queries)
}

fn timing(c: &mut Criterion) {
    let m = PlantedHierarchy::new(3, 30, 0.8, 0.1, 0.1, 1).unwrap();
    let q = sample_quadruplets_bernoulli(&m, 0.01, 1.0, 1).unwrap();
    let cmp = Comparisons::Quadruplets(q);
    let mut g = c.benchmark_group("4-AL planted L=3 N0=30 p=0.01");
    g.sample_size(10);
    g.bench_function("4-AL", |b| {
        b.iter(|| FourAlParams::new().fit(240, &cmp, None).unwrap())
    });
    // the two halves of the 4-AL fit: reading the rows into the aggregated lists, and the
    // agglomeration on them (the input is cloned outside the timed part)
    g.bench_function("4-AL reading", |b| {
        b.iter(|| FourAlParams::new().read(240, &cmp).unwrap())
    });
    let input = FourAlParams::new().read(240, &cmp).unwrap();
    g.bench_function("4-AL after reading", |b| {
        b.iter_batched(
            || input.clone(),
            |input| FourAlParams::new().fit_read(input, None).unwrap(),
            BatchSize::LargeInput,
        )
    });
    drop(input);
    g.bench_function("4K-AL passive", |b| {
        b.iter(|| four_k_al(240, &cmp).unwrap())
    });
    g.finish();
}

fn aari_table() {
    println!(
        "\n## AARI, planted L=3 N0=30 mu=0.8 sigma=0.1, p=0.01 (Ghoshdastidar et al. 2019, Fig. 2a)"
    );
    println!("delta | reps | 4-AL | 4K-AL | SL | CL | 4-AL time s | #quadruplets");
    let reps = 2;
    for di in 1..=10 {
        let delta = 0.02 * di as f64;
        let mut acc = [0.0; 4];
        let mut t4 = 0.0;
        let mut nq = 0;
        for r in 0..reps {
            let seed = 100 * di as u64 + r;
            let m = PlantedHierarchy::new(3, 30, 0.8, delta, 0.1, seed).unwrap();
            let truth = m.level_partitions();
            let q = sample_quadruplets_bernoulli(&m, 0.01, 1.0, seed).unwrap();
            nq = q.len();
            let cmp = Comparisons::Quadruplets(q);
            let t = Instant::now();
            let d = FourAlParams::new().fit(240, &cmp, None).unwrap().dendrogram;
            t4 += t.elapsed().as_secs_f64();
            acc[0] += aari_levels(&truth, &d).unwrap();
            acc[1] += aari_levels(&truth, &four_k_al(240, &cmp).unwrap().dendrogram).unwrap();
            acc[2] += aari_levels(&truth, &active(&m, Linkage::Single).0).unwrap();
            acc[3] += aari_levels(&truth, &active(&m, Linkage::Complete).0).unwrap();
        }
        let r = reps as f64;
        println!(
            "{delta:.2} | {reps} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {nq}",
            acc[0] / r,
            acc[1] / r,
            acc[2] / r,
            acc[3] / r,
            t4 / r
        );
    }
}

fn large() {
    println!("\n## 4-AL, planted L=3 N0=250 (N=2000), 10^7 quadruplets");
    let m = PlantedHierarchy::new(3, 250, 0.8, 0.1, 0.1, 7).unwrap();
    let t = Instant::now();
    let q = sample_quadruplets(&m, 10_000_000, 1.0, 7).unwrap();
    let ts = t.elapsed().as_secs_f64();
    let rss0 = peak_rss_mb();
    let cmp = Comparisons::Quadruplets(q);
    let t = Instant::now();
    let input = FourAlParams::new().read(2000, &cmp).unwrap();
    let tr = t.elapsed().as_secs_f64();
    let fit = FourAlParams::new().fit_read(input, None).unwrap();
    let tf = t.elapsed().as_secs_f64();
    let aari = aari_levels(&m.level_partitions(), &fit.dendrogram).unwrap();
    println!("dendrogram digest {:016x}", fit.dendrogram.digest());
    println!(
        "sampling {ts:.1} s; 4-AL {tf:.1} s (reading {tr:.1} s); AARI {aari:.3}; peak RSS before 4-AL {rss0:.0} MB, \
         after {:.0} MB (input rows alone: {:.0} MB)",
        peak_rss_mb(),
        cmp.len() as f64 * 16.0 / 1e6
    );
    // after the peak RSS above
    small();
}

/// The input of the criterion timing (N = 240): the digest of its dendrogram, and the fastest
/// of 5 runs of each half of the fit (reading; the agglomeration after it), which a loaded
/// machine disturbs less than a median.
fn small() {
    let m = PlantedHierarchy::new(3, 30, 0.8, 0.1, 0.1, 1).unwrap();
    let cmp = Comparisons::Quadruplets(sample_quadruplets_bernoulli(&m, 0.01, 1.0, 1).unwrap());
    let (mut read, mut after) = (f64::INFINITY, f64::INFINITY);
    let mut fit = None;
    for _ in 0..5 {
        let t = Instant::now();
        let input = FourAlParams::new().read(240, &cmp).unwrap();
        read = read.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        fit = Some(FourAlParams::new().fit_read(input, None).unwrap());
        after = after.min(t.elapsed().as_secs_f64());
    }
    println!(
        "\n4-AL on the criterion input (N = 240): reading {read:.3} s, after reading {after:.3} s \
         (fastest of 5); dendrogram digest {:016x}",
        fit.expect("5 runs").dendrogram.digest()
    );
}

fn zoo() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/zoo/zoo.csv"
    ));
    let path = if path.exists() {
        path.to_path_buf()
    } else {
        Path::new("/work/shared/data/zoo/zoo.csv").to_path_buf()
    };
    let Ok(table) = load_zoo(&path) else {
        println!("skipping zoo: {} not found", path.display());
        return;
    };
    let mut x = Vec::new();
    let mut n = 0;
    for (i, f) in table.features.iter().enumerate() {
        if table.items.label(i) == "girl" {
            continue; // Ghoshdastidar et al. 2019, App. B.2 drops `girl`
        }
        x.extend_from_slice(f);
        n += 1;
    }
    let d = table.feature_names.len();
    let sim = FeatureSimilarity::new(n, d, x, Kernel::Cosine).unwrap();
    println!("\n## Zoo ({n} animals, cosine), Dasgupta cost (lower is better), mean of 3 seeds");
    println!("p | #quadruplets | 4-AL | 4K-AL | SL (active) | CL (active)");
    let sl = dasgupta_cost(&active(&sim, Linkage::Single).0, &sim).unwrap();
    let cl = dasgupta_cost(&active(&sim, Linkage::Complete).0, &sim).unwrap();
    for p in [0.01, 0.05, 0.1] {
        let (mut a, mut k, mut nq) = (0.0, 0.0, 0);
        for seed in 0..3 {
            let q = sample_quadruplets_bernoulli(&sim, p, 1.0, seed).unwrap();
            nq = q.len();
            let cmp = Comparisons::Quadruplets(q);
            let fa = FourAlParams::new().fit(n, &cmp, None).unwrap();
            a += dasgupta_cost(&fa.dendrogram, &sim).unwrap();
            k += dasgupta_cost(&four_k_al(n, &cmp).unwrap().dendrogram, &sim).unwrap();
        }
        println!(
            "{p} | {nq} | {:.1} | {:.1} | {sl:.1} | {cl:.1}",
            a / 3.0,
            k / 3.0
        );
    }
}

fn main() {
    if std::env::var_os("HIERARCHY_SMALL").is_some() {
        small();
        return;
    }
    if std::env::var_os("HIERARCHY_LARGE").is_some() {
        large();
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    timing(&mut c);
    c.final_summary();
    if std::env::var_os("HIERARCHY_TABLES").is_some() {
        zoo();
        aari_table();
        large();
    }
}
