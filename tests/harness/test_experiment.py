"""ExperimentConfig: presets load, overrides apply last, bad input names the field."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from envdesign_common.field_errors import ConfigError
from harness.experiment import ExperimentConfig, Override, apply_overrides
from harness.loop import shared_start
from mapf_env import EnvConfig, Objective, generate, random_config
from tasks.mapf_frozenlake import MapfSettings
from tests.envdesign_common.yaml_bombs import NAMES, laughs

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
    config = ExperimentConfig.from_mapping({"samples_per_round": 1000})
    assert shared_start(config, 3) == random_config(3, n_agents=2, samples=1000)
    given = ExperimentConfig.from_mapping(
        {"samples_per_round": 500,
         "initial": {"kind": "given", "config": EnvConfig.uniform().model_dump(mode="json")}}
    )  # fmt: skip
    assert isinstance(given.initial.config, EnvConfig)
    assert shared_start(given, 3) == EnvConfig.uniform().model_copy(update={"samples": 500})


def test_a_given_start_is_read_with_the_tasks_configuration_model() -> None:
    with pytest.raises(ConfigError) as caught:
        ExperimentConfig.from_mapping({"initial": {"kind": "given", "config": {"samplez": 5}}})
    assert "initial.config.samplez: not a field" in str(caught.value)


def test_the_tasks_settings_are_its_own_section() -> None:
    """What the MAPF task fixes (agents, the objective the reward pays for) is its section,
    checked with its own model; SOC by default, and the random start is otherwise the same."""
    plain = ExperimentConfig()
    assert plain.task_settings == MapfSettings()
    assert plain.model_dump(mode="json")["task_settings"]["objective"] == "soc"
    spans = ExperimentConfig.from_mapping(
        {"samples_per_round": 1000, "task_settings": {"objective": "makespan", "n_agents": 3}}
    )
    start = shared_start(spans, 3)
    assert (start.objective, start.n_agents) == (Objective.MAKESPAN, 3)
    assert start.sizes == random_config(3, n_agents=3, samples=1000).sizes
    data = generate(start.model_copy(update={"samples": 16}), seed=0, workers=1)
    assert {i.optimum.objective for i in data.instances if i.optimum} == {Objective.MAKESPAN}
    with pytest.raises(ConfigError, match=r"task_settings\.objective"):
        ExperimentConfig.from_mapping({"task_settings": {"objective": "speed"}})
    with pytest.raises(ConfigError, match=r"task_settings\.n_agents: out of range"):
        ExperimentConfig.from_mapping({"task_settings": {"n_agents": 8}})
    assert ExperimentConfig.from_mapping(spans.model_dump(mode="json")) == spans


def test_suites_default_to_the_tasks_own_and_must_be_its() -> None:
    plain = ExperimentConfig()
    assert (plain.validation, plain.benchmarks) == ("validation", ("3agents", "4agents", "5agents"))
    with pytest.raises(ConfigError) as caught:
        ExperimentConfig.from_mapping({"benchmarks": ["3agents", "rg-eval"]})
    assert "benchmarks.1: no benchmark suite 'rg-eval' in task mapf-frozenlake-v2" in str(
        caught.value
    )


def test_another_tasks_suites_beside_a_backend_section_are_one_line_each() -> None:
    """The backend's section is read by its own model, the suites by the task: the suites'
    errors pass through both and still read as one line each."""
    with pytest.raises(ConfigError) as caught:
        ExperimentConfig.from_mapping({"task": "reasoning-gym", "backend": "trl",
                                       "trl": {"device": "cpu"}, "validation": "validation",
                                       "benchmarks": ["3agents"]})  # fmt: skip
    assert str(caught.value).splitlines()[1:] == [
        "  validation: no benchmark suite 'validation' in task reasoning-gym-v1; its suites are "
        "rg-validation, rg-eval (got 'validation')",
        "  benchmarks.0: no benchmark suite '3agents' in task reasoning-gym-v1; its suites are "
        "rg-validation, rg-eval (got '3agents')",
    ]


def test_a_misspelt_key_at_any_depth_gets_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "grpo: {learning_rte: 0.01}\n"
        "initial:\n  kind: given\n  config:\n"
        "    sizes: {3x3: {ratio: 1.0, holes_ratio: 0.1, wait_ratio: 0.1}}\n"
    )
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(path)
    assert str(err.value).splitlines() == [
        f"{path}:",
        "  grpo.learning_rte: not a field (got 0.01); fields are group_size, learning_rate, "
        "kl_coef; did you mean 'learning_rate'?",
        "  initial.config.sizes.3x3.holes_ratio: not a field (got 0.1); fields are ratio, "
        "hole_ratio, wait_ratio; did you mean 'hole_ratio'?",
    ]


def test_an_error_from_set_names_the_set_not_the_preset() -> None:
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(CONFIGS / "quick.yaml", ["rouns=1"])
    message = str(err.value)
    assert message.startswith("--set rouns=1: rouns: not a field (got 1); fields are name, ")
    assert message.endswith("did you mean 'rounds'?") and "quick.yaml" not in message
    with pytest.raises(ConfigError, match=r"^--set grpo=\{learning_rte: 1\}: grpo\.learning_rte"):
        ExperimentConfig.load(CONFIGS / "quick.yaml", ["grpo={learning_rte: 1}"])
    with pytest.raises(ConfigError, match=r"^--set initial\.kind=given: initial: "):
        ExperimentConfig.load(CONFIGS / "quick.yaml", ["initial.kind=given"])


def test_file_and_set_errors_each_name_their_origin(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("rounds: abc\n")
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(path, ["rouns=1", "best_of=0"])
    lines = str(err.value).splitlines()
    assert lines[0] == f"bad fields in {path}, --set rouns=1, --set best_of=0:"
    assert lines[1] == f"  {path}: rounds: wrong type (got 'abc'); expected an integer"
    assert lines[2].startswith("  --set rouns=1: rouns: not a field (got 1)")
    assert lines[3] == (
        "  --set best_of=0: best_of: out of range (got 0); allowed: 1 <= best_of <= 64"
    )


def test_a_wrong_type_names_field_value_and_expected_type() -> None:
    cases = {
        "rounds=abc": "--set rounds=abc: rounds: wrong type (got 'abc'); expected an integer",
        "designers=random": "--set designers=random: designers: wrong type (got 'random'); "
        "expected a list of strings",
        "seeds=[1, x]": "--set seeds=[1, x]: seeds.1: wrong type (got 'x'); expected an integer",
        "backend=cpuu": "--set backend=cpuu: backend: not one of the choices (got 'cpuu'); "
        "allowed: 'cpu', 'trl' or 'verl'; did you mean 'cpu'?",
    }
    for override, expected in cases.items():
        with pytest.raises(ConfigError) as err:
            ExperimentConfig.load(CONFIGS / "quick.yaml", [override])
        assert str(err.value) == expected


def test_a_huge_value_is_shown_truncated() -> None:
    huge = "9" * 5000 + "x"
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(CONFIGS / "quick.yaml", [f"rounds={huge}"])
    message = str(err.value)
    assert len(message) < 300, message
    assert message.startswith("--set rounds=9999") and "(got '9999" in message
    assert "expected an integer" in message


def alias_fan_out(tmp_path: Path, depth: int) -> Path:
    """An experiment file whose aliases repeat 9**depth leaves under 14 bad keys and 2 fields."""
    top = NAMES[depth - 1]
    path = tmp_path / "fan_out.yaml"
    extra = [f"k{n}: *{top}" for n in range(14 - depth)]
    path.write_text(
        laughs(depth, leaf="x") + "\n".join([*extra, f"seeds: *{top}", f"name: *{top}", ""])
    )
    return path


def test_a_yaml_alias_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    path = alias_fan_out(tmp_path, 9)  # 9**9 leaves at every use
    started = time.monotonic()
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(path)
    assert time.monotonic() - started < 5
    assert str(err.value) == (
        f"{path}: the YAML is too large: more than 100000 values, aliases (*name) counted at "
        "every use; write the values out or split the file"
    )


def test_many_bad_fields_from_aliases_give_a_short_message(tmp_path: Path) -> None:
    path = alias_fan_out(tmp_path, 3)  # within the bounds: validated, every value repeated
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(path)
    message = str(err.value)
    assert len(message) < 6000 and len(message.splitlines()) == 21, message
    assert "name: wrong type (got [[['x', 'x'" in message
    assert "too short" not in message  # pydantic's echo of the refused seeds
    assert message.endswith("... and 5 more bad fields")  # 14 keys + name + 9 seeds, cut at 20


def test_override_syntax_errors_name_the_set() -> None:
    with pytest.raises(ConfigError, match=r"^--set rounds: not key=value"):
        ExperimentConfig.load(CONFIGS / "quick.yaml", ["rounds"])
    with pytest.raises(ConfigError, match=r"^--set rounds\.x=1: rounds is not a section"):
        ExperimentConfig.load(CONFIGS / "quick.yaml", ["rounds.x=1"])


def test_a_typed_override_is_laid_as_given_and_blamed_on_its_option() -> None:
    names = ("random", "hand")
    config = ExperimentConfig.load(
        CONFIGS / "quick.yaml", [Override(("designers",), names, "--designers random,hand")]
    )
    assert config.designers == names
    odd = ("x: [gpt@v3",)  # as YAML text in a --set this would not even parse
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.load(
            CONFIGS / "quick.yaml",
            [
                "rounds=2",
                Override(("designers",), odd, "--designers odd"),
                Override(("seeds",), (-1,), "--seeds x"),
            ],
        )
    lines = str(err.value).splitlines()
    assert lines[0] == "bad fields in --designers odd, --seeds x:"
    assert any(line.startswith("  --designers odd: designers.0:") for line in lines)
    assert any(line.startswith("  --seeds x: seeds:") for line in lines)
