"""The doctor knows no backend: each backend reaches it only through its spec's hooks.

Every ``harness`` process imports the doctor (the CLI's ``doctor`` command, preflight before
each comparison). Were the doctor to import a backend, a cpu comparison would run verl's code,
and every process would take on the cpu backend's process-wide settings (its thread, kernel
and allocator choices, made when its package is imported) whichever backend it runs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCTOR = ROOT / "harness" / "doctor"
BACKENDS = ("harness.backends.cpu", "harness.backends.verl", "harness.backends.trl")


def imported_names(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import in `source`, inside functions and under ``TYPE_CHECKING``
    too, relative ones resolved against `package`; ``from a import b`` counts as ``a.b`` (b may
    be a module)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            anchor = parts[: len(parts) - node.level + 1] if node.level else []
            base = ".".join([*anchor, *([node.module] if node.module else [])])
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def is_backend(module: str) -> bool:
    return any(module == b or module.startswith(f"{b}.") for b in BACKENDS)


def test_importing_the_cli_imports_no_backend() -> None:
    """In a fresh interpreter, so that this test process's own imports do not count."""
    code = (
        "import sys, harness_cli.main; print(sorted(m for m in sys.modules if "
        + " or ".join(f"m.startswith({b!r})" for b in BACKENDS)
        + "))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("backend", ["trl", "verl"])
def test_a_language_model_backend_takes_on_none_of_the_cpu_learners_settings(backend: str) -> None:
    """Naming a backend loads its spec, and diagnosing it its machine checks; the CPU learner's
    package (which pins kernels and the allocator for the whole process when imported) stays
    out of a trl or verl process."""
    checks = {"trl": "harness.backends.trl.plan", "verl": "harness.backends.verl.doctor"}[backend]
    code = (
        "import sys; from harness.experiment import ExperimentConfig; "
        f"ExperimentConfig(backend={backend!r}, policy='some/model'); import {checks}; "
        "print(sorted(m for m in sys.modules if m.startswith('harness.backends.cpu')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_doctor_imports_no_backend() -> None:
    files = sorted(DOCTOR.glob("*.py"))
    assert files, f"no modules found in {DOCTOR}"
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in files
        for line, module in imported_names(path.read_text(encoding="utf-8"), "harness.doctor")
        if is_backend(module)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_import_reader_sees_every_form() -> None:
    """The check above would pass vacuously if the reader missed a form of import."""
    source = (
        "import harness.backends.cpu\n"
        "from harness.backends import verl\n"
        "from ..backends.trl import spec\n"
        "def f():\n"
        "    from harness.backends.verl.footprint import size\n"
    )
    modules = [module for _, module in imported_names(source, "harness.doctor")]
    assert modules == [
        "harness.backends.cpu",
        "harness.backends.verl",
        "harness.backends.trl.spec",
        "harness.backends.verl.footprint.size",
    ]
    assert all(is_backend(module) for module in modules)
    assert not is_backend("harness.backends.cpuinfo") and not is_backend("harness.backends.spec")
