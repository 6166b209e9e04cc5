"""What a solve returns, and the limits that keep a pathological search from hanging.

Every search in the solver charges one unit per expanded node to a shared `Budget` and checks
the wall clock every few hundred units, so a search always ends with either a proof (OPTIMAL or
UNSOLVABLE) or a LIMIT whose `reason` says which limit was hit and what was left unproven.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

from mapf_env.instance import Objective, Plan


class SolveStatus(StrEnum):
    """Outcome of `solve`."""

    OPTIMAL = "optimal"
    UNSOLVABLE = "unsolvable"
    LIMIT = "limit"


@dataclass(frozen=True)
class SolverLimits:
    """Search budget: expanded search nodes (all searches together) and wall-clock seconds."""

    max_nodes: int = 2_000_000
    time_limit_s: float = 10.0


@dataclass(frozen=True)
class SolveResult:
    """One solve: the status, the plan and its cost when OPTIMAL, and how much work it took.

    `method` names the search that produced the answer; `reason` explains an UNSOLVABLE or
    LIMIT status in words.
    """

    status: SolveStatus
    objective: Objective
    plan: Plan | None
    cost: int | None
    nodes: int
    seconds: float
    method: str
    reason: str = ""


class BudgetExceeded(Exception):
    """Raised inside a search when the node or time limit is spent."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class Budget:
    """Node counter plus deadline shared by all the searches of one solve."""

    __slots__ = ("_next_check", "deadline", "max_nodes", "nodes", "started")

    def __init__(self, limits: SolverLimits) -> None:
        self.started = time.perf_counter()
        self.deadline = self.started + limits.time_limit_s
        self.max_nodes = limits.max_nodes
        self.nodes = 0
        self._next_check = 256

    def charge(self, units: int = 1) -> None:
        """Count `units` expansions; raise BudgetExceeded when a limit is spent."""
        self.nodes += units
        if self.nodes > self.max_nodes:
            raise BudgetExceeded(f"node limit {self.max_nodes} reached")
        if self.nodes >= self._next_check:
            self._next_check = self.nodes + 256
            if time.perf_counter() > self.deadline:
                raise BudgetExceeded(f"time limit {self.deadline - self.started:.3g} s reached")

    def elapsed(self) -> float:
        return time.perf_counter() - self.started
