//! Python bindings of compclust: the extension module `compclust._core`.
//!
//! A thin layer: it converts numpy arrays into the library's types (reading them through
//! stride-aware views, so Fortran-ordered and sliced arrays are read correctly), checks every
//! size that comes from Python against the memory it would need before allocating
//! (`limits.rs`), releases the GIL around the computation while polling for Ctrl-C
//! (`interrupt.rs`), returns results as numpy arrays and plain dicts built field by field, and
//! maps library errors to typed exceptions (`errors.rs`). The scikit-learn style estimators
//! live in the pure-Python package `python/compclust`.

mod errors;
mod interrupt;
mod limits;

use compclust::active::{Oracle, RunOutcome};
use compclust::crowd::{AggregateReport, Aggregation, aggregate_answers};
use compclust::data::{Comparisons, Dataset, Quadruplet, ReadOptions, Triplet, read_comparisons};
use compclust::embed::forte::ForteParams;
use compclust::embed::soe::SoeParams;
use compclust::embed::tste::TsteParams;
use compclust::flat::{FlatClustering, FlatParams, NClusters, PartitionMethod};
use compclust::hierarchy::{
    ActiveKernelParams, Dendrogram, Hierarchy, HierarchyMethod, HierarchyParams, Merge,
    QuadrupletTable, ReferencePairs,
};
use compclust::overlap::response::{AnswerBook, Pair};
use compclust::overlap::triangle::Noise;
use compclust::overlap::{Ensemble, OverlapMethod, OverlapParams, SampleSize, StopReason};
use compclust::sdp::{SdpInfo, SdpProblem};
use compclust::similarity::{SimilarityKind, StreamError, adds_from_file};
use compclust::simulate::{
    DenseSimilarity, FeatureSimilarity, Kernel, sample_quadruplets, sample_triplets,
};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use errors::{Raise, data_error, exc, parameter_error};
use limits::Items;

/// Read the query rows of `x` (width `N`) from an int64 array of any memory layout, rejecting
/// the rows that `is_degenerate` flags ([`Triplet::is_degenerate`],
/// [`Quadruplet::is_degenerate`]). Also returns the largest item index + 1 (0 without rows).
fn read_rows<const N: usize>(
    x: &PyReadonlyArray2<'_, i64>,
    is_degenerate: impl Fn([u32; N]) -> bool,
) -> PyResult<(Vec<[u32; N]>, u64)> {
    let a = x.as_array(); // stride-aware: C, Fortran and sliced arrays all read row by row
    if a.ncols() != N {
        return Err(data_error(format!(
            "X must have {N} columns, got {}",
            a.ncols()
        )));
    }
    let mut rows = Vec::with_capacity(a.nrows());
    let mut n = 0u64;
    for (r, row) in a.rows().into_iter().enumerate() {
        let mut q = [0u32; N];
        for (c, &v) in row.iter().enumerate() {
            q[c] = u32::try_from(v).map_err(|_| {
                data_error(format!(
                    "X row {r}, column {c}: item index {v} is not in 0..={}",
                    u32::MAX
                ))
            })?;
            n = n.max(u64::from(q[c]) + 1);
        }
        if is_degenerate(q) {
            return Err(data_error(format!(
                "X row {r}: item repeated inside one comparison {q:?}"
            )));
        }
        rows.push(q);
    }
    Ok((rows, n))
}

/// Expand cblearn responses: `None` means `list-order` (each row is the answer); otherwise a
/// count per row: `c > 0` adds `c` copies as written, `c < 0` adds `|c|` reversed copies, and
/// `0` (undecided) is skipped. Every |count| is at most [`limits::MAX_COUNT`] and their sum at
/// most [`limits::MAX_COMPARISONS`], checked before anything is allocated. Returns the
/// expanded rows and the number skipped.
fn unroll<const N: usize>(
    rows: Vec<[u32; N]>,
    y: Option<PyReadonlyArray1<'_, i64>>,
    reverse: impl Fn([u32; N]) -> [u32; N],
) -> PyResult<(Vec<[u32; N]>, usize)> {
    let Some(y) = y else { return Ok((rows, 0)) };
    let y = y.as_array();
    if y.len() != rows.len() {
        return Err(data_error(format!(
            "y has {} responses for {} rows of X",
            y.len(),
            rows.len()
        )));
    }
    let mut total = 0u64;
    for (r, &c) in y.iter().enumerate() {
        if c.unsigned_abs() > limits::MAX_COUNT.unsigned_abs() {
            return Err(exc::LimitError::new_err(format!(
                "y[{r}] = {c}: a count must be at most {} in absolute value",
                limits::MAX_COUNT
            )));
        }
        total += c.unsigned_abs();
    }
    if total > limits::MAX_COMPARISONS {
        return Err(exc::LimitError::new_err(format!(
            "y: the counts add up to {total} comparisons, more than the limit of {}",
            limits::MAX_COMPARISONS
        )));
    }
    let mut out = Vec::with_capacity(total as usize);
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

/// Comparisons read from a cblearn-style `(X, y)`.
pub struct Queries {
    /// The comparisons, counts unrolled.
    pub comparisons: Comparisons,
    /// Rows of `y` that were 0 (undecided) and skipped.
    pub skipped: usize,
    /// The largest item index of `X` + 1.
    pub n_seen: u64,
}

/// Build library comparisons from a cblearn-style `(X, y)`: `X` int rows of width 3 (triplets)
/// or 4 (quadruplets), `y` optional signed counts (booleans are passed as ±1 by the Python layer).
pub fn comparisons_from_arrays(
    x: &PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<Queries> {
    match x.as_array().ncols() {
        3 => {
            let (rows, n_seen) =
                read_rows::<3>(x, |[a, b, c]| Triplet::new(a, b, c).is_degenerate())?;
            let (rows, skipped) = unroll(rows, y, |[a, b, c]| [a, c, b])?;
            let t = rows
                .into_iter()
                .map(|[a, b, c]| Triplet::new(a, b, c))
                .collect();
            Ok(Queries {
                comparisons: Comparisons::Triplets(t),
                skipped,
                n_seen,
            })
        }
        4 => {
            let (rows, n_seen) = read_rows::<4>(x, |[a, b, c, d]| {
                Quadruplet::new(a, b, c, d).is_degenerate()
            })?;
            let (rows, skipped) = unroll(rows, y, |[a, b, c, d]| [c, d, a, b])?;
            let q = rows
                .into_iter()
                .map(|[a, b, c, d]| Quadruplet::new(a, b, c, d))
                .collect();
            Ok(Queries {
                comparisons: Comparisons::Quadruplets(q),
                skipped,
                n_seen,
            })
        }
        w => Err(data_error(format!(
            "X must have 3 (triplets) or 4 (quadruplets) columns, got {w}"
        ))),
    }
}

/// The number of items: `n_items` when given (it must cover every index of `X`), else the
/// largest index of `X` + 1; at most [`limits::MAX_ITEMS`].
fn items_of(n_items: Option<u64>, q: &Queries) -> PyResult<Items> {
    if let Some(n) = n_items
        && n < q.n_seen
    {
        return Err(parameter_error(format!(
            "n_items = {n} but X uses item index {}",
            q.n_seen - 1
        )));
    }
    let items = Items::new(n_items, q.n_seen);
    limits::check_index_range(items)?;
    Ok(items)
}

/// Summary of a comparison array: `(answers, distinct, contradicted, undecided, n_items)`.
#[pyfunction]
#[pyo3(signature = (x, y=None))]
fn describe(
    x: PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(usize, usize, usize, usize, usize)> {
    let q = comparisons_from_arrays(&x, y)?;
    let c = &q.comparisons;
    let contradicted = match c {
        Comparisons::Triplets(_) => c.triplet_counts().map_or(0, |k| k.contradicted),
        _ => c.quadruplet_counts().map_or(0, |k| k.contradicted),
    };
    Ok((c.len(), c.distinct(), contradicted, q.skipped, c.max_item()))
}

/// A row-major `rows × cols` array as a numpy array.
fn matrix<'py, T: numpy::Element>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    values: Vec<T>,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let a = numpy::ndarray::Array2::from_shape_vec((rows, cols), values)
        .map_err(|e| parameter_error(e.to_string()))?;
    Ok(a.into_pyarray(py))
}

/// A dendrogram as a scipy linkage matrix `(n−1) × 4`: `[a, b, height, size]`. scipy needs
/// non-negative, non-decreasing heights; when the method's heights are not (4-AL's are cluster
/// similarities), the merge rank `1, 2, …` is used instead.
fn linkage_matrix<'py>(py: Python<'py>, d: &Dendrogram) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let steps = d.steps();
    let monotone = steps.windows(2).all(|w| w[0].height <= w[1].height)
        && steps
            .iter()
            .all(|s| s.height.is_finite() && s.height >= 0.0);
    let flat: Vec<f64> = steps
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let h = if monotone { s.height } else { (i + 1) as f64 };
            [s.a as f64, s.b as f64, h, s.size as f64]
        })
        .collect();
    matrix(py, steps.len(), 4, flat)
}

