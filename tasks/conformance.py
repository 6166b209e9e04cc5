"""`check_task`: does a task keep the contract the harness relies on?

The round loop trains on whatever a task generates, the boards compare whatever it judges, and a
resumed or re-scored run trusts that the same seed and the same suite mean the same items. A
task that breaks one of those assumptions skews every comparison run on it, quietly. So, as
`check_designer` does for designers, one function checks a task -- the same function the
project's tests run over every registered task -- and reports every broken rule at once, each
with its fix (`TaskConformanceError`):

- ``identity``: a versioned id (``name-vN``), a description, cuts, a config model, sane bounds,
  default validation and benchmark suites among its suites;
- ``initial_config``: round 0's configuration is valid as it stands (projecting it changes
  nothing, nor does settling it on itself) and the same seed gives the same one;
- ``deterministic``: the same configuration and seed generate identical items, prompts
  included (the harness promises that a seed reproduces a run);
- ``generate``: generation gives items, and statistics the task can describe;
- ``knobs``: each declared knob exists in the configuration, a draft pushing it past its
  bound is projected back within it, and what the teachers read holds: a knob is harder up,
  down or neither, and a share declaring a cut has a cell for each of that cut's values in
  the validation suite;
- ``reference``: where the task has a reference answer, it judges valid, with full score;
- ``judge``: judging never raises on any text, its failure is one of the task's failure types,
  its optimal flags are the task's optimal kinds, its score lies in [0, 1];
- ``reward``: the reward of any answer lies within `reward_bounds`, and its accuracy weight
  within [0, 1] at any running valid rate;
- ``suites``: every suite loads, its items carry every cut, and its content matches its
  checksum;
- ``records``: the validation report and a suite's result are the task's declared models and
  read back from their JSON equal (run records store them, resume and boards read them back),
  and their rates (`rates`, `suite_rates`) count every answer, within [0, 1], naming the
  task's optima (`reward_optimum` among them);
- ``describe``: the configuration, the statistics and a validation report (its breakdown and
  its headline) render to non-empty text;
- ``config_yaml``: the configuration's YAML reads back to the same configuration;
- ``codec`` (a task that declares `ItemCodec`): an item's text is the same each time and
  rebuilds an equal item, and text that is no item is refused with ValueError.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from pydantic import BaseModel, ValidationError

from envdesign_common.conformance import ConformanceError, ConformanceProblem, collect_problems
from envdesign_common.field_errors import ConfigError
from envdesign_common.yaml_mappings import load_mapping
from tasks.base import ItemCodec, Judgement, Knob, Suite, Task, missing_members
from tasks.registry import family_of

__all__ = ["HOSTILE_ANSWERS", "TaskConformanceError", "check_task"]

HOSTILE_ANSWERS = (
    "",
    "I don't know.",
    "<think>unfinished",
    "\x00\ufffd" * 50,
    "Agent 1: (0,0) (0,1)\n" * 200,
    "9" * 5000,
)
"""Answers every judge and reward must take without raising: empty, prose, an unclosed
reasoning block, control characters, a long repetition, a huge number."""


class TaskConformanceError(ConformanceError):
    """A task breaks the task contract; `problems` holds one entry per broken rule."""

    kind = "task"


def check_task(
    task: object,
    *,
    seeds: Sequence[int] = (0, 1),
    config: BaseModel | None = None,
    suite_items: int = 20,
    samples: int = 40,
) -> None:
    """Check `task` (any object: one without the `Task` protocol fails the first check); raise
    `TaskConformanceError` naming every rule it breaks.

    Generation runs on `config` (default: the task's round-0 configuration of each seed with
    `samples` items a round), so a task whose round is large can be checked on a small one.
    `suite_items` caps how many items of each suite are judged with their reference answers
    (every item is checksummed).
    """
    label = str(getattr(task, "id", "") or type(task).__name__)
    if not isinstance(task, Task):
        missing = ", ".join(missing_members(task)) or "nothing (wrong types)"
        raise TaskConformanceError(
            label,
            [ConformanceProblem("protocol", f"missing {missing}",
                                "implement every member of tasks.Task")],
        )  # fmt: skip
    found: dict[tuple[str, str], ConformanceProblem] = {}
    collect_problems(found, _identity(task), "")
    for seed in seeds:
        where = f"seed {seed}"
        chosen = config if config is not None else _initial(task, seed, samples, found, where)
        if chosen is None:
            continue
        collect_problems(found, _generation(task, chosen, seed), where)
        collect_problems(found, _knobs(task, chosen), where)
    for name in task.suite_names:
        collect_problems(found, _suite(task, name, suite_items), f"suite {name}")
    if found:
        raise TaskConformanceError(label, list(found.values()))


def _problem(check: str, seen: str, fix: str) -> ConformanceProblem:
    return ConformanceProblem(check, seen, fix)


def _identity(task: Task[Any, Any]) -> Iterator[ConformanceProblem]:
    if family_of(task.id)[1] is None:
        yield _problem("identity", f"id {task.id!r} has no version",
                       "name it <family>-v<N>, e.g. my-task-v1")  # fmt: skip
    if not str(task.description).strip():
        yield _problem("identity", "the description is empty", "say in one line what is learned")
    if not task.cuts or len(set(task.cuts)) != len(task.cuts):
        yield _problem("identity", f"cuts {task.cuts!r} are empty or repeat a name",
                       "name each cut a board groups results by once")  # fmt: skip
    if not (isinstance(task.config_model, type) and issubclass(task.config_model, BaseModel)):
        yield _problem("identity", f"config_model is {task.config_model!r}",
                       "give the pydantic model of the task's configuration")  # fmt: skip
    defaults = (task.validation_suite, *task.benchmark_suites)
    stray = [name for name in defaults if name not in task.suite_names]
    if stray:
        yield _problem("identity", f"default suites {stray!r} are not among suite_names "
                       f"{task.suite_names!r}", "name suites the task has")  # fmt: skip
    low, high = task.reward_bounds
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        yield _problem("identity", f"reward_bounds {task.reward_bounds!r} are not an interval",
                       "give finite (low, high) with low < high")  # fmt: skip


def _initial(
    task: Task[Any, Any],
    seed: int,
    samples: int,
    found: dict[tuple[str, str], ConformanceProblem],
    where: str,
) -> BaseModel | None:
    try:
        first, again = task.initial_config(seed, samples), task.initial_config(seed, samples)
        projected = task.project(first, {})
        settled = task.settled(first, again)
    except Exception as err:  # the checker reports a crash like any other broken rule
        collect_problems(found, [_crash("initial_config", err)], where)
        return None
    problems = []
    if first != again:
        problems.append(_problem("initial_config", "the same seed gave two configurations",
                                 "draw round 0 only from the seed"))  # fmt: skip
    if projected.notes or projected.config != first:
        notes = "; ".join(str(n) for n in projected.notes) or "the configuration changed"
        problems.append(_problem("initial_config", f"projecting round 0 changed it ({notes})",
                                 "return a configuration that is valid as it stands"))  # fmt: skip
    if settled != first:
        problems.append(_problem("initial_config", "settling round 0 on itself changed it",
                                 "change only the values a designer may not change in "
                                 "settled, taking them from fixed_from"))  # fmt: skip
    collect_problems(found, problems, where)
    return first if isinstance(first, BaseModel) else None


def _crash(
    check: str, err: BaseException, fix: str = "it must not raise on valid input"
) -> ConformanceProblem:
    return _problem(check, f"raised {type(err).__name__}: {err}", fix)


def _generation(task: Task[Any, Any], config: BaseModel, seed: int) -> Iterator[ConformanceProblem]:
    try:
        made = task.generate(config, seed, workers=1)
        again = task.generate(config, seed, workers=1)
    except Exception as err:
        yield _crash("generate", err)
        return
    if not made.items:
        yield _problem("generate", "no items", "generate at least one item from a valid config")
        return
    try:
        same = made.items == again.items and [task.prompt(i) for i in made.items] == [
            task.prompt(i) for i in again.items
        ]
    except Exception as err:
        yield _crash("deterministic", err)
        return
    if not same:
        yield _problem("deterministic", "the same config and seed gave different items",
                       "draw every random choice from a generator seeded by `seed`")  # fmt: skip
    yield from _describe(task, config, made.stats)
    yield from _config_yaml(task, config)
    yield from _judging(task, made.items[:50])
    yield from _weights(task)
    if isinstance(task, ItemCodec):
        yield from _codec(task, made.items[:20])


NOT_ITEMS = ("", "{}", "[]", "null", "not an item", '{"id": 1}')
"""Texts no task's item is written as: decoding each must raise ValueError."""


