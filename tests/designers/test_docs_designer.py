"""The documentation's "Write a designer" page works as written.

Its code blocks are read from the page itself (no copy to drift from): the designer module and
its pyproject.toml are pip-installed as a plug-in, the Python snippet (`check_designer`) is run,
and every `harness` command shown is run through the real CLI, the comparison at a tiny budget.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers import check_designer, create_designer, sample_contexts
from harness_cli import app
from tests.doc_blocks import installed_doc_plugin

PAGE = "designers/write-a-designer.md"
TINY = ["--seeds", "1", "--quiet", "--set", "rounds=2", "--set", "samples_per_round=40",
        "--set", "epochs_per_round=1", "--set", "benchmarks=[validation]",
        "--set", "best_of=1"]  # fmt: skip
"""One seed and one design step (two rounds) of a few instances: the commands, not the numbers."""


@pytest.fixture
def blocks(tmp_path: Path) -> Iterator[list[tuple[str, str]]]:
    """The page's blocks, with its designer package installed from them."""
    with installed_doc_plugin(PAGE, tmp_path, "weakest_designer") as found:
        yield found


def test_the_documented_designer_conforms_and_does_what_it_says(
    blocks: list[tuple[str, str]],
) -> None:
    [snippet] = [text for language, text in blocks if language == "python" and "class " not in text]
    code = compile(snippet, f"docs/{PAGE}", "exec")
    exec(code, {})  # raises DesignerConformanceError if the designer breaks a rule
    proposals = check_designer(create_designer("weakest"))
    start, mid = sample_contexts()[:2]
    assert proposals[0].config == start.config  # round 0: nothing measured, nothing changed
    before, after = mid.config.sizes, proposals[1].config.sizes
    growth = [after[s].ratio / before[s].ratio for s in sorted(before) if before[s].ratio]
    assert growth == sorted(growth) and growth[0] < 1 < growth[-1]  # valid rate falls with size


def test_the_documented_commands_run_the_designer(
    blocks: list[tuple[str, str]], tmp_path: Path
) -> None:
    lines = [line.partition("#")[0] for language, text in blocks if language == "bash"
             for line in text.splitlines()]  # fmt: skip
    commands = [shlex.split(line) for line in lines if line.strip()]
    harness = [argv[1:] for argv in commands if argv[0] == "harness"]
    assert [argv[:2] for argv in commands if argv[0] != "harness"] == [["pip", "install"]]
    assert [args[:2] for args in harness] == [["designers", "list"], ["designers", "check"],
                                              ["compare", "--designers"]]  # fmt: skip
    for args in harness:
        extra = ["--out", str(tmp_path / "runs"), *TINY] if args[0] == "compare" else []
        result = CliRunner().invoke(app, [*args, *extra], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "weakest" in result.output
    design = tmp_path / "runs" / "quick" / "weakest" / "seed-0" / "round-000" / "round.json"
    proposal = json.loads(design.read_text(encoding="utf-8"))["proposal"]
    assert proposal["designer"] == "weakest" and not proposal["kept_previous"]
    assert proposal["changes"] and proposal["rationale"].startswith("budget toward weak sizes")
