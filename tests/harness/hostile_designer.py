"""A plug-in designer that misbehaves on purpose, one way per `behaviour` option.

Installed for a test as an outside package would be (a module and a dist-info folder with its
entry point on the path), so the round loop meets it exactly as it would meet a user's plug-in.
"""

from __future__ import annotations

import math
import threading
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from designers import DesignContext, Proposal
from mapf_env import EnvConfig, SizeConfig

Behaviour = Literal[
    "good", "none", "dict", "huge", "construct", "nan", "unknown_size", "raise", "memory",
    "exit", "sleep", "bad_start",
]  # fmt: skip


class HostileOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    behaviour: Behaviour = "good"


class HostileDesigner:
    name = "hostile"
    description = "Test designer that breaks the designer contract in one chosen way."
    options_model = HostileOptions

    def __init__(self, behaviour: Behaviour = "good") -> None:
        self.behaviour = behaviour

    def initial_config(self, base: EnvConfig, seed: int, task: object) -> EnvConfig | None:
        if self.behaviour == "bad_start":
            return base.model_copy(update={"samples": 10**6})
        return None

    def propose(self, ctx: DesignContext) -> Any:
        good = Proposal(designer=self.name, config=ctx.config, rationale="keep")
        match self.behaviour:
            case "good" | "bad_start":
                return good
            case "none":
                return None
            case "dict":
                return {"designer": self.name, "config": ctx.config.model_dump()}
            case "huge":
                huge = ctx.config.model_copy(update={"samples": 10**6, "n_agents": 4})
                return good.model_copy(update={"config": huge})
            case "construct":
                sizes = {s: SizeConfig.model_construct(ratio=5.0, hole_ratio=0.9, wait_ratio=7.0)
                         for s in ctx.config.sizes}  # fmt: skip
                bad = EnvConfig.model_construct(**{**dict(ctx.config), "sizes": sizes})
                return Proposal.model_construct(**{**dict(good), "config": bad})
            case "nan":
                sizes = {s: v.model_copy(update={"hole_ratio": math.nan, "ratio": math.inf})
                         for s, v in ctx.config.sizes.items()}  # fmt: skip
                return good.model_copy(update={"config": ctx.config.model_copy(
                    update={"sizes": sizes})})  # fmt: skip
            case "unknown_size":
                sizes = {**ctx.config.sizes, 11: ctx.config.sizes[3]}
                return good.model_copy(update={"config": ctx.config.model_copy(
                    update={"sizes": sizes})})  # fmt: skip
            case "raise":
                raise RuntimeError("the plug-in's own bug")
            case "memory":
                raise MemoryError("cannot allocate 64 GiB")
            case "exit":
                raise SystemExit(3)
            case "sleep":
                threading.Event().wait()  # never returns
        raise AssertionError(self.behaviour)


ENTRY_POINTS = "[harness.designers]\nhostile = hostile_designer:HostileDesigner\n"