def _codec(codec: ItemCodec[Any], items: Sequence[Any]) -> Iterator[ConformanceProblem]:
    """Items survive their text, and text that is no item is refused, not half-read."""
    try:
        for item in items:
            text = codec.encode_item(item)
            if codec.encode_item(item) != text:
                yield _problem("codec", "the same item gave two texts",
                               "write an item's text from its content alone")  # fmt: skip
                return
            back = codec.decode_item(text)
            if back != item or codec.encode_item(back) != text:
                yield _problem("codec", f"an item did not survive its text ({text[:80]!r})",
                               "write every field the item holds, and read it back")  # fmt: skip
                return
    except Exception as err:
        yield _crash("codec", err, "encoding an item and decoding its text must not raise")
        return
    for text in NOT_ITEMS:
        try:
            codec.decode_item(text)
        except ValueError:
            continue
        except Exception as err:
            yield _crash("codec", err, f"raise ValueError for text that is no item ({text!r})")
            return
        yield _problem("codec", f"decoding {text!r} gave an item",
                       "refuse with ValueError text that holds no item")  # fmt: skip
        return


def _config_yaml(task: Task[Any, Any], config: BaseModel) -> Iterator[ConformanceProblem]:
    fix = "write every field, so that config_model reads the text back to the same config"
    try:
        text = task.config_yaml(config)
        back = task.config_model.model_validate(load_mapping(text, "config_yaml"))
    except Exception as err:
        yield _crash("config_yaml", err, fix)
        return
    if back != config:
        yield _problem("config_yaml", "the configuration read back from its YAML differs", fix)


