"""Typed designer options: what each designer accepts, checked before any training starts.

A designer declares its options as a pydantic model on the class or factory its entry point
names (``options_model = MyOptions``); a designer that declares none takes none. The harness
checks an experiment's ``designer_options`` against these models before the first round, so
a misspelt option (``frontier_bost``) or a wrong type is refused in one line per field, naming
the field path, instead of failing inside a worker after the other runs have finished.
Plug-ins declare their options exactly as the built-ins do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from envdesign_common.field_errors import field_error_lines


class NoOptions(BaseModel):
    """The options of a designer that declares none: nothing is accepted."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class DesignerOptionsError(ValueError):
    """Options that a designer's options model refuses; one line per bad field."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


def declared_options(target: Any) -> type[BaseModel]:
    """The options model a designer's class or factory declares (`NoOptions` if none)."""
    model = getattr(target, "options_model", None)
    if model is None:
        return NoOptions
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"options_model of {target!r} is not a pydantic model: {model!r}")
    return model


def option_problems(model: type[BaseModel], options: Mapping[str, Any], *, spec: str) -> list[str]:
    """One line per option of `spec` that `model` refuses (empty when all are fine)."""
    prefix = f"designer_options.{spec}"
    if model is NoOptions and options:
        names = ", ".join(sorted(str(k) for k in options))
        return [f"{prefix}: designer {spec!r} takes no options (it declares none); got {names}"]
    try:
        model.model_validate(dict(options))
    except ValidationError as err:
        return field_error_lines(err, model, prefix=f"{prefix}.")
    return []


def validated_options(
    model: type[BaseModel], options: Mapping[str, Any], *, spec: str
) -> dict[str, Any]:
    """`options` checked by `model`, as the keyword arguments the factory receives.

    Only the options given are passed on (the factory keeps its own defaults for the rest);
    values come back as the model parsed them, e.g. a nested mapping as the model it names.
    """
    problems = option_problems(model, options, spec=spec)
    if problems:
        raise DesignerOptionsError(problems)
    parsed = model.model_validate(dict(options))
    return {name: getattr(parsed, name) for name in parsed.model_fields_set}
