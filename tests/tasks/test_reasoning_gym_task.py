"""reasoning-gym's datasets as a task: the contract, determinism across processes, the shipped
suite checksums, projection's notes and errors, and judging by each dataset's own scorer."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from designers.knob_drafts import midpoint_draft
from envdesign_common import ConfigError
from tasks import Task, TaskLoadError, check_task, create_task, resolve_task_id
from tasks.reasoning_gym import PRESET, SPEC, TASK_ID, ReasoningGym, RgItem
from tasks.reasoning_gym.generation import split_budget
from tasks.reasoning_gym.manifest import compute_entry, main
from tasks.reasoning_gym.suites import MissingChecksum, load_manifest, manifest_key

pytest.importorskip("reasoning_gym")

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = 40


@pytest.fixture
def task(reasoning_gym_task: ReasoningGym) -> ReasoningGym:
    return reasoning_gym_task


def items_sha256(items: tuple[RgItem, ...]) -> str:
    lines = [json.dumps(item.fields(), sort_keys=True) for item in items]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def first_of(task: ReasoningGym, dataset: str) -> RgItem:
    return next(it.item for it in task.suite("rg-validation").items if it.item.dataset == dataset)


def test_the_family_name_means_the_task_and_the_spec_names_its_extra() -> None:
    assert resolve_task_id("reasoning-gym") == TASK_ID == "reasoning-gym-v1"
    assert SPEC.extra == "reasoning-gym" and "procedural datasets" in SPEC.description
    assert isinstance(create_task(TASK_ID), Task)


def test_without_reasoning_gym_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "reasoning_gym", None)  # import fails as if not installed
    with pytest.raises(TaskLoadError, match=r"pip install 'envdesign-bench\[reasoning-gym\]'"):
        create_task("reasoning-gym")


def test_importing_the_spec_does_not_import_reasoning_gym() -> None:
    code = "import sys, tasks.reasoning_gym; assert 'reasoning_gym' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_default_preset_keeps_the_task_contract(task: ReasoningGym) -> None:
    assert task.datasets == tuple(sorted(PRESET))
    check_task(task, config=task.initial_config(0, SAMPLES), suite_items=10)


def test_generation_is_the_same_in_another_process(task: ReasoningGym) -> None:
    config = task.initial_config(0, SAMPLES)
    code = (
        "import hashlib, json; from tasks import create_task\n"
        "t = create_task('reasoning-gym')\n"
        "items = t.generate(t.initial_config(0, 40), 7).items\n"
        "lines = [json.dumps(i.fields(), sort_keys=True) for i in items]\n"
        "print(hashlib.sha256('\\n'.join(lines).encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    made = task.generate(config, 7)
    assert out.stdout.strip() == items_sha256(made.items)
    assert made.items != task.generate(config, 8).items


def test_the_budget_is_split_by_weight_into_whole_samples(task: ReasoningGym) -> None:
    assert split_budget({"a": 0.5, "b": 0.25, "c": 0.25}, 10) == {"a": 5, "b": 3, "c": 2}
    assert split_budget({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, 40) == {"a": 14, "b": 13, "c": 13}
    config = task.project(task.initial_config(0, SAMPLES), {"chain_sum": {"weight": 0.0}}).config
    made = task.generate(config, 0)
    stats = made.stats.model_dump()["datasets"]
    assert stats["chain_sum"] == {"requested": 0, "generated": 0, "level": 0}
    assert sum(s["generated"] for s in stats.values()) == len(made.items) == 40
    assert "chain_sum: 0/0 samples at level 0" in task.describe_stats(made.stats)


def test_items_are_small_hashable_picklable_values(task: ReasoningGym) -> None:
    item = task.generate(task.initial_config(0, SAMPLES), 0).items[0]
    copy = pickle.loads(pickle.dumps(item))
    assert copy == item and hash(copy) == hash(item)
    assert json.loads(item.metadata)["source_dataset"] == item.dataset


def test_an_item_travels_as_text_and_text_that_is_no_item_is_refused(task: ReasoningGym) -> None:
    """The text a trainer's worker rebuilds an item from: every field, read as data."""
    item = task.suite("rg-validation").items[0].item
    text = task.encode_item(item)
    assert task.decode_item(text) == item and json.loads(text)["dataset"] == item.dataset
    fields = json.loads(text)
    for bad, words in [
        ({**fields, "level": "2"}, "level is str"),
        ({**fields, "level": True}, "level is bool"),
        ({**fields, "extra": 1}, "not the fields"),
        ({**fields, "metadata": "{"}, "metadata is not JSON"),
        ({**fields, "dataset": "figlet_font"}, "not one of the datasets"),
    ]:
        with pytest.raises(ValueError, match=words):
            task.decode_item(json.dumps(bad))


