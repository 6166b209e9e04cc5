"""The shipped benchmark suites: layout, answer keys, checksums, and a rebuild from seeds."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from mapf_env import BENCHMARK_SUITES, SUITES, Objective, load_suite, stratified
from mapf_env.generator import conflict_slots, default_workers
from mapf_env.overlap import SuiteOverlapError, puzzle_key, shared_puzzles
from mapf_env.suites import (
    SUITE_VERSION,
    BenchmarkItem,
    BuiltSuite,
    SuiteChecksumError,
    SuiteSpec,
    build_suite,
    content_sha256,
    encode_suite,
    load_manifest,
    suite_slots,
    write_suites,
)
from mapf_env.verifier import check_plan

EXPECTED = {"3agents": {3: range(3, 11)}, "4agents": {4: range(4, 11)},
            "5agents": {5: range(5, 11)}, "validation": {2: range(3, 11)},
            "validation-multi": {3: range(3, 11), 4: range(4, 11), 5: range(5, 11)}}  # fmt: skip
"""Each suite's agent counts and the sizes of each (docs/tasks/mapf-frozenlake.md)."""


VERSION_1_CONTENT = {
    "3agents": "59563a3a60597194af8f68179735bf3b006cba94c3c3e39a57d5639270c350f9",
    "4agents": "6a226d01d9b7e2e621ccdc854414efc08e71b416d381daa11d7a3ea8736b37ec",
    "5agents": "5b98366d5583dd5f2cb22f0c2f716f7564e44f3f5f872e9915d803eb19e5de86",
    "validation": "ef61589e3c4f757aca6e3bf81688d618ddbd4c8922b901ec22bdae5f6b447c06",
}
"""The content checksums version 1 shipped (SOC minima only), kept to prove that version 2
holds the very same instances: its `instances_sha256` leaves the new minima out."""


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_suite_layout_matches_the_design(name: str) -> None:
    suite = load_suite(name)
    parts, spec = EXPECTED[name], SUITES[name]
    assert spec.parts == tuple((k, tuple(sizes)) for k, sizes in parts.items())
    assert suite.agent_counts == tuple(parts)
    assert suite.n_agents == (None if len(parts) > 1 else next(iter(parts)))
    cells = Counter((i.instance.n_agents, i.size) for i in suite.items)
    assert cells == {(k, s): spec.per_size for k, sizes in parts.items() for s in sizes}
    per_cell = Counter((i.instance.n_agents, i.size, i.subset, i.hole_ratio) for i in suite.items)
    assert set(per_cell.values()) == {spec.per_subset // len(spec.hole_ratios)}
    assert {i.hole_ratio for i in suite.items} == {0.1, 0.2, 0.3, 0.4, 0.5}
    for wait in spec.wait_ratios:
        subset = f"wr_{round(wait * 100):03d}"
        for agents, sizes in parts.items():
            for size in sizes:
                items = [i for i in suite.items if i.size == size and i.subset == subset
                         and i.instance.n_agents == agents]  # fmt: skip
                assert len(items) == spec.per_subset
                optima = [i.instance.optimum for i in items]
                conflicts = sum(bool(op and op.needs_conflict_resolution) for op in optima)
                assert conflicts == sum(conflict_slots(spec.per_subset, wait))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_answer_key_is_a_valid_optimal_plan(name: str) -> None:
    for item in load_suite(name).items:
        inst = item.instance
        assert inst.optimum is not None and inst.n_agents in EXPECTED[name]
        verdict = check_plan(inst, inst.optimum.plan)
        assert verdict.valid, (inst.id, verdict.detail)
        assert verdict.cost == inst.optimum.cost
        assert verdict.optimal_soc is True  # the key's plan is SOC-optimal; its makespan may
        span = inst.optimum.min_makespan  # exceed the minimum, which no plan goes below
        assert span is not None and max(inst.optimum.individual) <= span <= inst.optimum.makespan
        assert verdict.optimal_makespan is (span == inst.optimum.makespan)
        assert inst.optimum.soc >= sum(inst.optimum.individual)
        assert inst.optimum.needs_conflict_resolution == (
            inst.optimum.soc > sum(inst.optimum.individual)
        )


def test_shipped_files_match_their_manifest() -> None:
    manifest = load_manifest()
    assert set(manifest["suites"]) == set(SUITES)
    for name, entry in manifest["suites"].items():
        suite = load_suite(name)
        assert len(suite.items) == entry["count"]
        assert content_sha256(suite.items) == entry["content_sha256"]
        assert encode_suite(suite.items)  # decodes and re-encodes without error
        assert suite.version == manifest["version"] == SUITE_VERSION
        assert entry["optima"] == ["soc", "makespan"] == [o.value for o in suite.optima]
        assert entry["n_agents"] == suite.n_agents
        assert entry["sizes"] == list(SUITES[name].all_sizes)
        assert entry.get("agents", {}) == (
            {str(k): list(s) for k, s in SUITES[name].parts} if SUITES[name].mixed else {}
        )


@pytest.mark.parametrize("name", sorted(VERSION_1_CONTENT))
def test_version_2_holds_the_instances_of_version_1(name: str) -> None:
    """Same grids, agents, SOC minima and subsets as version 1; only the makespan minima are new."""
    entry = load_manifest()["suites"][name]
    items = load_suite(name).items
    assert content_sha256(items, minima=False) == entry["instances_sha256"]
    assert entry["instances_sha256"] == VERSION_1_CONTENT[name]
    assert all(i.instance.optimum and i.instance.optimum.min_makespan is not None for i in items)


def test_a_corrupted_file_is_refused(tmp_path: Path) -> None:
    items = load_suite("validation").items[:5]
    write_suites(tmp_path, {"validation": BuiltSuite(items=items, limited={})})
    assert load_suite("validation", tmp_path).items == items
    target = tmp_path / "validation.jsonl.gz"
    target.write_bytes(gzip.compress(gzip.decompress(target.read_bytes()).replace(b"H", b".", 1)))
    with pytest.raises(SuiteChecksumError, match=r"validation\.jsonl\.gz"):
        load_suite("validation", tmp_path)


def test_missing_suites_say_how_to_rebuild(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="bench-build"):
        load_suite("validation", tmp_path)


def test_unknown_suite_names_the_available_ones() -> None:
    with pytest.raises(KeyError, match="3agents"):
        load_suite("6agents")


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rebuilding_from_seeds_reproduces_the_shipped_suite(name: str) -> None:
    entry = load_manifest()["suites"][name]
    built = build_suite(SUITES[name], workers=default_workers(), limited=entry["limited"])
    assert content_sha256(built.items) == entry["content_sha256"]
    assert built.limited == entry["limited"]
    assert all(isinstance(i, BenchmarkItem) for i in built.items)


def test_the_multi_agent_validation_suite_shares_no_puzzle_with_the_benchmarks() -> None:
    spec = SUITES["validation-multi"]
    assert spec.disjoint_from == BENCHMARK_SUITES
    mine = [item.instance for item in load_suite("validation-multi").items]
    benchmarks = [item.instance for name in BENCHMARK_SUITES for item in load_suite(name).items]
    assert shared_puzzles(mine, benchmarks) == []
    assert len({puzzle_key(i) for i in mine}) == len(mine)  # nor one twice
    seeds = {key for _, key, _, _ in suite_slots(spec, Objective.SOC)}
    others = {key for name in BENCHMARK_SUITES for _, key, _, _ in
              suite_slots(SUITES[name], Objective.SOC)}  # fmt: skip
    assert len(seeds) == len(mine) and not seeds & others  # its seeds are its own


def test_a_puzzle_is_the_same_whatever_the_agents_order() -> None:
    inst = load_suite("validation-multi").items[0].instance
    swapped = inst.model_copy(update={"starts": inst.starts[::-1], "goals": inst.goals[::-1]})
    assert puzzle_key(swapped) == puzzle_key(inst)
    moved = inst.model_copy(update={"goals": (inst.starts[0], *inst.goals[1:])})
    assert puzzle_key(moved) != puzzle_key(inst)


def test_a_build_that_repeats_a_puzzle_it_must_avoid_fails_loudly() -> None:
    """These two slots have 3agents' seeds (name, size, subset, index, hole ratio): they make
    the first two 3x3 wr_025 instances of 3agents, which the spec says it must avoid."""
    spec = SuiteSpec("3agents", 3, (3,), (0.25,), per_subset=2, hole_ratios=(0.1,),
                     disjoint_from=("3agents",))  # fmt: skip
    with pytest.raises(SuiteOverlapError, match=r"shares 2 puzzle.*3agents-s3-wr_025-i00"):
        build_suite(spec)
    built = build_suite(spec, others={"3agents": ()})  # checked against what it is given
    assert [i.instance.id for i in built.items] == [f"3agents-s3-wr_025-i0{j}" for j in (0, 1)]


@pytest.mark.parametrize("limit", [30, 63, 200, 315])
def test_a_stratified_subset_of_a_mixed_suite_keeps_its_agent_counts(limit: int) -> None:
    """The cuts have no agent count; the suite's order spreads them within every size."""
    subset = stratified(load_suite("validation-multi"), limit)
    assert len(subset.items) == limit
    per_size: dict[int, Counter[int]] = {}
    for item in subset.items:
        per_size.setdefault(item.size, Counter())[item.instance.n_agents] += 1
    for size, counts in per_size.items():
        expected = {k for k, sizes in EXPECTED["validation-multi"].items() if size in sizes}
        assert set(counts) == expected or sum(counts.values()) < len(expected), (size, counts)
        assert max(counts.values()) - min(counts.values()) <= 1, (size, counts)
