"""Presets are package data, found by name from the installed package; paths still work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import harness.presets
from envdesign_common.field_errors import ConfigError
from harness.experiment import ExperimentConfig
from harness.presets import preset_names, resolve_preset
from harness_cli import app

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(harness.presets.__file__).parent


def test_names_resolve_inside_the_package_whatever_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no configs/ here
    names = ["ablation_context", "controls", "paper_cpu", "paper_qwen3_4b", "quick",
             "reasoning_gym", "reasoning_gym_verl", "single_gpu", "teachers"]  # fmt: skip
    assert preset_names() == names
    for name in preset_names():
        path = resolve_preset(name)
        assert path.parent == PACKAGE and path.is_file()
        assert ExperimentConfig.load(path).name == name


def test_checkout_configs_link_to_the_packaged_presets() -> None:
    for name in preset_names():
        linked = REPO / "configs" / f"{name}.yaml"
        assert linked.is_symlink(), linked
        assert Path(os.path.realpath(linked)) == resolve_preset(name).resolve()


def test_a_file_path_is_taken_as_it_is(tmp_path: Path) -> None:
    mine = tmp_path / "quick"  # a file named like a preset wins when it exists
    mine.write_text("name: mine\n")
    assert resolve_preset(str(mine)) == mine
    with pytest.raises(ConfigError, match="no preset file at"):
        resolve_preset(str(tmp_path / "absent.yaml"))


def test_an_unknown_name_lists_the_presets_and_the_closest() -> None:
    with pytest.raises(ConfigError) as err:
        resolve_preset("quik")
    assert str(err.value) == (
        "no preset 'quik': the shipped ones are ablation_context, controls, paper_cpu, "
        "paper_qwen3_4b, quick, reasoning_gym, reasoning_gym_verl, single_gpu, teachers; "
        "did you mean 'quick'? (or give the path of a YAML file)"
    )


def test_the_cli_answers_an_unknown_preset_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["compare", "--designers", "random", "--preset", "papr_cpu", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "did you mean 'paper_cpu'?" in result.output and "Traceback" not in result.output


QUICK_BUDGET = {
    "controls": (("random", "matched", "harder"), (0, 1)),
    "teachers": (("random", "matched", "hand", "evidence", "learning-progress", "regret"),
                 (0, 1, 2)),
}  # fmt: skip
"""Presets that are the quick budget with their own designers and seeds, so boards compare."""


@pytest.mark.parametrize("name", sorted(QUICK_BUDGET))
def test_comparison_presets_are_the_quick_budget(name: str) -> None:
    preset = ExperimentConfig.load(resolve_preset(name))
    quick = ExperimentConfig.load(resolve_preset("quick"))
    assert (preset.designers, preset.seeds) == QUICK_BUDGET[name]
    apart = {"name", "designers", "seeds"}
    assert preset.model_dump(exclude=apart) == quick.model_dump(exclude=apart)


@pytest.mark.parametrize("name", sorted(QUICK_BUDGET))
def test_a_dry_run_plans_every_designer_and_seed(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["compare", "--preset", name, "--dry-run",
                                      "--out", str(tmp_path / "runs")])  # fmt: skip
    assert result.exit_code == 0, result.output
    planned = [line for line in result.output.splitlines() if " / seed " in line]
    designers, seeds = QUICK_BUDGET[name]
    assert planned == [f"{d} / seed {seed}" for d in designers for seed in seeds]
    assert not (tmp_path / "runs").exists()
