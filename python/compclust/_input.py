"""Turning user input (cblearn formats, item label arrays) into what ``compclust._core`` takes."""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._errors import ParameterError

#: What ``random_state`` accepts: ``None`` (fresh entropy), an int seed, or a numpy generator.
RandomState = Union[None, int, np.integer, np.random.RandomState, np.random.Generator]


def as_sparse_queries(X: Any, y: Optional[npt.ArrayLike]) -> Tuple[Any, Optional[npt.ArrayLike]]:
    """cblearn's ``tensor`` format as ``(rows, responses)``: a sparse COO array of shape
    ``(n, n, n)`` (triplets) or ``(n, n, n, n)`` (quadruplets) whose entry at ``(i, j, k)`` is the
    response to the row ``(i, j, k)`` (+1: as written, -1: reversed; a count repeats it).

    Any object with ``coords`` and ``data`` is read this way (``sparse.COO`` with ``coords`` of
    shape ``(ndim, nnz)``, ``scipy.sparse.coo_array`` with a tuple of index arrays); other input
    is returned unchanged.

    Examples
    --------
    >>> from compclust._input import as_sparse_queries
    >>> class COO:  # what sparse.COO holds
    ...     coords = [[0, 2], [1, 1], [2, 0]]
    ...     data = [1, -1]
    ...     shape = (3, 3, 3)
    >>> X, y = as_sparse_queries(COO(), None)
    >>> X.tolist(), y.tolist()
    ([[0, 1, 2], [2, 1, 0]], [1, -1])
    """
    if not (hasattr(X, "coords") and hasattr(X, "data")):
        return X, y
    if y is not None:
        raise ParameterError("y: a sparse comparison tensor holds its responses; give no y")
    coords = X.coords
    rows = np.stack([np.asarray(c) for c in coords], axis=1) if isinstance(coords, (tuple, list)) \
        else np.asarray(coords).T
    data = np.asarray(X.data)
    if rows.ndim != 2 or rows.shape[1] not in (3, 4) or len(data) != rows.shape[0]:
        raise ValueError(
            f"X: a sparse comparison tensor must have 3 (triplets) or 4 (quadruplets) "
            f"dimensions and one value per entry, got coordinates of shape {rows.shape}")
    if data.dtype != bool and not np.issubdtype(data.dtype, np.integer):
        if not np.all(np.isfinite(data)) or np.any(data != np.round(data)):
            raise ValueError("X: the values of a sparse comparison tensor must be integer counts")
        data = data.astype(np.int64)
    return rows.astype(np.int64), data


def as_queries(
    X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None, n_items: Optional[int] = None
) -> Tuple[npt.NDArray[np.int64], Optional[npt.NDArray[np.int64]], Optional[npt.NDArray[Any]], int]:
    """Validate a comparison array in one of cblearn's formats.

    Parameters
    ----------
    X : array-like of shape (n_queries, 3) or (n_queries, 4), or a sparse tensor
        One query per row: triplets ``(anchor, near, far)`` or quadruplets ``(a, b, c, d)``.
        Integer item indices, or item labels of any kind (strings, ...), which are numbered in
        sorted order and returned as ``items``. cblearn's sparse ``tensor`` format is read by
        :func:`as_sparse_queries`.
    y : array-like of shape (n_queries,), optional
        ``None`` (``list-order``: every row is the answer), booleans (``list-boolean``:
        ``False`` reverses the row) or integers (``list-count``: the sign says the direction,
        the magnitude repeats the answer, 0 is undecided).
    n_items : int, optional
        Number of items, when some items appear in no comparison (at least the largest index
        in ``X`` + 1).

    Returns
    -------
    X_int : ndarray of int64
        The rows as indices. The memory layout is kept (no copy when already int64): the Rust
        side reads arrays through stride-aware views.
    y_int : ndarray of int64 or None
        Signed counts (booleans become ±1).
    items : ndarray or None
        The sorted item labels when ``X`` held labels.
    n : int
        The number of items (``n_items`` when given).

    Examples
    --------
    >>> from compclust._input import as_queries
    >>> X, y, items, n = as_queries([["b", "a", "c"]], [False])
    >>> X.tolist(), y.tolist(), items.tolist(), n
    ([[1, 0, 2]], [-1], ['a', 'b', 'c'], 3)
    """
    n_items = check_int("n_items", n_items, minimum=1, maximum=U64_MAX, allow_none=True)
    X, y = as_sparse_queries(X, y)
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
            raise ValueError(f"X: item indices must be non-negative, got {int(Xi.min())}")
        n = int(Xi.max()) + 1
    elif X.dtype == bool or np.issubdtype(X.dtype, np.floating):
        raise ValueError(f"X must hold integer item indices or item labels, got dtype {X.dtype}")
    else:
        items, inverse = np.unique(X.ravel(), return_inverse=True)
        Xi = inverse.reshape(X.shape).astype(np.int64)
        n = len(items)
    if n_items is not None:
        if n_items < n:
            raise ParameterError(f"n_items = {n_items} but X uses item index {n - 1}")
        n = n_items
    yi = None
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have one response per row of X ({X.shape[0]}), got shape {y.shape}")
        if y.dtype == bool:
            yi = np.where(y, 1, -1).astype(np.int64)
        elif np.issubdtype(y.dtype, np.integer):
            if y.dtype == np.uint64 and y.size and int(y.max()) > np.iinfo(np.int64).max:
                raise ValueError(f"y: count {int(y.max())} does not fit a signed 64-bit integer")
            yi = y.astype(np.int64, copy=False)
        else:
            raise ValueError(f"y must be boolean or integer counts, got dtype {y.dtype}")
    return Xi, yi, items, n


