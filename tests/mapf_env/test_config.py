"""EnvConfig: YAML round trips, merge of designer change sets, projection onto the constraints."""

from __future__ import annotations

import math
from pathlib import Path as FsPath

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from envdesign_common.field_errors import ConfigError
from mapf_env import SIZES, Objective
from mapf_env.config import MAX_HOLE_RATIO, EnvConfig, parse_size, random_config
from mapf_env.projection import merge, project
from tests.envdesign_common.yaml_bombs import laughs


def test_yaml_round_trip_is_exact() -> None:
    for config in (EnvConfig.uniform(), random_config(3), random_config(4, n_agents=3)):
        assert EnvConfig.from_yaml(config.to_yaml()) == config
        assert EnvConfig.from_yaml(config.to_yaml()).to_yaml() == config.to_yaml()


def test_random_config_is_seeded_and_legal() -> None:
    assert random_config(7) == random_config(7)
    assert random_config(7) != random_config(8)
    config = random_config(7)
    assert math.isclose(sum(s.ratio for s in config.sizes.values()), 1.0, abs_tol=1e-9)
    assert not project(config).changed


def test_size_keys_accept_the_forms_designers_write() -> None:
    assert parse_size(7) == parse_size("7") == parse_size("7x7") == parse_size("size_7") == 7
    for bad in ("7x8", "11", "eleven", True, 2):
        with pytest.raises(ConfigError):
            parse_size(bad)


def test_merge_applies_only_the_changes() -> None:
    base = EnvConfig.uniform()
    draft = merge(base, {"7x7": {"hole_ratio": 0.4}, "sizes": {"3": {"wait_ratio": 0.1}}})
    assert draft.sizes[7].hole_ratio == 0.4
    assert draft.sizes[3].wait_ratio == 0.1
    assert draft.sizes[7].ratio == base.sizes[7].ratio
    assert draft.sizes[5].model_dump() == base.sizes[5].model_dump()


def test_merge_records_locked_fields_and_rejects_unknown_ones() -> None:
    base = EnvConfig.uniform()
    draft = merge(base, {"samples": 9999, "n_agents": 5})
    projected = project(draft)
    assert projected.config.samples == 4000 and projected.config.n_agents == 2
    assert {n.field for n in projected.notes} == {"samples", "n_agents"}
    with pytest.raises(ConfigError, match="did you mean 'hole_ratio'"):
        merge(base, {"7x7": {"holes_ratio": 0.2}})
    with pytest.raises(ConfigError, match="12"):
        merge(base, {"12x12": {"ratio": 0.2}})


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (float("nan"), "finite"),
        (float("inf"), "finite"),
        ("lots", "number"),
        (None, "number"),
        ([0.1], "number"),
        (True, "number"),
    ],
)
def test_bad_values_name_the_field(value: object, match: str) -> None:
    with pytest.raises(ConfigError, match=rf"7x7\.ratio.*{match}"):
        merge(EnvConfig.uniform(), {"7x7": {"ratio": value}})


def test_projection_clips_renormalises_and_explains() -> None:
    draft = merge(EnvConfig.uniform(), {"3x3": {"ratio": -1, "hole_ratio": 0.9, "wait_ratio": 2}})
    result = project(draft)
    assert result.config.sizes[3].ratio == 0.0
    assert result.config.sizes[3].hole_ratio == MAX_HOLE_RATIO
    assert result.config.sizes[3].wait_ratio == 1.0
    assert math.isclose(sum(s.ratio for s in result.config.sizes.values()), 1.0)
    fields = {n.field for n in result.notes}
    assert {"sizes.3x3.ratio", "sizes.3x3.hole_ratio", "sizes.3x3.wait_ratio"} <= fields
    assert "sizes.4x4.ratio" in fields  # rescaled after 3x3 dropped to zero


def test_ratios_at_the_float_limit_are_rescaled_like_any_others() -> None:
    # Their sum overflows to inf; the shares must still come out as halves, not as a
    # configuration whose ratios sum to 0 (an internal error an LLM designer would be shown).
    result = project(merge(EnvConfig.uniform(), {"3x3": {"ratio": 1e308}, "4x4": {"ratio": 1e308}}))
    assert result.config.sizes[3].ratio == 0.5 and result.config.sizes[4].ratio == 0.5
    assert sum(s.ratio for s in result.config.sizes.values()) == 1.0
    assert any("ratios summed to inf" in n.reason for n in result.notes)


def test_projection_fills_missing_sizes_and_all_zero_ratios() -> None:
    result = project({"sizes": {"5x5": {"ratio": 0.0}}})
    assert set(result.config.sizes) == set(SIZES)
    assert all(math.isclose(s.ratio, 1 / 8) for s in result.config.sizes.values())
    assert any(n.after == "added" for n in result.notes)


def test_strict_load_refuses_what_projection_would_change() -> None:
    with pytest.raises(ConfigError, match="sum to"):
        EnvConfig.from_mapping(
            {"sizes": {s: {"ratio": 0.5, "hole_ratio": 0.1, "wait_ratio": 0.1} for s in SIZES}}
        )
    with pytest.raises(ConfigError, match="missing"):
        EnvConfig.from_yaml("sizes: {3x3: {ratio: 1.0, hole_ratio: 0.1, wait_ratio: 0.1}}")
    with pytest.raises(ConfigError, match="horizon"):
        EnvConfig.from_mapping({**EnvConfig.uniform().model_dump(), "horizon": 3})
    with pytest.raises(ConfigError, match="mapping"):
        EnvConfig.from_yaml("- just\n- a list\n")
    with pytest.raises(ConfigError, match="objective"):
        EnvConfig.from_mapping({**EnvConfig.uniform().model_dump(), "objective": "fastest"})


