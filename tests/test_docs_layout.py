"""The architecture page's layout names every top-level package and folder, and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def layout_names() -> set[str]:
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    return {m.group(1) for m in re.finditer(r"^([\w./-]+)/\s", block, flags=re.MULTILINE)}


def test_every_package_is_in_the_layout_and_every_entry_exists() -> None:
    named = layout_names()
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages <= named, f"add {sorted(packages - named)} to the Layout of {PAGE.name}"
    missing = sorted(name for name in named if not (ROOT / name).is_dir())
    assert not missing, f"the Layout of {PAGE.name} names folders that do not exist: {missing}"
