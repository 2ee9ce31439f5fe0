"""scikit-learn style estimators over ``compclust._core``.

Conventions follow scikit-learn: parameters are set in ``__init__`` and stored unchanged,
``fit`` returns ``self``, results end in ``_``. Inputs follow cblearn: ``X`` is an array of
queries (triplets ``(anchor, near, far)`` or quadruplets ``(a, b, c, d)``), ``y`` optional
boolean or count responses.
"""

from __future__ import annotations

import os
import sys
import time

from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import _core, _score
from ._errors import ParameterError
from ._input import (U64_MAX, RandomState, _aggregation_report, _worker_codes, as_queries,
                     check_float, check_int, check_random_state_seed, check_str)


def _progress(owner: str, verbose: Any, what: str) -> Optional[Callable[[int, int], None]]:
    """With ``verbose`` true: a callback ``(done, total)`` that prints ``[owner] what done/total``
    to standard error with the seconds since the fit started (each step at most once)."""
    if not verbose:
        return None
    start = time.perf_counter()
    print(f"[{owner}] fitting", file=sys.stderr, flush=True)

    def report(done: int, total: int) -> None:
        print(f"[{owner}] {what} {done}/{total} ({time.perf_counter() - start:.1f} s)",
              file=sys.stderr, flush=True)

    return report


