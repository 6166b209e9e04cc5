"""Presets are package data, found by name from the installed package; paths still work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import harness.presets
from harness.experiment import ExperimentConfig
from harness.presets import preset_names, resolve_preset
from harness_cli import app
from mapf_env import ConfigError

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(harness.presets.__file__).parent


def test_names_resolve_inside_the_package_whatever_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no configs/ here
    names = ["ablation_context", "controls", "paper_cpu", "paper_qwen3_4b", "quick", "teachers"]
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
        "paper_qwen3_4b, quick, teachers; "
        "did you mean 'quick'? (or give the path of a YAML file)"
    )


def test_the_cli_answers_an_unknown_preset_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["compare", "--designers", "random", "--preset", "papr_cpu", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "did you mean 'paper_cpu'?" in result.output and "Traceback" not in result.output
