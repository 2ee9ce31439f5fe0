//! Python bindings of compclust: the extension module `compclust._core`.
//!
//! A thin layer: it converts numpy arrays into the library's types (reading them through
//! stride-aware views, so Fortran-ordered and sliced arrays are read correctly), releases the
//! GIL around the computation, and maps library errors to `ValueError`. The scikit-learn style
//! estimators live in the pure-Python package `python/compclust`.

use compclust::active::{Oracle, RunOutcome};
use compclust::data::{Comparisons, Dataset, Quadruplet, ReadOptions, Triplet, read_comparisons};
use compclust::embed::tste::TsteParams;
use compclust::flat::{FlatParams, NClusters, PartitionMethod};
use compclust::hierarchy::{Dendrogram, Linkage, Merge, four_al, four_k_al, linkage_passive};
use compclust::oracle::{
    DenseSimilarity, FeatureSimilarity, Kernel, sample_quadruplets, sample_triplets,
};
use compclust::overlap::oracle::{AnswerBook, Pair};
use compclust::overlap::triangle::Noise;
use compclust::overlap::{Ensemble, OverlapMethod, OverlapParams, SampleSize};
use compclust::similarity::SimilarityKind;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Convert any displayable library error into a Python `ValueError`.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Read query rows of width `N` from an int64 array of any memory layout, rejecting the rows
/// that `is_degenerate` flags ([`Triplet::is_degenerate`], [`Quadruplet::is_degenerate`]).
fn read_rows<const N: usize>(
    x: &PyReadonlyArray2<'_, i64>,
    is_degenerate: impl Fn([u32; N]) -> bool,
) -> PyResult<Vec<[u32; N]>> {
    let a = x.as_array(); // stride-aware: C, Fortran and sliced arrays all read row by row
    if a.ncols() != N {
        return Err(value_error(format!(
            "expected {N} columns, got {}",
            a.ncols()
        )));
    }
    let mut rows = Vec::with_capacity(a.nrows());
    for (r, row) in a.rows().into_iter().enumerate() {
        let mut q = [0u32; N];
        for (c, &v) in row.iter().enumerate() {
            q[c] = u32::try_from(v)
                .map_err(|_| value_error(format!("row {r}, column {c}: invalid item index {v}")))?;
        }
        if is_degenerate(q) {
            return Err(value_error(format!(
                "row {r}: item repeated inside one comparison {q:?}"
            )));
        }
        rows.push(q);
    }
    Ok(rows)
}

/// Expand cblearn responses: `None` means `list-order` (each row is the answer); otherwise a
/// count per row: `c > 0` adds `c` copies as written, `c < 0` adds `|c|` reversed copies, and
/// `0` (undecided) is skipped. Returns the expanded rows and the number skipped.
fn unroll<const N: usize>(
    rows: Vec<[u32; N]>,
    y: Option<PyReadonlyArray1<'_, i64>>,
    reverse: impl Fn([u32; N]) -> [u32; N],
) -> PyResult<(Vec<[u32; N]>, usize)> {
    let Some(y) = y else { return Ok((rows, 0)) };
    let y = y.as_array();
    if y.len() != rows.len() {
        return Err(value_error(format!(
            "{} responses for {} queries",
            y.len(),
            rows.len()
        )));
    }
    let mut out = Vec::with_capacity(rows.len());
    let mut skipped = 0;
    for (q, &c) in rows.into_iter().zip(y.iter()) {
        let q = if c < 0 { reverse(q) } else { q };
        if c == 0 {
            skipped += 1;
        }
        out.extend(std::iter::repeat_n(q, c.unsigned_abs() as usize));
    }
    Ok((out, skipped))
}

