"""Evaluation metrics: ARI, AARI (paper 002 App. B.1), Dasgupta cost (002 App. B.2)."""

from __future__ import annotations

import numpy as np

from . import _core


def adjusted_rand(labels_true, labels_pred):
    """Adjusted Rand index (Hubert & Arabie 1985) between two labelings of the same items.

    >>> adjusted_rand([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    a = np.asarray(labels_true, dtype=np.int64)
    b = np.asarray(labels_pred, dtype=np.int64)
    return float(_core.adjusted_rand(a, b))


def aari(linkage_true, linkage_pred, levels):
    """Average ARI of two dendrograms (scipy linkage matrices) over their cuts into each number
    of clusters in ``levels`` (e.g. ``[2, 4, 8]`` for a planted hierarchy of depth 3)."""
    t = np.asarray(linkage_true, dtype=np.float64)
    p = np.asarray(linkage_pred, dtype=np.float64)
    return float(_core.aari(t, p, [int(k) for k in levels]))


def dasgupta_cost(linkage, similarity):
    """Dasgupta cost of a dendrogram (scipy linkage matrix) under an n × n similarity matrix:
    the sum over pairs of ``similarity[i, j]`` times the size of the smallest cluster holding
    both. Lower is better."""
    z = np.asarray(linkage, dtype=np.float64)
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"similarity must be a square matrix, got shape {s.shape}")
    return float(_core.dasgupta_cost(z, s))