/// Read a scipy linkage matrix back into a checked dendrogram (`what` names the argument).
fn dendrogram_from_linkage(z: &PyReadonlyArray2<'_, f64>, what: &str) -> PyResult<Dendrogram> {
    let z = z.as_array();
    if z.ncols() != 4 {
        return Err(data_error(format!(
            "{what}: a linkage matrix has 4 columns, got {}",
            z.ncols()
        )));
    }
    let index = |v: f64, field: &str, r: usize| -> PyResult<usize> {
        if v >= 0.0 && v.fract() == 0.0 && v < u32::MAX as f64 {
            Ok(v as usize)
        } else {
            Err(data_error(format!(
                "{what}: linkage row {r}: {field} {v} is not a valid id"
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
    Dendrogram::new(z.nrows() + 1, steps)
        .map_err(|e| exc::HierarchyError::new_err(format!("{what}: {e}")))
}

/// Dense `n × n` f64 matrices each hierarchy method holds at once (4-AL: the cluster
/// similarities; 4K-AL: the kernel, its copy and the linkage's matrix; SL / CL: the table of
/// item pairs and their order).
fn hierarchy_matrices(method: HierarchyMethod) -> u128 {
    match method {
        HierarchyMethod::FourAl => 2,
        HierarchyMethod::FourKAl => 4,
        HierarchyMethod::Single | HierarchyMethod::Complete => 3,
    }
}

/// Hierarchical clustering from comparisons (Ghoshdastidar, Perrot & von Luxburg 2019)
/// through the library's one dispatch, [`HierarchyParams`]. `method` is `4al`, `4kal`, `sl`
/// or `cl`; `active` asks the comparisons as questions of a crowd study (SL / CL, active
/// 4K-AL), answered by the given rows: the questions they leave open are returned, not an
/// error. Returns a dict: `linkage` (scipy linkage matrix; with missing answers the partial
/// estimate of 4-AL on the given rows), `complete`, `comparisons`, `rounds`, `initial_merges`
/// and `missing` (`m × 4` int64 array of quadruplet questions (a, b, c, d): "is pair (a, b)
/// more similar than pair (c, d)?"). Active runs first combine several answers to one
/// question (`workers`: who gave each row, `aggregate`: `majority` or `dawid-skene`) and add
/// `aggregation` (see [`aggregation_dict`]).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, method, active=false, init_clusters=None, seed=0, references=None, budget=None, landmark_prob=None, workers=None, aggregate="majority", progress=None))]
#[allow(clippy::too_many_arguments)]
fn hierarchy<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: Option<u64>,
    method: &str,
    active: bool,
    init_clusters: Option<PyReadonlyArray1<'py, i64>>,
    seed: u64,
    references: Option<usize>,
    budget: Option<usize>,
    landmark_prob: Option<f64>,
    workers: Option<PyReadonlyArray1<'py, i64>>,
    aggregate: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let method: HierarchyMethod = method
        .parse()
        .map_err(|e| parameter_error(format!("method: {e}")))?;
    let q = comparisons_from_arrays(&x, y)?;
    let items = items_of(n_items, &q)?;
    limits::check_dense(
        items,
        limits::MAX_DENSE_ITEMS,
        hierarchy_matrices(method),
        &format!("hierarchy method {}", method.name()),
    )?;
    let (n, c) = (items.n as usize, q.comparisons);
    let params = hierarchy_params(
        method,
        n,
        init_clusters,
        seed,
        references,
        budget,
        landmark_prob,
    )?;
    let d = PyDict::new(py);
    if !active {
        let fit = interrupt::detach_observed(py, progress, |o| params.fit(n, &c, o))?
            .map_err(Raise::py)?;
        set_hierarchy(py, &d, &fit, true)?;
        d.set_item("missing", matrix(py, 0, 4, Vec::<i64>::new())?)?;
        return Ok(d);
    }
    let how = aggregation_of(aggregate)?;
    let of_row = worker_ids(workers, c.len())?;
    let agg = aggregate_answers(&c, &of_row, how);
    d.set_item("aggregation", aggregation_dict(py, &agg.report)?)?;
    let c = agg.comparisons;
    let run = interrupt::detach(py, || -> Result<_, compclust::hierarchy::HierarchyError> {
        let mut table = QuadrupletTable::new(n, &c)?;
        match params.run(n, &mut table)? {
            RunOutcome::Finished { output, .. } => Ok((output, Vec::new())),
            RunOutcome::Missing { missing, .. } => {
                // the best current estimate: 4-AL on the answers given so far
                let partial = HierarchyParams::new(HierarchyMethod::FourAl).fit(n, &c, None)?;
                Ok((partial, missing))
            }
        }
    })?
    .map_err(Raise::py)?;
    let (fit, missing) = run;
    set_hierarchy(py, &d, &fit, missing.is_empty())?;
    let rows: Vec<i64> = missing
        .iter()
        .flat_map(|q| [q.a, q.b, q.c, q.d].map(i64::from))
        .collect();
    d.set_item("missing", matrix(py, missing.len(), 4, rows)?)?;
    Ok(d)
}

/// [`HierarchyParams`] from the Python arguments (initial clusters: one label per item).
#[allow(clippy::too_many_arguments)]
fn hierarchy_params(
    method: HierarchyMethod,
    n: usize,
    init_clusters: Option<PyReadonlyArray1<'_, i64>>,
    seed: u64,
    references: Option<usize>,
    budget: Option<usize>,
    landmark_prob: Option<f64>,
) -> PyResult<HierarchyParams> {
    let refs = match (references, budget) {
        (Some(_), Some(_)) => {
            return Err(parameter_error(
                "give at most one of references= and budget=",
            ));
        }
        (_, Some(b)) => ReferencePairs::Budget(b),
        (r, None) => ReferencePairs::Count(r.unwrap_or(10)),
    };
    let mut params = HierarchyParams::new(method)
        .with_seed(seed)
        .with_active(ActiveKernelParams {
            landmark_prob: landmark_prob.unwrap_or(1.0),
            references: refs,
            seed,
        });
    if let Some(labels) = init_clusters {
        let a = labels.as_array();
        if a.len() != n {
            return Err(parameter_error(format!(
                "init_clusters: one label per item: {n} items, {} labels",
                a.len()
            )));
        }
        let labels = a
            .iter()
            .map(|&v| {
                usize::try_from(v)
                    .map_err(|_| parameter_error(format!("init_clusters: label {v} is negative")))
            })
            .collect::<PyResult<Vec<usize>>>()?;
        params = params.with_initial_clusters(labels);
    }
    params.check(n).map_err(Raise::py)?;
    Ok(params)
}

/// The fields of a fitted hierarchy in the result dict.
fn set_hierarchy<'py>(
    py: Python<'py>,
    d: &Bound<'py, PyDict>,
    fit: &Hierarchy,
    complete: bool,
) -> PyResult<()> {
    d.set_item("linkage", linkage_matrix(py, &fit.dendrogram)?)?;
    d.set_item("complete", complete)?;
    d.set_item("comparisons", fit.info.comparisons)?;
    d.set_item("rounds", fit.info.rounds)?;
    d.set_item("initial_merges", fit.info.initial_merges)?;
    Ok(())
}

/// Cut a scipy linkage matrix into `k` flat clusters.
#[pyfunction]
fn cut_dendrogram(z: PyReadonlyArray2<'_, f64>, k: usize) -> PyResult<Vec<usize>> {
    dendrogram_from_linkage(&z, "linkage")?
        .cut(k)
        .map_err(Raise::py)
}

/// Values held per item and dimension while t-STE runs: the iterate, the gradient, the
/// L-BFGS history (two vectors per remembered step, 10 by default) and the per-thread
/// gradient chunks (at most 16).
const TSTE_VECTORS: u128 = 48;

/// t-STE embedding of triplets (van der Maaten & Weinberger 2012).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_components, alpha, lambd, max_iter, seed))]
#[allow(clippy::too_many_arguments)]
fn tste<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: Option<u64>,
    n_components: u64,
    alpha: Option<f64>,
    lambd: f64,
    max_iter: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let q = comparisons_from_arrays(&x, y)?;
    let items = items_of(n_items, &q)?;
    let bytes = u128::from(items.n)
        .checked_mul(u128::from(n_components))
        .and_then(|v| v.checked_mul(8 * TSTE_VECTORS));
    limits::check_memory(
        &format_args!("{items} with n_components = {n_components}"),
        "t-STE",
        bytes,
    )?;
    let Comparisons::Triplets(triplets) = q.comparisons else {
        return Err(data_error("X: t-STE needs triplets (3 columns)"));
    };
    let (n, d) = (items.n as usize, n_components as usize);
    let mut p = TsteParams::new(d)
        .with_lambda(lambd)
        .with_max_iter(max_iter)
        .with_seed(seed);
    if let Some(a) = alpha {
        p = p.with_alpha(a);
    }
    let fit = interrupt::detach(py, || p.fit(n, &triplets, None))?.map_err(Raise::py)?;
    let e = &fit.embedding;
    let flat: Vec<f64> = (0..e.nrows())
        .flat_map(|i| (0..e.ncols()).map(move |j| e[(i, j)]))
        .collect();
    matrix(py, n, d, flat)
}

/// The triplets of `x`, `y` over `n_items` items, for the embedding `what`, with its memory
/// checked (`bytes_per_item_dim` bytes per item and dimension).
fn embedding_input(
    x: &PyReadonlyArray2<'_, i64>,
    y: Option<PyReadonlyArray1<'_, i64>>,
    n_items: Option<u64>,
    n_components: u64,
    what: &str,
    bytes_per_item_dim: u128,
) -> PyResult<(Items, Vec<Triplet>)> {
    let q = comparisons_from_arrays(x, y)?;
    let items = items_of(n_items, &q)?;
    let bytes = u128::from(items.n)
        .checked_mul(u128::from(n_components))
        .and_then(|v| v.checked_mul(bytes_per_item_dim));
    limits::check_memory(
        &format_args!("{items} with n_components = {n_components}"),
        what,
        bytes,
    )?;
    let Comparisons::Triplets(triplets) = q.comparisons else {
        return Err(data_error(format!("X: {what} needs triplets (3 columns)")));
    };
    Ok((items, triplets))
}

/// SOE embedding of triplets (Terada & von Luxburg 2014).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_components, margin, n_init, max_iter, seed))]
#[allow(clippy::too_many_arguments)]
fn soe<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: Option<u64>,
    n_components: u64,
    margin: f64,
    n_init: usize,
    max_iter: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    // the iterate, gradient, L-BFGS history and the best start, as for t-STE
    let (items, triplets) = embedding_input(&x, y, n_items, n_components, "SOE", 8 * TSTE_VECTORS)?;
    let (n, d) = (items.n as usize, n_components as usize);
    let p = SoeParams::new(d)
        .with_margin(margin)
        .with_n_init(n_init)
        .with_max_iter(max_iter)
        .with_seed(seed);
    let fit = interrupt::detach(py, || p.fit(n, &triplets, None))?.map_err(Raise::py)?;
    matrix(py, n, d, fit.rows())
}

/// FORTE embedding of triplets (Jain, Jamieson & Nowak 2016).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_components, max_trace, max_iter, seed))]
#[allow(clippy::too_many_arguments)]
fn forte<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: Option<u64>,
    n_components: u64,
    max_trace: Option<f64>,
    max_iter: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (items, triplets) = embedding_input(&x, y, n_items, n_components, "FORTE", 8)?;
    limits::check_dense(items, compclust::embed::forte::MAX_ITEMS, 8, "FORTE")?;
    let n = items.n as usize;
    let d = n_components as usize;
    let mut p = ForteParams::new(d).with_max_iter(max_iter).with_seed(seed);
    if let Some(t) = max_trace {
        p = p.with_max_trace(t);
    }
    let fit = interrupt::detach(py, || p.fit(n, &triplets, None))?.map_err(Raise::py)?;
    matrix(py, n, d, fit.rows())
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
    let q = comparisons_from_arrays(&x, y)?;
    if q.n_seen > e.nrows() as u64 {
        return Err(data_error(format!(
            "X uses item index {} but the embedding has {} rows",
            q.n_seen - 1,
            e.nrows()
        )));
    }
    let Comparisons::Triplets(triplets) = q.comparisons else {
        return Err(data_error("X: triplet accuracy needs triplets (3 columns)"));
    };
    let flat: Vec<f64> = e.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    compclust::metrics::triplet::triplet_accuracy(&flat, e.ncols(), &triplets).map_err(Raise::py)
}