def _describe(
    task: Task[Any, Any], config: BaseModel, stats: BaseModel
) -> Iterator[ConformanceProblem]:
    yield from _texts(task, {"config": lambda: task.describe_config(config),
                             "stats": lambda: task.describe_stats(stats)})  # fmt: skip


def _texts(
    task: Task[Any, Any], renders: Mapping[str, Callable[[], object]]
) -> Iterator[ConformanceProblem]:
    """Each of the task's texts for an LLM designer renders, and is not empty."""
    for what, render in renders.items():
        name = "report_headline" if what == "headline" else f"describe_{what}"
        try:
            text = render()
        except Exception as err:
            yield _crash("describe", err)
            continue
        if not isinstance(text, str) or not text.strip():
            yield _problem("describe", f"{name} gave {text!r}",
                           "return the text an LLM designer reads")  # fmt: skip


def _judging(task: Task[Any, Any], items: Iterable[Any]) -> Iterator[ConformanceProblem]:
    for item in items:
        reference = task.reference_answer(item)
        answers = [*HOSTILE_ANSWERS, *([reference] if reference is not None else [])]
        for answer in answers:
            try:
                verdict = task.judge(item, answer)
                paid = task.reward(item, answer, valid_rate=0.5)
            except Exception as err:
                yield _crash(
                    "judge",
                    err,
                    f"judge and reward must take any text ({answer[:20]!r}"
                    "...): an answer they cannot read is a failure type",
                )
                return
            yield from _verdict_problems(task, verdict)
            low, high = task.reward_bounds
            if not (isinstance(paid, int | float) and low <= paid <= high):
                yield _problem("reward", f"reward {paid!r} outside {task.reward_bounds}",
                               "keep the reward within reward_bounds")  # fmt: skip
        if reference is not None and not (verdict.valid and verdict.score == 1.0):
            yield _problem("reference", f"the reference answer judged {verdict}",
                           "judge the task's own reference answer valid with score 1")  # fmt: skip


def _weights(task: Task[Any, Any]) -> Iterator[ConformanceProblem]:
    for rate in (0.0, 0.5, 1.0):
        try:
            weight = task.accuracy_weight(rate)
        except Exception as err:
            yield _crash("reward", err)
            return
        if not (isinstance(weight, int | float) and 0.0 <= weight <= 1.0):
            yield _problem("reward", f"accuracy_weight({rate}) gave {weight!r}",
                           "return the share of the reward that pays correctness, in "
                           "[0, 1]")  # fmt: skip


def _verdict_problems(task: Task[Any, Any], verdict: Judgement) -> Iterator[ConformanceProblem]:
    if not isinstance(verdict, Judgement):
        yield _problem("judge", f"judge gave a {type(verdict).__name__}", "return a Judgement")
        return
    if not verdict.valid and verdict.failure not in task.failure_types:
        yield _problem("judge", f"failure {verdict.failure!r} is not a failure type",
                       f"use one of {', '.join(task.failure_types)}")  # fmt: skip
    if not set(verdict.optimal) <= set(task.optimal_kinds):
        yield _problem("judge", f"optimal flags {sorted(verdict.optimal)} are not optimal kinds",
                       f"use only {', '.join(task.optimal_kinds) or 'none'}")  # fmt: skip
    if not (isinstance(verdict.score, int | float) and 0.0 <= verdict.score <= 1.0):
        yield _problem("judge", f"score {verdict.score!r} outside [0, 1]",
                       "grade answers from 0 to 1")  # fmt: skip