def test_makespan_objective_round_trips() -> None:
    config = EnvConfig.uniform(objective="makespan")
    assert config.objective is Objective.MAKESPAN
    assert EnvConfig.from_yaml(config.to_yaml()).objective is Objective.MAKESPAN


_finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
_changes = st.dictionaries(
    st.sampled_from([f"{s}x{s}" for s in SIZES]),
    st.dictionaries(st.sampled_from(["ratio", "hole_ratio", "wait_ratio"]), _finite, max_size=3),
    max_size=8,
)


@given(_changes)
def test_projection_always_lands_inside_the_constraints(
    changes: dict[str, dict[str, float]],
) -> None:
    result = project(merge(random_config(1), changes))
    config = result.config
    assert set(config.sizes) == set(SIZES)
    assert math.isclose(sum(s.ratio for s in config.sizes.values()), 1.0, abs_tol=1e-6)
    for s in config.sizes.values():
        assert s.ratio >= 0 and 0 <= s.hole_ratio <= MAX_HOLE_RATIO and 0 <= s.wait_ratio <= 1
    again = project(config)
    assert again.config == config and not again.changed  # projection is idempotent


def test_a_typo_under_every_size_is_one_line_with_a_suggestion() -> None:
    sizes = {f"{s}x{s}": {"ratio": 1 / 8, "holes_ratio": 0.2, "wait_ratio": 0.5} for s in SIZES}
    with pytest.raises(ConfigError) as err:
        EnvConfig.from_mapping({"sizes": sizes}, "mine.yaml")
    message = str(err.value)
    assert message.count("\n") == 0, message
    assert message.startswith("mine.yaml: sizes.{3x3,4x4,5x5,6x6,7x7,8x8,9x9,10x10}.holes_ratio:")
    assert "not a field (got 0.2)" in message and message.endswith("did you mean 'hole_ratio'?")
    assert "required" not in message  # the missing hole_ratio is the same mistake


def test_each_bad_field_is_one_line_naming_value_and_what_is_allowed(tmp_path: FsPath) -> None:
    config = EnvConfig.uniform().model_dump(mode="json")
    config["sizes"] = {f"{s}x{s}": v for s, v in config["sizes"].items()}
    config["sizes"]["4x4"]["hole_ratio"] = 0.9
    config["sizes"]["5x5"]["ratio"] = "lots"
    config["objective"] = "makespn"
    path = tmp_path / "env.yaml"
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError) as err:
        EnvConfig.load(path)
    assert str(err.value).splitlines() == [
        f"{path}:",
        "  objective: not one of the choices (got 'makespn'); allowed: 'soc' or 'makespan'; "
        "did you mean 'makespan'?",
        "  sizes.4x4.hole_ratio: out of range (got 0.9); allowed: 0 <= hole_ratio <= 0.5",
        "  sizes.5x5.ratio: wrong type (got 'lots'); expected a number",
    ]
    assert err.value.lines == tuple(line.strip() for line in str(err.value).splitlines()[1:])


def test_true_is_not_a_number() -> None:
    sizes = {s: {"ratio": True, "hole_ratio": 0.1, "wait_ratio": 0.1} for s in SIZES}
    sizes[3] = {"ratio": 0.5, "hole_ratio": False, "wait_ratio": 0.1}
    with pytest.raises(ConfigError) as err:
        EnvConfig.from_mapping({"sizes": sizes})
    assert err.value.lines == (
        "sizes.3x3.hole_ratio: must be a number, not false (got False)",
        "sizes.{4x4,5x5,6x6,7x7,8x8,9x9,10x10}.ratio: must be a number, not true (got True)",
    )


def test_change_set_errors_are_collected_not_first_only() -> None:
    with pytest.raises(ConfigError) as err:
        merge(EnvConfig.uniform(), {"7x7": {"ratio": "x"}, "sizes": {"8": {"wait_ratoi": 0.1}}})
    assert err.value.lines == (
        "sizes.7x7.ratio: wrong type (got 'x'); expected a number",
        "sizes.8x8.wait_ratoi: not a field (got 0.1); fields are ratio, hole_ratio, wait_ratio; "
        "did you mean 'wait_ratio'?",
    )


def test_loading_a_config_file_is_bounded_and_one_line(tmp_path: FsPath) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("x:\n" + laughs(9, "  ", leaf="1") + "sizes: *i\n")
    with pytest.raises(ConfigError, match=r"bomb\.yaml: the YAML is too large: more than 100000"):
        EnvConfig.load(bomb)
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(5 << 20)
    with pytest.raises(ConfigError, match=r"big\.yaml: is 5\.0 MB, more than the 4\.0 MB limit"):
        EnvConfig.load(big)
    with pytest.raises(
        ConfigError, match=r"^where: not valid YAML at line \d+, column \d+: did not find"
    ):
        EnvConfig.from_yaml("sizes: [\n", "where")
