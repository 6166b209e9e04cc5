"""The one formatter of configuration errors: one bounded line per bad field."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from envdesign_common.field_errors import (
    MAX_LINES,
    MAX_REPR,
    bounded_repr,
    describe_type,
    error_message,
    field_error_lines,
)
from mapf_env import EnvConfig


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    frontier_boost: float = Field(0.1, ge=0, le=1)
    patience: int = 2


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")

    evidence: Evidence = Field(default_factory=Evidence)
    named: dict[str, Evidence] = Field(default_factory=dict)
    either: Evidence | int = 0


def errors_of(model: type[BaseModel], data: object) -> ValidationError:
    with pytest.raises(ValidationError) as err:
        model.model_validate(data)
    return err.value


def test_a_prefix_names_where_the_options_live() -> None:
    err = errors_of(Evidence, {"frontier_bost": 0.3})
    assert field_error_lines(err, Evidence, prefix="designer_options.evidence.") == [
        "designer_options.evidence.frontier_bost: not a field (got 0.3); "
        "fields are frontier_boost, patience; did you mean 'frontier_boost'?"
    ]


def test_did_you_mean_walks_nested_models_and_dicts_of_models() -> None:
    err = errors_of(Options, {"evidence": {"patiense": 1}, "named": {"a": {"frontier_bost": 1}}})
    lines = field_error_lines(err, Options)
    assert lines[0].startswith("evidence.patiense: not a field (got 1)")
    assert lines[0].endswith("did you mean 'patience'?")
    assert lines[1].startswith("named.a.frontier_bost: not a field (got 1)")
    assert lines[1].endswith("did you mean 'frontier_boost'?")


def test_ranges_and_types_come_from_the_declaration() -> None:
    err = errors_of(Evidence, {"frontier_boost": 2, "patience": "soon"})
    assert field_error_lines(err, Evidence) == [
        "frontier_boost: out of range (got 2); allowed: 0 <= frontier_boost <= 1",
        "patience: wrong type (got 'soon'); expected an integer",
    ]


def test_without_the_model_lines_still_name_path_value_and_rule() -> None:
    err = errors_of(Evidence, {"frontier_boost": 2, "patience": "soon", "x": 1})
    assert field_error_lines(err) == [
        "frontier_boost: out of range (got 2); allowed: frontier_boost <= 1",
        "patience: wrong type (got 'soon'); expected a valid integer",
        "x: not a field (got 1)",
    ]


def test_sizes_that_share_a_mistake_share_a_line_and_list_their_values() -> None:
    sizes = {s: {"ratio": 1 / 8, "hole_ratio": 0.25, "wait_ratio": 0.5} for s in range(3, 11)}
    sizes[4]["hole_ratio"], sizes[9]["hole_ratio"] = 0.6, 0.7
    err = errors_of(EnvConfig, {"sizes": sizes})
    assert field_error_lines(err, EnvConfig) == [
        "sizes.{4x4,9x9}.hole_ratio: out of range (got 0.6, 0.7); allowed: 0 <= hole_ratio <= 0.5"
    ]


def test_values_are_bounded_however_big() -> None:
    assert len(bounded_repr("y" * 10**6)) <= MAX_REPR
    assert len(bounded_repr(list(range(10**6)))) <= MAX_REPR
    assert bounded_repr(10**5000) == "<int>"  # past Python's digit limit: no repr at all
    nested: list[object] = []
    for _ in range(200):
        nested = [nested, nested]
    assert len(bounded_repr(nested)) <= MAX_REPR  # 2**200 leaves, shown in a few characters


def test_long_reports_are_cut_with_a_count() -> None:
    err = errors_of(Evidence, {f"k{i}": i for i in range(50)})
    lines = field_error_lines(err, Evidence, prefix="p: ")
    assert len(lines) == MAX_LINES and lines[-1] == "p: ... and 31 more bad fields"


def test_union_branch_tags_are_not_shown_as_keys() -> None:
    err = errors_of(Options, {"either": {"patiense": 1}})
    lines = field_error_lines(err, Options)
    assert lines[0].startswith("either.patiense: not a field")
    assert lines[0].endswith("did you mean 'patience'?")


def test_types_are_described_as_yaml_writers_see_them() -> None:
    assert describe_type(tuple[str, ...]) == "a list of strings"
    assert describe_type(int | None) == "an integer"
    assert describe_type(dict[str, int]) == "a mapping"
    assert describe_type(Evidence) == "a mapping of frontier_boost, patience"


def test_message_layout_names_the_origin_first() -> None:
    assert error_message([("f.yaml", ["a: x"])]) == "f.yaml: a: x"
    assert error_message([("f.yaml", ["a: x", "b: y"])]) == "f.yaml:\n  a: x\n  b: y"
    assert error_message([("f.yaml", ["a: x"]), ("--set b=1", ["b: y"])]) == (
        "bad fields in f.yaml, --set b=1:\n  f.yaml: a: x\n  --set b=1: b: y"
    )


def test_a_report_with_very_many_errors_is_read_only_in_part() -> None:
    err = errors_of(Evidence, {f"k{i}": i for i in range(20_000)})
    started = time.monotonic()
    lines = field_error_lines(err, Evidence)
    assert time.monotonic() - started < 2
    assert len(lines) == MAX_LINES and lines[-1] == "... and 19981 more bad fields"
    exactly = field_error_lines(errors_of(Evidence, {f"k{i}": i for i in range(MAX_LINES)}))
    assert len(exactly) == MAX_LINES and "more bad fields" not in exactly[-1]
