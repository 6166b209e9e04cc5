"""reasoning-gym with the trl backend and a real model, through `harness compare`, end to end.

SmolLM2-135M-Instruct on this CPU at a toy budget: the task's five preset datasets, 2 rounds of
2 items, n = 2 answers of at most 24 tokens, 2 items per suite, designers `random`, `uniform`,
`self` (the checkpoint itself, served by `transformers serve`, reading the general designer
prompt built from the task's description and knobs) and the teachers `learning-progress` and
`regret` (the datasets as their arms). A 135M model answers almost none of these
items (in 24 tokens it seldom even closes an ``<answer>`` tag), so its rates are near zero and
nothing here claims it learned: what is checked is the machinery -- generation from each
designer's configuration, judging by each dataset's own scorer, design by designers that read
only the task's declarations, the summaries, resume after a kill, and the board.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from run_records import read_result
from tasks import CutReport, CutSuiteResult
from tasks.reasoning_gym import PRESET
from tasks.reasoning_gym.config import RgConfig
from tests.harness.trl.tiny import tiny_experiment

pytestmark = pytest.mark.trl

REPO = Path(__file__).parents[3]
DESIGNERS = ("random", "uniform", "self", "learning-progress", "regret")
MIDDLE = {"basic_arithmetic": 2, "chain_sum": 5, "letter_counting": 4, "spell_backward": 2,
          "word_sorting": 2}  # fmt: skip
"""`uniform`'s level per dataset: the middle of each dataset's own curriculum."""


def experiment(policy: Path) -> dict[str, object]:
    made = tiny_experiment("rg-tiny", policy, DESIGNERS, task="reasoning-gym")
    made["designer_options"]["regret"] = {"min_answers": 1}  # 2 validation items in all
    return made


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness_cli", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=1800)  # fmt: skip


@pytest.fixture(scope="module")
def compared(smollm2: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("rg")
    preset = root / "rg_tiny.yaml"
    preset.write_text(yaml.safe_dump(experiment(smollm2)))
    done = harness("compare", "--preset", str(preset), "--out", str(root / "runs"),
                   "--allow-design-failures", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "runs" / "rg-tiny", preset, done.stdout


def run_dir(root: Path, designer: str) -> Path:
    return root / designer / "seed-0"


def test_each_designer_trained_on_its_own_configuration(compared: tuple[Path, Path, str]) -> None:
    root, _, _ = compared
    levels = {d: [{n: s.level for n, s in r.config.datasets.items()}
                  for r in read_result(run_dir(root, d)).rounds]
              for d in ("random", "uniform")}  # fmt: skip
    assert levels["random"] == [dict.fromkeys(PRESET, 0)] * 2  # the task's round 0, kept
    assert levels["uniform"] == [MIDDLE] * 2
    for designer in DESIGNERS:
        record = read_result(run_dir(root, designer))
        assert all(isinstance(r.config, RgConfig) for r in record.rounds)
        assert all(r.training and r.training.steps for r in record.rounds)
        proposal = record.rounds[0].proposal
        assert proposal is not None and (designer == "self" or not proposal.design_failed)


def test_self_asked_its_served_checkpoint_in_the_tasks_words(
    compared: tuple[Path, Path, str],
) -> None:
    root, _, _ = compared
    first = read_result(run_dir(root, "self")).rounds[0]
    proposal = first.proposal
    assert proposal is not None
    (call,) = [c for c in proposal.transcript if c.purpose == "analysis"]
    assert call.model.endswith("trl/round-000/model") and call.error is None
    prompt = call.messages[-1]["content"]
    assert "reasoning-gym's procedural datasets" in prompt and "datasets.chain_sum.level" in prompt
    assert "MAPF" not in prompt and "map size" not in prompt
    assert proposal.changes or proposal.failure_reason  # a design, or a step flagged with why


def test_the_teachers_budget_over_the_datasets(compared: tuple[Path, Path, str]) -> None:
    root, _, _ = compared
    first, second = read_result(run_dir(root, "learning-progress")).rounds
    assert first.proposal is not None and second.config == first.proposal.config
    weights = {name: setting.weight for name, setting in second.config.datasets.items()}
    explored = max(weights, key=weights.__getitem__)  # round 0: uniform, plus the explored arm
    assert weights[explored] == pytest.approx(0.25) and sum(weights.values()) == pytest.approx(1)
    assert f"explores {explored}" in first.proposal.rationale
    regret = read_result(run_dir(root, "regret")).rounds[0].proposal
    assert regret is not None and not regret.design_failed
    assert "regret (rounds since visit) -> share: basic_arithmetic" in regret.rationale


def test_answers_are_judged_by_each_datasets_scorer(compared: tuple[Path, Path, str]) -> None:
    root, _, table = compared
    for designer in DESIGNERS:
        record = read_result(run_dir(root, designer))
        report = record.rounds[-1].validation
        assert isinstance(report, CutReport) and report.overall.n == 2
        assert set(report.by_cut) == {"dataset", "level"}
        result = record.suites["rg-eval"]
        assert isinstance(result, CutSuiteResult) and len(result.verdicts) == 2
        for verdict in result.verdicts:
            assert verdict.cuts["dataset"] in PRESET and 0.0 <= verdict.score <= 1.0
            assert verdict.valid == (verdict.score == 1.0)
            assert verdict.failure in (None, "no_answer", "wrong", "partial")
        assert designer in table
    assert "mean over datasets" in table and "score" in table


def test_runs_show_reads_the_tasks_rates_and_configurations(
    compared: tuple[Path, Path, str],
) -> None:
    root, _, _ = compared
    shown = harness("runs", "show", str(run_dir(root, "uniform")))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "chain_sum: weight 0.200, level 5 of 0..10" in shown.stdout
    assert "rg-eval" in shown.stdout and "valid / score" in shown.stdout


def test_a_killed_run_resumes_from_its_last_finished_round(
    compared: tuple[Path, Path, str], tmp_path: Path
) -> None:
    root, preset, _ = compared
    runs = tmp_path / "runs"
    shutil.copytree(root, runs / root.name)
    killed = run_dir(runs / root.name, "uniform")
    (killed / "round-001" / "round.json").unlink()  # as if killed while training round 2
    (killed / "result.json").unlink()
    first = (killed / "round-000" / "round.json").read_bytes()
    done = harness("compare", "--preset", str(preset), "--out", str(runs), "--resume",
                   "--allow-design-failures", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (killed / "round-000" / "round.json").read_bytes() == first  # not trained again
    record = read_result(killed)
    assert len(record.rounds) == 2 and record.rounds[1].training
    assert record.rounds[0] == read_result(run_dir(root, "uniform")).rounds[0]


def test_the_board_reads_the_tasks_cuts_and_rates(compared: tuple[Path, Path, str]) -> None:
    """`harness leaderboard show` ranks these runs by reasoning-gym's own rate (valid: full
    marks from the dataset's scorer) and cuts them by dataset and level; the tiny model scores
    near zero, so the board proves the path, not a ranking."""
    root, _, _ = compared
    shown = harness("leaderboard", "show", str(root), "--suite-detail", "dataset",
                    "--resamples", "200")  # fmt: skip
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "rg-eval by dataset" in shown.stdout and "skipped" not in shown.stdout + shown.stderr
    assert "Sum = mean over datasets of the per-dataset rate" in shown.stdout
    assert "opt." not in shown.stdout and "map size" not in shown.stdout
    as_json = harness("leaderboard", "show", str(root), "--format", "json", "--resamples", "200")
    assert as_json.returncode == 0, as_json.stderr
    board = json.loads(as_json.stdout)
    assert board["task"] == "reasoning-gym-v1" and [r["key"] for r in board["rates"]] == ["valid"]
    assert board["detail_cuts"] == ["dataset", "level"]
    assert {row["designer"] for row in board["rows"]} == set(DESIGNERS)
    datasets = {d["key"] for d in board["details"] if d["cut"] == "dataset"}
    assert datasets <= set(PRESET) and datasets
    unknown = harness("leaderboard", "show", str(root), "--suite-detail", "size")
    assert unknown.returncode == 2 and "choose from dataset, level" in unknown.stderr
