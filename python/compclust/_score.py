"""Held-out comparison agreement: the ``score`` of the clusterers, so that scikit-learn's
model selection (``GridSearchCV``, ``cross_val_score``) can compare them on answers they were
not fitted on.

A comparison says that one pair of items is more similar than another: the triplet
``(a, near, far)`` compares the pairs ``(a, near)`` and ``(a, far)``, the quadruplet
``(a, b, c, d)`` compares ``(a, b)`` and ``(c, d)``.

- A partition agrees with a comparison when the first pair is inside one cluster and the
  second is not, and disagrees in the opposite case; otherwise it says nothing.
- A dendrogram agrees when the first pair is merged before the second (at an earlier step),
  and disagrees when after.

The score is ``(agreeing - disagreeing) / all`` comparisons (weighted by the response counts
``y``), in ``[-1, 1]``: 0 for a partition that decides nothing (one cluster, or singletons),
1 when every held-out answer is explained. Comparisons that name an item the model was not
fitted on count as undecided.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt


def held_out_rows(X: npt.ArrayLike, y: Optional[npt.ArrayLike], items: Optional[npt.NDArray[Any]],
                  n: int) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The rows of ``X`` as item indices (``-1`` for items the model does not know) and their
    signed weights (``+1``, or the response: ``False`` / a negative count reverses the row)."""
    from ._input import as_sparse_queries

    X, y = as_sparse_queries(X, y)
    A = np.asarray(X)
    if A.ndim != 2 or A.shape[1] not in (3, 4):
        raise ValueError(
            f"X must be a 2-D array with 3 (triplets) or 4 (quadruplets) columns, got shape {A.shape}")
    if items is not None:
        index = {label: i for i, label in enumerate(items.tolist())}
        Xi = np.array([[index.get(v, -1) for v in row] for row in A.tolist()],
                      dtype=np.int64).reshape(A.shape)
    elif np.issubdtype(A.dtype, np.integer):
        Xi = A.astype(np.int64)
        Xi[(Xi < 0) | (Xi >= n)] = -1
    else:
        raise ValueError(f"X must hold integer item indices (the model was fitted on indices), "
                         f"got dtype {A.dtype}")
    if y is None:
        w = np.ones(len(Xi))
    else:
        ya = np.asarray(y)
        if ya.ndim != 1 or ya.shape[0] != len(Xi):
            raise ValueError(f"y must have one response per row of X ({len(Xi)}), got shape {ya.shape}")
        w = np.where(ya, 1.0, -1.0) if ya.dtype == bool else ya.astype(np.float64)
    return Xi, w


def _pairs(Xi: npt.NDArray[np.int64]) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The two compared pairs of every row, as ``(rows, 2)`` arrays."""
    if Xi.shape[1] == 3:
        return Xi[:, [0, 1]], Xi[:, [0, 2]]
    return Xi[:, [0, 1]], Xi[:, [2, 3]]


def _score(sign: npt.NDArray[np.float64], w: npt.NDArray[np.float64]) -> float:
    total = np.abs(w).sum()
    return float((sign * w).sum() / total) if total > 0 else 0.0


def partition_agreement(labels: npt.NDArray[np.int64], Xi: npt.NDArray[np.int64],
                        w: npt.NDArray[np.float64]) -> float:
    """Agreement of a partition with the comparisons (see the module)."""
    known = (Xi >= 0).all(axis=1)
    p, q = _pairs(np.where(Xi >= 0, Xi, 0))
    same_p = labels[p[:, 0]] == labels[p[:, 1]]
    same_q = labels[q[:, 0]] == labels[q[:, 1]]
    sign = (same_p & ~same_q).astype(np.float64) - (same_q & ~same_p)
    return _score(np.where(known, sign, 0.0), w)


def merge_steps(linkage: npt.NDArray[np.float64], pairs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The step (row of the scipy linkage matrix) at which each pair of items is first in one
    cluster: their lowest common ancestor, by Tarjan's offline algorithm (linear in items and
    pairs). A pair of one item twice gets -1.

    Examples
    --------
    >>> import numpy as np
    >>> from compclust._score import merge_steps
    >>> Z = np.array([[0, 1, 1.0, 2], [2, 3, 1.5, 2], [4, 5, 3.0, 4]])  # ((0,1),(2,3))
    >>> merge_steps(Z, np.array([[0, 1], [3, 2], [1, 2], [0, 0]])).tolist()
    [0, 1, 2, -1]
    """
    n = linkage.shape[0] + 1
    children = linkage[:, :2].astype(np.int64)
    queries: list = [[] for _ in range(n)]
    for r, (a, b) in enumerate(pairs.tolist()):
        queries[a].append((b, r))
        queries[b].append((a, r))
    out = np.full(len(pairs), -1, dtype=np.int64)
    parent = list(range(2 * n - 1))
    ancestor = list(range(2 * n - 1))
    visited = [False] * n

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def join(up: int, node: int) -> None:
        parent[find(node)] = find(up)
        ancestor[find(up)] = up

    # Depth-first from the root (node 2n - 2); each frame is [node, next child].
    stack = [[2 * n - 2, 0]]
    while stack:
        frame = stack[-1]
        node = frame[0]
        if node < n:
            visited[node] = True
            for other, r in queries[node]:
                if visited[other] and other != node:
                    out[r] = ancestor[find(other)] - n
        elif frame[1] < 2:
            frame[1] += 1
            stack.append([int(children[node - n][frame[1] - 1]), 0])
            continue
        stack.pop()
        if stack:
            join(stack[-1][0], node)
    return out


def tree_agreement(linkage: npt.NDArray[np.float64], Xi: npt.NDArray[np.int64],
                   w: npt.NDArray[np.float64]) -> float:
    """Agreement of a dendrogram with the comparisons (see the module)."""
    known = (Xi >= 0).all(axis=1)
    p, q = _pairs(np.where(Xi >= 0, Xi, 0))
    steps = merge_steps(linkage, np.concatenate([p, q]))
    sp, sq = steps[: len(p)], steps[len(p):]
    sign = np.sign(sq - sp).astype(np.float64)
    return _score(np.where(known & (sp >= 0) & (sq >= 0), sign, 0.0), w)
