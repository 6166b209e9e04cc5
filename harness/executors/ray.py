"""The Ray executor: a comparison's runs as Ray tasks, on this machine or across a cluster.

Each (designer, seed) run is one Ray task that calls the same `run_job` as the local executor,
so a run computes the same thing wherever it lands. What Ray adds is placement: every task
declares the CPUs and GPUs one run needs and Ray starts as many runs as the cluster has room
for, on whichever nodes have it.

Decisions, and why:

- Resources. A run declares `cpus_per_run` CPUs (default 1) and `gpus_per_run` GPUs (default 0
  for the `cpu` backend; for `verl` its ``verl.n_gpus_per_node``, the paper's 4). Torch gets
  `floor(cpus_per_run)` threads, so the default gives the same numbers on any cluster: the CPU
  learner is deterministic for a given seed and thread count, not across thread counts.
- verl runs hold their GPUs. The task reserves the run's GPUs and everything the run starts
  stays inside them: verl is started with ``RAY_ADDRESS=local``, so it brings up a private
  Ray instance on that node that sees only the task's GPUs (``CUDA_VISIBLE_DEVICES``, set by
  Ray) rather than joining this cluster, where it would wait for GPUs its own task holds (a
  bare ``ray.init()`` on a node that ``ray start`` began joins that cluster). A new instance
  counts the node's GPUs with NVML capped by ``CUDA_VISIBLE_DEVICES``, takes free ports for
  its GCS and dashboard, and takes all of the node's CPUs for its own (verl's
  ``ray_init.num_cpus`` is null; Ray's CPU counts only schedule, so runs on one node share its
  cores). vLLM evaluation and serving use the same GPUs between training rounds. A run's
  training is therefore on one node (``verl.nnodes`` 1); training across nodes is done by
  submitting each round as a Ray job instead (the local executor with ``--ray-address``).
- Retries. Without `--resume` a task is never retried: its first attempt has already created
  the run directory, so a retry would stop at "already holds a run" (or, worse, a retry that
  resumed by itself would hide that a run crashed). With `--resume` a retry *is* a resume --
  it continues from the last finished round, whose files are written atomically -- so a run
  whose worker or node died is retried up to `RESUME_RETRIES` times. Exceptions raised by the
  run itself (bad input, a bug) are never retried: they would only fail again.
- Progress. Workers put `RunEvent`s on a `ray.util.queue.Queue` (an actor holding no CPU) and
  the driver drains it while it polls the tasks (the local executor reads each worker's pipe
  instead). `put` returns once the event is queued, so a task's events are all in the
  queue by the time its result is ready.
- Failures. A failed task does not stop the others. Ray wraps a run's exception in
  `RayTaskError`; the original one is handed to `collect`, so `RunsFailed` reads as it does
  locally and user errors (a run directory that exists without `--resume`) stay one line.
  A task whose worker or node died (past its retries) is `WorkerDied`, and the driver writes
  its `failure.json`, as the local executor does for a dead worker process. A dead event
  queue ends the comparison with `EventsLost`, as an interrupt would.
- Files. Tasks write their run directories under `root` *on the worker's filesystem*. On a
  cluster of several nodes `root` must therefore be a shared filesystem path (NFS, a cluster
  file system) mounted at the same place everywhere; before any run starts a probe writes a
  file there from one node and looks for it from every other node that could take a run
  (nodes an autoscaler adds later are not probed).
- A dead driver. Ray ends a job's tasks when its driver goes (their owner is dead, and a job
  whose driver disconnected has its workers killed), and a private instance started here
  ends with this process (Ray starts it fate-sharing), so no task outlives the command; the
  local executor has to arrange the same itself (`parent_watch`). Each task holds its run's
  writer lock (`harness.run_lock`) while it runs, and the command holds every run's command
  lock, as with the local executor.
- Room. A Ray instance started here cannot grow, so resources no node has are refused at once;
  a joined cluster is left to queue such runs, as its autoscaler may add the nodes.
- Code. Workers import the installed project (`harness`, `designers`, `mapf_env` and the
  designers' entry points), so every node needs the same version of envdesign-bench installed;
  a local Ray instance uses this environment. Shipping only a `working_dir` is not enough, as
  plug-in designers are found through installed entry points.
"""

from __future__ import annotations

