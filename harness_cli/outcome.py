"""What `harness run` / `compare` say when they end other than cleanly: stopped by a signal or
by losing their runs' progress, runs that failed, or designers that never designed.

A failed run is one line each, naming the log that holds its traceback (`RunDir.failure_log`);
the traceback reaches the terminal only with `--debug`."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.executors import Job, WorkerDied
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from run_records import RUN_FILE, ResultRecord, one_line, run_status, tally_design_steps


def run_states(experiment: ExperimentConfig, jobs: Sequence[Job], root: Path) -> list[str]:
    """One line per run: finished, unfinished (how far), failed, or not started."""
    lines = []
    for job in jobs:
        path = RunDir(root, experiment, job.designer, job.seed).path
        state = run_status(path).label() if (path / RUN_FILE).is_file() else "not started"
        lines.append(f"  {job.designer} seed {job.seed}: {state} ({path})")
    return lines


def rerun_command(*flags: str, argv: Sequence[str] | None = None) -> str:
    """The command line that was run, with `flags` added where missing, ready to paste."""
    words = list(sys.argv[1:] if argv is None else argv)
    words += [flag for flag in flags if flag not in words]
    return shlex.join(["harness", *words])


def interrupted_lines(
    signal_name: str, experiment: ExperimentConfig, jobs: Sequence[Job], root: Path
) -> list[str]:
    """The message of an interrupted comparison: each run's state and how to continue."""
    return stopped_lines(f"interrupted by {signal_name}", experiment, jobs, root)


def stopped_lines(
    why: str, experiment: ExperimentConfig, jobs: Sequence[Job], root: Path
) -> list[str]:
    """The message of a comparison stopped for `why`: each run's state and how to continue."""
    return [
        f"{why}: stopped every run; finished rounds are kept, unfinished ones are trained "
        "again on resume",
        *run_states(experiment, jobs, root),
        resume_line(),
    ]


def resume_line() -> str:
    """The command that continues this one's runs after their last finished round."""
    return f"continue with: {rerun_command('--resume')}"


def failed_line(experiment: ExperimentConfig, job: Job, err: BaseException, root: Path) -> str:
    """`random seed 0 failed: ValueError: ... (traceback in runs/.../failure.log)`: which run,
    why in one line, and where the whole story is (when the run left it)."""
    log = RunDir(root, experiment, job.designer, job.seed).failure_log
    why = str(err) if isinstance(err, WorkerDied) else f"{type(err).__name__}: {flat(err)}"
    told = "details" if isinstance(err, WorkerDied) else "traceback"
    where = f" ({told} in {log})" if log.is_file() else ""
    return f"{job.designer} seed {job.seed} failed: {why}{where}"


def flat(err: BaseException, limit: int = 400) -> str:
    """An error's whole message on one line (a message that lists its problems on the lines
    under a heading would say nothing by its first line alone), cut to `limit` characters."""
    return one_line(ValueError(" ".join(str(err).split())), limit)


def undesigned(records: Sequence[ResultRecord], allowed: bool) -> list[str]:
    """One line per designer whose every design step failed (empty with `allowed`)."""
    if allowed:
        return []
    lines = []
    for designer in dict.fromkeys(r.designer for r in records):
        mine = [r for r in records if r.designer == designer]
        tally = tally_design_steps(mine)
        if tally is not None and tally.all_failed:
            lines.append(
                f"designer {designer!r} never designed ({tally.summary}): its runs trained "
                "on their starting configuration throughout and boards will not rank it; fix the "
                "cause and run it again, or pass --allow-design-failures to keep it, flagged"
            )
    return lines
