"""A comparison's designers checked before any work: names, options, run directories, readiness.

`harness compare`'s preflight and `harness doctor` ask the same questions of the same
designers, built exactly as the runs will build them (`harness.loop.make_designer`), so a
problem is found once and worded once.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from designers import (
    DesignerLoadError,
    DesignerNotReady,
    DesignerOptionsError,
    UnknownDesigner,
    backend_endpoints,
    designer_option_problems,
    parse_entry,
)
from envdesign_common.field_errors import ConfigError
from harness.backends.factory import BackendUnavailable, backend_serves_models
from harness.experiment import ExperimentConfig
from harness.loop import make_designer
from run_records import safe_name

__all__ = ["DESIGNER_ERRORS", "designer_problems", "option_keys", "serves_models"]

DESIGNER_ERRORS = (UnknownDesigner, DesignerLoadError, DesignerNotReady, DesignerOptionsError,
                   ConfigError, ValueError, TypeError)  # fmt: skip
"""What building a designer raises when its name, options or setup are wrong."""


def designer_problems(experiment: ExperimentConfig, *, ready: bool = True) -> list[str]:
    """Unknown names and options, bad option values, entries that would share a run
    directory, and (with `ready`) designers that cannot work on this machine."""
    keys = option_keys(experiment.designers)
    problems = [_stray_options(experiment, key) for key in experiment.designer_options
                if key not in keys]  # fmt: skip
    problems += _shared_directories(experiment.designers)
    try:
        serves = backend_serves_models(experiment.backend)
    except BackendUnavailable:
        serves = False  # reported by backend_problems
    for name in dict.fromkeys(experiment.designers):
        problems += _one_designer(experiment, name, serves_models=serves, ready=ready)
    return list(dict.fromkeys(problems))  # options under a bare name are checked once


def option_keys(entries: Sequence[str]) -> list[str]:
    """The `designer_options` keys that mean something for `entries`: each entry, and the
    bare spec of each entry with a variant suffix (shared by all its variants)."""
    return list(dict.fromkeys(key for e in entries for key in (parse_entry(e).spec, e)))


def _shared_directories(entries: Sequence[str]) -> list[str]:
    """Entries whose run directories would be one (`llm:a/b` and `llm:a_b` both `llm_a_b`)."""
    by_dir: dict[str, list[str]] = {}
    for entry in dict.fromkeys(entries):
        by_dir.setdefault(safe_name(entry), []).append(entry)
    return [
        f"designers {' and '.join(repr(e) for e in same)} would share the run directory "
        f"{folder}/: keep one of them"
        for folder, same in by_dir.items()
        if len(same) > 1
    ]


def _one_designer(
    experiment: ExperimentConfig, name: str, *, serves_models: bool, ready: bool
) -> list[str]:
    try:
        given = experiment.designer_options
        bad = [line for key in dict.fromkeys((parse_entry(name).spec, name)) if key in given
               for line in designer_option_problems(key, given[key])]  # fmt: skip
        if bad:
            return bad
        make_designer(experiment, name, serves_models=serves_models, ready=ready)
    except DESIGNER_ERRORS as err:
        lines = str(err).splitlines() or [type(err).__name__]
        return [line if line.startswith("designer") else f"designer {name!r}: {line}"
                for line in lines]  # fmt: skip
    return []


def _stray_options(experiment: ExperimentConfig, key: str) -> str:
    keys = option_keys(experiment.designers)
    close = difflib.get_close_matches(key, keys, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"designer_options.{key}: no designer {key!r} in this comparison (designers: "
        f"{', '.join(experiment.designers)}){hint}"
    )


def serves_models(experiment: ExperimentConfig) -> bool:
    """Whether a designer of `experiment` reads a model the backend serves (self, base)."""
    for name in experiment.designers:
        try:
            made = make_designer(experiment, name, serves_models=True, ready=False)
        except DESIGNER_ERRORS:
            continue  # reported by the designers' check
        if backend_endpoints(made):
            return True
    return False
