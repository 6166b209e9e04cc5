"""The README's code blocks, read from README.md itself, so the tests that run them cannot drift."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.designers.plugins import installed_plugin_package

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


@contextmanager
def installed_readme_plugin(
    heading: str, folder: Path, module: str
) -> Iterator[list[tuple[str, str]]]:
    """The section's blocks, with the plug-in package they show (its one Python module with a
    class, named `module`, and its pyproject.toml) pip-installed from them under `folder`."""
    found = readme_blocks(heading)
    [code] = [text for language, text in found if language == "python" and "class " in text]
    [pyproject] = [text for language, text in found if language == "toml"]
    source = folder / "package"
    source.mkdir(parents=True)
    (source / f"{module}.py").write_text(code, encoding="utf-8")
    (source / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    with installed_plugin_package(source, folder / "site", [module]):
        yield found
