"""Loaders for the data sets the papers use, and planted-model generators.

The loaders take a local path (compclust downloads nothing): for example the copies in
``shared/data`` of the compclust repository's workspace, or files you fetched yourself.
"""

from __future__ import annotations

import numpy as np

from . import _core


def load_comparisons(path, kind=None, format=None):
    """Read comparisons from any format compclust understands (see docs/FORMATS.md): CSV/TSV
    with a header, cblearn lists, salmon ``responses.csv``, the car survey and preprocessed
    files, the food raw JSON (a file or a folder of them).

    Returns ``(X, items, kind)``: ``X`` int64 rows of indices into ``items`` (triplets
    ``(anchor, near, far)``, quadruplets ``(a, b, c, d)``, or same-cluster ``(a, b, answer)``),
    ``items`` the item labels, ``kind`` the name of the row kind. ``format`` forces the input
    format (``csv``, ``list-order``, ``list-boolean``, ``list-count``, ``salmon``, ``car-survey``,
    ``car-ordinal``, ``food-json``) where it cannot be detected, e.g. headerless files.
    """
    X, items, kind = _core.load_comparisons(str(path), kind, format)
    return np.asarray(X), np.asarray(items, dtype=object), kind


def load_car(path):
    """The car data (Kleindessner & von Luxburg 2017): ``survey_data.csv`` or one of the
    ``ordinal_data_preprocessed/*.csv`` files; most-central answers become two triplets each.
    Returns ``(X, items)``."""
    from pathlib import Path

    fmt = None if Path(path).name == "survey_data.csv" else "car-ordinal"
    X, items, _ = load_comparisons(path, format=fmt)
    return X, items


def load_food(path):
    """The food data (Wilber et al. 2014): a folder of raw grid JSON files (or one file);
    catch trials are skipped. Returns ``(X, items)`` with triplets."""
    X, items, _ = load_comparisons(path)
    return X, items


def make_planted(n=1000, k=4, family="normal", delta=0.5, eps=0.75, n_comparisons="auto",
                 quadruplets=False, seed=0):
    """Planted model of Perrot, Esser & Ghoshdastidar (2020), §2: ``k`` clusters of near-equal
    size, within-cluster similarities from F_in and across from F_out (``family``: normal,
    uniform, beta or uniform-normal, separated by ``delta``), and ``n_comparisons`` passive
    triplets (or quadruplets) answered correctly with probability ``(1 + eps) / 2``.
    ``"auto"`` draws ``n ln(n)^3`` comparisons, the paper's default.

    Returns ``(X, y, labels)``: ``X`` int64 rows in ``list-order`` form (``y`` is ``None``) and
    the true cluster of each item.
    """
    if n_comparisons == "auto":
        n_comparisons = int(n * np.log(n) ** 3)
    X, labels = _core.make_planted(int(n), int(k), str(family), float(delta), float(eps),
                                   int(n_comparisons), bool(quadruplets), int(seed))
    return np.asarray(X), None, np.asarray(labels, dtype=np.int64)
