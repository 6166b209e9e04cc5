"""The LLM designer on a task other than MAPF-FrozenLake: reasoning-gym.

Its prompt is the general one -- the task's description, its knobs and their bounds, the
configuration in the task's words and as YAML, the validation breakdown per dataset and level,
the history in the task's words -- kept byte for byte in
``tests/golden/designer_prompts/reasoning_gym-V6.md`` (regenerate as `test_llm_prompts` says).
A model's change set is projected by the task; an unusable one is shown back to the model with
the values it may set. MAPF-FrozenLake keeps the paper's prompts (`test_llm_prompts`).
"""

from __future__ import annotations

import json

import pytest

from designers.context import RoundRecord, TrainingInfo
from designers.llm.variants import VARIANTS, analysis_messages, get_variant
from run_records import task_records
from tasks.reasoning_gym import ReasoningGym
from tests.designers.openai_server import ScriptedServer, llm_designer_for
from tests.designers.test_llm_prompts import GOLDEN, HEADINGS, REGENERATE

GOOD = """The chain sums fail most; ease them and give them more of the budget.

```yaml
datasets:
  chain_sum:
    weight: 0.4
    level: 1
```
"""


def rg_context(task: ReasoningGym) -> object:
    """Round 2 of 3 on reasoning-gym: a validation report (every dataset, both levels) from
    reference answers, wrong answers and replies without one, and the round before."""
    config = task.initial_config(0, 40)
    items = task.suite("rg-validation").items[::5]
    replies = ["", "<answer>no</answer>"]
    answers = [task.reference_answer(it.item) or "" if i % 3 == 0 else replies[i % 3 - 1]
               for i, it in enumerate(items)]  # fmt: skip
    report = task.report(items, answers)
    stats = task.generate(config, 7).stats
    context = task_records(task).context
    round_record = RoundRecord[type(config), type(stats), type(report)]  # type: ignore[misc]
    earlier = round_record(round=1, config=config, validation=report, summary="Sums lag.")
    return context(
        round=2,
        total_rounds=3,
        config=config,
        initial_config=config,
        validation=report,
        stats=stats,
        history=(earlier,),
        training=TrainingInfo(round=2, epochs=1, samples=40),
        task=task,
    )


def rendered(ctx: object) -> str:
    messages = analysis_messages(ctx, get_variant("V6"))  # type: ignore[arg-type]
    return "".join(f"<<{m['role']}>>\n{m['content']}\n" for m in messages)


def test_the_general_prompt_speaks_the_tasks_words(reasoning_gym_task: ReasoningGym) -> None:
    text = rendered(rg_context(reasoning_gym_task))
    expected = GOLDEN / "reasoning_gym-V6.md"
    if REGENERATE:
        expected.write_text(text, encoding="utf-8")
    assert text == expected.read_text(encoding="utf-8"), "regenerate and review the diff"
    assert "- `datasets.chain_sum.level` (0 to 10, an integer)" in text
    assert "| dataset | n | valid | score |" in text and "| level | n |" in text
    assert "### Round 1\nConfiguration:\n  basic_arithmetic: weight 0.200" in text
    for paper_word in ("MAPF", "map size", "hole", "agents"):
        assert paper_word not in text, paper_word


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_has_exactly_its_modules(reasoning_gym_task: ReasoningGym, name: str) -> None:
    ctx = rg_context(reasoning_gym_task)
    text = analysis_messages(ctx, get_variant(name))[1]["content"]  # type: ignore[arg-type]
    for module, heading in HEADINGS.items():
        assert (heading in text) == (module in VARIANTS[name].modules), (name, module)
    assert ("### Round 0" in text) == (name == "V3")  # round 0's start, in the task's words


def test_a_change_set_is_projected_by_the_task(
    reasoning_gym_task: ReasoningGym, openai_server: ScriptedServer
) -> None:
    openai_server.queue(GOOD, "Observed X. Changed Y. Watch Z.")
    ctx = rg_context(reasoning_gym_task)
    proposal = llm_designer_for(openai_server, "gpt").propose(ctx)  # type: ignore[arg-type]
    assert not proposal.kept_previous and not proposal.failures
    chain = proposal.config.datasets["chain_sum"]
    assert chain.level == 1 and chain.weight > 0.2  # renormalised with the other weights
    assert proposal.summary == "Observed X. Changed Y. Watch Z."
    summary_request = openai_server.requests[-1].body["messages"][-1]["content"]
    assert "chain_sum:" in summary_request and "sizes" not in summary_request


def test_an_unknown_key_is_shown_back_with_the_values_it_may_set(
    reasoning_gym_task: ReasoningGym, openai_server: ScriptedServer
) -> None:
    openai_server.queue("```yaml\n7x7:\n  ratio: 0.3\n```", GOOD, "Summary.")
    ctx = rg_context(reasoning_gym_task)
    proposal = llm_designer_for(openai_server, "gpt").propose(ctx)  # type: ignore[arg-type]
    assert not proposal.kept_previous and len(proposal.failures) == 1
    retry = openai_server.requests[1].body["messages"][-1]["content"]
    assert "7x7" in retry and "datasets.word_sorting.level" in retry, retry
    assert json.dumps(proposal.changes) == json.dumps(
        {"datasets": {"chain_sum": {"weight": 0.4, "level": 1}}}
    )