def test_a_level_sets_the_datasets_curriculum(task: ReasoningGym) -> None:
    easy = task.generate(task.initial_config(0, SAMPLES), 0).items
    hard_config = task.project(task.initial_config(0, SAMPLES), {"chain_sum": {"level": 10}}).config
    hard = task.generate(hard_config, 0).items
    terms = [json.loads(i.metadata)["num_terms"] for i in hard if i.dataset == "chain_sum"]
    assert all(json.loads(i.metadata)["num_terms"] == 2 for i in easy if i.dataset == "chain_sum")
    assert {i.level for i in hard if i.dataset == "chain_sum"} == {10} and max(terms) > 2


@pytest.mark.parametrize("name", ["rg-validation", "rg-eval"])
def test_the_shipped_suite_checksums_match(task: ReasoningGym, name: str) -> None:
    suite = task.suite(name)
    assert task.checksum(suite) == suite.checksum
    entry = load_manifest()["entries"][manifest_key(PRESET)]
    assert entry["suites"][name] == {"items": len(suite.items), "sha256": suite.checksum}
    levels = {(it.cuts["dataset"], it.cuts["level"]) for it in suite.items}
    top = {"rg-validation": 1, "rg-eval": 2}[name]
    assert levels == {(d, str(lv)) for d in PRESET for lv in range(top + 1)}
    assert len({it.id for it in suite.items}) == len(suite.items)


def test_a_changed_suite_fails_its_checksum(task: ReasoningGym) -> None:
    suite = task.suite("rg-validation")
    shortened = type(suite)(suite.name, suite.version, suite.items[1:], suite.checksum)
    assert task.checksum(shortened) != suite.checksum


def test_another_dataset_set_has_no_suites_until_its_entry_is_computed(tmp_path: Path) -> None:
    other = create_task("reasoning-gym", {"datasets": ["spell_backward", "chain_sum"]})
    with pytest.raises(MissingChecksum) as err:
        other.suite("rg-validation")
    assert "python -m tasks.reasoning_gym.manifest --datasets chain_sum,spell_backward" in str(
        err.value
    )
    with pytest.raises(KeyError, match="suites are rg-validation, rg-eval"):
        other.suite("rg-test")
    manifest = tmp_path / "suites.json"
    assert main(["--datasets", "spell_backward,chain_sum", "--manifest", str(manifest)]) == 0
    written = json.loads(manifest.read_text())["entries"]["chain_sum,spell_backward"]
    assert written == compute_entry(["chain_sum", "spell_backward"])
    assert written["suites"]["rg-validation"]["items"] == 2 * 2 * 8


def test_the_shipped_entry_is_what_the_manifest_module_computes() -> None:
    assert load_manifest()["entries"][manifest_key(PRESET)] == compute_entry(PRESET)


def test_an_out_of_bounds_level_is_clipped_with_a_note(task: ReasoningGym) -> None:
    start = task.initial_config(0, SAMPLES)
    projected = task.project(start, {"datasets": {"word_sorting": {"level": 9}}})
    assert projected.config.datasets["word_sorting"].level == 4
    (note,) = projected.notes
    assert (note.field, note.before, note.after) == ("datasets.word_sorting.level", 9, 4)
    low = task.project(start, {"spell_backward": {"level": -2.0}, "chain_sum": {"level": 2.6}})
    assert low.config.datasets["spell_backward"].level == 0
    assert low.config.datasets["chain_sum"].level == 3
    assert task.project(projected.config, {}).notes == ()


def test_uniform_puts_each_level_in_the_middle_of_its_own_curriculum(task: ReasoningGym) -> None:
    start = task.initial_config(0, SAMPLES)
    middle = task.project(start, midpoint_draft(task, start)).config
    # The highest levels: basic_arithmetic, spell_backward, word_sorting 4; chain_sum 10;
    # letter_counting 7 (its middle 3.5 rounds to even).
    assert {n: d.level for n, d in middle.datasets.items()} == {
        "basic_arithmetic": 2, "chain_sum": 5, "letter_counting": 4,
        "spell_backward": 2, "word_sorting": 2,
    }  # fmt: skip
    assert {d.weight for d in middle.datasets.values()} == {0.2}


