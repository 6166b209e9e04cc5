"""Boards refuse to pool runs that computed differently, unless asked, and say what they pooled."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app
from leaderboards import LeaderboardError, LoadedRun, build_board, check_compatible, machine_notes
from leaderboards.compat import POOL_HINT
from run_records import MachineRecord
from tests.leaderboards.handmade import rates, run
from tests.leaderboards.test_cli import WIDE

ANSWERS = rates({3: (10, 6, 3), 4: (10, 4, 2)})
MACHINE = MachineRecord(
    precision="fp32", bf16_kernels=None, cpu_model="a CPU", cpu_flags=("avx2",),
    cpu_capability="AVX2", mkl_branch="AVX2", environment={"MKL_CBWR": "AVX2"},
    torch_version="2.13.0+cpu", numpy_version="2.4.6", threads=2,
)  # fmt: skip


def on(loaded: LoadedRun, machine: MachineRecord | None, **experiment: object) -> LoadedRun:
    """`loaded` as if it had computed on `machine`, with `experiment` fields changed."""
    record = loaded.record
    update = {"machine": machine, "experiment": record.experiment.model_copy(update=experiment)}
    return LoadedRun(loaded.path, record.model_copy(update=update))


def pair(b: MachineRecord | None, **experiment: object) -> list[LoadedRun]:
    return [on(run("random", 0, ANSWERS), MACHINE), on(run("uniform", 0, ANSWERS), b, **experiment)]


def test_runs_that_computed_alike_pool_without_notes() -> None:
    other_cpu = MACHINE.model_copy(update={"cpu_model": "another CPU", "numpy_version": "2.0"})
    runs = pair(other_cpu)
    check_compatible(runs)
    assert machine_notes(runs) == []


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"torch_version": "2.12.0+cpu"}, "torch: '2.13.0+cpu' vs '2.12.0+cpu'"),
        ({"cpu_capability": "AVX512"}, "CPU capability: 'AVX2' vs 'AVX512'"),
        ({"mkl_branch": "AUTO"}, "MKL branch: 'AVX2' vs 'AUTO'"),
        ({"threads": 1}, "threads: 2 vs 1"),
    ],
)
def test_runs_that_computed_differently_are_refused_unless_pooled(
    change: dict[str, object], named: str
) -> None:
    runs = pair(MACHINE.model_copy(update=change))
    with pytest.raises(LeaderboardError) as err:
        check_compatible(runs)
    message = str(err.value)
    assert f"hand/random/seed-0 and hand/uniform/seed-0 computed differently ({named})" in message
    assert POOL_HINT in message and "\n" not in message
    check_compatible(runs, pool_machines=True)
    (note,) = machine_notes(runs, pool_machines=True)
    assert note.startswith("pooled runs that computed differently: ")


def test_runs_pool_by_what_they_computed_not_by_their_cpus() -> None:
    """With fingerprints, the same one pools whatever the CPU, kernels' names or threads
    (Intel and AMD compute alike once pinned); another one is refused, naming it."""
    fingerprinted = MACHINE.model_copy(update={"fingerprint": "389dd592c709119f"})
    amd = fingerprinted.model_copy(
        update={"cpu_model": "AMD EPYC", "mkl_branch": "AUTO", "threads": 1}
    )
    runs = [on(run("random", 0, ANSWERS), fingerprinted), on(run("uniform", 0, ANSWERS), amd)]
    check_compatible(runs)
    assert machine_notes(runs) == []
    other = amd.model_copy(update={"fingerprint": "0123456789abcdef"})
    runs[1] = on(run("uniform", 0, ANSWERS), other)
    with pytest.raises(LeaderboardError) as err:
        check_compatible(runs)
    assert "computed differently (fingerprint: '389dd592c709119f' vs '0123456789abcdef')" in str(
        err.value
    )
    check_compatible(runs, pool_machines=True)
    (note,) = machine_notes(runs, pool_machines=True)
    assert "fingerprint 0123456789abcdef" in note and "fingerprint 389dd592c709119f" in note


def test_precision_is_refused_as_an_experiment_field_and_pools_when_asked() -> None:
    bf16 = MACHINE.model_copy(update={"precision": "bf16", "bf16_kernels": "emulated"})
    runs = pair(bf16, precision="bf16")
    runs[0] = on(runs[0], MACHINE, precision="fp32")
    with pytest.raises(LeaderboardError, match=r"\(precision: 'fp32' vs 'bf16'\)") as err:
        check_compatible(runs)
    assert POOL_HINT in str(err.value)
    board = build_board(runs, resamples=200, details=(), pool_machines=True)
    assert "precision" not in board.experiment and len(board.runs) == 2
    (note,) = machine_notes(runs, pool_machines=True)
    assert "precision bf16, bf16 kernels emulated" in note and "precision fp32" in note


def test_runs_without_a_machine_pool_with_each_other_with_a_note_but_not_with_others() -> None:
    unknown = [on(run("random", 0, ANSWERS), None), on(run("uniform", 0, ANSWERS), None)]
    check_compatible(unknown)
    (note,) = machine_notes(unknown)
    assert note.startswith("2 of 2 trained runs carry no machine record")
    mixed = pair(None)
    with pytest.raises(LeaderboardError, match="hand/uniform/seed-0 has no machine record"):
        check_compatible(mixed)
    check_compatible(mixed, pool_machines=True)


def test_real_runs_record_their_machine_and_the_cli_pools_only_when_asked(
    compare_root: Path, tmp_path: Path
) -> None:
    """A real bf16 run beside the fp32 comparison: refused in one line, pooled with the flag."""
    fp32 = json.loads(next(compare_root.rglob("result.json")).read_text())["machine"]
    assert fp32["precision"] == "fp32" and fp32["bf16_kernels"] is None
    assert fp32["environment"]["ATEN_CPU_CAPABILITY"] == "avx2" and fp32["threads"] >= 1
    assert fp32["fingerprint"] and str(fp32["products"]).startswith("OpenBLAS ")
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root / "fp32")
    args = ["compare", "--designers", "harder", "--set", "rounds=1", "--set",
            "samples_per_round=60", "--set", "benchmarks=[3agents]", "--set", "best_of=2",
            "--set", "precision=bf16", "--quiet", "--out", str(root / "bf16")]  # fmt: skip
    made = CliRunner().invoke(app, args)
    assert made.exit_code == 0, made.output
    bf16 = json.loads(next((root / "bf16").rglob("result.json")).read_text())["machine"]
    assert bf16["precision"] == "bf16" and bf16["bf16_kernels"] in ("native", "emulated")
    show = ["leaderboard", "show", str(root), "--resamples", "200", "--format", "json"]
    refused = CliRunner().invoke(app, show, env=WIDE)
    assert refused.exit_code == 2, refused.output
    assert re.search(r"\(precision: '(fp32' vs 'bf16|bf16' vs 'fp32)'\)", refused.output)
    assert "--pool-machines" in refused.output and len(refused.output.strip().splitlines()) == 1
    pooled = CliRunner().invoke(app, [*show, "--pool-machines"], env=WIDE)
    assert pooled.exit_code == 0, pooled.output
    assert "note: pooled runs that computed differently" in pooled.output
