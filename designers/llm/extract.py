"""From a model's answer to a legal configuration, or an error string -- never an exception.

Model text is untrusted. The answer's reasoning (``<think>``) is dropped, the LAST fenced
```yaml block is taken (a bare answer is read whole), and the YAML is first *parsed into
events* with bounded work -- size, node count, nesting depth, no aliases (billion laughs), no
tags -- before `yaml.safe_load` builds it. The result must be a mapping; the task's `project`
then makes it legal. Any failure is a short message the designer shows the model on retry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel

from envdesign_common import InputError, YamlLimits, check_yaml
from envdesign_common.think_tags import strip_think
from tasks import DEFAULT_TASK, Projected, Task, cached_task

MAX_ANSWER_CHARS = 20_000
"""Visible answer (reasoning removed) longer than this is rejected unread."""
MAX_RAW_CHARS = 2_000_000
"""Raw answer (reasoning included) beyond this is not even scanned for ``<think>``."""
MAX_YAML_CHARS = 8_000
MAX_YAML_NODES = 400
MAX_YAML_DEPTH = 6
ANSWER_LIMITS = YamlLimits(
    max_nodes=MAX_YAML_NODES, max_depth=MAX_YAML_DEPTH, aliases=False, tags=False
)
"""Model text gets the shared event check with stricter bounds than files: no aliases or tags."""

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_YAML_LANGS = {"yaml", "yml"}
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ExtractError(ValueError):
    """The answer held no usable change set; the message says why, briefly."""


@dataclass(frozen=True)
class Extraction:
    """A usable answer: the change set, its projection, and the visible text around it."""

    changes: dict[Any, Any]
    projection: Projected[Any]
    visible: str


def visible_text(answer: str) -> str:
    """The answer without its reasoning; raises on answers too large to handle."""
    if len(answer) > MAX_RAW_CHARS:
        raise ExtractError(f"the answer is {len(answer)} characters; far too long")
    visible = strip_think(answer).strip()
    if len(visible) > MAX_ANSWER_CHARS:
        raise ExtractError(
            f"the answer is {len(visible)} characters; keep it under {MAX_ANSWER_CHARS}"
        )
    return visible


def yaml_block(visible: str) -> str:
    """The last ```yaml block; else the last plain ``` block; else the whole answer."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(visible)]
    tagged = [body for lang, body in blocks if lang in _YAML_LANGS]
    plain = [body for lang, body in blocks if not lang]
    if tagged:
        return tagged[-1]
    if plain:
        return plain[-1]
    return visible


def parse_changes(block: str) -> dict[Any, Any]:
    """Safely read a YAML change set; it must be a mapping."""
    if len(block) > MAX_YAML_CHARS:
        raise ExtractError(f"the YAML block is {len(block)} characters; keep it short")
    try:
        check_yaml(block, ANSWER_LIMITS)
        data = yaml.load(block, Loader=_Loader)
    except InputError as err:
        raise ExtractError(str(err)) from None
    except yaml.YAMLError as err:
        raise ExtractError(f"not valid YAML: {_one_line(str(err))}") from None
    except RecursionError:
        raise ExtractError("the YAML block is too deeply nested") from None
    if data is None:
        raise ExtractError("no YAML change set found; answer with a fenced ```yaml block")
    if not isinstance(data, Mapping):
        raise ExtractError(
            f"the YAML must be a mapping of the configuration's keys, got {type(data).__name__}"
        )
    return dict(data)


def extract(answer: str, config: BaseModel, task: Task[Any, Any] | None = None) -> Extraction:
    """The answer's change set projected onto `config` by `task` (default: the default task,
    MAPF-FrozenLake); raises `ExtractError` only."""
    visible = visible_text(answer)
    changes = parse_changes(yaml_block(visible))
    judge = task if task is not None else cached_task(DEFAULT_TASK)
    try:
        projection = judge.project(config, changes)
    except ValueError as err:  # ConfigError and pydantic's errors are ValueErrors
        raise ExtractError(_one_line(str(err))) from None
    except (ArithmeticError, TypeError, RecursionError) as err:
        raise ExtractError(f"unusable values ({type(err).__name__})") from None
    return Extraction(changes=changes, projection=projection, visible=visible)


def try_extract(
    answer: str, config: BaseModel, task: Task[Any, Any] | None = None
) -> Extraction | str:
    """`extract`, with every failure turned into its message (for the designer loop)."""
    try:
        return extract(answer, config, task)
    except ExtractError as err:
        return str(err)
    except Exception as err:  # a bug below us must not stop a training run; say what it was
        return f"internal error while reading the answer: {type(err).__name__}"


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
