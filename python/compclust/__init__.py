"""compclust: clustering from comparisons (triplets, quadruplets, same-cluster answers).

Estimators follow scikit-learn's conventions; inputs follow cblearn's formats (``list-order``
integer rows, or rows with boolean / count responses ``y``).

Errors: every error compclust reports is a :class:`CompclustError` (a ``ValueError``), one
subclass per kind (:class:`DataError`, :class:`ParameterError`, :class:`LimitError` for sizes
beyond a limit or the available memory, and one per algorithm family); a wrong type is a
``TypeError``; a file that cannot be read is an ``OSError`` (``FileNotFoundError``, ...);
Ctrl-C stops a running fit with ``KeyboardInterrupt``.

>>> import compclust
>>> X, y, truth = compclust.datasets.make_planted(n=120, k=3, seed=0)
>>> labels = compclust.AddSClustering(random_state=0).fit_predict(X, y)
>>> compclust.metrics.adjusted_rand(truth, labels)
1.0
"""

from . import datasets, metrics
from ._core import __version__
from ._errors import (
    CompclustError,
    DataError,
    EmbeddingError,
    FlatError,
    HierarchyError,
    LimitError,
    MetricError,
    ModelError,
    OverlapError,
    ParameterError,
)
from ._estimators import FORTE, SOE, TSTE, AddSClustering, ComparisonHierarchy
from ._overlap import OverlapClustering
from .metrics import aari, adjusted_rand, dasgupta_cost

__all__ = [
    "AddSClustering",
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
    "ComparisonHierarchy",
    "OverlapClustering",
    "SOE",
    "FORTE",
    "TSTE",
    "aari",
    "adjusted_rand",
    "dasgupta_cost",
    "datasets",
    "metrics",
    "__version__",
]