/// Build library comparisons from a cblearn-style `(X, y)`: `X` int rows of width 3 (triplets)
/// or 4 (quadruplets), `y` optional signed counts (booleans are passed as ±1 by the Python layer).
pub fn comparisons_from_arrays(
    x: &PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(Comparisons, usize)> {
    match x.as_array().ncols() {
        3 => {
            let rows = read_rows::<3>(x, |[a, b, c]| Triplet::new(a, b, c).is_degenerate())?;
            let (rows, skipped) = unroll(rows, y, |[a, b, c]| [a, c, b])?;
            let t = rows
                .into_iter()
                .map(|[a, b, c]| Triplet::new(a, b, c))
                .collect();
            Ok((Comparisons::Triplets(t), skipped))
        }
        4 => {
            let rows = read_rows::<4>(x, |[a, b, c, d]| {
                Quadruplet::new(a, b, c, d).is_degenerate()
            })?;
            let (rows, skipped) = unroll(rows, y, |[a, b, c, d]| [c, d, a, b])?;
            let q = rows
                .into_iter()
                .map(|[a, b, c, d]| Quadruplet::new(a, b, c, d))
                .collect();
            Ok((Comparisons::Quadruplets(q), skipped))
        }
        w => Err(value_error(format!(
            "queries must have 3 (triplets) or 4 (quadruplets) columns, got {w}"
        ))),
    }
}

/// Summary of a comparison array: `(answers, distinct, contradicted, undecided, n_items)`.
#[pyfunction]
#[pyo3(signature = (x, y=None))]
fn describe(
    x: PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(usize, usize, usize, usize, usize)> {
    let (c, skipped) = comparisons_from_arrays(&x, y)?;
    let contradicted = match &c {
        Comparisons::Triplets(_) => c.triplet_counts().map_or(0, |k| k.contradicted),
        _ => c.quadruplet_counts().map_or(0, |k| k.contradicted),
    };
    Ok((c.len(), c.distinct(), contradicted, skipped, c.max_item()))
}

/// A dendrogram as a scipy linkage matrix `(n−1) × 4`: `[a, b, height, size]`. scipy needs
/// non-negative, non-decreasing heights; when the method's heights are not (4-AL's are cluster
/// similarities), the merge rank `1, 2, …` is used instead.
fn linkage_matrix<'py>(py: Python<'py>, d: &Dendrogram) -> Bound<'py, PyArray2<f64>> {
    let steps = d.steps();
    let monotone = steps.windows(2).all(|w| w[0].height <= w[1].height)
        && steps
            .iter()
            .all(|s| s.height.is_finite() && s.height >= 0.0);
    let rows: Vec<Vec<f64>> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let h = if monotone { s.height } else { (i + 1) as f64 };
            vec![s.a as f64, s.b as f64, h, s.size as f64]
        })
        .collect();
    if rows.is_empty() {
        return PyArray2::zeros(py, [0, 4], false);
    }
    PyArray2::from_vec2(py, &rows).expect("rows of equal length")
}

/// Read a scipy linkage matrix back into a checked dendrogram.
fn dendrogram_from_linkage(z: &PyReadonlyArray2<'_, f64>) -> PyResult<Dendrogram> {
    let z = z.as_array();
    if z.ncols() != 4 {
        return Err(value_error(format!(
            "a linkage matrix has 4 columns, got {}",
            z.ncols()
        )));
    }
    let index = |v: f64, what: &str, r: usize| -> PyResult<usize> {
        if v >= 0.0 && v.fract() == 0.0 && v < u32::MAX as f64 {
            Ok(v as usize)
        } else {
            Err(value_error(format!(
                "linkage row {r}: {what} {v} is not a valid id"
            )))
        }
    };
    let mut steps = Vec::with_capacity(z.nrows());
    for (r, row) in z.rows().into_iter().enumerate() {
        steps.push(Merge {
            a: index(row[0], "cluster", r)?,
            b: index(row[1], "cluster", r)?,
            height: row[2],
            size: index(row[3], "size", r)?,
        });
    }
    Dendrogram::new(z.nrows() + 1, steps).map_err(value_error)
}

/// Hierarchical clustering from comparisons (Ghoshdastidar et al. 2019): `method` is `4al`, `4kal`, `sl`, `cl`.
#[pyfunction]
#[pyo3(signature = (x, y, n_items, method, seed=0))]
fn hierarchy<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: usize,
    method: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let _ = seed; // the passive methods are deterministic
    let (c, _) = comparisons_from_arrays(&x, y)?;
    let method = method.to_ascii_lowercase();
    let d = py.detach(|| -> Result<Dendrogram, String> {
        let e = |e: compclust::hierarchy::HierarchyError| e.to_string();
        match method.as_str() {
            "4al" | "4-al" => four_al(n_items, &c).map_err(e),
            "4kal" | "4k-al" => four_k_al(n_items, &c).map(|f| f.dendrogram).map_err(e),
            "sl" => linkage_passive(n_items, Linkage::Single, &c)
                .map(|r| r.dendrogram)
                .map_err(e),
            "cl" => linkage_passive(n_items, Linkage::Complete, &c)
                .map(|r| r.dendrogram)
                .map_err(e),
            m => Err(format!(
                "unknown method `{m}`; expected 4al, 4kal, sl or cl"
            )),
        }
    });
    Ok(linkage_matrix(py, &d.map_err(value_error)?))
}

