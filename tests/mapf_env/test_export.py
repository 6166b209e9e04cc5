"""Dataset export: verl's RL parquet schema, JSONL, round trips, determinism, atomicity."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mapf_env import export
from mapf_env.export import (
    ABILITY,
    DATA_SOURCE,
    VERL_SCHEMA,
    instance_from_ground_truth,
    read_jsonl,
    read_parquet,
    read_provenance,
    read_records,
    to_record,
    write_jsonl,
    write_parquet,
)
from mapf_env.instance import Instance, Objective, Optimum
from mapf_env.prompt import PROMPT_VERSION, render_prompt


def _swap_3x3() -> Instance:
    return Instance(
        grid=("...", "...", "..."),
        starts=((0, 0), (0, 2)),
        goals=((0, 2), (0, 0)),
        optimum=Optimum(
            objective=Objective.SOC,
            cost=6,
            soc=6,
            makespan=4,
            individual=(2, 2),
            needs_conflict_resolution=True,
            plan=(((0, 0), (1, 0), (1, 1), (0, 1), (0, 2)), ((0, 2), (0, 1), (0, 0))),
        ),
        id="r0-s3-i0000",
    )


def _holes_4x4() -> Instance:
    return Instance(
        grid=(".H..", "....", "..H.", "H..."),
        starts=((0, 0), (3, 3)),
        goals=((1, 1), (2, 3)),
        optimum=Optimum(
            objective=Objective.MAKESPAN,
            cost=2,
            soc=3,
            makespan=2,
            individual=(2, 1),
            needs_conflict_resolution=False,
            plan=(((0, 0), (1, 0), (1, 1)), ((3, 3), (2, 3))),
        ),
    )


INSTANCES = [_swap_3x3(), _holes_4x4()]


def test_record_has_verls_columns() -> None:
    rec = to_record(_swap_3x3(), index=7, split="test")
    assert list(rec) == VERL_SCHEMA.names
    assert rec["data_source"] == DATA_SOURCE
    assert rec["ability"] == ABILITY
    assert rec["prompt"] == render_prompt(_swap_3x3())
    assert rec["reward_model"]["style"] == "rule"
    assert rec["extra_info"] == {
        "size": 3,
        "agents": 2,
        "hole_count": 0,
        "hole_ratio": 0.0,
        "needs_conflict_resolution": True,
        "index": 7,
        "split": "test",
        "id": "r0-s3-i0000",
    }


def test_record_reports_the_achieved_hole_ratio() -> None:
    info = to_record(_holes_4x4(), 0, "train")["extra_info"]
    assert (info["hole_count"], info["hole_ratio"]) == (3, 3 / 16)


def test_ground_truth_carries_instance_and_optimal_costs() -> None:
    truth = json.loads(to_record(_holes_4x4(), 0, "train")["reward_model"]["ground_truth"])
    assert truth["grid"] == [".H..", "....", "..H.", "H..."]
    assert truth["starts"] == [[0, 0], [3, 3]]
    assert truth["goals"] == [[1, 1], [2, 3]]
    opt = truth["optimum"]
    assert (opt["objective"], opt["cost"], opt["soc"], opt["makespan"]) == ("makespan", 2, 3, 2)
    assert opt["individual"] == [2, 1]
    assert opt["needs_conflict_resolution"] is False


@pytest.mark.parametrize("inst", INSTANCES, ids=["swap", "holes"])
def test_ground_truth_round_trips_exactly(inst: Instance) -> None:
    truth = to_record(inst, 0, "train")["reward_model"]["ground_truth"]
    assert instance_from_ground_truth(truth) == inst


def test_unsolved_instances_are_refused() -> None:
    with pytest.raises(ValueError, match="no optimum"):
        to_record(_swap_3x3().without_optimum(), 3, "train")


def test_bad_ground_truth_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="not an instance JSON"):
        instance_from_ground_truth("42")


def test_jsonl_round_trip_and_bytes(tmp_path: Path) -> None:
    path = tmp_path / "round.jsonl"
    write_jsonl(INSTANCES, path)
    assert read_jsonl(path) == INSTANCES
    lines = path.read_text("utf-8").splitlines()
    assert lines == [inst.model_dump_json() for inst in INSTANCES]
    first = path.read_bytes()
    write_jsonl(iter(INSTANCES), path)
    assert path.read_bytes() == first


def test_jsonl_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_swap_3x3().model_dump_json() + "\n\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 3"):
        read_jsonl(path)


def test_parquet_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "train.parquet"
    write_parquet(INSTANCES, path)
    assert read_parquet(path) == INSTANCES
    rows = read_records(path)
    assert [r["extra_info"]["index"] for r in rows] == [0, 1]
    assert rows[1]["extra_info"]["id"] is None
    assert rows[0]["prompt"] == render_prompt(INSTANCES[0])


def test_parquet_is_byte_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_parquet(INSTANCES, a, split="validation")
    write_parquet([inst.model_copy() for inst in INSTANCES], b, split="validation")
    assert a.read_bytes() == b.read_bytes()


def test_parquet_schema_is_what_verl_reads(tmp_path: Path) -> None:
    path = tmp_path / "train.parquet"
    write_parquet(INSTANCES, path)
    schema = pq.read_table(path).schema
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    assert schema.field("prompt").type == pa.list_(message)
    assert schema.field("data_source").type == pa.string()
    assert schema.field("ability").type == pa.string()
    assert schema.field("reward_model").type == pa.struct(
        [("style", pa.string()), ("ground_truth", pa.string())]
    )
    extra = schema.field("extra_info").type
    assert extra.field("index").type == pa.int64()
    assert extra.field("hole_ratio").type == pa.float64()
    assert extra.field("needs_conflict_resolution").type == pa.bool_()


def test_parquet_records_provenance(tmp_path: Path) -> None:
    path = tmp_path / "train.parquet"
    write_parquet(INSTANCES, path, metadata_extra={"config": "abc123"})
    info = read_provenance(path)
    assert info["schema_version"] == export.EXPORT_SCHEMA_VERSION
    assert info["prompt_version"] == PROMPT_VERSION
    assert info["config"] == "abc123"
    assert "git_commit" in info and "package_version" in info


def test_empty_dataset_keeps_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "empty.parquet"
    write_parquet([], path)
    assert read_parquet(path) == []
    assert pq.read_schema(path).names == VERL_SCHEMA.names


def test_parquet_bad_ground_truth_names_the_row(tmp_path: Path) -> None:
    rows = [to_record(inst, i, "train") for i, inst in enumerate(INSTANCES)]
    rows[1]["reward_model"]["ground_truth"] = "not json"
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=VERL_SCHEMA), path)
    with pytest.raises(ValueError, match=r"row 1: ground truth is not an instance JSON"):
        read_parquet(path)


def test_parquet_without_verl_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"question": ["?"]}), path)
    with pytest.raises(ValueError, match="lacks the verl column"):
        read_parquet(path)


def test_failed_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "train.parquet"
    write_parquet(INSTANCES[:1], path)
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        write_parquet(INSTANCES, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.parquet"]


def test_writers_create_missing_directories(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "r0" / "train.jsonl"
    write_jsonl(INSTANCES, path)
    assert read_jsonl(path) == INSTANCES


@st.composite
def instances(draw: st.DrawFn) -> Instance:
    n = draw(st.integers(3, 6))
    cells = [(r, c) for r in range(n) for c in range(n)]
    k = draw(st.integers(1, 3))
    chosen = draw(st.permutations(cells))[: 2 * k]
    holes = set(draw(st.lists(st.sampled_from(cells), max_size=n))) - set(chosen)
    grid = tuple("".join("H" if (r, c) in holes else "." for c in range(n)) for r in range(n))
    plan = tuple((s, g) for s, g in zip(chosen[:k], chosen[k:], strict=True))
    optimum = Optimum(
        objective=draw(st.sampled_from(Objective)),
        cost=draw(st.integers(0, 99)),
        soc=draw(st.integers(0, 99)),
        makespan=draw(st.integers(0, 99)),
        individual=tuple(draw(st.integers(0, 20)) for _ in range(k)),
        needs_conflict_resolution=draw(st.booleans()),
        plan=plan,
    )
    ident = draw(st.none() | st.text(max_size=12))
    return Instance(grid=grid, starts=chosen[:k], goals=chosen[k:], optimum=optimum, id=ident)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(instances(), max_size=4))
def test_any_instances_round_trip_both_formats(tmp_path: Path, batch: list[Instance]) -> None:
    write_jsonl(batch, tmp_path / "x.jsonl")
    write_parquet(batch, tmp_path / "x.parquet")
    assert read_jsonl(tmp_path / "x.jsonl") == batch
    assert read_parquet(tmp_path / "x.parquet") == batch
