"""MAPF-FrozenLake through the task interface: the testbed's own answers, unchanged."""

from __future__ import annotations

import pytest

from envdesign_common import ConfigError
from mapf_env import EnvConfig, generate, load_suite, merge, project, random_config, verify
from mapf_env.suites import SUITES
from tasks import Task, create_task, resolve_task_id
from tasks.mapf_frozenlake import TASK_ID, MapfFrozenLake


@pytest.fixture(scope="module")
def task() -> MapfFrozenLake:
    made = create_task("mapf-frozenlake")
    assert isinstance(made, MapfFrozenLake)
    return made


def test_the_family_name_means_its_newest_version() -> None:
    assert resolve_task_id("mapf-frozenlake") == TASK_ID == "mapf-frozenlake-v2"
    assert isinstance(create_task(TASK_ID), Task)


def test_generation_and_projection_are_the_testbeds(task: MapfFrozenLake) -> None:
    config = task.initial_config(3, 40)
    assert config == random_config(3, n_agents=2, samples=40)
    assert task.generate(config, 11, workers=1).items == generate(config, 11, workers=1).instances
    draft = {"7x7": {"hole_ratio": 0.9}, "n_agents": 5}
    projected, direct = task.project(config, draft), project(merge(config, draft))
    assert (projected.config, projected.notes) == (direct.config, direct.notes)
    assert projected.config.sizes[7].hole_ratio == 0.5


def test_a_draft_that_cannot_be_read_is_a_config_error(task: MapfFrozenLake) -> None:
    with pytest.raises(ConfigError, match="hole_ratoi"):
        task.project(EnvConfig.uniform(), {"7x7": {"hole_ratoi": 0.1}})


@pytest.mark.parametrize("name", sorted(SUITES))
def test_suites_keep_their_shipped_checksums_and_cuts(task: MapfFrozenLake, name: str) -> None:
    suite, shipped = task.suite(name), load_suite(name)
    assert task.checksum(suite) == suite.checksum == shipped.content_sha256
    assert [it.item for it in suite.items] == [it.instance for it in shipped.items]
    first = shipped.items[0]
    assert suite.items[0].cuts == {
        "size": f"{first.size}x{first.size}",
        "subset": first.subset,
        "hole": f"{first.hole_ratio:g}",
    }


def test_judging_is_the_verifiers(task: MapfFrozenLake) -> None:
    items = task.suite("validation").items[:40]
    answers = ["", "Agent 1: (0,0)", *(task.reference_answer(it.item) or "" for it in items[:5])]
    for it in items:
        for answer in answers:
            judged, verdict = task.judge(it.item, answer), verify(it.item, answer)
            assert judged.valid == verdict.valid
            assert judged.failure == (verdict.failure.value if verdict.failure else None)
            assert judged.optimal == {
                "soc": verdict.optimal_soc,
                "makespan": verdict.optimal_makespan,
            }
            assert judged.score == (1.0 if verdict.valid else 0.0)


def test_unknown_settings_are_refused_one_line_each() -> None:
    with pytest.raises(ConfigError, match=r"task_settings\.n_agnts: not a field.*did you mean"):
        create_task("mapf-frozenlake", {"n_agnts": 3})
