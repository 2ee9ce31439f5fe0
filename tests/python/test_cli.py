"""The ``compclust`` console script that ``pip install .`` puts on the PATH: the Rust command
line compiled into the extension module, with the binary's options, outputs and exit status."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import compclust

ROOT = Path(__file__).resolve().parents[2]


def script() -> str:
    """The installed console script: next to this interpreter (a venv's bin/), else on PATH."""
    here = Path(sys.executable).parent / "compclust"
    found = str(here) if here.exists() else shutil.which("compclust")
    assert found, "the compclust console script is not installed (pip install .)"
    return found


def run(*args, cwd=None):
    return subprocess.run([script(), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0, r.stderr
    assert "Cluster items from crowd comparisons" in r.stdout
    assert "EXIT STATUS" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and compclust.__version__ in r.stdout, r.stdout


def test_a_bad_option_and_a_bad_file_exit_2(tmp_path):
    r = run("cluster", "--no-such-flag")
    assert r.returncode == 2 and "--no-such-flag" in r.stderr, r.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("anchor,near,far\na,b\n")
    r = run("cluster", "-i", str(bad), "-o", str(tmp_path / "out.csv"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: ") and "bad.csv" in r.stderr and "line 2" in r.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_script_writes_what_the_binary_writes(tmp_path):
    """Same command, same files: the console script and the cargo-built binary."""
    exe = Path(os.environ.get("COMPCLUST_BIN", ROOT / "target" / "debug" / "compclust"))
    if not exe.exists():
        assert "COMPCLUST_BIN" not in os.environ, f"COMPCLUST_BIN={exe} does not exist"
        pytest.skip(f"compclust binary not built ({exe})")
    args = ["simulate", "planted", "--n", "60", "--k", "3", "--seed", "4", "--out", "sim"]
    outs = {}
    for name, cmd in [("script", script()), ("binary", str(exe))]:
        d = tmp_path / name
        d.mkdir()
        subprocess.run([cmd, *args], check=True, capture_output=True, cwd=d, timeout=300)
        r = subprocess.run([cmd, "cluster", "-i", "sim/triplets.csv", "-o", "labels.csv",
                            "--seed", "1"], capture_output=True, text=True, cwd=d, timeout=300)
        assert r.returncode == 0, r.stderr
        outs[name] = ((d / "sim" / "triplets.csv").read_text(), (d / "labels.csv").read_text())
    assert outs["script"] == outs["binary"]
