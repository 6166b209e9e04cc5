"""Which policy answers: a LiteLLM model (alias or `llm:<model>`), a served model, or a checkpoint.

`--policy gpt` (any alias of the LLM designers' ``models.yaml``) and `--policy llm:<model>` go
through LiteLLM to the provider, resolved exactly as the designers of those names are
(`designers.llm.models`); `--base-url URL --policy NAME` asks an OpenAI-compatible server
(vLLM, a gateway) for model NAME; `--checkpoint DIR` loads a CPU learner checkpoint. Keys come
only from the environment: a variable is named (`--api-key-env`), never its value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from designers.llm.client import Target, credential_problem, require_litellm
from designers.llm.models import LLM_PREFIX, ModelNameError, resolve_model
from harness.policy_eval.errors import PolicyEvalError
from run_records import safe_name

Route = Literal["litellm", "openai", "cpu"]
"""How a policy is asked: through LiteLLM, an OpenAI-compatible server, or a CPU learner
checkpoint loaded here (not a training backend, though records of zero-shot runs keep it in
their `backend` field, where a trained run names its trainer)."""
CHECKPOINT_FILES = ("cpu_policy.pt", "cpu_settings.json")
OTHER_WAYS = "llm:<litellm model>, --base-url URL with the served model's name, or --checkpoint DIR"
"""How else `--policy` can name a model, for the message about an unknown one."""


class PolicySpec(BaseModel):
    """A resolved policy: its board name, how it is reached, and the model it is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Shown on boards (the record's designer field).")
    route: Route
    model: str = Field(description="LiteLLM model string, or the checkpoint directory.")
    base_url: str | None = None
    api_key_env: str | None = Field(default=None, description="The key's variable, not the key.")

    @property
    def dir_name(self) -> str:
        """Its directory under runs/policies/: the model's name, made safe for a path."""
        return safe_name(self.name if self.route == "cpu" else self.model)

    def target(self) -> Target:
        if self.route == "cpu":
            raise ValueError("a CPU checkpoint is not reached through LiteLLM")
        return Target(model=self.model, api_base=self.base_url, api_key_env=self.api_key_env)

    def options(self) -> dict[str, str | None]:
        """How it was reached, for the record (no secret: the variable's name only)."""
        return {
            "backend": self.route,  # the route, under the key records and answer caches use
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
        }


def resolve_policy(
    policy: str | None,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    checkpoint: Path | None = None,
    name: str | None = None,
) -> PolicySpec:
    """The policy the command line names; `PolicyEvalError` says what is missing or unknown."""
    if checkpoint is not None:
        if base_url is not None:
            raise PolicyEvalError("give --checkpoint or --base-url, not both")
        return PolicySpec(
            name=name or policy or checkpoint_name(checkpoint),
            route="cpu",
            model=str(checkpoint),
        )
    if not policy:
        raise PolicyEvalError(
            "--policy is required: a models.yaml alias (e.g. gpt), llm:<litellm model>, a model "
            "served at --base-url, or give --checkpoint DIR"
        )
    if base_url is not None:
        served = policy.removeprefix(LLM_PREFIX)
        return PolicySpec(
            name=name or served,
            route="openai",
            model=f"openai/{served}",
            base_url=base_url,
            api_key_env=api_key_env,
        )
    try:
        resolved = resolve_model(policy, noun="policy", other_ways=OTHER_WAYS)
    except ModelNameError as err:
        raise PolicyEvalError(str(err)) from None
    return PolicySpec(
        name=name or policy, route="litellm", model=resolved.model, api_key_env=api_key_env
    )


def checkpoint_name(checkpoint: Path) -> str:
    """`runs/quick/random/seed-0/round-019/checkpoint` -> `cpu:quick/random/seed-0/round-019`."""
    parts = checkpoint.resolve().parts
    if parts and parts[-1] == "checkpoint":
        parts = parts[:-1]
    return "cpu:" + "/".join(parts[-4:])


def check_ready(spec: PolicySpec) -> None:
    """Fail before any request when the policy cannot be reached as configured."""
    if spec.route == "cpu":
        folder = Path(spec.model)
        missing = [f for f in CHECKPOINT_FILES if not (folder / f).is_file()]
        if missing:
            raise PolicyEvalError(
                f"{folder} is not a CPU learner checkpoint (no {', '.join(missing)}); give a "
                "run's round-NNN/checkpoint directory"
            )
        return
    try:
        require_litellm()
    except ImportError as err:
        raise PolicyEvalError(str(err)) from None
    if spec.route != "litellm" and spec.api_key_env is None:
        return
    problem = credential_problem(spec.target(), spec.name, "--api-key-env")
    if problem is not None:
        raise PolicyEvalError(problem)
