//! Every overlap algorithm of Huleihel et al. 2019 (Alg. 1, 2, 3, 6, 9, 14) driven through the
//! command line's crowd rounds (`--answers … --missing …`, exit status 3) by a simulated,
//! noise-free crowd ends in the same estimate as the in-memory run against the simulated
//! oracle with the same seed (or, where the rounds must learn what the simulation is told,
//! in an estimate as exact).

// Test fixtures are written directly (the crate's clippy.toml forbids it in the command code).
#![allow(clippy::disallowed_methods)]

use std::process::{Command, Output};

use compclust::data::read_membership;
use compclust::metrics::gram::gram_error;

fn overlap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compclust"))
        .arg("overlap")
        .args(args)
        .output()
        .expect("binary runs")
}

/// One method: the planted truth, the method's flags, and whether answers are binary
/// (quantized, 1 when the items share a cluster) or counts (direct).
struct Case {
    planted: &'static str,
    flags: &'static [&'static str],
    binary: bool,
    /// Extra flags of the in-memory run only (e.g. the Δ the simulation knows but the
    /// rounds must learn by asking).
    memory_only: &'static [&'static str],
}

fn drive(case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let p = |f: &str| dir.path().join(f).to_str().unwrap().to_string();
    let (truth_csv, mem_csv, answers_csv, items_txt, ask_csv, est_csv) = (
        p("truth.csv"),
        p("mem.csv"),
        p("answers.csv"),
        p("items.txt"),
        p("ask.csv"),
        p("est.csv"),
    );
    let oracle: &[&str] = if case.binary {
        &["--oracle", "quantized", "--flip-prob", "0"]
    } else {
        &["--oracle", "direct"]
    };
    // the in-memory run against the simulated oracle, which also writes the truth
    let mut args = vec!["--planted", case.planted, "--seed", "3"];
    args.extend_from_slice(case.flags);
    args.extend_from_slice(case.memory_only);
    args.extend_from_slice(oracle);
    args.extend_from_slice(&["--write-truth", &truth_csv, "--output", &mem_csv]);
    let mem = overlap(&args);
    let mem_code = mem.status.code().unwrap();
    // every case is chosen where the method succeeds, so that the estimates are compared
    assert_eq!(mem_code, 0, "{}", String::from_utf8_lossy(&mem.stderr));
    let (items, truth) = read_membership(std::path::Path::new(&truth_csv), None).unwrap();
    let labels = items.labels();
    std::fs::write(
        &items_txt,
        labels.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    std::fs::write(&answers_csv, "a,b,answer\n").unwrap();
    let index = |l: &str| labels.iter().position(|x| x == l).unwrap();
    let mut rounds = 0;
    let code = loop {
        let mut args = vec![
            "--answers",
            &answers_csv,
            "--items",
            &items_txt,
            "--missing",
            &ask_csv,
            "--output",
            &est_csv,
            "--seed",
            "3",
        ];
        args.extend_from_slice(case.flags);
        let out = overlap(&args);
        let code = out.status.code().unwrap();
        if code != 3 {
            break code;
        }
        rounds += 1;
        assert!(rounds < 50, "{:?}: too many rounds", case.flags);
        let ask = std::fs::read_to_string(&ask_csv).unwrap();
        let mut answers = std::fs::read_to_string(&answers_csv).unwrap();
        for line in ask.lines().skip(1) {
            let (a, b) = line.split_once(',').unwrap();
            let shared = truth.shared(index(a), index(b));
            let y = if case.binary {
                u32::from(shared > 0)
            } else {
                shared as u32
            };
            answers.push_str(&format!("{a},{b},{y}\n"));
        }
        std::fs::write(&answers_csv, answers).unwrap();
    };
    assert_eq!(
        code,
        mem_code,
        "{:?}: {}",
        case.flags,
        String::from_utf8_lossy(&mem.stderr)
    );
    assert!(rounds >= 1, "{:?}: the crowd was asked", case.flags);
    if case.memory_only.is_empty() {
        assert_eq!(
            std::fs::read_to_string(&est_csv).unwrap(),
            std::fs::read_to_string(&mem_csv).unwrap(),
            "{:?}",
            case.flags
        );
    } else {
        // The runs asked different questions (the rounds learnt what the simulation was
        // told): both must recover the truth's Gram matrix exactly.
        for est in [&est_csv, &mem_csv] {
            let (_, m) = read_membership(std::path::Path::new(est), Some(&items)).unwrap();
            assert_eq!(gram_error(&truth, &m).unwrap(), 0, "{est}");
        }
    }
}

#[test]
fn alg1_find_membership_rounds_equal_the_in_memory_run() {
    drive(&Case {
        planted: "uniform:60:3:1",
        flags: &["--method", "find-membership", "--k", "3", "--delta", "1"],
        binary: false,
        memory_only: &[],
    });
}

#[test]
fn alg2_find_similarity_rounds_equal_the_in_memory_run() {
    drive(&Case {
        planted: "uniform:80:4:2",
        flags: &["--method", "find-similarity", "--k", "4", "--delta", "2"],
        binary: false,
        memory_only: &[],
    });
}

/// Without --delta FindSimilarity asks each sampled item how many clusters it is in (a row
/// `a,a,answer`), which the answers file must accept.
#[test]
fn alg2_find_similarity_rounds_learn_delta_from_self_answers() {
    drive(&Case {
        planted: "uniform:80:4:2",
        flags: &["--method", "find-similarity", "--k", "4"],
        binary: false,
        memory_only: &["--delta", "2"],
    });
}

#[test]
fn alg3_clique_cover_rounds_equal_the_in_memory_run() {
    drive(&Case {
        planted: "uniform:60:3:1",
        flags: &["--method", "clique-cover", "--k", "3", "--delta", "1"],
        binary: true,
        memory_only: &[],
    });
}

#[test]
fn alg6_triangle_count_rounds_equal_the_in_memory_run() {
    drive(&Case {
        planted: "uniform:120:3:1",
        flags: &["--method", "triangle-count", "--k", "3", "--delta", "1"],
        binary: true,
        memory_only: &[],
    });
}

#[test]
fn alg14_triangle_count_unknown_q_rounds_equal_the_in_memory_run() {
    drive(&Case {
        planted: "uniform:120:3:1",
        flags: &[
            "--method",
            "triangle-count",
            "--k",
            "3",
            "--delta",
            "1",
            "--unknown-q",
        ],
        binary: true,
        memory_only: &[],
    });
}

#[test]
fn alg9_triangle_count_iid_rounds_equal_the_in_memory_run() {
    drive(&Case {
        // Alg. 9 needs a flip probability q > 0 to estimate with; the answers stay noise free
        planted: "iid:300:3:0.3",
        flags: &[
            "--method",
            "triangle-count",
            "--k",
            "3",
            "--ensemble",
            "iid:0.3",
            "--assume-q",
            "0.01",
        ],
        binary: true,
        memory_only: &[],
    });
}
