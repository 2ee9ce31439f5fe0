"""Hostile inputs to the Python API: every bad argument is a ValueError or TypeError that names
the argument, never a PanicException, an abort or an allocation of gigabytes; I/O errors are
OSError; Ctrl-C stops a long fit.

The first group are the reproductions of a robustness review (each once aborted the
interpreter, raised ``PanicException`` or ran minutes at > 12 GB); they run in a child process
with a memory cap and a timeout, so that a regression fails this test instead of killing
pytest. The other cases run in-process.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import compclust

X3 = np.array([[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 1], [4, 5, 0], [5, 4, 1], [0, 1, 5], [3, 2, 4]])
X4 = np.array([[0, 1, 2, 3], [2, 3, 0, 4], [4, 5, 0, 2], [1, 0, 3, 5], [0, 2, 1, 3], [5, 4, 1, 2]])
ANSWERS = [[0, 1, 1], [0, 2, 0], [0, 3, 0], [1, 2, 0], [1, 3, 0], [2, 3, 1]]

# name: (code, expected exception class name, text the message must contain)
REVIEW_CASES = {
    "panic_y_i64min": ("y[0] = -2**63; compclust.AddSClustering().fit(X, y)", "LimitError", "y[0]"),
    "panic_y_2pow62_mulk": ("y[0] = 2**62; compclust.AddSClustering(similarity='mulk').fit(X, y)",
                            "LimitError", "y[0]"),
    "abort_y_1e12": ("y[0] = 10**12; compclust.AddSClustering().fit(X, y)", "LimitError", "y[0]"),
    "abort_hier_index_1e5": ("compclust.ComparisonHierarchy().fit(np.array([[0,1,2,100000]]))",
                             "LimitError", "X"),
    "abort_tste_n_items": ("compclust.TSTE(n_items=10**9).fit(X)", "LimitError", "n_items"),
    "abort_tste_ncomp": ("compclust.TSTE(n_components=10**12).fit(X)", "LimitError", "n_components"),
    "abort_overlap_n": ("compclust.OverlapClustering(method='find-membership').fit(10**12, oracle=lambda i,j: 0)",
                        "LimitError", "n_items"),
    "dos_adds_index_1e9": ("compclust.AddSClustering().fit(np.array([[0,1,10**9]]))", "LimitError", "X"),
    "silent_out_of_range_answers": (
        "compclust.OverlapClustering(method='find-membership').fit(4, answers="
        "[[0,1,1],[0,2,0],[0,3,0],[1,2,0],[1,3,0],[2,3,1],[9,99,3]])", "DataError", "answers"),
    "nan_message": ("compclust.datasets.make_planted(n=0, k=2, seed=0)", "ParameterError", "n = 0"),
}

CHILD = textwrap.dedent("""
    import resource, sys
    cap = 6 << 30  # a regression that allocates gigabytes fails here instead of swapping
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    import numpy as np, compclust
    X = np.array({X!r})
    y = np.ones(len(X), dtype=np.int64)
    try:
        exec(sys.argv[1])
    except BaseException as e:
        print(type(e).__name__, isinstance(e, ValueError), str(e), sep="\\n")
    else:
        print("returned")
