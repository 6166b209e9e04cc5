"""The chat prompt a policy reads for one instance, and the answer format it must write back.

The prompt is part of the training environment: a change to a single word changes what the policy
learns, so all wording lives in the constants below (bump `PROMPT_VERSION` with any change, and
regenerate the golden prompts under `tests/golden/prompts/` so the diff is reviewed on purpose).
Rendering is a pure function of the instance: the same instance always yields identical strings,
which keeps datasets byte-reproducible from a seed.

The prompt stays short (a 10x10, 5-agent prompt is a few hundred tokens) because the training recipe
caps prompts at 1536 tokens and the chat template and reasoning budget need the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from mapf_env.instance import Cell, Instance, Objective

PROMPT_VERSION = "1"
"""Recorded with exported datasets; bump whenever any text below changes."""

SYSTEM_PROMPT = (
    "You are an expert planner for multi-agent pathfinding. You find collision-free paths that "
    "bring every agent to its goal at the lowest possible cost, and you answer in exactly the "
    "requested format."
)

RULES = "\n".join(
    [
        "Rules:",
        "- Time is discrete. At each step every agent either moves to a 4-neighbour cell (up, down,"
        " left, right) or WAITs (stays in place; write its cell again).",
        "- Agents must stay inside the grid and must never enter a hole 'H'.",
        "- Vertex conflict (forbidden): two agents in the same cell at the same time.",
        "- Edge conflict (forbidden): two agents swapping cells between time t and t+1.",
        "- After its path ends, an agent stays on its last cell for good, and that cell still"
        " blocks the other agents.",
        "- Every agent must end on its goal.",
    ]
)

OBJECTIVE_TEXT: dict[Objective, str] = {
    Objective.SOC: (
        "Objective: minimise the sum of costs. An agent's cost is the number of time steps until it"
        " reaches its goal for the last time (waiting on its goal at the end is free); add the"
        " costs of all agents."
    ),
    Objective.MAKESPAN: (
        "Objective: minimise the makespan, the number of time steps until the last agent reaches"
        " its goal for good (waiting on a goal at the end is free)."
    ),
}

ANSWER_FORMAT = "\n".join(
    [
        "Answer format: end your reply with exactly one line per agent, in agent order, listing the"
        " agent's cells from its start (time 0) to its goal, one cell per time step, for example:",
        "Agent 1: (0,0) (0,1) (1,1)",
        "Write nothing after these lines.",
    ]
)

DEFAULT_OBJECTIVE = Objective.SOC
"""Used for instances without an optimum, matching the generator's default objective."""


def format_cell(cell: Cell) -> str:
    """`(row,col)` without spaces, so a cell is one whitespace-separated token in an answer."""
    return f"({cell[0]},{cell[1]})"


def format_plan(plan: Sequence[Sequence[Cell]], base: int = 1) -> str:
    """A plan written exactly as the prompt asks the policy to answer (no trailing newline).

    Used for reference answers and tests, so the parser is always exercised on the format the
    prompt promises; `base=0` writes the 0-based numbering the parser also accepts.
    """
    return "\n".join(
        f"Agent {i}: " + " ".join(format_cell(c) for c in path) for i, path in enumerate(plan, base)
    )


def render_grid(grid: tuple[str, ...]) -> str:
    """Grid rows with column indices on top and row indices on the left.

    Index labels let the model read coordinates off the picture instead of counting characters,
    which is where small models most often go wrong.
    """
    width = len(str(len(grid) - 1))
    pad = " " * width
    header = pad + " " + " ".join(str(c).rjust(width) for c in range(len(grid)))
    rows = [
        str(r).rjust(width) + " " + " ".join(ch.rjust(width) for ch in row)
        for r, row in enumerate(grid)
    ]
    return "\n".join([header, *rows])


def render_agents(instance: Instance) -> str:
    return "\n".join(
        f"Agent {i}: start {format_cell(s)}, goal {format_cell(g)}"
        for i, (s, g) in enumerate(zip(instance.starts, instance.goals, strict=True), 1)
    )


def objective_of(instance: Instance) -> Objective:
    """The objective the instance is judged on: its optimum's, else the default."""
    return instance.optimum.objective if instance.optimum is not None else DEFAULT_OBJECTIVE


def render_user(instance: Instance) -> str:
    n, k = instance.size, instance.n_agents
    agents = "agent" if k == 1 else "agents"
    sections = [
        f"Plan paths for {k} {agents} on a {n}x{n} frozen lake.",
        "Grid ('.' = ice, 'H' = hole; column numbers on top, row numbers on the left):\n"
        + render_grid(instance.grid),
        "Cells are written (row,col), 0-indexed; row 0 is the top row, column 0 the left column.",
        "Agents:\n" + render_agents(instance),
        RULES,
        OBJECTIVE_TEXT[objective_of(instance)],
        ANSWER_FORMAT,
    ]
    return "\n\n".join(sections)


def render_prompt(instance: Instance) -> list[dict[str, str]]:
    """Chat messages (system, user) in the shape verl's RL dataset and chat templates expect."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": render_user(instance)},
    ]


def reference_answer(instance: Instance) -> str:
    """The optimum's plan in answer format: a known-good response for tests and SFT warm-ups."""
    if instance.optimum is None:
        raise ValueError(
            f"instance {instance.id or '<no id>'} has no optimum; solve it before asking for a "
            "reference answer"
        )
    return format_plan(instance.optimum.plan)
