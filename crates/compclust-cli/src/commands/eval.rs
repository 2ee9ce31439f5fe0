//! `compclust eval`: ARI, AARI (Ghoshdastidar et al. 2019, App. B.1), Dasgupta cost (Ghoshdastidar et al. 2019, App. B.2) and gram error
//! (Huleihel et al. 2019, §4).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use compclust::data::{ItemIndex, Location, datasets::load_feature_table, read_labels};
use compclust::hierarchy::{Dendrogram, Merge};
use compclust::metrics::aari::{aari, height_levels};
use compclust::metrics::ari::try_adjusted_rand_index;
use compclust::metrics::dasgupta::{dasgupta_cost, dasgupta_cost_with_progress};
use compclust::simulate::{DenseSimilarity, FeatureSimilarity, Kernel};
use serde::Deserialize;

use super::CmdResult;
use crate::progress::bar;

/// Subcommands of `compclust eval`. Each prints a short report and the score alone on its
/// last line (for scripts: `compclust eval ari ... | tail -n1`).
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Adjusted Rand index (Hubert & Arabie 1985) between two flat clusterings.
    ///
    /// Both files have the header `item,cluster` and one row per item; the items of --pred
    /// are matched to those of --truth by name (every truth item needs a prediction).
    ///
    /// Example:
    ///   compclust eval ari --truth sim/truth.csv --pred labels.csv
    ///   truth.csv:  item,cluster / 0,0 / 1,0 / 2,1
    #[command(verbatim_doc_comment)]
    Ari {
        /// True clustering (`item,cluster`).
        #[arg(long)]
        truth: PathBuf,
        /// Predicted clustering (`item,cluster`).
        #[arg(long)]
        pred: PathBuf,
    },
    /// Averaged ARI over the levels of two hierarchies (Ghoshdastidar et al. 2019, App. B.1).
    ///
    /// Dendrogram files are JSON `{"items": [...], "steps": [[a, b, height, size], ...]}`
    /// (scipy linkage convention: leaves 0..n-1, step s creates cluster n+s). Level ℓ of each
    /// hierarchy is its cut into k_ℓ clusters; by default the k_ℓ are read off the truth's
    /// distinct merge heights (for `simulate hierarchy` output: 2^L, ..., 4, 2, i.e. levels
    /// 1..L of the paper).
    ///
    /// Example:
    ///   compclust eval aari --truth hsim/truth.json --pred tree.json
    ///   compclust eval aari --truth a.json --pred b.json --ks 2,4,8
    #[command(verbatim_doc_comment)]
    Aari {
        /// True dendrogram (JSON).
        #[arg(long)]
        truth: PathBuf,
        /// Predicted dendrogram (JSON).
        #[arg(long)]
        pred: PathBuf,
        /// Cluster counts of the levels to average over (comma separated).
        #[arg(long, value_delimiter = ',')]
        ks: Option<Vec<usize>>,
    },
    /// Dasgupta cost Σ_{i<j} w_ij |lca(i,j)| of a dendrogram (Ghoshdastidar et al. 2019, App. B.2; lower is better).
    ///
    /// The similarity w comes from features (--features, a CSV with a header whose first
    /// column names the items and the other columns are numbers; kernel --kernel: gaussian,
    /// gaussian:<γ> for exp(−‖x_i−x_j‖²/γ²), or cosine, Perrot et al. 2020, App. F.3) or from a pair list
    /// (--similarity, header `a,b,w`, one row per pair; missing pairs count as 0).
    ///
    /// Example:
    ///   compclust eval dasgupta --dendrogram tree.json --features zoo.csv --kernel cosine
    ///   pairs.csv:  a,b,w / cat,lion,0.9 / cat,car,0.1
    #[command(verbatim_doc_comment)]
    Dasgupta {
        /// The dendrogram (JSON, see `eval aari --help`).
        #[arg(long)]
        dendrogram: PathBuf,
        /// Item features (CSV with header; first column = item name).
        #[arg(
            long,
            conflicts_with = "similarity",
            required_unless_present = "similarity"
        )]
        features: Option<PathBuf>,
        /// A column of --features holding class labels, to skip.
        #[arg(long, requires = "features")]
        label_column: Option<String>,
        /// Kernel for --features.
        #[arg(long, default_value = "gaussian")]
        kernel: Kernel,
        /// Pairwise similarities (`a,b,w`).
        #[arg(long)]
        similarity: Option<PathBuf>,
    },
    /// Gram-matrix error between two overlapping memberships (Huleihel et al. 2019, §4): the number of entries
    /// (i, j) of the n × n matrices (diagonal included) where (AAᵀ)_ij ≠ (BBᵀ)_ij.
    ///
    /// Membership files have the header `item,cluster` and one row per (item, cluster); the
    /// items of --pred are matched to --truth by name.
    ///
    /// Example:
    ///   compclust eval gram --truth osim/truth.csv --pred est.csv
    ///   truth.csv:  item,cluster / a,0 / a,1 / b,1 / c,
    #[command(verbatim_doc_comment)]
    Gram {
        /// True membership (`item,cluster`).
        #[arg(long)]
        truth: PathBuf,
        /// Estimated membership (`item,cluster`).
        #[arg(long)]
        pred: PathBuf,
    },
}

