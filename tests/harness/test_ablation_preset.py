"""The context-ablation preset end to end: one LLM designer under V1..V6 and V6+details.

`harness compare --preset ablation_context` runs against the scripted OpenAI-compatible server
(a real HTTP server on 127.0.0.1, reached through LiteLLM) at a tiny budget, then `harness
leaderboard show` reads the runs. Every entry (``gpt@V3``) is its own run, record and board
row; the server tells the runs apart by the key each entry's own options name, so the checks
below read what the server received, not what the designer says it sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers import DesignerEntry, create_designer, parse_entry
from harness.experiment import ExperimentConfig
from harness.loop import designer_options
from harness.presets import resolve_preset
from harness.run_dir import RunDir
from harness_cli import app
from run_records import ResultRecord, RoundResult
from tests.designers.openai_server import FAST, Received, ScriptedServer

runner = CliRunner()
ENTRIES = ["gpt@V1", "gpt@V2", "gpt@V3", "gpt@V4", "gpt@V5", "gpt@V6", "gpt@V6+details"]
TINY = ["--seeds", "1", "--set", "rounds=3", "--set", "samples_per_round=40",
        "--set", "epochs_per_round=1", "--set", "benchmarks=[validation]",
        "--set", "best_of=1"]  # fmt: skip
SUMMARY_ASK = "Write a summary of this round"
SECTIONS = {
    "F": "## Validation results",
    "G": "## Guidelines",
    "H": "## History of earlier rounds",
    "S": "## Your summary of the previous round",
    "T": "## Training",
}


Ran = tuple[Path, list[Received], str]
"""The runs root, the requests the server received, the command's output."""


def key_variable(entry: str) -> str:
    return "ABLATION_KEY_" + entry.split("@")[1].replace("+", "_").upper()


def user_text(request: Received) -> str:
    return str(request.body["messages"][-1]["content"])


def entry_of(request: Received) -> str:
    """The entry whose key the request carried (each entry names its own variable)."""
    auth = next(v for k, v in request.headers.items() if k.lower() == "authorization")
    return next(e for e in ENTRIES if auth == f"Bearer key-{key_variable(e)}")


def training_lines(prompt: str) -> list[str]:
    """The lines of the T section (empty when the prompt has none)."""
    if SECTIONS["T"] not in prompt:
        return []
    body = prompt.split(SECTIONS["T"], 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("- ")]


@pytest.fixture(scope="module")
def ablation(
    tmp_path_factory: pytest.TempPathFactory, _server_process: ScriptedServer
) -> Iterator[Ran]:
    """The preset run once through the real CLI at the tiny budget: (runs root, the requests
    the server received, the command's output)."""
    server = _server_process
    server.reset()
    server.responder = lambda body: (
        "7x7 still lags on conflicts; next round should tell whether the shift helped."
        if SUMMARY_ASK in str(body["messages"][-1]["content"])
        else None  # analysis: the default scripted answer, a valid change set
    )
    options: dict[str, dict[str, object]] = {"gpt": {**FAST, "api_base": server.base_url}}
    out = tmp_path_factory.mktemp("ablation") / "runs"
    with pytest.MonkeyPatch.context() as env:
        for entry in ENTRIES:  # under the whole entry: overrides what the bare name gives
            env.setenv(key_variable(entry), f"key-{key_variable(entry)}")
            options[entry] = {"api_key_env": key_variable(entry)}
        result = runner.invoke(
            app,
            ["compare", "--preset", "ablation_context", "--out", str(out), "--quiet", *TINY,
             "--set", f"designer_options={json.dumps(options)}"],
            env={"COLUMNS": "200"},
        )  # fmt: skip
    requests = list(server.requests)
    server.reset()
    assert result.exit_code == 0, result.output
    yield out, requests, result.output


@pytest.mark.e2e
def test_every_variant_is_its_own_run_and_board_row(
    ablation: Ran,
) -> None:
    out, _, output = ablation
    experiment = ExperimentConfig.load(resolve_preset("ablation_context"))
    assert list(experiment.designers) == ENTRIES and len(experiment.seeds) == 3
    for entry in ENTRIES:
        run = RunDir(out, experiment, entry, 0)
        record = ResultRecord.model_validate_json((run.path / "result.json").read_text())
        assert record.designer == entry and record.design_failures() == []
        assert entry in output  # the comparison table names each entry
    assert {p.name for p in (out / "ablation_context").iterdir()} == {
        "gpt_V1", "gpt_V2", "gpt_V3", "gpt_V4", "gpt_V5", "gpt_V6", "gpt_V6_details"
    }  # fmt: skip
    board = runner.invoke(app, ["leaderboard", "show", str(out), "--format", "json"])
    assert board.exit_code == 0, board.output
    rows = json.loads(board.output)["rows"]
    assert sorted(row["designer"] for row in rows) == sorted(ENTRIES)
    assert all(row["seeds"] == [0] for row in rows)
    shown = runner.invoke(app, ["leaderboard", "show", str(out), "--format", "markdown"])
    assert shown.exit_code == 0 and all(f"| {e} " in shown.output for e in ENTRIES), shown.output


