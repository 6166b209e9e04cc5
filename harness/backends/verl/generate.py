"""Offline generation with vLLM, as a process of its own: prompts in, answers out.

``python -m harness.backends.verl.generate request.json`` reads a `GenerateRequest`, loads the
model with vLLM's `LLM`, answers every conversation of the prompts file with `LLM.chat` and
writes the answers file (atomically), then exits, so its GPU memory is free again before the
next training round or server. The harness scores the answers with the testbed's verifier, as
it scores the CPU learner's.

Files (JSON lines, one per instance, in order)::

    prompts:  {"id": "<instance id>", "messages": [{"role": ..., "content": ...}, ...]}
    answers:  {"id": "<instance id>", "answers": ["<text>", ...]}    (n texts each)
    timings:  {"load_seconds": ..., "generate_seconds": ..., "prompts": ...}   (one object)

The timings split the process's work in two: loading (from `main`'s start -- vLLM's import
included -- to the engine built) and answering (`LLM.chat` over all prompts), so the run
record can say what share of an evaluation the model load is.

`answer_all` holds everything but the model, so a stand-in generator (the tests') reads and
writes exactly the same files.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envdesign_common import atomic_write_bytes

Messages = list[dict[str, str]]
GPU_EXTRA = 'pip install "envdesign-bench[gpu]"'


class GenerateRequest(BaseModel):
    """One generation job (the file the harness writes; the dry run prints it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="Hugging Face directory or id.")
    prompts: Path
    answers: Path
    n: int = Field(ge=1, description="Answers per prompt.")
    temperature: float = Field(ge=0.0, description="0 = greedy.")
    top_p: float = Field(gt=0.0, le=1.0)
    max_tokens: int = Field(ge=1, description="Response budget (reasoning included).")
    seed: int
    tensor_parallel: int = Field(ge=1)
    gpu_memory_utilization: float = Field(gt=0.0, le=1.0)
    max_model_len: int | None = Field(None, ge=1)
    enable_thinking: bool | None = Field(
        None, description="Passed to the chat template; None passes nothing."
    )
    timings: Path | None = Field(
        None, description="Where to write the load and generation seconds; None: nowhere."
    )


class GenerateTimings(BaseModel):
    """How long one generation process loaded and how long it answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    load_seconds: float = Field(ge=0.0, description="Start of `main` to the engine built.")
    generate_seconds: float = Field(ge=0.0, description="Answering every prompt.")
    prompts: int = Field(ge=0)


def write_prompts(path: Path, rows: Sequence[tuple[str, Messages]]) -> None:
    text = "".join(json.dumps({"id": i, "messages": m}) + "\n" for i, m in rows)
    atomic_write_bytes(path, text.encode("utf-8"))


def read_prompts(path: Path) -> list[tuple[str, Messages]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append((str(row["id"]), list(row["messages"])))
    return rows


def write_answers(path: Path, ids: Sequence[str], answers: Sequence[Sequence[str]]) -> None:
    text = "".join(
        json.dumps({"id": i, "answers": list(a)}) + "\n" for i, a in zip(ids, answers, strict=True)
    )
    atomic_write_bytes(path, text.encode("utf-8"))


def read_answers(path: Path, ids: Sequence[str], n: int) -> list[list[str]]:
    """The answers file, checked against the prompts it should answer."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    got = [str(r["id"]) for r in rows]
    if got != list(ids):
        raise ValueError(f"{path} answers other prompts than asked ({len(got)} vs {len(ids)})")
    answers = [list(map(str, r["answers"])) for r in rows]
    short = [i for i, a in zip(ids, answers, strict=True) if len(a) != n]
    if short:
        raise ValueError(f"{path}: {len(short)} prompts lack {n} answers (first: {short[0]})")
    return answers


Engine = Callable[[list[Messages]], list[list[str]]]
"""A loaded model: conversations in, `n` answers each out."""
Loader = Callable[[GenerateRequest], Engine]
"""Loads the request's model (the part of the process the timings call loading)."""


def answer_all(
    request: GenerateRequest, load: Loader, started: float | None = None
) -> GenerateTimings:
    """Read the prompts, load the model, answer, write the answers (and the timings where the
    request asks); `started` is the process's `time.perf_counter()` at its start."""
    rows = read_prompts(request.prompts)
    began = time.perf_counter() if started is None else started
    engine = load(request)
    loaded = time.perf_counter()
    answers = engine([messages for _, messages in rows])
    answered = time.perf_counter()
    timings = GenerateTimings(
        load_seconds=loaded - began, generate_seconds=answered - loaded, prompts=len(rows)
    )
    write_answers(request.answers, [i for i, _ in rows], answers)
    if request.timings is not None:
        atomic_write_bytes(request.timings, timings.model_dump_json().encode("utf-8"))
    return timings


def read_timings(path: Path) -> GenerateTimings | None:
    """The timings a generation process wrote; None where it wrote none or they do not read."""
    try:
        return GenerateTimings.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def vllm_loader(request: GenerateRequest) -> Engine:
    """vLLM 0.11's offline chat: one engine, all conversations in one call."""
    try:
        vllm: Any = import_module("vllm")
    except ImportError:
        raise SystemExit(f"vLLM is not installed: {GPU_EXTRA} on a CUDA machine") from None
    llm = vllm.LLM(
        model=request.model,
        tensor_parallel_size=request.tensor_parallel,
        gpu_memory_utilization=request.gpu_memory_utilization,
        max_model_len=request.max_model_len,
        seed=request.seed,
    )
    params = vllm.SamplingParams(
        n=request.n,
        temperature=request.temperature,
        top_p=request.top_p if request.temperature > 0 else 1.0,
        max_tokens=request.max_tokens,
        seed=request.seed,
    )
    kwargs = {}
    if request.enable_thinking is not None:
        kwargs["chat_template_kwargs"] = {"enable_thinking": request.enable_thinking}

    def engine(conversations: list[Messages]) -> list[list[str]]:
        outputs = llm.chat(conversations, params, use_tqdm=True, **kwargs)
        return [[choice.text for choice in out.outputs] for out in outputs]

    return engine


def main(argv: Sequence[str] | None = None, load: Loader = vllm_loader) -> int:
    started = time.perf_counter()
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m harness.backends.verl.generate REQUEST.json", file=sys.stderr)
        return 2
    request = GenerateRequest.model_validate_json(Path(args[0]).read_text(encoding="utf-8"))
    timings = answer_all(request, load, started)
    print(f"loaded in {timings.load_seconds:.1f}s, answered {timings.prompts} prompts in "
          f"{timings.generate_seconds:.1f}s")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
