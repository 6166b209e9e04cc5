"""The documentation builds as a site with no warning, its generated reference lists what the
registries hold, and the README leads into it.

The build is MkDocs in strict mode (`mkdocs.yml` also turns every link, anchor and navigation
check into a warning), so a broken link, a missing anchor or a page left out of the navigation
fails here as it fails in CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from designers import describe_designers
from harness.backends.registry import describe_backends
from harness_cli.registry_page import registry_markdown
from tasks import describe_tasks
from tests.doc_blocks import README, ROOT

README_LINES = 200
"""The README is the front door: what it is, the two commands, a screen per topic, links."""


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's notice of its successor
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert not warnings, warnings
    page = (tmp_path / "site" / "reference" / "registry" / "index.html").read_text("utf-8")
    assert "VerlSettings" in page and "mapf-frozenlake-v2" in page


def test_the_reference_lists_every_registered_plug_in() -> None:
    page = registry_markdown()
    for name in [*describe_designers(), *describe_backends(), *describe_tasks()]:
        assert f"`{name}`" in page, f"{name} is registered but not on the reference page"
    assert "| `hole_ratio` |" not in page  # knobs by path, as a designer writes them
    assert "| `sizes.*.hole_ratio` | 0..0.5 (number, harder up) |" in page
    assert "| `temperature` | float \\| None |" in page  # a union escaped inside its cell
    assert "llm:&lt;model string&gt;" in page  # text, not a tag the browser drops
    for value in ("size 3x3", "size 10x10", "dataset word_sorting"):  # a validation item per arm
        assert f'??? example "{value}: `' in page, value


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", text)
    assert links, "the README links into the documentation"
    missing = sorted({link for link in links if not (ROOT / link).is_file()})
    assert not missing, f"README links to pages that do not exist: {missing}"
    for start in ("docs/getting-started/index.md", "docs/designers/write-a-designer.md",
                  "docs/backends/trl.md", "docs/boards/site.md"):  # fmt: skip
        assert start in links, f"the README does not lead to {start} in one click"
