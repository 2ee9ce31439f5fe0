"""Overlapping clusters from same-cluster queries (Huleihel, Mazumdar, Médard & Pal, NeurIPS 2019)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator

from . import _core
from ._input import (U64_MAX, RandomState, _aggregation_report, _worker_codes, check_float,
                     check_int, check_random_state_seed, check_str)


class OverlapClustering(BaseEstimator):
    """Recover overlapping memberships from same-cluster queries.

    The algorithm asks queries "how many clusters do items i and j share?" (or, for the
    quantized oracles, "do they share one?"). Answers come from a Python callable
    ``oracle(i, j) -> int`` or from an array of collected answers ``(i, j, answer)``.

    Parameters
    ----------
    method : {"find-membership", "find-similarity", "clique-cover", "triangle-count"}
        Algorithm 1 (disjoint clusters), Algorithm 2 with the factorisation of Alg. 4/5
        (direct answers), Algorithm 3/17 (quantized noiseless answers), or triangle counting
        (noisy quantized answers: Alg. 6/14 for the uniform ensemble, Alg. 9 for the i.i.d. one).
    n_clusters : int or None
        Number of clusters k (needed by find-similarity and triangle-count).
    delta : int or None
        Clusters per item Δ for the uniform ensemble (triangle-count).
    flip_prob : float or None
        Known flip probability q of a noisy quantized oracle (``None``: estimated, Alg. 14).
    sample_size : int or None
        Size of the sample S (``None``: the rule of the research note).
    random_state : None, int or numpy generator
    ensemble : {"uniform", "iid"} or str
        Membership model: ``"uniform"`` (Δ clusters per item), ``"iid"`` (every membership
        Bernoulli(p), p estimated) or ``"iid:P"`` (p known). Triangle counting runs Alg. 9
        for the i.i.d. ensemble (``flip_prob`` must then be given).

    Attributes
    ----------
    memberships_ : list of ndarray
        The clusters of each item.
    membership_matrix_ : ndarray of shape (n_items, n_clusters_)
    n_clusters_ : int
    n_queries_ : int
    stop_reason_ : str
    missing_ : ndarray of shape (m, 2)
        Queries the answers array lacked (then the estimate is not available); empty otherwise.
        A pair whose answers tie is asked again.
    aggregation_ : dict or None
        With ``answers=``: how the answers were combined, one answer per pair (``answers``,
        ``questions``, ``disagreements``, ``undecided`` and, per worker, its answers and how
        many agree with the aggregate). None with an oracle.

    Examples
    --------
    >>> import compclust, numpy as np
    >>> truth = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]])
    >>> oracle = lambda i, j: int(truth[i] @ truth[j] > 0)
    >>> m = compclust.OverlapClustering(method="clique-cover").fit(5, oracle=oracle)
    >>> m.n_queries_ <= 10
    True
    """

    memberships_: Optional[List[npt.NDArray[np.int64]]]
    membership_matrix_: Optional[npt.NDArray[np.int64]]
    n_clusters_: int
    n_queries_: int
    stop_reason_: str
    missing_: npt.NDArray[np.int64]
    aggregation_: Optional[Dict[str, Any]]

    def __init__(self, method: str = "find-similarity", n_clusters: Optional[int] = None,
                 delta: Optional[int] = None, flip_prob: Optional[float] = None,
                 sample_size: Optional[int] = None, random_state: RandomState = None,
                 ensemble: str = "uniform", aggregate: str = "majority") -> None:
        self.method = method
        self.n_clusters = n_clusters
        self.delta = delta
        self.flip_prob = flip_prob
        self.sample_size = sample_size
        self.random_state = random_state
        self.ensemble = ensemble
        self.aggregate = aggregate

    def fit(self, n_items: int, oracle: Optional[Callable[[int, int], int]] = None,
            answers: Optional[npt.ArrayLike] = None,
            worker: Optional[npt.ArrayLike] = None) -> "OverlapClustering":
        """Run the algorithm over ``n_items`` items.

        Parameters
        ----------
        n_items : int
            Number of items (``0 .. n_items - 1``).
        oracle : callable ``oracle(i, j) -> int``, optional
            Answers a same-cluster query (the number of shared clusters, or 0/1 for the
            quantized methods). An exception it raises stops the run and propagates.
        answers : array-like of int, shape (m, 3), optional
            Collected answers, rows ``(i, j, answer)``. Give exactly one of ``oracle`` and
            ``answers``. When a needed query is missing, ``memberships_`` is ``None`` and
            ``missing_`` lists the queries to collect. Several answers to one pair are
            combined first: a majority vote (a tie asks the pair again) or, with
            ``aggregate="dawid-skene"``, one-coin Dawid–Skene worker reliabilities.
        worker : array-like of shape (m,), optional
            With ``answers``: who gave each row (any labels), so that the aggregation can tell
            workers apart.

        Returns
        -------
        self : OverlapClustering
            The fitted estimator.

        Examples
        --------
        >>> import compclust, numpy as np
        >>> truth = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
        >>> answers = [[i, j, int(truth[i] @ truth[j])] for i in range(4) for j in range(i + 1, 4)]
        >>> m = compclust.OverlapClustering(method="find-membership").fit(4, answers=answers)
        >>> m.n_clusters_
        2
        """
        n_items = check_int("n_items", n_items, minimum=0, maximum=U64_MAX)
        if (oracle is None) == (answers is None):
            raise ValueError("give exactly one of oracle= (a callable) or answers= (an array)")
        if answers is not None:
            answers = np.asarray(answers)
            if answers.ndim != 2 or answers.shape[1] != 3 or not np.issubdtype(answers.dtype, np.integer):
                raise ValueError("answers must be an int array of rows (i, j, answer)")
            if answers.dtype == np.uint64 and answers.size and int(answers.max()) > np.iinfo(np.int64).max:
                raise ValueError(f"answers: value {int(answers.max())} does not fit a signed 64-bit integer")
            answers = answers.astype(np.int64, copy=False)
        elif not callable(oracle):
            raise TypeError("oracle must be a callable oracle(i, j) -> int")
        if worker is not None and answers is None:
            raise ValueError("worker= labels the rows of answers=; give answers= too")
        workers, names = _worker_codes(worker, 0 if answers is None else len(answers))
        method = check_str("method", self.method)
        k = check_int("n_clusters", self.n_clusters, minimum=1, maximum=U64_MAX, allow_none=True)
        delta = check_int("delta", self.delta, minimum=1, maximum=U64_MAX, allow_none=True)
        flip_prob = check_float("flip_prob", self.flip_prob, allow_none=True)
        sample_size = check_int("sample_size", self.sample_size, minimum=0, maximum=U64_MAX,
                                allow_none=True)
        ensemble = check_str("ensemble", self.ensemble)
        seed = check_random_state_seed(self.random_state)
        out = _core.overlap_fit(method, n_items, k, delta, flip_prob, sample_size, seed, oracle,
                                answers, ensemble, workers, check_str("aggregate", self.aggregate))
        self.aggregation_ = _aggregation_report(out.get("aggregation"), names)
        self.n_queries_ = out["queries"]
        self.missing_ = out["missing"]
        self.stop_reason_ = out["stop"]
        self.n_clusters_ = out["n_clusters"]
        A = out["membership_matrix"]
        self.membership_matrix_ = A
        self.memberships_ = None if A is None else [np.flatnonzero(row) for row in A]
        return self