fn labels_of(a: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<usize>> {
    a.as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v)
                .map_err(|_| data_error(format!("{what}[{i}] = {v}: labels must be >= 0")))
        })
        .collect()
}

/// Adjusted Rand index between two labelings (Hubert & Arabie 1985).
#[pyfunction]
fn adjusted_rand(a: PyReadonlyArray1<'_, i64>, b: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let (a, b) = (labels_of(&a, "labels_true")?, labels_of(&b, "labels_pred")?);
    compclust::metrics::ari::try_adjusted_rand_index(&a, &b).map_err(Raise::py)
}

/// AARI of two dendrograms (scipy linkage matrices) over the cuts into each `k` of `levels`
/// (Ghoshdastidar, Perrot & von Luxburg 2019, App. B.1).
#[pyfunction]
fn aari(
    truth: PyReadonlyArray2<'_, f64>,
    pred: PyReadonlyArray2<'_, f64>,
    levels: Vec<usize>,
) -> PyResult<f64> {
    let (t, p) = (
        dendrogram_from_linkage(&truth, "linkage_true")?,
        dendrogram_from_linkage(&pred, "linkage_pred")?,
    );
    compclust::metrics::aari::aari(&t, &p, &levels).map_err(Raise::py)
}

/// Dasgupta cost of a dendrogram under a dense similarity matrix (Ghoshdastidar, Perrot &
/// von Luxburg 2019, App. B.2).
#[pyfunction]
fn dasgupta_cost(
    z: PyReadonlyArray2<'_, f64>,
    similarity: PyReadonlyArray2<'_, f64>,
) -> PyResult<f64> {
    let d = dendrogram_from_linkage(&z, "linkage")?;
    let s = similarity.as_array();
    let flat: Vec<f64> = s.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    let sim = DenseSimilarity::new(s.nrows(), flat).map_err(Raise::py)?;
    compclust::metrics::dasgupta::dasgupta_cost(&d, &sim).map_err(Raise::py)
}

