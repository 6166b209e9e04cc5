"""Each designer's part of a board computed by a forked process per CPU is the part computed
in this process: the same board, field by field, whichever path made it."""

from __future__ import annotations

import pytest

from leaderboards import LoadedRun, build_board
from leaderboards import designer_parts as parts
from tests.leaderboards.handmade import rates, run

FAST = 300


def _runs() -> list[LoadedRun]:
    """Twelve designers (random and the controls among them) of three seeds each."""
    names = ["random", "matched", "harder", *(f"d{n}" for n in range(9))]
    return [
        run(name, seed, rates({3: (100, v, v // 2), 4: (100, v - 3, v // 3)}))
        for i, name in enumerate(names)
        for seed, v in enumerate((10 + 5 * i, 12 + 5 * i, 9 + 5 * i))
    ]


def test_parts_from_a_process_per_cpu_make_the_board_made_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = _runs()
    monkeypatch.setattr(parts.os, "cpu_count", lambda: 1)
    here = build_board(runs, resamples=FAST)
    monkeypatch.setattr(parts.os, "cpu_count", lambda: 2)
    forked: list[object] = []
    real = parts.ProcessPoolExecutor

    def counted(*args: object, **kwargs: object) -> object:
        forked.append(args)
        return real(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(parts, "ProcessPoolExecutor", counted)
    spread = build_board(runs, resamples=FAST)
    assert forked, "twelve designers are computed by a process per CPU"
    assert spread.model_dump(exclude={"git_commit"}) == here.model_dump(exclude={"git_commit"})
    assert spread.controls is not None and spread.controls.normalised
    assert spread.improvements and spread.details and spread.profiles
