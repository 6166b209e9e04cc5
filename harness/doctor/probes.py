"""The facts of a machine the doctor judges, gathered behind one interface for every backend.

Checks are pure functions of these facts (`harness.doctor.network` here, each backend's own in
its folder), so tests hand them a fake `Probe` and every ok, warn and fail path runs on any
machine. The probe knows no backend: a backend's checks name what they ask of it (which
interpreter, which packages). `MachineProbe` gathers the real facts:

* GPUs and the driver from ``nvidia-smi`` (no CUDA initialised in this process);
* the versions of the packages a backend names and torch's view of CUDA from the python that
  will train, in a subprocess of that python, so the harness process never initialises CUDA
  (it would hold memory on a GPU the trainer then needs) and another interpreter can be asked;
  whether flash-attn runs there (`harness.backends.flash_attention`, the check a backend runs
  before it chooses its attention);
* free disk where the runs would write;
* short network probes with a timeout: an HTTP GET (the hub, a Ray dashboard), a TCP connect
  (a Ray GCS or client port), binding a port on 127.0.0.1 (what ``vllm serve`` does).

A backend that reads a model's files reads them itself, from the probe's `Probe.env` (the
Hugging Face cache variables), so a test's fake machine is a cache the test builds on disk.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harness.backends.flash_attention import FLASH_SCRIPT

__all__ = [
    "DriverFacts",
    "Gpu",
    "MachineProbe",
    "Probe",
    "PythonFacts",
    "TorchFacts",
    "installed_version",
]

PYTHON_TIMEOUT_S = 300.0
"""Importing torch (or flash-attn) on a cold cluster filesystem can take minutes."""
SMI_TIMEOUT_S = 30.0
MIB = 1 << 20

PROBE_TIMEOUT_S = 5.0
"""A network probe's limit: a hub or a cluster that needs longer will not serve a run well."""


@dataclass(frozen=True, slots=True)
class Gpu:
    name: str
    memory: int
    """Total memory in bytes."""
    capability: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class DriverFacts:
    """What ``nvidia-smi`` says (it sees every GPU, ignoring CUDA_VISIBLE_DEVICES)."""

    gpus: tuple[Gpu, ...] = ()
    driver: str | None = None
    error: str | None = None
    """Why there is nothing: nvidia-smi missing, or its error."""


@dataclass(frozen=True, slots=True)
class TorchFacts:
    """torch's own view: its build, and the GPUs CUDA gives it (CUDA_VISIBLE_DEVICES applied)."""

    version: str
    cuda: str | None
    """``torch.version.cuda``: None for a CPU build."""
    available: bool
    gpus: tuple[Gpu, ...] = ()
    error: str = ""


@dataclass(frozen=True, slots=True)
class PythonFacts:
    """One interpreter's installed packages and, when asked, its torch's CUDA."""

    python: str
    packages: Mapping[str, str | None] = field(default_factory=dict)
    """Each package asked about: its installed version, None where it is not installed."""
    torch: TorchFacts | None = None
    error: str | None = None
    """The interpreter could not be run or answered nonsense."""


class Probe(Protocol):
    """Where the doctor's facts come from (a fake in tests)."""

    @property
    def env(self) -> Mapping[str, str]: ...

    def driver(self) -> DriverFacts: ...

    def python(self, python: str, *, cuda: bool, packages: Sequence[str]) -> PythonFacts:
        """The versions of `packages` in `python` and, with `cuda`, its torch's view of CUDA
        (torch must be among `packages` for that)."""
        ...

    def flash_attn(self, python: str) -> tuple[bool | None, str]:
        """Whether flash-attn imports and every GPU supports it; None: could not tell."""
        ...

    def free_disk(self, path: Path) -> tuple[int | None, Path]:
        """Free bytes where `path` would be written (None: cannot be measured), and the
        existing directory measured."""
        ...

    def http(self, url: str, timeout_s: float) -> int | str:
        """The status code of a GET, or why there was none."""
        ...

    def tcp(self, host: str, port: int, timeout_s: float) -> str | None:
        """None when a connection opens, else why not."""
        ...

    def bind(self, host: str) -> str | None:
        """None when a free port on `host` can be bound, else why not."""
        ...


PYTHON_SCRIPT = """\
import importlib.metadata as md, json, sys
out = {"packages": {}, "torch": None}
for name in sys.argv[1].split(","):
    try:
        out["packages"][name] = md.version(name)
    except md.PackageNotFoundError:
        out["packages"][name] = None
if sys.argv[2] == "cuda" and out["packages"].get("torch"):
    t = {"gpus": [], "error": ""}
    try:
        import torch
        t.update(version=torch.__version__, cuda=torch.version.cuda, available=False)
        t["available"] = bool(torch.cuda.is_available())
        for i in range(torch.cuda.device_count() if t["available"] else 0):
            p = torch.cuda.get_device_properties(i)
            t["gpus"].append([p.name, int(p.total_memory), [p.major, p.minor]])
    except Exception as err:
        t["error"] = "%s: %s" % (type(err).__name__, err)
    out["torch"] = t
print(json.dumps(out))
"""
"""Run as ``<python> -c PYTHON_SCRIPT <names> cuda|nocuda``; prints one JSON line."""