/// The library's read options from the Python arguments (`kind`, `format` by name).
fn read_options(
    kind: Option<&str>,
    format: Option<&str>,
    items: Option<compclust::data::ItemIndex>,
) -> PyResult<ReadOptions> {
    Ok(ReadOptions {
        kind: kind
            .map(str::parse)
            .transpose()
            .map_err(|e| parameter_error(format!("kind: {e}")))?,
        format: format
            .map(str::parse)
            .transpose()
            .map_err(|e| parameter_error(format!("format: {e}")))?,
        items,
    })
}

/// Comparisons from a file in any supported format: `(rows, items, kind)`, rows as an int64
/// array of item indices into `items`. A file that cannot be read is an `OSError`.
#[pyfunction]
#[pyo3(signature = (path, kind=None, format=None))]
fn load_comparisons<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    kind: Option<&str>,
    format: Option<&str>,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Vec<String>, String)> {
    let opts = read_options(kind, format, None)?;
    let ds = interrupt::detach(py, || read_comparisons(&path, &opts))?.map_err(Raise::py)?;
    let (flat, width): (Vec<i64>, usize) = match &ds.comparisons {
        Comparisons::Triplets(v) => (v.iter().flat_map(|t| t.items().map(i64::from)).collect(), 3),
        Comparisons::Quadruplets(v) => {
            (v.iter().flat_map(|q| q.items().map(i64::from)).collect(), 4)
        }
        Comparisons::SameCluster(v) => (
            v.iter()
                .flat_map(|s| [i64::from(s.a), i64::from(s.b), s.answer as i64])
                .collect(),
            3,
        ),
    };
    Ok((
        matrix(py, flat.len() / width, width, flat)?,
        ds.items.labels().to_vec(),
        ds.comparisons.kind().name().to_string(),
    ))
}