/// Cut a scipy linkage matrix into `k` flat clusters.
#[pyfunction]
fn cut_dendrogram(z: PyReadonlyArray2<'_, f64>, k: usize) -> PyResult<Vec<usize>> {
    dendrogram_from_linkage(&z)?.cut(k).map_err(value_error)
}

/// t-STE embedding of triplets (van der Maaten & Weinberger 2012).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_components, alpha, lambd, max_iter, seed))]
#[allow(clippy::too_many_arguments)]
fn tste<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: usize,
    n_components: usize,
    alpha: Option<f64>,
    lambd: f64,
    max_iter: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let triplets = triplets_of(&x, y)?;
    let mut p = TsteParams::new(n_components)
        .lambda(lambd)
        .max_iter(max_iter)
        .seed(seed);
    if let Some(a) = alpha {
        p = p.alpha(a);
    }
    let fit = py
        .detach(|| p.fit(n_items, &triplets, None))
        .map_err(value_error)?;
    let e = &fit.embedding;
    let rows: Vec<Vec<f64>> = (0..e.nrows())
        .map(|i| (0..e.ncols()).map(|j| e[(i, j)]).collect())
        .collect();
    if rows.is_empty() {
        return Ok(PyArray2::zeros(py, [0, n_components], false));
    }
    Ok(PyArray2::from_vec2(py, &rows).expect("rows of equal length"))
}

fn triplets_of(
    x: &PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<Vec<Triplet>> {
    match comparisons_from_arrays(x, y)?.0 {
        Comparisons::Triplets(t) => Ok(t),
        _ => Err(value_error("expected triplets (3 columns)")),
    }
}

/// Fraction of the triplets satisfied by an embedding (one row per item).
#[pyfunction]
#[pyo3(signature = (embedding, x, y=None))]
fn triplet_accuracy(
    embedding: PyReadonlyArray2<'_, f64>,
    x: PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<f64> {
    let e = embedding.as_array();
    let flat: Vec<f64> = e.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    let triplets = triplets_of(&x, y)?;
    compclust::metrics::triplet::triplet_accuracy(&flat, e.ncols(), &triplets).map_err(value_error)
}

fn labels_of(a: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<usize>> {
    a.as_array()
        .iter()
        .map(|&v| {
            usize::try_from(v).map_err(|_| value_error(format!("{what}: negative label {v}")))
        })
        .collect()
}

/// Adjusted Rand index between two labelings (Hubert & Arabie 1985).
#[pyfunction]
fn adjusted_rand(a: PyReadonlyArray1<'_, i64>, b: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let (a, b) = (labels_of(&a, "labels_true")?, labels_of(&b, "labels_pred")?);
    compclust::metrics::ari::try_adjusted_rand_index(&a, &b).map_err(value_error)
}

/// AARI of two dendrograms (scipy linkage matrices) over the cuts into each `k` of `levels`
/// (Ghoshdastidar et al. 2019, App. B.1).
#[pyfunction]
fn aari(
    truth: PyReadonlyArray2<'_, f64>,
    pred: PyReadonlyArray2<'_, f64>,
    levels: Vec<usize>,
) -> PyResult<f64> {
    let (t, p) = (
        dendrogram_from_linkage(&truth)?,
        dendrogram_from_linkage(&pred)?,
    );
    compclust::metrics::aari::aari(&t, &p, &levels).map_err(value_error)
}

/// Dasgupta cost of a dendrogram under a dense similarity matrix (Ghoshdastidar et al. 2019, App. B.2).
#[pyfunction]
fn dasgupta_cost(
    z: PyReadonlyArray2<'_, f64>,
    similarity: PyReadonlyArray2<'_, f64>,
) -> PyResult<f64> {
    let d = dendrogram_from_linkage(&z)?;
    let s = similarity.as_array();
    let flat: Vec<f64> = s.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    let sim = DenseSimilarity::new(s.nrows(), flat).map_err(value_error)?;
    compclust::metrics::dasgupta::dasgupta_cost(&d, &sim).map_err(value_error)
}

/// Comparisons from a file in any supported format: `(rows, items, kind)`, rows as an int64
/// array of item indices into `items`.
#[pyfunction]
#[pyo3(signature = (path, kind=None, format=None))]
fn load_comparisons<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    kind: Option<&str>,
    format: Option<&str>,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Vec<String>, String)> {
    let opts = ReadOptions {
        kind: kind.map(str::parse).transpose().map_err(value_error)?,
        format: format.map(str::parse).transpose().map_err(value_error)?,
        ..ReadOptions::default()
    };
    let ds = py
        .detach(|| read_comparisons(&path, &opts))
        .map_err(value_error)?;
    let rows: Vec<Vec<i64>> = match &ds.comparisons {
        Comparisons::Triplets(v) => v
            .iter()
            .map(|t| t.items().map(i64::from).to_vec())
            .collect(),
        Comparisons::Quadruplets(v) => v
            .iter()
            .map(|q| q.items().map(i64::from).to_vec())
            .collect(),
        Comparisons::SameCluster(v) => v
            .iter()
            .map(|s| vec![i64::from(s.a), i64::from(s.b), s.answer as i64])
            .collect(),
    };
    let arr = PyArray2::from_vec2(py, &rows).map_err(value_error)?;
    Ok((
        arr,
        ds.items.labels().to_vec(),
        ds.comparisons.kind().name().to_string(),
    ))
}

/// A row-major `rows × cols` float array as a numpy array.
fn f64_matrix<'py>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    values: Vec<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let a = numpy::ndarray::Array2::from_shape_vec((rows, cols), values).map_err(value_error)?;
    Ok(a.into_pyarray(py))
}

/// The MNIST t-SNE points and digits (Perrot et al. 2020, §5, [`compclust::data::datasets::load_mnist_tsne`]):
/// `(points n × 2, labels)`.
#[pyfunction]
fn load_mnist_tsne<'py>(
    py: Python<'py>,
    points: std::path::PathBuf,
    labels: std::path::PathBuf,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<usize>)> {
    let (p, l) = py
        .detach(|| compclust::data::datasets::load_mnist_tsne(&points, &labels))
        .map_err(value_error)?;
    let n = p.len();
    let flat: Vec<f64> = p.into_iter().flatten().collect();
    Ok((f64_matrix(py, n, 2, flat)?, l))
}

