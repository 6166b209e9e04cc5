"""One generation job run from the harness: the request's files in, the answers and the load out.

The backend writes the prompts and the request (`generate.GenerateRequest`) into a directory
of its own, runs the generator process (vLLM offline, `generate`), reads the answers back in
the order asked and notes the process's model load from the timings it wrote
(`loads.LoadLedger`); the directory is removed once read.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from envdesign_common import atomic_write_bytes
from harness.backends import processes as process
from harness.backends.processes import Launch
from harness.backends.verl.generate import (
    GenerateRequest,
    read_answers,
    read_timings,
    write_prompts,
)
from harness.backends.verl.loads import LoadLedger
from harness.backends.verl.runtime import VerlRuntime
from tasks import Task


def generate_answers(
    task: Task[Any, Any],
    items: Sequence[Any],
    request: GenerateRequest,
    launch_for: Callable[[Path], Launch],
    runtime: VerlRuntime,
    ledger: LoadLedger,
) -> list[list[str]]:
    """`request.n` answers per item of `task` (its own prompts) from one generator process."""
    directory = request.prompts.parent
    ids = [f"#{i}" for i in range(len(items))]
    write_prompts(request.prompts, [(i, task.prompt(x)) for i, x in zip(ids, items, strict=True)])
    request_path = directory / "request.json"
    atomic_write_bytes(request_path, request.model_dump_json(indent=2).encode("utf-8"))
    launch = launch_for(request_path)
    started = time.perf_counter()
    code = process.run(launch, interval_s=runtime.poll_s, grace_s=runtime.stop_grace_s)
    if code != 0:
        raise process.failure(f"vLLM generation with {request.model}", code, launch.log)
    answers = read_answers(request.answers, ids, request.n)
    wall = time.perf_counter() - started
    timings = read_timings(request.timings) if request.timings is not None else None
    ledger.load("evaluation", request.model, wall if timings is None else timings.load_seconds,
                wall, "the generator wrote no timings: its whole run" if timings is None
                else None)  # fmt: skip
    shutil.rmtree(directory, ignore_errors=True)
    return answers
