//! Loaders on the real data sets in `shared/data` (skipped with a message when absent).

use std::path::PathBuf;

use compclust::data::{
    ComparisonKind, Comparisons, InputFormat, ReadOptions, datasets, read_comparisons,
    read_comparisons_with_report,
};

fn data_dir() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    if p.exists() {
        Some(p)
    } else {
        println!("skipping: {} not found", p.display());
        None
    }
}

#[test]
fn car_survey_counts() {
    let Some(d) = data_dir() else { return };
    let (data, rep) =
        read_comparisons_with_report(&d.join("car/survey_data.csv"), &ReadOptions::default())
            .unwrap();
    assert_eq!(rep.format, InputFormat::CarSurvey);
    assert_eq!(rep.kind, ComparisonKind::MostCentral);
    assert_eq!(rep.records, 7097);
    assert_eq!(data.comparisons.len(), 14194);
    assert_eq!(data.comparisons.distinct_rows(), 13152);
    assert_eq!(data.comparisons.distinct(), 12910);
    assert_eq!(data.n_items(), 60);
    assert_eq!(data.items.label(0), "1");
    assert_eq!(data.items.label(59), "60");
}

#[test]
fn car_t_all_reduced_counts() {
    let Some(d) = data_dir() else { return };
    let opts = ReadOptions {
        format: Some(InputFormat::CarOrdinal),
        ..ReadOptions::default()
    };
    let data = read_comparisons(
        &d.join("car/ordinal_data_preprocessed/T_ALL_REDUCED.csv"),
        &opts,
    )
    .unwrap();
    assert_eq!(data.comparisons.len(), 12_112);
    assert_eq!(data.comparisons.distinct(), 12_112);
    assert_eq!(data.n_items(), 60);
    // First row `2,1,16`: car 2 most central of {2,1,16}.
    let Comparisons::Triplets(t) = &data.comparisons else {
        panic!("triplets expected")
    };
    assert_eq!((t[0].anchor, t[0].near, t[0].far), (0, 1, 15));
    assert_eq!((t[1].anchor, t[1].near, t[1].far), (15, 1, 0));
}

#[test]
fn food_raw_json_counts() {
    let Some(d) = data_dir() else { return };
    let (data, rep) =
        read_comparisons_with_report(&d.join("food/raw-json"), &ReadOptions::default()).unwrap();
    assert_eq!(rep.format, InputFormat::FoodJson);
    assert_eq!(rep.files, 37);
    assert_eq!(rep.skipped_catch_trials, 3830);
    assert_eq!(data.comparisons.len(), 250_320);
    assert_eq!(data.comparisons.distinct_rows(), 190_376);
    assert_eq!(data.comparisons.distinct(), 181_027);
    assert_eq!(data.n_items(), 100);
    assert!(
        data.items
            .labels()
            .iter()
            .all(|l| l.ends_with(".jpg") && !l.contains('/'))
    );
}

#[test]
fn mnist_tsne_points() {
    let Some(d) = data_dir() else { return };
    let (p, l) = datasets::load_mnist_tsne(
        &d.join("mnist_tsne/reduced_test_X.csv"),
        &d.join("mnist_tsne/test_labels.csv"),
    )
    .unwrap();
    assert_eq!(p.len(), 10_000);
    assert_eq!(l.len(), 10_000);
    assert_eq!(
        l.iter().filter(|&&x| x == 1).count() + l.iter().filter(|&&x| x == 7).count(),
        2163
    );
    assert!(l.iter().all(|&x| x < 10));
}

#[test]
fn zoo_features() {
    let Some(d) = data_dir() else { return };
    let z = datasets::load_zoo(&d.join("zoo/zoo.csv")).unwrap();
    assert_eq!(z.items.len(), 100);
    assert_eq!(z.feature_names.len(), 16);
    assert!(z.features.iter().all(|f| f.len() == 16));
    let labels = z.labels.unwrap();
    assert_eq!(labels.len(), 100);
    assert!(labels.iter().all(|&c| (1..=7).contains(&c)));
    assert!(z.items.get("frog").is_some() && z.items.get("frog#2").is_some());
}