/// The UCI Zoo feature table (Ghoshdastidar et al. 2019, §5, [`compclust::data::datasets::load_zoo`]):
/// `(features n × d, classes, item names, feature names)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn load_zoo<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<(
    Bound<'py, PyArray2<f64>>,
    Option<Vec<usize>>,
    Vec<String>,
    Vec<String>,
)> {
    let t = py
        .detach(|| compclust::data::datasets::load_zoo(&path))
        .map_err(value_error)?;
    let (n, d) = (t.features.len(), t.feature_names.len());
    let flat: Vec<f64> = t.features.into_iter().flatten().collect();
    Ok((
        f64_matrix(py, n, d, flat)?,
        t.labels,
        t.items.labels().to_vec(),
        t.feature_names,
    ))
}

/// Passive comparisons drawn from feature vectors (Perrot et al. 2020, App. F.3): the similarity is the
/// `kernel` (`gaussian`, `gaussian:<γ>` or `cosine`) of the rows of `x`; `n_comparisons`
/// distinct queries are drawn uniformly and answered correctly with probability `(1 + eps)/2`.
#[pyfunction]
#[pyo3(signature = (x, n_comparisons, kernel, eps, quadruplets, seed))]
fn sample_from_features<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    n_comparisons: usize,
    kernel: &str,
    eps: f64,
    quadruplets: bool,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let a = x.as_array(); // stride-aware
    let (n, d) = (a.nrows(), a.ncols());
    let flat: Vec<f64> = a.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    let kernel: Kernel = kernel.parse().map_err(value_error)?;
    let sim = FeatureSimilarity::new(n, d, flat, kernel).map_err(value_error)?;
    let (rows, width): (Vec<i64>, usize) = py
        .detach(|| -> Result<_, compclust::oracle::OracleError> {
            Ok(if quadruplets {
                let q = sample_quadruplets(&sim, n_comparisons, eps, seed)?;
                (q.iter().flat_map(|q| q.items().map(i64::from)).collect(), 4)
            } else {
                let t = sample_triplets(&sim, n_comparisons, eps, seed)?;
                (t.iter().flat_map(|t| t.items().map(i64::from)).collect(), 3)
            })
        })
        .map_err(value_error)?;
    let a = numpy::ndarray::Array2::from_shape_vec((rows.len() / width, width), rows)
        .map_err(value_error)?;
    Ok(a.into_pyarray(py))
}

