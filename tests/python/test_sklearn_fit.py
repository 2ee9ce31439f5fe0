"""How compclust fits the Python ecosystem: held-out ``score`` for model selection (checked
against naive references), cblearn's sparse tensor input, ``verbose`` progress, metrics on any
label type, and the ``datasets`` namespace and Bunch loaders."""

import itertools
from pathlib import Path

import numpy as np
import pytest
from scipy.cluster.hierarchy import cophenet, linkage
from sklearn.model_selection import GridSearchCV

import compclust
from compclust import _score

ROOT = Path(__file__).resolve().parents[2]
_CANDIDATES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))
DATA = next((d for d in _CANDIDATES if d.is_dir()), None)
needs_data = pytest.mark.skipif(DATA is None, reason="skipping: shared/data not found")


# --- score: naive references -------------------------------------------------------------

def _naive_partition_score(labels, rows, w):
    total = agree = 0.0
    for row, wi in zip(rows, w):
        total += abs(wi)
        if min(row) < 0:
            continue
        p, q = (row[:2], row[2:]) if len(row) == 4 else ((row[0], row[1]), (row[0], row[2]))
        sp, sq = labels[p[0]] == labels[p[1]], labels[q[0]] == labels[q[1]]
        agree += wi * ((sp and not sq) - (sq and not sp))
    return agree / total if total else 0.0


def _naive_merge_step(Z, a, b):
    """The first row of the linkage after which a and b are in one cluster (replaying it)."""
    n = len(Z) + 1
    members = {i: {i} for i in range(n)}
    for s, (x, y, _, _) in enumerate(Z):
        members[n + s] = members.pop(int(x)) | members.pop(int(y))
        if a in members[n + s] and b in members[n + s]:
            return s
    raise AssertionError("never merged")


@pytest.mark.parametrize("seed", range(30))
def test_partition_agreement_matches_the_naive_count(seed):
    rng = np.random.default_rng(seed)
    n, width = int(rng.integers(2, 9)), int(rng.choice([3, 4]))
    labels = rng.integers(0, 3, size=n)
    rows = rng.integers(-1, n, size=(int(rng.integers(0, 25)), width))
    w = rng.choice([-2.0, -1.0, 1.0, 3.0], size=len(rows))
    assert _score.partition_agreement(labels, rows, w) == pytest.approx(
        _naive_partition_score(labels.tolist(), rows.tolist(), w.tolist()))


