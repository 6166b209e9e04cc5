"""The documentation's reference of every registered designer, backend and task, in Markdown.

Written from the registries themselves (the entry points of whatever is installed, plug-ins
included) each time the documentation is built, so the page cannot fall behind the code: a
designer's options are its options model's fields, a backend's settings its section's model, a
task's its settings model and knobs, with an item of its validation suite per value of its first
cut (a gallery of what the policy is asked). `docs/hooks/registry_page.py` adds it to the site;
`python -m harness_cli.registry_page` prints it.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from designers import (
    DesignerLoadError,
    NoOptions,
    UnknownDesigner,
    describe_designers,
    designer_options_model,
    designer_tasks,
)
from envdesign_common import ConfigError
from harness.backends.base import BackendUnavailable
from harness.backends.registry import BACKENDS, describe_backends
from tasks import SuiteItem, Task, TaskLoadError, create_task, describe_tasks, task_spec

TITLE = "Registered plug-ins"

_INTRO = f"""# {TITLE}

Every designer, backend and task registered in the environment that built this page, with what
an experiment may set for each and, for a task, what its validation items ask: generated from
the registries (the entry-point groups `harness.designers`, `harness.designer_families`,
`harness.backends` and `harness.tasks`), so a plug-in installed beside the project appears here
as the built-ins do. `harness designers list`, `harness backends list` and `harness tasks show
TASK` print the same on the command line.
"""


def registry_markdown() -> str:
    """The whole reference page."""
    return "\n".join([_INTRO, _designers(), _backends(), _tasks()])


def _designers() -> str:
    rows = ["| designer | tasks | options | what it does |", "|---|---|---|---|"]
    models: dict[type[BaseModel], list[str]] = {}
    for name, description in describe_designers().items():
        try:
            served, model = designer_tasks(name), designer_options_model(name)
        except (DesignerLoadError, UnknownDesigner) as err:
            rows.append(f"| `{name}` | | | could not be loaded: {_cell(str(err))} |")
            continue
        options = "none" if model is NoOptions else f"[{model.__name__}](#{_anchor(model)})"
        if model is not NoOptions:
            models.setdefault(model, []).append(name)
        rows.append(f"| `{name}` | {_tasks_cell(served)} | {options} | {_cell(description)} |")
    sections = [
        _model_section(model, f"Set under `designer_options.<name>` for {_listing(names)}.")
        for model, names in models.items()
    ]
    return "\n".join(["## Designers", "", *rows, "", *sections])


def _backends() -> str:
    rows = ["| backend | tasks | serves `self`/`base` | section | what it does |",
            "|---|---|---|---|---|"]  # fmt: skip
    sections = []
    for name, description in describe_backends().items():
        try:
            spec = BACKENDS.load(name)
        except BackendUnavailable as err:
            rows.append(f"| `{name}` | | | | could not be loaded: {_cell(str(err))} |")
            continue
        section = "none"
        if spec.settings is not None:
            section = f"[`{name}:`](#{_anchor(spec.settings)})"
            sections.append(_model_section(spec.settings, f"The experiment's `{name}:` section."))
        serves = "yes" if spec.serves_models else "no"
        served = _tasks_cell(spec.tasks)
        rows.append(f"| `{name}` | {served} | {serves} | {section} | {_cell(description)} |")
    return "\n".join(["## Backends", "", *rows, "", *sections])


def _tasks() -> str:
    parts = ["## Tasks", ""]
    for task_id, description in describe_tasks().items():
        parts += [f"### `{task_id}`", "", _cell(description), ""]
        try:
            spec, task = task_spec(task_id), create_task(task_id)
        except (TaskLoadError, ConfigError) as err:
            parts += [f"Could not be loaded here: {_cell(str(err))}", ""]
            continue
        if spec.settings is not None:
            lead = "What the experiment fixes (its `task_settings:` section)."
            parts += [_model_section(spec.settings, lead, level=4)]
        parts += ["The knobs a designer may turn:", "", "| path | bounds | what |", "|---|---|---|"]
        parts += [
            f"| `{k.path}` | {k.bounds_text} | {_cell(k.description)} |" for k in task.knobs()
        ]
        parts += [
            "",
            f"Cuts: {_listing(task.cuts)}. Failure types: {_listing(task.failure_types)}. "
            f"Optimal kinds: {_listing(task.optimal_kinds)}. Suites: {_listing(task.suite_names)} "
            f"(validation `{task.validation_suite}`; benchmarks "
            f"{_listing(task.benchmark_suites)}).",
            "",
            *_gallery(task),
        ]
    return "\n".join(parts)


def _gallery(task: Task[Any, Any]) -> list[str]:
    """An item of the validation suite per value of the task's first cut: what the policy is
    asked, and the task's own reference answer, as collapsed blocks."""
    cut = task.cuts[0] if task.cuts else None
    shown: dict[str, SuiteItem[Any]] = {}
    for item in task.suite(task.validation_suite).items:
        shown.setdefault(item.cuts.get(cut, "") if cut else "", item)
    parts = [f"Examples from `{task.validation_suite}`, one per {cut or 'suite'}:", ""]
    for value, entry in shown.items():
        asked = task.prompt(entry.item)[-1]["content"]
        answer = task.reference_answer(entry.item) or "(none: judged by the task)"
        title = f"{cut} {value}: `{entry.id}`" if cut else f"`{entry.id}`"
        parts += [f'??? example "{title}"', "", _indented(asked, "text"), "",
                  "    Reference answer:", "", _indented(answer, "text"), ""]  # fmt: skip
    return parts