""").format(X=X3.tolist())


@pytest.mark.parametrize("name", sorted(REVIEW_CASES))
def test_review_reproductions_raise_clear_errors(name):
    code, exc, text = REVIEW_CASES[name]
    r = subprocess.run([sys.executable, "-c", CHILD, code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, f"child died (signal {-r.returncode}): {r.stderr[-2000:]}"
    lines = r.stdout.splitlines()
    assert lines and lines[0] == exc, r.stdout + r.stderr
    assert lines[1] == "True"  # a ValueError
    assert text in "\n".join(lines[2:]), lines


def _fit_adds(X=X3, y=None, **kw):
    return compclust.AddSClustering(**kw).fit(X, y)


def _y(value):
    y = np.ones(len(X3), dtype=np.int64)
    y[0] = value
    return y


def _y4(value):
    y = np.ones(len(X4), dtype=np.int64)
    y[0] = value
    return y


def _oracle_returning(v):
    return lambda: compclust.OverlapClustering(method="find-membership").fit(4, oracle=lambda i, j: v)


# (name, call, expected exception, text the message must contain)
IN_PROCESS = [
    # counts and sizes
    ("adds y count 10**12", lambda: _fit_adds(y=_y(10**12)), compclust.LimitError, "y[0]"),
    ("adds y count over the per-row cap", lambda: _fit_adds(y=_y(1_000_001)), compclust.LimitError, "y[0]"),
    ("hier y count -2**63", lambda: compclust.ComparisonHierarchy().fit(X4, _y4(-2**63)),
     compclust.LimitError, "y[0]"),
    ("tste y count 10**12", lambda: compclust.TSTE().fit(X3, _y(10**12)), compclust.LimitError, "y[0]"),
    ("y uint64 beyond int64", lambda: _fit_adds(y=np.full(len(X3), 2**63, dtype=np.uint64)),
     ValueError, "y"),
    ("adds index 2**31", lambda: _fit_adds(np.array([[0, 1, 2**31]])), compclust.LimitError, "X"),
    ("adds index 2**32", lambda: _fit_adds(np.array([[0, 1, 2**32]])), compclust.DataError, "X"),
    ("adds n_items 10**9", lambda: _fit_adds(n_items=10**9), compclust.LimitError, "n_items"),
    ("adds n_items 2**64", lambda: _fit_adds(n_items=2**64), compclust.ParameterError, "n_items"),
    ("adds n_items 2**40", lambda: _fit_adds(n_items=2**40), compclust.LimitError, "n_items"),
    ("hier index 10**9", lambda: compclust.ComparisonHierarchy().fit(np.array([[0, 1, 2, 10**9]])),
     compclust.LimitError, "X"),
    ("hier n_items 10**9", lambda: compclust.ComparisonHierarchy(n_items=10**9).fit(X4),
     compclust.LimitError, "n_items"),
    ("tste index 10**9", lambda: compclust.TSTE().fit(np.array([[0, 1, 10**9]])), compclust.LimitError, "X"),
    ("overlap n_items 2**64", lambda: compclust.OverlapClustering(method="find-membership").fit(
        2**64, oracle=lambda i, j: 0), compclust.ParameterError, "n_items"),
    ("overlap n_items 2**40", lambda: compclust.OverlapClustering(method="find-membership").fit(
        2**40, oracle=lambda i, j: 0), compclust.LimitError, "n_items"),
    ("make_planted n huge", lambda: compclust.datasets.make_planted(n=2**40, k=2, seed=0),
     compclust.ParameterError, "n ="),
    ("make_planted n_comparisons huge", lambda: compclust.datasets.make_planted(
        n=10, k=2, n_comparisons=10**15, seed=0), compclust.LimitError, "n_comparisons"),
    # negative and out-of-range integers (were OverflowError)
    ("adds n_clusters 2**64", lambda: _fit_adds(n_clusters=2**64), compclust.ParameterError, "n_clusters"),
    ("adds n_clusters > n", lambda: _fit_adds(n_clusters=50), compclust.ParameterError, "n_clusters"),
    ("hier n_clusters -1", lambda: compclust.ComparisonHierarchy(n_clusters=-1).fit(X4),
     compclust.ParameterError, "n_clusters"),
    ("hier cut 2**64", lambda: compclust.ComparisonHierarchy().fit(X4).cut(2**64),
     compclust.ParameterError, "k ="),
    ("tste n_components -1", lambda: compclust.TSTE(n_components=-1).fit(X3),
     compclust.ParameterError, "n_components"),
    ("tste max_iter -1", lambda: compclust.TSTE(max_iter=-1).fit(X3), compclust.ParameterError, "max_iter"),
    ("overlap n_items -1", lambda: compclust.OverlapClustering(method="find-membership").fit(
        -1, oracle=lambda i, j: 1), compclust.ParameterError, "n_items"),
    ("overlap n_clusters -1", lambda: compclust.OverlapClustering(
        method="find-similarity", n_clusters=-1, delta=1).fit(6, oracle=lambda i, j: 1),
     compclust.ParameterError, "n_clusters"),
    ("overlap sample_size -1", lambda: compclust.OverlapClustering(
        method="find-membership", sample_size=-1).fit(10, oracle=lambda i, j: 1),
     compclust.ParameterError, "sample_size"),
    ("aari level -1", lambda: compclust.aari(np.array([[0, 1, 1.0, 2]]), np.array([[0, 1, 1.0, 2]]), [-1]),
     compclust.ParameterError, "levels"),
    # wrong types
    ("adds n_clusters True", lambda: _fit_adds(n_clusters=True), TypeError, "n_clusters"),
    ("adds n_items 2.5", lambda: _fit_adds(n_items=2.5), TypeError, "n_items"),
    ("tste n_components 2.0", lambda: compclust.TSTE(n_components=2.0).fit(X3), TypeError, "n_components"),
    ("tste alpha 'x'", lambda: compclust.TSTE(alpha="x").fit(X3), TypeError, "alpha"),
    ("overlap oracle not callable", lambda: compclust.OverlapClustering().fit(4, oracle=3), TypeError, "oracle"),
    ("overlap oracle returns None", _oracle_returning(None), TypeError, "oracle"),
    ("overlap oracle returns str", _oracle_returning("1"), TypeError, "oracle"),
    ("overlap oracle returns 1.5", _oracle_returning(1.5), TypeError, "oracle"),
    ("overlap oracle returns NaN", _oracle_returning(float("nan")), TypeError, "oracle"),
    # bad values the library reports
    ("overlap oracle returns -1", _oracle_returning(-1), compclust.DataError, "oracle"),
    ("overlap oracle returns 2**70", _oracle_returning(2**70), ValueError, "oracle"),
    ("overlap answers index >= n", lambda: compclust.OverlapClustering(method="find-membership").fit(
        4, answers=ANSWERS + [[0, 4, 0]]), compclust.DataError, "answers"),
    ("overlap answers self pair", lambda: compclust.OverlapClustering(method="find-membership").fit(
        4, answers=ANSWERS + [[2, 2, 1]]), compclust.DataError, "answers"),
    ("overlap answers negative", lambda: compclust.OverlapClustering(method="find-membership").fit(
        4, answers=ANSWERS + [[0, 1, -1]]), compclust.DataError, "answers"),
    ("adds similarity bogus", lambda: _fit_adds(similarity="bogus"), compclust.ParameterError, "similarity"),
    ("hier method bogus", lambda: compclust.ComparisonHierarchy(method="bogus").fit(X4),
     compclust.ParameterError, "method"),
    ("adds sdp_tol 0", lambda: _fit_adds(sdp_tol=0.0), compclust.CompclustError, "sdp_tol"),
    ("ari NaN label", lambda: compclust.adjusted_rand([0.0, float("nan")], [0, 1]), ValueError, "labels_true"),
    ("aari bad linkage", lambda: compclust.aari(np.zeros((3, 3)), np.zeros((3, 3)), [2]),
     compclust.DataError, "linkage_true"),
]


@pytest.mark.parametrize("name,call,exc,text", IN_PROCESS, ids=[c[0] for c in IN_PROCESS])
def test_bad_arguments_raise_typed_errors_naming_them(name, call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert isinstance(info.value, (ValueError, TypeError))
    assert text in str(info.value), str(info.value)


def test_counts_within_the_limits_still_work():
    y = np.full(len(X3), 3, dtype=np.int64)
    y[1] = -2
    labels = compclust.AddSClustering(n_clusters=2, random_state=0).fit(X3, y).labels_
    assert labels.shape == (6,)


def test_errors_form_one_hierarchy_of_value_errors():
    for cls in (compclust.DataError, compclust.ParameterError, compclust.LimitError,
                compclust.FlatError, compclust.HierarchyError, compclust.EmbeddingError,
                compclust.OverlapError, compclust.MetricError, compclust.ModelError):
        assert issubclass(cls, compclust.CompclustError)
    assert issubclass(compclust.CompclustError, ValueError)
    assert compclust.CompclustError.__module__ == "compclust"


def test_text_cluster_names_are_labels():
    assert compclust.adjusted_rand(["Drama", "Drama", "Sci-Fi"], ["a", "a", "b"]) == 1.0
    assert compclust.adjusted_rand(["Drama", "Sci-Fi", "Sci-Fi"], [0, 1, 1]) == 1.0


def test_io_errors_are_os_errors(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        compclust.datasets.load_comparisons(tmp_path / "missing.csv")
    assert "missing.csv" in str(info.value)
    with pytest.raises(FileNotFoundError):
        compclust.datasets.load_zoo(tmp_path / "zoo.csv")
    with pytest.raises(FileNotFoundError):
        compclust.datasets.load_mnist_tsne(tmp_path / "points.csv", labels=tmp_path / "labels.csv")


def test_bad_file_content_is_a_data_error(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("anchor,near,far\na,b\n")
    with pytest.raises(compclust.DataError) as info:
        compclust.datasets.load_comparisons(p)
    assert "t.csv" in str(info.value)


def test_oracle_exceptions_propagate_unchanged():
    def oracle(i, j):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        compclust.OverlapClustering(method="find-membership").fit(4, oracle=oracle)


# A child process runs one long fit under a profiler that records how the extension function
# behind it ended: raising KeyboardInterrupt from inside Rust ("c_exception", the fit checked
# for Ctrl-C while it ran) or returning ("c_return": the fit ran to its end and the interrupt
# was only seen afterwards, by the interpreter).
_CTRL_C_CHILD = textwrap.dedent("""
    import signal
    import sys
    import compclust
    from compclust import _core

    # A process started in the background by a non-interactive shell inherits SIGINT ignored,
    # and Python then installs no handler: restore the one that raises KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    which = sys.argv[1]
    if which == "adds":
        X, y, _ = compclust.datasets.make_planted(n=1500, k=6, n_comparisons=300_000, seed=0)
        fit = lambda: compclust.AddSClustering(random_state=0, sdp_tol=1e-9).fit(X, y)
        target = _core.cluster_flat
    elif which == "tste":
        X, y, _ = compclust.datasets.make_planted(n=3000, k=4, n_comparisons=2_000_000, seed=0)
        fit = lambda: compclust.TSTE(n_components=10, max_iter=100_000, random_state=0).fit(X, y)
        target = _core.tste
    else:
        X, y, _ = compclust.datasets.make_planted(n=6000, k=4, n_comparisons=2_000_000,
                                                  quadruplets=True, seed=0)
        fit = lambda: compclust.ComparisonHierarchy(method="4al").fit(X, y)
        target = _core.hierarchy
    ended = []

    def profile(frame, event, arg):
        if arg is target and event in ("c_return", "c_exception"):
            ended.append(event)

    print("ready", flush=True)
    sys.setprofile(profile)
    try:
        fit()
        outcome = "returned"
    except KeyboardInterrupt:
        outcome = "interrupted"
    finally:
        sys.setprofile(None)
    print(outcome, ended, flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT needs POSIX signals")
@pytest.mark.parametrize("which", ["adds", "tste", "4al"])
def test_ctrl_c_stops_a_long_fit(which):
    """SIGINT during a fit that runs for tens of seconds to minutes raises KeyboardInterrupt
    from inside the fit (the Rust code checks for it while it works), not after the fit has
    run to its end. Nothing here is timed: the child gets SIGINT a moment after it starts the
    fit and is awaited with a generous timeout, which only a fit that ignores SIGINT and runs
    longer than it would reach."""
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD, which],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # let the fit enter Rust; how long it then takes is not measured
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=900)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    assert out.strip() == "interrupted ['c_exception']", (out, err)
