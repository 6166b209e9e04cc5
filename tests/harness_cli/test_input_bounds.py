"""Inputs that pass a loose check but cannot work -- they would fail later, or hang: each is
refused in one line with exit 2 by the real command, before any work, and nothing is written
under --out."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app

runner = CliRunner()
TINY = ["--set", "rounds=1", "--set", "samples_per_round=50", "--set", "benchmarks=[]"]


def one_error_line(args: list[str], stdin: bytes | None = None) -> str:
    """The single line a refused command prints, after checking exit 2 and no traceback."""
    result = runner.invoke(app, args, input=stdin, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert len(lines[0]) < 400
    return lines[0]


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("grpo.learning_rate=.inf", "grpo.learning_rate: not a finite number (got inf)"),
        ("grpo.learning_rate=2", "allowed: 0 < learning_rate <= 1"),
        ("grpo.kl_coef=.nan", "grpo.kl_coef: not a finite number (got nan)"),
        ("grpo.kl_coef=1e9", "allowed: 0 <= kl_coef <= 10"),
        ("best_of=100000", "best_of: out of range (got 100000); allowed: 1 <= best_of <= 64"),
        ("seeds=[-1]", "seeds: each seed must be 0 <= seed < 2**32 (4294967296) (got [-1])"),
        ("seeds=[4294967296]", "each seed must be 0 <= seed < 2**32"),
        ("seeds=[99999999999999999999999]", "each seed must be 0 <= seed < 2**32"),
        (
            "task_settings.n_agents=8",
            "task_settings.n_agents: out of range (got 8); allowed: 1 <= n_agents <= 4",
        ),
        ("name=..", "name: starts with '.' ('.', '..' and hidden names are not run directories)"),
        ("name=.", "name: starts with '.'"),
        ("name=a/b", "name: holds a path separator (/ or \\); it names one directory"),
        ("name=a\\b", "name: holds a path separator"),
        ('name="a\\tb"', "name: holds a control character"),
        ("name=" + "n" * 200, "name: is 200 characters; keep it to 120"),
        ('designers=[random, ".."]', "designers.1: as a run directory it starts with '.'"),
        ("x=" + "[" * 100 + "]" * 100, "value: the YAML is nested more than 64 levels deep"),
    ],
)
def test_each_bad_experiment_value_is_one_line(
    tmp_path: Path, override: str, expected: str
) -> None:
    out = tmp_path / "runs"
    line = one_error_line(["compare", "--designers", "random", *TINY, "--set", override,
                           "--out", str(out)])  # fmt: skip
    assert line.startswith("error: --set "), line
    assert expected in line
    assert not out.exists()
    assert not (tmp_path / "quick").exists()  # nothing written beside --out either


@pytest.mark.parametrize("text", ["", "# only a comment\n", "{}\n"])
def test_an_empty_experiment_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(text)
    line = one_error_line(["run", str(path), "--out", str(tmp_path / "runs")])
    assert line == (
        f"error: {path}: the file sets nothing; an experiment names at least its designers "
        "(designers: [random, hand]); configs/quick.yaml shows every field"
    )


def test_deep_yaml_in_a_file_is_one_line(tmp_path: Path) -> None:
    block = tmp_path / "block.yaml"
    block.write_text("".join(f"{'  ' * i}k{i}:\n" for i in range(200)))
    assert one_error_line(["run", str(block), "--out", str(tmp_path / "runs")]) == (
        f"error: {block}: the YAML is nested more than 64 levels deep; flatten it"
    )
    flow = tmp_path / "flow.yaml"  # past libyaml's own nesting limit: its error, one line
    flow.write_text("name: " + "[" * 5000 + "]" * 5000 + "\n")
    line = one_error_line(["run", str(flow), "--out", str(tmp_path / "runs")])
    assert line.startswith(f"error: {flow}: not valid YAML at line 1")


def test_a_yaml_error_names_the_place_and_never_quotes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "env.yaml"
    path.write_text('samples: 16\nsecret: "sk-do-not-print\nsizes: [\n')
    line = one_error_line(["env", "generate", str(path)])
    assert line.startswith(f"error: {path}: not valid YAML at line ")
    assert "sk-do-not-print" not in line and "secret" not in line


@pytest.mark.parametrize("samples", ["-5", "0", "20000000"])
def test_env_generate_samples_out_of_range(tmp_path: Path, samples: str) -> None:
    out = tmp_path / "data"
    line = one_error_line(["env", "generate", "configs/env/uniform.yaml", "--samples", samples,
                           "--out", str(out)])  # fmt: skip
    assert line == f"error: --samples {samples}: give 1 to 10000000 instances"
    assert not out.exists()


def test_env_generate_with_more_agents_than_a_grid_holds(tmp_path: Path) -> None:
    path = tmp_path / "env.yaml"
    path.write_text(
        Path("configs/env/uniform.yaml").read_text().replace("n_agents: 2", "n_agents: 8")
    )
    line = one_error_line(["env", "generate", str(path), "--samples", "16"])
    assert line == (
        f"error: {path}: 3x3 cannot hold 8 agents (they need 16 distinct cells); set its ratio to 0"
    )


def test_binary_and_directory_inputs_are_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "env.yaml"
    binary.write_bytes(b"samples: 16\n\xff\xfe\x00garbage")
    assert one_error_line(["env", "generate", str(binary)]) == (
        f"error: {binary}: not UTF-8 text (byte 12 of 22); is this the right file?"
    )
    assert one_error_line(["env", "verify", "validation", str(tmp_path)]) == (
        f"error: {tmp_path}: is a directory; name a file"
    )


def test_stdin_past_the_limit_is_refused(tmp_path: Path) -> None:
    line = one_error_line(["env", "verify", "validation", "-"], stdin=b"x" * (5 << 20))
    assert line.startswith("error: stdin: holds more than the 4.0 MB limit")


def test_a_system_file_as_the_hand_schedule_is_one_line_without_its_lines(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\nsvc:x:999:999::/home/svc:/bin/sh\n")
    path = tmp_path / "exp.yaml"
    path.write_text(
        f"name: x\ndesigners: [hand]\ndesigner_options: {{hand: {{schedule: '{passwd}'}}}}\n"
    )
    line = one_error_line(["run", str(path), "--out", str(tmp_path / "runs"), "--dry-run"])
    assert (
        line == f"error: designer 'hand': curriculum {passwd}: a config is a YAML mapping, got str"
    )
    assert "root" not in line.replace(str(tmp_path), "")