/// Run `compclust eval`.
pub fn run(command: Command) -> CmdResult {
    match command {
        Command::Ari { truth, pred } => ari_cmd(&truth, &pred),
        Command::Aari { truth, pred, ks } => aari_cmd(&truth, &pred, ks),
        Command::Dasgupta {
            dendrogram,
            features,
            label_column,
            kernel,
            similarity,
        } => dasgupta_cmd(
            &dendrogram,
            features.as_deref(),
            label_column.as_deref(),
            kernel,
            similarity.as_deref(),
        ),
        Command::Gram { truth, pred } => gram_cmd(&truth, &pred),
    }
}

/// Print the score on the last line, or refuse a non-finite one: a NaN or an infinity is never
/// printed with exit status 0. `inputs` names the files it was computed from.
fn print_score(metric: &str, score: f64, inputs: &[&Path]) -> CmdResult {
    if !score.is_finite() {
        let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        bail!(
            "{}: the {metric} is not finite ({score}): the values in the input overflow a \
             64-bit float; scale them down",
            names.join(", ")
        );
    }
    println!("{score}");
    Ok(super::ExitCode::SUCCESS)
}

fn n_clusters(l: &[usize]) -> usize {
    let mut v = l.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len()
}

fn ari_cmd(truth: &Path, pred: &Path) -> CmdResult {
    let (items, t) = read_labels(truth, None)?;
    let (_, p) = read_labels(pred, Some(&items))
        .map_err(|e| e.unknown_within(format!("the truth file {}", truth.display())))?;
    let ari = try_adjusted_rand_index(&t, &p)?;
    println!(
        "items: {}, truth clusters: {}, predicted clusters: {}",
        items.len(),
        n_clusters(&t),
        n_clusters(&p)
    );
    print_score("ARI", ari, &[truth, pred])
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DendrogramJson {
    items: Vec<String>,
    steps: Vec<(usize, usize, f64, usize)>,
}

/// Read a dendrogram JSON file (docs/FORMATS.md) into its items and dendrogram.
pub fn read_dendrogram(path: &Path) -> anyhow::Result<(ItemIndex, Dendrogram)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let j: DendrogramJson = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a dendrogram file {{\"items\": [...], \"steps\": [[a, b, height, size], ...]}}",
            path.display()
        )
    })?;
    let items = ItemIndex::fixed(j.items.iter().cloned())
        .with_context(|| format!("{}: field `items`", path.display()))?;
    let steps = j
        .steps
        .iter()
        .map(|&(a, b, height, size)| Merge { a, b, height, size })
        .collect();
    let d = Dendrogram::new(items.len(), steps)
        .with_context(|| format!("{}: field `steps`", path.display()))?;
    Ok((items, d))
}

