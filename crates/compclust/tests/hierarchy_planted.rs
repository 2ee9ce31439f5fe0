//! Planted hierarchical model (Ghoshdastidar et al. 2019, §2.2): exact recovery where the paper proves it, fixed seeds.

use compclust::data::{Comparisons, Quadruplet};
use compclust::hierarchy::{
    ActiveKernelParams, FourAlParams, Linkage, ReferencePairs, four_k_al,
    initial_clusters_from_truth, linkage_active,
};
use compclust::metrics::aari::aari_levels;
use compclust::models::hierarchical::PlantedHierarchy;
use compclust::simulate::{Similarity, sample_quadruplets_bernoulli};

fn oracle(m: &PlantedHierarchy) -> impl FnMut(&Quadruplet) -> bool + '_ {
    |q: &Quadruplet| {
        m.similarity(q.a as usize, q.b as usize) > m.similarity(q.c as usize, q.d as usize)
    }
}

/// Theorem 1: SL and CL recover the hierarchy when δ/σ ≥ 4 √ln(N/η). Here N = 40,
/// δ/σ = 12 ≥ 4 √ln(40/0.05) ≈ 10.3.
#[test]
fn sl_and_cl_recover_at_high_snr() {
    let m = PlantedHierarchy::new(2, 10, 0.8, 1.2, 0.1, 3).unwrap();
    let truth = m.level_partitions();
    for method in [Linkage::Single, Linkage::Complete] {
        let fit = linkage_active(40, method, 3, &mut oracle(&m)).unwrap();
        assert_eq!(
            aari_levels(&truth, &fit.dendrogram).unwrap(),
            1.0,
            "{method:?}"
        );
        // Prop. 1: between C(N,2) and O(N² ln N) queries (here at most 1.5 M log₂ M, M = 780)
        let bound = (1.5 * 780.0 * 780f64.log2()) as usize;
        assert!((780..bound).contains(&fit.queries), "{}", fit.queries);
    }
}

/// SL / CL sort the pairs in few rounds (randomized quicksort, every sub-problem compared with
/// its pivot in the same round): at N = 120 (M = 7,140 pairs) at most 60 rounds and
/// 1.5 M log₂ M queries, and the pivots (the seed) do not change the dendrogram on noise-free
/// answers.
#[test]
fn sl_and_cl_sort_in_few_rounds() {
    let m = PlantedHierarchy::new(3, 15, 0.8, 0.1, 0.1, 4).unwrap();
    assert_eq!(m.n_items(), 120);
    let pairs = 120.0 * 119.0 / 2.0;
    let bound = (1.5 * pairs * f64::log2(pairs)) as usize;
    for method in [Linkage::Single, Linkage::Complete] {
        let fit = linkage_active(120, method, 11, &mut oracle(&m)).unwrap();
        assert!(fit.rounds <= 60, "{method:?}: {} rounds", fit.rounds);
        assert!(
            fit.queries <= bound,
            "{method:?}: {} queries > {bound}",
            fit.queries
        );
        let other = linkage_active(120, method, 12, &mut oracle(&m)).unwrap();
        assert_eq!(fit.dendrogram, other.dendrogram, "{method:?}");
    }
}

/// 4-AL, 4-AL-I5 and passive 4K-AL with a tenth of all quadruplets at δ/σ = 3 (well inside
/// the exact-recovery regime of Theorems 3-4 for this size): all recover the hierarchy.
#[test]
fn average_linkages_recover_from_passive_quadruplets() {
    let m = PlantedHierarchy::new(2, 10, 0.8, 0.3, 0.1, 5).unwrap();
    let truth = m.level_partitions();
    let q = sample_quadruplets_bernoulli(&m, 0.1, 1.0, 11).unwrap();
    let cmp = Comparisons::Quadruplets(q);
    let plain = FourAlParams::new().fit(40, &cmp, None).unwrap();
    assert_eq!(aari_levels(&truth, &plain.dendrogram).unwrap(), 1.0);
    let init = initial_clusters_from_truth(&truth[truth.len() - 1], 5, 1).unwrap();
    let i5 = FourAlParams::new()
        .with_initial_clusters(init)
        .fit(40, &cmp, None)
        .unwrap();
    assert_eq!(i5.info.initial_merges, 32);
    assert_eq!(aari_levels(&truth, &i5.dendrogram).unwrap(), 1.0);
    let k = four_k_al(40, &cmp).unwrap();
    assert_eq!(aari_levels(&truth, &k.dendrogram).unwrap(), 1.0);
}

/// Theorem 2: active 4K-AL recovers with `O(qN²|R|)` queries once `q ≥ C ln N / N`. At
/// N = 120 the constant matters: with q = ln N / N (≈ 5 landmarks) sibling pure clusters
/// often have no landmark and cannot be told apart, so q = 0.2 here; 20 reference pairs,
/// fewer queries than complete linkage asks on the same model (`O(N² ln N)`, Prop. 1).
#[test]
fn active_kernel_recovers_with_few_queries() {
    let m = PlantedHierarchy::new(2, 30, 0.8, 0.3, 0.1, 8).unwrap();
    let truth = m.level_partitions();
    let p = ActiveKernelParams {
        landmark_prob: 0.2,
        references: ReferencePairs::Count(20),
        seed: 2,
    };
    let fit = p.fit(120, &mut oracle(&m)).unwrap();
    assert_eq!(aari_levels(&truth, &fit.dendrogram).unwrap(), 1.0);
    let cl_queries = linkage_active(120, Linkage::Complete, 0, &mut oracle(&m))
        .unwrap()
        .queries;
    assert!(
        fit.comparisons < cl_queries,
        "{} queries vs CL {cl_queries}",
        fit.comparisons
    );
}

