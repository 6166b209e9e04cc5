"""Designers by name: built-ins through the entry-point group, a real plug-in, bad names."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers import (
    DesignerLoadError,
    UnknownDesigner,
    create_designer,
    describe_designers,
    designer_names,
    sample_contexts,
)
from designers import registry as registry_module
from harness_cli import app
from mapf_env import project
from tests.designers.plugins import installed_plugin_package

BUILT_IN = {"random", "uniform", "hand", "evidence", "harder", "matched", "learning-progress",
            "regret", "gpt", "gemini", "grok", "kimi", "claude", "llm", "self", "base"}  # fmt: skip
PLUGIN = Path(__file__).resolve().parent / "plugin_pkg"


def test_every_built_in_is_registered_through_the_entry_point_group() -> None:
    assert designer_names() == sorted(BUILT_IN | set(designer_names()))
    assert set(designer_names()) >= BUILT_IN
    descriptions = describe_designers()
    assert all(descriptions[name] and "broken" not in descriptions[name] for name in BUILT_IN)


def test_unknown_names_suggest_close_ones() -> None:
    with pytest.raises(UnknownDesigner, match="did you mean evidence") as err:
        create_designer("evidnce")
    assert "random" in str(err.value)  # lists what is available
    with pytest.raises(UnknownDesigner, match="no designer 'zzz'"):
        create_designer("zzz")


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[Path]:
    """pip-install the tiny plug-in package from tests/ into a folder put on sys.path."""
    source = tmp_path / "src"
    shutil.copytree(PLUGIN, source)  # pip's build leaves nothing in tests/
    with installed_plugin_package(source, tmp_path / "site", ["echo_designer"]) as target:
        yield target


def test_an_installed_plugin_is_used_by_name(installed_plugin: Path) -> None:
    assert "echo" in designer_names()
    designer = create_designer("echo", flavour="plain")
    ctx = sample_contexts()[1]
    proposal = designer.propose(ctx)
    assert proposal.designer == "echo" and proposal.config == ctx.config
    assert not project(proposal.config).changed
    assert "Plug-in test designer" in describe_designers()["echo"]


def test_a_plugin_declares_its_options_like_the_builtins(installed_plugin: Path) -> None:
    from designers import designer_option_problems
    from designers.options import DesignerOptionsError

    assert designer_option_problems("echo", {"flavour": "salty"}) == []
    [line] = designer_option_problems("echo", {"flavor": "salty"})
    assert line.startswith("designer_options.echo.flavor: not a field") and "'flavour'" in line
    with pytest.raises(DesignerOptionsError, match="flavor"):
        create_designer("echo", flavor="salty")


def test_a_broken_entry_point_names_itself(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist = site / "broken_designer-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-designer\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[harness.designers]\nbroken = no_such_module:Thing\n")
    sys.path.insert(0, str(site))
    registry_module.refresh()
    try:
        with pytest.raises(DesignerLoadError, match=r"broken.*no_such_module"):
            create_designer("broken")
        assert "broken" in describe_designers()["broken"]
    finally:
        sys.path.remove(str(site))
        registry_module.refresh()


def test_cli_lists_every_designer() -> None:
    result = CliRunner().invoke(app, ["designers", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in BUILT_IN:
        assert f" {name} " in result.output


def test_llm_designers_declare_that_they_read_a_context_variant() -> None:
    from designers import takes_context_variant

    assert takes_context_variant("gpt") and takes_context_variant("llm:openai/x")
    assert takes_context_variant("self") and not takes_context_variant("evidence")