/// The MNIST t-SNE points and digits (Perrot, Esser & Ghoshdastidar 2020, §5;
/// [`compclust::data::datasets::load_mnist_tsne`]): `(points n × 2, labels)`.
#[pyfunction]
fn load_mnist_tsne<'py>(
    py: Python<'py>,
    points: std::path::PathBuf,
    labels: std::path::PathBuf,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<usize>)> {
    let (p, l) = interrupt::detach(py, || {
        compclust::data::datasets::load_mnist_tsne(&points, &labels)
    })?
    .map_err(Raise::py)?;
    let n = p.len();
    let flat: Vec<f64> = p.into_iter().flatten().collect();
    Ok((matrix(py, n, 2, flat)?, l))
}

/// The UCI Zoo feature table (Ghoshdastidar, Perrot & von Luxburg 2019, §5;
/// [`compclust::data::datasets::load_zoo`]): `(features n × d, classes, item names, feature
/// names)`.
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
    let t =
        interrupt::detach(py, || compclust::data::datasets::load_zoo(&path))?.map_err(Raise::py)?;
    let (n, d) = (t.features.len(), t.feature_names.len());
    let flat: Vec<f64> = t.features.into_iter().flatten().collect();
    Ok((
        matrix(py, n, d, flat)?,
        t.labels,
        t.items.labels().to_vec(),
        t.feature_names,
    ))
}

/// Bytes a sampler needs per comparison: the distinct ids drawn (8), the rows (16) and the
/// numpy copy (32).
const SAMPLE_BYTES: u128 = 56;

/// `LimitError` unless `n_comparisons` sampled comparisons fit in memory.
fn check_sample_size(n_comparisons: usize) -> PyResult<()> {
    limits::check_memory(
        &format_args!("n_comparisons = {n_comparisons}"),
        "sampling the comparisons",
        (n_comparisons as u128).checked_mul(SAMPLE_BYTES),
    )
}

/// Sampled comparisons as a `(rows, width)` flat row-major vector.
fn sampled_rows<S: compclust::simulate::Similarity + ?Sized>(
    sim: &S,
    n_comparisons: usize,
    eps: f64,
    quadruplets: bool,
    seed: u64,
) -> Result<(Vec<i64>, usize), compclust::simulate::OracleError> {
    Ok(if quadruplets {
        let q = sample_quadruplets(sim, n_comparisons, eps, seed)?;
        (q.iter().flat_map(|q| q.items().map(i64::from)).collect(), 4)
    } else {
        let t = sample_triplets(sim, n_comparisons, eps, seed)?;
        (t.iter().flat_map(|t| t.items().map(i64::from)).collect(), 3)
    })
}

/// Passive comparisons drawn from feature vectors (Perrot, Esser & Ghoshdastidar 2020,
/// App. F.3): the similarity is the `kernel` (`gaussian`, `gaussian:<γ>` or `cosine`) of the
/// rows of `x`; `n_comparisons` distinct queries are drawn uniformly and answered correctly
/// with probability `(1 + eps)/2`.
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
    check_sample_size(n_comparisons)?;
    let a = x.as_array(); // stride-aware
    let (n, d) = (a.nrows(), a.ncols());
    let flat: Vec<f64> = a.rows().into_iter().flat_map(|r| r.to_vec()).collect();
    let kernel: Kernel = kernel
        .parse()
        .map_err(|e| parameter_error(format!("kernel: {e}")))?;
    let sim = FeatureSimilarity::new(n, d, flat, kernel).map_err(Raise::py)?;
    let (rows, width) = interrupt::detach(py, || {
        sampled_rows(&sim, n_comparisons, eps, quadruplets, seed)
    })?
    .map_err(Raise::py)?;
    matrix(py, rows.len() / width, width, rows)
}

/// Comparison rows and the planted cluster of each item.
type Planted<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<i64>>);

/// The planted model of Perrot, Esser & Ghoshdastidar 2020, §2, with passive comparisons:
/// `(rows, truth labels)`. `n_comparisons = None` draws the library's default budget
/// n·(ln n)³ (capped); the seed rule is the library's (`PlantedInstance::sample`), so the rows
/// equal `compclust simulate planted`'s.
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
) -> PyResult<Planted<'py>> {
    use compclust::models::flat::PlantedInstance;
    use compclust::simulate::Budget;
    limits::check_memory(
        &format_args!("n = {n}"),
        "the planted model",
        (n as u128).checked_mul(16),
    )?;
    if let Some(m) = n_comparisons {
        check_sample_size(m)?;
    }
    let instance = PlantedInstance {
        n,
        k,
        family: family.parse().map_err(Raise::py)?,
        delta,
        eps,
        quadruplets,
        budget: n_comparisons.map_or(Budget::DEFAULT, Budget::Exactly),
    };
    let (labels, flat, width) = interrupt::detach(py, || -> PyResult<_> {
        let (model, comparisons) = instance
            .sample(seed)
            .map_err(|e| exc::ModelError::new_err(e.to_string()))?;
        let (flat, width): (Vec<i64>, usize) = match comparisons {
            Comparisons::Quadruplets(q) => {
                (q.iter().flat_map(|q| q.items().map(i64::from)).collect(), 4)
            }
            Comparisons::Triplets(t) => {
                (t.iter().flat_map(|t| t.items().map(i64::from)).collect(), 3)
            }
            Comparisons::SameCluster(_) => {
                return Err(exc::ModelError::new_err(
                    "a planted instance has no same-cluster answers",
                ));
            }
        };
        let labels: Vec<i64> = model.labels().iter().map(|&l| l as i64).collect();
        Ok((labels, flat, width))
    })??;
    Ok((
        matrix(py, flat.len() / width, width, flat)?,
        labels.into_pyarray(py),
    ))
}

/// An SDP solve's diagnostics as a dict (the keys are the fields of [`SdpInfo`]; `problem`
/// is `"sdp-k"` or `"sdp-lambda"`, with its `k` or `lambda`).
fn sdp_info_dict<'py>(py: Python<'py>, info: &SdpInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let (problem, k, lambda) = match info.problem {
        SdpProblem::K(k) => ("sdp-k", Some(k), None),
        SdpProblem::Lambda(l) => ("sdp-lambda", None, Some(l)),
    };
    d.set_item("problem", problem)?;
    d.set_item("k", k)?;
    d.set_item("lambda", lambda)?;
    d.set_item("iterations", info.iterations)?;
    d.set_item("primal_residual", info.primal_residual)?;
    d.set_item("dual_residual", info.dual_residual)?;
    d.set_item("gap", info.gap)?;
    d.set_item("cone_residual", info.cone_residual)?;
    d.set_item("objective", info.objective)?;
    d.set_item("dual_objective", info.dual_objective)?;
    d.set_item("trace", info.trace)?;
    d.set_item("converged", info.converged)?;
    d.set_item("eig_full", info.eig_full)?;
    d.set_item("eig_partial", info.eig_partial)?;
    d.set_item("eig_inertia", info.eig_inertia)?;
    d.set_item("inertia_certified", info.inertia_certified)?;
    d.set_item("full_from", info.full_from)?;
    d.set_item("trials_returned", info.trials_returned)?;
    d.set_item("rho", info.rho)?;
    d.set_item("seconds", info.seconds)?;
    let steps = PyDict::new(py);
    let t = &info.projection_seconds;
    steps.set_item("partial", t.partial)?;
    steps.set_item("reduction", t.reduction)?;
    steps.set_item("tridiagonal", t.tridiagonal)?;
    steps.set_item("back_transformation", t.back_transformation)?;
    steps.set_item("assembly", t.assembly)?;
    d.set_item("projection_seconds", steps)?;
    Ok(d)
}

