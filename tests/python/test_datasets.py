"""compclust.datasets: MNIST t-SNE and Zoo loaders (on small files written here, and on the
real copies in shared/data when present), and comparisons drawn from features."""

from pathlib import Path

import numpy as np
import pytest

import compclust
from compclust.datasets import load_mnist_tsne, load_zoo, make_comparisons

ROOT = Path(__file__).resolve().parents[2]
_CANDIDATES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))
DATA = next((d for d in _CANDIDATES if d.is_dir()), None)
needs_data = pytest.mark.skipif(
    DATA is None, reason="skipping: shared/data not found (../shared/data or /work/shared/data)"
)


@pytest.fixture
def mnist_dir(tmp_path):
    pts = np.array([[-10.0, 4.0], [30.0, -6.0], [10.0, 0.0], [0.0, 2.0], [20.0, -2.0]])
    digits = [1, 7, 3, 1, 7]
    (tmp_path / "reduced_test_X.csv").write_text("".join(f"{float(x)!r},{float(y)!r}\n" for x, y in pts))
    (tmp_path / "test_labels.csv").write_text("".join(f"{d}\n" for d in digits))
    return tmp_path, pts, np.array(digits)


def test_mnist_loader_reads_points_and_digits(mnist_dir):
    d, pts, digits = mnist_dir
    for arg in (d, d / "reduced_test_X.csv", str(d)):
        X, y = load_mnist_tsne(arg)
        assert X.dtype == np.float64 and y.dtype == np.int64
        assert np.array_equal(X, pts) and np.array_equal(y, digits)


def test_mnist_digits_subset_and_normalisation(mnist_dir):
    d, pts, digits = mnist_dir
    X, y = load_mnist_tsne(d, digits=(1, 7))
    assert np.array_equal(y, [1, 7, 1, 7]) and np.array_equal(X, pts[[0, 1, 3, 4]])
    Xn, yn = load_mnist_tsne(d, normalize=True)
    assert Xn.min(axis=0).tolist() == [-1.0, -1.0] and Xn.max(axis=0).tolist() == [1.0, 1.0]
    # x: -10 → -1, 30 → 1, 10 → 0; y: -6 → -1, 4 → 1, 0 → 0.2
    assert Xn[2] == pytest.approx([0.0, 0.2])
    # Normalised over all points, before the subset.
    Xs, _ = load_mnist_tsne(d, digits=[3], normalize=True)
    assert np.array_equal(Xs, Xn[[2]])


def test_mnist_random_subset_is_seeded(mnist_dir):
    d, _, _ = mnist_dir
    a = load_mnist_tsne(d, n_samples=3, random_state=0)
    b = load_mnist_tsne(d, n_samples=3, random_state=0)
    assert np.array_equal(a[0], b[0]) and len(a[1]) == 3
    with pytest.raises(ValueError, match="n_samples"):
        load_mnist_tsne(d, n_samples=6)


def test_mnist_loader_errors_name_the_file(tmp_path, mnist_dir):
    d, _, _ = mnist_dir
    short = tmp_path / "labels_short.csv"
    short.write_text("1\n7\n")
    with pytest.raises(ValueError, match="labels_short.csv"):
        load_mnist_tsne(d / "reduced_test_X.csv", labels=short)
    bad = tmp_path / "bad.csv"
    bad.write_text("1.0,2.0\n3.0,oops\n")
    with pytest.raises(ValueError, match=r"bad\.csv.*line 2|line 2.*bad\.csv"):
        load_mnist_tsne(bad, labels=short)


ZOO_HEAD = "animal_name,hair,legs,class_type\n"


def test_zoo_loader(tmp_path):
    f = tmp_path / "zoo.csv"
    f.write_text(ZOO_HEAD + "aardvark,1,4,1\nfrog,0,4,5\nfrog,0,4,5\nbass,0,0,4\n")
    X, y, names = load_zoo(f)
    assert X.dtype == np.float64 and X.shape == (4, 2)
    assert np.array_equal(X[:, 1], [4, 4, 4, 0])
    assert np.array_equal(y, [1, 5, 5, 4]) and y.dtype == np.int64
    assert list(names) == ["aardvark", "frog", "frog#2", "bass"]
    X2, y2, names2, features = load_zoo(tmp_path, return_feature_names=True)
    assert features == ["hair", "legs"] and np.array_equal(X2, X)
    f.write_text(ZOO_HEAD + "aardvark,1,four,1\n")
    with pytest.raises(ValueError, match="legs"):
        load_zoo(f)