import importlib.util
import os
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness.backends.spec import Resources
from harness.executors.base import (
    ExecutorUnavailable,
    Job,
    OnEvent,
    RemoteTraceback,
    RunOptions,
    WorkerDied,
    collect,
    drain_events,
    record_lost,
    run_job,
    wait_for_events,
)
from harness.experiment import ExperimentConfig
from run_records import ResultRecord, one_line

if TYPE_CHECKING:
    from ray import ObjectRef

INSTALL_HINT = "pip install 'envdesign-bench[ray]'"
RESUME_RETRIES = 2
"""How often Ray reruns a run whose worker or node died, with `--resume` only (see above)."""


def require_ray() -> None:
    """Fail early, with the extra to install, where Ray is missing."""
    if importlib.util.find_spec("ray") is None:
        raise ExecutorUnavailable(f"the ray executor needs Ray: {INSTALL_HINT}")


class RayExecutor:
    """Runs as Ray tasks on the cluster at `address`, at most `workers` at once (default: all).

    `address` None starts a private Ray instance on this machine for the comparison (or joins
    `$RAY_ADDRESS` where it is set, as it is under `ray job submit`); `"auto"` joins the
    cluster this machine belongs to; `"ray://head:10001"` connects as a Ray client. A Ray this
    process is already connected to is used as it is and left running.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        cpus_per_run: float | None = None,
        gpus_per_run: float | None = None,
    ) -> None:
        require_ray()
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if cpus_per_run is not None and cpus_per_run <= 0:
            raise ValueError(f"--cpus-per-run must be above 0, got {cpus_per_run}")
        if gpus_per_run is not None and gpus_per_run < 0:
            raise ValueError(f"--gpus-per-run must be at least 0, got {gpus_per_run}")
        self.address, self.workers = address, workers
        self.cpus_per_run, self.gpus_per_run = cpus_per_run, gpus_per_run

    def resources(self, experiment: ExperimentConfig) -> Resources:
        """The options given, else the backend's defaults (verl: its GPUs per node)."""
        try:
            default = experiment.backend_spec.resources(experiment.backend_settings)
        except ValueError as err:
            raise ExecutorUnavailable(str(err)) from None
        return Resources(
            cpus=default.cpus if self.cpus_per_run is None else self.cpus_per_run,
            gpus=default.gpus if self.gpus_per_run is None else self.gpus_per_run,
        )

    def run(
        self,
        experiment: ExperimentConfig,
        jobs: Sequence[Job],
        root: Path,
        options: RunOptions,
        on_event: OnEvent | None = None,
    ) -> list[ResultRecord]:
        import ray

        started = connect(self.address)
        try:
            need = self.resources(experiment)
            nodes = nodes_for(need)
            if started:  # a joined cluster may still grow: its autoscaler can add nodes
                require_room(need, nodes)
            root = Path(root).absolute()  # workers do not share this process's directory
            check_shared(root, nodes)
            return self._run(experiment, jobs, root, options, on_event, need)
        finally:
            if started:
                ray.shutdown()

    def _run(
        self,
        experiment: ExperimentConfig,
        jobs: Sequence[Job],
        root: Path,
        options: RunOptions,
        on_event: OnEvent | None,
        need: Resources,
    ) -> list[ResultRecord]:
        import ray
        from ray.util.queue import Queue

        task = ray.remote(run_job).options(
            num_cpus=need.cpus,
            num_gpus=need.gpus,
            max_retries=RESUME_RETRIES if options.resume else 0,
            retry_exceptions=False,
        )
        events = Queue(actor_options={"num_cpus": 0})
        waiting = list(enumerate(jobs))
        running: dict[ObjectRef[ResultRecord], int] = {}
        outcomes: list[ResultRecord | BaseException] = [RuntimeError("not run")] * len(jobs)
        limit = self.workers or len(jobs)
        try:
            while waiting or running:
                while waiting and len(running) < limit:
                    i, job = waiting.pop(0)
                    ref = task.remote(experiment, job, root, options, need.threads, events.put)
                    running[ref] = i
                wait_for_events(events, on_event)
                done, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
                for ref in done:
                    i = running.pop(ref)
                    outcomes[i] = ended = outcome(ref)
                    if isinstance(ended, WorkerDied):
                        record_lost(experiment, root, jobs[i], ended)
            drain_events(events, on_event)
        except BaseException:  # Ctrl-C or a failing on_event: stop the runs still going
            for ref in running:
                ray.cancel(ref, force=True)
            raise
        finally:
            events.shutdown()
        return collect(jobs, outcomes)


