"""Every run of a comparison checked before any work starts, every problem reported at once.

A comparison can take hours; a problem that shows only when a worker reaches it (a misspelt
designer option, a missing API key, `self` on a backend that serves no model) would surface
after the other runs have spent that time, or -- worse -- let a designer that cannot design
run on and be ranked. So `preflight` builds every designer exactly as the runs will, checks
the backend's packages, the machine (``harness doctor``'s checks: for backend verl the GPUs,
CUDA, package versions, the model's files, disk against the checkpoint budget, Ray and ports;
for backend cpu only its disk) and the output directory, and raises `PreflightFailed` with one
line per problem; the doctor's warnings are printed and do not stop the run. It writes
nothing: no run directory exists until every check has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from envdesign_common import existing_ancestor, write_problem
from harness.backends.factory import BackendUnavailable, check_backend
from harness.designer_checks import designer_problems
from harness.doctor import MachineProbe, Probe, diagnose
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from harness.run_lock import lock_problems


class PreflightFailed(RuntimeError):
    """The comparison cannot start; `problems` holds one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def preflight(
    experiment: ExperimentConfig,
    root: Path,
    *,
    resume: bool = False,
    ray_address: str | None = None,
    dry_run: bool = False,
    probe: Probe | None = None,
    on_warning: Callable[[str], None] | None = None,
    runs_here: bool = True,
    concurrent: int = 1,
) -> None:
    """Raise `PreflightFailed` unless every (designer, seed) run of `experiment` can start.

    A dry run prints what would be launched and launches nothing -- it is how a laptop
    previews a cluster's commands -- so it checks what the experiment says (designer names,
    options, servers) but not what this machine has (packages, GPUs, keys, run directories).
    `probe` gathers the machine's facts (default: `machine_probe()`); `on_warning` gets each
    warning line (default: printed to stderr). `runs_here` False (runs executed on other
    machines, e.g. as Ray tasks) leaves out the machine checks, which judge this machine;
    `concurrent` runs at once share the disk budget's peak.
    """
    # An --out that cannot hold runs at all is one line; its free space would be a second.
    unusable = not dry_run and output_problem(root) is not None
    backend = [] if dry_run else backend_problems(
        experiment, ray_address, root=root, resume=resume, probe=probe, on_warning=on_warning,
        machine=runs_here, concurrent=concurrent, leave_out=("disk",) if unusable else (),
    )  # fmt: skip
    problems = [
        *backend,
        *designer_problems(experiment, ready=not dry_run),
        *([] if dry_run else output_problems(experiment, root, resume=resume)),
    ]
    if problems:
        raise PreflightFailed(problems)


def machine_probe() -> Probe:
    """Where preflight's machine facts come from (tests replace it)."""
    return MachineProbe()


def backend_problems(
    experiment: ExperimentConfig,
    ray_address: str | None,
    *,
    root: Path = Path("runs"),
    resume: bool = False,
    probe: Probe | None = None,
    on_warning: Callable[[str], None] | None = None,
    machine: bool = True,
    concurrent: int = 1,
    leave_out: tuple[str, ...] = (),
) -> list[str]:
    """The backend's packages (`check_backend`) and, with `machine`, the doctor's machine
    checks but the topics in `leave_out`: failures as problems, warnings passed to
    `on_warning`. The designers are `designer_problems`' job, and a package check that
    already failed is not repeated."""
    problems, skip = [], ["designers", *leave_out]
    try:
        check_backend(experiment, ray_address)
    except BackendUnavailable as err:
        problems.append(str(err))
        skip.append("packages")
    if not machine:
        return problems
    findings = diagnose(experiment, probe or machine_probe(), root=root, resume=resume,
                        ray_address=ray_address, skip=tuple(skip),
                        concurrent=concurrent)  # fmt: skip
    for finding in findings:
        if finding.level == "warn":
            (on_warning or _print_warning)(finding.problem())
    return [*problems, *(f.problem() for f in findings if f.level == "fail")]


def _print_warning(line: str) -> None:
    Console(stderr=True, soft_wrap=True).print(f"[bold yellow]warning:[/] {escape(line)}")


def output_problems(experiment: ExperimentConfig, root: Path, *, resume: bool) -> list[str]:
    """`root` must be a writable directory (or creatable); each run directory must be free
    (a fresh start) or hold this experiment's run, readable (a resume), and no other process
    may be writing it."""
    problem = output_problem(root)
    if problem is not None:
        return [problem]
    designers = dict.fromkeys(experiment.designers)
    runs = [RunDir(root, experiment, d, seed) for d in designers for seed in experiment.seeds]
    taken = lock_problems(run.path for run in runs)  # another process writes them: say only that
    if taken:
        return taken
    blocked = [_blocked(root, run.path) for run in runs]
    return [p for p in (*blocked, *(run.problem(resume) for run in runs)) if p is not None]


def _blocked(root: Path, run: Path) -> str | None:
    """A file where a run's directory (or one above it) must go."""
    existing = existing_ancestor(run)
    if existing.is_dir():
        return None
    return f"--out {root}: {existing} is a file where the run directory {run} must go; move it away"


def output_problem(root: Path) -> str | None:
    """Why outputs cannot be written under `root` (`--out`), probed without leaving a trace
    (`envdesign_common.write_problem`), as the one line a command refuses with."""
    problem = write_problem(root)
    return None if problem is None else f"--out {root}: {problem}; choose another --out"
