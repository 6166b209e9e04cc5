"""One run's directory: every step's output written atomically, and what resume reads back.

Layout of ``runs/<experiment>/<designer>/seed-<n>/``::

    run.json                 schema version, package version, commit, the resolved experiment
    round-000/config.yaml    the EnvConfig this round trained on
    round-000/curves.jsonl   training curves, one JSON line per optimiser step
    round-000/checkpoint/    the backend's state after training
    round-000/round.json     the finished round (stats, validation, proposal): written last
    result.json              the final ResultRecord

A round counts as finished only once its ``round.json`` exists, and every file is written to a
temporary name and renamed, so a run killed at any moment (kill -9 included) resumes from the
last finished round and never sees half a file.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from harness.experiment import ExperimentConfig
from harness.records import RESULT_SCHEMA_VERSION, ResultRecord, RoundResult, stamp
from mapf_env.export import atomic_write_bytes

RUN_FILE = "run.json"
ROUND_FILE = "round.json"
RESULT_FILE = "result.json"


class RunDirError(RuntimeError):
    """A run directory that cannot be resumed as asked (another version or experiment)."""


def safe_name(name: str) -> str:
    """A designer spec as a file or directory name (`llm:openai/gpt-4o` -> `llm_openai_gpt-4o`)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


class RunDir:
    """The files of one (experiment, designer, seed) run."""

    def __init__(self, root: Path, experiment: ExperimentConfig, designer: str, seed: int) -> None:
        self.path = Path(root) / safe_name(experiment.name) / safe_name(designer) / f"seed-{seed}"
        self.experiment = experiment

    def round_path(self, n: int) -> Path:
        return self.path / f"round-{n:03d}"

    def checkpoint(self, n: int) -> Path:
        return self.round_path(n) / "checkpoint"

    def curves(self, n: int) -> Path:
        return self.round_path(n) / "curves.jsonl"

    def open(self, resume: bool) -> None:
        """Create the run, or check that an existing one is this experiment at this version."""
        run_file = self.path / RUN_FILE
        if run_file.exists():
            if not resume:
                raise RunDirError(f"{self.path} already holds a run; pass --resume or a new name")
            self._check(json.loads(run_file.read_text(encoding="utf-8")))
            return
        record = {**stamp(), "experiment": self.experiment.model_dump(mode="json")}
        self.write_json(RUN_FILE, record)

    def _check(self, record: dict[str, Any]) -> None:
        if record.get("schema_version") != RESULT_SCHEMA_VERSION:
            raise RunDirError(
                f"{self.path} was written by record schema {record.get('schema_version')}; this "
                f"version writes {RESULT_SCHEMA_VERSION}: start a new run (another --name)"
            )
        if record.get("experiment") != self.experiment.model_dump(mode="json"):
            raise RunDirError(
                f"{self.path} was started with another experiment config; resume it with the "
                "same config, or start a new run (another --name)"
            )

    def write_json(self, relative: str | Path, data: Any) -> None:
        text = (
            data.model_dump_json(indent=2)
            if hasattr(data, "model_dump_json")
            else json.dumps(data, indent=2)
        )
        atomic_write_bytes(self.path / relative, text.encode("utf-8"))

    def write_text(self, relative: str | Path, text: str) -> None:
        atomic_write_bytes(self.path / relative, text.encode("utf-8"))

    def finished_rounds(self) -> list[RoundResult]:
        """The finished rounds, in order, up to the first unfinished one."""
        rounds: list[RoundResult] = []
        while (self.round_path(len(rounds)) / ROUND_FILE).exists():
            raw = (self.round_path(len(rounds)) / ROUND_FILE).read_text(encoding="utf-8")
            rounds.append(RoundResult.model_validate_json(raw))
        return rounds

    def start_round(self, n: int) -> None:
        """Clear what an interrupted attempt at round n left behind."""
        shutil.rmtree(self.round_path(n), ignore_errors=True)
        self.round_path(n).mkdir(parents=True)

    def finish_round(self, result: RoundResult) -> None:
        self.write_json(Path(self.round_path(result.round).name) / ROUND_FILE, result)

    def result(self) -> ResultRecord | None:
        path = self.path / RESULT_FILE
        if not path.exists():
            return None
        return ResultRecord.model_validate_json(path.read_text(encoding="utf-8"))

    def write_result(self, record: ResultRecord) -> None:
        self.write_json(RESULT_FILE, record)
