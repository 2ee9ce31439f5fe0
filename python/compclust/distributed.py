"""Paper experiments on a Dask cluster: the trials of a grid spread over many machines.

A full experiment grid at the papers' sizes takes hours of one core per seed, and its trials
are independent. :func:`run_experiment` splits the trials into disjoint shares (``compclust
experiment NAME --shard I/M``), runs each share as one Dask task, and merges the shares' rows
with ``--resume-from``: the merge computes nothing and writes the same tidy ``runs.csv`` and
figures as ``compclust experiment NAME`` would on one machine. Every task runs the command
line compiled into this module, so the workers need compclust installed, and nothing else.

Workers exchange only text: a task returns its share's ``runs.csv``, and earlier runs given as
``resume_from`` are sent to the tasks, so the workers need no shared folder. The real data sets
(``mnist``) must be readable at ``data`` (or ``$COMPCLUST_DATA``) on every worker.

Only the experiments that can be resumed trial by trial can be sharded (flat-comparisons,
flat-noise, flat-distributions, flat-grid and mnist); the others fail with that list.

From the shell::

    python -m compclust.distributed flat-grid --scheduler tcp://10.0.0.5:8786 \\
        --seeds 10 --shards 200 --out results/flat-grid
    python -m compclust.distributed flat-noise --local 2 --quick --out results/flat-noise

Examples
--------
>>> from dask.distributed import Client, LocalCluster
>>> import compclust.distributed
>>> with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, \
...         Client(cluster) as client:  # doctest: +SKIP
...     csv = compclust.distributed.run_experiment(
...         client, "flat-noise", "results/flat-noise", quick=True)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from ._core import cli_main

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["experiment_args", "main", "run_experiment", "run_shard"]


def experiment_args(*, quick: bool = False, seeds: Optional[int] = None, n: Optional[int] = None,
                    known_k: bool = False, sdp_tol: Optional[float] = None,
                    spur_refine: Optional[float] = None,
                    data: Optional[PathLike] = None, only: Sequence[str] = ()) -> List[str]:
    """The options of ``compclust experiment`` that decide which trials a run has and what they
    compute, as command-line arguments (every share and the merge get the same ones).

    Examples
    --------
    >>> from compclust.distributed import experiment_args
    >>> experiment_args(quick=True, seeds=3, sdp_tol=1e-3)
    ['--quick', '--seeds', '3', '--sdp-tol', '0.001']
    >>> experiment_args(seeds=2, spur_refine=1e-3)
    ['--seeds', '2', '--spur-refine', '0.001']
    >>> experiment_args(seeds=8, only=["seed=7", "eps=0.75"])
    ['--seeds', '8', '--only', 'seed=7', '--only', 'eps=0.75']
    """
    args: List[str] = []
    if quick:
        args.append("--quick")
    if seeds is not None:
        args += ["--seeds", str(int(seeds))]
    if n is not None:
        args += ["--n", str(int(n))]
    if known_k:
        args.append("--known-k")
    if sdp_tol is not None:
        args += ["--sdp-tol", repr(float(sdp_tol))]
    if spur_refine is not None:
        args += ["--spur-refine", repr(float(spur_refine))]
    if data is not None:
        args += ["--data", os.fspath(data)]
    if isinstance(only, str):
        only = [only]
    for f in only:
        args += ["--only", str(f)]
    return args


def run_shard(name: str, index: int, count: int, args: Sequence[str] = (),
              earlier: Sequence[str] = ()) -> str:
    """Run share ``index`` of ``count`` of experiment ``name``'s trials in a temporary folder
    and return its ``runs.csv`` text (the task one Dask worker runs).

    Parameters
    ----------
    name : str
        The experiment (``compclust experiment list``).
    index, count : int
        Which share, ``0 <= index < count``.
    args : sequence of str
        Options from :func:`experiment_args`.
    earlier : sequence of str
        The text of earlier runs' ``runs.csv`` files: their trials are reused, not run again.

    Returns
    -------
    str
        The share's ``runs.csv`` (header only when no trial fell into it).

    Raises
    ------
    RuntimeError
        When the command fails (its message is on the worker's standard error).

    Examples
    --------
    >>> from compclust.distributed import run_shard
    >>> text = run_shard("flat-noise", 0, 4, ["--quick", "--seeds", "1"])  # doctest: +SKIP
    >>> text.splitlines()[0]  # doctest: +SKIP
    'experiment,method,n,k,family,delta,eps,p,comparisons,k_mode,seed,metric,value,time_s'
    """
    with tempfile.TemporaryDirectory(prefix="compclust-shard-") as d:
        resume: List[str] = []
        for i, text in enumerate(earlier):
            p = Path(d, f"earlier-{i}.csv")
            p.write_text(text, encoding="utf-8")
            resume += ["--resume-from", str(p)]
        out = Path(d, "out")
        argv = ["compclust", "experiment", name, "--shard", f"{index}/{count}", "--out", str(out),
                *args, *resume]
        status = cli_main(argv)
        if status != 0:
            raise RuntimeError(f"{name} share {index}/{count} failed with exit status {status} "
                               f"(the worker's standard error says why): {' '.join(argv)}")
        return (out / "runs.csv").read_text(encoding="utf-8")


def run_experiment(client: Any, name: str, out: PathLike, *, shards: Optional[int] = None,
                   resume_from: Sequence[PathLike] = (), quick: bool = False,
                   seeds: Optional[int] = None, n: Optional[int] = None, known_k: bool = False,
                   sdp_tol: Optional[float] = None, spur_refine: Optional[float] = None,
                   data: Optional[PathLike] = None, only: Sequence[str] = ()) -> Path:
    """Run experiment ``name`` on the Dask cluster of ``client`` and write ``out/runs.csv`` and
    the figures, as ``compclust experiment NAME --out OUT`` does on one machine.

    Each finished share is kept in ``out/shards/`` as soon as it arrives: if the run stops
    (a worker lost, Ctrl-C), pass those files as ``resume_from`` and only the missing trials
    run again.

    Parameters
    ----------
    client : dask.distributed.Client
        Any client: ``Client(LocalCluster())``, or one connected to a scheduler.
    name : str
        The experiment (a resumable one: flat-comparisons, flat-noise, flat-distributions,
        flat-grid, mnist).
    out : str or path-like
        Output folder (created if missing).
    shards : int, optional
        Number of tasks; default four per worker thread (shares are decided by a hash of each
        trial's key, so more shares than workers balance the load).
    resume_from : sequence of paths
        Earlier runs' ``runs.csv`` files (finished runs with fewer seeds, or ``out/shards/*``
        of a stopped run): their trials are not run again.
    quick, seeds, n, known_k, sdp_tol, spur_refine, data
        As the options of ``compclust experiment``.
    only : sequence of str
        ``NAME=VALUE`` filters (``--only``): run only the trials with these parameter values,
        e.g. ``["seed=7"]`` for one more seed; ``runs.csv`` then holds those trials (and the
        reused ones that match) and no figure is drawn.

    Returns
    -------
    pathlib.Path
        ``out/runs.csv``.

    Examples
    --------
    >>> from dask.distributed import Client
    >>> from compclust.distributed import run_experiment
    >>> with Client("tcp://10.0.0.5:8786") as client:  # doctest: +SKIP
    ...     run_experiment(client, "flat-grid", "results/flat-grid", seeds=10, shards=400)
    PosixPath('results/flat-grid/runs.csv')
    """
    from dask.distributed import as_completed

    args = experiment_args(quick=quick, seeds=seeds, n=n, known_k=known_k, sdp_tol=sdp_tol,
                           spur_refine=spur_refine, data=data, only=only)
    if shards is None:
        threads = sum(client.nthreads().values()) or 1
        shards = 4 * threads
    if int(shards) < 1:
        raise ValueError(f"shards must be at least 1, got {shards}")
    count = int(shards)
    earlier_paths = [Path(p) for p in resume_from]
    earlier = [p.read_text(encoding="utf-8") for p in earlier_paths]
    out = Path(out)
    kept = out / "shards"
    kept.mkdir(parents=True, exist_ok=True)
    futures = [client.submit(run_shard, name, i, count, args, earlier, pure=False,
                             key=f"compclust-{name}-{i}-of-{count}-{os.getpid()}")
               for i in range(count)]
    index_of = {f.key: i for i, f in enumerate(futures)}
    for future in as_completed(futures):
        text = future.result()
        part = kept / f"runs-{index_of[future.key]}-of-{count}.csv"
        tmp = part.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(part)
    parts = [kept / f"runs-{i}-of-{count}.csv" for i in range(count)]
    resume = [a for p in [*earlier_paths, *parts] for a in ("--resume-from", str(p))]
    status = cli_main(["compclust", "experiment", name, "--out", str(out), *args, *resume])
    if status != 0:
        raise RuntimeError(f"merging the shares of {name} failed with exit status {status}")
    return out / "runs.csv"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m compclust.distributed``: :func:`run_experiment` from the shell.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: the process's).

    Returns
    -------
    int
        The exit status (0; errors raise).

    Examples
    --------
    >>> from compclust.distributed import main
    >>> main(["flat-noise", "--local", "2", "--quick", "--out", "results/flat-noise"])  # doctest: +SKIP
    0
    """
    p = argparse.ArgumentParser(
        prog="python -m compclust.distributed",
        description="Run a compclust experiment grid on a Dask cluster and write the same "
                    "runs.csv and figures as `compclust experiment`.")
    p.add_argument("name", help="the experiment (a resumable one, e.g. flat-grid)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler")
    where.add_argument("--local", type=int, metavar="WORKERS",
                       help="start a local cluster of this many one-thread workers")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--shards", type=int, help="number of tasks (default: 4 per worker thread)")
    p.add_argument("--resume-from", action="append", default=[], metavar="RUNS_CSV")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seeds", type=int)
    p.add_argument("--n", type=int)
    p.add_argument("--known-k", action="store_true")
    p.add_argument("--sdp-tol", type=float)
    p.add_argument("--spur-refine", type=float, metavar="TOL",
                   help="SPUR's first pass at this tolerance (flat experiments; default: off)")
    p.add_argument("--data")
    p.add_argument("--only", action="append", default=[], metavar="NAME=VALUE",
                   help="run only the trials with this parameter value (repeatable; "
                        "NAME=A,B or a repeated NAME lists alternatives)")
    a = p.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    opts: Dict[str, Any] = dict(shards=a.shards, resume_from=a.resume_from, quick=a.quick,
                                seeds=a.seeds, n=a.n, known_k=a.known_k, sdp_tol=a.sdp_tol,
                                spur_refine=a.spur_refine, data=a.data, only=a.only)
    if a.local is not None:
        with LocalCluster(n_workers=a.local, threads_per_worker=1, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
            csv = run_experiment(client, a.name, a.out, **opts)
    else:
        with Client(a.scheduler) as client:
            csv = run_experiment(client, a.name, a.out, **opts)
    print(f"wrote {csv}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
