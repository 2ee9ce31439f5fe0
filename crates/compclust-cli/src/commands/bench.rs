//! `compclust bench`: the speed targets of docs/BENCHMARKS.md measured on this machine, with
//! the machine and the date, so that a number can be recorded (or compared) with one command.
//!
//! Three targets: SPUR at the paper default of Perrot et al. 2020, §5 (AddS-3 + SPUR +
//! k-means++ on the planted model, ≤ 10 s with k̂ = 4 and ARI 1), 4-AL on the planted
//! hierarchy of Ghoshdastidar et al. 2019, §4.1 at N = 240 (≤ 0.3 s after reading its 4.1·10⁶
//! quadruplets), and 4-AL at N = 2000 with 10⁷ quadruplets (≤ 15 s). Times are wall-clock
//! seconds; SPUR's are per seed with their median, 4-AL's the fastest of `--repeat` runs of
//! each half of the fit (reading the rows into the engine, then the agglomeration), which a
//! busy machine disturbs less than a median.

use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use anyhow::{Context, bail};
use compclust::data::{Comparisons, Dataset, Dendrogram};
use compclust::flat::{FlatParams, NClusters};
use compclust::hierarchy::FourAlParams;
use compclust::metrics::aari::aari_levels;
use compclust::metrics::ari::adjusted_rand_index;
use compclust::models::flat::{Family, PlantedInstance};
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::{Budget, Similarity, sample_quadruplets, sample_quadruplets_bernoulli};
use serde::Serialize;

use super::{CmdResult, ExitCode};
use crate::output::Outputs;

const HELP: &str = "\
Measures the speed targets of docs/BENCHMARKS.md on this machine and prints them with the
machine (processor, logical CPUs, the threads used, AVX-512) and the date, each with its
target and whether it is met:

  spur           AddS-3 + SPUR + k-means++ at the paper default (Perrot et al. 2020, §5: n = 1000,
                 k = 4, ε = 0.75, δ = 0.5, n·(ln n)³ triplets), one planted instance per seed
                 0, 1, …: time of the fit, k̂ and ARI per seed, their median; target ≤ 10 s
                 with k̂ = 4 and ARI 1 on every seed. About 10-20 s per seed on two cores.
  four-al        4-AL (Ghoshdastidar et al. 2019, §3.3) on the planted hierarchy of their §4.1
                 (L = 3, N0 = 30, μ = 0.8, δ = 0.1, σ = 0.1, each quadruplet kept with p = 0.01:
                 N = 240, 4.1·10⁶ quadruplets): reading and agglomeration, fastest of --repeat;
                 target ≤ 0.3 s after reading. About 10 s.
  four-al-large  4-AL at N0 = 250 (N = 2000) with 10⁷ quadruplets, one run: target ≤ 15 s,
                 peak memory. About 15 s and 0.6 GB.

Without --target, spur and four-al run. --n, --n0 and --seeds change the sizes (the targets
are then not judged). The threads are rayon's (RAYON_NUM_THREADS). Times are wall-clock: on a
busy machine run it twice. --json also writes every number.

Example:
  compclust bench
  compclust bench --target four-al --repeat 9 --json bench.json";

/// One measurement of `compclust bench`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// SPUR at the paper default.
    Spur,
    /// 4-AL at N = 240.
    FourAl,
    /// 4-AL at N = 2000.
    FourAlLarge,
}

