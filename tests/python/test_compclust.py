"""Tests of the Python package: estimator conventions, layouts, agreement with the CLI."""

import ast
import csv
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

import compclust

ROOT = Path(__file__).resolve().parents[2]


def _data_dir():
    """The shared real data: ../shared/data beside the repository (CI), else /work/shared/data."""
    for d in (ROOT.parent / "shared" / "data", Path("/work/shared/data")):
        if d.is_dir():
            return d
    return ROOT.parent / "shared" / "data"  # absent: the tests below skip


DATA = _data_dir()


@pytest.fixture(scope="module")
def planted():
    # n (ln n)^4 triplets: at n = 150 the n (ln n)^3 of Perrot et al. (2020, §5) is still at the
    # edge of exact recovery (one item of 150 misplaced on this seed since the library's one
    # seed rule); (ln n)^4 is well inside the regime where the paper's bound gives ARI 1.
    n = 150
    return compclust.datasets.make_planted(
        n=n, k=3, delta=0.5, eps=0.75, seed=3, n_comparisons=int(n * np.log(n) ** 4))


def test_make_planted_is_seeded():
    a = compclust.datasets.make_planted(n=40, k=2, n_comparisons=500, seed=1)
    b = compclust.datasets.make_planted(n=40, k=2, n_comparisons=500, seed=1)
    c = compclust.datasets.make_planted(n=40, k=2, n_comparisons=500, seed=2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[2], b[2])
    assert not np.array_equal(a[0], c[0])
    assert a[0].shape == (500, 3)


def test_adds_clustering_recovers_planted_model(planted):
    X, y, truth = planted
    model = compclust.AddSClustering(random_state=0).fit(X, y)
    assert model.n_clusters_ == 3
    assert compclust.adjusted_rand(truth, model.labels_) == pytest.approx(1.0)
    assert len(model.spur_) >= 1
    assert model.solver_info_["converged"]
    for row in model.spur_:
        info = row["info"]
        steps = info["projection_seconds"]
        assert set(steps) == {"partial", "reduction", "tridiagonal", "back_transformation",
                              "assembly"}
        assert all(v >= 0.0 for v in steps.values())
        assert sum(steps.values()) <= info["seconds"]


def test_sdp_tol_reaches_every_solve(planted):
    X, y, truth = planted
    # The single pass (the default first pass, 2e-3, is looser than 1e-3).
    loose = compclust.AddSClustering(random_state=0, sdp_tol=1e-3, spur_refine=None).fit(X, y)
    tight = compclust.AddSClustering(random_state=0, spur_refine=None).fit(X, y)
    for row in tight.spur_:
        assert row["tol"] == 1e-4
        assert max(row["info"]["primal_residual"], row["info"]["dual_residual"],
                   row["info"]["gap"]) <= 1e-4
    for row in loose.spur_:
        info = row["info"]
        assert info["converged"]
        assert max(info["primal_residual"], info["dual_residual"], info["gap"]) <= 1e-3
    assert sum(r["info"]["iterations"] for r in loose.spur_) < sum(
        r["info"]["iterations"] for r in tight.spur_)
    with pytest.raises(ValueError, match="sdp_tol"):
        compclust.AddSClustering(sdp_tol=0.0).fit(X, y)


def test_two_pass_spur_reports_each_solve_and_finds_the_same_k(planted):
    X, y, truth = planted
    single = compclust.AddSClustering(random_state=0, spur_refine=None).fit(X, y)
    two_pass = compclust.AddSClustering(random_state=0).fit(X, y)
    assert two_pass.n_clusters_ == single.n_clusters_
    above_stop = any(row["theta"] > 0.99 for row in two_pass.spur_)
    for row in two_pass.spur_:
        # 1e-2: a probing solve beside a loose θ above the stop (docs/SOLVER.md).
        assert row["tol"] in (2e-3, 1e-4) or (row["tol"] == 1e-2 and above_stop)
        assert (row["theta_loose"] is None) == (row["tol"] != 1e-4)
        assert (row["theta_uncertainty"] > 0) == (row["tol"] != 1e-4)
        assert row["solves"] >= 1 + (row["tol"] == 1e-4)
    with pytest.raises(ValueError, match="spur_refine"):
        compclust.AddSClustering(spur_refine=1.5).fit(X, y)
    # The default is the library's (the CLI's --spur-refine), not a copy of it.
    assert compclust.AddSClustering().spur_refine == compclust._core.DEFAULT_SPUR_REFINE == 2e-3


