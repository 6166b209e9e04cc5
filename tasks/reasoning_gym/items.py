"""One reasoning-gym question as the harness carries it, and the seeds items come from.

An item is a frozen, hashable, picklable value: the dataset and level it came from, the
question, the reference answer and the entry's metadata as canonical JSON (sorted keys, no
spaces), which is what the dataset's `score_answer` reads back. Seeds are derived with sha256
from text, never with `hash()`, so they are the same in every process and on every machine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["RgItem", "canonical_json", "derived_seed", "item_from_entry", "item_from_text"]

SEED_SALT = "envdesign-bench/reasoning-gym-v1"


@dataclass(frozen=True, slots=True)
class RgItem:
    """A question of reasoning-gym dataset `dataset` at curriculum level `level`."""

    dataset: str
    level: int
    question: str
    answer: str | None
    metadata: str
    """The entry's metadata as canonical JSON (`canonical_json`)."""

    def entry(self) -> dict[str, Any]:
        """The entry as reasoning-gym made it, for its scorer (a fresh copy each call)."""
        return {
            "question": self.question,
            "answer": self.answer,
            "metadata": json.loads(self.metadata),
        }

    def fields(self) -> dict[str, Any]:
        """The item's content, for checksums."""
        return {
            "dataset": self.dataset,
            "level": self.level,
            "question": self.question,
            "answer": self.answer,
            "metadata": self.metadata,
        }


def canonical_json(value: Any) -> str:
    """`value` as JSON that is the same wherever it is written: sorted keys, ASCII, no spaces
    (floats are written by `repr`, the shortest round-tripping form, on every platform)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def item_from_entry(dataset: str, level: int, entry: dict[str, Any]) -> RgItem:
    """The item for one of reasoning-gym's entries."""
    try:
        metadata = canonical_json(entry.get("metadata", {}))
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"reasoning-gym dataset {dataset!r} puts values in its metadata that JSON cannot "
            f"hold ({err}); this task cannot store its items"
        ) from None
    answer = entry.get("answer")
    return RgItem(
        dataset=dataset,
        level=level,
        question=str(entry["question"]),
        answer=None if answer is None else str(answer),
        metadata=metadata,
    )


def derived_seed(*parts: object) -> int:
    """A 32-bit seed from `parts` (e.g. a round's seed and a dataset's name)."""
    text = "/".join([SEED_SALT, *(str(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


_TYPES: dict[str, tuple[type, ...]] = {
    "dataset": (str,), "level": (int,), "question": (str,), "answer": (str, type(None)),
    "metadata": (str,),
}  # fmt: skip


def item_from_text(text: str) -> RgItem:
    """The item `canonical_json(item.fields())` wrote; ValueError for text that is not one
    (read as data: a dataset row is not trusted to hold what it should)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as err:
        raise ValueError(f"an item's text is not JSON ({err})") from None
    if not isinstance(data, dict) or set(data) != set(_TYPES):
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"an item's text holds {keys}, not the fields {sorted(_TYPES)}")
    for name, types in _TYPES.items():
        value = data[name]
        if not isinstance(value, types) or isinstance(value, bool):
            raise ValueError(f"an item's {name} is {type(value).__name__}, not {types[0].__name__}")
    try:
        json.loads(data["metadata"])
    except ValueError as err:
        raise ValueError(f"an item's metadata is not JSON ({err})") from None
    return RgItem(**data)
