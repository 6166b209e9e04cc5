"""A backend from outside the project: registered by one entry point, run through the whole loop.

The plug-in (`tests/harness/backend_plugin/memo_backend.py`) is put on the path with an
installed distribution's metadata naming it in the ``harness.backends`` group, exactly what
``pip install`` of a plug-in package leaves; nothing in the harness names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from envdesign_common.field_errors import ConfigError
from harness.backends import registry
from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from leaderboards import LeaderboardError, build_board, load_runs, publish_site
from leaderboards.bundles import bundle_runs, verify_bundle
from leaderboards.compat import require_one_task
from tests.leaderboards.handmade import rates
from tests.leaderboards.handmade import run as hand_run
from tests.plugin_sites import plugin_site

PLUGIN = Path(__file__).resolve().parent / "backend_plugin"
SMALL = {"name": "memo", "backend": "memo", "policy": "memo", "rounds": 2,
         "samples_per_round": 60, "epochs_per_round": 1, "benchmarks": ["validation"],
         "best_of": 1, "designers": ["uniform"]}  # fmt: skip


@pytest.fixture
def memo_installed(tmp_path: Path) -> Iterator[None]:
    entry = {"harness.backends": {"memo": "memo_backend:SPEC"}}
    with plugin_site(tmp_path / "site", "memo-backend", entry,
                     {"memo_backend": PLUGIN / "memo_backend.py"}):  # fmt: skip
        yield


def test_a_plugin_backend_runs_the_loop(memo_installed: None, tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping({**SMALL, "memo": {"instances_per_size": 3}})
    assert "memo" in registry.backend_names()
    assert experiment.model_dump(mode="json")["memo"] == {"instances_per_size": 3}
    backend = make_backend(experiment, workdir=tmp_path / "run")
    run = RunDir(tmp_path, experiment, "uniform", 0)
    record = run_designer(experiment, "uniform", 0, backend, run, workers=1)
    assert record.backend == "memo" and len(record.rounds) == 2
    # Uniform gives every size 60/8 instances: each is known after round 0 (>= 3 of it).
    assert record.rounds[0].validation.overall.valid_rate == 1.0
    assert record.suites["validation"].greedy.overall.valid_rate == 1.0
    resumed = make_backend(experiment, workdir=tmp_path / "run")
    again = run_designer(experiment, "uniform", 0, resumed, run, resume=True, workers=1)
    assert again == record


def test_its_section_is_validated_by_its_own_model(memo_installed: None) -> None:
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.from_mapping({**SMALL, "memo": {"instances_per_sise": 3}})
    assert "memo.instances_per_sise: not a field" in str(err.value)
    assert "did you mean 'instances_per_size'?" in str(err.value)
    with pytest.raises(ConfigError, match=r"memo\.instances_per_size"):
        ExperimentConfig.from_mapping({**SMALL, "memo": {"instances_per_size": 0}})
    defaults = ExperimentConfig.from_mapping(SMALL)
    assert defaults.model_dump(mode="json")["memo"] == {"instances_per_size": 10}


def test_an_unknown_backend_suggests_a_registered_one(memo_installed: None) -> None:
    with pytest.raises(ConfigError, match="did you mean 'memo'"):
        ExperimentConfig.from_mapping({**SMALL, "backend": "mem"})


def test_cli_lists_every_backend(memo_installed: None) -> None:
    from typer.testing import CliRunner

    from harness_cli import app

    result = CliRunner().invoke(app, ["backends", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in ("cpu", "verl", "memo"):
        assert name in result.output
    assert "memorises the map sizes" in result.output


def test_the_settings_field_is_not_a_key_to_write() -> None:
    with pytest.raises(ConfigError, match="section of its name"):
        ExperimentConfig.from_mapping({"backend_settings": {"n_gpus_per_node": 2}})


@pytest.fixture
def recall_installed(tmp_path: Path) -> Iterator[None]:
    entry = {"harness.backends": {"recall": "recall_backend:SPEC"}}
    with plugin_site(tmp_path / "site", "recall-backend", entry,
                     {"recall_backend": PLUGIN / "recall_backend.py"}):  # fmt: skip
        yield


GYM = {"name": "gym", "task": "reasoning-gym", "backend": "recall", "policy": "recall",
       "rounds": 2, "samples_per_round": 30, "epochs_per_round": 1, "best_of": 2,
       "limit": 10, "designers": ["random", "uniform", "learning-progress", "regret"]}  # fmt: skip


@pytest.mark.parametrize("designer", GYM["designers"])
def test_a_backend_for_any_task_runs_another_task_through_the_loop(
    recall_installed: None, tmp_path: Path, designer: str
) -> None:
    """reasoning-gym through the whole loop -- generation, training, validation through the
    task's report, design by a designer that reads only the task's knobs, suites scored by the
    task -- with its records in its own models, read back and resumed."""
    from run_records import read_result
    from tasks import CutReport, CutSuiteResult
    from tasks.reasoning_gym.config import RgConfig

    experiment = ExperimentConfig.from_mapping(GYM)
    assert experiment.benchmarks == ("rg-eval",) and experiment.validation == "rg-validation"
    backend = make_backend(experiment, workdir=tmp_path / "run")
    run = RunDir(tmp_path, experiment, designer, 0)
    record = run_designer(experiment, designer, 0, backend, run, workers=1)
    assert [type(r.config) for r in record.rounds] == [RgConfig, RgConfig]
    assert all(isinstance(r.validation, CutReport) for r in record.rounds)
    assert record.rounds[0].proposal is not None and not record.rounds[0].proposal.design_failed
    result = record.suites["rg-eval"]
    assert isinstance(result, CutSuiteResult) and len(result.verdicts) == 10
    assert read_result(run.path / "result.json") == record
    resumed = make_backend(experiment, workdir=tmp_path / "run")
    assert run_designer(experiment, designer, 0, resumed, run, resume=True, workers=1) == record
    loaded = load_runs([tmp_path])
    assert not loaded.skipped
    board = build_board(loaded, resamples=50)  # read through the task: its cuts and rates
    assert board.task == "reasoning-gym-v1" and board.metrics == ("valid",)
    assert board.detail_cuts == ("dataset", "level") and board.rows[0].designer == designer
    assert board.controls is not None and "no controls for task reasoning-gym-v1" in str(
        board.controls.note
    )
    mapf = hand_run("random", 1, rates({3: (4, 2, 1)}))
    pooled = r"is a run of task reasoning-gym-v1 but .* of mapf-frozenlake"
    with pytest.raises(LeaderboardError, match=pooled):
        build_board([*loaded, mapf], resamples=50)  # never pooled with another task's runs
    with pytest.raises(LeaderboardError, match="drop --reference"):
        build_board(loaded, resamples=50, reference=True)  # the paper's figures are MAPF's
    site = publish_site(loaded, tmp_path / "web", resamples=50).out  # read through the task
    heatmap = (site / f"plots/trajectory-{designer}.svg").read_text()
    assert re.findall(r'<g class="panel" id="(\w+)">', heatmap) == ["weight", "level"]
    assert ">dataset</text>" in heatmap and ">chain_sum</text>" in heatmap
    assert ">10</text>" in heatmap, "the level's scale ends at the highest curriculum level"
    page = (site / f"runs/{designer}-seed-0.html").read_text()
    assert "datasets:" in page and "chain_sum:" in page, "the configuration as the task writes it"
    if record.rounds[0].proposal.changes:  # random keeps round 0's configuration: no changes
        assert '<th class="text">dataset</th><th class="num">weight</th>' in page
    index = (site / "index.html").read_text()
    assert "Rate per dataset" in index and "weight and level per dataset and round" in index
    assert "The rg-validation suite, greedy answers" in index
    bundle = bundle_runs([run.path], tmp_path / "gym.zip").path
    checked = verify_bundle(bundle)  # re-scored by each dataset's own scorer, installed here
    assert checked.ok and checked.instances == 10 and checked.answers == 30
    with pytest.raises(LeaderboardError, match="a bundle holds the runs of one task"):
        require_one_task([*loaded, mapf], "a bundle")  # what bundle_runs checks first