/// Dense `n × n` f64 matrices flat clustering holds at once: the similarity, the SDP's cost,
/// iterates and dual variables, the eigensolver's basis and workspace, and SPUR's kept solution.
const FLAT_MATRICES: u128 = 10;

/// Refuses an SDP tolerance or a SPUR first-pass tolerance outside (0, 1), under the Python
/// argument's name.
fn check_tolerances(sdp_tol: f64, spur_refine: Option<f64>) -> PyResult<()> {
    compclust::sdp::check_tol("sdp_tol", sdp_tol).map_err(Raise::py)?;
    if let Some(t) = spur_refine {
        compclust::sdp::check_tol("spur_refine", t).map_err(Raise::py)?;
    }
    Ok(())
}

/// Flat clustering (Perrot, Esser & Ghoshdastidar 2020): AddS or MulK similarity, SDP-k, and
/// SPUR when `n_clusters` is None (two-pass: every SDP to `spur_refine` first, then to `sdp_tol`
/// where k̂ needs it; `None`: every SDP to `sdp_tol`). Returns a dict: `labels` (int64 array),
/// `n_clusters`, `spur` (one dict per SDP-k solved: `k`, `theta`, `lambda`, `tol`,
/// `theta_loose`, `theta_uncertainty`, `solves`, `info`) and `solver_info` (the
/// final solve's diagnostics, see [`sdp_info_dict`]; empty for one item).
#[pyfunction]
#[pyo3(signature = (x, y, n_items, n_clusters, similarity, partition, seed, sdp_tol=1e-4, spur_refine=Some(compclust::sdp::spur::DEFAULT_REFINE_TOL), progress=None))]
#[allow(clippy::too_many_arguments)]
fn cluster_flat<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, i64>,
    y: Option<PyReadonlyArray1<'py, i64>>,
    n_items: Option<u64>,
    n_clusters: Option<usize>,
    similarity: &str,
    partition: &str,
    seed: u64,
    sdp_tol: f64,
    spur_refine: Option<f64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    check_tolerances(sdp_tol, spur_refine)?;
    let similarity = similarity
        .parse::<SimilarityKind>()
        .map_err(|e| parameter_error(format!("similarity: {e}")))?;
    let partition = partition
        .parse::<PartitionMethod>()
        .map_err(|e| parameter_error(format!("partition: {e}")))?;
    let q = comparisons_from_arrays(&x, y)?;
    let items = items_of(n_items, &q)?;
    limits::check_dense(
        items,
        limits::MAX_DENSE_ITEMS,
        FLAT_MATRICES,
        "flat clustering (similarity and SDP)",
    )?;
    if let Some(k) = n_clusters
        && k as u64 > items.n
    {
        return Err(parameter_error(format!(
            "n_clusters = {k} is more than the {} items",
            items.n
        )));
    }
    let data = Dataset::numbered(items.n as usize, q.comparisons).map_err(Raise::py)?;
    let params = FlatParams::new()
        .with_similarity(similarity)
        .with_partition(partition)
        .with_n_clusters(n_clusters.map_or(NClusters::Auto, NClusters::K))
        .with_seed(seed)
        .with_sdp_tol(sdp_tol)
        .with_spur_refine(spur_refine);
    let fit =
        interrupt::detach_observed(py, progress, |o| params.fit(&data, o))?.map_err(Raise::py)?;
    flat_result(py, &fit)
}

/// The result dict of a flat clustering (see [`cluster_flat`]).
fn flat_result<'py>(py: Python<'py>, fit: &FlatClustering) -> PyResult<Bound<'py, PyDict>> {
    let spur = fit.spur.as_ref().map_or(&[][..], |s| &s.table[..]);
    let rows = spur
        .iter()
        .map(|row| -> PyResult<Bound<'py, PyDict>> {
            let d = PyDict::new(py);
            d.set_item("k", row.k)?;
            d.set_item("theta", row.theta)?;
            d.set_item("lambda", row.lambda)?;
            d.set_item("tol", row.tol)?;
            d.set_item("theta_loose", row.theta_loose)?;
            d.set_item("theta_uncertainty", row.theta_uncertainty)?;
            d.set_item("solves", row.solves)?;
            d.set_item("info", sdp_info_dict(py, &row.info)?)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let labels: Vec<i64> = fit.labels.iter().map(|&l| l as i64).collect();
    let d = PyDict::new(py);
    d.set_item("labels", labels.into_pyarray(py))?;
    d.set_item("n_clusters", fit.k_hat)?;
    d.set_item("spur", rows)?;
    d.set_item(
        "solver_info",
        match &fit.sdp_info {
            Some(info) => sdp_info_dict(py, info)?,
            None => PyDict::new(py),
        },
    )?;
    Ok(d)
}