def connect(address: str | None) -> bool:
    """Connect this process to Ray; True when it started a Ray instance it must shut down."""
    import ray

    if ray.is_initialized():
        return False
    # "local" rather than None: None would also join any cluster last started on this machine.
    target = address or os.environ.get("RAY_ADDRESS") or "local"
    try:
        ray.init(address=target)
    except (ConnectionError, ValueError) as err:  # nothing there, or not an address
        raise ExecutorUnavailable(f"cannot reach a Ray cluster at {target!r}: {err}") from None
    return target == "local"


def outcome(ref: ObjectRef[ResultRecord]) -> ResultRecord | BaseException:
    """A finished task's record, or the exception that ended it (the run's own, unwrapped)."""
    import ray
    from ray.exceptions import RayTaskError

    try:
        return ray.get(ref)
    except RayTaskError as err:
        cause = err.cause
        if not isinstance(cause, BaseException):
            return err
        cause.__cause__ = RemoteTraceback(str(err))  # where it happened, for --debug
        return cause
    except Exception as err:  # the worker or node died, the task was cancelled, ...
        return WorkerDied(f"was lost ({type(err).__name__}: {one_line(err, 200)})")


Node = dict[str, Any]


def nodes_for(need: Resources) -> list[Node]:
    """The live nodes big enough for one run."""
    import ray

    listed: Callable[[], list[Node]] = ray.nodes  # untyped in Ray; this is what it returns
    return [
        n
        for n in listed()
        if n["Alive"]
        and n["Resources"].get("CPU", 0) >= need.cpus
        and n["Resources"].get("GPU", 0) >= need.gpus
    ]


def require_room(need: Resources, nodes: Sequence[Node]) -> None:
    """Refuse runs that no node can take, rather than leave them queued for ever."""
    if nodes:
        return
    import ray

    totals: Callable[[], dict[str, float]] = ray.cluster_resources  # untyped in Ray
    has = totals()
    raise ExecutorUnavailable(
        f"no node of the Ray cluster has {need.cpus:g} CPUs and {need.gpus:g} GPUs for one run "
        f"(the cluster has {has.get('CPU', 0):g} CPUs and {has.get('GPU', 0):g} GPUs); lower "
        "--cpus-per-run or --gpus-per-run, or add nodes"
    )


def check_shared(root: Path, nodes: Sequence[Node]) -> None:
    """Refuse a `root` that the nodes which may take a run do not all see.

    Where runs can land on more than one node, a file written under `root` from the first node
    must be visible from every other one; otherwise each node would keep its own half of the
    runs and `--resume` would find none of them.
    """
    if len(nodes) < 2:
        return
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    probe = ray.remote(probe_path)

    def on(node: Node) -> Any:
        pinned = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        return probe.options(num_cpus=0, max_retries=0, scheduling_strategy=pinned)

    marker = str(root / f".ray-shared-check-{uuid.uuid4().hex}")
    first, *others = nodes
    ray.get(on(first).remote(marker, "write"))
    try:
        seen = ray.get([on(node).remote(marker, "look") for node in others])
    finally:
        ray.get(on(first).remote(marker, "remove"))
    blind = [str(n["NodeManagerAddress"]) for n, ok in zip(others, seen, strict=True) if not ok]
    if blind:
        raise ExecutorUnavailable(
            f"--out {root} is not shared: a file written there on {first['NodeManagerAddress']} "
            f"is not visible on {', '.join(blind)}; on a Ray cluster --out must be a shared "
            "filesystem path, mounted at the same place on every node"
        )


def probe_path(marker: str, action: Literal["write", "look", "remove"]) -> bool:
    """Runs on one node: write the marker file, look for it (allowing for NFS caching), or
    remove it."""
    path = Path(marker)
    if action == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("envdesign-bench: checking that this directory is shared\n")
    elif action == "remove":
        path.unlink(missing_ok=True)
    else:
        deadline = time.monotonic() + 3
        while not path.exists():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
    return True