/// Re-index the leaves of `d` (named by `from`) into the order of `to`.
fn align(
    d: &Dendrogram,
    from: &ItemIndex,
    to: &ItemIndex,
    path: &Path,
) -> anyhow::Result<Dendrogram> {
    let n = to.len();
    if from.len() != n {
        bail!(
            "{}: {} items, but the truth has {}",
            path.display(),
            from.len(),
            n
        );
    }
    let mut map = Vec::with_capacity(n);
    for i in 0..n {
        let label = from.label(i);
        let j = to
            .get(label)
            .with_context(|| format!("{}: item `{label}` is not in the truth", path.display()))?;
        map.push(j as usize);
    }
    let steps = d
        .steps()
        .iter()
        .map(|m| {
            let f = |id: usize| if id < n { map[id] } else { id };
            Merge {
                a: f(m.a),
                b: f(m.b),
                height: m.height,
                size: m.size,
            }
        })
        .collect();
    Ok(Dendrogram::new(n, steps)?)
}

fn aari_cmd(truth: &Path, pred: &Path, ks: Option<Vec<usize>>) -> CmdResult {
    let (ti, td) = read_dendrogram(truth)?;
    let (pi, pd) = read_dendrogram(pred)?;
    let pd = align(&pd, &pi, &ti, pred)?;
    let ks = match ks {
        Some(k) => k,
        None => {
            let k = height_levels(&td);
            if k.is_empty() {
                bail!(
                    "{}: no levels with 2 or more clusters found in the merge heights; give --ks",
                    truth.display()
                );
            }
            k
        }
    };
    let n = ti.len();
    if let Some(&bad) = ks.iter().find(|&&k| k == 0 || k > n) {
        bail!("--ks: cannot cut {n} items into {bad} clusters");
    }
    let score = aari(&td, &pd, &ks)?;
    println!(
        "items: {n}, levels (clusters): {}",
        ks.iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    print_score("AARI", score, &[truth, pred])
}

/// Read a pair list `a,b,w` into a dense matrix over `items`.
fn read_pairs(path: &Path, items: &ItemIndex) -> anyhow::Result<DenseSimilarity> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let n = items.len();
    let mut w = vec![0.0; n * n];
    let delim = if text.lines().next().is_some_and(|l| l.contains('\t')) {
        '\t'
    } else {
        ','
    };
    let mut header_seen = false;
    for (ln, line) in text.lines().enumerate() {
        let line_no = ln + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let at = |f: &str| Location::at(Some(path), line_no).field(f.to_string());
        let f: Vec<&str> = line.split(delim).map(str::trim).collect();
        if !header_seen {
            header_seen = true;
            if f != ["a", "b", "w"] {
                bail!(
                    "{}: expected the header `a,b,w`, found `{line}`",
                    Location::at(Some(path), line_no)
                );
            }
            continue;
        }
        if f.len() != 3 {
            bail!(
                "{}: expected 3 fields, found {}",
                Location::at(Some(path), line_no),
                f.len()
            );
        }
        let idx = |s: &str, name: &str| -> anyhow::Result<usize> {
            items.get(s).map(|i| i as usize).with_context(|| {
                format!("{}: unknown item `{s}` (not in the dendrogram)", at(name))
            })
        };
        let (a, b) = (idx(f[0], "a")?, idx(f[1], "b")?);
        let v: f64 = match f[2].parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => bail!("{}: `{}` is not a number", at("w"), f[2]),
        };
        if a == b {
            bail!("{}: a pair needs two different items", at("b"));
        }
        w[a * n + b] = v;
        w[b * n + a] = v;
    }
    if !header_seen {
        bail!(
            "{}: empty file (expected the header `a,b,w`)",
            path.display()
        );
    }
    check_weights_sum(path, &w, n)?;
    Ok(DenseSimilarity::new(n, w)?)
}

