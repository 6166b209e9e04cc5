"""Agents that decide in turn (`CpuSection.decide: in_turn`) and the farthest-first priority.

What the in-turn rollout must get right is bookkeeping: each agent's claims channel holds the
cells the agents ranked before it have just chosen, and the decisions it records for the update
are in the same (episode, agent) order as the simultaneous rollout's, so GRPO gives every
decision its own episode's advantage. Both are read back here from a recorded rollout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.cpu.features import CHANNELS, MOVES, build_boards, observe, own_cells
from harness.backends.cpu.policy import AgentPolicy
from harness.backends.cpu.rollout import rollout
from harness.experiment import ExperimentConfig
from mapf_env import FailureType, Instance, load_suite, verify

WINDOW = 7


@pytest.fixture(scope="module")
def instances() -> list[Instance]:
    items = load_suite("4agents").items
    return [items[i].instance for i in range(0, len(items), 35)]


def recorded(instances: list[Instance], priority: str = "random") -> tuple[AgentPolicy, object]:
    torch.manual_seed(3)
    policy = AgentPolicy(WINDOW, (32,), in_turn=True)
    ro = rollout(
        policy, instances, samples=2, greedy=False, generator=torch.Generator().manual_seed(5),
        record=True, window=WINDOW, horizon_factor=2.0, precision="fp32",
        priority=priority,  # type: ignore[arg-type]
    )  # fmt: skip
    return policy, ro


def test_recorded_decisions_replay_the_episodes(instances: list[Instance]) -> None:
    """Replaying every recorded step from the starts, in (episode, agent) order, moves the
    agents as their rows say and reproduces each row's observation outside the claims channel;
    the claims channel marks exactly the earlier-ranked agents' next cells in the window."""
    _, ro = recorded(instances)
    boards = build_boards(instances, 2, WINDOW, 2.0)
    w = WINDOW * WINDOW
    agents = boards.agents
    pos = boards.starts.clone()
    prio = None
    for t, step in enumerate(ro.steps):
        old = pos[step.episodes]
        new = old + (MOVES[step.actions, 0] * boards.side + MOVES[step.actions, 1]).view(old.shape)
        obs = step.kept.inputs[0].view(len(step.episodes), agents, -1)
        if prio is None:  # the priority rank is a scalar of every row
            prio = torch.round(obs[..., -3] * 8.0).long()
        fresh, mask = observe(boards, step.episodes, old, prio[step.episodes], t, claims=True)
        fresh = fresh.view_as(obs)
        outside = torch.ones(obs.shape[-1], dtype=torch.bool)
        outside[CHANNELS * w : (CHANNELS + 1) * w] = False
        assert torch.equal(obs[..., outside], fresh[..., outside])
        assert torch.equal(mask, step.mask)
        claims = obs[..., CHANNELS * w : (CHANNELS + 1) * w]
        for e in range(len(step.episodes)):
            ranks = prio[step.episodes[e]]
            for a in range(agents):
                expected = torch.zeros(w)
                for b in range(agents):
                    if ranks[b] < ranks[a]:
                        at = boards.lookup[new[e, b] - old[e, a] + boards.side**2]
                        if at >= 0:
                            expected[at] = 1.0
                assert torch.equal(claims[e, a], expected), (t, e, a)
        pos[step.episodes] = new
    assert all(
        verify(instances[k // 2], text).failure in (None, FailureType.CONFLICT, FailureType.GOAL)
        for k, text in enumerate(ro.answers)
    )


def test_kept_activations_are_the_rows_the_policy_chose_from(instances: list[Instance]) -> None:
    """The update starts from the kept logits: they must be the policy's output on the kept
    observations, row by row (to rounding: the rollout's passes had fewer rows), and every
    chosen move must be legal."""
    policy, ro = recorded(instances)
    for step in ro.steps:
        with torch.no_grad():
            again = policy.net(step.kept.inputs[0]).float()
        torch.testing.assert_close(again, step.kept.logits, rtol=1e-5, atol=1e-6)
        assert bool(step.mask.gather(1, step.actions[:, None]).all())


def test_farthest_agent_ranks_first(instances: list[Instance]) -> None:
    _, ro = recorded(instances, priority="farthest")
    boards = build_boards(instances, 2, WINDOW, 2.0)
    first = ro.steps[0]
    obs = first.kept.inputs[0].view(boards.episodes, boards.agents, -1)
    ranks = torch.round(obs[..., -3] * 8.0).long()
    every = torch.arange(boards.episodes)
    distance = boards.dist[own_cells(boards, every, boards.starts)]
    ahead = ranks[:, :, None] < ranks[:, None, :]  # a ranks before b
    assert bool((distance[:, :, None] >= distance[:, None, :])[ahead].all())


def test_the_cpu_section_reaches_the_learner() -> None:
    experiment = ExperimentConfig.model_validate(
        {"backend": "cpu", "cpu": {"decide": "in_turn", "priority": "farthest", "batch_size": 64}}
    )
    backend = experiment.backend_spec.build(experiment, threads=1)
    assert isinstance(backend, CpuBackend)
    assert (backend.settings.decide, backend.settings.priority) == ("in_turn", "farthest")
    assert backend.settings.batch_size == 64 and backend.policy.in_turn


def test_a_bad_cpu_section_is_refused_under_its_name() -> None:
    with pytest.raises(ValueError, match=r"cpu\.decide"):
        ExperimentConfig.model_validate({"backend": "cpu", "cpu": {"decide": "sometimes"}})


def test_an_in_turn_learner_saves_and_resumes(tmp_path: Path, instances: list[Instance]) -> None:
    settings = CpuLearnerSettings(decide="in_turn", priority="farthest", batch_size=8, threads=1)
    backend = CpuBackend(settings)
    backend.save(tmp_path)
    again = CpuBackend()
    again.load(tmp_path)
    assert again.policy.in_turn
    assert again.respond(instances, seed=1) == backend.respond(instances, seed=1)
