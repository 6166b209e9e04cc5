"""`check_designer` over every registered designer (built-ins and LLM ones alike), and proof that
each of its checks fails, with its fix, on a designer broken in just that way.

Every designer sees the same `sample_contexts` and must return a `Proposal` whose configuration
is legal as it stands, names itself, keeps the experiment's fixed fields, and reads back from
JSON. LLM designers answer through the local OpenAI-compatible test server, reached through
LiteLLM exactly as a real endpoint would be.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from designers import (
    DesignContext,
    Designer,
    DesignerConformanceError,
    Proposal,
    RuleDesigner,
    check_designer,
    create_designer,
    designer_names,
    sample_contexts,
)
from mapf_env import EnvConfig
from tests.designers.openai_server import FAST, ScriptedServer

MODEL_FREE = [
    "random",
    "uniform",
    "hand",
    "evidence",
    "harder",
    "matched",
    "learning-progress",
    "regret",
]
IDENTITY = ("name", "description", "backend_endpoints")  # checked once, on no context
LLM_NAMES = ["gpt", "gemini", "grok", "kimi", "claude", "llm", "self", "base"]


def test_every_registered_designer_is_covered() -> None:
    assert set(designer_names()) <= set(MODEL_FREE) | set(LLM_NAMES) | {"echo"}


@pytest.mark.parametrize("name", MODEL_FREE)
def test_model_free_designers_conform(name: str) -> None:
    designer = create_designer(name)
    assert designer.name == name
    assert len(check_designer(designer)) == len(sample_contexts())


def build_llm(
    name: str, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp: Path
) -> Designer:
    """The registered designer `name`, through its real factory, talking to the test server."""
    aliases = tmp / "models.yaml"  # every alias pointed at an OpenAI-compatible model name
    aliases.write_text("".join(f"{a}: openai/{a}-test\n" for a in LLM_NAMES[:5]))
    monkeypatch.setenv("ENVDESIGN_LLM_MODELS", str(aliases))
    if name in ("self", "base"):
        return create_designer(name, endpoint=server.endpoint(), **FAST)
    spec = "llm:openai/any-model" if name == "llm" else name
    return create_designer(spec, api_base=server.base_url, **FAST)


@pytest.mark.parametrize("name", LLM_NAMES)
def test_llm_designers_conform(
    name: str, openai_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    designer = build_llm(name, openai_server, monkeypatch, tmp_path)
    proposals = check_designer(designer, check_determinism=False)  # a model need not repeat itself
    assert len(proposals) == len(sample_contexts())
    assert all(not p.kept_previous and p.transcript for p in proposals)
    openai_server.queue(*["no yaml at all"] * 10)  # a designer that never answers usefully
    ctx = sample_contexts()[1]
    [proposal] = check_designer(designer, [ctx], check_determinism=False)
    assert proposal.kept_previous and proposal.config == ctx.config and proposal.failures


class Sound(RuleDesigner):
    """A designer that passes every check; each broken one below breaks exactly one rule."""

    name = "sound"
    description = "Test designer: a little more budget to 3x3 every round."

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        return {"3x3": {"ratio": ctx.config.sizes[3].ratio + 0.05}}, "a little more 3x3"


class NoName(Sound):
    name = ""


class NoDescription(Sound):
    description = "  "


class UnknownEndpoint(Sound):
    backend_endpoints = ("policy", "checkpoint")


class Raises(Sound):
    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        raise KeyError("7x7")


class ReturnsConfig(Sound):
    def propose(self, ctx: DesignContext) -> Proposal:
        return ctx.config  # type: ignore[return-value]


class Edited(Sound):
    """Changes its proper proposal with `update` (model_copy skips validation)."""

    update: ClassVar[dict[str, Any]] = {}

    def propose(self, ctx: DesignContext) -> Proposal:
        return super().propose(ctx).model_copy(update=self.update)


class WrongName(Edited):
    update: ClassVar[dict[str, Any]] = {"designer": "Sound"}


class IllegalConfig(Sound):
    def propose(self, ctx: DesignContext) -> Proposal:
        sizes = {**ctx.config.sizes, 3: ctx.config.sizes[3].model_copy(update={"ratio": 0.9})}
        config = ctx.config.model_copy(update={"sizes": sizes})  # ratios now sum above 1
        return Proposal(designer=self.name, config=config, rationale="more 3x3")


class FreshConfig(Sound):
    def propose(self, ctx: DesignContext) -> Proposal:
        return Proposal(designer=self.name, config=EnvConfig.uniform(), rationale="uniform")


class NegativeSeconds(Edited):
    update: ClassVar[dict[str, Any]] = {"seconds": -1.0}


class KeptButChanged(Edited):
    update: ClassVar[dict[str, Any]] = {"kept_previous": True}


class ReasonWithoutKeeping(Edited):
    update: ClassVar[dict[str, Any]] = {"failure_reason": "rate limit"}


class NotJson(Sound):
    def propose(self, ctx: DesignContext) -> Proposal:
        return Proposal(designer=self.name, config=ctx.config, changes={"tried": {3, 4}})


class OwnStartIgnoresBase(Sound):
    def initial_config(self, base: EnvConfig, seed: int, task: object) -> EnvConfig | None:
        return EnvConfig.uniform()


class Drifts(Sound):
    """Keeps state between calls: the same context gets a different answer the second time."""

    calls = 0

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        self.calls += 1
        return {"3x3": {"ratio": 0.01 * self.calls}}, "drifting"


BROKEN = [
    (NoName, {"name"}, "set a short name"),
    (NoDescription, {"description"}, "shown by `harness designers list`"),
    (UnknownEndpoint, {"backend_endpoints"}, "list only 'policy'"),
    (Raises, {"propose"}, "instead of raising"),
    (ReturnsConfig, {"returns_proposal"}, "propose(ctx) returned EnvConfig, not a Proposal"),
    (WrongName, {"proposal_designer"},
     "proposal.designer is 'Sound' but designer.name is 'sound'; set Proposal(designer=self.name"),
    (IllegalConfig, {"legal_config"}, "project would change proposal.config: sizes.3x3.ratio"),
    (FreshConfig, {"fixed_fields"}, "proposal.config.objective is 'soc' but ctx.config.objective"),
    (NegativeSeconds, {"seconds"}, "proposal.seconds is -1.0"),
    (KeptButChanged, {"kept_previous"}, "returns config=ctx.config"),
    (ReasonWithoutKeeping, {"kept_previous"}, "'rate limit' but kept_previous is False"),
    (NotJson, {"json_round_trip"}, "proposal.changes differs"),
    (OwnStartIgnoresBase, {"initial_config"}, "initial_config(base, seed).n_agents is 2"),
    (Drifts, {"deterministic"}, "draw every random choice from ctx.seed"),
]  # fmt: skip


@pytest.mark.parametrize(("broken", "checks", "fix"), BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_each_check_fails_with_its_fix(broken: type[Sound], checks: set[str], fix: str) -> None:
    with pytest.raises(DesignerConformanceError) as caught:
        check_designer(broken())
    err = caught.value
    assert set(err.checks) == checks, str(err)
    assert fix in str(err)
    head, *lines = str(err).splitlines()  # one line per problem: check, context, seen; fix
    assert head.startswith(f"designer {broken().name or 'NoName'!r} has {len(lines)} ")
    assert lines == [f"  {p.check}{f' ({p.context})' * bool(p.context)}: {p.seen}; {p.fix}"
                     for p in err.problems]  # fmt: skip
    about_a_context = [p for p in err.problems if p.check not in IDENTITY]
    assert all(p.context.startswith("context ") for p in about_a_context)


def test_the_sound_designer_passes_and_problems_are_listed_once() -> None:
    assert len(check_designer(Sound())) == len(sample_contexts())
    with pytest.raises(DesignerConformanceError) as caught:
        check_designer(FreshConfig())
    err = caught.value
    # 3 agents, 120 samples and the makespan objective: only the last sample context shows them
    assert [p.context for p in err.problems] == ["context 3: round 1 of 4, seed 3"] * 3
    assert pickle.loads(pickle.dumps(err)).problems == err.problems


def test_what_is_no_designer_and_no_contexts_are_refused() -> None:
    with pytest.raises(
        DesignerConformanceError, match="'object' object lacks name, description, propose"
    ):
        check_designer(object())
    with pytest.raises(ValueError, match="no contexts: pass at least one DesignContext"):
        check_designer(Sound(), [])
