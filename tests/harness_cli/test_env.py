"""`harness env ...` end to end through the real CLI (typer's runner, real files)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness_cli import app
from mapf_env import (
    EnvConfig,
    load_suite,
    read_jsonl,
    read_parquet,
    read_provenance,
    reference_answer,
)
from mapf_env.prompt import format_plan

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "env"


def test_generate_writes_the_dataset_and_its_statistics(tmp_path: Path) -> None:
    out = tmp_path / "round0"
    result = runner.invoke(
        app,
        ["env", "generate", str(CONFIGS / "random_seed0.yaml"), "--samples", "60",
         "--seed", "3", "--out", str(out), "--workers", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "60 instances" in result.output
    jsonl, parquet = read_jsonl(out / "train.jsonl"), read_parquet(out / "train.parquet")
    assert len(jsonl) == 60 and jsonl == parquet
    record = json.loads((out / "generation.json").read_text())
    assert record["seed"] == 3 and record["stats"]["total"] == 60
    assert {"schema_version", "package_version", "git_commit", "config"} <= set(record)
    assert EnvConfig.from_mapping(record["config"]).samples == 60
    stamp = read_provenance(out / "train.parquet")
    assert stamp["seed"] == 3 and stamp["config"] == record["config"]
    assert stamp["git_commit"] == record["git_commit"]


def test_generate_refuses_a_bad_config_with_a_clear_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("sizes: {3x3: {ratio: 1.0, hole_ratio: 0.9, wait_ratio: 0.1}}\n")
    result = runner.invoke(app, ["env", "generate", str(bad)])
    assert result.exit_code == 2
    assert "sizes.3x3.hole_ratio" in result.output and "--lenient" in result.output
    assert "Traceback" not in result.output
    missing = runner.invoke(app, ["env", "generate", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and "no config file" in missing.output


def test_lenient_generate_projects_and_reports(tmp_path: Path) -> None:
    loose = tmp_path / "loose.yaml"
    loose.write_text("samples: 16\nsizes: {4x4: {ratio: 2.0, hole_ratio: 0.9, wait_ratio: 0.5}}\n")
    result = runner.invoke(app, ["env", "generate", str(loose), "--lenient", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "projected" in result.output and "hole_ratio" in result.output


def test_show_draws_a_suite_instance() -> None:
    result = runner.invoke(app, ["env", "show", "5agents", "--index", "3", "--plan"])
    assert result.exit_code == 0, result.output
    assert "S5" in result.output and "G1" in result.output and "optimal soc" in result.output


def test_verify_judges_a_response_file(tmp_path: Path) -> None:
    inst = load_suite("validation").items[0].instance
    answer = tmp_path / "answer.txt"
    answer.write_text("<think>easy</think>\n" + reference_answer(inst))
    result = runner.invoke(app, ["env", "verify", "validation", str(answer), "--json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    assert verdict["verdict"]["valid"] and verdict["verdict"]["optimal"]
    assert verdict["reward"]["accuracy"] == 1.0
    assert inst.optimum is not None and verdict["optimum"]["cost"] == inst.optimum.cost


def test_verify_exits_1_for_an_invalid_answer_and_still_prints_the_optimum(
    tmp_path: Path,
) -> None:
    inst = load_suite("validation").items[0].instance
    assert inst.optimum is not None
    answer = tmp_path / "answer.txt"
    answer.write_text("Agent 1: (0,0)\n")
    result = runner.invoke(app, ["env", "verify", "validation", str(answer)])
    assert result.exit_code == 1 and "invalid" in result.output, result.output
    assert f"optimum {inst.optimum.objective.value} {inst.optimum.cost}" in result.output
    as_json = runner.invoke(app, ["env", "verify", "validation", str(answer), "--json"])
    assert as_json.exit_code == 1, as_json.output
    verdict = json.loads(as_json.output)
    assert not verdict["verdict"]["valid"] and verdict["verdict"]["optimal_cost"] is None
    assert verdict["optimum"] == {"objective": inst.optimum.objective.value,
                                  "cost": inst.optimum.cost, "soc": inst.optimum.soc,
                                  "makespan": inst.optimum.makespan,
                                  "min_soc": inst.optimum.min_soc,
                                  "min_makespan": inst.optimum.min_makespan}  # fmt: skip


def test_verify_exits_0_for_a_valid_answer_even_when_not_optimal(tmp_path: Path) -> None:
    item = next(i for i in load_suite("validation").items
                if i.instance.optimum and i.instance.optimum.cost > 0)  # fmt: skip
    inst, optimum = item.instance, item.instance.optimum
    assert optimum is not None
    # a detour: every agent waits one step at its start, then follows the optimal plan
    answer = tmp_path / "slow.txt"
    answer.write_text(format_plan(tuple((path[0], *path) for path in optimum.plan)))
    result = runner.invoke(app, ["env", "verify", "validation", str(answer), "--id", str(inst.id)])
    assert result.exit_code == 0, result.output
    assert (
        "optimal: False" in result.output and f"(optimum {optimum.objective.value}" in result.output
    )


def test_verify_usage_errors_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["env", "verify", "validation", str(tmp_path / "none.txt")])
    assert result.exit_code == 2 and "no response file" in result.output, result.output
    result = runner.invoke(app, ["env", "verify", "validation", "-", "--id", "nope"], input="x")
    assert result.exit_code == 2 and "no instance with id" in result.output
    help_text = runner.invoke(app, ["env", "verify", "--help"], env={"COLUMNS": "200"}).output
    assert "Exit status: 0 valid (optimal or not), 1 invalid, 2 usage error" in help_text


def test_pick_errors_are_clear(tmp_path: Path) -> None:
    result = runner.invoke(app, ["env", "show", "validation", "--index", "100000"])
    assert result.exit_code == 2 and "out of range" in result.output
    result = runner.invoke(app, ["env", "show", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "neither a file nor a suite" in result.output
    result = runner.invoke(app, ["env", "show", "validation", "--id", "nope"])
    assert result.exit_code == 2 and "no instance with id" in result.output


def test_bench_build_checks_and_writes_a_suite(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["env", "bench-build", "--suite", "validation", "--workers", "1", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "(same)" in result.output
    assert (
        load_suite("validation", tmp_path).content_sha256 == load_suite("validation").content_sha256
    )
    unknown = runner.invoke(app, ["env", "bench-build", "--suite", "7agents"])
    assert unknown.exit_code == 2 and "unknown suite" in unknown.output


def test_version_names_the_code() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("envdesign-bench ")
