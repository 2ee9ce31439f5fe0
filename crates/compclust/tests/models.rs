//! Planted models answered by the simulated crowd: the statistics Perrot et al. 2020, §2 and Ghoshdastidar et al. 2019, §2.2 predict.

use compclust::models::flat::{Family, PlantedFlat};
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::models::normal_cdf;
use compclust::simulate::{Similarity, sample_quadruplets, sample_triplets};

/// For a triplet (i, j, k) with j in i's cluster and k not, the planted model answers "j" with
/// probability (1+δ)/2 and the crowd keeps it with probability (1+ε)/2, so the observed
/// answer is "j" with probability (1 + εδ)/2 (Perrot et al. 2020, §2, eqs. 2–3). Checked for every family.
#[test]
fn triplet_answers_follow_eps_delta() {
    let (eps, delta) = (0.75, 0.5);
    for family in Family::ALL {
        let m = PlantedFlat::new(300, 3, family, delta, 11).unwrap();
        let t = sample_triplets(&m, 200_000, eps, 12).unwrap();
        let l = m.labels();
        let (mut informative, mut right) = (0usize, 0usize);
        for x in &t {
            let (a, b, c) = (x.anchor as usize, x.near as usize, x.far as usize);
            match (l[a] == l[b], l[a] == l[c]) {
                (true, false) => {
                    informative += 1;
                    right += 1;
                }
                (false, true) => informative += 1,
                _ => {}
            }
        }
        let p = right as f64 / informative as f64;
        let want = (1.0 + eps * delta) / 2.0; // 0.6875
        // informative ≈ 200k · 2 · (1/3)(2/3) ≈ 89k: sd ≈ 0.0016
        assert!((p - want).abs() < 0.008, "{family}: {p} vs {want}");
    }
}

/// Noiseless quadruplets on the hierarchy: a within-pure-cluster pair beats a pair separated
/// at the root with probability P(N(Lδ, 2σ²) > 0) = Φ(Lδ / (σ√2)) (Ghoshdastidar et al. 2019, §2.2).
#[test]
fn hierarchy_quadruplets_follow_level_means() {
    let m = PlantedHierarchy::new(2, 20, 0.8, 0.05, 0.1, 3).unwrap();
    let q = sample_quadruplets(&m, 300_000, 1.0, 4).unwrap();
    let g = |i: u32| m.pure_cluster(i as usize);
    let root_split = |a: u32, b: u32| (g(a) ^ g(b)) >= 2;
    let (mut n, mut won) = (0usize, 0usize);
    for x in &q {
        let first_pure = g(x.a) == g(x.b);
        let second_pure = g(x.c) == g(x.d);
        if first_pure && root_split(x.c, x.d) {
            n += 1;
            won += 1;
        } else if second_pure && root_split(x.a, x.b) {
            n += 1;
        }
    }
    let want = normal_cdf(2.0 * 0.05 / (0.1 * 2f64.sqrt())); // Φ(0.7071) ≈ 0.760
    let p = won as f64 / n as f64;
    assert!(n > 10_000, "{n}");
    assert!((p - want).abs() < 0.02, "{p} vs {want}");
}

/// The lazy models need no n × n memory: sampling from n = 10,000 items works and repeats.
#[test]
fn large_lazy_model_is_deterministic() {
    let m = PlantedFlat::new(10_000, 4, Family::NormalNormal, 0.5, 1).unwrap();
    let a = sample_triplets(&m, 50_000, 0.75, 2).unwrap();
    let b = sample_triplets(&m, 50_000, 0.75, 2).unwrap();
    assert_eq!(a, b);
    assert_eq!(m.similarity(9_999, 17), m.similarity(17, 9_999));
    let h = PlantedHierarchy::new(5, 300, 0.8, 0.1, 0.1, 1).unwrap();
    assert_eq!(h.n_items(), 9_600);
    let q = sample_quadruplets(&h, 50_000, 0.9, 3).unwrap();
    assert_eq!(q, sample_quadruplets(&h, 50_000, 0.9, 3).unwrap());
}