def test_known_k_and_fit_predict(planted):
    X, y, truth = planted
    labels = compclust.AddSClustering(n_clusters=3, random_state=0).fit_predict(X, y)
    assert compclust.adjusted_rand(truth, labels) == pytest.approx(1.0)


def test_get_params_clone_and_determinism(planted):
    X, y, _ = planted
    est = compclust.AddSClustering(n_clusters=3, partition="spectral", random_state=7)
    assert est.get_params()["partition"] == "spectral"
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    assert np.array_equal(est.fit(X).labels_, twin.fit(X).labels_)


def test_fortran_and_sliced_arrays_match_c_order(planted):
    X, _, _ = planted
    base = compclust.AddSClustering(n_clusters=3, random_state=0).fit(np.ascontiguousarray(X)).labels_
    fortran = np.asfortranarray(X)
    assert not fortran.flags.c_contiguous
    assert np.array_equal(compclust.AddSClustering(n_clusters=3, random_state=0).fit(fortran).labels_, base)
    wide = np.zeros((X.shape[0] * 2, 5), dtype=np.int64)
    wide[::2, 1:4] = X
    sliced = wide[::2, 1:4]
    assert not sliced.flags.c_contiguous
    assert np.array_equal(compclust.AddSClustering(n_clusters=3, random_state=0).fit(sliced).labels_, base)


def test_boolean_and_count_responses():
    X = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2]])
    n, distinct, contradicted, undecided, items = compclust._core.describe(X, None)
    assert (n, distinct, contradicted, undecided, items) == (3, 2, 1, 0, 3)
    y = np.array([True, False, True])
    assert compclust._core.describe(X, np.where(y, 1, -1).astype(np.int64))[2] == 0
    counts = np.array([2, 0, -1], dtype=np.int64)
    assert compclust._core.describe(X, counts)[:4] == (3, 2, 0, 1)


def test_label_arrays_are_items(planted):
    X, _, truth = planted
    names = np.array([f"item{i:03d}" for i in range(X.max() + 1)], dtype=object)
    model = compclust.AddSClustering(n_clusters=3, random_state=0).fit(names[X])
    assert list(model.items_) == sorted(names)
    assert compclust.adjusted_rand(truth, model.labels_) == pytest.approx(1.0)


def test_errors_are_value_errors():
    with pytest.raises(ValueError, match="columns"):
        compclust.AddSClustering().fit(np.zeros((4, 2), dtype=int))
    with pytest.raises(ValueError, match="repeated"):
        compclust.AddSClustering(n_clusters=2).fit(np.array([[0, 0, 1], [1, 2, 3]]))
    with pytest.raises(ValueError):
        compclust.AddSClustering(n_clusters=0).fit(np.array([[0, 1, 2]]))


def test_hierarchy_linkage_works_with_scipy():
    from scipy.cluster.hierarchy import dendrogram, is_valid_linkage

    # An easy regime (no crowd noise, well separated clusters): both methods must recover it.
    X, y, truth = compclust.datasets.make_planted(n=60, k=2, delta=0.9, eps=1.0, n_comparisons=100000,
                                                  quadruplets=True, seed=0)
    for method in ["4al", "4kal"]:
        h = compclust.ComparisonHierarchy(method=method, n_clusters=2).fit(X, y)
        assert h.dendrogram_.shape == (59, 4)
        assert is_valid_linkage(h.dendrogram_)
        dendrogram(h.dendrogram_, no_plot=True)
        assert compclust.adjusted_rand(truth, h.labels_) == pytest.approx(1.0)
        assert np.array_equal(h.cut(2), h.labels_)


