"""What a result bundle holds, as its `manifest.json` says: runs, suites, files, code version.

A bundle travels from someone whose numbers nobody has to trust, so the manifest is the one
place that says what is inside: every member's sha256 and size (the reader refuses members
it does not list), the runs by their run-directory name, the benchmark suites the answers
were scored on (name, version, content checksum), and the package version and git commit of
the code that made the bundle. Member and run names are plain relative paths of
`[A-Za-z0-9._-]` parts, so no name can point outside the directory a bundle is unpacked into.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from run_records import POLICIES_DIR, ResultRecord, safe_name

BUNDLE_FORMAT = 1
"""The bundle layout's version; a reader refuses another one."""
MANIFEST_FILE = "manifest.json"
RUNS_DIR = "runs"
"""Members of run `<name>` live under `runs/<name>/`, as in the run directory."""

_PART = re.compile(r"[A-Za-z0-9._-]{1,200}")
MAX_NAME_CHARS = 1000


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a member or run name (absolute, `..`, odd characters), or None."""
    if not name or len(name) > MAX_NAME_CHARS:
        return "is empty or too long"
    if name.startswith("/"):
        return "is an absolute path"
    parts = name.split("/")
    if any(part in (".", "..") for part in parts):
        return "climbs out of the bundle (a '.' or '..' part)"
    if not all(_PART.fullmatch(part) for part in parts):
        return "has a character other than letters, digits, '.', '_', '-' and '/' separators"
    return None


def run_name(record: ResultRecord, directory: str) -> str:
    """The run's directory name on a board: the run directory layout of `harness compare`
    (`<experiment>/<designer>/seed-<n>`), or `policies/<model>` for a zero-shot policy, whose
    directory name (`directory`) is made from its model."""
    if record.kind == "policy":
        return f"{POLICIES_DIR}/{safe_name(directory)}"
    return f"{safe_name(record.experiment.name)}/{safe_name(record.designer)}/seed-{record.seed}"


class _Named(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BundleFile(_Named):
    """One member: its checksum and size, checked before anything reads it."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)


class BundleRun(_Named):
    """One run in the bundle; its files are the members under `runs/<name>/`."""

    name: str = Field(description="The run's directory name (see `run_name`).")
    kind: Literal["designer", "policy"]
    designer: str
    seed: int
    experiment: str = Field(description="The experiment's name (`zero-shot` for policies).")

    @field_validator("name")
    @classmethod
    def _safe(cls, name: str) -> str:
        problem = name_problem(name)
        if problem is not None:
            raise ValueError(f"run name {name!r} {problem}")
        return name


class BundleSuite(_Named):
    """A benchmark suite the bundle's answers were scored on."""

    name: str
    version: int
    content_sha256: str


class BundleManifest(_Named):
    """`manifest.json`: everything needed to check a bundle before trusting any of it."""

    format_version: int = Field(description="The bundle layout's version (BUNDLE_FORMAT).")
    package_version: str = Field(description="envdesign-bench version that made the bundle.")
    git_commit: str = Field(description="Commit of the code that made the bundle.")
    runs: tuple[BundleRun, ...]
    suites: tuple[BundleSuite, ...]
    files: dict[str, BundleFile] = Field(
        description="Every member but the manifest, by its path in the bundle."
    )

    @field_validator("files")
    @classmethod
    def _safe_members(cls, files: dict[str, BundleFile]) -> dict[str, BundleFile]:
        for name in files:
            problem = name_problem(name)
            if problem is not None:
                raise ValueError(f"member {name!r} {problem}")
        return files

    @model_validator(mode="after")
    def _every_member_in_one_run(self) -> BundleManifest:
        """Runs named once, none inside another, and every member inside one of them (set
        lookups of each name's leading parts: linear in the manifest, however hostile)."""
        names = {run.name for run in self.runs}
        if len(names) != len(self.runs):
            raise ValueError("a run is listed twice")
        for name in names:
            inside = _leading(name.split("/")) & names
            if inside:
                raise ValueError(f"run {name} lies inside run {min(inside)}")
        for member in self.files:
            parts = member.split("/")
            if parts[0] != RUNS_DIR or not _leading(parts[1:]) & names:
                raise ValueError(f"member {member} belongs to none of the manifest's runs")
        return self

    def run_files(self, run: BundleRun) -> dict[str, BundleFile]:
        """The members of `run`, by their path relative to its run directory."""
        prefix = f"{RUNS_DIR}/{run.name}/"
        return {k.removeprefix(prefix): v for k, v in self.files.items() if k.startswith(prefix)}


def _leading(parts: list[str]) -> set[str]:
    """Every proper leading path of `parts` (`a`, `a/b` of `a/b/c`)."""
    return {"/".join(parts[:n]) for n in range(1, len(parts))}
