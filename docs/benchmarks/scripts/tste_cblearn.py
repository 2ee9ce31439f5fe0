"""Time cblearn's TSTE on the triplets written by `cargo bench -p compclust --bench embed`.

Usage: python tste_cblearn.py DIR NAME N DIM [RUNS]
Reads DIR/NAME_train.csv and DIR/NAME_test.csv (header anchor,near,far; 0-based items),
fits cblearn.embedding.TSTE(n_components=DIM, random_state=seed) RUNS times (seeds 0..RUNS-1,
default 5) with its defaults (scipy L-BFGS-B, max_iter=1000), and prints per-run fit time,
iterations and held-out triplet accuracy (strict <, ties count as failures), then medians.
"""
import sys
import time

import numpy as np
from cblearn.embedding import TSTE


def accuracy(x, t):
    near = ((x[t[:, 0]] - x[t[:, 1]]) ** 2).sum(1)
    far = ((x[t[:, 0]] - x[t[:, 2]]) ** 2).sum(1)
    return float((near < far).mean())


def main():
    d, name, n, dim = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    train = np.loadtxt(f"{d}/{name}_train.csv", delimiter=",", skiprows=1, dtype=np.int64)
    test = np.loadtxt(f"{d}/{name}_test.csv", delimiter=",", skiprows=1, dtype=np.int64)
    times, accs = [], []
    for seed in range(runs):
        est = TSTE(n_components=dim, random_state=seed)
        t0 = time.perf_counter()
        est.fit(train, n_objects=n)
        dt = time.perf_counter() - t0
        acc = accuracy(est.embedding_, test)
        times.append(dt)
        accs.append(acc)
        print(f"{name} seed={seed} time={dt:.3f}s n_iter={est.n_iter_} "
              f"held-out acc={acc:.4f} train acc={accuracy(est.embedding_, train):.4f} "
              f"loss={est.stress_:.3f}", flush=True)
    print(f"{name} cblearn TSTE median time={np.median(times):.3f}s "
          f"median held-out acc={np.median(accs):.4f}")


if __name__ == "__main__":
    main()
