"""MkDocs hook: the reference page of every registered designer, backend and task, generated
from the installed registries at build time (`harness_cli.registry_page`)."""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from harness_cli.registry_page import registry_markdown

PAGE = "reference/registry.md"


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, PAGE, content=registry_markdown()))
    return files
