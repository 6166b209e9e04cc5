"""Every code block the README and the documentation mark runnable runs as a reader would run it.

A block is marked by the line ``<!-- runnable -->`` right before its fence. A Python block runs as
a script in a fresh interpreter; a shell block runs line by line (comments dropped) with the
installed `harness` on the PATH; each in a scratch directory, and each must exit 0. What a
block asserts, it asserts here too, so a page that stops being true fails its block.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import RUNNABLE, Block, runnable_blocks

BLOCKS = runnable_blocks()
SHELLS = {"bash", "sh", "shell", "console"}


def _environment() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)  # where this venv's `harness` lives
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "COLUMNS": "160", "NO_COLOR": "1"}  # fmt: skip


def _run(argv: list[str], block: Block, cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        pytest.fail(f"{block.where}: {shlex.join(argv)} exited {done.returncode}\n{tail}")


def test_the_pages_mark_blocks_runnable() -> None:
    """The marker is in use where the pages promise it (a typo in it would silently run nothing)."""
    pages = {block.page.name for block in BLOCKS}
    assert {"mapf-frozenlake.md", "index.md", "reproducibility.md"} <= pages, pages
    assert all(block.language for block in BLOCKS), [b.where for b in BLOCKS if not b.language]


@pytest.mark.parametrize("block", BLOCKS, ids=[block.where for block in BLOCKS])
def test_a_runnable_block_runs(block: Block, tmp_path: Path) -> None:
    if block.language == "python":
        script = tmp_path / "block.py"
        script.write_text(block.text, encoding="utf-8")
        _run([sys.executable, str(script)], block, tmp_path)
        return
    assert block.language in SHELLS, f"{block.where}: {RUNNABLE} on a {block.language} block"
    for line in block.text.splitlines():
        command = line.partition(" #")[0].strip()
        if command and not command.startswith("#"):
            _run(["bash", "-c", command], block, tmp_path)
