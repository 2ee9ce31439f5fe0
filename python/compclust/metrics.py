"""Evaluation metrics: ARI, AARI (Ghoshdastidar et al. 2019, App. B.1), Dasgupta cost (Ghoshdastidar et al. 2019, App. B.2)."""

from __future__ import annotations

from typing import Iterable

import numpy as np
import numpy.typing as npt

from . import _core
from ._input import check_int


def _as_labels(name: str, labels: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Cluster labels as non-negative int64 codes: non-negative integers as given, any other
    labels (negative integers such as -1, cluster names such as ``"Drama"``, floats) numbered
    in sorted order."""
    a = np.asarray(labels)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype == bool:
        return a.astype(np.int64)
    if np.issubdtype(a.dtype, np.integer):
        too_big = a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max
        if too_big or (a.size and int(a.min()) < 0):
            # -1 (scikit-learn's "noise") and other negative labels are clusters like any other
            _, codes = np.unique(a, return_inverse=True)
            return codes.reshape(-1).astype(np.int64)
        return a.astype(np.int64, copy=False)
    if np.issubdtype(a.dtype, np.floating) and not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: labels must be finite, got {a[~np.isfinite(a)][0]}")
    try:
        _, codes = np.unique(a, return_inverse=True)
    except TypeError as e:
        raise TypeError(f"{name}: labels must be mutually comparable ({e})") from None
    return codes.reshape(-1).astype(np.int64)


def adjusted_rand(labels_true: npt.ArrayLike, labels_pred: npt.ArrayLike) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985) between two labelings of the same items.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Cluster labels of any kind: ints (``-1`` included), names (``"Drama"``, ``"Sci-Fi"``).

    Returns
    -------
    float
        1 for identical partitions (up to renaming), about 0 for independent ones.

    Examples
    --------
    >>> from compclust.metrics import adjusted_rand
    >>> adjusted_rand([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_rand(["Drama", "Drama", "Sci-Fi"], [0, 0, 1])
    1.0
    >>> adjusted_rand([-1, -1, 3, 3], [0, 0, 1, 1])
    1.0
    """
    a = _as_labels("labels_true", labels_true)
    b = _as_labels("labels_pred", labels_pred)
    return float(_core.adjusted_rand(a, b))


def aari(linkage_true: npt.ArrayLike, linkage_pred: npt.ArrayLike, levels: Iterable[int]) -> float:
    """Average adjusted Rand index of two dendrograms (Ghoshdastidar et al. 2019, App. B.1).

    The mean ARI of the cuts of both dendrograms into each number of clusters in ``levels``.

    Parameters
    ----------
    linkage_true, linkage_pred : array-like of shape (n_items - 1, 4)
        scipy linkage matrices, e.g. ``ComparisonHierarchy().fit(X).dendrogram_``.
    levels : iterable of int
        Numbers of clusters, e.g. ``[2, 4, 8]`` for a planted hierarchy of depth 3.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from compclust.metrics import aari
    >>> Z = np.array([[0, 1, 1.0, 2], [2, 3, 1.0, 2], [4, 5, 2.0, 4]])
    >>> aari(Z, Z, [2])
    1.0
    """
    t = np.asarray(linkage_true, dtype=np.float64)
    p = np.asarray(linkage_pred, dtype=np.float64)
    ks = [check_int("levels", k, minimum=1, maximum=2**64 - 1) for k in levels]
    return float(_core.aari(t, p, ks))


def dasgupta_cost(linkage: npt.ArrayLike, similarity: npt.ArrayLike) -> float:
    """Dasgupta cost of a dendrogram under a similarity matrix (Ghoshdastidar et al. 2019, App. B.2).

    The sum over pairs i < j of ``similarity[i, j]`` times the size of the smallest cluster of
    the dendrogram holding both. Lower is better.

    Parameters
    ----------
    linkage : array-like of shape (n_items - 1, 4)
        A scipy linkage matrix.
    similarity : array-like of shape (n_items, n_items)
        Symmetric similarities.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from compclust.metrics import dasgupta_cost
    >>> Z = np.array([[0, 1, 1.0, 2], [2, 3, 1.0, 2], [4, 5, 2.0, 4]])
    >>> S = np.ones((4, 4))
    >>> dasgupta_cost(Z, S)  # 2 pairs inside a cluster of 2, 4 pairs only in the root of 4
    20.0
    """
    z = np.asarray(linkage, dtype=np.float64)
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"similarity must be a square matrix, got shape {s.shape}")
    return float(_core.dasgupta_cost(z, s))
