"""Ray worker setup for the Ray executor's verl tests: backends built here launch the stand-ins.

A Ray task builds its run's backend itself (`harness.executors.base.run_job` calls
`make_backend`, which makes a default `VerlRuntime`). A Ray instance whose runtime_env names
`HOOK` as its ``worker_process_setup_hook`` (with this directory on ``PYTHONPATH``) has every
worker make that runtime the stand-ins' instead, the one `test_orchestration.runtime` gives the
backend tests, with `fake_verl_ray.py` as the trainer. Nothing else about the worker changes.

Workers import this file as a top-level module, not from ``tests``: verl 0.6.1 installs a
top-level ``tests`` package of its own, which hides this repository's (a namespace package)
from a fresh interpreter. `use_stand_ins` therefore points ``tests`` at this repository's
before it imports the stand-ins' runtime, as pytest does in the test process.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from harness.backends.verl import runtime as runtime_module
from harness.backends.verl.runtime import VerlRuntime

HERE = Path(__file__).resolve().parent
FAKE_VERL_RAY = HERE / "fake_verl_ray.py"
HOOK = "fake_verl_ray_worker.use_stand_ins"
"""The module path Ray's ``worker_process_setup_hook`` takes (with `HERE` on the path)."""


def this_repositorys_tests() -> None:
    """Make ``import tests...`` find this repository's tests, unless ``tests`` is imported."""
    if "tests" in sys.modules:
        return
    spec = importlib.machinery.ModuleSpec("tests", None, is_package=True)
    spec.submodule_search_locations = [str(HERE.parents[1])]
    sys.modules["tests"] = importlib.util.module_from_spec(spec)


def stand_in_runtime(stand_ins: Callable[..., VerlRuntime], **given: Any) -> VerlRuntime:
    """`stand_ins(**given)` (the backend tests' runtime) with `fake_verl_ray.py` as trainer."""
    made = stand_ins(**given)
    commands = made.commands.model_copy(update={"trainer": (str(FAKE_VERL_RAY),)})
    return made.model_copy(update={"commands": commands})


def use_stand_ins() -> None:
    """Make this process's verl backends use the stand-ins (what `make_backend` constructs)."""
    this_repositorys_tests()
    # imported before the swap below: the module binds the real VerlRuntime when it is loaded
    from tests.harness.verl.test_orchestration import runtime as stand_ins

    setattr(runtime_module, "VerlRuntime", partial(stand_in_runtime, stand_ins))  # noqa: B010