def test_weights_are_renormalised_and_the_budget_is_kept(task: ReasoningGym) -> None:
    start = task.initial_config(0, SAMPLES)
    projected = task.project(start, {"datasets": {"chain_sum": {"weight": 0.6}}, "samples": 9})
    weights = {n: d.weight for n, d in projected.config.datasets.items()}
    assert sum(weights.values()) == pytest.approx(1.0)
    assert weights["chain_sum"] == pytest.approx(0.6 / 1.4)
    assert projected.config.samples == 40
    fields = {n.field for n in projected.notes}
    assert "samples" in fields and {f"datasets.{d}.weight" for d in PRESET} <= fields
    zeros = {d: {"weight": -1.0} for d in PRESET}
    even = task.project(start, zeros).config
    assert {d.weight for d in even.datasets.values()} == {0.2}


@pytest.mark.parametrize(
    ("draft", "words"),
    [
        ({"datasets": {"chain_sun": {"level": 1}}}, "datasets.chain_sun: not a field"),
        ({"chain_sun": {"level": 1}}, "chain_sun: not a field"),
        ({"datasets": {"chain_sum": {"levle": 1}}}, "datasets.chain_sum.levle: not a field"),
    ],
)
def test_an_unknown_key_is_one_line_with_a_did_you_mean(
    task: ReasoningGym, draft: dict[str, object], words: str
) -> None:
    with pytest.raises(ConfigError) as err:
        task.project(task.initial_config(0, SAMPLES), draft)
    message = str(err.value)
    assert "\n" not in message and words in message and "did you mean" in message


def test_a_string_value_is_one_line_naming_the_field(task: ReasoningGym) -> None:
    with pytest.raises(ConfigError) as err:
        task.project(
            task.initial_config(0, SAMPLES), {"datasets": {"chain_sum": {"level": "high"}}}
        )
    assert str(err.value) == (
        "changes: datasets.chain_sum.level: wrong type (got 'high'); expected a number"
    )


def test_the_reference_answer_judges_valid_with_full_score(task: ReasoningGym) -> None:
    for dataset in PRESET:
        item = first_of(task, dataset)
        verdict = task.judge(item, f"Let me see.\n<answer>{item.answer}</answer>")
        assert (verdict.valid, verdict.score, verdict.failure) == (True, 1.0, None)
        assert task.reward(item, f"<answer> {item.answer} </answer>") == 1.0


def test_a_wrong_answer_scores_zero(task: ReasoningGym) -> None:
    item = first_of(task, "chain_sum")
    verdict = task.judge(item, "<answer>not a number</answer>")
    assert (verdict.valid, verdict.score, verdict.failure) == (False, 0.0, "wrong")


def test_an_answer_without_tags_is_no_answer(task: ReasoningGym) -> None:
    item = first_of(task, "chain_sum")
    for text in (str(item.answer), "<answer></answer>", f"<answer>{item.answer}"):
        verdict = task.judge(item, text)
        assert (verdict.valid, verdict.score, verdict.failure) == (False, 0.0, "no_answer")


def test_an_answer_given_while_thinking_does_not_count(task: ReasoningGym) -> None:
    item = first_of(task, "chain_sum")
    right = f"<answer>{item.answer}</answer>"
    verdict = task.judge(item, f"<think>so {right}</think> <answer>not a number</answer>")
    assert verdict.failure == "wrong"
    assert task.judge(item, f"<think>so {right}").failure == "no_answer"
    assert task.judge(item, f"<answer>draft</answer> then {right}").valid  # the last block


def test_partial_credit_is_the_datasets_own(task: ReasoningGym) -> None:
    item = first_of(task, "spell_backward")
    answer = str(item.answer)
    verdict = task.judge(item, f"<answer>{answer[:-1]}#</answer>")
    assert verdict.failure == "partial" and 0.0 < verdict.score < 1.0
    assert verdict.score == task.reward(item, f"<answer>{answer[:-1]}#</answer>")


def test_an_unknown_dataset_in_settings_is_one_line_with_a_did_you_mean() -> None:
    with pytest.raises(ConfigError) as err:
        create_task("reasoning-gym", {"datasets": ["chain_sum", "spell_backwards"]})
    message = str(err.value)
    assert "\n" not in message
    assert "task_settings.datasets: no reasoning-gym dataset 'spell_backwards'" in message
    assert "did you mean 'spell_backward'?" in message and "word_sorting" in message


def test_the_description_is_one_line_per_dataset(task: ReasoningGym) -> None:
    text = task.describe_config(task.initial_config(0, SAMPLES))
    assert text.splitlines()[0] == "  basic_arithmetic: weight 0.200, level 0 of 0..4"
    assert len(text.splitlines()) == len(PRESET)