/// The planted model of Perrot et al. 2020, §2 with passive comparisons: `(rows, truth labels)`.
/// `n_comparisons = None` draws the library's default budget n·(ln n)³ (capped); the seed rule
/// is the library's (`PlantedInstance::sample`), so the rows equal `compclust simulate planted`'s.
#[pyfunction]
#[pyo3(signature = (n, k, family, delta, eps, n_comparisons, quadruplets, seed))]
#[allow(clippy::too_many_arguments)]
fn make_planted<'py>(
    py: Python<'py>,
    n: usize,
    k: usize,
    family: &str,
    delta: f64,
    eps: f64,
    n_comparisons: Option<usize>,
    quadruplets: bool,
    seed: u64,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Vec<usize>)> {
    use compclust::models::flat::PlantedInstance;
    use compclust::simulate::Budget;
    let instance = PlantedInstance {
        n,
        k,
        family: family.parse().map_err(value_error)?,
        delta,
        eps,
        quadruplets,
        budget: n_comparisons.map_or(Budget::DEFAULT, Budget::Exactly),
    };
    let (labels, rows): (Vec<usize>, Vec<Vec<i64>>) = py
        .detach(|| -> Result<_, String> {
            let (model, comparisons) = instance.sample(seed).map_err(|e| e.to_string())?;
            let rows = match comparisons {
                Comparisons::Quadruplets(q) => q
                    .iter()
                    .map(|q| q.items().map(i64::from).to_vec())
                    .collect(),
                Comparisons::Triplets(t) => t
                    .iter()
                    .map(|t| t.items().map(i64::from).to_vec())
                    .collect(),
                Comparisons::SameCluster(_) => {
                    return Err("a planted instance has no same-cluster answers".into());
                }
            };
            Ok((model.labels().to_vec(), rows))
        })
        .map_err(value_error)?;
    let arr = PyArray2::from_vec2(py, &rows).map_err(value_error)?;
    Ok((arr, labels))
}

/// Flat clustering (Perrot et al. 2020): AddS or MulK similarity, SDP-k, SPUR when `n_clusters` is None.
/// Returns a dict with `labels`, `n_clusters`, `spur` (JSON list) and `solver_info` (JSON).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_clusters, similarity, partition, seed, sdp_tol=1e-4))]
#[allow(clippy::too_many_arguments)]
fn cluster_flat<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: usize,
    n_clusters: Option<usize>,
    similarity: &str,
    partition: &str,
    seed: u64,
    sdp_tol: f64,
) -> PyResult<Bound<'py, PyDict>> {
    compclust::sdp::check_tol("sdp_tol", sdp_tol).map_err(value_error)?;
    let (c, _) = comparisons_from_arrays(&x, y)?;
    let data = Dataset::numbered(n_items, c).map_err(value_error)?;
    let params = FlatParams::new()
        .with_similarity(similarity.parse::<SimilarityKind>().map_err(value_error)?)
        .with_partition(partition.parse::<PartitionMethod>().map_err(value_error)?)
        .with_n_clusters(n_clusters.map_or(NClusters::Auto, NClusters::K))
        .with_seed(seed)
        .with_sdp_tol(sdp_tol);
    let fit = py.detach(|| params.fit(&data, None)).map_err(value_error)?;
    let json = |v: serde_json::Value| -> PyResult<Bound<'py, PyAny>> {
        let text = v.to_string();
        py.import("json")?.call_method1("loads", (text,))
    };
    let spur = serde_json::to_value(fit.spur.as_ref().map(|s| &s.table)).map_err(value_error)?;
    let info = serde_json::to_value(&fit.sdp_info).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("labels", fit.labels)?;
    d.set_item("n_clusters", fit.k_hat)?;
    d.set_item(
        "spur",
        if spur.is_null() {
            json(serde_json::json!([]))?
        } else {
            json(spur)?
        },
    )?;
    d.set_item(
        "solver_info",
        if info.is_null() {
            json(serde_json::json!({}))?
        } else {
            json(info)?
        },
    )?;
    Ok(d)
}