/// Active 4K-AL as the authors' ComparisonHC runs it: every item compared with each reference
/// pair (q = 1), the number of reference pairs set by a budget. At N = 120 with δ/σ = 3 a
/// budget of a tenth of what complete linkage asks recovers the planted hierarchy.
#[test]
fn active_kernel_with_every_landmark_and_a_budget_recovers() {
    let m = PlantedHierarchy::new(2, 30, 0.8, 0.3, 0.1, 8).unwrap();
    let truth = m.level_partitions();
    let cl_queries = linkage_active(120, Linkage::Complete, 0, &mut oracle(&m))
        .unwrap()
        .queries;
    let budget = cl_queries / 10;
    let p = ActiveKernelParams {
        references: ReferencePairs::Budget(budget),
        seed: 5,
        ..ActiveKernelParams::default()
    };
    assert_eq!(p.landmark_prob, 1.0);
    let fit = p.fit(120, &mut oracle(&m)).unwrap();
    assert!(fit.comparisons <= budget, "{} > {budget}", fit.comparisons);
    assert_eq!(aari_levels(&truth, &fit.dendrogram).unwrap(), 1.0);
}

/// The family entry point gives the same trees as the methods it dispatches to: passive 4-AL
/// (with and without initial clusters) and 4K-AL through `fit`, SL / CL and active 4K-AL
/// through `run`, with the same query counts.
#[test]
fn family_params_dispatch_to_the_methods() {
    use compclust::active::RunOutcome;
    use compclust::hierarchy::{HierarchyMethod, HierarchyParams};
    let m = PlantedHierarchy::new(2, 8, 0.8, 0.3, 0.1, 4).unwrap();
    let n = 32;
    let cmp = Comparisons::Quadruplets(sample_quadruplets_bernoulli(&m, 0.1, 1.0, 2).unwrap());
    let fit = |p: HierarchyParams| p.fit(n, &cmp, None).unwrap();
    let four_al = fit(HierarchyParams::new(HierarchyMethod::FourAl));
    let direct = FourAlParams::new().fit(n, &cmp, None).unwrap();
    assert_eq!(four_al.dendrogram, direct.dendrogram);
    assert_eq!(four_al.info.comparisons, direct.info.comparisons);
    let init: Vec<usize> = (0..n).map(|i| i / 2).collect();
    let four_al_i = fit(HierarchyParams::new(HierarchyMethod::FourAl).with_initial_clusters(init));
    assert_eq!(four_al_i.info.initial_merges, n / 2);
    let kernel = fit(HierarchyParams::new(HierarchyMethod::FourKAl));
    assert_eq!(kernel.dendrogram, four_k_al(n, &cmp).unwrap().dendrogram);
    for (method, linkage) in [
        (HierarchyMethod::Single, Linkage::Single),
        (HierarchyMethod::Complete, Linkage::Complete),
    ] {
        let fit = linkage_active(n, linkage, 0, &mut oracle(&m)).unwrap();
        match HierarchyParams::new(method)
            .run(n, &mut oracle(&m))
            .unwrap()
        {
            RunOutcome::Finished { output, .. } => {
                assert_eq!(output.dendrogram, fit.dendrogram);
                assert_eq!(output.info.comparisons, fit.queries);
            }
            RunOutcome::Missing { .. } => panic!("the oracle answers everything"),
        }
    }
    let active = ActiveKernelParams {
        references: ReferencePairs::Count(3),
        ..ActiveKernelParams::default()
    };
    let direct = ActiveKernelParams {
        seed: 9,
        ..active.clone()
    }
    .fit(n, &mut oracle(&m))
    .unwrap();
    let params = HierarchyParams::new(HierarchyMethod::FourKAl)
        .with_active(active)
        .with_seed(9);
    match params.run(n, &mut oracle(&m)).unwrap() {
        RunOutcome::Finished { output, .. } => assert_eq!(output.dendrogram, direct.dendrogram),
        RunOutcome::Missing { .. } => panic!("the oracle answers everything"),
    }
}

/// Missing answers are a value of `run`, an error of `fit`; 4-AL asks no questions, and
/// initial clusters belong to 4-AL only.
#[test]
fn family_params_missing_answers_and_bad_combinations() {
    use compclust::active::{Oracle, RunOutcome};
    use compclust::hierarchy::{HierarchyError, HierarchyMethod, HierarchyParams};
    struct Silent;
    impl Oracle<Quadruplet, bool> for Silent {
        fn answer(&mut self, _: &Quadruplet) -> Option<bool> {
            None
        }
    }
    let sl = HierarchyParams::new(HierarchyMethod::Single);
    match sl.run(5, &mut Silent).unwrap() {
        RunOutcome::Missing {
            missing, queries, ..
        } => assert!(!missing.is_empty() && queries == 0),
        RunOutcome::Finished { .. } => panic!("nothing was answered"),
    }
    let few = Comparisons::Quadruplets(vec![Quadruplet::new(0, 1, 2, 3)]);
    assert!(matches!(
        sl.fit(5, &few, None),
        Err(HierarchyError::MissingComparisons { .. })
    ));
    assert!(matches!(
        HierarchyParams::new(HierarchyMethod::FourAl).run(5, &mut Silent),
        Err(HierarchyError::NotActive { .. })
    ));
    assert!(matches!(
        HierarchyParams::new(HierarchyMethod::Complete)
            .with_initial_clusters(vec![0; 5])
            .fit(5, &few, None),
        Err(HierarchyError::BadParameter { .. })
    ));
}
