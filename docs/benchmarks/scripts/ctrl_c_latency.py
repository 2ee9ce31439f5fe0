"""How soon a long fit stops after Ctrl-C: SIGINT is sent to this process from a timer thread
`after` seconds into the fit, and the time from the signal to the KeyboardInterrupt is printed.

    python docs/benchmarks/scripts/ctrl_c_latency.py adds|sdp|tste|4al [after ...]

Defaults to three signals, 1, 2 and 3 s into three fits, and prints their median.
"""
import os
import signal
import statistics
import sys
import threading
import time

import compclust


def setup(which):
    if which in ("adds", "sdp"):
        X, y, _ = compclust.datasets.make_planted(n=1500, k=6, n_comparisons=300_000, seed=0)
        k = "auto" if which == "adds" else 6  # AddS-3 then SPUR, or AddS-3 then SDP-k
        return lambda: compclust.AddSClustering(n_clusters=k, random_state=0, sdp_tol=1e-9).fit(X, y)
    if which == "tste":
        X, y, _ = compclust.datasets.make_planted(n=3000, k=4, n_comparisons=2_000_000, seed=0)
        return lambda: compclust.TSTE(n_components=10, max_iter=100_000, random_state=0).fit(X, y)
    if which == "4al":
        X, y, _ = compclust.datasets.make_planted(
            n=6000, k=4, n_comparisons=2_000_000, quadruplets=True, seed=0
        )
        return lambda: compclust.ComparisonHierarchy(method="4al").fit(X, y)
    raise SystemExit(f"unknown fit {which!r}: adds, sdp, tste or 4al")


def latency(fit, after):
    """Seconds from SIGINT to KeyboardInterrupt (None when the fit ended first)."""
    sent = []

    def fire():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, fire)
    timer.start()
    try:
        fit()
    except KeyboardInterrupt:
        return time.monotonic() - sent[0]
    finally:
        timer.cancel()
    return None


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "adds"
    afters = [float(a) for a in sys.argv[2:]] or [1.0, 2.0, 3.0]
    fit = setup(which)
    seen = []
    for after in afters:
        s = latency(fit, after)
        print(f"{which}: SIGINT {after} s into the fit: stopped after {s if s is None else round(s, 3)} s")
        if s is not None:
            seen.append(s)
    if seen:
        print(f"{which}: median {statistics.median(seen):.3f} s, worst {max(seen):.3f} s of {len(seen)}")


if __name__ == "__main__":
    main()
