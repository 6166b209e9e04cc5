"""Which model a name means, and how one call to it is recorded: one home for the LLM designers
and for zero-shot policy evaluation (`harness eval --policy`), so a name means the same model
and a call leaves the same record in both.

- The alias table is ``models.yaml`` (package data), updated from the file that
  ``ENVDESIGN_LLM_MODELS`` names, so a renamed provider model or a new alias needs no code
  change. It is the only list of aliases: the designer registry learns them from it through
  the ``harness.designer_families`` entry point (`designers.llm.factories.alias_designers`)
  rather than from one entry point per alias, so an alias added to the table is at once a
  designer name (listed, suggested for typos, built) and a ``--policy`` name. A generated
  function per alias would still need its own entry point, and a test holding the entry points
  equal to the table would still make every new alias an edit in two places.
- A name is an alias, or ``llm:<LiteLLM model string>`` (``llm:`` with an alias after it is
  that alias). An unknown alias is answered with the closest known one; callers that speak to
  a user in their own terms (the policy command) pass the noun and the other ways to name a
  model, and translate `ModelNameError` into their own error type.
- One call's result becomes the fields every stored record of a call keeps (`call_record`),
  under the names the answer cache uses; a designer's transcript entry is built from the same
  fields (`transcript_entry`). It is the one place model text is made fit to store: the values
  of the key variables are redacted from it (`envdesign_common.redaction`: an endpoint may echo
  the request's headers) and text beyond `MAX_STORED_CHARS` is cut to an excerpt with the whole
  text's length and sha256 (`envdesign_common.bounded_text`).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TypedDict

from designers.llm.client import CallResult
from designers.proposal import ModelCall
from envdesign_common import InputError, TextDigest, bounded, key_redactor, load_yaml, read_text

MODELS_ENV = "ENVDESIGN_LLM_MODELS"
"""The environment variable naming a models.yaml whose entries replace or add to the shipped."""
LLM_PREFIX = "llm:"
"""Names any LiteLLM model string: ``llm:openai/gpt-4o``."""
SHIPPED = "designers/llm/models.yaml"
_NOT_IN_ALIAS = (":", "@")  # they separate a designer's argument and its variant suffix


class ModelNameError(ValueError):
    """A name that cannot be resolved to a model (unknown, empty, or the alias table behind it
    is unreadable); the message says what was wrong and what to write instead."""


@dataclass(frozen=True)
class ModelAlias:
    """One entry of the alias table: the alias, its LiteLLM model string, a description."""

    name: str
    model: str
    description: str


class CallRecord(TypedDict):
    """What a record of one model call keeps: the answer (empty when the call failed), its
    reasoning, usage, cost and time, the error, and the transient failures that were retried
    (the last attempt's failure is the error, not a retry). `text_full` and `reasoning_full`
    describe the whole text where only an excerpt is kept (None where it is kept whole)."""

    text: str
    text_full: TextDigest | None
    reasoning: str
    reasoning_full: TextDigest | None
    error: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    seconds: float
    attempts: int
    retries: tuple[str, ...]


def model_aliases() -> dict[str, ModelAlias]:
    """Alias -> entry: the shipped table, updated from ``$ENVDESIGN_LLM_MODELS``.

    Read on every call (it is small), so a changed file or variable is seen at once.
    """
    table = _read_table(files("designers.llm").joinpath("models.yaml").read_text("utf-8"), "")
    override = os.environ.get(MODELS_ENV)
    if override:
        try:
            text = read_text(Path(override))
        except InputError as err:
            raise ModelNameError(
                f"{MODELS_ENV}={override}: cannot read it ({err.reason}); point it at a "
                "models.yaml or unset it"
            ) from None
        table.update(_read_table(text, f"{MODELS_ENV}={override}"))
    return table


def _read_table(text: str, origin: str) -> dict[str, ModelAlias]:
    where = origin or SHIPPED
    try:
        data = load_yaml(text) or {}
    except InputError as err:  # one line: where and what, never the file's lines
        raise ModelNameError(f"{where}: {err}; fix the file") from None
    if not isinstance(data, dict):
        raise ModelNameError(f"{where}: expected a mapping of alias -> {{model, description}}")
    table: dict[str, ModelAlias] = {}
    for alias, entry in data.items():
        name = str(alias)
        if isinstance(entry, str):
            entry = {"model": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
            raise ModelNameError(f"{where}: alias {name!r} needs a 'model' string")
        if not name.strip() or any(c in name for c in _NOT_IN_ALIAS) or name != name.strip():
            raise ModelNameError(
                f"{where}: alias {name!r} is not a plain name (no ':', '@' or surrounding "
                "spaces: they separate a designer's argument and variant); rename it"
            )
        model = entry["model"]
        description = str(entry.get("description", f"{model} via LiteLLM"))
        table[name] = ModelAlias(name=name, model=model, description=description)
    return table


def close_names(name: str, known: Sequence[str]) -> list[str]:
    """The known name closest to a misspelt `name` (none when nothing is close)."""
    return difflib.get_close_matches(name, known, n=1)


def find_alias(
    name: str, *, noun: str = "model alias", other_ways: str = "or llm:<litellm model>"
) -> ModelAlias:
    """The alias `name`; `ModelNameError` suggests the closest one and lists them all.

    `noun` is what the caller calls the name ("policy"), `other_ways` how else a model can be
    named there; both only shape the message.
    """
    aliases = model_aliases()
    if name in aliases:
        return aliases[name]
    close = close_names(name, list(aliases))
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ModelNameError(
        f"unknown {noun} {name!r}: {hint}use an alias in models.yaml "
        f"({', '.join(sorted(aliases))}), {other_ways}"
    )


@dataclass(frozen=True)
class ResolvedModel:
    """The LiteLLM model a name means, and the alias it was named by (None for ``llm:``)."""

    model: str
    alias: ModelAlias | None = None


def resolve_model(
    name: str, *, noun: str = "model alias", other_ways: str = "or llm:<litellm model>"
) -> ResolvedModel:
    """The model `name` (an alias, or ``llm:<model>``) means; `ModelNameError` otherwise."""
    if not name.startswith(LLM_PREFIX):
        alias = find_alias(name, noun=noun, other_ways=other_ways)
        return ResolvedModel(alias.model, alias)
    model = name.removeprefix(LLM_PREFIX).strip()
    if not model:
        raise ModelNameError(
            "llm: needs a model: llm:<litellm model string>, e.g. llm:openai/gpt-4o"
        )
    named = model_aliases().get(model)
    return ResolvedModel(named.model, named) if named is not None else ResolvedModel(model)


def call_record(result: CallResult, *, whole_text: bool = False) -> CallRecord:
    """The record of one call (see `CallRecord`), from what the client returned, redacted and
    bounded (see the module docstring).

    `whole_text` keeps the answer uncut (still redacted): a zero-shot policy's answer is what
    its verdict is scored from, and the stored answers must re-score to the same verdicts; its
    reasoning, never scored, is bounded all the same.
    """
    failed = result.error is not None
    redactor = key_redactor([result.key_variable])
    text, text_full = (result.text, None) if whole_text else bounded(result.text)
    reasoning, reasoning_full = bounded(result.reasoning)
    return CallRecord(
        text="" if failed else redactor.redact(text),
        text_full=None if failed else text_full,
        reasoning=redactor.redact(reasoning),
        reasoning_full=reasoning_full,
        error=result.error,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost_usd=result.cost_usd,
        seconds=round(result.seconds, 4),
        attempts=result.attempts,
        retries=tuple(result.retries[:-1] if failed else result.retries),
    )


def transcript_entry(
    purpose: str, model: str, messages: Sequence[dict[str, str]], record: CallRecord
) -> ModelCall:
    """A designer's transcript entry for one call: what was sent, and `record`'s answer."""
    return ModelCall(
        purpose=purpose,
        model=model,
        messages=tuple(dict(m) for m in messages),
        response=record["text"],
        response_full=record["text_full"],
        reasoning=record["reasoning"],
        reasoning_full=record["reasoning_full"],
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"],
        cost_usd=record["cost_usd"],
        seconds=record["seconds"],
        error=record["error"],
    )
