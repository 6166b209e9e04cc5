"""ExperimentConfig: presets load, overrides apply last, bad input names the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.experiment import ExperimentConfig, apply_overrides
from mapf_env import ConfigError, EnvConfig, random_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("preset", ["quick.yaml", "paper_cpu.yaml"])
def test_presets_load_and_round_trip(preset: str, tmp_path: Path) -> None:
    config = ExperimentConfig.load(CONFIGS / preset)
    assert config.backend == "cpu" and config.designers
    copy = tmp_path / "copy.yaml"
    copy.write_text(config.to_yaml())
    assert ExperimentConfig.load(copy) == config


def test_paper_preset_has_the_paper_budget() -> None:
    config = ExperimentConfig.load(CONFIGS / "paper_cpu.yaml")
    assert (config.rounds, config.samples_per_round, config.epochs_per_round) == (3, 4000, 3)
    assert config.grpo.group_size == 8


def test_overrides_apply_last_and_read_yaml_values() -> None:
    config = ExperimentConfig.load(
        CONFIGS / "quick.yaml",
        ["rounds=4", "grpo.learning_rate=1e-3", "designers=[random, uniform]", "seeds=[1, 2]"],
    )
    assert config.rounds == 4 and config.grpo.learning_rate == 1e-3
    assert config.designers == ("random", "uniform") and config.seeds == (1, 2)
    assert apply_overrides({"a": {"b": 1}}, ["a.c=2"]) == {"a": {"b": 1, "c": 2}}


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["roundz=3"], "did you mean 'rounds'"),
        (["rounds=-1"], "rounds"),
        (["rounds"], "key=value"),
        (["benchmarks=[6agents]"], "no benchmark suite '6agents'"),
        (["backend=tpu"], "backend"),
        (["rounds.x=1"], "not a section"),
        (["initial.kind=given"], "initial.config is missing"),
    ],
)
def test_bad_input_is_a_clear_error(overrides: list[str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        ExperimentConfig.load(CONFIGS / "quick.yaml", overrides)


def test_missing_or_broken_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no experiment config"):
        ExperimentConfig.load(tmp_path / "none.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("rounds: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        ExperimentConfig.load(broken)


def test_initial_configuration_is_shared_per_seed_or_given() -> None:
    config = ExperimentConfig()
    first = config.initial.resolve(seed=3, n_agents=2, samples=1000)
    assert first == random_config(3, n_agents=2, samples=1000)
    given = ExperimentConfig.from_mapping(
        {"initial": {"kind": "given", "config": EnvConfig.uniform().model_dump(mode="json")}}
    )
    assert given.initial.resolve(seed=3, n_agents=2, samples=500).samples == 500
