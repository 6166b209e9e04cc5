"""The verl backend's machine checks, for `harness doctor` and preflight (its spec's hook).

GPUs, CUDA and the driver; GPU memory against the recipe; the packages against both supported
verl lines; flash-attn; the model in the Hugging Face cache, else the hub; free disk against the
comparison's checkpoint budget; Ray when an address is given; a free port for vLLM's servers.
Each is asked of the probe only when the experiment needs it, in the order a first round meets
them. The checks themselves are verl's (`doctor_gpu`, `doctor_packages`, `doctor_storage`);
the probe, the Ray and port checks and the findings are the doctor's, shared by every backend.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from harness.backends.servers import HOST
from harness.backends.verl import doctor_gpu, doctor_packages, doctor_storage
from harness.backends.verl.footprint import (
    DiskBudget,
    ModelSize,
    checkpoint_footprint,
    disk_budget,
    hf_hub_cache,
    hub_offline,
    model_size,
    stated_size,
)
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import verl_section
from harness.backends.verl.versions import UnsupportedVerl, VerlLine, line_of
from harness.doctor import network
from harness.doctor.findings import Finding, fail
from harness.doctor.probes import PROBE_TIMEOUT_S, Probe
from harness.experiment import ExperimentConfig

__all__ = ["machine_findings"]


def machine_findings(
    experiment: ExperimentConfig,
    probe: Probe,
    *,
    root: Path,
    ray_address: str | None = None,
    runtime: object | None = None,
    serving: bool = False,
    params: int | None = None,
    resume: bool = False,
    concurrent: int = 1,
) -> list[Finding]:
    """Everything a verl run needs of this machine (and of the cluster at `ray_address`).

    `runtime` (a `VerlRuntime`) fixes the trainer's Python and cluster instead of the defaults;
    `serving`: a designer reads a model the backend serves; `params` the model's parameter count
    where no local copy tells it; `concurrent` runs at once set the disk budget's peak.
    """
    if runtime is not None and not isinstance(runtime, VerlRuntime):
        raise TypeError(f"verl's runtime is a VerlRuntime, not a {type(runtime).__name__}")
    runtime = runtime or VerlRuntime(ray_address=ray_address)
    settings = verl_section(experiment)
    python, cluster = runtime.commands.python, runtime.submits_jobs
    facts = probe.python(python, cuda=True, packages=doctor_packages.DISTRIBUTIONS)
    driver = probe.driver()
    needed, why = doctor_gpu.gpus_needed(settings, submits_jobs=cluster)
    visible = doctor_gpu.visible_gpus(driver, facts.torch)
    size = stated_size(model_size(experiment.policy, env=probe.env), settings)
    if params is not None:
        size = replace(size, params=params, source="as given")
    flash = None
    wants_flash = settings.attention != "sdpa" and facts.packages.get("flash-attn")
    if wants_flash and not cluster and visible:
        flash = probe.flash_attn(python)
    out = [
        *doctor_gpu.cuda_findings(driver, facts.torch, python),
        *doctor_gpu.gpu_count_findings(visible, needed, why),
        *doctor_gpu.memory_findings(
            visible,
            size,
            settings,
            needed=needed,
            serving=serving,
            local_only=cluster,
        ),
        *doctor_packages.package_findings(facts, verl_here=not cluster, ray_here=cluster),
        *doctor_packages.attention_findings(settings.attention, facts, flash, cluster=cluster),
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
    offline = hub_offline(probe.env)
    found = doctor_storage.model_findings(size, offline=offline, cache=cache, local=local)
    if found:
        return found
    endpoint = (probe.env.get("HF_ENDPOINT") or doctor_storage.HUB_ENDPOINT).rstrip("/")
    answer = probe.http(f"{endpoint}/api/models/{model}", PROBE_TIMEOUT_S)
    return doctor_storage.hub_findings(model, endpoint, answer, cache)


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
    return doctor_storage.disk_findings(free, where, budget, size, resume=resume)


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
