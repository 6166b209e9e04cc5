"""Which verl line and attention the backend targets, with the machine faked: configured
values, a stand-in python that answers the probe, and stand-in ``torch`` / ``flash_attn``
packages that the real probe script imports."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import BackendUnavailable
from harness.backends.verl.runtime import VerlCommands, VerlRuntime
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.target import (
    AttentionUnavailable,
    default_target,
    probe_python,
    resolve_target,
)
from harness.backends.verl.versions import PAPER, UnsupportedVerl
from harness.doctor.probes import installed_version
from harness.experiment import ExperimentConfig
from tests.harness.verl.cases import PAPER_PRESET

FLASH_PIN = f"pip install flash-attn=={PAPER.flash_attn} --no-build-isolation"


def fake_python(tmp_path: Path, answer: str, *, code: int = 0, name: str = "python") -> Path:
    """An executable standing in for another interpreter: it logs its arguments and prints
    `answer` (what the probe would print there)."""
    path = tmp_path / name
    log = tmp_path / f"{name}.args"
    path.write_text(
        f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> {log}\nprintf '%s\\n' '{answer}'\n"
        f"echo 'probe failed on purpose' >&2\nexit {code}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def probed(path: Path) -> list[str]:
    log = path.with_name(f"{path.name}.args")
    return log.read_text().splitlines() if log.exists() else []


def runtime(python: Path | str | None = None, **changes: Any) -> VerlRuntime:
    commands = VerlCommands(python=str(python)) if python is not None else VerlCommands()
    return VerlRuntime(commands=commands, **changes)


# --- configured ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "flash", "attention", "packed", "says"),
    [
        ({}, True, "flash_attention_2", True, "auto attention: flash_attention_2"),
        ({}, False, "sdpa", False, "auto attention: sdpa without padding removal"),
        ({"use_remove_padding": False}, True, "flash_attention_2", False, "flash_attention_2"),
        ({"attention": "sdpa"}, True, "sdpa", False, "attention sdpa as configured"),
        ({"attention": "flash_attention_2"}, True, "flash_attention_2", True, "as configured"),
    ],
)
def test_configured_machine(
    settings: dict[str, Any], flash: bool, attention: str, packed: bool, says: str
) -> None:
    target = resolve_target(
        VerlSettings(**settings), runtime(verl_version="0.6.1", flash_attn=flash)
    )
    assert (target.attention, target.remove_padding) == (attention, packed)
    assert (target.line, target.verl_version, target.rollout_mode) == ("0.6", "0.6.1", "sync")
    assert says in target.why and not target.provisional
    assert says in target.describe()


def test_flash_attention_without_flash_attn_is_an_error_with_the_fix() -> None:
    settings = VerlSettings(attention="flash_attention_2")
    with pytest.raises(AttentionUnavailable) as caught:
        resolve_target(settings, runtime(verl_version="0.6.1", flash_attn=False))
    message = str(caught.value)
    assert FLASH_PIN in message and "verl.attention: sdpa" in message
    assert "\n" not in message


@pytest.mark.parametrize("version", ["0.7.0", "0.5.0", "0.10.0", "not-a-version"])
def test_an_unsupported_verl_is_refused(version: str) -> None:
    with pytest.raises(UnsupportedVerl, match=f"verl {version} is not supported"):
        resolve_target(VerlSettings(), runtime(verl_version=version, flash_attn=True))


def test_the_current_line_rolls_out_async_and_says_so() -> None:
    target = resolve_target(VerlSettings(), runtime(verl_version="0.9.1", flash_attn=True))
    assert (target.line, target.rollout_mode) == ("0.9", "async")
    assert "the settings' sync is mapped" in target.why
    chosen = VerlSettings(rollout_mode="async")
    quiet = resolve_target(chosen, runtime(verl_version="0.9.1", flash_attn=True))
    assert quiet.rollout_mode == "async" and "mapped" not in quiet.why


def test_the_record_is_json() -> None:
    target = resolve_target(VerlSettings(), runtime(verl_version="0.9.1", flash_attn=False))
    record = json.loads(json.dumps(target.as_record()))
    assert record == {
        "verl_version": "0.9.1",
        "line": "0.9",
        "attention": "sdpa",
        "remove_padding": False,
        "rollout_mode": "async",
        "provisional": False,
        "why": target.why,
    }


# --- probed --------------------------------------------------------------------------------


def test_another_interpreter_is_asked(tmp_path: Path) -> None:
    answer = '{"verl": "0.9.1", "flash_attn": false, "flash_reason": "torch sees no CUDA GPU"}'
    python = fake_python(tmp_path, answer)
    target = resolve_target(VerlSettings(), runtime(python))
    assert (target.verl_version, target.line, target.attention) == ("0.9.1", "0.9", "sdpa")
    assert f"installed for {python}" in target.why and "torch sees no CUDA GPU" in target.why
    assert probed(python)[0] == "-c" and probed(python)[-1] == "flash"  # asked once, with GPU


def test_a_configured_version_and_flash_ask_nothing(tmp_path: Path) -> None:
    python = fake_python(tmp_path, "garbage", code=1)
    target = resolve_target(VerlSettings(), runtime(python, verl_version="0.6.1", flash_attn=True))
    assert target.attention == "flash_attention_2" and probed(python) == []


def test_sdpa_probes_no_gpu(tmp_path: Path) -> None:
    python = fake_python(tmp_path, '{"verl": "0.6.1", "flash_attn": null, "flash_reason": ""}')
    target = resolve_target(VerlSettings(attention="sdpa"), runtime(python))
    assert target.attention == "sdpa" and "flash" not in probed(python)


@pytest.mark.parametrize(("answer", "code"), [("not json", 0), ('{"verl": "0.6.1"}', 3)])
def test_a_failed_probe_says_so(tmp_path: Path, answer: str, code: int) -> None:
    python = fake_python(tmp_path, answer, code=code)
    with pytest.raises(BackendUnavailable, match="probe failed on purpose"):
        resolve_target(VerlSettings(), runtime(python))


def test_a_missing_interpreter_says_so(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="cannot run the trainer's python"):
        probe_python(str(tmp_path / "nowhere" / "python"), flash=False)


def test_no_verl_for_the_trainers_python_is_an_error(tmp_path: Path) -> None:
    python = fake_python(tmp_path, '{"verl": null, "flash_attn": true, "flash_reason": "ok"}')
    with pytest.raises(UnsupportedVerl, match="verl is not installed for"):
        resolve_target(VerlSettings(), runtime(python))


def test_a_ray_cluster_is_not_probed(tmp_path: Path) -> None:
    python = fake_python(tmp_path, '{"verl": "0.6.1", "flash_attn": true, "flash_reason": "ok"}')
    cluster = runtime(python, ray_address="http://head:8265")
    target = resolve_target(VerlSettings(), cluster)
    assert target.verl_version == "0.6.1" and "flash" not in probed(python)
    assert target.attention == "sdpa" and "Ray cluster's GPUs are not probed" in target.why
    told = resolve_target(VerlSettings(), cluster.model_copy(update={"flash_attn": True}))
    assert told.attention == "flash_attention_2"


# --- the dry run: nothing probed -------------------------------------------------------------


def test_the_dry_run_probes_nothing_and_says_what_is_open(tmp_path: Path) -> None:
    python = fake_python(tmp_path, "garbage", code=1)
    target = resolve_target(VerlSettings(), runtime(python), probe=False)
    assert (target.line, target.verl_version, target.attention) == (
        "0.6",
        "0.6.1",
        "flash_attention_2",
    )
    assert target.provisional and "(provisional)" in target.describe()
    assert "at launch" in target.why and "assumed" in target.why
    assert probed(python) == []
    configured = resolve_target(
        VerlSettings(), runtime(python, verl_version="0.9.1", flash_attn=False), probe=False
    )
    assert (configured.line, configured.attention, configured.provisional) == ("0.9", "sdpa", False)


def test_the_default_target_is_the_papers_line() -> None:
    assert (default_target(VerlSettings()).line, default_target(VerlSettings()).provisional) == (
        "0.6",
        True,
    )
    assert default_target(VerlSettings(attention="sdpa")).remove_padding is False


# --- the real probe script, with stand-in packages -----------------------------------------


def stand_ins(tmp_path: Path, capabilities: list[tuple[int, int]] | None) -> Path:
    """``flash_attn`` (2.8.3) and a ``torch`` whose CUDA sees GPUs of `capabilities` (None: no
    flash_attn at all), on a path the probe's interpreter puts first."""
    root = tmp_path / "site"
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(
        "__version__ = '2.8.0'\n"
        "class cuda:\n"
        f"    caps = {capabilities or []!r}\n"
        "    is_available = staticmethod(lambda: bool(cuda.caps))\n"
        "    device_count = staticmethod(lambda: len(cuda.caps))\n"
        "    get_device_capability = staticmethod(lambda i: cuda.caps[i])\n"
    )
    if capabilities is not None:
        (root / "flash_attn").mkdir()
        (root / "flash_attn" / "__init__.py").write_text("__version__ = '2.8.3'\n")
        (root / "flash_attn" / "bert_padding.py").write_text("")
    return root