def check_int(name: str, value: Any, *, minimum: Optional[int] = None,
              maximum: Optional[int] = None, allow_none: bool = False) -> Optional[int]:
    """An integer argument as a Python int, or a ``TypeError`` / ``ValueError`` naming it.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        ``int`` or numpy integer (``bool`` is refused: ``True`` is not a count).
    minimum, maximum : int, optional
        Inclusive bounds.
    allow_none : bool
        Whether ``None`` is accepted (and returned).

    Returns
    -------
    int or None

    Raises
    ------
    TypeError
        ``value`` is not an integer.
    compclust.ParameterError
        ``value`` is out of bounds (a ``ValueError``).

    Examples
    --------
    >>> from compclust._input import check_int
    >>> check_int("k", 3, minimum=1)
    3
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ParameterError(f"{name} = {v} is out of range: must be at least {minimum}")
    if maximum is not None and v > maximum:
        raise ParameterError(f"{name} = {v} is out of range: must be at most {maximum}")
    return v


def check_float(name: str, value: Any, *, allow_none: bool = False) -> Optional[float]:
    """A real-number argument as a Python float, or a ``TypeError`` naming it.

    Range checks are the library's (its messages name the parameter).

    Examples
    --------
    >>> from compclust._input import check_float
    >>> check_float("eps", 1)
    1.0
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} of type {type(value).__name__}")
    return float(value)


def check_str(name: str, value: Any) -> str:
    """A string argument, or a ``TypeError`` naming it.

    Examples
    --------
    >>> from compclust._input import check_str
    >>> check_str("method", "4al")
    '4al'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {value!r} of type {type(value).__name__}")
    return value


#: Largest 64-bit unsigned value: the Rust side takes sizes and seeds as u64.
U64_MAX = 2**64 - 1


def check_random_state_seed(random_state: RandomState) -> int:
    """A 64-bit seed for the Rust side from a scikit-learn style ``random_state``.

    Parameters
    ----------
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        ``None`` draws fresh entropy (not reproducible); an int is used as the seed; a
        generator is advanced by one draw.

    Returns
    -------
    int
        The seed.

    Examples
    --------
    >>> from compclust._input import check_random_state_seed
    >>> check_random_state_seed(7)
    7
    """
    if random_state is None:
        return int(np.random.default_rng().integers(0, 2**63 - 1))
    if isinstance(random_state, (int, np.integer)):
        return int(random_state) & (2**64 - 1)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    raise ValueError(f"random_state must be None, an int or a numpy random generator, got {random_state!r}")


def _worker_codes(worker: Any, n_rows: int) -> Tuple[Optional[npt.NDArray[np.int64]], Optional[np.ndarray]]:
    """Who gave each answer row, as codes ``0..`` for the library, and the labels they stand for.

    ``worker`` holds one label per row (numbers or strings); None when absent.
    """
    if worker is None:
        return None, None
    w = np.asarray(worker)
    if w.ndim != 1 or len(w) != n_rows:
        raise ParameterError(
            f"worker: one label per answer row, got shape {w.shape} for {n_rows} rows")
    names, codes = np.unique(w, return_inverse=True)
    return codes.astype(np.int64), names


def _aggregation_report(report: Optional[dict], names: Optional[np.ndarray]) -> Optional[dict]:
    """The library's aggregation report with each worker named by its label (not its code)."""
    if report is None:
        return None
    if names is not None:
        for w in report["workers"]:
            name = names[w["worker"]]
            w["worker"] = name.item() if isinstance(name, np.generic) else name
    else:
        report["workers"] = [dict(w, worker=None) for w in report["workers"]]
    return report
