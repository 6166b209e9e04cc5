"""Designer entries: a registry spec plus, optionally, the context variant it runs under.

The paper's context ablation runs one model designer under each variant V1..V6 (and module T
with full RL details) side by side, so one comparison must name the same designer several
times and tell the runs apart everywhere a run is named (run directory, records, progress,
boards). An entry does both: ``gpt@V3`` is the designer ``gpt`` under variant V3, and
``gpt@V6+details`` is V6 with full RL details in T; the whole entry is the run's identity and
the part before the suffix is what the registry builds. Without a suffix an LLM designer runs
under the experiment's variant, as before.

A model string may hold an ``@`` of its own (``llm:vertex_ai/claude-3-5@20240620``), so after a
``name:arg`` spec only a suffix that looks like a variant (``V`` and a digit) is taken for one.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

MARK = "@"
"""Separates a spec from its variant suffix."""
DETAILS = "+details"
"""Suffix modifier: module T shows full RL details (the paper's ablation) instead of
bookkeeping only."""

_VARIANT_LIKE = re.compile(r"[Vv]\d")


@dataclass(frozen=True)
class DesignerEntry:
    """One designer of a comparison as written, and what its suffix fixes.

    `entry` is the identity (``gpt@V3``); `spec` the registry spec it is built from (``gpt``);
    `variant` the suffix's variant (None: no suffix, the experiment's variant applies) and
    `training_details` whether T shows full RL details.
    """

    entry: str
    spec: str
    variant: str | None = None
    training_details: bool = False

    @property
    def suffix(self) -> str:
        """``@V6+details``, or "" for an entry without one."""
        if self.variant is None:
            return ""
        return f"{MARK}{self.variant}{DETAILS if self.training_details else ''}"

    def options(self) -> dict[str, Any]:
        """The designer options the suffix sets (none without a suffix)."""
        if self.variant is None:
            return {}
        return {"variant": self.variant, "training_details": self.training_details}

    def no_variant_read(self) -> str:
        """The refusal of a suffix on a designer that reads no context variant."""
        return (
            f"designer {self.spec!r} reads no context variant, so it takes no {self.suffix!r} "
            f"suffix; write {self.spec}"
        )

    def conflicts(self, options: dict[str, Any]) -> list[str]:
        """The names of `options` that contradict the suffix (the identity must say the truth:
        ``gpt@V3`` never runs V2)."""
        if self.variant is None:
            return []
        said = {key: options[key] for key in ("variant", "training_details") if key in options}
        if "variant" in said:
            said["variant"] = str(said["variant"]).strip().upper()
        return [key for key, value in said.items() if value != self.options()[key]]


@cache
def variant_suffixes() -> tuple[str, ...]:
    """Every suffix an entry may carry: V1..V6, and +details on variants that have module T."""
    from designers.llm.variants import VARIANTS  # the LLM package only once a suffix is read

    plain = tuple(VARIANTS)
    detailed = tuple(f"{name}{DETAILS}" for name, v in VARIANTS.items() if "T" in v.modules)
    return plain + detailed


def parse_entry(entry: str) -> DesignerEntry:
    """`entry` split into spec and variant; `ValueError` (one line) for a bad suffix."""
    head, sep, tail = entry.rpartition(MARK)
    if not sep or (":" in head and not _VARIANT_LIKE.match(tail)):
        return DesignerEntry(entry=entry, spec=entry)
    if not head.strip():
        raise ValueError(f"designer {entry!r}: no designer name before {MARK!r} (e.g. gpt@V3)")
    if tail not in variant_suffixes():
        raise ValueError(_bad_suffix(entry, head, tail))
    variant, _, details = tail.partition("+")
    return DesignerEntry(entry=entry, spec=head, variant=variant, training_details=bool(details))


def _bad_suffix(entry: str, head: str, tail: str) -> str:
    choices = variant_suffixes()
    variant, plus, _ = tail.partition("+")
    with_t = [c.removesuffix(DETAILS) for c in choices if c.endswith(DETAILS)]
    if plus and variant in choices and f"{variant}{DETAILS}" not in choices:
        return (
            f"designer {entry!r}: {DETAILS} shows full RL details in module T, which only "
            f"{', '.join(with_t)} {'has' if len(with_t) == 1 else 'have'}; write {head}@{variant} "
            f"or {head}@{with_t[-1]}{DETAILS}"
        )
    same_case = [c for c in choices if c.upper() == tail.upper()]
    close = same_case or difflib.get_close_matches(tail, choices, n=1, cutoff=0.6)
    hint = f"; did you mean {head}{MARK}{close[0]}?" if close else ""
    return (
        f"designer {entry!r}: unknown context variant {tail!r}; the suffixes are "
        f"{', '.join(choices)} ({DETAILS}: module T with full RL details){hint}"
    )
