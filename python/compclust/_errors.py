"""The exceptions compclust raises: one hierarchy under :class:`CompclustError`, a ``ValueError``.

The Rust extension raises these classes (it imports them from this module), so that
``except compclust.DataError`` catches bad data whether Python or Rust found it. A wrong type is
a ``TypeError``, a file that cannot be read an ``OSError`` and Ctrl-C a ``KeyboardInterrupt``:
none of those are :class:`CompclustError`.
"""

from __future__ import annotations

__all__ = [
    "CompclustError",
    "DataError",
    "EmbeddingError",
    "FlatError",
    "HierarchyError",
    "LimitError",
    "MetricError",
    "ModelError",
    "OverlapError",
    "ParameterError",
]


class CompclustError(ValueError):
    """Base class of the errors compclust reports; a ``ValueError``, so code that catches
    ``ValueError`` keeps working.

    Parameters
    ----------
    message : str
        What went wrong, naming the argument, row or file.

    Examples
    --------
    >>> import compclust, numpy as np
    >>> try:
    ...     compclust.AddSClustering().fit(np.array([[0, 1, 10**9]]))
    ... except compclust.CompclustError as e:
    ...     print(type(e).__name__, isinstance(e, ValueError))
    LimitError True
    """

    __module__ = "compclust"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class DataError(CompclustError):
    """Invalid input data: comparisons, responses, labels, answers or a file's content.

    Parameters
    ----------
    message : str
        Names the argument and row (or the file, line and field).

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.OverlapClustering(method="find-membership").fit(3, answers=[[0, 7, 1]])
    ... except compclust.DataError as e:
    ...     print(e)
    answers row 0, column 1: item index 7 is not in 0..3 (n_items = 3)
    """

    __module__ = "compclust"


class ParameterError(CompclustError):
    """A parameter outside its valid range.

    Parameters
    ----------
    message : str
        Names the parameter and its value.

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.TSTE(n_components=0).fit([[0, 1, 2]])
    ... except compclust.ParameterError as e:
    ...     print(e)
    n_components = 0 is out of range: must be at least 1
    """

    __module__ = "compclust"


class LimitError(CompclustError):
    """A size beyond a documented limit or beyond the memory the call would need; raised before
    anything is allocated.

    Parameters
    ----------
    message : str
        Names the argument, the size and the limit.

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.TSTE(n_items=10**9).fit([[0, 1, 2]])
    ... except compclust.LimitError as e:
    ...     print(str(e)[:50])
    n_items = 1000000000 with n_components = 2 is too
    """

    __module__ = "compclust"


class FlatError(CompclustError):
    """Flat clustering failed (AddS / MulK similarity, SDP, SPUR, partition).

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.AddSClustering(sdp_tol=2.0).fit([[0, 1, 2]])
    ... except compclust.FlatError as e:
    ...     print("sdp_tol" in str(e))
    True
    """

    __module__ = "compclust"


class HierarchyError(CompclustError):
    """Hierarchical clustering or a dendrogram failed (4-AL, 4K-AL, SL, CL, cuts).

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust, numpy as np
    >>> try:
    ...     compclust.aari(np.array([[0, 7, 1.0, 2]]), np.array([[0, 1, 1.0, 2]]), [1])
    ... except compclust.HierarchyError as e:
    ...     print(e)
    linkage_true: step 0: cluster id 7 is not an active cluster
    """

    __module__ = "compclust"


class EmbeddingError(CompclustError):
    """The t-STE embedding failed or was given invalid settings.

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.TSTE(alpha=-1.0).fit([[0, 1, 2]])
    ... except compclust.EmbeddingError as e:
    ...     print("alpha" in str(e))
    True
    """

    __module__ = "compclust"


class OverlapError(CompclustError):
    """Overlapping clustering from same-cluster queries failed or was given invalid settings.

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.OverlapClustering(method="find-membership").fit(1, oracle=lambda i, j: 0)
    ... except compclust.OverlapError as e:
    ...     print(e)
    need at least 2 items, got 1
    """

    __module__ = "compclust"


class MetricError(CompclustError):
    """An evaluation metric could not be computed from its inputs.

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.adjusted_rand([0, 1, 1], [0, 1])
    ... except compclust.MetricError as e:
    ...     print(e)
    the two inputs cover different numbers of items: 3 vs 2
    """

    __module__ = "compclust"


class ModelError(CompclustError):
    """A planted model or a comparison sampler was given invalid settings.

    Parameters
    ----------
    message : str

    Examples
    --------
    >>> import compclust
    >>> try:
    ...     compclust.datasets.make_planted(n=10, k=2, eps=2.0, seed=0)
    ... except compclust.ModelError as e:
    ...     print("eps" in str(e) or "noise" in str(e))
    True
    """

    __module__ = "compclust"