class AddSClustering(ClusterMixin, BaseEstimator):
    """Flat clustering from comparisons: AddS-3/AddS-4 similarity, SDP, and SPUR to find k.

    Perrot, Esser & Ghoshdastidar, *Near-Optimal Comparison Based Clustering*, NeurIPS 2020.

    Parameters
    ----------
    n_clusters : "auto" or int
        ``"auto"`` chooses k with comparison-based SPUR (Algorithm 2 of the paper's appendix).
    similarity : {"adds", "mulk"}
        AddS-3/AddS-4 (the paper's method) or the MulK-3/MulK-4 baselines.
    partition : {"kmeans", "spectral"}
        How the partition is read off the SDP solution.
    n_items : int or None
        Number of items, when some items appear in no comparison.
    random_state : None, int or numpy generator
        Seed of the k-means / SDP randomness; an int makes ``fit`` deterministic.
    sdp_tol : float
        Stopping tolerance of the SDP solves (relative primal and dual residuals and duality
        gap).
    spur_refine : float or None
        SPUR's first pass: every SDP-k is solved to this looser tolerance, and only the solves
        whose θ could change k̂ are then solved to ``sdp_tol`` (docs/SOLVER.md, "Adaptive
        accuracy"; default ``compclust._core.DEFAULT_SPUR_REFINE``, 2e-3, as the CLI's
        ``--spur-refine``); ``None`` solves every SDP-k to ``sdp_tol``.
    verbose : int
        Above 0: report on standard error each SDP solve as it finishes (SPUR solves several).

    Attributes
    ----------
    labels_ : ndarray of shape (n_items,)
        The cluster of each item.
    n_clusters_ : int
        The number of clusters used (SPUR's estimate when ``n_clusters="auto"``).
    spur_ : list of dict
        One row per k tried by SPUR: ``k``, ``theta``, ``lambda`` (None for SDP-k), ``tol``
        (the tolerance the solve reached: SPUR solves every SDP-k to ``spur_refine`` first,
        1e-2 beside a θ already above its 0.99 stop, and tightens to ``sdp_tol`` only the
        solves that could change k̂), ``theta_loose`` (θ before tightening, or None), ``theta_uncertainty`` (how
        far a loose θ may still move), ``solves`` (how many times the SDP was solved: a coarse
        probing solve or a loose one may be solved again from its own state) and the solver's
        ``info`` (empty for fixed k).
    solver_info_ : dict
        The final SDP solve: ``problem`` (``"sdp-k"``), ``k``, ``iterations``,
        ``primal_residual``, ``dual_residual``, ``gap``, ``objective``, ``converged``, ... (the
        keys of ``compclust._core.SdpInfo``).
    items_ : ndarray or None
        The item labels when ``X`` held labels instead of indices (``labels_[i]`` is for
        ``items_[i]``).

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=120, k=3, seed=0)
    >>> model = compclust.AddSClustering(n_clusters="auto", random_state=0).fit(X, y)
    >>> model.n_clusters_
    3
    >>> compclust.adjusted_rand(truth, model.labels_)
    1.0
    """

    labels_: npt.NDArray[np.int64]
    n_clusters_: int
    spur_: List[Dict[str, Any]]
    solver_info_: Dict[str, Any]
    items_: Optional[npt.NDArray[Any]]

    def __init__(self, n_clusters: Union[str, int] = "auto", similarity: str = "adds",
                 partition: str = "kmeans", n_items: Optional[int] = None,
                 random_state: RandomState = None, sdp_tol: float = 1e-4,
                 spur_refine: Optional[float] = _core.DEFAULT_SPUR_REFINE,
                 verbose: int = 0) -> None:
        self.n_clusters = n_clusters
        self.similarity = similarity
        self.partition = partition
        self.n_items = n_items
        self.random_state = random_state
        self.sdp_tol = sdp_tol
        self.spur_refine = spur_refine
        self.verbose = verbose

    def fit(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> "AddSClustering":
        """Cluster the items of the comparisons ``X``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3) or (n_queries, 4)
            Triplets ``(anchor, near, far)`` or quadruplets ``(a, b, c, d)``: item indices or
            item labels (cblearn's ``list-order`` rows).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses (cblearn's ``list-boolean`` / ``list-count``).

        Returns
        -------
        self : AddSClustering
            The fitted estimator.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 1]]
        >>> compclust.AddSClustering(n_clusters=2, random_state=0).fit(X).labels_.shape
        (4,)
        """
        Xi, yi, items, n = as_queries(X, y, self.n_items)
        if isinstance(self.n_clusters, str):
            if self.n_clusters != "auto":
                raise ValueError(f"n_clusters must be 'auto' or a positive int, got {self.n_clusters!r}")
            k = None
        else:
            k = check_int("n_clusters", self.n_clusters, minimum=1, maximum=n)
        similarity = check_str("similarity", self.similarity)
        partition = check_str("partition", self.partition)
        sdp_tol = check_float("sdp_tol", self.sdp_tol)
        seed = check_random_state_seed(self.random_state)
        out = _core.cluster_flat(Xi, yi, self.n_items, k, similarity, partition, seed, sdp_tol,
                                 self._spur_refine(),
                                 _progress("AddSClustering", self.verbose, "SDP solve"))
        self.labels_ = out["labels"]
        self.n_clusters_ = out["n_clusters"]
        self.spur_ = out["spur"]
        self.solver_info_ = out["solver_info"]
        self.items_ = items
        return self

    def _spur_refine(self) -> Optional[float]:
        """``spur_refine`` checked: None, or a float in (0, 1)."""
        return check_float("spur_refine", self.spur_refine, allow_none=True)

    def fit_file(self, path: Union[str, "os.PathLike[str]"], *, kind: Optional[str] = None,
                 format: Optional[str] = None,
                 items: Optional[Union[str, "os.PathLike[str]"]] = None) -> "AddSClustering":
        r"""Cluster the items of a comparisons file of any size, streaming it.

        AddS-3 / AddS-4 is built while the file is read, chunk by chunk, so memory is the
        ``n x n`` similarity whatever the number of rows (the same reader and accumulator as
        ``compclust cluster``). Only the AddS similarity streams: ``similarity`` must be
        ``"adds"``.

        Parameters
        ----------
        path : str or path-like
            A comparisons file in any supported format (see ``compclust convert --help``).
        kind : str, optional
            Kind of a headerless CSV file (``triplets``, ``quadruplets``, ...).
        format : str, optional
            The file's format, when it should not be detected.
        items : str or path-like, optional
            An items file (one label per line) fixing the items and their order.

        Returns
        -------
        self : AddSClustering
            The fitted estimator; ``items_`` holds the item labels in the order of ``labels_``.

        Raises
        ------
        OSError
            When the file cannot be read.
        compclust.DataError
            When a line of the file is malformed (the message names file, line and field).

        Examples
        --------
        >>> import compclust, tempfile, os
        >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.csv")
        >>> _ = open(p, "w").write("anchor,near,far\na,b,c\nb,a,d\nc,d,a\nd,c,b\n")
        >>> m = compclust.AddSClustering(n_clusters=2, random_state=0).fit_file(p)
        >>> list(m.items_)
        ['a', 'b', 'c', 'd']
        """
        similarity = check_str("similarity", self.similarity)
        if similarity.lower() not in ("adds", "adds3", "adds4", "adds-3", "adds-4"):
            raise ParameterError(
                f"similarity: fit_file streams AddS only, got {similarity!r}; "
                "read the rows with compclust.datasets.load_comparisons and use fit")
        if isinstance(self.n_clusters, str):
            if self.n_clusters != "auto":
                raise ValueError(f"n_clusters must be 'auto' or a positive int, got {self.n_clusters!r}")
            k = None
        else:
            k = check_int("n_clusters", self.n_clusters, minimum=1)
        out = _core.cluster_file(
            os.fspath(path), check_str("kind", kind) if kind is not None else None,
            check_str("format", format) if format is not None else None,
            None if items is None else os.fspath(items), k,
            check_str("partition", self.partition), check_random_state_seed(self.random_state),
            check_float("sdp_tol", self.sdp_tol), self._spur_refine(),
            _progress("AddSClustering", self.verbose, "SDP solve"))
        self.labels_ = out["labels"]
        self.n_clusters_ = out["n_clusters"]
        self.spur_ = out["spur"]
        self.solver_info_ = out["solver_info"]
        self.items_ = np.asarray(out["items"], dtype=object)
        self.n_comparisons_ = int(out["n_comparisons"])
        return self

    def fit_predict(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None,
                    **kwargs: Any) -> npt.NDArray[np.int64]:
        """Fit and return ``labels_``.

        Parameters
        ----------
        X, y : see :meth:`fit`
        **kwargs : ignored
            For scikit-learn compatibility.

        Returns
        -------
        labels : ndarray of shape (n_items,)

        Examples
        --------
        >>> import compclust
        >>> X, y, truth = compclust.datasets.make_planted(n=60, k=2, seed=0)
        >>> labels = compclust.AddSClustering(n_clusters=2, random_state=0).fit_predict(X, y)
        >>> compclust.adjusted_rand(truth, labels)
        1.0
        """
        return self.fit(X, y).labels_

    def score(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> float:
        """Agreement of the clusters with held-out comparisons, for ``GridSearchCV``.

        A comparison agrees when its more similar pair is inside one cluster and the other pair
        is not, and disagrees in the opposite case; the score is (agreeing - disagreeing) / all,
        in ``[-1, 1]`` (0 for one cluster or for singletons, which decide nothing).

        Parameters
        ----------
        X : array-like of shape (n_queries, 3) or (n_queries, 4), or a sparse tensor
            Comparisons over the fitted items (indices, or labels when ``fit`` had labels);
            items the model was not fitted on count as undecided.
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        float

        Examples
        --------
        >>> import compclust
        >>> X, y, truth = compclust.datasets.make_planted(n=60, k=2, seed=0)
        >>> m = compclust.AddSClustering(n_clusters=2, random_state=0).fit(X[:3000])
        >>> m.score(X[3000:]) > 0.1  # random partitions score about 0
        True
        """
        check_is_fitted(self, "labels_")
        Xi, w = _score.held_out_rows(X, y, self.items_, len(self.labels_))
        return _score.partition_agreement(np.asarray(self.labels_), Xi, w)


def _empty_queries(n_items: Optional[int]) -> Any:
    """No answers yet (the first round of a study): ``n_items`` fixes the items."""
    if n_items is None:
        raise ParameterError(
            "n_items: the first round (no answers yet) needs n_items")
    n = check_int("n_items", n_items, minimum=1, maximum=U64_MAX)
    return np.empty((0, 4), dtype=np.int64), None, None, n


class ComparisonHierarchy(ClusterMixin, BaseEstimator):
    """Hierarchical clustering from comparisons (Ghoshdastidar, Perrot & von Luxburg, NeurIPS 2019).

    Parameters
    ----------
    method : {"4al", "4kal", "sl", "cl", "4kal-act"}
        4-AL (quadruplet average linkage, eq. 4-5), 4K-AL (average linkage on the quadruplet
        kernel: passive eq. 3 with ``fit(X)``, active eq. 2 with ``fit(answers=...)``; "4kal-act"
        is the same method), or comparison-based single / complete linkage (§3.1).
    n_clusters : int or None
        If set, ``labels_`` holds the cut of the dendrogram into this many clusters.
    n_items : int or None
        Number of items, when some items appear in no comparison (needed with ``answers=``
        unless the answers hold item labels).
    init_clusters : array-like of shape (n_items,) or None
        4-AL only: a partition merged first, at height 0 (4-AL-I3 / 4-AL-I5, §4.1).
    random_state : None, int or numpy generator
        Seed of the SL / CL sort pivots and of active 4K-AL's reference pairs. The rounds of one
        crowd study must keep it (the questions depend on it). 4-AL and passive 4K-AL are
        deterministic.
    references : int or None
        Active 4K-AL: number of reference pairs |R| (default 10).
    budget : int or None
        Active 4K-AL: as many reference pairs as this many questions allow (instead of
        ``references``).
    landmark_prob : float or None
        Active 4K-AL: landmark probability q (default 1; the paper's §4.1 uses ln N / N).
    aggregate : {"majority", "dawid-skene"}
        With ``fit(answers=...)``: how several answers to one question are combined: a
        majority vote (a tie asks the question again) or one-coin Dawid–Skene worker
        reliabilities estimated by EM (tell workers apart with ``worker=``).
    verbose : int
        Above 0: report the merges of a passive fit on standard error as they are made.

    Attributes
    ----------
    dendrogram_ : ndarray of shape (n_items - 1, 4)
        A scipy linkage matrix: usable with ``scipy.cluster.hierarchy.dendrogram``. Heights are
        the merge heights when they are non-negative and non-decreasing, else the merge rank.
        While answers are missing: the partial estimate of 4-AL on the answers given so far.
    labels_ : ndarray or None
        The cut into ``n_clusters`` clusters (``None`` when ``n_clusters`` is ``None``).
    items_ : ndarray or None
        The item labels when ``X`` held labels instead of indices.
    complete_ : bool
        False when ``fit(answers=...)`` found questions it could not answer.
    missing_ : ndarray of shape (n_missing, 4)
        The questions of the next crowd round (a, b, c, d): "is pair (a, b) more similar than
        pair (c, d)?". Append the answers (as asked, or with the pairs swapped when (c, d) was
        judged more similar) to ``answers`` and fit again.
    n_comparisons_ : int
        Passive: distinct informative comparisons used; active: questions answered.
    n_rounds_ : int
        Rounds of questions asked (active methods; 0 for passive 4-AL / 4K-AL).
    aggregation_ : dict or None
        With ``fit(answers=...)``: answers, distinct questions, disagreements, undecided
        (tied) questions and, per worker, its answers and how many agree with the aggregate.

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=60, k=2, quadruplets=True, seed=0)
    >>> h = compclust.ComparisonHierarchy(method="4al", n_clusters=2).fit(X, y)
    >>> h.dendrogram_.shape
    (59, 4)
    >>> from scipy.cluster.hierarchy import dendrogram
    >>> tree = dendrogram(h.dendrogram_, no_plot=True)
    """

    dendrogram_: npt.NDArray[np.float64]
    labels_: Optional[npt.NDArray[np.int64]]
    items_: Optional[npt.NDArray[Any]]
    complete_: bool
    missing_: npt.NDArray[Any]
    n_comparisons_: int
    n_rounds_: int
    aggregation_: Optional[Dict[str, Any]]

    def __init__(self, method: str = "4al", n_clusters: Optional[int] = None,
                 n_items: Optional[int] = None, init_clusters: Optional[npt.ArrayLike] = None,
                 random_state: RandomState = None, references: Optional[int] = None,
                 budget: Optional[int] = None, landmark_prob: Optional[float] = None,
                 aggregate: str = "majority", verbose: int = 0) -> None:
        self.method = method
        self.n_clusters = n_clusters
        self.n_items = n_items
        self.init_clusters = init_clusters
        self.random_state = random_state
        self.references = references
        self.budget = budget
        self.landmark_prob = landmark_prob
        self.aggregate = aggregate
        self.verbose = verbose

    def fit(self, X: Optional[npt.ArrayLike] = None, y: Optional[npt.ArrayLike] = None, *,
            answers: Optional[npt.ArrayLike] = None,
            worker: Optional[npt.ArrayLike] = None) -> "ComparisonHierarchy":
        """Build the dendrogram from a passive set ``X``, or run a crowd round on ``answers``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3) or (n_queries, 4)
            Triplets or quadruplets (item indices or labels). 4-AL and 4K-AL use triplets as
            quadruplets ``(i, j, i, k)``. SL / CL need the order of every pair they compare.
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.
        answers : array-like of shape (n_answers, 4), optional
            Instead of ``X``: the answers collected so far in a crowd study of an active method
            (sl, cl, 4kal-act); a row (a, b, c, d) says pair (a, b) was judged more similar.
            Several answers to one question are combined first (``aggregate``). The
            questions still to ask are in ``missing_``.
        worker : array-like of shape (n_answers,), optional
            With ``answers``: who gave each row (any labels).

        Returns
        -------
        self : ComparisonHierarchy
            The fitted estimator.

        Examples
        --------
        >>> import compclust
        >>> X, y, _ = compclust.datasets.make_planted(n=20, k=2, quadruplets=True, seed=0)
        >>> compclust.ComparisonHierarchy(method="4kal").fit(X, y).dendrogram_.shape
        (19, 4)
        >>> import numpy as np
        >>> h = compclust.ComparisonHierarchy(method="cl", n_items=6).fit(
        ...     answers=np.empty((0, 4), dtype=np.int64))
        >>> h.complete_, h.missing_.shape[1]
        (False, 4)
        """
        active = answers is not None
        if active == (X is not None):
            raise ParameterError("give exactly one of X or answers=")
        if active and y is not None:
            raise ParameterError("y is for X; answers= rows are the answers")
        if worker is not None and not active:
            raise ParameterError("worker= labels the rows of answers=; give answers=")
        rows = answers if active else X
        if active and np.asarray(rows).size == 0:
            rows = np.empty((0, 4), dtype=np.int64)
        workers, names = _worker_codes(worker, len(rows) if active else 0)
        method = check_str("method", self.method)
        first_round = active and len(rows) == 0
        Xi, yi, items, n = (_empty_queries(self.n_items) if first_round
                            else as_queries(rows, y, self.n_items))
        check_int("n_clusters", self.n_clusters, minimum=1, maximum=n, allow_none=True)
        init = None
        if self.init_clusters is not None:
            init = np.asarray(self.init_clusters, dtype=np.int64)
        # n_items=None lets the library name X in its size errors
        res = _core.hierarchy(
            Xi, yi, n if first_round else self.n_items, method, active=active, init_clusters=init,
            seed=check_random_state_seed(self.random_state),
            references=check_int("references", self.references, minimum=1, allow_none=True),
            budget=check_int("budget", self.budget, minimum=1, allow_none=True),
            landmark_prob=check_float("landmark_prob", self.landmark_prob, allow_none=True),
            workers=workers, aggregate=check_str("aggregate", self.aggregate),
            progress=_progress("ComparisonHierarchy", self.verbose, "merge"))
        self.aggregation_ = _aggregation_report(res.get("aggregation"), names)
        self.dendrogram_ = res["linkage"]
        self.complete_ = bool(res["complete"])
        missing = res["missing"]
        self.missing_ = missing if items is None else np.asarray(items)[missing]
        self.n_comparisons_ = int(res["comparisons"])
        self.n_rounds_ = int(res["rounds"])
        self.items_ = items
        self.labels_ = None if self.n_clusters is None else self.cut(self.n_clusters)
        return self

    def cut(self, k: int) -> npt.NDArray[np.int64]:
        """Labels of the flat clustering with ``k`` clusters read off the dendrogram.

        Parameters
        ----------
        k : int
            Number of clusters, ``1 <= k <= n_items``.

        Returns
        -------
        labels : ndarray of shape (n_items,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import compclust
        >>> X, y, _ = compclust.datasets.make_planted(n=20, k=2, quadruplets=True, seed=0)
        >>> h = compclust.ComparisonHierarchy().fit(X, y)
        >>> sorted(set(h.cut(3).tolist()))
        [0, 1, 2]
        """
        check_is_fitted(self, "dendrogram_")
        k = check_int("k", k, minimum=1, maximum=self.dendrogram_.shape[0] + 1)
        return np.asarray(_core.cut_dendrogram(self.dendrogram_, k), dtype=np.int64)

    def fit_predict(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None,
                    **kwargs: Any) -> npt.NDArray[np.int64]:
        """Fit and return the labels of the cut into ``n_clusters`` clusters.

        Parameters
        ----------
        X, y : see :meth:`fit`
        **kwargs : ignored
            For scikit-learn compatibility.

        Returns
        -------
        labels : ndarray of shape (n_items,)

        Examples
        --------
        >>> import compclust
        >>> X, y, _ = compclust.datasets.make_planted(n=20, k=2, quadruplets=True, seed=0)
        >>> compclust.ComparisonHierarchy(n_clusters=2).fit_predict(X, y).shape
        (20,)
        """
        if self.n_clusters is None:
            raise ValueError("fit_predict needs n_clusters")
        return self.fit(X, y).labels_

    def score(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> float:
        """Agreement of the dendrogram with held-out comparisons, for ``GridSearchCV``.

        A comparison agrees when its more similar pair is merged at an earlier step than the
        other pair, and disagrees when later; the score is (agreeing - disagreeing) / all, in
        ``[-1, 1]``. The whole tree is scored, whatever ``n_clusters``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3) or (n_queries, 4), or a sparse tensor
            Comparisons over the fitted items (indices, or labels when ``fit`` had labels);
            items the model was not fitted on count as undecided.
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        float

        Examples
        --------
        >>> import compclust
        >>> X, _, _ = compclust.datasets.make_planted(n=40, k=2, quadruplets=True,
        ...                                           n_comparisons=8000, seed=0)
        >>> h = compclust.ComparisonHierarchy(method="4al").fit(X[:5000])
        >>> h.score(X[5000:]) > 0.1  # random trees score about 0
        True
        """
        check_is_fitted(self, "dendrogram_")
        Xi, w = _score.held_out_rows(X, y, self.items_, self.dendrogram_.shape[0] + 1)
        return _score.tree_agreement(self.dendrogram_, Xi, w)


class TSTE(TransformerMixin, BaseEstimator):
    """t-distributed stochastic triplet embedding (van der Maaten & Weinberger, 2012).

    Parameters
    ----------
    n_components : int
        Dimension of the embedding.
    alpha : float or None
        Degrees of freedom of the Student-t kernel (``None``: ``n_components - 1``).
    lambd : float
        L2 regularisation.
    max_iter : int
        Maximum number of gradient iterations.
    n_items : int or None
        Number of items, when some items appear in no triplet.
    random_state : None, int or numpy generator
        Seed of the random initial embedding.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_items, n_components)
        One row per item.
    items_ : ndarray or None
        The item labels when ``X`` held labels instead of indices.

    Examples
    --------
    >>> import compclust, numpy as np
    >>> X, y, truth = compclust.datasets.make_planted(n=50, k=2, seed=1)
    >>> emb = compclust.TSTE(n_components=2, random_state=0).fit(X, y).embedding_
    >>> emb.shape
    (50, 2)
    """

    embedding_: npt.NDArray[np.float64]
    items_: Optional[npt.NDArray[Any]]

    def __init__(self, n_components: int = 2, alpha: Optional[float] = None, lambd: float = 0.0,
                 max_iter: int = 1000, n_items: Optional[int] = None,
                 random_state: RandomState = None) -> None:
        self.n_components = n_components
        self.alpha = alpha
        self.lambd = lambd
        self.max_iter = max_iter
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> "TSTE":
        """Embed the items of the triplets ``X``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3)
            Triplets ``(anchor, near, far)`` (item indices or labels).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        self : TSTE
            The fitted estimator.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 1]]
        >>> compclust.TSTE(random_state=0).fit(X).embedding_.shape
        (4, 2)
        """
        Xi, yi, items, n = as_queries(X, y, self.n_items)
        if Xi.shape[1] != 3:
            raise ValueError("X: TSTE needs triplets (3 columns)")
        n_components = check_int("n_components", self.n_components, minimum=1, maximum=U64_MAX)
        alpha = check_float("alpha", self.alpha, allow_none=True)
        lambd = check_float("lambd", self.lambd)
        max_iter = check_int("max_iter", self.max_iter, minimum=0, maximum=U64_MAX)
        seed = check_random_state_seed(self.random_state)
        self.embedding_ = _core.tste(Xi, yi, self.n_items, n_components, alpha, lambd, max_iter,
                                     seed)
        self.items_ = items
        return self

    def transform(self, X: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.float64]:
        """The embedding (comparison embeddings are transductive: ``X`` is ignored).

        scikit-learn's output wrapper makes ``X`` a required argument: pass the training
        comparisons (or ``None``).

        Returns
        -------
        embedding : ndarray of shape (n_items, n_components)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [2, 1, 0]]
        >>> model = compclust.TSTE(random_state=0).fit(X)
        >>> model.transform(X).shape
        (3, 2)
        """
        check_is_fitted(self, "embedding_")
        return self.embedding_

    def fit_transform(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None,
                      **kwargs: Any) -> npt.NDArray[np.float64]:
        """Fit and return ``embedding_``.

        Parameters
        ----------
        X, y : see :meth:`fit`
        **kwargs : ignored
            For scikit-learn compatibility.

        Returns
        -------
        embedding : ndarray of shape (n_items, n_components)

        Examples
        --------
        >>> import compclust
        >>> compclust.TSTE(n_components=3, random_state=0).fit_transform([[0, 1, 2]]).shape
        (3, 3)
        """
        return self.fit(X, y).embedding_

    def score(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> float:
        """Triplet accuracy: the fraction of the triplets ``X`` (responses ``y``) that the
        embedding satisfies.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3)
            Triplets over the fitted items (indices).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        float
            In ``[0, 1]``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [2, 1, 0]]
        >>> 0.0 <= compclust.TSTE(random_state=0).fit(X).score(X) <= 1.0
        True
        """
        check_is_fitted(self, "embedding_")
        Xi, yi, _, _ = as_queries(X, y, self.embedding_.shape[0])
        return float(_core.triplet_accuracy(np.ascontiguousarray(self.embedding_), Xi, yi))


class _TripletEmbedding(TransformerMixin, BaseEstimator):
    """What SOE and FORTE share with TSTE: ``transform``, ``fit_transform`` and ``score``."""

    embedding_: npt.NDArray[np.float64]
    items_: Optional[npt.NDArray[Any]]

    def _triplets(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike], n_items: Optional[int]
                  ) -> Any:
        Xi, yi, items, n = as_queries(X, y, n_items)
        if Xi.shape[1] != 3:
            raise ValueError(f"X: {type(self).__name__} needs triplets (3 columns)")
        return Xi, yi, items

    def transform(self, X: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.float64]:
        """The embedding (comparison embeddings are transductive: ``X`` is ignored).

        Returns
        -------
        embedding : ndarray of shape (n_items, n_components)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [2, 1, 0]]
        >>> compclust.SOE(random_state=0).fit(X).transform(X).shape
        (3, 2)
        """
        check_is_fitted(self, "embedding_")
        return self.embedding_

    def fit_transform(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None,
                      **kwargs: Any) -> npt.NDArray[np.float64]:
        """Fit and return ``embedding_``.

        Parameters
        ----------
        X, y : see ``fit``
        **kwargs : ignored
            For scikit-learn compatibility.

        Returns
        -------
        embedding : ndarray of shape (n_items, n_components)

        Examples
        --------
        >>> import compclust
        >>> compclust.FORTE(n_components=3, random_state=0).fit_transform([[0, 1, 2]]).shape
        (3, 3)
        """
        return self.fit(X, y).embedding_  # type: ignore[attr-defined,no-any-return]

    def score(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> float:
        """Triplet accuracy: the fraction of the triplets ``X`` (responses ``y``) that the
        embedding satisfies (use held-out triplets to compare embeddings).

        Parameters
        ----------
        X : array-like of shape (n_queries, 3)
            Triplets over the fitted items (indices).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        float
            In ``[0, 1]``.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [2, 1, 0]]
        >>> 0.0 <= compclust.SOE(random_state=0).fit(X).score(X) <= 1.0
        True
        """
        check_is_fitted(self, "embedding_")
        Xi, yi, _, _ = as_queries(X, y, self.embedding_.shape[0])
        return float(_core.triplet_accuracy(np.ascontiguousarray(self.embedding_), Xi, yi))


class SOE(_TripletEmbedding):
    """Soft ordinal embedding (Terada & von Luxburg, *Local ordinal embedding*, ICML 2014, eq. 1).

    Minimises the mean squared hinge ``max(0, margin + |x_i - x_j| - |x_i - x_k|)^2`` over the
    triplets (i closer to j than to k) with L-BFGS, keeping the best of ``n_init`` random
    starts; the defaults are cblearn's ``SOE``.

    Parameters
    ----------
    n_components : int
        Dimension of the embedding.
    margin : float
        The hinge's margin (> 0).
    n_init : int
        Random starts; the one with the lowest loss is kept.
    max_iter : int
        Maximum number of L-BFGS iterations per start.
    n_items : int or None
        Number of items, when some items appear in no triplet.
    random_state : None, int or numpy generator
        Seed of the random starts.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_items, n_components)
        One row per item.
    items_ : ndarray or None
        The item labels when ``X`` held labels instead of indices.

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=50, k=2, seed=1)
    >>> compclust.SOE(n_components=2, random_state=0).fit(X, y).embedding_.shape
    (50, 2)
    """

    def __init__(self, n_components: int = 2, margin: float = 0.1, n_init: int = 10,
                 max_iter: int = 1000, n_items: Optional[int] = None,
                 random_state: RandomState = None) -> None:
        self.n_components = n_components
        self.margin = margin
        self.n_init = n_init
        self.max_iter = max_iter
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> "SOE":
        """Embed the items of the triplets ``X``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3)
            Triplets ``(anchor, near, far)`` (item indices or labels).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        self : SOE
            The fitted estimator.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 1]]
        >>> compclust.SOE(random_state=0).fit(X).embedding_.shape
        (4, 2)
        """
        Xi, yi, items = self._triplets(X, y, self.n_items)
        n_components = check_int("n_components", self.n_components, minimum=1, maximum=U64_MAX)
        margin = check_float("margin", self.margin)
        n_init = check_int("n_init", self.n_init, minimum=1, maximum=U64_MAX)
        max_iter = check_int("max_iter", self.max_iter, minimum=0, maximum=U64_MAX)
        seed = check_random_state_seed(self.random_state)
        self.embedding_ = _core.soe(Xi, yi, self.n_items, n_components, margin, n_init, max_iter,
                                    seed)
        self.items_ = items
        return self


class FORTE(_TripletEmbedding):
    """Fast ordinal triplet embedding (Jain, Jamieson & Nowak, NeurIPS 2016).

    Learns a rank-``n_components`` Gram matrix with the triplet logistic loss by projected
    gradient descent (onto positive semidefinite matrices of that rank and trace at most
    ``max_trace``), then embeds the items by its top eigenvectors. Each iteration takes an
    ``n x n`` eigendecomposition: at most 4000 items.

    Parameters
    ----------
    n_components : int
        Dimension of the embedding (rank of the Gram matrix).
    max_trace : float or None
        Trace bound of the Gram matrix (``None``: ``n_items * n_components``).
    max_iter : int
        Maximum number of projected-gradient iterations.
    n_items : int or None
        Number of items, when some items appear in no triplet.
    random_state : None, int or numpy generator
        Seed of the random start.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_items, n_components)
        One row per item (centred).
    items_ : ndarray or None
        The item labels when ``X`` held labels instead of indices.

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=50, k=2, seed=1)
    >>> compclust.FORTE(n_components=2, random_state=0).fit(X, y).embedding_.shape
    (50, 2)
    """

    def __init__(self, n_components: int = 2, max_trace: Optional[float] = None,
                 max_iter: int = 500, n_items: Optional[int] = None,
                 random_state: RandomState = None) -> None:
        self.n_components = n_components
        self.max_trace = max_trace
        self.max_iter = max_iter
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X: npt.ArrayLike, y: Optional[npt.ArrayLike] = None) -> "FORTE":
        """Embed the items of the triplets ``X``.

        Parameters
        ----------
        X : array-like of shape (n_queries, 3)
            Triplets ``(anchor, near, far)`` (item indices or labels).
        y : array-like of shape (n_queries,), optional
            Boolean or count responses.

        Returns
        -------
        self : FORTE
            The fitted estimator.

        Examples
        --------
        >>> import compclust
        >>> X = [[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 1]]
        >>> compclust.FORTE(random_state=0).fit(X).embedding_.shape
        (4, 2)
        """
        Xi, yi, items = self._triplets(X, y, self.n_items)
        n_components = check_int("n_components", self.n_components, minimum=1, maximum=U64_MAX)
        max_trace = check_float("max_trace", self.max_trace, allow_none=True)
        max_iter = check_int("max_iter", self.max_iter, minimum=0, maximum=U64_MAX)
        seed = check_random_state_seed(self.random_state)
        self.embedding_ = _core.forte(Xi, yi, self.n_items, n_components, max_trace, max_iter,
                                      seed)
        self.items_ = items
        return self
