"""Free disk against a verl comparison's budget, and the model on disk or on the hub."""

from __future__ import annotations

from pathlib import Path

from harness.backends.verl.footprint import DiskBudget, ModelSize
from harness.byte_sizes import size
from harness.doctor.disk import unmeasured
from harness.doctor.findings import Finding, fail, ok, warn

__all__ = ["HUB_ENDPOINT", "disk_findings", "hub_findings", "model_findings"]

HUB_ENDPOINT = "https://huggingface.co"


def disk_findings(
    free: int | None,
    where: Path,
    budget: DiskBudget | None,
    model: ModelSize,
    *,
    resume: bool = False,
) -> list[Finding]:
    """Free disk against the comparison's peak; `budget` None: `model`'s size is unknown."""
    if free is None:
        return [unmeasured(where)]
    if budget is None:
        return [
            warn(
                "disk",
                f"{size(free)} free at {where}; the checkpoint budget is unknown: "
                f"{model.describe()}",
                f"put the model on disk (hf download {model.model}) or give its parameter "
                "count (harness doctor --params N)",
            )
        ]
    text = (
        f"{size(free)} free at {where}; the comparison needs up to {size(budget.peak)} "
        f"(final {size(budget.final)}; the dry run details the budget)"
    )
    if free >= budget.peak:
        return [ok("disk", text)]
    fix = "free space or choose another --out on a larger filesystem"
    if budget.checkpoints_kept:
        fix += ", or set verl.keep_training_state: false"
    if resume:
        return [warn("disk", f"{text}; resuming, part of it is on disk already", fix)]
    return [fail("disk", text, fix)]


def model_findings(model: ModelSize, *, offline: bool, cache: Path, local: bool) -> list[Finding]:
    """The model as the trainer, its workers and vLLM will load it, from the files alone; no
    finding means the files do not settle it and the hub must be asked (`hub_findings`)."""
    name = model.model
    lacks = (*model.missing, *(() if model.tokenizer else ("a tokenizer (tokenizer.json)",)))
    loads = model.complete and model.tokenizer
    if loads:
        return [ok("model", f"{model.describe()}; loads without the hub")]
    listed = ", ".join(lacks[:2]) + (f" and {len(lacks) - 2} more" if len(lacks) > 2 else "")
    if local:
        what = f"lacks {listed}" if lacks else "lacks config.json or its weights"
        need = "config.json, a tokenizer and every weight file are needed"
        return [fail("model", f"the directory {name} {what} ({need})",
                     "copy the whole model directory there")]  # fmt: skip
    state = f"not in the cache {cache}"
    if model.location:
        state = f"incomplete in the cache {cache}" + (f" (missing {listed})" if lacks else "")
    if offline:
        return [fail("model", f"HF_HUB_OFFLINE is set and {name} is {state}",
                     f"hf download {name} (where the hub is reachable, into this cache: "
                     "HF_HUB_CACHE / HF_HOME)")]  # fmt: skip
    return []


def hub_findings(model: str, endpoint: str, answer: int | str, cache: Path) -> list[Finding]:
    """The model is not fully cached and the hub was asked (`answer`: status or error)."""
    url = f"{endpoint}/{model}"
    if answer == 200:
        return [
            warn(
                "model",
                f"{model} is not (fully) in the cache {cache}: the task runner, "
                f"every FSDP worker and vLLM will fetch it from {endpoint}",
                f"hf download {model} before the run",
            )
        ]
    if answer in (401, 403):
        return [
            fail(
                "model",
                f"{url} answered {answer}: a gated or private model",
                f"accept its terms on the hub and log in (hf auth login), then hf download {model}",
            )
        ]
    if answer == 404:
        return [
            fail(
                "model",
                f"{url} answered 404: no such model on the hub",
                "check the policy name (--set policy=...)",
            )
        ]
    why = f"answered {answer}" if isinstance(answer, int) else f"did not answer ({answer})"
    return [
        fail(
            "model",
            f"{model} is not in the cache {cache} and the hub {why}",
            f"hf download {model} where the hub is reachable, or set HF_ENDPOINT to a mirror",
        )
    ]
