"""What boards read of a task's suite results (`Task.verdict_table`, `Task.result_problem`):
the generic table of a `CutSuiteResult` (reasoning-gym's), and a record that contradicts itself
named as such."""

from __future__ import annotations

import pytest

from tasks import CutSuiteResult, VerdictTable
from tasks.reasoning_gym import ReasoningGym

pytest.importorskip("reasoning_gym")


def scored(task: ReasoningGym) -> CutSuiteResult:
    """rg-validation scored with the reference answer for every other item, "?" else."""
    suite = task.suite("rg-validation")
    answers = [task.reference_answer(it.item) or "?" if i % 2 else "?"
               for i, it in enumerate(suite.items)]  # fmt: skip
    result = task.score_suite(suite, answers, [[a, "?"] for a in answers], 2)
    assert isinstance(result, CutSuiteResult)
    return result


def test_the_table_lines_up_items_by_id_with_their_cuts_and_flags(
    reasoning_gym_task: ReasoningGym,
) -> None:
    task = reasoning_gym_task
    result = scored(task)
    table = task.verdict_table(result)
    assert isinstance(table, VerdictTable)
    assert list(table.ids) == sorted(v.id for v in result.verdicts)
    by_id = {v.id: v for v in result.verdicts}
    assert set(table.cuts) == set(task.cuts) == {"dataset", "level"}
    for k, item in enumerate(table.ids):
        assert table.cuts["dataset"][k] == by_id[item].cuts["dataset"]
        assert table.flags["greedy"]["valid"][k] == by_id[item].valid
        assert table.failures[k] == by_id[item].failure
    assert sum(table.flags["greedy"]["valid"]) == result.greedy.overall.valid > 0
    assert [r.key for r in task.board_rates] == ["valid"] and not table.unavailable
    assert table.version == result.suite_version and table.checksum == result.content_sha256


def test_an_edited_count_or_a_missing_cut_is_refused(reasoning_gym_task: ReasoningGym) -> None:
    task = reasoning_gym_task
    result = scored(task)
    overall = result.greedy.overall.model_copy(update={"valid": result.greedy.overall.valid + 1})
    edited = result.model_copy(update={"greedy": result.greedy.model_copy(
        update={"overall": overall})})  # fmt: skip
    assert task.result_problem(result) is None
    assert (
        task.result_problem(edited) == "its greedy counts are not what its per-item verdicts give"
    )
    first = result.verdicts[0].model_copy(update={"cuts": {"dataset": "chain_sum"}})
    cut = result.model_copy(update={"verdicts": (first, *result.verdicts[1:])})
    said = f"item {first.id} does not carry exactly the cuts dataset, level"
    assert task.result_problem(cut) == said
    with pytest.raises(ValueError, match=said):
        task.verdict_table(cut)
