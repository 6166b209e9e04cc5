"""The README's code blocks, read from README.md itself, so the tests that run them cannot drift."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_blocks(heading: str) -> list[tuple[str, str]]:
    """The fenced code blocks, as (language, text), of the README section under `heading`."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert heading in lines, f"README.md has no line {heading!r}"
    blocks: list[tuple[str, str]] = []
    language: str | None = None
    body: list[str] = []
    for line in lines[lines.index(heading) + 1 :]:
        if language is None and line.startswith("#"):
            break  # the next heading ends the section
        if line.startswith("```"):
            if language is None:
                language, body = line.removeprefix("```").strip(), []
            else:
                blocks.append((language, "\n".join(body) + "\n"))
                language = None
        elif language is not None:
            body.append(line)
    return blocks