/// Arguments of `compclust bench` (the targets are described in `HELP`).
#[derive(clap::Args, Debug)]
#[command(after_help = HELP)]
pub struct Args {
    /// What to measure; repeat for several (default: spur and four-al).
    #[arg(long = "target", value_enum, value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// SPUR: how many seeds (planted instances 0, 1, …).
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// SPUR: number of items (the paper's 1000).
    #[arg(long, default_value_t = 1000)]
    pub n: usize,
    /// 4-AL at N = 240: items per smallest planted cluster (30 gives N = 8 · 30 = 240).
    #[arg(long, default_value_t = 30)]
    pub n0: usize,
    /// 4-AL: runs of each half of the fit; the fastest is reported.
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Also write every number as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// The target of SPUR at the paper default, in seconds.
const SPUR_TARGET_S: f64 = 10.0;
/// The target of 4-AL at N = 240 after reading, in seconds.
const FOUR_AL_TARGET_S: f64 = 0.3;
/// The target of 4-AL at N = 2000, in seconds.
const FOUR_AL_LARGE_TARGET_S: f64 = 15.0;
/// The paper default's number of items (Perrot et al. 2020, §5).
const PAPER_N: usize = 1000;
/// N0 of the 4-AL target at N = 240.
const PAPER_N0: usize = 30;

/// Everything `compclust bench` measured (`--json`).
#[derive(Serialize, Debug)]
struct Report {
    machine: Machine,
    spur: Option<SpurBench>,
    four_al: Option<FourAlBench>,
    four_al_large: Option<FourAlBench>,
}

/// The machine and the date of a run.
#[derive(Serialize, Debug)]
struct Machine {
    compclust: &'static str,
    date_utc: String,
    processor: String,
    logical_cpus: usize,
    threads: usize,
    avx512: bool,
}

/// SPUR at the paper default, one row per seed.
#[derive(Serialize, Debug)]
struct SpurBench {
    n: usize,
    k: usize,
    eps: f64,
    delta: f64,
    comparisons: usize,
    seeds: Vec<SpurSeed>,
    median_s: f64,
    min_s: f64,
    max_s: f64,
    recovered: usize,
    target_s: f64,
    /// `None` when the sizes are not the target's.
    met: Option<bool>,
    peak_rss_mb: Option<f64>,
}

/// One seed of [`SpurBench`].
#[derive(Serialize, Debug)]
struct SpurSeed {
    seed: u64,
    /// The whole fit: similarity, SPUR and k-means++.
    fit_s: f64,
    spur_s: f64,
    k_hat: usize,
    ari: f64,
}

/// 4-AL on a planted hierarchy.
#[derive(Serialize, Debug)]
struct FourAlBench {
    n: usize,
    quadruplets: usize,
    runs: usize,
    reading_s: f64,
    after_reading_s: f64,
    aari: f64,
    /// FNV-1a over the merged cluster ids, to compare the dendrograms of two builds.
    digest: String,
    target_s: f64,
    /// `None` when the sizes are not the target's.
    met: Option<bool>,
    peak_rss_mb: Option<f64>,
}

/// Run `compclust bench`.
pub fn run(args: Args) -> CmdResult {
    check(&args)?;
    let mut outs = Outputs::new();
    let json = args
        .json
        .as_ref()
        .map(|p| outs.file("--json", p))
        .transpose()?;
    let targets = if args.targets.is_empty() {
        vec![Target::Spur, Target::FourAl]
    } else {
        args.targets.clone()
    };
    let machine = machine();
    println!(
        "machine: {}, {} logical CPUs, {} threads, AVX-512 {}; compclust {}; {}",
        machine.processor,
        machine.logical_cpus,
        machine.threads,
        if machine.avx512 { "yes" } else { "no" },
        machine.compclust,
        machine.date_utc
    );
    let mut report = Report {
        machine,
        spur: None,
        four_al: None,
        four_al_large: None,
    };
    for t in targets {
        match t {
            Target::Spur if report.spur.is_none() => report.spur = Some(spur(&args)?),
            Target::FourAl if report.four_al.is_none() => {
                report.four_al = Some(four_al(args.n0, args.repeat)?)
            }
            Target::FourAlLarge if report.four_al_large.is_none() => {
                report.four_al_large = Some(four_al_large()?)
            }
            _ => {}
        }
    }
    if let Some(out) = json {
        outs.write_json(out, &report)?;
    }
    outs.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Refuse sizes that measure nothing, naming the option.
fn check(args: &Args) -> anyhow::Result<()> {
    if args.seeds == 0 {
        bail!("--seeds 0: SPUR needs at least one seed");
    }
    if args.repeat == 0 {
        bail!("--repeat 0: 4-AL needs at least one run");
    }
    if args.n0 == 0 {
        bail!("--n0 0: the planted hierarchy needs at least one item per smallest cluster");
    }
    Ok(())
}

/// SPUR at the paper default (or at `--n`), one planted instance per seed.
fn spur(args: &Args) -> anyhow::Result<SpurBench> {
    let (k, eps, delta) = (4, 0.75, 0.5);
    let instance = PlantedInstance {
        n: args.n,
        k,
        family: Family::NormalNormal,
        delta,
        eps,
        quadruplets: false,
        budget: Budget::DEFAULT,
    };
    let mut seeds = Vec::new();
    let mut comparisons = 0;
    for seed in 0..args.seeds {
        let sp = crate::progress::spinner(format!(
            "SPUR, seed {seed} of 0-{}: sampling",
            args.seeds - 1
        ));
        let sampled = instance.sample(seed);
        sp.finish_and_clear();
        let (model, rows) = sampled.with_context(|| format!("--n {}", args.n))?;
        comparisons = rows.len();
        let data = Dataset::numbered(args.n, rows)?;
        let params = FlatParams::new()
            .with_n_clusters(NClusters::Auto)
            .with_seed(seed);
        let t = Instant::now();
        let fit = super::cluster::fit_with_progress(&params, &data)?;
        let fit_s = t.elapsed().as_secs_f64();
        let ari = adjusted_rand_index(model.labels(), &fit.labels);
        println!(
            "SPUR, seed {seed}: {fit_s:.2} s (SPUR {:.2} s), k̂ = {}, ARI {ari:.4}",
            fit.timings.sdp_s, fit.k_hat
        );
        seeds.push(SpurSeed {
            seed,
            fit_s,
            spur_s: fit.timings.sdp_s,
            k_hat: fit.k_hat,
            ari,
        });
    }
    let times: Vec<f64> = seeds.iter().map(|s| s.fit_s).collect();
    let median_s = median(&times);
    let recovered = seeds
        .iter()
        .filter(|s| s.k_hat == k && s.ari >= 1.0 - 1e-12)
        .count();
    let paper = args.n == PAPER_N;
    let met = paper.then_some(median_s <= SPUR_TARGET_S && recovered == seeds.len());
    let bench = SpurBench {
        n: args.n,
        k,
        eps,
        delta,
        comparisons,
        median_s,
        min_s: times.iter().copied().fold(f64::INFINITY, f64::min),
        max_s: times.iter().copied().fold(0.0, f64::max),
        recovered,
        target_s: SPUR_TARGET_S,
        met,
        peak_rss_mb: peak_rss_mb(),
        seeds,
    };
    println!(
        "SPUR, {} (n = {}, k = {k}, ε = {eps}, δ = {delta}, {} triplets): median {:.2} s over {} \
         seed(s) ({:.2}-{:.2} s), k̂ = {k} and ARI 1 on {} of {}; peak RSS so far {}; {}",
        if paper {
            "paper default"
        } else {
            "planted model"
        },
        bench.n,
        bench.comparisons,
        bench.median_s,
        bench.seeds.len(),
        bench.min_s,
        bench.max_s,
        bench.recovered,
        bench.seeds.len(),
        mb(bench.peak_rss_mb),
        verdict(met, &format!("≤ {SPUR_TARGET_S} s with k̂ = 4 and ARI 1"))
    );
    Ok(bench)
}

/// 4-AL on the planted hierarchy with L = 3 and `n0` items per smallest cluster, each
/// quadruplet kept with probability 0.01: the fastest of `repeat` runs of each half.
fn four_al(n0: usize, repeat: usize) -> anyhow::Result<FourAlBench> {
    let model = PlantedHierarchy::new(3, n0, 0.8, 0.1, 0.1, 1).context("--n0")?;
    let n = model.n_items();
    let sp = crate::progress::spinner("4-AL: sampling quadruplets");
    let rows = sample_quadruplets_bernoulli(&model, 0.01, 1.0, 1);
    sp.finish_and_clear();
    let cmp = Comparisons::Quadruplets(rows.context("--n0")?);
    let bar = crate::progress::bar(repeat as u64, "4-AL runs");
    let (reading_s, after_reading_s, dendrogram) = time_four_al(n, &cmp, repeat, || bar.inc(1))?;
    bar.finish_and_clear();
    let met = (n0 == PAPER_N0).then_some(after_reading_s <= FOUR_AL_TARGET_S);
    let bench = FourAlBench {
        n,
        quadruplets: cmp.len(),
        runs: repeat,
        reading_s,
        after_reading_s,
        aari: aari_levels(&model.level_partitions(), &dendrogram)?,
        digest: format!("{:016x}", dendrogram.digest()),
        target_s: FOUR_AL_TARGET_S,
        met,
        peak_rss_mb: peak_rss_mb(),
    };
    println!(
        "4-AL, planted hierarchy (L = 3, N0 = {n0}, p = 0.01: N = {n}, {} quadruplets): reading \
         {:.3} s, after reading {:.3} s (fastest of {repeat}), AARI {:.3}, dendrogram digest {}; {}",
        bench.quadruplets,
        bench.reading_s,
        bench.after_reading_s,
        bench.aari,
        bench.digest,
        verdict(met, &format!("≤ {FOUR_AL_TARGET_S} s after reading"))
    );
    Ok(bench)
}

/// 4-AL at N0 = 250 (N = 2000) with 10⁷ uniformly drawn quadruplets, one run.
fn four_al_large() -> anyhow::Result<FourAlBench> {
    let model = PlantedHierarchy::new(3, 250, 0.8, 0.1, 0.1, 7)?;
    let n = model.n_items();
    let sp = crate::progress::spinner("4-AL at N = 2000: sampling 10⁷ quadruplets");
    let rows = sample_quadruplets(&model, 10_000_000, 1.0, 7);
    sp.finish_and_clear();
    let cmp = Comparisons::Quadruplets(rows?);
    let sp = crate::progress::spinner("4-AL at N = 2000");
    let (reading_s, after_reading_s, dendrogram) = time_four_al(n, &cmp, 1, || {})?;
    sp.finish_and_clear();
    let total = reading_s + after_reading_s;
    let met = Some(total <= FOUR_AL_LARGE_TARGET_S);
    let bench = FourAlBench {
        n,
        quadruplets: cmp.len(),
        runs: 1,
        reading_s,
        after_reading_s,
        aari: aari_levels(&model.level_partitions(), &dendrogram)?,
        digest: format!("{:016x}", dendrogram.digest()),
        target_s: FOUR_AL_LARGE_TARGET_S,
        met,
        peak_rss_mb: peak_rss_mb(),
    };
    println!(
        "4-AL, planted hierarchy (L = 3, N0 = 250: N = {n}, {} quadruplets): {total:.2} s \
         (reading {:.2} s), AARI {:.3}, dendrogram digest {}, peak RSS so far {}; {}",
        bench.quadruplets,
        bench.reading_s,
        bench.aari,
        bench.digest,
        mb(bench.peak_rss_mb),
        verdict(met, &format!("≤ {FOUR_AL_LARGE_TARGET_S} s"))
    );
    Ok(bench)
}

/// 4-AL on `cmp` `repeat` times (at least once): the fastest reading
/// ([`FourAlParams::read`]), the fastest agglomeration after it, and the dendrogram;
/// `done` is called after each run.
fn time_four_al(
    n: usize,
    cmp: &Comparisons,
    repeat: usize,
    mut done: impl FnMut(),
) -> anyhow::Result<(f64, f64, Dendrogram)> {
    let (mut reading_s, mut after_reading_s) = (f64::INFINITY, f64::INFINITY);
    let mut dendrogram = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let input = FourAlParams::new().read(n, cmp)?;
        reading_s = reading_s.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let fit = FourAlParams::new().fit_read(input, None)?;
        after_reading_s = after_reading_s.min(t.elapsed().as_secs_f64());
        dendrogram = Some(fit.dendrogram);
        done();
    }
    let dendrogram = dendrogram.expect("at least one run");
    Ok((reading_s, after_reading_s, dendrogram))
}

/// "target … met" / "not met", or "target not judged" for other sizes.
fn verdict(met: Option<bool>, target: &str) -> String {
    match met {
        Some(true) => format!("target {target}: met"),
        Some(false) => format!("target {target}: not met"),
        None => format!("target {target} not judged at these sizes"),
    }
}

fn mb(v: Option<f64>) -> String {
    v.map_or_else(|| "unknown".to_string(), |m| format!("{m:.0} MB"))
}

/// The median of a non-empty list.
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The process's peak resident memory in MB, where the system says.
fn peak_rss_mb() -> Option<f64> {
    compclust::limits::peak_resident_memory().map(|b| b as f64 / (1 << 20) as f64)
}

fn machine() -> Machine {
    Machine {
        compclust: env!("CARGO_PKG_VERSION"),
        date_utc: utc_now(),
        processor: processor(),
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        threads: rayon::current_num_threads(),
        avx512: avx512(),
    }
}

/// The processor's model name (Linux: /proc/cpuinfo), else the architecture.
fn processor() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

#[cfg(target_arch = "x86_64")]
fn avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
fn avx512() -> bool {
    false
}

/// Now as `YYYY-MM-DD HH:MM UTC` (the civil date from days since 1970, H. Hinnant's algorithm).
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Year, month, day of the day `z` counted from 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        // 2000-02-29, a leap day of a century divisible by 400
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
    }

    #[test]
    fn median_of_odd_and_even_lists() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
