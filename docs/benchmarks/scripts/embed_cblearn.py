"""t-STE, SOE and FORTE: compclust against cblearn on the same triplets.

Usage: python embed_cblearn.py [N] [M_TRAIN] [M_TEST] [RUNS]   (defaults 100 4000 2000 3)

Draws N uniform points in [0, 1]^2 (numpy seed 2026), M_TRAIN + M_TEST random noise-free triplets
(distinct items, near/far by the true distances), fits every method in 2-D on the first
M_TRAIN with seeds 0..RUNS-1 and their defaults, and prints per fit the wall time and the
held-out triplet accuracy (strict <, ties count as failures), then a markdown table of medians.
cblearn's FORTE needs PyTorch (its only backend); without torch its row says so.
"""
import sys
import time

import numpy as np
import cblearn.embedding as cbl

import compclust


def accuracy(x, t):
    near = ((x[t[:, 0]] - x[t[:, 1]]) ** 2).sum(1)
    far = ((x[t[:, 0]] - x[t[:, 2]]) ** 2).sum(1)
    return float((near < far).mean())


def planted(n, m, seed=2026):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 2))
    rows = []
    while len(rows) < m:
        a, b, c = rng.integers(0, n, 3)
        if a == b or a == c or b == c:
            continue
        db, dc = ((x[a] - x[b]) ** 2).sum(), ((x[a] - x[c]) ** 2).sum()
        if db < dc:
            rows.append((a, b, c))
        elif dc < db:
            rows.append((a, c, b))
    return np.array(rows, dtype=np.int64)


def main():
    n, m_train, m_test, runs = (int(v) for v in (sys.argv[1:] + ["100", "4000", "2000", "3"][len(sys.argv) - 1:])[:4])
    triplets = planted(n, m_train + m_test)
    train, test = triplets[:m_train], triplets[m_train:]
    methods = {
        ("t-STE", "compclust"): lambda s: compclust.TSTE(n_components=2, random_state=s, n_items=n),
        ("t-STE", "cblearn"): lambda s: cbl.TSTE(n_components=2, random_state=s),
        ("SOE", "compclust"): lambda s: compclust.SOE(n_components=2, random_state=s, n_items=n),
        ("SOE", "cblearn"): lambda s: cbl.SOE(n_components=2, random_state=s),
        ("FORTE", "compclust"): lambda s: compclust.FORTE(n_components=2, random_state=s, n_items=n),
        ("FORTE", "cblearn"): lambda s: cbl.FORTE(n_components=2, random_state=s),
    }
    table = []
    for (method, lib), make in methods.items():
        times, accs = [], []
        try:
            for seed in range(runs):
                est = make(seed)
                t0 = time.perf_counter()
                if lib == "cblearn":
                    est.fit(train, n_objects=n)
                else:
                    est.fit(train)
                dt = time.perf_counter() - t0
                acc = accuracy(est.embedding_, test)
                times.append(dt)
                accs.append(acc)
                print(f"{method} {lib} seed={seed} time={dt:.3f}s held-out={acc:.4f} "
                      f"train={accuracy(est.embedding_, train):.4f}", flush=True)
        except Exception as e:  # cblearn FORTE without torch
            print(f"{method} {lib}: cannot run: {type(e).__name__}: {e}", flush=True)
            table.append((method, lib, None, None, f"{type(e).__name__}: {str(e).splitlines()[0]}"))
            continue
        table.append((method, lib, float(np.median(times)), float(np.median(accs)), ""))
    print(f"\nn = {n}, {m_train} training / {m_test} held-out triplets, d = 2, {runs} seeds\n")
    print("| method | library | median fit time | median held-out accuracy |")
    print("|---|---|---|---|")
    for method, lib, t, a, why in table:
        if t is None:
            print(f"| {method} | {lib} | — | not run: {why} |")
        else:
            print(f"| {method} | {lib} | {t:.3f} s | {a:.4f} |")


if __name__ == "__main__":
    main()
