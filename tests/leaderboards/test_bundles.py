"""Result bundles: real runs bundled, verified by re-scoring, merged into a board; and every
way a bundle is refused, each in one line naming what is wrong."""

from __future__ import annotations

import hashlib
import json
import shutil
import stat
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.policy_eval import Sampling, evaluate_policy, resolve_policy
from harness_cli import app
from leaderboards import load_runs
from leaderboards.bundles import (
    MANIFEST_FILE,
    BundleError,
    BundleManifest,
    bundle_runs,
    merge_bundles,
    verify_bundle,
)
from mapf_env import load_suite
from mapf_env.prompt import reference_answer
from run_records import SuiteAnswers, answers_file, decode_answers, encode_answers

runner = CliRunner()
RUN = "quick/random/seed-0"
MEMBER = f"runs/{RUN}"
Members = dict[str, bytes]
Edit = Callable[[Members, dict[str, Any]], None]


@pytest.fixture(scope="module")
def one_run(compare_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle of one run of the tiny comparison (random, seed 0)."""
    out = tmp_path_factory.mktemp("bundle") / "random.zip"
    bundle_runs([compare_root / RUN], out)
    return out


def members(bundle: Path) -> Members:
    with zipfile.ZipFile(bundle) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def write_zip(out: Path, entries: Members, modes: dict[str, int] | None = None) -> Path:
    """A zip of `entries` as given (names unchecked, `modes`: Unix mode bits by name)."""
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return out


def edited(bundle: Path, out: Path, edit: Edit, *, fix_checksums: bool = True) -> Path:
    """`bundle` with `edit` applied to its members and manifest; with `fix_checksums` the
    manifest's sizes and sha256 are made to fit the edited members, as a forger would."""
    entries = members(bundle)
    manifest = json.loads(entries.pop(MANIFEST_FILE))
    edit(entries, manifest)
    if fix_checksums:
        manifest["files"] = {name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
                             for name, data in entries.items()}  # fmt: skip
    return write_zip(out, {MANIFEST_FILE: json.dumps(manifest).encode(), **entries})


def record_of(entries: Members) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(entries[f"{MEMBER}/result.json"])
    return data


def put_record(entries: Members, record: dict[str, Any]) -> None:
    entries[f"{MEMBER}/result.json"] = json.dumps(record, indent=2).encode()


def first_invalid(record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The first verdict whose greedy answer failed (the tiny runs fail most)."""
    verdicts = record["suites"]["3agents"]["verdicts"]
    return next((i, v) for i, v in enumerate(verdicts) if not v["valid"])


def suite_version(n: int) -> Edit:
    """An edit that gives the manifest's (only) suite version `n`."""
    return lambda entries, manifest: manifest["suites"][0].update(version=n)


def refused(call: Callable[[], object], message: str) -> str:
    with pytest.raises(BundleError) as caught:
        call()
    text = str(caught.value)
    assert message in text and "\n" not in text, text
    return text


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_runs_bundle_verify_and_merge_into_a_board(compare_root: Path, tmp_path: Path) -> None:
    summary = bundle_runs([compare_root], tmp_path / "a.zip")
    manifest = summary.manifest
    assert [(r.designer, r.seed) for r in manifest.runs] == [
        ("random", 0), ("random", 1), ("uniform", 0), ("uniform", 1)]  # fmt: skip
    installed = load_suite("3agents")
    assert [(s.name, s.version, s.content_sha256) for s in manifest.suites] == [
        ("3agents", installed.version, installed.content_sha256)]  # fmt: skip
    assert f"{MEMBER}/{answers_file('3agents')}" in manifest.files
    assert f"{MEMBER}/round-000/round.json" in manifest.files
    assert not any("checkpoint" in name for name in manifest.files)
    assert manifest.package_version and manifest.git_commit
    copy = tmp_path / "elsewhere" / "runs"
    shutil.copytree(compare_root, copy)
    bundle_runs([copy], tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()

    progress: list[tuple[int, int]] = []
    verification = verify_bundle(tmp_path / "a.zip", on_progress=lambda *a: progress.append(a))
    assert verification.ok and verification.mismatch_count == 0
    assert verification.instances == 4 * len(installed.items) == progress[-1][0]
    assert verification.answers == verification.instances * 3  # greedy and best of 2
    assert progress[-1][0] == progress[-1][1] and len(progress) == 4
    assert "every checksum, verdict and report count matches" in verification.summary()

    board = tmp_path / "board"
    merged = merge_bundles([tmp_path / "a.zip"], board)
    assert len(merged.added) == 4 and merged.already == ()
    originals = {(r.record.designer, r.record.seed): r.record for r in load_runs([compare_root])}
    on_board = load_runs([board])
    assert len(on_board) == 4 and not on_board.skipped
    assert {(r.record.designer, r.record.seed): r.record for r in on_board} == originals
    again = merge_bundles([tmp_path / "b.zip"], board)
    assert again.added == () and len(again.already) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.zip", "b.zip", "board", "elsewhere"]


def test_a_zero_shot_record_on_a_subset_round_trips(tmp_path: Path) -> None:
    backend = CpuBackend(CpuLearnerSettings(threads=1, hidden=(16,), seed=3))
    backend.save(tmp_path / "checkpoint")
    spec = resolve_policy(None, checkpoint=tmp_path / "checkpoint")
    evaluate_policy(spec, ["3agents"], sampling=Sampling(samples=2), out=tmp_path / "runs",
                    limit=12, seed=5)  # fmt: skip
    summary = bundle_runs([tmp_path / "runs"], tmp_path / "policy.zip")
    assert [r.name for r in summary.manifest.runs] == [f"policies/{spec.dir_name}"]
    verification = verify_bundle(tmp_path / "policy.zip")
    assert verification.ok and verification.instances == 12
    merge_bundles([tmp_path / "policy.zip"], tmp_path / "board")
    assert [r.record.kind for r in load_runs([tmp_path / "board"])] == ["policy"]


def test_a_tampered_verdict_is_caught_by_re_scoring(one_run: Path, tmp_path: Path) -> None:
    def better(entries: Members, manifest: dict[str, Any], *, thorough: bool = True) -> None:
        record = record_of(entries)
        _, verdict = first_invalid(record)
        size, failure = str(verdict["size"]), verdict["failure"]
        verdict.update(valid=True, failure=None)
        greedy = record["suites"]["3agents"]["greedy"]
        greedy["overall"]["valid"] += 1  # the counts agree with the verdicts again
        greedy["per_size"][size]["valid"] += 1
        if thorough:  # and so do the failure counts
            greedy["failures"][failure] -= 1
            greedy["per_size_failures"][size][failure] -= 1
        put_record(entries, record)

    careless = edited(one_run, tmp_path / "careless.zip", partial(better, thorough=False))
    refused(lambda: verify_bundle(careless), "greedy failures[")  # the record contradicts itself
    forged = edited(one_run, tmp_path / "forged.zip", better)
    verification = verify_bundle(forged)
    assert not verification.ok
    verdict = first_invalid(record_of(members(one_run)))[1]
    assert verification.mismatches[0].startswith(
        f"{RUN}: suite 3agents instance {verdict['id']}: valid stored True, re-scored False"
    )
    assert verification.mismatch_count == 5  # the verdict and the four counts edited with it
    board = tmp_path / "board"
    refused(lambda: merge_bundles([forged], board), "re-scored results disagree with the stored")
    assert not board.exists()


def test_a_tampered_answer_is_caught_by_re_scoring(one_run: Path, tmp_path: Path) -> None:
    name = f"{MEMBER}/{answers_file('3agents')}"

    def swap(entries: Members, manifest: dict[str, Any]) -> None:
        record = record_of(entries)
        i, _ = first_invalid(record)
        answers = decode_answers(entries[name], "3agents", name)
        instance = load_suite("3agents").items[i].instance
        items = list(answers.items)
        items[i] = items[i].model_copy(update={"greedy": reference_answer(instance)})
        entries[name] = encode_answers(SuiteAnswers(suite="3agents", items=tuple(items)))
        record["answers_sha256"]["3agents"] = hashlib.sha256(entries[name]).hexdigest()
        put_record(entries, record)

    forged = edited(one_run, tmp_path / "forged.zip", swap)
    verification = verify_bundle(forged)
    verdict = first_invalid(record_of(members(one_run)))[1]
    assert verification.mismatches[0].startswith(
        f"{RUN}: suite 3agents instance {verdict['id']}: valid stored False, re-scored True"
    )
    refused(lambda: merge_bundles([forged], tmp_path / "board"), "nothing was merged")


def test_suites_other_than_the_installed_ones_are_refused(one_run: Path, tmp_path: Path) -> None:
    def content(entries: Members, manifest: dict[str, Any]) -> None:
        manifest["suites"][0]["content_sha256"] = "0" * 64

    old = edited(one_run, tmp_path / "v1.zip", suite_version(1))
    refused(lambda: verify_bundle(old),
            f"{old}: suite 3agents is version 1 in the bundle but version 2 here")  # fmt: skip
    refused(lambda: merge_bundles([old], tmp_path / "board"), "is version 1 in the bundle")
    other = edited(one_run, tmp_path / "other.zip", content)
    refused(lambda: verify_bundle(other), "suite 3agents's content checksum 000000000000 differs")

    def record_version(entries: Members, manifest: dict[str, Any]) -> None:
        record = record_of(entries)
        record["suites"]["3agents"]["suite_version"] = 3
        put_record(entries, record)

    mislabelled = edited(one_run, tmp_path / "record.zip", record_version)
    refused(lambda: verify_bundle(mislabelled), "suite 3agents was scored on version 3")
    assert not (tmp_path / "board").exists()


def test_a_member_that_does_not_match_its_checksum_is_refused(
    one_run: Path, tmp_path: Path
) -> None:
    def touch(entries: Members, manifest: dict[str, Any]) -> None:
        entries[f"{MEMBER}/result.json"] += b" "

    damaged = edited(one_run, tmp_path / "damaged.zip", touch, fix_checksums=False)
    refused(lambda: verify_bundle(damaged), "is not the ")  # size first: its bytes differ

    def same_size(entries: Members, manifest: dict[str, Any]) -> None:
        data = entries[f"{MEMBER}/result.json"]
        entries[f"{MEMBER}/result.json"] = data[:-1] + (b" " if data[-1:] != b" " else b"\n")

    forged = edited(one_run, tmp_path / "forged.zip", same_size, fix_checksums=False)
    refused(lambda: verify_bundle(forged),
            f"member {MEMBER}/result.json does not match its sha256 in manifest.json")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "mode", "listed", "message"),
    [
        ("../evil.txt", None, True, "climbs out of the bundle"),
        (f"{MEMBER}/../../../evil.txt", None, True, "climbs out of the bundle"),
        ("/tmp/evil.txt", None, True, "is an absolute path"),
        ("runs\\evil.txt", None, True, "has a character other than"),
        (f"{MEMBER}/link", stat.S_IFLNK | 0o777, True, "is a symbolic link (mode lrwxrwxrwx)"),
        (f"{MEMBER}/device", stat.S_IFCHR | 0o644, True, "is a character device (mode crw-r--r"),
        (f"{MEMBER}/extra.txt", None, False, "is not listed in manifest.json"),
        ("stray.txt", None, True, "member stray.txt belongs to none of the manifest's runs"),
        ("runs/quick/other/seed-0/x.txt", None, True, "belongs to none of the manifest's runs"),
    ],
)
def test_hostile_members_are_refused_before_anything_is_written(
    one_run: Path, tmp_path: Path, name: str, mode: int | None, listed: bool, message: str
) -> None:
    entries = members(one_run)
    manifest = json.loads(entries[MANIFEST_FILE])
    payload = b"/etc/passwd"
    if listed:
        manifest["files"][name] = {"sha256": hashlib.sha256(payload).hexdigest(), "size": 11}
    entries[MANIFEST_FILE] = json.dumps(manifest).encode()
    entries[name] = payload
    hostile = write_zip(tmp_path / "hostile.zip", entries, {name: mode} if mode else None)
    board = tmp_path / "deep" / "board"
    refused(lambda: verify_bundle(hostile), message)
    refused(lambda: merge_bundles([hostile], board), message)
    assert [p.name for p in tmp_path.rglob("*")] == ["hostile.zip"]
    assert not (tmp_path.parent / "evil.txt").exists()


def test_archive_limits_and_shapes(
    one_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = members(one_run)
    missing = dict(entries)
    del missing[f"{MEMBER}/run.json"]
    refused(lambda: verify_bundle(write_zip(tmp_path / "missing.zip", missing)),
            f"manifest.json lists {MEMBER}/run.json, which it lacks")  # fmt: skip
    without = {k: v for k, v in entries.items() if k != MANIFEST_FILE}
    unlisted = write_zip(tmp_path / "none.zip", without)
    refused(lambda: verify_bundle(unlisted), "has no manifest.json")
    (tmp_path / "text.zip").write_text("not a zip")
    refused(lambda: verify_bundle(tmp_path / "text.zip"), "is not a readable zip archive")
    refused(lambda: verify_bundle(tmp_path / "absent.zip"), "cannot be read")
    bad = {**entries, MANIFEST_FILE: b'{"format_version": 1}'}
    refused(lambda: verify_bundle(write_zip(tmp_path / "bad.zip", bad)),
            "manifest.json is not a bundle manifest (package_version: Field required")  # fmt: skip
    future = {**entries, MANIFEST_FILE: b'{"format_version": 2}'}
    refused(lambda: verify_bundle(write_zip(tmp_path / "future.zip", future)),
            "manifest.json is of bundle format 2; this version reads format 1")  # fmt: skip
    monkeypatch.setattr("leaderboards.bundles.archive.MAX_MEMBERS", 3)
    refused(lambda: verify_bundle(one_run), f"has {len(entries)} members, above 3")
    monkeypatch.setattr("leaderboards.bundles.archive.MAX_MEMBERS", 100)
    size = one_run.stat().st_size
    monkeypatch.setattr("leaderboards.bundles.archive.MAX_TOTAL_BYTES", size - 1)
    refused(lambda: verify_bundle(one_run), f"is {size} bytes, above the limit of {size - 1}")
    monkeypatch.setattr("leaderboards.bundles.archive.MAX_TOTAL_BYTES", size + 1)
    refused(lambda: verify_bundle(one_run), f"unpacks to more than the limit of {size + 1} bytes")


def test_runs_without_stored_answers_are_not_bundled(compare_root: Path, tmp_path: Path) -> None:
    unanswered = tmp_path / "runs" / RUN
    shutil.copytree(compare_root / RUN, unanswered)
    record = json.loads((unanswered / "result.json").read_text())
    del record["answers_sha256"]
    (unanswered / "result.json").write_text(json.dumps(record))
    shutil.rmtree(unanswered / "answers")
    refused(lambda: bundle_runs([tmp_path / "runs"], tmp_path / "old.zip"),
            f"1 of 1 runs store no benchmark answers, so their verdicts cannot be re-scored: "
            f"{unanswered}; ")  # fmt: skip
    assert not (tmp_path / "old.zip").exists()


def test_merge_refuses_other_contents_and_incompatible_runs(
    one_run: Path, compare_root: Path, tmp_path: Path
) -> None:
    board = tmp_path / "board"
    shutil.copytree(compare_root / "quick" / "uniform", board / "quick" / "uniform")
    other = json.loads((compare_root / RUN / "result.json").read_text())
    other["seconds"] += 1
    (board / RUN).mkdir(parents=True)
    (board / RUN / "result.json").write_text(json.dumps(other))
    before = snapshot(board)
    refused(lambda: merge_bundles([one_run], board),
            f"run {RUN} is already on the board at {board / RUN} with other contents")  # fmt: skip
    assert snapshot(board) == before
    shutil.rmtree(board / RUN)

    def other_budget(entries: Members, manifest: dict[str, Any]) -> None:
        record = record_of(entries)
        record["experiment"]["samples_per_round"] = 61
        put_record(entries, record)

    stranger = edited(one_run, tmp_path / "stranger.zip", other_budget)
    assert verify_bundle(stranger).ok  # the answers agree; only the board cannot take it
    before = snapshot(board)
    refused(lambda: merge_bundles([stranger], board), f"not merged into {board}: ")
    assert snapshot(board) == before
    assert merge_bundles([one_run], board).added == (RUN,)
    assert len(load_runs([board])) == 3


def test_the_cli_bundles_verifies_and_merges(
    one_run: Path, compare_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cli.zip"
    made = runner.invoke(app, ["leaderboard", "bundle", str(compare_root / RUN), "--out", str(out)])
    assert made.exit_code == 0, made.output
    assert f"bundle written to {out}: 1 runs" in made.output
    assert out.read_bytes() == one_run.read_bytes()
    verified = runner.invoke(app, ["leaderboard", "verify", str(out)])
    assert verified.exit_code == 0, verified.output
    assert "every checksum, verdict and report count matches" in verified.output
    board = tmp_path / "board"
    merged = runner.invoke(app, ["leaderboard", "merge", str(out), "--into", str(board)])
    assert merged.exit_code == 0, merged.output
    assert "merged 1 runs from 1 bundles" in merged.output
    shown = runner.invoke(app, ["leaderboard", "show", str(board), "--resamples", "100"])
    assert shown.exit_code == 0 and "random" in shown.output, shown.output


def test_the_cli_refuses_in_one_line(one_run: Path, compare_root: Path, tmp_path: Path) -> None:
    unanswered = tmp_path / "unanswered"
    shutil.copytree(compare_root / RUN, unanswered)
    record = json.loads((unanswered / "result.json").read_text())
    del record["answers_sha256"]
    (unanswered / "result.json").write_text(json.dumps(record))
    out = str(tmp_path / "x.zip")
    made = runner.invoke(app, ["leaderboard", "bundle", str(unanswered), "--out", out])
    assert made.exit_code == 2 and len(made.output.strip().splitlines()) == 1, made.output
    assert "store no benchmark answers" in made.output

    def flip(entries: Members, manifest: dict[str, Any]) -> None:
        record = record_of(entries)  # a cost no count holds: only re-scoring can tell
        for verdict in record["suites"]["3agents"]["verdicts"]:
            verdict["cost"] = (verdict["cost"] or 0) + 1
        put_record(entries, record)

    forged = edited(one_run, tmp_path / "forged.zip", flip)
    verified = runner.invoke(app, ["leaderboard", "verify", str(forged)])
    assert verified.exit_code == 1, verified.output
    lines = verified.output.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["mismatch"] * 6 + ["error"], lines
    assert "... and 1195 more" in lines[5]
    assert "1200 mismatches with the stored verdicts" in lines[-1]

    old_suite = edited(one_run, tmp_path / "v1.zip", suite_version(1))
    board = tmp_path / "board"
    merged = runner.invoke(app, ["leaderboard", "merge", str(old_suite), "--into", str(board)])
    assert merged.exit_code == 2 and len(merged.output.strip().splitlines()) == 1, merged.output
    assert "suite 3agents is version 1 in the bundle but version 2 here" in merged.output
    assert not board.exists()


def test_the_manifest_rejects_unsafe_run_names() -> None:
    with pytest.raises(ValueError, match="climbs out of the bundle"):
        BundleManifest.model_validate({"format_version": 1, "package_version": "x",
                                       "git_commit": "y", "suites": [], "files": {},
                                       "runs": [{"name": "../x", "kind": "designer",
                                                 "designer": "d", "seed": 0,
                                                 "experiment": "e"}]})  # fmt: skip