/// Answers same-cluster queries by calling a Python function `oracle(i, j) -> int`. The first
/// Python exception stops the run (the query is reported unanswered) and is re-raised.
struct PyOracle<'py> {
    f: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl Oracle<Pair, u32> for PyOracle<'_> {
    fn answer(&mut self, p: &Pair) -> Option<u32> {
        if self.error.is_some() {
            return None;
        }
        match self.f.call1((p.a, p.b)).and_then(|v| v.extract::<u32>()) {
            Ok(a) => Some(a),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Overlapping clusters from same-cluster queries (Huleihel et al. 2019), answered by a Python callable or
/// an int array of `(i, j, answer)` rows. Returns a dict with `memberships` (None when answers
/// were missing), `n_clusters`, `queries`, `missing` (pairs) and `stop`.
#[pyfunction]
#[pyo3(signature = (method, n_items, k, delta, flip_prob, sample_size, seed, oracle=None, answers=None, ensemble=None))]
#[allow(clippy::too_many_arguments)]
fn overlap_fit<'py>(
    py: Python<'py>,
    method: &str,
    n_items: usize,
    k: Option<usize>,
    delta: Option<usize>,
    flip_prob: Option<f64>,
    sample_size: Option<usize>,
    seed: u64,
    oracle: Option<Bound<'py, PyAny>>,
    answers: Option<PyReadonlyArray2<'py, i64>>,
    ensemble: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let params = OverlapParams {
        method: method.parse::<OverlapMethod>().map_err(value_error)?,
        k,
        delta,
        noise: Noise::Bsc { q: flip_prob },
        sample_size: sample_size.map_or(SampleSize::Auto, SampleSize::Fixed),
        probes: SampleSize::Auto,
        seed,
        ensemble: ensemble
            .map_or(Ok(Ensemble::Uniform), str::parse)
            .map_err(value_error)?,
    };
    let outcome = match (oracle, answers) {
        (Some(f), None) => {
            let mut o = PyOracle { f, error: None };
            let out = params.run(n_items, &mut o).map_err(value_error)?;
            if let Some(e) = o.error {
                return Err(e);
            }
            out
        }
        (None, Some(rows)) => {
            let rows = rows.as_array();
            let mut book = AnswerBook::new();
            for (r, row) in rows.rows().into_iter().enumerate() {
                let get = |c: usize| {
                    u32::try_from(row[c]).map_err(|_| {
                        value_error(format!(
                            "answers row {r}, column {c}: invalid value {}",
                            row[c]
                        ))
                    })
                };
                book.insert(get(0)?, get(1)?, get(2)?);
            }
            py.detach(|| params.run(n_items, &mut book))
                .map_err(value_error)?
        }
        _ => return Err(value_error("give exactly one of oracle= or answers=")),
    };
    let d = PyDict::new(py);
    match outcome {
        RunOutcome::Finished {
            output,
            queries,
            rounds,
        } => {
            let m = &output.membership;
            let rows: Vec<Vec<u32>> = m.rows().to_vec();
            d.set_item("memberships", rows)?;
            d.set_item("n_clusters", m.n_clusters())?;
            d.set_item("queries", queries)?;
            d.set_item("rounds", rounds)?;
            d.set_item("missing", Vec::<(u32, u32)>::new())?;
            let stop = serde_json::to_value(output.stop).map_err(value_error)?;
            d.set_item(
                "stop",
                stop["kind"].as_str().unwrap_or("unknown").to_string(),
            )?;
        }
        RunOutcome::Missing {
            missing,
            queries,
            rounds,
        } => {
            d.set_item("memberships", py.None())?;
            d.set_item("n_clusters", 0)?;
            d.set_item("queries", queries)?;
            d.set_item("rounds", rounds)?;
            let pairs: Vec<(u32, u32)> = missing.iter().map(|p| (p.a, p.b)).collect();
            d.set_item("missing", pairs)?;
            d.set_item("stop", "missing-answers")?;
        }
    }
    Ok(d)
}

/// The extension module `compclust._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(overlap_fit, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_flat, m)?)?;
    m.add_function(wrap_pyfunction!(hierarchy, m)?)?;
    m.add_function(wrap_pyfunction!(cut_dendrogram, m)?)?;
    m.add_function(wrap_pyfunction!(tste, m)?)?;
    m.add_function(wrap_pyfunction!(triplet_accuracy, m)?)?;
    m.add_function(wrap_pyfunction!(adjusted_rand, m)?)?;
    m.add_function(wrap_pyfunction!(aari, m)?)?;
    m.add_function(wrap_pyfunction!(dasgupta_cost, m)?)?;
    m.add_function(wrap_pyfunction!(load_comparisons, m)?)?;
    m.add_function(wrap_pyfunction!(make_planted, m)?)?;
    m.add_function(wrap_pyfunction!(load_mnist_tsne, m)?)?;
    m.add_function(wrap_pyfunction!(load_zoo, m)?)?;
    m.add_function(wrap_pyfunction!(sample_from_features, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
