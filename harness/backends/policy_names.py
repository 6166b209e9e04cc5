"""Which policy names are the CPU learner's, and what a language-model backend says of them.

The trl and verl backends refuse the CPU learner's policy names and its precision setting in
one line each. They read those names here, outside the CPU backend's package, because importing
that package pins process-wide kernel and allocator settings that a language-model run must not
inherit.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["CPU_POLICIES", "Actions", "language_model_problems"]

Actions = Literal["masked", "free"]
"""What the policy may do wrong: ``masked`` (moves into holes or off the grid are masked out,
answers are always written correctly, so they fail only by conflict or goal) or ``free`` (every
failure type of the verifier is one of the policy's own sampled choices, as the modules
`policy`, `rollout` and `writing` of this package say)."""


CPU_POLICIES: dict[str, Actions] = {"mlp": "masked", "mlp-free": "free"}
"""The cpu backend's policies, each with the `CpuLearnerSettings.actions` it trains: ``mlp``
never steps into a hole or off the grid and always writes its answer correctly (it fails only
by conflict or goal); ``mlp-free`` can make every mistake the verifier names and learns not to
(`harness.backends.cpu.writing`). The name is the config's `policy`, so every record keeps it
and boards never pool the two."""


def language_model_problems(backend: str, policy: str, precision: str, dtypes: str) -> list[str]:
    """One line per problem with a language-model backend's `policy` and `precision`: the CPU
    learner's network and its precision setting are not for it (`dtypes`: where it sets its
    float formats instead)."""
    if precision != "fp32":
        return [
            f"precision {precision} is the cpu backend's setting; {backend} sets its float "
            f"formats in {dtypes}: leave precision out"
        ]
    if policy in CPU_POLICIES:
        return [
            f"policy {policy!r} is the CPU learner's network; the {backend} backend trains a "
            "Hugging Face model: set policy (a hub id or a local directory, e.g. --set "
            "policy=Qwen/Qwen3-4B)"
        ]
    return []
