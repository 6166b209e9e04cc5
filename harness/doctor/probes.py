"""The facts of a machine the doctor judges, gathered behind one interface.

Checks are pure functions of these facts (`harness.doctor.gpu`, `.software`, `.storage`,
`.network`), so tests hand them a fake `Probe` and every ok, warn and fail path runs on any
machine. `MachineProbe` gathers the real ones:

* GPUs and the driver from ``nvidia-smi`` (no CUDA initialised in this process);
* package versions and torch's view of CUDA from the python that will run verl and vLLM
  (`VerlCommands.python`), in a subprocess of that python, so the harness process never
  initialises CUDA (it would hold memory on a GPU verl then needs) and another interpreter can
  be asked; flash-attn's usability through the backend's own probe (`target.probe_python`);
* free disk, the model's files on disk (`footprint.model_size`: nothing is downloaded);
* short network probes with a timeout: an HTTP GET (the hub, a Ray dashboard), a TCP connect
  (a Ray GCS or client port), binding a port on 127.0.0.1 (what ``vllm serve`` does).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harness.backends.verl.footprint import ModelSize, model_size
from harness.backends.verl.versions import SUPPORTED, installed_version

__all__ = [
    "DISTRIBUTIONS",
    "DriverFacts",
    "Gpu",
    "MachineProbe",
    "Probe",
    "PythonFacts",
    "TorchFacts",
]

DISTRIBUTIONS: tuple[str, ...] = tuple(
    dict.fromkeys([*(name for s in SUPPORTED for name in s.packages), "flash-attn", "ray"])
)
"""What the doctor asks a python for: every package of the supported sets, flash-attn, ray."""
PYTHON_TIMEOUT_S = 300.0
"""Importing torch on a cold cluster filesystem can take minutes."""
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
    torch: TorchFacts | None = None
    error: str | None = None
    """The interpreter could not be run or answered nonsense."""


class Probe(Protocol):
    """Where the doctor's facts come from (a fake in tests)."""

    @property
    def env(self) -> Mapping[str, str]: ...

    def driver(self) -> DriverFacts: ...

    def python(self, python: str, *, cuda: bool) -> PythonFacts: ...

    def flash_attn(self, python: str) -> tuple[bool | None, str]:
        """Whether flash-attn imports and every GPU supports it; None: could not tell."""
        ...

    def free_disk(self, path: Path) -> tuple[int | None, Path]:
        """Free bytes where `path` would be written (None: cannot be measured), and the
        existing directory measured."""
        ...

    def model(self, model: str) -> ModelSize: ...

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

    def python(self, python: str, *, cuda: bool) -> PythonFacts:
        if python == sys.executable and not cuda:
            return PythonFacts(python, {name: installed_version(name) for name in DISTRIBUTIONS})
        argv = [python, "-c", PYTHON_SCRIPT, ",".join(DISTRIBUTIONS), "cuda" if cuda else "-"]
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                env=self._env,
                timeout=PYTHON_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return PythonFacts(python, error=f"cannot run it: {err}")
        return parse_python_facts(python, done.returncode, done.stdout, done.stderr)

    def flash_attn(self, python: str) -> tuple[bool | None, str]:
        from harness.backends.base import BackendUnavailable
        from harness.backends.verl.target import probe_python

        try:
            found = probe_python(python, flash=True)
        except BackendUnavailable as err:
            return None, str(err)
        return found.flash_attn, found.flash_reason

    def free_disk(self, path: Path) -> tuple[int | None, Path]:
        existing = path.absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        try:
            return shutil.disk_usage(existing).free, existing
        except OSError:
            return None, existing

    def model(self, model: str) -> ModelSize:
        return model_size(model, env=self._env)

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


def parse_python_facts(python: str, code: int, stdout: str, stderr: str) -> PythonFacts:
    """`PYTHON_SCRIPT`'s answer, or why it gave none."""
    lines = stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if code == 0 and lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("packages"), dict):
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        return PythonFacts(python, error=f"it failed (exit {code}): {tail}")
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