@pytest.mark.parametrize(
    ("capabilities", "usable", "reason"),
    [
        ([(9, 0), (9, 0)], True, "flash_attn 2.8.3 on 2 GPU(s) sm_90+"),
        ([(9, 0), (7, 5)], False, "GPU 1 is sm_75"),
        ([], False, "sees no CUDA GPU"),
        (None, False, "flash_attn does not import (ModuleNotFoundError"),
    ],
)
def test_the_probe_script(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capabilities: list[tuple[int, int]] | None,
    usable: bool,
    reason: str,
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(stand_ins(tmp_path, capabilities))]))
    found = probe_python(sys.executable, flash=True)
    assert (found.flash_attn, found.verl) == (usable, installed_version("verl"))
    assert reason in found.flash_reason
    assert probe_python(sys.executable, flash=False).flash_attn is None


# --- the backend resolves it once ----------------------------------------------------------


def test_the_backend_resolves_its_target_once(tmp_path: Path) -> None:
    from harness.backends.verl.backend import VerlBackend

    paper = ExperimentConfig.load(PAPER_PRESET)
    python = fake_python(tmp_path, '{"verl": "0.9.1", "flash_attn": false, "flash_reason": "x"}')
    backend = VerlBackend(paper, tmp_path / "run" / "self" / "seed-0", runtime(python))
    assert probed(python) == []  # constructing a backend probes nothing
    inputs = backend.round_inputs(0, paper.samples_per_round, seed=0)
    launch, _ = backend.train_launch(inputs, tmp_path / "metrics.jsonl")
    backend.train_launch(inputs, tmp_path / "metrics.jsonl")
    assert backend.target.line == "0.9" and probed(python).count("-c") == 1
    argv = list(launch.argv)
    assert "+actor_rollout_ref.model.override_config.attn_implementation=sdpa" in argv
    assert "actor_rollout_ref.model.use_remove_padding=false" in argv
    assert "actor_rollout_ref.rollout.mode=async" in argv
    assert any(a.startswith("reward.custom_reward_function.path=") for a in argv)