/// Dasgupta's cost Σ_{i<j} w_ij |lca(i,j)| stays finite when Σ_{i<j} |w_ij| · n does: refuse
/// weights whose sum overflows (the cost of Ghoshdastidar et al. 2019, App. B.2 would print as `inf` or `NaN`).
fn check_weights_sum(path: &Path, w: &[f64], n: usize) -> anyhow::Result<()> {
    let mut sum = 0.0f64;
    let mut largest = 0.0f64;
    for i in 0..n {
        for &v in &w[i * n + i + 1..(i + 1) * n] {
            sum += v.abs();
            largest = largest.max(v.abs());
        }
    }
    if !(sum * n as f64).is_finite() {
        bail!(
            "{}: field `w`: the weights are too large for the Dasgupta cost (the largest is \
             {largest:e}; their sum times the {n} items overflows a 64-bit float); scale \
             them down",
            path.display()
        );
    }
    Ok(())
}

/// The cosine kernel x_iᵀx_j / (‖x_i‖ ‖x_j‖) (Perrot et al. 2020, App. F.3) is finite when the largest
/// squared norm is: refuse features whose norms overflow (the kernel would be NaN).
fn check_cosine_features(path: &Path, rows: &[Vec<f64>], items: &ItemIndex) -> anyhow::Result<()> {
    let mut largest = 0.0f64;
    for (r, row) in rows.iter().enumerate() {
        let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !norm.is_finite() {
            bail!(
                "{}: item `{}`: the norm of its features overflows a 64-bit float, so the \
                 cosine kernel is not defined; scale the features down (cosine does not \
                 depend on their scale)",
                path.display(),
                items.label(r)
            );
        }
        largest = largest.max(norm);
    }
    if !(largest * largest).is_finite() {
        bail!(
            "{}: feature norms up to {largest:e} overflow the cosine kernel's products; \
             scale the features down (cosine does not depend on their scale)",
            path.display()
        );
    }
    Ok(())
}

fn dasgupta_cmd(
    dendrogram: &Path,
    features: Option<&Path>,
    label_column: Option<&str>,
    kernel: Kernel,
    similarity: Option<&Path>,
) -> CmdResult {
    let (items, d) = read_dendrogram(dendrogram)?;
    let n = items.len();
    let cost = if let Some(fp) = features {
        let table = load_feature_table(fp, label_column)?;
        if table.items.len() != n {
            bail!(
                "{}: {} items, but the dendrogram has {}",
                fp.display(),
                table.items.len(),
                n
            );
        }
        if kernel == Kernel::Cosine {
            check_cosine_features(fp, &table.features, &table.items)?;
        }
        let dim = table.feature_names.len();
        let mut x = vec![0.0; n * dim];
        for (r, row) in table.features.iter().enumerate() {
            let label = table.items.label(r);
            let i = items.get(label).with_context(|| {
                format!("{}: item `{label}` is not in the dendrogram", fp.display())
            })? as usize;
            x[i * dim..(i + 1) * dim].copy_from_slice(row);
        }
        let sim = FeatureSimilarity::new(n, dim, x, kernel)?;
        let pb = bar((n * n.saturating_sub(1) / 2) as u64, "pairs");
        let mut cb = |done: usize, _total: usize| pb.set_position(done as u64);
        let c = dasgupta_cost_with_progress(&d, &sim, Some(&mut cb))?;
        pb.finish_and_clear();
        c
    } else if let Some(sp) = similarity {
        let sim = read_pairs(sp, &items)?;
        dasgupta_cost(&d, &sim)?
    } else {
        bail!("give --features or --similarity");
    };
    println!("items: {n}");
    let input = features.or(similarity).unwrap_or(dendrogram);
    print_score("Dasgupta cost", cost, &[input])
}

fn gram_cmd(truth: &Path, pred: &Path) -> CmdResult {
    use compclust::data::read_membership;
    use compclust::metrics::gram::gram_error;
    let (items, t) = read_membership(truth, None)?;
    let (_, p) = read_membership(pred, Some(&items))
        .map_err(|e| e.unknown_within(format!("the truth file {}", truth.display())))?;
    let e = gram_error(&t, &p)?;
    println!(
        "items: {}, truth clusters: {}, predicted clusters: {}, entries: {}",
        items.len(),
        t.n_clusters(),
        p.n_clusters(),
        items.len() * items.len()
    );
    print_score("gram error", e as f64, &[truth, pred])
}
