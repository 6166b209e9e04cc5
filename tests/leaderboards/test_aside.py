"""Work done aside comes back as its result or its error, forked or (on one CPU) done here."""

from __future__ import annotations

import os

import pytest

from leaderboards import aside as module
from leaderboards.aside import aside


def _square(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _fail(message: str) -> None:
    raise ValueError(message)


@pytest.mark.parametrize("cpus", [1, 2])
def test_the_result_or_the_error_comes_back(monkeypatch: pytest.MonkeyPatch, cpus: int) -> None:
    monkeypatch.setattr(module.os, "cpu_count", lambda: cpus)
    with aside(_square, 7) as future:
        value, pid = future.result()
    assert value == 49
    assert (pid == os.getpid()) == (cpus == 1), "forked only with a second CPU"
    with aside(_fail, "planted") as future, pytest.raises(ValueError, match="planted"):
        future.result()