def _knobs(task: Task[Any, Any], config: BaseModel) -> Iterator[ConformanceProblem]:
    dumped = config.model_dump(mode="json")
    for knob in task.knobs():
        paths = list(_expand(dumped, knob.path.split(".")))
        if not paths:
            yield _problem("knobs", f"knob {knob.path!r} names nothing in the configuration",
                           "declare knobs by their dotted path in the config")  # fmt: skip
            continue
        yield from _arms(task, config, knob)
        if knob.share:
            continue  # shares are renormalised together, so one alone has no bound to test
        yield from _bounded(task, config, knob, paths[0])


def _arms(task: Task[Any, Any], config: BaseModel, knob: Knob) -> Iterator[ConformanceProblem]:
    """What the teachers read of a knob: which way it is harder, and for a share over a table
    that declares a cut, a cell for each value of that cut the validation suite holds (the
    arms, named as reports name them through `cut_value`)."""
    if knob.harder not in (None, "up", "down"):
        yield _problem("knobs", f"knob {knob.path!r} is harder {knob.harder!r}",
                       "declare harder='up' (higher is harder), 'down', or None")  # fmt: skip
    if knob.cut is None:
        return
    parts = knob.path.split(".")
    if not knob.share or knob.cut not in task.cuts or parts.count("*") != 1:
        yield _problem("knobs", f"knob {knob.path!r} declares cut {knob.cut!r}",
                       "declare a cut only on a share knob over one table (one * in its path), "
                       f"naming one of the cuts {list(task.cuts)}")  # fmt: skip
        return
    try:
        table: Any = config.model_dump()
        for key in parts[: parts.index("*")]:
            table = table[key]
        arms = {knob.cut_value(key) for key in table}
        held = {it.cuts[knob.cut] for it in task.suite(task.validation_suite).items}
    except Exception as err:
        yield _crash("knobs", err)
        return
    if missing := sorted(held - arms):
        yield _problem(
            "knobs",
            f"the validation suite's {knob.cut} values {missing[:3]} name no key of {knob.path!r}",
            "make cut_value turn each key of the table into the value the items carry "
            "(MAPF-FrozenLake: 3 -> '3x3')",
        )


