"""The documentation's code blocks, read from its pages themselves, so the tests that run them
cannot drift from what a reader copies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.designers.plugins import installed_plugin_package

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
RUNNABLE = "<!-- runnable -->"
"""The line before a fenced block that `tests/docs/test_runnable_blocks.py` runs as it stands."""

_FENCE = re.compile(r"^```(\w*)")


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its text, and whether it is marked
    runnable."""

    page: Path
    line: int
    language: str
    text: str
    runnable: bool

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def page_blocks(page: Path) -> list[Block]:
    """Every fenced code block of `page`, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    opened: tuple[int, str] | None = None
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        fence = _FENCE.match(line)
        if opened is None and fence:
            opened, body = (number, fence.group(1)), []
        elif opened is not None and line.startswith("```"):
            start, language = opened
            runnable = start >= 2 and lines[start - 2].strip() == RUNNABLE
            blocks.append(Block(page, start, language, "\n".join(body) + "\n", runnable))
            opened = None
        elif opened is not None:
            body.append(line)
    return blocks


def runnable_blocks() -> list[Block]:
    """Every block the README and the documentation mark runnable."""
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    return [block for page in pages for block in page_blocks(page) if block.runnable]


def doc_blocks(page: str) -> list[tuple[str, str]]:
    """The fenced code blocks, as (language, text), of the documentation page `page` (a path
    under docs/)."""
    return [(block.language, block.text) for block in page_blocks(DOCS / page)]


@contextmanager
def installed_doc_plugin(page: str, folder: Path, module: str) -> Iterator[list[tuple[str, str]]]:
    """The page's blocks, with the plug-in package they show (its one Python module with a
    class, named `module`, and its pyproject.toml) pip-installed from them under `folder`."""
    found = doc_blocks(page)
    [code] = [text for language, text in found if language == "python" and "class " in text]
    [pyproject] = [text for language, text in found if language == "toml"]
    source = folder / "package"
    source.mkdir(parents=True)
    (source / f"{module}.py").write_text(code, encoding="utf-8")
    (source / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    with installed_plugin_package(source, folder / "site", [module]):
        yield found
