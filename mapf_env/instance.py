"""The puzzle a policy is asked to solve, and the answer key the generator attaches to it.

An `Instance` is immutable and fully self-describing: the grid rows, the agents' starts and
goals, and (once the generator has solved it) its `Optimum`. Everything downstream -- prompt,
verifier, reward, dataset export -- reads only this record, so an instance written to disk and
read back behaves exactly like the one the generator made.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field, model_validator

Cell = tuple[int, int]
"""A grid cell as ``(row, col)``, 0-indexed, row 0 at the top."""
Path = tuple[Cell, ...]
"""An agent's cells from t=0; after its last entry the agent stays there for good."""
Plan = tuple[Path, ...]
"""One path per agent, in agent order."""

ICE = "."
HOLE = "H"
MIN_SIZE = 3
MAX_SIZE = 10
SIZES: tuple[int, ...] = tuple(range(MIN_SIZE, MAX_SIZE + 1))


def size_name(size: int) -> str:
    """How people and configs write a map size: `7x7`."""
    return f"{size}x{size}"


class Objective(StrEnum):
    """What "optimal" means for an instance; recorded with every optimum."""

    SOC = "soc"
    MAKESPAN = "makespan"


class Optimum(BaseModel):
    """The exact solver's answer key for one instance.

    `cost` is the optimal value of `objective` (what the prompt asks for and the training reward
    pays); `soc` and `makespan` describe `plan`, one plan optimal for `objective` (other optimal
    plans may exist, so a response is judged by its cost, never by equality with this plan).

    `min_soc` and `min_makespan` are the two objectives' exact minima, each proven by a solve
    for that objective: the SOC-optimal plan's makespan is often above the minimal makespan, so
    neither can be read off the other's plan. The one for `objective` is always `cost`; the
    other is None until a solver for it has run (training instances carry only the objective
    they are trained on; benchmark suites from version 2 on carry both).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    objective: Objective = Field(description="The objective `cost` is optimal for.")
    cost: int = Field(ge=0, description="Optimal value of the objective.")
    soc: int = Field(ge=0, description="Sum of costs of `plan`.")
    makespan: int = Field(ge=0, description="Makespan of `plan`.")
    individual: tuple[int, ...] = Field(
        description="Each agent's shortest-path length with the other agents ignored."
    )
    needs_conflict_resolution: bool = Field(
        description="Optimal SOC exceeds the sum of `individual` (agents must wait or detour)."
    )
    plan: Plan = Field(description="One optimal plan.")
    min_soc: int | None = Field(
        default=None, ge=0, description="Exact minimal SOC (None: not solved for SOC)."
    )
    min_makespan: int | None = Field(
        default=None, ge=0, description="Exact minimal makespan (None: not solved for it)."
    )

    @model_validator(mode="after")
    def _objective_minimum_is_cost(self) -> Optimum:
        own = "min_soc" if self.objective is Objective.SOC else "min_makespan"
        value = getattr(self, own)
        if value is None:
            object.__setattr__(self, own, self.cost)  # frozen: filled once, at validation
        elif value != self.cost:
            raise ValueError(f"{own} {value} differs from cost {self.cost} ({self.objective})")
        return self

    def minimum(self, objective: Objective) -> int | None:
        """The exact minimum of `objective`, or None when it was never solved for."""
        # `Objective(...)`: a plain "soc" must not be read as the makespan (see `paths.plan_cost`).
        return self.min_soc if Objective(objective) is Objective.SOC else self.min_makespan


class Instance(BaseModel):
    """One MAPF-FrozenLake puzzle: an N x N grid of ice and holes; k agents, starts and goals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    grid: tuple[str, ...] = Field(description="Rows top to bottom; '.' is ice, 'H' is a hole.")
    starts: tuple[Cell, ...] = Field(description="Agent i starts at starts[i].")
    goals: tuple[Cell, ...] = Field(description="Agent i must end at goals[i].")
    optimum: Optimum | None = Field(default=None, description="Answer key, once solved.")
    id: str | None = Field(default=None, description="Stable name, e.g. 'r7-s5-i0042'.")

    @model_validator(mode="after")
    def _check(self) -> Instance:
        n = len(self.grid)
        if n < 1:
            raise ValueError("grid has no rows")
        for r, row in enumerate(self.grid):
            if len(row) != n:
                raise ValueError(f"grid row {r} has {len(row)} cells; the grid must be {n}x{n}")
            bad = set(row) - {ICE, HOLE}
            if bad:
                raise ValueError(f"grid row {r} has cells {sorted(bad)}; only '.' and 'H' exist")
        if not self.starts:
            raise ValueError("an instance needs at least one agent")
        if len(self.starts) != len(self.goals):
            raise ValueError(f"{len(self.starts)} starts but {len(self.goals)} goals")
        for name, cells in (("start", self.starts), ("goal", self.goals)):
            for i, (r, c) in enumerate(cells):
                if not (0 <= r < n and 0 <= c < n):
                    raise ValueError(f"agent {i} {name} {(r, c)} lies outside the {n}x{n} grid")
                if self.grid[r][c] == HOLE:
                    raise ValueError(f"agent {i} {name} {(r, c)} is on a hole")
            if len(set(cells)) != len(cells):
                raise ValueError(f"two agents share a {name} cell: {list(cells)}")
        if self.optimum is not None and len(self.optimum.individual) != len(self.starts):
            raise ValueError("optimum.individual must have one entry per agent")
        return self

    @property
    def size(self) -> int:
        return len(self.grid)

    @property
    def n_agents(self) -> int:
        return len(self.starts)

    @cached_property
    def holes(self) -> frozenset[Cell]:
        return frozenset(
            (r, c) for r, row in enumerate(self.grid) for c, ch in enumerate(row) if ch == HOLE
        )

    def in_bounds(self, cell: Cell) -> bool:
        r, c = cell
        return 0 <= r < self.size and 0 <= c < self.size

    def is_free(self, cell: Cell) -> bool:
        """In bounds and not a hole."""
        return self.in_bounds(cell) and self.grid[cell[0]][cell[1]] != HOLE

    def without_optimum(self) -> Instance:
        return self.model_copy(update={"optimum": None})
