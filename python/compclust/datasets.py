"""Loaders for the data sets the papers use, and generators of comparisons.

The loaders take a local path (compclust downloads nothing): the data folder holding every
data set (``shared/data`` in the compclust repository's workspace), a data set's own folder, or
one of its files. Files are parsed by the Rust library (``compclust::data``), so errors name the
file, line and field.

- Comparison data: :func:`load_comparisons` (any supported format), :func:`load_car` and
  :func:`load_food` (scikit-learn ``Bunch`` objects with the item names and, for the cars, the
  classes).
- Feature data, to draw comparisons from: :func:`load_mnist_tsne` (Perrot et al. 2020, §5) and
  :func:`load_zoo` (Ghoshdastidar et al. 2019, §5), with :func:`make_comparisons`.
- Synthetic: :func:`make_planted` (the planted model of Perrot et al. 2020, §2).
"""

from ._datasets import (load_car, load_comparisons, load_food, load_mnist_tsne, load_zoo,
                        make_comparisons, make_planted)

__all__ = [
    "load_car",
    "load_comparisons",
    "load_food",
    "load_mnist_tsne",
    "load_zoo",
    "make_comparisons",
    "make_planted",
]