@pytest.mark.e2e
def test_the_server_saw_each_variants_context(ablation: Ran) -> None:
    out, requests, _ = ablation
    analyses: dict[str, list[str]] = {entry: [] for entry in ENTRIES}
    summaries = {entry: 0 for entry in ENTRIES}
    for request in requests:
        text = user_text(request)
        if SUMMARY_ASK in text:
            summaries[entry_of(request)] += 1
        else:
            analyses[entry_of(request)].append(text)
    assert all(len(prompts) == 2 for prompts in analyses.values()), analyses  # rounds 0 and 1
    assert summaries == {e: 2 if e in ("gpt@V5", "gpt@V6", "gpt@V6+details") else 0
                         for e in ENTRIES}  # fmt: skip
    later = {entry: prompts[1] for entry, prompts in analyses.items()}  # after round 1
    expected = {"gpt@V1": "F", "gpt@V2": "FG", "gpt@V3": "FGH", "gpt@V4": "FG",
                "gpt@V5": "FGS", "gpt@V6": "FGST", "gpt@V6+details": "FGST"}  # fmt: skip
    for entry, modules in expected.items():
        present = {m for m, heading in SECTIONS.items() if heading in later[entry]}
        assert present == set(modules), (entry, present)
    assert "### Round 0" in later["gpt@V3"]  # V3 keeps round 0's default; V4 leaves it out
    bookkeeping = training_lines(later["gpt@V6"])
    assert bookkeeping == ["- finished round: 1 of 3", "- RL epochs trained this round: 1"]
    details = training_lines(later["gpt@V6+details"])
    assert details[:3] == [*bookkeeping, "- training samples: 40"]
    experiment = ExperimentConfig.load(resolve_preset("ablation_context"))
    run = RunDir(out, experiment, "gpt@V6+details", 0)
    round_one = RoundResult.model_validate_json((run.round_path(1) / "round.json").read_text())
    assert round_one.training is not None  # the cpu backend's numbers of that round
    keys = [line.split(":", 1)[0].removeprefix("- ") for line in details[3:]]
    assert keys == sorted(round_one.training.as_details())  # every RL detail, nothing else


def test_options_under_the_bare_name_apply_to_every_variant_and_entries_override() -> None:
    experiment = ExperimentConfig.from_mapping({
        "designers": ["gpt@V2", "gpt@V6+details", "gpt"],
        "variant": "V4",
        "designer_options": {"gpt": {"max_attempts": 2, "timeout_s": 9},
                             "gpt@V2": {"max_attempts": 5}},
    })  # fmt: skip
    assert designer_options(experiment, "gpt@V2") == {"max_attempts": 5, "timeout_s": 9}
    assert designer_options(experiment, "gpt@V6+details") == {"max_attempts": 2, "timeout_s": 9}
    assert designer_options(experiment, "gpt")["variant"] == "V4"  # no suffix: the experiment's
    built = {e: create_designer(e, **designer_options(experiment, e)) for e in experiment.designers}
    variants = {e: d.options.variant for e, d in built.items()}  # type: ignore[attr-defined]
    assert {e: (v.name, v.training_details) for e, v in variants.items()} == {
        "gpt@V2": ("V2", False), "gpt@V6+details": ("V6", True), "gpt": ("V4", False)
    }  # fmt: skip
    assert built["gpt@V2"].options.max_attempts == 5  # type: ignore[attr-defined]


def test_a_model_string_keeps_its_own_at_sign() -> None:
    dated = "llm:vertex_ai/claude-3-5@20240620"
    assert parse_entry(dated) == DesignerEntry(entry=dated, spec=dated)
    assert parse_entry(f"{dated}@V6+details") == DesignerEntry(
        entry=f"{dated}@V6+details", spec=dated, variant="V6", training_details=True
    )
    with pytest.raises(ValueError, match="did you mean llm:openai/x@V2"):
        parse_entry("llm:openai/x@v2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--designers", "random@V3"],
         "designer 'random' reads no context variant, so it takes no '@V3' suffix; write random"),
        (["--designers", "gpt@v3"], "unknown context variant 'v3'"),
        (["--designers", "gpt@v3"], "did you mean gpt@V3?"),
        (["--designers", "gpt@V6+detail"], "did you mean gpt@V6+details?"),
        (["--designers", "gpt@V7"], "the suffixes are V1, V2, V3, V4, V5, V6, V6+details"),
        (["--designers", "gpt@V3+details"], "which only V6 has; write gpt@V3 or gpt@V6+details"),
        (["--designers", "gpt@V3,random,gpt@V3"], "'gpt@V3' named more than once"),
        (["--designers", "gpt@V3", "--set", "designer_options={gpt: {variant: V2}}"],
         "designer_options.gpt@V3.variant: 'V2' contradicts the entry's suffix '@V3'"),
        (["--designers", "gpt@V3", "--set", "designer_options={gpt@V4: {}}"],
         "designer_options.gpt@V4: no designer 'gpt@V4' in this comparison"),
        (["--designers", "gpt@V3", "--set", "designer_options={gpt: {max_atempts: 2}}"],
         "designer_options.gpt.max_atempts: not a field"),
        (["--designers", "llm:openai/a_b,llm:openai_a/b"], "would share the run directory"),
        (["--preset", "ablation_context", "--set", "variant=V9"], "no context variant 'V9'"),
    ],
)  # fmt: skip
def test_bad_entries_are_refused_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["compare", *args, "--out", str(tmp_path / "runs"), "--dry-run"],
                           env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output, result.output
    assert not (tmp_path / "runs").exists()


def test_compare_without_designers_or_seeds_runs_the_presets_own(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "--preset", "ablation_context", "--dry-run",
                                 "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    planned = [line for line in result.output.splitlines() if " / seed " in line]
    assert planned == [f"{entry} / seed {seed}" for entry in ENTRIES for seed in (0, 1, 2)]