def _expand(
    data: Any, parts: Sequence[str], done: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    if not parts:
        yield done
        return
    if not isinstance(data, Mapping):
        return
    keys = list(data) if parts[0] == "*" else [parts[0]] if parts[0] in data else []
    for key in keys:
        yield from _expand(data[key], parts[1:], (*done, str(key)))


def _bounded(
    task: Task[Any, Any], config: BaseModel, knob: Knob, path: tuple[str, ...]
) -> Iterator[ConformanceProblem]:
    for value in (knob.high + 1.0, knob.low - 1.0):
        draft: dict[str, Any] = {}
        cursor = draft
        for part in path[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[path[-1]] = value
        try:
            got: Any = task.project(config, draft).config.model_dump(mode="json")
        except (ConfigError, ValidationError):
            continue  # refusing an out-of-bounds value outright also keeps it out
        except Exception as err:
            yield _crash("knobs", err)
            return
        for part in path:
            got = got[part]
        if not knob.low - 1e-9 <= got <= knob.high + 1e-9:
            yield _problem(
                "knobs",
                f"{'.'.join(path)} = {value} projected to {got}, outside [{knob.low}, {knob.high}]",
                "clip each knob to its bounds in project",
            )
            return


def _suite(task: Task[Any, Any], name: str, judged: int) -> Iterator[ConformanceProblem]:
    try:
        suite: Suite[Any] = task.suite(name)
        checksum = task.checksum(suite)
    except Exception as err:
        yield _crash("suites", err)
        return
    if checksum != suite.checksum:
        yield _problem(
            "suites",
            f"content checksum {checksum[:12]} is not the shipped {suite.checksum[:12]}",
            "rebuild the suite or restore its files",
        )
    missing = sorted({c for it in suite.items for c in task.cuts if c not in it.cuts})
    if missing:
        yield _problem("suites", f"items lack the cuts {', '.join(missing)}",
                       "give every suite item a value for every cut")  # fmt: skip
    if len({it.id for it in suite.items}) != len(suite.items):
        yield _problem("suites", "two items share an id", "give every suite item its own id")
    yield from _judging(task, [it.item for it in suite.items[:judged]])
    if not missing:
        yield from _records(task, replace(suite, items=suite.items[:judged]))


def _records(task: Task[Any, Any], suite: Suite[Any]) -> Iterator[ConformanceProblem]:
    """The validation report and the suite result of reference (or empty) answers are the
    task's models and read back from their JSON equal, as run records must."""
    answers = [task.reference_answer(it.item) or "" for it in suite.items]
    made: dict[str, tuple[type[BaseModel], Callable[[], object]]] = {
        "report": (task.report_model, lambda: task.report(suite.items, answers)),
        "score_suite": (task.result_model,
                        lambda: task.score_suite(suite, answers, [[a] for a in answers], 1)),
    }  # fmt: skip
    for what, (model, make) in made.items():
        fix = f"return a {getattr(model, '__name__', model)} ({what}'s declared model) whose "
        fix += "JSON reads back equal"
        try:
            value = make()
            same = isinstance(value, model) and model.model_validate_json(value.model_dump_json())
        except Exception as err:
            yield _crash("records", err, fix)
            continue
        if not isinstance(value, model) or same != value:
            yield _problem("records", f"{what} gave {type(value).__name__}", fix)
            continue
        yield from _rates(task, what, value, len(answers))
        if what == "score_suite":
            yield from _board(task, value, suite)
        if what == "report":
            yield from _texts(task, {"report": partial(task.describe_report, value),
                                     "headline": partial(task.report_headline, value)})  # fmt: skip


def _board(task: Task[Any, Any], result: Any, suite: Suite[Any]) -> Iterator[ConformanceProblem]:
    """What a board reads of a suite result: it holds together (`result_problem`), and its
    verdict table has every item once with its cuts, validity first among the rates."""
    fix = "read the result_model's verdicts (tasks.CutRecords has result_problem, verdict_table)"
    try:
        problem = task.result_problem(result)
        table = task.verdict_table(result)
        rates = [r.key for r in task.board_rates]
    except Exception as err:
        yield _crash("boards", err, fix)
        return
    if problem is not None:
        yield _problem("boards", f"a freshly scored suite reads as damaged: {problem}", fix)
    elif sorted(table.ids) != sorted(it.id for it in suite.items) or list(table.ids) != sorted(
        table.ids
    ):
        yield _problem("boards", "the verdict table does not hold each item once, in id order",
                       fix)  # fmt: skip
    elif list(table.cuts) != list(task.cuts) or rates[:1] != ["valid"]:
        cuts = list(task.cuts)
        yield _problem("boards", f"the table's cuts are {list(table.cuts)}, its rates {rates}",
                       f"give the task's cuts {cuts} in order, and 'valid' first")  # fmt: skip


def _rates(task: Task[Any, Any], what: str, value: Any, n: int) -> Iterator[ConformanceProblem]:
    """The summaries' rates of a report or suite result: they count every answer, lie in
    [0, 1], and name the task's optimal kinds."""
    fix = f"read the {what} model's counts into Rates (tasks.CutRecords has rates for CutReport)"
    try:
        read = task.rates(value) if what == "report" else task.suite_rates(value)
    except Exception as err:
        yield _crash("records", err, fix)
        return
    overall = read.overall
    shares = [overall.valid_rate, overall.score, *(v for v in overall.optimal.values() if v)]
    if overall.n != n or not all(0.0 <= r <= 1.0 for r in shares):
        yield _problem("records", f"{what}'s rates are {overall}, for {n} answers", fix)
    elif {k.lower() for k in overall.optimal} != {k.lower() for k in task.optimal_kinds}:
        yield _problem("records", f"{what}'s rates name optima {sorted(overall.optimal)}",
                       f"name the task's optimal_kinds {list(task.optimal_kinds)}")  # fmt: skip
    elif task.reward_optimum is not None and task.reward_optimum not in overall.optimal:
        yield _problem("records", f"reward_optimum {task.reward_optimum!r} is not among the "
                       f"rates' optima {sorted(overall.optimal)}",
                       "name it as Rates.optimal does, or None for a reward of validity "
                       "alone")  # fmt: skip
