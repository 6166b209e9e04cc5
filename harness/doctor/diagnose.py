"""Every check of an experiment against a machine, in the order a first round meets them.

`diagnose` asks the probe only for what the experiment's backend needs: the cpu backend trains
in this process, so only its disk, its torch and (for ``harness doctor``) the designers' keys
are checked, and nothing touches a GPU or the network; the verl backend gets the lot. The hub
is asked only when the model is not fully on disk and HF_HUB_OFFLINE is unset; a Ray address
only when one is given.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from harness.backends.verl.footprint import (
    DiskBudget,
    ModelSize,
    checkpoint_footprint,
    disk_budget,
    hf_hub_cache,
    hub_offline,
    stated_size,
)
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.serve import HOST
from harness.backends.verl.settings import verl_section
from harness.backends.verl.versions import UnsupportedVerl, VerlLine, line_of
from harness.designer_checks import designer_problems, serves_models
from harness.doctor import gpu, network, software, storage
from harness.doctor.findings import Finding, fail, ok
from harness.doctor.probes import Probe
from harness.experiment import ExperimentConfig

__all__ = ["TOPICS", "diagnose"]

TOPICS = (
    "cuda",
    "gpus",
    "gpu memory",
    "packages",
    "attention",
    "model",
    "disk",
    "ray",
    "ports",
    "designers",
)
PROBE_TIMEOUT_S = 5.0
"""A network probe's limit: a hub or a cluster that needs longer will not serve a run well."""


def diagnose(
    experiment: ExperimentConfig,
    probe: Probe,
    *,
    root: Path,
    runtime: VerlRuntime | None = None,
    params: int | None = None,
    resume: bool = False,
    skip: tuple[str, ...] = (),
    concurrent: int = 1,
) -> list[Finding]:
    """The findings about running `experiment` here with its output under `root`.

    `skip` leaves topics out: preflight checks the designers itself, and leaves the packages
    to the backend's own check when that already failed. `params` gives the model's parameter
    count where no local copy tells it; `concurrent` runs at once (each holding its round's
    checkpoints) set the disk budget's peak.
    """
    runtime = runtime or VerlRuntime()
    if experiment.backend != "verl":
        out = _cpu(experiment, probe, root)
    else:
        out = _verl(experiment, probe, root, runtime, params, resume, concurrent)
    if "designers" not in skip:
        out += designer_findings(experiment)
    return [f for f in out if f.topic not in skip]


def _cpu(experiment: ExperimentConfig, probe: Probe, root: Path) -> list[Finding]:
    free, where = probe.free_disk(root)
    runs = len(experiment.designers) * len(experiment.seeds)
    return [
        ok(
            "gpus",
            f"backend {experiment.backend} trains in this process: the GPU, CUDA, "
            "memory, model and Ray checks do not apply",
        ),
        *software.torch_findings(probe.python(sys.executable, cuda=False)),
        *storage.cpu_disk_findings(free, where, runs),
    ]


def _verl(
    experiment: ExperimentConfig,
    probe: Probe,
    root: Path,
    runtime: VerlRuntime,
    params: int | None,
    resume: bool,
    concurrent: int,
) -> list[Finding]:
    settings = verl_section(experiment)
    python, cluster = runtime.commands.python, runtime.submits_jobs
    facts, driver = probe.python(python, cuda=True), probe.driver()
    needed, why = gpu.gpus_needed(settings, submits_jobs=cluster)
    visible = gpu.visible_gpus(driver, facts.torch)
    size = stated_size(probe.model(experiment.policy), settings)
    if params is not None:
        size = replace(size, params=params, source="as given")
    flash = None
    wants_flash = settings.attention != "sdpa" and facts.packages.get("flash-attn")
    if wants_flash and not cluster and visible:
        flash = probe.flash_attn(python)
    out = [
        *gpu.cuda_findings(driver, facts.torch, python),
        *gpu.gpu_count_findings(visible, needed, why),
        *gpu.memory_findings(
            visible,
            size,
            settings,
            needed=needed,
            serving=serves_models(experiment),
            local_only=cluster,
        ),
        *software.package_findings(facts, verl_here=not cluster, ray_here=cluster),
        *software.attention_findings(settings.attention, facts, flash, cluster=cluster),
        *_model(experiment.policy, size, probe),
        *_disk(
            experiment, probe, root, size, _line(facts.packages.get("verl")), resume, concurrent
        ),
    ]
    if runtime.ray_address is not None:
        out += _ray(runtime.ray_address, probe)
    return [*out, *network.port_findings(probe.bind(HOST), HOST)]


def _line(verl: str | None) -> VerlLine:
    try:
        return line_of(verl) if verl else "0.6"
    except UnsupportedVerl:
        return "0.6"


def _model(model: str, size: ModelSize, probe: Probe) -> list[Finding]:
    cache, local = hf_hub_cache(probe.env), Path(model).expanduser().is_dir()
    found = storage.model_findings(size, offline=hub_offline(probe.env), cache=cache, local=local)
    if found:
        return found
    endpoint = (probe.env.get("HF_ENDPOINT") or storage.HUB_ENDPOINT).rstrip("/")
    answer = probe.http(f"{endpoint}/api/models/{model}", PROBE_TIMEOUT_S)
    return storage.hub_findings(model, endpoint, answer, cache)


def _disk(
    experiment: ExperimentConfig,
    probe: Probe,
    root: Path,
    size: ModelSize,
    line: VerlLine,
    resume: bool,
    concurrent: int,
) -> list[Finding]:
    free, where = probe.free_disk(root)
    budget: DiskBudget | None = None
    if size.params is not None:
        footprint = checkpoint_footprint(size.params, verl_section(experiment))
        try:
            budget = disk_budget(experiment, footprint, concurrent=concurrent, line=line)
        except ValueError as err:
            return [fail("disk", f"no budget: the recipe's batches do not work out: {err}")]
    return storage.disk_findings(free, where, budget, size, resume=resume)


def _ray(address: str, probe: Probe) -> list[Finding]:
    target = network.ray_target(address)
    if target is None:
        return network.ray_findings(address, None)
    kind, where, port = target
    answer: int | str | None
    if kind == "http":
        answer = probe.http(where, PROBE_TIMEOUT_S)
    else:
        answer = probe.tcp(where, port, PROBE_TIMEOUT_S)
    return network.ray_findings(address, answer)


def designer_findings(experiment: ExperimentConfig) -> list[Finding]:
    """The designers' names, options and keys, by preflight's own check."""
    lines = designer_problems(experiment, ready=True)
    if not lines:
        return [
            ok(
                "designers",
                f"{', '.join(experiment.designers)}: options valid, keys and servers ready",
            )
        ]
    return [fail("designers", line) for line in lines]
