"""reasoning-gym as this task reads it: its registry, curricula, seeded datasets and scorers.

The only module that touches reasoning-gym, always inside a function, so importing the task's
spec never needs the package. A dataset's *level* is its curriculum's global level
(`BaseCurriculum.set_global_level`: every attribute at that level, or at its own highest where
it has fewer), turned into a dataset config by `BaseCurriculum.generate_configuration` with
reasoning-gym's default context (ranges inclusive: level 2 spans the values of levels 0..2).
Generation is reasoning-gym's own: a dataset built with a seed gives item i from
``Random(seed + i)``.
"""

from __future__ import annotations

import difflib
import functools
import importlib.metadata
import math
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "Scorer",
    "curriculum_names",
    "entries",
    "max_level",
    "names_problem",
    "rg_version",
    "scorer",
]

DISTRIBUTION = "reasoning-gym"

Scorer = Callable[[str | None, dict[str, Any]], float]


def _factory() -> Any:
    """reasoning-gym's registry module, every dataset registered (importing the package
    imports every dataset module, and each registers itself)."""
    from reasoning_gym import factory

    return factory


def rg_version() -> str:
    """The installed reasoning-gym's version (its distribution's, which its `__version__`
    does not always follow)."""
    _factory()  # ImportError when reasoning-gym is missing, as everywhere else
    return importlib.metadata.version(DISTRIBUTION)


@functools.cache
def curriculum_names() -> tuple[str, ...]:
    """The datasets this task can offer: those with a curriculum, sorted."""
    return tuple(sorted(_factory().CURRICULA))


def names_problem(names: Sequence[str]) -> str | None:
    """One line saying which of `names` the task cannot offer, or None when all are fine."""
    offered = curriculum_names()
    registered = set(_factory().DATASETS)
    wrong: list[str] = []
    for name in names:
        if name in offered:
            continue
        if name in registered:
            wrong.append(f"reasoning-gym dataset {name!r} has no curriculum, so no levels")
            continue
        close = difflib.get_close_matches(name, offered, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        wrong.append(f"no reasoning-gym dataset {name!r}{hint}")
    if not wrong:
        return None
    return f"{'; '.join(wrong)}; datasets with a curriculum: {', '.join(offered)}"


@functools.cache
def max_level(name: str) -> int:
    """The highest global level of `name`'s curriculum: its longest attribute's last level."""
    curriculum = _factory().create_curriculum(name)
    return max((len(attr.levels) - 1 for attr in curriculum.attributes.values()), default=0)


def _dataset(name: str, level: int, seed: int, size: int) -> Any:
    factory = _factory()
    curriculum = factory.create_curriculum(name)
    curriculum.set_global_level(min(max(level, 0), max_level(name)))
    config = curriculum.generate_configuration({"seed": seed, "size": size})
    dataset_cls, _ = factory.DATASETS[name]
    return dataset_cls(config=config)


def entries(name: str, level: int, seed: int, count: int) -> list[dict[str, Any]]:
    """`count` entries (question, answer, metadata) of dataset `name` at `level`, seeded."""
    if count <= 0:
        return []
    dataset = _dataset(name, level, seed, count)
    return [dict(dataset[i]) for i in range(count)]


@functools.cache
def scorer(name: str, level: int) -> Scorer:
    """`score_answer` of dataset `name` built at `level` (the config a scorer may read is
    the one the item was generated under; the seed does not enter scoring)."""
    score_answer = _dataset(name, level, 0, 1).score_answer

    def score(answer: str | None, entry: dict[str, Any]) -> float:
        value = float(score_answer(answer, entry))
        return min(max(value, 0.0), 1.0) if math.isfinite(value) else 0.0

    return score
