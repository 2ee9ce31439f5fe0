"""compclust.distributed on a local Dask cluster (two worker processes on 127.0.0.1): the
sharded run writes the same runs.csv as one `compclust experiment` run, reuses earlier trials,
and reports failures."""

import csv
from pathlib import Path

import pytest

distributed = pytest.importorskip("dask.distributed")

import compclust.distributed as cd  # noqa: E402
from compclust._core import cli_main  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster, timeout="60s") as c:
        yield c


def _rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    t = r[0].index("time_s")
    return r[0], [row[:t] + row[t + 1:] for row in r[1:]]


def test_a_sharded_run_writes_the_rows_and_figures_of_one_run(client, tmp_path):
    one = tmp_path / "one"
    assert cli_main(["compclust", "experiment", "flat-noise", "--quick", "--seeds", "2",
                     "--out", str(one)]) == 0
    out = tmp_path / "dask"
    csv_path = cd.run_experiment(client, "flat-noise", out, quick=True, seeds=2, shards=5)
    assert csv_path == out / "runs.csv"
    assert _rows(csv_path) == _rows(one / "runs.csv")
    assert sorted(p.name for p in out.glob("*.svg")) == sorted(p.name for p in one.glob("*.svg"))
    assert len(list((out / "shards").glob("runs-*-of-5.csv"))) == 5


def test_kept_shares_are_reused_and_not_run_again(client, tmp_path):
    out = tmp_path / "first"
    cd.run_experiment(client, "flat-noise", out, quick=True, seeds=1, shards=3)
    # mark every value of the kept shares: a reused trial keeps its mark
    shares = sorted((out / "shards").glob("*.csv"))
    for p in shares:
        with open(p, newline="") as f:
            r = list(csv.reader(f))
        v = r[0].index("value")
        for row in r[1:]:
            row[v] = "0.123456789"
        with open(p, "w", newline="") as f:
            csv.writer(f).writerows(r)
    again = cd.run_experiment(client, "flat-noise", tmp_path / "again", quick=True, seeds=2,
                              shards=3, resume_from=shares)
    header, rows = _rows(again)
    s, v = header.index("seed"), header.index("value")
    assert {r[v] for r in rows if r[s] == "0"} == {"0.123456789"}
    assert rows and all(r[v] != "0.123456789" for r in rows if r[s] == "1")


def test_only_runs_the_chosen_trials_in_every_share(client, tmp_path):
    one = tmp_path / "one"
    assert cli_main(["compclust", "experiment", "flat-noise", "--quick", "--seeds", "2",
                     "--out", str(one)]) == 0
    out = tmp_path / "dask"
    # more shares than matching trials: some shares hold none, and that is no error
    got = cd.run_experiment(client, "flat-noise", out, quick=True, seeds=2, shards=6,
                            only=["seed=1", "eps=0.5"])
    header, rows = _rows(got)
    header1, whole = _rows(one / "runs.csv")
    s, e = header1.index("seed"), header1.index("eps")
    assert header == header1
    assert rows and rows == [r for r in whole if r[s] == "1" and r[e] == "0.5"]
    assert not list(out.glob("*.svg"))
    with pytest.raises(RuntimeError, match="share"):
        cd.run_experiment(client, "flat-noise", tmp_path / "typo", quick=True, shards=2,
                          only=["sed=1"])


def test_an_experiment_that_cannot_be_sharded_fails_with_a_clear_error(client, tmp_path):
    with pytest.raises(RuntimeError, match="hierarchy-planted share 0/1 failed"):
        cd.run_experiment(client, "hierarchy-planted", tmp_path / "x", quick=True, shards=1)


def test_the_command_line_runner_on_a_local_cluster(tmp_path):
    assert cd.main(["flat-noise", "--local", "1", "--quick", "--seeds", "1", "--shards", "2",
                    "--spur-refine", "1e-3", "--out", str(tmp_path / "cli")]) == 0
    header, rows = _rows(tmp_path / "cli" / "runs.csv")
    # The two-pass SPUR reached every share: each row records its first-pass tolerance.
    col = header.index("spur_refine")
    assert rows and all(float(r[col]) == 1e-3 for r in rows)
