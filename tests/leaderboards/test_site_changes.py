"""A run page's "changes asked": a row per arm of the task (MAPF-FrozenLake: per map size, in
size order; reasoning-gym: per dataset), numbers to 3 decimals; its projection notes with
numbers to 6 significant digits."""

from __future__ import annotations

from typing import Any

from envdesign_common.projection_notes import ProjectionNote
from leaderboards.site.changes import ChangesTable, changes_table, projection_rows, value_text
from tasks import create_task
from tasks.reasoning_gym import ReasoningGym

MAPF = create_task("mapf-frozenlake")


def mapf_table(changes: dict[str, Any]) -> ChangesTable:
    return changes_table(MAPF, changes)


def test_sizes_sort_as_numbers_in_every_key_form_and_fields_keep_config_order() -> None:
    changes = {
        "sizes": {"10": {"wait_ratio": 0.123456, "ratio": 0.2}, "3x3": {"hole_ratio": 0.1}},
        "size_5": {"ratio": 1 / 3},
        "4": {"ratio": 0.25, "hole_ratio": 0.3000004},
    }
    table = mapf_table(changes)
    assert table.columns == ["ratio", "hole_ratio", "wait_ratio"]
    assert table.rows == [
        ("3x3", ["-", "0.100", "-"]),
        ("4x4", ["0.250", "0.300", "-"]),
        ("5x5", ["0.333", "-", "-"]),
        ("10x10", ["0.200", "-", "0.123"]),
    ]
    assert table.other == []


def test_a_size_written_twice_merges_as_projection_merges_it() -> None:
    """`mapf_env.merge` lays a size under `sizes` over the same size written bare."""
    table = mapf_table({"7": {"ratio": 0.1, "hole_ratio": 0.2},
                           "sizes": {"7x7": {"ratio": 0.4}}})  # fmt: skip
    assert table.rows == [("7x7", ["0.400", "0.200"])]


def test_anything_not_a_size_s_fields_is_kept_as_text() -> None:
    hostile = "<script>alert(1)</script>"
    asked = {"n_agents": 5, "11x11": {"ratio": 0.1}, "sizes": {"6": 0.5},
             "8": {"ratio": hostile, "colour": "red"}, "notes": [1, "a"]}  # fmt: skip
    table = mapf_table(asked)
    assert table.columns == ["ratio", "colour"]
    assert table.rows == [("8x8", [hostile, "red"])]
    assert table.other == [("n_agents", "5"), ("11x11", '{"ratio": 0.1}'), ("sizes.6", "0.500"),
                           ("notes", '[1, "a"]')]  # fmt: skip


def test_values_read_as_asked() -> None:
    assert [value_text(v) for v in (True, 3, 0.0, 2.0 / 3, float("nan"), None, "x")] == [
        "true", "3", "0.000", "0.667", "nan", "null", "x"
    ]  # fmt: skip
    assert not mapf_table({}) and mapf_table({"3": {"ratio": 1}})
    assert isinstance(mapf_table({}), ChangesTable)


def test_projection_notes_read_without_float_noise() -> None:
    notes = [
        ProjectionNote(field="sizes.7x7.ratio", before=0.6909179687499999,
                       after=0.32809947048455423, reason="ratios summed to 2.10582"),
        ProjectionNote(field="sizes.3x3.hole_ratio", before=0.5000001, after=0.5,
                       reason="clipped to 0.5"),
        ProjectionNote(field="n_agents", before=None, after=2, reason="locked"),
    ]  # fmt: skip
    assert projection_rows(notes) == [
        ("sizes.7x7.ratio", "0.690918", "0.328099", "ratios summed to 2.10582"),
        ("sizes.3x3.hole_ratio", "0.5", "0.5", "clipped to 0.5"),
        ("n_agents", "-", "2", "locked"),
    ]


def test_another_task_s_rows_are_its_arms_read_as_its_share_knob_reads_keys(
    reasoning_gym_task: ReasoningGym,
) -> None:
    """reasoning-gym: a row per dataset, under `datasets` or bare, its weight then its level;
    a name that is none of the task's datasets is kept as text."""
    asked = {
        "datasets": {"chain_sum": {"level": 3, "weight": 0.5}},
        "basic_arithmetic": {"weight": 0.25},
        "chain_summ": {"level": 1},
        "samples": 9,
    }
    table = changes_table(reasoning_gym_task, asked)
    assert table.title == "dataset" and table.columns == ["weight", "level"]
    assert table.rows == [("basic_arithmetic", ["0.250", "-"]), ("chain_sum", ["0.500", "3"])]
    assert table.other == [("chain_summ", '{"level": 1}'), ("samples", "9")]