def _gaussian(F):
    d2 = ((F[:, None, :] - F[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2)


def test_make_comparisons_answers_from_the_kernel():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(12, 2))
    W = _gaussian(F)
    T = make_comparisons(F, n_comparisons=300, seed=1)
    assert T.shape == (300, 3)
    assert len({tuple(sorted(r[1:])) + (r[0],) for r in T.tolist()}) == 300  # distinct queries
    assert np.all(W[T[:, 0], T[:, 1]] >= W[T[:, 0], T[:, 2]])
    Q = make_comparisons(F, n_comparisons=300, quadruplets=True, seed=1)
    assert Q.shape == (300, 4)
    assert np.all(W[Q[:, 0], Q[:, 1]] >= W[Q[:, 2], Q[:, 3]])
    C = make_comparisons(F, n_comparisons=300, kernel="cosine", seed=1)
    U = F / np.linalg.norm(F, axis=1, keepdims=True)
    assert np.all((U @ U.T)[C[:, 0], C[:, 1]] >= (U @ U.T)[C[:, 0], C[:, 2]])
    # Same seed, same rows; any layout reads the same.
    assert np.array_equal(T, make_comparisons(np.asfortranarray(F), n_comparisons=300, seed=1))
    wide = np.zeros((12, 5))
    wide[:, 1:5:2] = F
    assert np.array_equal(T, make_comparisons(wide[:, 1:5:2], n_comparisons=300, seed=1))
    assert not np.array_equal(T, make_comparisons(F, n_comparisons=300, seed=2))


def test_make_comparisons_noise_and_errors():
    F = np.arange(20, dtype=float).reshape(10, 2)
    W = _gaussian(F)
    T = make_comparisons(F, n_comparisons=360, eps=0.2, seed=0)  # all 10 * C(9, 2) queries
    wrong = np.mean(W[T[:, 0], T[:, 1]] < W[T[:, 0], T[:, 2]])
    assert 0.25 < wrong < 0.55  # (1 - eps) / 2 = 0.4 flipped in expectation
    with pytest.raises(ValueError):
        make_comparisons(F, n_comparisons=361)  # more than there are distinct triplets
    with pytest.raises(ValueError, match="kernel"):
        make_comparisons(F, n_comparisons=5, kernel="laplace")
    assert make_comparisons(F).shape == (int(10 * np.log(10) ** 3), 3)  # "auto": n ln(n)^3


@needs_data
def test_real_mnist_tsne():
    X, y = load_mnist_tsne(DATA / "mnist_tsne")
    assert X.shape == (10_000, 2) and y.shape == (10_000,)
    assert set(y.tolist()) == set(range(10))
    X17, y17 = load_mnist_tsne(DATA / "mnist_tsne", digits=(1, 7), normalize=True)
    assert X17.shape == (2163, 2) and set(y17.tolist()) == {1, 7}
    assert X17.min() >= -1.0 and X17.max() <= 1.0
    X10, y10 = load_mnist_tsne(DATA / "mnist_tsne", n_samples=2000, random_state=0)
    assert X10.shape == (2000, 2) and len(set(y10.tolist())) == 10


@needs_data
def test_real_zoo():
    X, y, names, features = load_zoo(DATA / "zoo" / "zoo.csv", return_feature_names=True)
    assert X.shape == (100, 16) and len(features) == 16 and features[0] == "hair"
    assert set(y.tolist()) <= set(range(1, 8)) and len(set(y.tolist())) == 7
    assert "frog" in names and "frog#2" in names and "girl" not in names
    Q = make_comparisons(X, n_comparisons=2000, kernel="cosine", quadruplets=True, seed=0)
    Z = compclust.ComparisonHierarchy(method="4al", n_items=100).fit(Q).dendrogram_
    assert Z.shape == (99, 4)


@needs_data
def test_real_food_loads():
    X, items = compclust.datasets.load_food(DATA / "food" / "raw-json", return_X_items=True)
    assert X.shape == (250_320, 3) and len(items) == 100