class MachineProbe:
    """The real facts of this machine (see the module docstring)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(os.environ if env is None else env)

    @property
    def env(self) -> Mapping[str, str]:
        return self._env

    def driver(self) -> DriverFacts:
        smi = shutil.which("nvidia-smi", path=self._env.get("PATH"))
        if smi is None:
            return DriverFacts(error="nvidia-smi not found")
        query = "--query-gpu=name,memory.total,driver_version"
        try:
            done = subprocess.run(
                [smi, query, "--format=csv,noheader,nounits"],
                text=True,
                capture_output=True,
                timeout=SMI_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return DriverFacts(error=f"nvidia-smi did not answer: {err}")
        if done.returncode != 0:
            tail = (done.stdout.strip() or done.stderr.strip() or "no output").splitlines()[-1]
            return DriverFacts(error=f"nvidia-smi failed (exit {done.returncode}): {tail}")
        rows = [[c.strip() for c in row.split(",")] for row in done.stdout.strip().splitlines()]
        gpus = tuple(Gpu(r[0], int(float(r[1])) * MIB) for r in rows if len(r) == 3)
        return DriverFacts(
            gpus=gpus,
            driver=rows[0][2] if gpus else None,
            error=None if gpus else "nvidia-smi lists no GPU",
        )

    def python(self, python: str, *, cuda: bool, packages: Sequence[str]) -> PythonFacts:
        if python == sys.executable and not cuda:
            return PythonFacts(python, {name: installed_version(name) for name in packages})
        argv = [python, "-c", PYTHON_SCRIPT, ",".join(packages), "cuda" if cuda else "-"]
        try:
            done = self._run(argv)
        except (OSError, subprocess.TimeoutExpired) as err:
            return PythonFacts(python, error=f"cannot run it: {err}")
        return parse_python_facts(python, done.returncode, done.stdout, done.stderr)

    def flash_attn(self, python: str) -> tuple[bool | None, str]:
        try:
            done = self._run([python, "-c", FLASH_SCRIPT])
        except (OSError, subprocess.TimeoutExpired) as err:
            return None, f"cannot run the trainer's python {python}: {err}"
        return parse_flash(python, done.returncode, done.stdout, done.stderr)

    def _run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """`argv` (an interpreter and a probe script) run in this probe's environment."""
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=self._env,
            timeout=PYTHON_TIMEOUT_S,
            check=False,
        )

    def free_disk(self, path: Path) -> tuple[int | None, Path]:
        existing = path.absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        try:
            return shutil.disk_usage(existing).free, existing
        except OSError:
            return None, existing

    def http(self, url: str, timeout_s: float) -> int | str:
        request = urllib.request.Request(url, method="GET", headers={"User-Agent": "harness"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as err:
            return int(err.code)
        except (urllib.error.URLError, OSError, ValueError) as err:
            return str(getattr(err, "reason", err))

    def tcp(self, host: str, port: int, timeout_s: float) -> str | None:
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return None
        except OSError as err:
            return str(err) or type(err).__name__

    def bind(self, host: str) -> str | None:
        try:
            with socket.socket() as s:
                s.bind((host, 0))
        except OSError as err:
            return str(err)
        return None


def installed_version(distribution: str) -> str | None:
    """The version of `distribution` installed for this interpreter, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _answer(code: int, stdout: str) -> object:
    """The JSON a probe script printed last, None where it failed or printed none."""
    lines = stdout.strip().splitlines()
    try:
        return json.loads(lines[-1]) if code == 0 and lines else None
    except json.JSONDecodeError:
        return None


def _last_line(stderr: str) -> str:
    return (stderr.strip().splitlines() or ["no output"])[-1]


def parse_python_facts(python: str, code: int, stdout: str, stderr: str) -> PythonFacts:
    """`PYTHON_SCRIPT`'s answer, or why it gave none."""
    data = _answer(code, stdout)
    if not isinstance(data, dict) or not isinstance(data.get("packages"), dict):
        return PythonFacts(python, error=f"it failed (exit {code}): {_last_line(stderr)}")
    packages = {str(k): (str(v) if v else None) for k, v in data["packages"].items()}
    t = data.get("torch")
    torch = None
    if isinstance(t, dict) and t.get("version"):
        gpus = tuple(Gpu(str(n), int(m), (int(c[0]), int(c[1]))) for n, m, c in t["gpus"])
        torch = TorchFacts(
            str(t["version"]),
            t.get("cuda"),
            bool(t.get("available")),
            gpus,
            str(t.get("error", "")),
        )
    elif isinstance(t, dict):
        torch = TorchFacts(packages.get("torch") or "?", None, False, (), str(t.get("error")))
    return PythonFacts(python, packages, torch)


def parse_flash(python: str, code: int, stdout: str, stderr: str) -> tuple[bool | None, str]:
    """`FLASH_SCRIPT`'s answer (usable, reason), or (None, why there is none)."""
    data = _answer(code, stdout)
    if not isinstance(data, dict):
        tail = _last_line(stderr)
        return None, f"probing the trainer's python {python} failed (exit {code}): {tail}"
    usable = data.get("flash_attn")
    return (usable if isinstance(usable, bool) else None), str(data.get("flash_reason", ""))
