"""The GPU extras of pyproject.toml install the package sets harness/backends/verl/versions.py
declares.

The backend and ``harness doctor`` judge a machine by versions.py, while a user gets what the
extras pin: the two are written in two places, so these tests hold them equal. They also hold
the rule that keeps pip's resolution of an extra prompt and repeatable (``.ci/gpu-resolve``
checks the resolution itself): beside a line's own set every requirement is an exact pin, Ray
alone following the ``ray`` extra's range, and none carries a marker that could drop it on some
machine without a word.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import NormalizedName, canonicalize_name

from harness.backends.verl.versions import SUPPORTED, VersionSet

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
LITELLM = "==1.106.2"
"""The one LiteLLM release the project installs (1.82.7, 1.82.8 and 1.107.0 were compromised)."""
FOLLOWS_RAY_EXTRA = canonicalize_name("ray")


def project() -> dict[str, list[Requirement]]:
    """The project's dependencies (under "") and each extra's, parsed."""
    table = tomllib.loads(PYPROJECT.read_text())["project"]
    groups: dict[str, list[str]] = {"": table["dependencies"], **table["optional-dependencies"]}
    return {name: [Requirement(r) for r in reqs] for name, reqs in groups.items()}


def by_name(requirements: list[Requirement]) -> dict[NormalizedName, Requirement]:
    named = {canonicalize_name(r.name): r for r in requirements}
    assert len(named) == len(requirements), f"a package is listed twice: {requirements}"
    return named


def line_set(line: VersionSet) -> dict[NormalizedName, SpecifierSet]:
    return {canonicalize_name(n): SpecifierSet(s) for n, s in line.packages.items()}


@pytest.mark.parametrize("line", SUPPORTED, ids=lambda line: line.extra)
def test_each_lines_extra_pins_its_set(line: VersionSet) -> None:
    extra = by_name(project()[line.extra])
    pinned = {name: extra[name].specifier for name in line_set(line) if name in extra}
    assert pinned == line_set(line), f"pyproject's {line.extra} extra and versions.py differ"


@pytest.mark.parametrize("name", [s.extra for s in SUPPORTED] + ["flash"])
def test_the_rest_of_a_gpu_extra_is_exact_pins(name: str) -> None:
    groups = project()
    own = next((line_set(s) for s in SUPPORTED if s.extra == name), {})
    ray_range = by_name(groups["ray"])[FOLLOWS_RAY_EXTRA]
    for package, requirement in by_name(groups[name]).items():
        assert requirement.marker is None, f"{name}: {requirement} is left out where it fails"
        if package in own:
            continue
        if package == FOLLOWS_RAY_EXTRA:
            assert str(requirement) == str(ray_range), f"{name}: Ray differs from the ray extra"
            continue
        (only,) = requirement.specifier
        assert only.operator == "==", f"{name}: {requirement} floats; pin it to one release"


def test_the_current_extra_installs_verl_through_its_own_vllm_extra() -> None:
    """verl 0.9's trainer imports TransferQueue, which only verl's vllm/verl-core extras bring."""
    current = next(s for s in SUPPORTED if s.line == "0.9")
    verl = by_name(project()[current.extra])[canonicalize_name("verl")]
    assert verl.extras == {"vllm"}


@pytest.mark.parametrize("line", SUPPORTED, ids=lambda line: line.extra)
def test_the_flash_extra_is_each_lines_flash_attn(line: VersionSet) -> None:
    flash = by_name(project()["flash"])
    assert set(flash) == {canonicalize_name("flash-attn")}
    assert str(flash[canonicalize_name("flash-attn")].specifier) == f"=={line.flash_attn}"


def test_litellm_is_pinned_to_one_release_wherever_it_is_listed() -> None:
    listed = {
        group: by_name(requirements)[canonicalize_name("litellm")]
        for group, requirements in project().items()
        if canonicalize_name("litellm") in by_name(requirements)
    }
    assert {"dev", "api"} <= set(listed)
    assert {group: str(r.specifier) for group, r in listed.items()} == dict.fromkeys(
        listed, LITELLM
    )
