"""The implementation of :mod:`compclust.datasets` (which exports only the public names).

Loaders for the data sets the papers use, and generators of comparisons.

The loaders take a local path (compclust downloads nothing): for example the copies in
``shared/data`` of the compclust repository's workspace, or files you fetched yourself. Files
are parsed by the Rust library (``compclust::data``), so errors name the file, line and field.

- Comparison data: :func:`load_comparisons` (any supported format), :func:`load_car`,
  :func:`load_food`.
- Feature data, to draw comparisons from: :func:`load_mnist_tsne` (Perrot et al. 2020, §5) and
  :func:`load_zoo` (Ghoshdastidar et al. 2019, §5), with :func:`make_comparisons`.
- Synthetic: :func:`make_planted` (the planted model of Perrot et al. 2020, §2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._input import RandomState, check_float, check_int, check_random_state_seed, check_str

PathLike = Union[str, Path]


def load_comparisons(
    path: PathLike, kind: Optional[str] = None, format: Optional[str] = None
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.object_], str]:
    """Read comparisons from any format compclust understands (see docs/FORMATS.md).

    CSV/TSV with a header, cblearn lists, salmon ``responses.csv``, the car survey and
    preprocessed files, the food raw JSON (a file or a folder of them).

    Parameters
    ----------
    path : str or Path
        A file, or a folder of food JSON files.
    kind : str, optional
        The row kind (``triplets``, ``quadruplets``, ``most-central``, ``odd-one-out``,
        ``same-cluster``) where the header does not say it.
    format : str, optional
        Force the input format (``csv``, ``list-order``, ``list-boolean``, ``list-count``,
        ``salmon``, ``car-survey``, ``car-ordinal``, ``food-json``) where it cannot be
        detected, e.g. headerless files.

    Returns
    -------
    X : ndarray of int64
        Rows of indices into ``items``: triplets ``(anchor, near, far)``, quadruplets
        ``(a, b, c, d)`` or same-cluster answers ``(a, b, answer)``.
    items : ndarray of object
        The item labels.
    kind : str
        The name of the row kind.

    Examples
    --------
    >>> import compclust, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("anchor,near,far\\ncat,lion,car\\n")
    >>> X, items, kind = compclust.datasets.load_comparisons(path)
    >>> X.tolist(), list(items), kind
    ([[0, 1, 2]], ['cat', 'lion', 'car'], 'triplets')
    """
    X, items, kind = _core.load_comparisons(str(path), kind, format)
    return np.asarray(X), np.asarray(items, dtype=object), kind


#: The classes of the 60 cars, by 1-based image number, as the data set's authors divided them
#: (Kleindessner & von Luxburg 2017; the README of the "60 Cars Data").
_CAR_CLASSES = {
    0: (2, 6, 7, 8, 9, 10, 11, 12, 16, 17, 25, 32, 35, 36, 37, 38, 39, 41, 44, 45, 46, 55, 58, 60),
    1: (15, 19, 20, 28, 40, 42, 47, 48, 49, 50, 51, 52, 54, 56, 59),
    2: (1, 3, 4, 5, 13, 14, 18, 22, 24, 26, 27, 29, 31, 33, 34, 43, 57),
    3: (21, 23, 30, 53),
}
_CAR_CLASS_NAMES = ["ordinary", "sports", "off-road / SUV", "outlier"]


def _find(path: PathLike, folder: str, default: str) -> Path:
    """``path`` itself when it is a file; else ``default`` inside ``path``, inside
    ``path/folder`` (``path`` is the data folder holding every data set)."""
    p = Path(path)
    if p.is_file():
        return p
    for candidate in (p / default, p / folder / default):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        f"{p}: neither a file nor a folder holding {default} or {folder}/{default}")


def load_car(path: PathLike, *, return_X_items: bool = False) -> Any:
    """The car data (Kleindessner & von Luxburg 2017): 60 cars, "most central of three" answers.

    Each answer "i is the most central of {i, j, k}" becomes two triplets, ``(j, i, k)`` and
    ``(k, i, j)`` (Perrot et al. 2020, App. F.1).

    Parameters
    ----------
    path : str or Path
        The data folder (holding ``car/``), the ``car`` folder, ``survey_data.csv`` or one of
        the ``ordinal_data_preprocessed/*.csv`` files. A folder means
        ``ordinal_data_preprocessed/T_ALL_REDUCED.csv``, the file the papers use (6,056
        answers, 12,112 triplets).
    return_X_items : bool, default False
        Return ``(data, items)`` instead of the Bunch.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data``: ndarray of int64, shape (n_triplets, 3), rows of item indices;
        ``item_labels``: the image numbers (``"1"`` .. ``"60"``) of the item indices;
        ``target``: the class of each item (0 ordinary, 1 sports, 2 off-road / SUV, 3 outlier,
        the authors' division); ``target_names``; ``DESCR``.

    Examples
    --------
    >>> import compclust
    >>> car = compclust.datasets.load_car("shared/data")  # doctest: +SKIP
    >>> car.data.shape, len(car.item_labels), car.target_names[car.target[0]]  # doctest: +SKIP
    ((12112, 3), 60, 'off-road / SUV')
    """
    from sklearn.utils import Bunch

    file = _find(path, "car", "ordinal_data_preprocessed/T_ALL_REDUCED.csv")
    fmt = None if file.name == "survey_data.csv" else "car-ordinal"
    X, items, _ = load_comparisons(file, format=fmt)
    if return_X_items:
        return X, items
    of_car = {car: c for c, cars in _CAR_CLASSES.items() for car in cars}
    target = np.array([of_car.get(int(i), -1) for i in items], dtype=np.int64)
    return Bunch(data=X, item_labels=items, target=target, target_names=list(_CAR_CLASS_NAMES),
                 DESCR=f"60 cars (Kleindessner & von Luxburg 2017): {len(X)} triplets from "
                       f"{file.name}; target: the authors' four classes.")


def load_food(path: PathLike, *, return_X_items: bool = False) -> Any:
    """The food data (Wilber, Kwak & Belongie 2014): 100 dishes, crowdsourced grid triplets.

    Every (probe, near, far) with ``near`` selected and ``far`` not selected on a screen is a
    triplet; catch trials are skipped.

    Parameters
    ----------
    path : str or Path
        The data folder (holding ``food/``), the ``food`` folder, its ``raw-json`` folder or
        one of its files.
    return_X_items : bool, default False
        Return ``(data, items)`` instead of the Bunch.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data``: ndarray of int64, shape (n_triplets, 3) (250,320 for the full folder);
        ``item_labels``: the image file names; ``item_names``: the dish names from
        ``ingredients.json`` when it is beside ``raw-json`` (the file name where it has none);
        ``target``: ``None`` (the data set has no classes); ``DESCR``.

    Examples
    --------
    >>> import compclust
    >>> food = compclust.datasets.load_food("shared/data")  # doctest: +SKIP
    >>> food.data.shape, food.item_names[0]  # doctest: +SKIP
    ((250320, 3), 'Cauliflower Gratin with Sharp Cheddar and Parmesan')
    """
    import json

    from sklearn.utils import Bunch

    p = Path(path)
    raw = next((c for c in (p / "raw-json", p / "food" / "raw-json") if c.is_dir()), p)
    X, items, _ = load_comparisons(raw)
    if return_X_items:
        return X, items
    names = items.copy()
    meta = (raw if raw.is_dir() else raw.parent).parent / "ingredients.json"
    if meta.is_file():
        dishes = json.loads(meta.read_text(encoding="utf-8"))
        for i, item in enumerate(items.tolist()):
            d = dishes.get(item)
            if isinstance(d, dict) and isinstance(d.get("name"), str) and d["name"].strip():
                names[i] = d["name"].strip()
    return Bunch(data=X, item_labels=items, item_names=names, target=None,
                 DESCR=f"Food-100 (Wilber, Kwak & Belongie 2014): {len(X)} triplets over "
                       f"{len(items)} dishes; no class labels.")


def load_mnist_tsne(
    path: PathLike,
    labels: Optional[PathLike] = None,
    *,
    digits: Optional[Iterable[int]] = None,
    n_samples: Optional[int] = None,
    normalize: bool = False,
    random_state: RandomState = None,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The 2-D t-SNE embedding of the 10,000 MNIST test digits used by Perrot et al. 2020 (§5).

    Parameters
    ----------
    path : str or Path
        The ``mnist_tsne`` folder (holding ``reduced_test_X.csv`` and ``test_labels.csv``), or
        the points file itself.
    labels : str or Path, optional
        The digits file; by default ``test_labels.csv`` beside the points file.
    digits : iterable of int, optional
        Keep only these digits, e.g. ``(1, 7)`` for "MNIST 1vs7" (2,163 points).
    n_samples : int, optional
        Keep a uniform random subset of this many points, drawn without replacement with
        ``random_state`` (after ``digits``), e.g. 2,000 for "MNIST 10".
    normalize : bool, default False
        Scale each coordinate linearly onto ``[-1, 1]`` using the minimum and maximum over all
        10,000 points (the papers' normalisation, done before any subset is taken).
    random_state : None, int or numpy generator
        For ``n_samples``.

    Returns
    -------
    X : ndarray of float64, shape (n, 2)
        The points, in file order (subsets keep the file order).
    y : ndarray of int64, shape (n,)
        The digit of each point.

    Examples
    --------
    >>> import compclust
    >>> X, y = compclust.datasets.load_mnist_tsne(
    ...     "shared/data/mnist_tsne", digits=(1, 7), normalize=True)  # doctest: +SKIP
    >>> X.shape, sorted(set(y.tolist()))  # doctest: +SKIP
    ((2163, 2), [1, 7])
    >>> T = compclust.datasets.make_comparisons(X, n_comparisons=50_000, seed=0)  # doctest: +SKIP
    >>> labels = compclust.AddSClustering(n_clusters=2, random_state=0).fit_predict(T)  # doctest: +SKIP
    """
    p = Path(path)
    points = p / "reduced_test_X.csv" if p.is_dir() else p
    label_file = Path(labels) if labels is not None else points.parent / "test_labels.csv"
    X, y = _core.load_mnist_tsne(str(points), str(label_file))
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    if normalize:
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = 2.0 * (X - lo) / span - 1.0
    keep = np.arange(len(y))
    if digits is not None:
        keep = keep[np.isin(y, np.fromiter(digits, dtype=np.int64))]
    if n_samples is not None:
        n_samples = check_int("n_samples", n_samples, minimum=0)
        if not n_samples <= len(keep):
            raise ValueError(f"n_samples={n_samples} but only {len(keep)} points are available")
        rng = np.random.default_rng(check_random_state_seed(random_state))
        keep = np.sort(rng.choice(keep, size=int(n_samples), replace=False))
    return X[keep], y[keep]


def load_zoo(
    path: PathLike, *, return_feature_names: bool = False
) -> Union[
    Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.object_]],
    Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.object_], List[str]],
]:
    """The UCI Zoo data (Ghoshdastidar et al. 2019, §5): animals described by 16 features, in 7 classes.

    Parameters
    ----------
    path : str or Path
        ``zoo.csv`` (header ``animal_name, hair, ..., class_type``), or its folder. A repeated
        animal name gets a suffix (``frog``, ``frog#2``).
    return_feature_names : bool, default False
        Also return the names of the feature columns.

    Returns
    -------
    X : ndarray of float64, shape (n_animals, 16)
        The features (``legs`` is a count, the others are 0/1).
    y : ndarray of int64, shape (n_animals,)
        ``class_type`` (1-7).
    names : ndarray of object
        The animal names.
    feature_names : list of str
        Only with ``return_feature_names=True``.

    Examples
    --------
    >>> import compclust
    >>> X, y, names = compclust.datasets.load_zoo("shared/data/zoo/zoo.csv")  # doctest: +SKIP
    >>> X.shape, names[0]  # doctest: +SKIP
    ((100, 16), 'aardvark')
    >>> Q = compclust.datasets.make_comparisons(X, 20_000, kernel="cosine", quadruplets=True,
    ...                                         seed=0)  # doctest: +SKIP
    >>> Z = compclust.ComparisonHierarchy(method="4al").fit(Q).dendrogram_  # doctest: +SKIP
    """
    p = Path(path)
    if p.is_dir():
        p = p / "zoo.csv"
    X, y, names, feature_names = _core.load_zoo(str(p))
    Xa = np.asarray(X, dtype=np.float64)
    ya = np.asarray(y, dtype=np.int64)
    na = np.asarray(names, dtype=object)
    if return_feature_names:
        return Xa, ya, na, list(feature_names)
    return Xa, ya, na


def make_comparisons(
    features: npt.ArrayLike,
    n_comparisons: Union[int, str] = "auto",
    kernel: str = "gaussian",
    eps: float = 1.0,
    quadruplets: bool = False,
    seed: int = 0,
) -> npt.NDArray[np.int64]:
    """Passive comparisons answered from feature vectors (Perrot et al. 2020, App. F.3).

    The similarity of items i and j is a kernel of their feature vectors:
    ``exp(-||x_i - x_j||^2 / gamma^2)`` (``"gaussian"``, gamma = 1 as in the papers' MNIST
    runs, or ``"gaussian:<gamma>"``) or the cosine similarity (``"cosine"``, used for Zoo).
    ``n_comparisons`` distinct queries are drawn uniformly without replacement and answered
    correctly with probability ``(1 + eps) / 2``.

    Parameters
    ----------
    features : array-like of float, shape (n_items, n_features)
        Any memory layout.
    n_comparisons : int or "auto"
        ``"auto"``: ``n ln(n)^3``, capped at the number of distinct queries.
    kernel : str
        ``"gaussian"``, ``"gaussian:<gamma>"`` or ``"cosine"``.
    eps : float in (0, 1]
        Crowd noise level (1: every answer is correct).
    quadruplets : bool
        Draw quadruplets ``(a, b, c, d)`` instead of triplets ``(anchor, near, far)``.
    seed : int
        Same seed, same comparisons.

    Returns
    -------
    X : ndarray of int64, shape (n_comparisons, 3) or (n_comparisons, 4)
        Rows in cblearn's ``list-order`` form (every row is the answer).

    Examples
    --------
    >>> import compclust, numpy as np
    >>> pts = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> T = compclust.datasets.make_comparisons(pts, n_comparisons=12, seed=0)
    >>> T.shape
    (12, 3)
    >>> compclust.AddSClustering(n_clusters=2, random_state=0).fit_predict(T).tolist()
    [0, 0, 1, 1]
    """
    F = np.asarray(features, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"features must be a 2-D array, got shape {F.shape}")
    n = F.shape[0]
    if isinstance(n_comparisons, str):
        if n_comparisons != "auto":
            raise ValueError(f"n_comparisons must be an int or 'auto', got {n_comparisons!r}")
        total = n * (n - 1) * (n - 2) // 2 if not quadruplets else _pairs(_pairs(n))
        n_comparisons = min(int(n * np.log(max(n, 2)) ** 3), total)
    n_comparisons = check_int("n_comparisons", n_comparisons, minimum=0, maximum=2**64 - 1)
    seed = check_int("seed", seed, minimum=0, maximum=2**64 - 1)
    return _core.sample_from_features(F, n_comparisons, check_str("kernel", kernel),
                                      check_float("eps", eps), bool(quadruplets), seed)


def _pairs(m: int) -> int:
    return m * (m - 1) // 2


def make_planted(
    n: int = 1000,
    k: int = 4,
    family: str = "normal",
    delta: float = 0.5,
    eps: float = 0.75,
    n_comparisons: Union[int, str] = "auto",
    quadruplets: bool = False,
    seed: int = 0,
) -> Tuple[npt.NDArray[np.int64], None, npt.NDArray[np.int64]]:
    """The planted model of Perrot, Esser & Ghoshdastidar (2020), §2, with passive comparisons.

    ``k`` clusters of near-equal size; within-cluster similarities from F_in and across from
    F_out (``family``), separated by ``delta``; ``n_comparisons`` passive triplets (or
    quadruplets) answered correctly with probability ``(1 + eps) / 2``.

    Parameters
    ----------
    n, k : int
        Items and clusters.
    family : {"normal", "uniform", "beta", "uniform-normal"}
        The distributions F_in / F_out.
    delta : float
        Separation of the within- and across-cluster means.
    eps : float in (0, 1]
        Crowd noise level.
    n_comparisons : int or "auto"
        ``"auto"`` draws ``round(n ln(n)^3)`` comparisons (capped at the number of distinct
        ones), the paper's default.
    quadruplets : bool
        Quadruplets instead of triplets.
    seed : int
        Same seed, same output: the rows are the comparisons that ``compclust simulate planted``
        writes with the same parameters and ``--seed`` (one seed rule for the library, the
        command line and the experiments).

    Returns
    -------
    X : ndarray of int64
        Rows in ``list-order`` form.
    y : None
        No responses are needed (every row is the answer); returned so that
        ``X, y, truth = make_planted(...)`` feeds ``fit(X, y)`` directly.
    labels : ndarray of int64, shape (n,)
        The planted cluster of each item.

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=40, k=2, n_comparisons=500, seed=1)
    >>> X.shape, y is None, truth.shape
    ((500, 3), True, (40,))
    """
    n = check_int("n", n, minimum=1, maximum=2**32 - 1)
    k = check_int("k", k, minimum=1, maximum=n)
    if isinstance(n_comparisons, str):
        if n_comparisons != "auto":
            raise ValueError(f"n_comparisons must be an int or 'auto', got {n_comparisons!r}")
        count = None
    else:
        count = check_int("n_comparisons", n_comparisons, minimum=0, maximum=2**64 - 1)
    seed = check_int("seed", seed, minimum=0, maximum=2**64 - 1)
    X, labels = _core.make_planted(n, k, check_str("family", family),
                                   check_float("delta", delta), check_float("eps", eps),
                                   count, bool(quadruplets), seed)
    return X, None, labels