/// Flat clustering of a comparisons file of any size: AddS-3 / AddS-4 is built while the file
/// is read, chunk by chunk ([`compclust::similarity::adds_from_file`]; memory is the `n × n`
/// similarity, not the rows), then SDP-k / SPUR as in [`cluster_flat`]. The dict also holds
/// `items` (the item labels, in the order of `labels`) and `n_comparisons`.
#[pyfunction]
#[pyo3(signature = (path, kind, format, items, n_clusters, partition, seed, sdp_tol=1e-4, spur_refine=Some(compclust::sdp::spur::DEFAULT_REFINE_TOL), progress=None))]
#[allow(clippy::too_many_arguments)]
fn cluster_file<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    kind: Option<&str>,
    format: Option<&str>,
    items: Option<std::path::PathBuf>,
    n_clusters: Option<usize>,
    partition: &str,
    seed: u64,
    sdp_tol: f64,
    spur_refine: Option<f64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    check_tolerances(sdp_tol, spur_refine)?;
    let partition = partition
        .parse::<PartitionMethod>()
        .map_err(|e| parameter_error(format!("partition: {e}")))?;
    let items = match items {
        Some(p) => {
            Some(interrupt::detach(py, || compclust::data::read_items(&p))?.map_err(Raise::py)?)
        }
        None => None,
    };
    let opts = read_options(kind, format, items)?;
    let params = FlatParams::new()
        .with_partition(partition)
        .with_n_clusters(n_clusters.map_or(NClusters::Auto, NClusters::K))
        .with_seed(seed)
        .with_sdp_tol(sdp_tol)
        .with_spur_refine(spur_refine);
    let (fit, labels, n_comparisons) =
        interrupt::detach_observed(py, progress, |o| -> PyResult<_> {
            let (s, _, summary) = adds_from_file(&path, &opts).map_err(|e| match e {
                StreamError::Read(e) => Raise::py(e),
                StreamError::Similarity(e) => Raise::py(e),
            })?;
            if let Some(k) = n_clusters
                && k > s.n_items()
            {
                return Err(parameter_error(format!(
                    "n_clusters = {k} is more than the {} items",
                    s.n_items()
                )));
            }
            let fit = params.fit_similarity(&s, o).map_err(Raise::py)?;
            Ok((fit, summary.items.labels().to_vec(), s.n_comparisons))
        })??;
    let d = flat_result(py, &fit)?;
    d.set_item("items", labels)?;
    d.set_item("n_comparisons", n_comparisons)?;
    Ok(d)
}

/// Answers same-cluster queries by calling a Python function `oracle(i, j) -> int`. The first
/// Python exception (raised by the oracle, an answer that is not a non-negative int, or
/// Ctrl-C) stops the run (the query is reported unanswered) and is re-raised.
struct PyOracle<'py> {
    f: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl PyOracle<'_> {
    fn ask(&self, p: &Pair) -> PyResult<u32> {
        self.f.py().check_signals()?;
        let v = self.f.call1((p.a, p.b))?;
        if !v.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "oracle({}, {}) returned {} of type {}: it must return an int",
                p.a,
                p.b,
                v.repr()?,
                v.get_type().name()?
            )));
        }
        v.extract::<u32>().map_err(|_| {
            data_error(format!(
                "oracle({}, {}) returned {}: answers are counts in 0..={}",
                p.a,
                p.b,
                v,
                u32::MAX
            ))
        })
    }
}

impl Oracle<Pair, u32> for PyOracle<'_> {
    fn answer(&mut self, p: &Pair) -> Option<u32> {
        if self.error.is_some() {
            return None;
        }
        match self.ask(p) {
            Ok(a) => Some(a),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Collected same-cluster answers `(i, j, answer)` as rows, checked like the file reader does
/// (items in `0..n_items`, two different items, an answer from 0 to
/// [`limits::MAX_SHARED_CLUSTERS`](compclust::limits::MAX_SHARED_CLUSTERS)); several answers to
/// one pair stay separate rows, for the aggregation.
fn same_cluster_rows(rows: &PyReadonlyArray2<'_, i64>, n_items: usize) -> PyResult<Comparisons> {
    let rows = rows.as_array();
    if rows.ncols() != 3 {
        return Err(data_error(format!(
            "answers must have 3 columns (i, j, answer), got {}",
            rows.ncols()
        )));
    }
    let max = compclust::limits::MAX_SHARED_CLUSTERS;
    let mut out = Vec::with_capacity(rows.nrows());
    for (r, row) in rows.rows().into_iter().enumerate() {
        let (i, j, a) = (row[0], row[1], row[2]);
        for (c, v) in [(0, i), (1, j)] {
            if !(0..n_items as i64).contains(&v) {
                return Err(data_error(format!(
                    "answers row {r}, column {c}: item index {v} is not in 0..{n_items} \
                     (n_items = {n_items})"
                )));
            }
        }
        if i == j {
            return Err(data_error(format!(
                "answers row {r}: a query pairs two different items, got ({i}, {j})"
            )));
        }
        if !(0..=i64::from(max)).contains(&a) {
            return Err(data_error(format!(
                "answers row {r}, column 2: expected the number of shared clusters (an integer \
                 from 0 to {max}), got {a}"
            )));
        }
        out.push(compclust::data::SameCluster {
            a: i as u32,
            b: j as u32,
            answer: a as f64,
        });
    }
    Ok(Comparisons::SameCluster(out))
}

/// How several answers to one question are combined (`majority` or `dawid-skene`).
fn aggregation_of(name: &str) -> PyResult<Aggregation> {
    name.parse()
        .map_err(|e| parameter_error(format!("aggregate: {e}")))
}

/// Worker ids of the answer rows (`0..`, from Python's `np.unique`), one per row; none: every
/// row from one worker.
fn worker_ids(workers: Option<PyReadonlyArray1<'_, i64>>, rows: usize) -> PyResult<Vec<u32>> {
    let Some(w) = workers else {
        return Ok(Vec::new());
    };
    let w = w.as_array();
    if w.len() != rows {
        return Err(data_error(format!(
            "worker: one worker per answer row, got {} for {rows} rows",
            w.len()
        )));
    }
    w.iter()
        .enumerate()
        .map(|(r, &v)| {
            u32::try_from(v)
                .map_err(|_| data_error(format!("worker row {r}: worker id {v} is not in 0..2^32")))
        })
        .collect()
}

/// The aggregation report as a dict: `aggregation`, `answers`, `questions`,
/// `disagreements`, `undecided` and `workers` (a list of dicts: `worker`, `answers`,
/// `agreeing`, `accuracy`, the last one-coin Dawid–Skene's estimate or None).
fn aggregation_dict<'py>(py: Python<'py>, r: &AggregateReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("aggregation", r.aggregation.name())?;
    d.set_item("answers", r.answers)?;
    d.set_item("questions", r.questions)?;
    d.set_item("disagreements", r.disagreements)?;
    d.set_item("undecided", r.undecided)?;
    let workers = pyo3::types::PyList::empty(py);
    for w in &r.workers {
        let x = PyDict::new(py);
        x.set_item("worker", w.worker)?;
        x.set_item("answers", w.answers)?;
        x.set_item("agreeing", w.agreeing)?;
        x.set_item("accuracy", w.accuracy)?;
        workers.append(x)?;
    }
    d.set_item("workers", workers)?;
    Ok(d)
}

/// Bytes an overlap run holds per item: its membership row, its place in the sample and the
/// answers kept about it.
const OVERLAP_ITEM_BYTES: u128 = 256;

/// The kebab-case name of why an overlap run stopped.
fn stop_name(stop: &StopReason) -> &'static str {
    match stop {
        StopReason::Completed => "completed",
        StopReason::ComplementAmbiguity => "complement-ambiguity",
        StopReason::LevelsInseparable => "levels-inseparable",
        StopReason::FactorizationFailed { .. } => "factorization-failed",
        StopReason::RankDeficient { .. } => "rank-deficient",
        StopReason::Unresolved { .. } => "unresolved",
        StopReason::ClusterCountMismatch { .. } => "cluster-count-mismatch",
        StopReason::EnsembleMismatch { .. } => "ensemble-mismatch",
    }
}

