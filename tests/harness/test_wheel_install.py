"""The README's main command works from an installed wheel, far from any checkout.

A wheel is built from a copy of the sources, installed into a fresh virtual environment in a
temporary directory, and `harness compare --designers random --preset quick` runs there from a
directory with no configs/ in sight: the preset must come from the installed package. CPU torch
comes from the machine's wheel store (pip's own configuration, as for any install); the other
dependencies from the package index or pip's cache. About 1.5 minutes on a 2-core machine.

What the wheel holds is checked apart, in seconds: built (with this environment's setuptools, no
download) from a copy that has the `__pycache__` a test run leaves beside the data, it ships
every data file of the packages and no bytecode.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.test_layering import FLOORS

REPO = Path(__file__).resolve().parents[2]
PACKAGES = tuple(FLOORS)  # every top-level package of the project
TORCH = "torch==2.13.0"
TINY = ["--set", "rounds=1", "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1"]  # fmt: skip


def _run(args: list[str], cwd: Path, env: dict[str, str], what: str, timeout: int) -> str:
    """Run a step; a failure fails the test with the step's name and the end of its output."""
    try:
        done = subprocess.run(
            args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} took more than {timeout} s: {' '.join(args)}")
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        pytest.fail(f"{what} failed (exit {done.returncode}): {' '.join(args)}\n{tail}")
    return done.stdout


def _sources(into: Path) -> Path:
    """A copy of what the wheel is built from, so the build leaves nothing in the checkout."""
    src = into / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for package in PACKAGES:
        shutil.copytree(REPO / package, src / package, ignore=skip)
    return src


def _clean_env(venv: Path) -> dict[str, str]:
    """This process's environment with the fresh venv first and no path into the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.mark.e2e
def test_compare_runs_from_an_installed_wheel(tmp_path: Path) -> None:
    venv, dist, work = tmp_path / "venv", tmp_path / "dist", tmp_path / "work"
    work.mkdir()
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, dict(os.environ), "venv", 120)
    env, python = _clean_env(venv), str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "--quiet"]
    _run([*pip, "install", TORCH], tmp_path, env, f"pip install {TORCH}", 600)
    src = _sources(tmp_path)
    _run([*pip, "wheel", "--no-deps", str(src), "-w", str(dist)], tmp_path, env, "build", 300)
    wheels = list(dist.glob("envdesign_bench-*.whl"))
    assert len(wheels) == 1, wheels
    shutil.rmtree(src)  # nothing the run could read by accident
    _run([*pip, "install", str(wheels[0])], tmp_path, env, "installing the wheel", 600)
    where = _run([python, "-c", "import harness.presets as p; print(p.__file__)"], work, env,
                 "importing the installed package", 60)  # fmt: skip
    assert Path(where.strip()).is_relative_to(venv), where
    out = _run([str(venv / "bin" / "harness"), "compare", "--designers", "random", "--preset",
                "quick", "--seeds", "1", "--out", "runs", "--quiet", "--json", *TINY], work, env,
               "harness compare from the wheel", 300)  # fmt: skip
    assert {"designer": "random", "seed": 0, "result": "runs"} in [
        json.loads(line) for line in out.splitlines() if line.startswith('{"designer"')
    ], out[-2000:]
    result = json.loads((work / "runs" / "quick" / "random" / "seed-0" / "result.json").read_text())
    assert result["designer"] == "random" and result["experiment"]["name"] == "quick"


def _data_files(src: Path) -> set[str]:
    """Every file of the packages under `src` that is not Python source or bytecode, as the
    wheel names it: the data the packages read (suites, manifests, presets, prompts, ...)."""
    return {path.relative_to(src).as_posix() for package in PACKAGES
            for path in (src / package).rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc", ".pyo")
            and "__pycache__" not in path.parts}  # fmt: skip


def test_the_wheel_ships_every_data_file_and_no_bytecode(tmp_path: Path) -> None:
    src, dist = _sources(tmp_path), tmp_path / "dist"
    data = _data_files(src)
    assert {"mapf_env/data/benchmarks/3agents.jsonl.gz", "mapf_env/data/benchmarks/manifest.json",
            "harness/presets/quick.yaml", "mapf_env/py.typed"} <= data  # fmt: skip
    inits = [init for package in PACKAGES for init in (src / package).rglob("__init__.py")]
    for init in inits:  # what importing (and so any test run) leaves in a checkout
        cache = init.parent / "__pycache__"
        cache.mkdir()
        (cache / "__init__.cpython-311.pyc").write_bytes(b"\x00")
    (src / "mapf_env" / "data" / "stray.pyc").write_bytes(b"\x00")
    assert (src / "mapf_env" / "data" / "__pycache__").is_dir()
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          str(src), "-w", str(dist)], tmp_path, env, "build", 300)  # fmt: skip
    (wheel,) = dist.glob("envdesign_bench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    bytecode = sorted(n for n in names if n.endswith((".pyc", ".pyo")) or "__pycache__" in n)
    assert not bytecode, "the wheel ships bytecode"
    assert not sorted(data - names), "data files the wheel does not ship"
