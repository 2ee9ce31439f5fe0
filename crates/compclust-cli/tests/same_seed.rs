//! One seed rule: the same seed gives the same comparisons from `compclust simulate planted`,
//! the library (`PlantedInstance::sample`) and the flat experiments' instance
//! (`compclust_experiments::flat::planted_instance`). `compclust demo` is checked by a unit test
//! of its sampling, Python's `datasets.make_planted` by tests/python.

use std::path::Path;
use std::process::Command;

use compclust::data::Comparisons;
use compclust::models::flat::{Family, PlantedInstance};
use compclust::simulate::Budget;

/// The rows of a comparisons CSV written by `simulate` (header skipped), as item indices.
fn rows_of(path: &Path) -> Vec<Vec<u32>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect()
}

fn rows_of_comparisons(c: &Comparisons) -> Vec<Vec<u32>> {
    match c {
        Comparisons::Triplets(t) => t.iter().map(|t| t.items().to_vec()).collect(),
        Comparisons::Quadruplets(q) => q.iter().map(|q| q.items().to_vec()).collect(),
        Comparisons::SameCluster(_) => panic!("a planted instance has no same-cluster answers"),
    }
}

fn simulate(out: &Path, seed: u64, quadruplets: bool) -> Vec<Vec<u32>> {
    let o = Command::new(env!("CARGO_BIN_EXE_compclust"))
        .args([
            "simulate", "planted", "--n", "40", "--k", "2", "--family", "normal",
        ])
        .args(["--delta", "0.5", "--eps", "0.75", "--triplets", "auto"])
        .args(quadruplets.then_some("--quadruplets"))
        .args(["--seed", &seed.to_string(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = if quadruplets {
        "quadruplets.csv"
    } else {
        "triplets.csv"
    };
    rows_of(&out.join(file))
}

#[test]
fn simulate_library_and_experiments_draw_the_same_comparisons() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, quadruplets) in [(5, false), (6, true)] {
        let cli = simulate(&dir.path().join(format!("s{seed}")), seed, quadruplets);
        let library = PlantedInstance {
            n: 40,
            k: 2,
            family: Family::NormalNormal,
            delta: 0.5,
            eps: 0.75,
            quadruplets,
            budget: Budget::DEFAULT,
        };
        let (model, comps) = library.sample(seed).unwrap();
        assert_eq!(
            cli,
            rows_of_comparisons(&comps),
            "seed {seed}: simulate ≠ library"
        );
        // n ln³n = 40 · 50.199… = 2007.96, rounded (Python used to truncate it to 2007).
        assert_eq!(cli.len(), 2008);
        let experiment = compclust_experiments::flat::planted_instance(
            40,
            2,
            Family::NormalNormal,
            0.5,
            0.75,
            3.0,
            quadruplets,
        );
        let (emodel, ecomps) = experiment.sample(seed).unwrap();
        assert_eq!(comps, ecomps, "seed {seed}: experiments ≠ library");
        assert_eq!(model.labels(), emodel.labels());
        let truth = std::fs::read_to_string(dir.path().join(format!("s{seed}/truth.csv"))).unwrap();
        let labels: Vec<usize> = truth
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(labels, model.labels());
    }
    // A different seed gives different comparisons (the test above can fail).
    let other = simulate(&dir.path().join("s7"), 7, false);
    assert_ne!(other, simulate(&dir.path().join("s5b"), 5, false));
}