def test_tste_embeds_and_scores():
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(40, 2))
    idx = rng.integers(0, 40, size=(4000, 3))
    idx = idx[(idx[:, 0] != idx[:, 1]) & (idx[:, 0] != idx[:, 2]) & (idx[:, 1] != idx[:, 2])]
    d = lambda a, b: np.linalg.norm(pts[a] - pts[b], axis=1)
    swap = d(idx[:, 0], idx[:, 1]) > d(idx[:, 0], idx[:, 2])
    idx[swap, 1], idx[swap, 2] = idx[swap, 2], idx[swap, 1].copy()
    train, test = idx[:3000], idx[3000:]
    model = compclust.TSTE(n_components=2, random_state=0).fit(train)
    assert model.embedding_.shape == (40, 2)
    assert model.score(test) > 0.85
    again = compclust.TSTE(n_components=2, random_state=0).fit(train)
    assert np.array_equal(model.embedding_, again.embedding_)


@pytest.mark.parametrize("cls", [compclust.SOE, compclust.FORTE])
def test_soe_and_forte_embed_and_score_held_out_triplets(cls):
    # Noise-free triplets of 40 planted 2-D points: most held-out triplets are satisfied
    # (measured 2026-11-26: SOE 0.97, FORTE 0.95), the same seed refits identically, and
    # fit_transform / transform return the embedding.
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(40, 2))
    idx = rng.integers(0, 40, size=(4000, 3))
    idx = idx[(idx[:, 0] != idx[:, 1]) & (idx[:, 0] != idx[:, 2]) & (idx[:, 1] != idx[:, 2])]
    d = lambda a, b: np.linalg.norm(pts[a] - pts[b], axis=1)
    swap = d(idx[:, 0], idx[:, 1]) > d(idx[:, 0], idx[:, 2])
    idx[swap, 1], idx[swap, 2] = idx[swap, 2], idx[swap, 1].copy()
    train, test = idx[:3000], idx[3000:]
    model = cls(n_components=2, random_state=0).fit(train)
    assert model.embedding_.shape == (40, 2)
    assert model.score(test) > 0.9
    again = cls(n_components=2, random_state=0).fit_transform(train)
    assert np.array_equal(model.transform(train), again)
    labels = np.array([f"item{i}" for i in range(40)])[train]
    named = cls(n_components=2, random_state=0).fit(labels)
    assert named.items_ is not None and named.embedding_.shape == (40, 2)


def test_soe_and_forte_reject_bad_parameters():
    X = [[0, 1, 2], [1, 2, 0]]
    with pytest.raises(compclust.ParameterError, match="margin"):
        compclust.SOE(margin=0.0).fit(X)
    with pytest.raises(compclust.ParameterError, match="n_init"):
        compclust.SOE(n_init=0).fit(X)
    with pytest.raises(compclust.ParameterError, match="max_trace"):
        compclust.FORTE(max_trace=-1.0).fit(X)
    with pytest.raises(compclust.LimitError, match="4000"):
        compclust.FORTE(n_items=5000).fit(X)
    with pytest.raises(ValueError, match="triplets"):
        compclust.FORTE().fit([[0, 1, 2, 3]])


def test_overlap_with_callable_and_answers():
    truth = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 1]])
    oracle = lambda i, j: int(truth[i] @ truth[j] > 0)
    m = compclust.OverlapClustering(method="clique-cover", random_state=0).fit(len(truth), oracle=oracle)
    est = m.membership_matrix_
    assert np.array_equal((est @ est.T) > 0, (truth @ truth.T) > 0)
    asked = m.n_queries_
    assert 0 < asked <= len(truth) * (len(truth) - 1) // 2
    answers = np.array([[i, j, oracle(i, j)] for i in range(8) for j in range(i + 1, 8)][:5])
    partial = compclust.OverlapClustering(method="clique-cover", random_state=0).fit(8, answers=answers)
    assert partial.memberships_ is None and len(partial.missing_) > 0


