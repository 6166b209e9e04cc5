"""The designer variants V1-V6: which context modules go into the analysis prompt.

The paper ablates the context a model designer sees: F (failure breakdown), G (guidelines),
H (history; V3 with round 0's default configuration, V4 without), S (the model's own summary of
the previous round) and T (training details). V6 = F+G+H+S+T is the adopted setting and our
default. T shows bookkeeping only (round, epoch) unless `training_details` is set, because full
RL details hurt in the paper's ablation. The prompts around the modules are the paper's for
MAPF-FrozenLake and general ones, built from the task's description and knobs, for any other
task (`prompts/any_task/`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from designers.context import DesignContext
from designers.knob_drafts import example_draft, knob_paths
from designers.llm import modules
from designers.llm.modules import fill, load_prompt, paper_task, prompt_file
from envdesign_common.yaml_text import dump_yaml
from tasks import Knob

MODULE_NAMES = ("F", "G", "H", "S", "T")


@dataclass(frozen=True)
class Variant:
    """A choice of context modules and how two of them render."""

    name: str
    modules: frozenset[str]
    history_default: bool = False
    training_details: bool = False

    @property
    def summarises(self) -> bool:
        """Whether the designer writes a self-summary (S) after each proposal."""
        return "S" in self.modules

    def sections(self, ctx: DesignContext) -> str:
        """The rendered context sections, in the fixed order F, G, H, S, T."""
        rendered = {
            "F": lambda: modules.render_failures(ctx),
            "G": lambda: modules.render_guidelines(ctx),
            "H": lambda: modules.render_history(ctx, include_default=self.history_default),
            "S": lambda: modules.render_summary(ctx),
            "T": lambda: modules.render_training(ctx, details=self.training_details),
        }
        parts = [rendered[m]() for m in MODULE_NAMES if m in self.modules]
        return "\n".join(p for p in parts if p).rstrip()


VARIANTS: dict[str, Variant] = {
    "V1": Variant("V1", frozenset("F")),
    "V2": Variant("V2", frozenset("FG")),
    "V3": Variant("V3", frozenset("FGH"), history_default=True),
    "V4": Variant("V4", frozenset("FGH")),
    "V5": Variant("V5", frozenset("FGHS")),
    "V6": Variant("V6", frozenset("FGHST")),
}
DEFAULT_VARIANT = "V6"


def get_variant(
    name: str | Variant = DEFAULT_VARIANT, *, training_details: bool = False
) -> Variant:
    """A variant by name (case-insensitive, e.g. "v6"); `training_details` turns on full T."""
    if isinstance(name, Variant):
        variant = name
    else:
        key = name.strip().upper()
        if key not in VARIANTS:
            raise ValueError(f"unknown variant {name!r}; choose one of {', '.join(VARIANTS)}")
        variant = VARIANTS[key]
    return replace(variant, training_details=True) if training_details else variant


def analysis_messages(ctx: DesignContext, variant: Variant) -> list[dict[str, str]]:
    """The system and user messages of the analysis request for `ctx` under `variant`: the
    paper's prompt for MAPF-FrozenLake, the general one -- the task's description, its knobs
    and their bounds, the configuration in the task's words and as YAML -- for any other."""
    if paper_task(ctx):
        user = fill(
            "analysis.md",
            round=ctx.round,
            total_rounds=ctx.total_rounds,
            samples=ctx.config.samples,
            n_agents=ctx.config.n_agents,
            config=ctx.config.to_yaml(),
            sections=variant.sections(ctx),
        )
    else:
        task = ctx.design_task()
        user = fill(
            "any_task/analysis.md",
            round=ctx.round,
            total_rounds=ctx.total_rounds,
            description=task.description.rstrip("."),
            knobs="\n".join(_knob_line(knob) for knob in task.knobs()),
            described=task.describe_config(ctx.config),
            config=task.config_yaml(ctx.config),
            example=dump_yaml(example_draft(task, ctx.config)),
            sections=variant.sections(ctx),
        )
    return _messages(ctx, user)


def summary_messages(
    ctx: DesignContext, variant: Variant, proposed_yaml: str, rationale: str
) -> list[dict[str, str]]:
    """The separate summary request (S): 3-5 sentences on this round for the next one."""
    user = fill(
        prompt_file(ctx, "summary.md"),
        round=ctx.round,
        total_rounds=ctx.total_rounds,
        config=proposed_yaml,
        rationale=rationale.strip() or "(none given)",
        sections=variant.sections(ctx),
    )
    return _messages(ctx, user)


def retry_message(ctx: DesignContext, error: str) -> dict[str, str]:
    """The follow-up that shows the model why its last answer was unusable."""
    paths = "" if paper_task(ctx) else ", ".join(knob_paths(ctx.design_task(), ctx.config))
    return {"role": "user", "content": fill(prompt_file(ctx, "retry.md"), error=error,
                                            paths=paths).strip()}  # fmt: skip


def _messages(ctx: DesignContext, user: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": load_prompt(prompt_file(ctx, "system.md")).strip()},
        {"role": "user", "content": user.strip()},
    ]


def _knob_line(knob: Knob) -> str:
    kind = ", an integer" if knob.integer else ", a share" if knob.share else ""
    return f"- `{knob.path}` ({knob.low:g} to {knob.high:g}{kind}): {knob.description}"
