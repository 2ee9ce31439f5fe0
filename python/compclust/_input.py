"""Turning user input (cblearn formats, item label arrays) into what ``compclust._core`` takes."""

from __future__ import annotations

import numpy as np


def as_queries(X, y=None, n_items=None):
    """Validate a comparison array in one of cblearn's formats.

    ``X`` holds one query per row: 3 columns for triplets ``(anchor, near, far)`` or 4 for
    quadruplets ``(a, b, c, d)``. Rows are integer item indices, or item labels of any kind
    (strings, ...), which are numbered in sorted order and returned as ``items``.
    ``y`` is ``None`` (``list-order``: every row is the answer), booleans (``list-boolean``:
    ``False`` reverses the row) or integers (``list-count``: the sign says the direction, the
    magnitude repeats the answer, 0 is undecided).

    Returns ``(X_int64, y_int64_or_None, items_or_None, n_items)``. The arrays keep their memory
    layout (no copy when already int64): the Rust side reads them through stride-aware views.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] not in (3, 4):
        raise ValueError(
            f"X must be a 2-D array with 3 (triplets) or 4 (quadruplets) columns, got shape {X.shape}"
        )
    if X.shape[0] == 0:
        raise ValueError("X holds no comparisons")
    items = None
    if np.issubdtype(X.dtype, np.integer):
        Xi = X.astype(np.int64, copy=False)
        if Xi.min() < 0:
            raise ValueError("item indices must be non-negative")
        n = int(Xi.max()) + 1
    elif X.dtype == bool or np.issubdtype(X.dtype, np.floating):
        raise ValueError(f"X must hold integer item indices or item labels, got dtype {X.dtype}")
    else:
        items, inverse = np.unique(X.ravel(), return_inverse=True)
        Xi = inverse.reshape(X.shape).astype(np.int64)
        n = len(items)
    if n_items is not None:
        if n_items < n:
            raise ValueError(f"n_items={n_items} but X uses item index {n - 1}")
        n = int(n_items)
    yi = None
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have one response per row of X ({X.shape[0]}), got shape {y.shape}")
        if y.dtype == bool:
            yi = np.where(y, 1, -1).astype(np.int64)
        elif np.issubdtype(y.dtype, np.integer):
            yi = y.astype(np.int64, copy=False)
        else:
            raise ValueError(f"y must be boolean or integer counts, got dtype {y.dtype}")
    return Xi, yi, items, n


def check_random_state_seed(random_state):
    """A 64-bit seed from ``None``, an int or a ``numpy.random.RandomState``/``Generator``."""
    if random_state is None:
        return int(np.random.default_rng().integers(0, 2**63 - 1))
    if isinstance(random_state, (int, np.integer)):
        return int(random_state) & (2**64 - 1)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    raise ValueError(f"random_state must be None, an int or a numpy random generator, got {random_state!r}")