def _indented(text: str, language: str) -> str:
    """A fenced block inside a collapsed admonition (indented four spaces)."""
    fence = "````" if "```" in text else "```"
    lines = [f"{fence}{language}", *text.splitlines(), fence]
    return "\n".join(f"    {line}" if line else "" for line in lines)


def _model_section(model: type[BaseModel], lead: str, level: int = 3) -> str:
    """A model's fields as a table, then a table of each section nested in it."""
    doc = (model.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    parts = [f"{'#' * level} {model.__name__}", "", lead, "", doc, "", _fields_table(model), ""]
    for name, field in model.model_fields.items():
        nested = _nested_model(field.annotation)
        if nested is not None:
            parts.append(_model_section(nested, f"Its `{name}:` section.", min(level + 1, 6)))
    return "\n".join(parts)


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The section model a field holds (itself or optional), None for a plain value."""
    candidates = [annotation, *typing.get_args(annotation)]
    return next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)


def _fields_table(model: type[BaseModel]) -> str:
    rows = ["| field | type | default | what |", "|---|---|---|---|"]
    for name, field in model.model_fields.items():
        rows.append(
            f"| `{name}` | {_cell(_type_text(field.annotation))} | {_cell(_default(field))} | "
            f"{_cell(field.description or '')} |"
        )
    return "\n".join(rows)


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: Any = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return f"its section's defaults ({type(value).__name__})"
    text = json.dumps(value, default=str)
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


def _type_text(annotation: Any) -> str:
    """A field's type as a reader writes it: ``int | None``, ``Literal['fp32', 'bf16']``."""
    if annotation is None or annotation is type(None):
        return "None"
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_text(arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return " | ".join(repr(arg) for arg in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _type_text(typing.get_args(annotation)[0])
    if annotation is Ellipsis:
        return "..."
    if origin is not None:
        args = ", ".join(_type_text(arg) for arg in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _tasks_cell(served: tuple[str, ...] | None) -> str:
    return "any" if served is None else ", ".join(served)


def _listing(values: Sequence[str]) -> str:
    return ", ".join(f"`{value}`" for value in values) or "none"


def _anchor(model: type[BaseModel]) -> str:
    return model.__name__.lower()


def _cell(text: str) -> str:
    """Text that stays inside one table cell, read as text (``llm:<model>`` is no HTML tag)."""
    parts = " ".join(text.split()).replace("|", "\\|").split("`")
    for i in range(0, len(parts), 2):  # outside code spans (inside, Markdown shows text as is)
        parts[i] = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


if __name__ == "__main__":
    print(registry_markdown())
