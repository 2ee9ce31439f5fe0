"""scikit-learn style estimators over ``compclust._core``.

Conventions follow scikit-learn: parameters are set in ``__init__`` and stored unchanged,
``fit`` returns ``self``, results end in ``_``. Inputs follow cblearn: ``X`` is an array of
queries (triplets ``(anchor, near, far)`` or quadruplets ``(a, b, c, d)``), ``y`` optional
boolean or count responses.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin

from . import _core
from ._input import as_queries, check_random_state_seed


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

    Attributes
    ----------
    labels_ : ndarray of shape (n_items,)
    n_clusters_ : int
    spur_ : list of dict
        One row per k tried by SPUR: ``k``, ``theta`` and the solver's info (empty for fixed k).
    solver_info_ : dict
        Iterations, residuals, duality gap and convergence of the final SDP.
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
    """

    def __init__(self, n_clusters="auto", similarity="adds", partition="kmeans", n_items=None,
                 random_state=None):
        self.n_clusters = n_clusters
        self.similarity = similarity
        self.partition = partition
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X, y=None):
        """Cluster the items of the comparisons ``X`` (responses ``y``); returns ``self``."""
        Xi, yi, items, n = as_queries(X, y, self.n_items)
        if self.n_clusters == "auto":
            k = None
        elif isinstance(self.n_clusters, (int, np.integer)) and self.n_clusters >= 1:
            k = int(self.n_clusters)
        else:
            raise ValueError(f"n_clusters must be 'auto' or a positive int, got {self.n_clusters!r}")
        seed = check_random_state_seed(self.random_state)
        out = _core.cluster_flat(Xi, yi, n, k, str(self.similarity), str(self.partition), seed)
        self.labels_ = np.asarray(out["labels"], dtype=np.int64)
        self.n_clusters_ = int(out["n_clusters"])
        self.spur_ = out["spur"]
        self.solver_info_ = out["solver_info"]
        self.items_ = items
        return self

    def fit_predict(self, X, y=None, **kwargs):
        """Fit and return ``labels_``."""
        return self.fit(X, y).labels_


class ComparisonHierarchy(ClusterMixin, BaseEstimator):
    """Hierarchical clustering from comparisons (Ghoshdastidar, Perrot & von Luxburg, NeurIPS 2019).

    Parameters
    ----------
    method : {"4al", "4kal", "sl", "cl"}
        4-AL (quadruplet average linkage), 4K-AL (average linkage on the passive quadruplet
        kernel), or comparison-based single / complete linkage from the given comparisons.
    n_clusters : int or None
        If set, ``labels_`` holds the cut of the dendrogram into this many clusters.
    n_items : int or None
    random_state : None, int or numpy generator

    Attributes
    ----------
    dendrogram_ : ndarray of shape (n_items - 1, 4)
        A scipy linkage matrix: usable with ``scipy.cluster.hierarchy.dendrogram``.
    labels_ : ndarray or None
    items_ : ndarray or None

    Examples
    --------
    >>> import compclust
    >>> X, y, truth = compclust.datasets.make_planted(n=60, k=2, quadruplets=True, seed=0)
    >>> h = compclust.ComparisonHierarchy(method="4al", n_clusters=2).fit(X, y)
    >>> h.dendrogram_.shape
    (59, 4)
    """

    def __init__(self, method="4al", n_clusters=None, n_items=None, random_state=None):
        self.method = method
        self.n_clusters = n_clusters
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X, y=None):
        """Build the dendrogram; returns ``self``."""
        Xi, yi, items, n = as_queries(X, y, self.n_items)
        seed = check_random_state_seed(self.random_state)
        self.dendrogram_ = np.asarray(_core.hierarchy(Xi, yi, n, str(self.method), seed))
        self.items_ = items
        self.labels_ = None if self.n_clusters is None else self.cut(self.n_clusters)
        return self

    def cut(self, k):
        """Labels of the flat clustering with ``k`` clusters read off the dendrogram."""
        if not hasattr(self, "dendrogram_"):
            raise ValueError("call fit before cut")
        return np.asarray(_core.cut_dendrogram(np.ascontiguousarray(self.dendrogram_), int(k)),
                          dtype=np.int64)

    def fit_predict(self, X, y=None, **kwargs):
        """Fit and return the labels of the cut into ``n_clusters`` clusters."""
        if self.n_clusters is None:
            raise ValueError("fit_predict needs n_clusters")
        return self.fit(X, y).labels_


class TSTE(TransformerMixin, BaseEstimator):
    """t-distributed stochastic triplet embedding (van der Maaten & Weinberger, 2012).

    Parameters
    ----------
    n_components : int
    alpha : float or None
        Degrees of freedom of the Student-t kernel (``None``: ``n_components - 1``).
    lambd : float
        L2 regularisation.
    max_iter : int
    n_items : int or None
    random_state : None, int or numpy generator

    Attributes
    ----------
    embedding_ : ndarray of shape (n_items, n_components)

    Examples
    --------
    >>> import compclust, numpy as np
    >>> X, y, truth = compclust.datasets.make_planted(n=50, k=2, seed=1)
    >>> emb = compclust.TSTE(n_components=2, random_state=0).fit(X, y).embedding_
    >>> emb.shape
    (50, 2)
    """

    def __init__(self, n_components=2, alpha=None, lambd=0.0, max_iter=1000, n_items=None,
                 random_state=None):
        self.n_components = n_components
        self.alpha = alpha
        self.lambd = lambd
        self.max_iter = max_iter
        self.n_items = n_items
        self.random_state = random_state

    def fit(self, X, y=None):
        """Embed the items of the triplets ``X``; returns ``self``."""
        Xi, yi, items, n = as_queries(X, y, self.n_items)
        if Xi.shape[1] != 3:
            raise ValueError("TSTE needs triplets (3 columns)")
        seed = check_random_state_seed(self.random_state)
        alpha = None if self.alpha is None else float(self.alpha)
        self.embedding_ = np.asarray(_core.tste(Xi, yi, n, int(self.n_components), alpha,
                                                float(self.lambd), int(self.max_iter), seed))
        self.items_ = items
        return self

    def transform(self, X=None):
        """The embedding (comparison embeddings are transductive)."""
        return self.embedding_

    def fit_transform(self, X, y=None, **kwargs):
        """Fit and return ``embedding_``."""
        return self.fit(X, y).embedding_

    def score(self, X, y=None):
        """Fraction of the triplets ``X`` (responses ``y``) that the embedding satisfies."""
        Xi, yi, _, _ = as_queries(X, y, self.embedding_.shape[0])
        return float(_core.triplet_accuracy(np.ascontiguousarray(self.embedding_), Xi, yi))