@pytest.mark.parametrize("seed", range(30))
def test_merge_steps_match_replaying_the_tree_and_scipy_cophenet(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    method = ["single", "complete", "average", "ward"][seed % 4]
    Z = linkage(rng.normal(size=(n, 2)), method=method)
    pairs = np.array([(a, b) for a, b in itertools.combinations(range(n), 2)] + [(0, 0)])
    got = _score.merge_steps(Z, pairs)
    want = [_naive_merge_step(Z, a, b) for a, b in pairs[:-1]]
    assert got[:-1].tolist() == want and got[-1] == -1
    # the same from scipy: cophenetic distances of the tree with each height set to its step
    ranked = Z.copy()
    ranked[:, 2] = np.arange(n - 1)
    assert np.array_equal(cophenet(ranked), got[:-1].astype(float))


def test_tree_agreement_of_a_tree_with_its_own_answers_is_one_and_reversed_minus_one():
    rng = np.random.default_rng(0)
    Z = linkage(rng.normal(size=(12, 2)), method="average")
    ranked = Z.copy()
    ranked[:, 2] = np.arange(11)
    steps = cophenet(ranked)  # condensed
    pairs = list(itertools.combinations(range(12), 2))
    step = {p: s for p, s in zip(pairs, steps)}
    rows = [(a, b, c, d) for (a, b), (c, d) in itertools.combinations(pairs, 2)
            if step[(a, b)] < step[(c, d)]][:300]
    X = np.array(rows)
    assert _score.tree_agreement(Z, X, np.ones(len(X))) == 1.0
    assert _score.tree_agreement(Z, X[:, [2, 3, 0, 1]], np.ones(len(X))) == -1.0


# --- score in model selection -------------------------------------------------------------

def test_grid_search_picks_the_planted_number_of_clusters():
    # n ln(n)^4 triplets: enough for exact recovery at this small n (as in tests/cluster.rs)
    X, _, truth = compclust.datasets.make_planted(n=90, k=3, n_comparisons=int(90 * np.log(90) ** 4),
                                                  seed=4)
    search = GridSearchCV(compclust.AddSClustering(n_items=90, random_state=0),
                          {"n_clusters": [2, 3, 5]}, cv=3).fit(X)
    assert search.best_params_ == {"n_clusters": 3}, search.cv_results_["mean_test_score"]
    assert compclust.adjusted_rand(truth, search.best_estimator_.labels_) == 1.0


def test_held_out_score_tells_a_right_partition_and_tree_from_wrong_ones():
    # On the planted model a held-out triplet follows the clusters with probability about
    # 0.6 (noisy similarities, then crowd noise), so a right partition scores about 0.18 and a
    # random one about 0.
    X, _, truth = compclust.datasets.make_planted(n=60, k=2, seed=1)
    train, test = X[:3000], X[3000:]
    good = compclust.AddSClustering(n_clusters=2, random_state=0).fit(train)
    rng = np.random.default_rng(0)
    Xi, w = _score.held_out_rows(test, None, None, 60)
    random = [_score.partition_agreement(rng.integers(0, 2, 60), Xi, w) for _ in range(20)]
    assert good.score(test) > 0.1 > max(random)
    assert good.score(test[:, [0, 2, 1]]) == pytest.approx(-good.score(test))
    assert good.score(test, np.zeros(len(test), dtype=bool)) == pytest.approx(-good.score(test))
    assert compclust.AddSClustering(n_clusters=1, random_state=0).fit(train).score(test) == 0.0
    # labels as strings: the score maps them through items_
    names = np.array([f"i{j:02d}" for j in range(60)], dtype=object)
    named = compclust.AddSClustering(n_clusters=2, random_state=0).fit(names[train])
    assert named.score(names[test]) == pytest.approx(good.score(test))
    Q, _, _ = compclust.datasets.make_planted(n=40, k=2, quadruplets=True, n_comparisons=8000,
                                              seed=0)
    tree = compclust.ComparisonHierarchy(method="4al").fit(Q[:5000])
    Qi, w = _score.held_out_rows(Q[5000:], None, None, 40)
    random_trees = [_score.tree_agreement(linkage(rng.normal(size=(40, 2))), Qi, w)
                    for _ in range(20)]
    assert tree.score(Q[5000:]) > 0.1 > max(random_trees)
    assert tree.score(Q[5000:, [2, 3, 0, 1]]) == pytest.approx(-tree.score(Q[5000:]))


# --- cblearn's sparse tensor ---------------------------------------------------------------

class _COO:
    """What ``sparse.COO`` holds: coords of shape (ndim, nnz), data, shape."""

    def __init__(self, rows, data, n):
        self.coords = np.asarray(rows).T
        self.data = np.asarray(data)
        self.shape = (n,) * np.asarray(rows).shape[1]


def test_sparse_tensor_input_fits_like_list_order_with_responses():
    X, _, _ = compclust.datasets.make_planted(n=60, k=3, seed=3)
    y = np.where(np.arange(len(X)) % 3 == 0, -1, 1)
    # the tensor holds each row as (anchor, far, near) with -1 where the answer is reversed
    rows = np.where((y == 1)[:, None], X, X[:, [0, 2, 1]])
    coo = _COO(rows, y, 60)
    a = compclust.AddSClustering(n_clusters=3, random_state=0).fit(rows, y).labels_
    b = compclust.AddSClustering(n_clusters=3, random_state=0).fit(coo).labels_
    assert np.array_equal(a, b)
    scipy_sparse = pytest.importorskip("scipy.sparse")
    try:
        nd = scipy_sparse.coo_array((y, tuple(rows.T)), shape=(60, 60, 60))
    except (TypeError, ValueError):
        pytest.skip("this scipy has no n-dimensional COO arrays")
    c = compclust.AddSClustering(n_clusters=3, random_state=0).fit(nd).labels_
    assert np.array_equal(a, c)


def test_sparse_tensor_with_a_bad_shape_or_y_is_refused():
    with pytest.raises(ValueError, match="3 .triplets. or 4"):
        compclust.AddSClustering().fit(_COO([[0, 1]], [1], 2))
    with pytest.raises(compclust.ParameterError, match="y"):
        compclust.AddSClustering().fit(_COO([[0, 1, 2]], [1], 3), [1])


# --- verbose ------------------------------------------------------------------------------

def test_verbose_reports_progress_on_stderr(capsys):
    X, _, _ = compclust.datasets.make_planted(n=60, k=2, seed=0)
    compclust.AddSClustering(random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert "[AddSClustering] fitting" in err and "[AddSClustering] SDP solve" in err, err
    compclust.AddSClustering(n_clusters=2, random_state=0).fit(X)
    assert capsys.readouterr().err == ""
    Q, _, _ = compclust.datasets.make_planted(n=30, k=2, quadruplets=True, seed=0)
    compclust.ComparisonHierarchy(verbose=1).fit(Q)
    err = capsys.readouterr().err
    assert "[ComparisonHierarchy] merge 29/29" in err, err


def test_an_exception_in_the_progress_callback_stops_the_fit():
    X, _, _ = compclust.datasets.make_planted(n=60, k=2, seed=0)

    def boom(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        compclust._core.cluster_flat(X, None, None, None, "adds", "kmeans", 0, 1e-4, progress=boom)


# --- metrics and datasets -----------------------------------------------------------------

def test_metrics_take_negative_and_string_labels():
    assert compclust.adjusted_rand([-1, -1, 0, 0, 5], ["a", "a", "b", "b", "c"]) == 1.0
    assert compclust.adjusted_rand(np.array([-1, 0, 1]), [0, 0, 0]) == 0.0


def test_the_datasets_namespace_exports_only_its_api():
    public = {n for n in dir(compclust.datasets) if not n.startswith("_")}
    assert public == set(compclust.datasets.__all__), public - set(compclust.datasets.__all__)


@needs_data
def test_car_bunch_has_the_authors_classes_from_any_folder():
    for where in (DATA, DATA / "car"):
        car = compclust.datasets.load_car(where)
        assert car.data.shape == (12112, 3) and len(car.item_labels) == 60
        counts = np.bincount(car.target)
        assert counts.tolist() == [24, 15, 17, 4]
        assert car.target_names[car.target[list(car.item_labels).index("21")]] == "outlier"


@needs_data
def test_food_bunch_names_the_dishes():
    food = compclust.datasets.load_food(DATA)
    assert food.data.shape == (250_320, 3) and food.target is None
    assert "Pain Perdu" in set(food.item_names)
    assert food.item_names[list(food.item_labels).index("167766958abf4eb0b714dac6c16ae063.jpg")] \
        == "Pain Perdu"


def test_a_folder_without_the_data_set_names_what_it_looked_for(tmp_path):
    with pytest.raises(FileNotFoundError, match="T_ALL_REDUCED.csv"):
        compclust.datasets.load_car(tmp_path)