def test_results_equal_the_cli(tmp_path, planted):
    X, _, _ = planted
    # CI builds the binary with `cargo test --workspace` and passes it in COMPCLUST_BIN.
    exe = Path(os.environ.get("COMPCLUST_BIN", ROOT / "target" / "debug" / "compclust"))
    if not exe.exists():
        assert "COMPCLUST_BIN" not in os.environ, f"COMPCLUST_BIN={exe} does not exist"
        pytest.skip(f"compclust binary not built ({exe})")
    n = int(X.max()) + 1
    items = tmp_path / "items.txt"
    items.write_text("".join(f"{i}\n" for i in range(n)))  # same indices as the array
    inp = tmp_path / "t.csv"
    with open(inp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["anchor", "near", "far"])
        w.writerows(X.tolist())
    out = tmp_path / "labels.csv"
    subprocess.run([str(exe), "cluster", "--input", str(inp), "--items", str(items),
                    "--n-clusters", "3", "--seed", "5", "--output", str(out)],
                   check=True, capture_output=True)
    with open(out) as f:
        cli = {int(row["item"]): int(row["cluster"]) for row in csv.DictReader(f)}
    cli_labels = np.array([cli[i] for i in range(n)])
    model = compclust.AddSClustering(n_clusters=3, random_state=5).fit(X)
    assert np.array_equal(cli_labels, model.labels_)


@pytest.mark.parametrize("quadruplets", [False, True])
def test_make_planted_equals_simulate(tmp_path, quadruplets):
    """One seed rule: make_planted and `compclust simulate planted` draw the same comparisons."""
    exe = Path(os.environ.get("COMPCLUST_BIN", ROOT / "target" / "debug" / "compclust"))
    if not exe.exists():
        assert "COMPCLUST_BIN" not in os.environ, f"COMPCLUST_BIN={exe} does not exist"
        pytest.skip(f"compclust binary not built ({exe})")
    flags = ["--quadruplets"] if quadruplets else []
    subprocess.run([str(exe), "simulate", "planted", "--n", "40", "--k", "2", "--family", "normal",
                    "--delta", "0.5", "--eps", "0.75", "--triplets", "auto", *flags, "--seed", "5",
                    "--out", str(tmp_path)], check=True, capture_output=True)
    name = "quadruplets.csv" if quadruplets else "triplets.csv"
    with open(tmp_path / name) as f:
        cli = np.array([[int(x) for x in row] for row in list(csv.reader(f))[1:]])
    X, _, truth = compclust.datasets.make_planted(n=40, k=2, family="normal", delta=0.5, eps=0.75,
                                                  quadruplets=quadruplets, seed=5)
    assert X.shape == cli.shape == (2008, 4 if quadruplets else 3)
    assert np.array_equal(X, cli)
    with open(tmp_path / "truth.csv") as f:
        assert [int(r["cluster"]) for r in csv.DictReader(f)] == truth.tolist()


@pytest.mark.skipif(not DATA.exists(), reason="shared/data not found (../shared/data or /work/shared/data)")
def test_real_car_data_loads():
    X, items = compclust.datasets.load_car(DATA / "car" / "ordinal_data_preprocessed" / "T_ALL_REDUCED.csv",
                                           return_X_items=True)
    assert X.shape == (12112, 3)
    assert len(items) == 60


def _line_answers(pos, questions):
    """A noise-free crowd on a line: each question (a, b, c, d) answered as asked when pair
    (a, b) is closer, else with its pairs swapped."""
    rows = []
    for a, b, c, d in questions:
        closer = abs(pos[a] - pos[b]) < abs(pos[c] - pos[d])
        rows.append((a, b, c, d) if closer else (c, d, a, b))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


@pytest.mark.parametrize("method", ["sl", "cl", "4kal-act"])
def test_hierarchy_crowd_rounds_in_python(method):
    rng = np.random.default_rng(5)
    n = 16
    pos = np.concatenate([rng.normal(0, 1, 8), rng.normal(50, 1, 8)])
    answers = np.empty((0, 4), dtype=np.int64)
    h = compclust.ComparisonHierarchy(method=method, n_items=n, n_clusters=2, references=3,
                                      random_state=2) if method == "4kal-act" else \
        compclust.ComparisonHierarchy(method=method, n_items=n, n_clusters=2, random_state=2)
    rounds = 0
    while True:
        h.fit(answers=answers)
        if h.complete_:
            break
        assert h.dendrogram_.shape == (n - 1, 4)  # the partial estimate is a whole tree
        answers = np.vstack([answers, _line_answers(pos, h.missing_)])
        rounds += 1
        assert rounds < 100
    assert h.n_rounds_ == rounds and h.n_comparisons_ > 0
    truth = np.array([0] * 8 + [1] * 8)
    assert compclust.adjusted_rand(truth, h.labels_) == 1.0
    if method != "4kal-act":
        # noise-free answers: the same tree as from the full set of comparisons
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        every = [(*p, *q) for u, p in enumerate(pairs) for q in pairs[u + 1:]]
        full = compclust.ComparisonHierarchy(method=method).fit(_line_answers(pos, every))
        np.testing.assert_array_equal(full.dendrogram_[:, [0, 1, 3]], h.dendrogram_[:, [0, 1, 3]])