/// Overlapping clusters from same-cluster queries (Huleihel, Mazumdar, Médard & Pal 2019),
/// answered by a Python callable or an int array of `(i, j, answer)` rows. Returns a dict:
/// `membership_matrix` (`n_items × n_clusters` int64 0/1 array, None when answers were
/// missing), `n_clusters`, `queries`, `missing` (`m × 2` int64 array of pairs) and `stop`.
#[pyfunction]
#[pyo3(signature = (method, n_items, k, delta, flip_prob, sample_size, seed, oracle=None, answers=None, ensemble=None, workers=None, aggregate="majority"))]
#[allow(clippy::too_many_arguments)]
fn overlap_fit<'py>(
    py: Python<'py>,
    method: &str,
    n_items: u64,
    k: Option<usize>,
    delta: Option<usize>,
    flip_prob: Option<f64>,
    sample_size: Option<usize>,
    seed: u64,
    oracle: Option<Bound<'py, PyAny>>,
    answers: Option<PyReadonlyArray2<'py, i64>>,
    ensemble: Option<&str>,
    workers: Option<PyReadonlyArray1<'py, i64>>,
    aggregate: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let items = Items::new(Some(n_items), 0);
    limits::check_index_range(items)?;
    limits::check_memory(
        &items,
        "overlapping clustering",
        u128::from(n_items).checked_mul(OVERLAP_ITEM_BYTES),
    )?;
    let n = n_items as usize;
    let params = OverlapParams {
        method: method
            .parse::<OverlapMethod>()
            .map_err(|e| parameter_error(format!("method: {e}")))?,
        k,
        delta,
        noise: Noise::Bsc { q: flip_prob },
        sample_size: sample_size.map_or(SampleSize::Auto, SampleSize::Fixed),
        probes: SampleSize::Auto,
        seed,
        ensemble: ensemble
            .map_or(Ok(Ensemble::Uniform), str::parse)
            .map_err(|e| parameter_error(format!("ensemble: {e}")))?,
    };
    let how = aggregation_of(aggregate)?;
    let d = PyDict::new(py);
    let outcome = match (oracle, answers) {
        (Some(f), None) => {
            let mut o = PyOracle { f, error: None };
            let out = params.run(n, &mut o);
            if let Some(e) = o.error {
                return Err(e);
            }
            out.map_err(Raise::py)?
        }
        (None, Some(rows)) => {
            let answers = same_cluster_rows(&rows, n)?;
            let of_row = worker_ids(workers, answers.len())?;
            let agg = aggregate_answers(&answers, &of_row, how);
            d.set_item("aggregation", aggregation_dict(py, &agg.report)?)?;
            let mut book = AnswerBook::new();
            if let Comparisons::SameCluster(decided) = &agg.comparisons {
                for r in decided {
                    // `same_cluster_rows` admits integers 0..=MAX_SHARED_CLUSTERS only
                    book.insert(r.a, r.b, r.answer as u32);
                }
            }
            interrupt::detach(py, || params.run(n, &mut book))?.map_err(Raise::py)?
        }
        _ => return Err(parameter_error("give exactly one of oracle= or answers=")),
    };
    match outcome {
        RunOutcome::Finished {
            output,
            queries,
            rounds,
        } => {
            let m = &output.membership;
            let k = m.n_clusters();
            let mut a = vec![0i64; m.n_items() * k];
            for (i, row) in m.rows().iter().enumerate() {
                for &c in row {
                    a[i * k + c as usize] = 1;
                }
            }
            d.set_item("membership_matrix", matrix(py, m.n_items(), k, a)?)?;
            d.set_item("n_clusters", k)?;
            d.set_item("queries", queries)?;
            d.set_item("rounds", rounds)?;
            d.set_item("missing", matrix(py, 0, 2, Vec::<i64>::new())?)?;
            d.set_item("stop", stop_name(&output.stop))?;
        }
        RunOutcome::Missing {
            missing,
            queries,
            rounds,
        } => {
            let pairs: Vec<i64> = missing
                .iter()
                .flat_map(|p| [i64::from(p.a), i64::from(p.b)])
                .collect();
            d.set_item("membership_matrix", py.None())?;
            d.set_item("n_clusters", 0)?;
            d.set_item("queries", queries)?;
            d.set_item("rounds", rounds)?;
            d.set_item("missing", matrix(py, missing.len(), 2, pairs)?)?;
            d.set_item("stop", "missing-answers")?;
        }
    }
    Ok(d)
}

/// The extension module `compclust._core`.
/// The `compclust` command line (the package's `compclust` console script): runs `argv`, the
/// program name first, without the GIL, and returns its exit status. The console script
/// restores the default SIGINT action first, so that Ctrl-C stops it as it stops the binary.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| compclust_cli::run(argv))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(overlap_fit, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_flat, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_file, m)?)?;
    m.add_function(wrap_pyfunction!(hierarchy, m)?)?;
    m.add_function(wrap_pyfunction!(cut_dendrogram, m)?)?;
    m.add_function(wrap_pyfunction!(tste, m)?)?;
    m.add_function(wrap_pyfunction!(soe, m)?)?;
    m.add_function(wrap_pyfunction!(forte, m)?)?;
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
    // SPUR's first-pass tolerance (`compclust::sdp::spur::DEFAULT_REFINE_TOL`), the default of
    // the estimators' `spur_refine`, so that Python and the CLI cannot drift apart.
    m.add(
        "DEFAULT_SPUR_REFINE",
        compclust::sdp::spur::DEFAULT_REFINE_TOL,
    )?;
    Ok(())
}