def test_hierarchy_initial_clusters_in_python():
    X, y, truth = compclust.datasets.make_planted(n=40, k=2, quadruplets=True, seed=1)
    h = compclust.ComparisonHierarchy(method="4al", init_clusters=truth, n_clusters=2).fit(X, y)
    assert compclust.adjusted_rand(truth, h.labels_) == 1.0
    with pytest.raises(compclust.ParameterError, match="init_clusters"):
        compclust.ComparisonHierarchy(method="4al", init_clusters=truth[:5]).fit(X, y)


def test_fit_file_streams_the_same_clustering_as_fit(tmp_path):
    X, y, truth = compclust.datasets.make_planted(n=60, k=3, seed=2)
    p = tmp_path / "t.csv"
    with open(p, "w") as f:
        f.write("anchor,near,far\n")
        for (a, b, c), r in zip(X.tolist(), np.ones(len(X)) if y is None else y):
            row = (a, b, c) if r > 0 else (a, c, b)
            f.write(f"item{row[0]},item{row[1]},item{row[2]}\n")
    by_rows = compclust.AddSClustering(n_clusters=3, random_state=0).fit(X, y)
    by_file = compclust.AddSClustering(n_clusters=3, random_state=0).fit_file(p)
    order = [int(s[4:]) for s in by_file.items_]
    assert by_file.n_comparisons_ == len(X)
    assert compclust.adjusted_rand(by_rows.labels_[order], by_file.labels_) == 1.0
    with pytest.raises(OSError):
        compclust.AddSClustering().fit_file(tmp_path / "absent.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("anchor,near,far\na,b,c\na,b\n")
    with pytest.raises(compclust.DataError, match="line 3"):
        compclust.AddSClustering(n_clusters=2).fit_file(bad)
    with pytest.raises(compclust.ParameterError, match="AddS"):
        compclust.AddSClustering(similarity="mulk").fit_file(p)


def _noisy_crowd(truth_answer, questions, flip, workers, rng):
    """Each question answered by every one of `workers` people, each flipping its answer with
    probability `flip`: rows, one per answer, and who gave each."""
    rows, who = [], []
    for q in questions:
        for w in workers:
            rows.append(truth_answer(q, rng.random() < flip))
            who.append(w)
    return rows, np.array(who)


def _overlap_crowd_rounds(truth, workers, rng):
    """Triangle counting (Alg. 14, q estimated) driven in rounds: each missing pair answered by
    every one of `workers`, each flipping the true answer with probability 0.2."""
    n = len(truth)
    same = lambda i, j: int(truth[i] @ truth[j] > 0)
    answer = lambda q, flip: [q[0], q[1], same(*q) ^ int(flip)]
    rows, who = [], []
    for _ in range(4):
        m = compclust.OverlapClustering(method="triangle-count", n_clusters=4, delta=1,
                                        random_state=0)
        try:
            m.fit(n, answers=np.array(rows, dtype=np.int64).reshape(-1, 3), worker=who)
        except compclust.CompclustError:
            return None  # no estimate from these answers
        if len(m.missing_) == 0:
            return m
        new, w = _noisy_crowd(answer, m.missing_.tolist(), 0.2, workers, rng)
        rows += new
        who += w.tolist()
    raise AssertionError("more than 4 rounds")


@pytest.mark.parametrize("seed", [1, 2])
def test_overlap_majority_of_three_workers_recovers_what_one_worker_misses(seed):
    """Three workers per pair, each flipping 20 % of the answers: the majority vote (wrong with
    probability 0.104) lets triangle counting recover 4 clusters of 50 exactly; one answer per
    pair (wrong with probability 0.2) does not (as the command-line test of the same promise)."""
    truth = np.repeat(np.eye(4, dtype=np.int64), 50, axis=0)
    voted = _overlap_crowd_rounds(truth, ["ann", "bob", "cy"], np.random.default_rng(seed))
    est = voted.membership_matrix_
    assert est is not None
    assert np.array_equal(est @ est.T > 0, truth @ truth.T > 0)
    agg = voted.aggregation_
    assert agg["answers"] == 3 * 19_900 and agg["questions"] == 19_900
    assert agg["undecided"] == 0
    assert sorted(w["worker"] for w in agg["workers"]) == ["ann", "bob", "cy"]
    # P(a worker agrees with the majority) = 0.8 · 0.96 + 0.2 · 0.36 = 0.84
    assert all(0.82 < w["agreeing"] / w["answers"] < 0.86 for w in agg["workers"])
    alone = _overlap_crowd_rounds(truth, ["ann"], np.random.default_rng(seed))
    single = None if alone is None else alone.membership_matrix_
    assert single is None or not np.array_equal(single @ single.T > 0, truth @ truth.T > 0)


def test_tied_answers_are_asked_again():
    truth = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    rows = [[i, j, int(truth[i] @ truth[j])] for i in range(4) for j in range(i + 1, 4)]
    rows.append([0, 1, 0])  # (0, 1) now has one "yes" and one "no"
    m = compclust.OverlapClustering(method="find-membership").fit(
        4, answers=rows, worker=["a"] * 6 + ["b"])
    assert m.aggregation_["undecided"] == 1
    assert [0, 1] in m.missing_.tolist()
    with pytest.raises(ValueError, match="worker"):
        compclust.OverlapClustering().fit(4, oracle=lambda i, j: 0, worker=[1])
    with pytest.raises(compclust.ParameterError, match="worker"):
        compclust.OverlapClustering(method="find-membership").fit(4, answers=rows, worker=[1, 2])
    with pytest.raises(compclust.ParameterError, match="aggregate"):
        compclust.OverlapClustering(method="find-membership", aggregate="mean").fit(4, answers=rows)


@pytest.mark.parametrize("aggregate", ["majority", "dawid-skene"])
def test_hierarchy_rounds_with_three_noisy_workers(aggregate):
    """CL driven in rounds by three workers who each flip 20 % of their answers (worker labels
    given): the aggregate recovers the two groups on a line."""
    rng = np.random.default_rng(7)
    n = 16
    pos = np.concatenate([rng.normal(0, 1, 8), rng.normal(50, 1, 8)])

    def answer(q, flip):
        a, b, c, d = q
        closer = abs(pos[a] - pos[b]) < abs(pos[c] - pos[d])
        return [a, b, c, d] if closer != flip else [c, d, a, b]

    h = compclust.ComparisonHierarchy(method="cl", n_items=n, n_clusters=2, random_state=1,
                                      aggregate=aggregate)
    rows, who = np.empty((0, 4), dtype=np.int64), np.empty(0, dtype=object)
    for _ in range(100):
        h.fit(answers=rows, worker=who)
        if h.complete_:
            break
        new, w = _noisy_crowd(answer, h.missing_.tolist(), 0.2, ["w1", "w2", "w3"], rng)
        rows = np.vstack([rows, np.array(new, dtype=np.int64)])
        who = np.concatenate([who, w.astype(object)])
    assert h.complete_
    assert h.aggregation_["aggregation"] == aggregate
    assert {w["worker"] for w in h.aggregation_["workers"]} == {"w1", "w2", "w3"}
    truth = np.array([0] * 8 + [1] * 8)
    assert compclust.adjusted_rand(truth, h.labels_) == 1.0


def test_solver_info_has_the_keys_the_stub_declares(planted):
    # The type stub's SdpInfo is written by hand beside the Rust binding: a field added to one
    # and not the other fails here. ("lambda" is a keyword, so the stub cannot declare it.)
    stub = ROOT / "python" / "compclust" / "_core.pyi"
    tree = ast.parse(stub.read_text())
    info = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SdpInfo")
    declared = {n.target.id for n in info.body if isinstance(n, ast.AnnAssign)}
    X, y, _ = planted
    model = compclust.AddSClustering(random_state=0).fit(X, y)
    assert set(model.solver_info_) == declared | {"lambda"}
