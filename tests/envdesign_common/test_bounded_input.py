"""The bounded reader: sizes checked before reading, YAML bounded on its events before it is
built, every refusal one line that never quotes the input; names that become directories."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from envdesign_common import (
    MAX_FILE_BYTES,
    MAX_NAME_CHARS,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
    InputError,
    YamlLimits,
    check_yaml,
    load_yaml,
    path_name_problem,
    read_text,
)
from tests.envdesign_common.yaml_bombs import laughs


def peak_bytes(action: Callable[[], object]) -> int:
    """The most memory Python allocated while `action` ran (it may raise InputError)."""
    tracemalloc.start()
    try:
        action()
    except InputError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def test_a_file_over_the_limit_is_refused_from_its_size_alone(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as f:  # sparse: 50 MB by its size, nothing to read
        f.truncate(50 << 20)
    with pytest.raises(InputError) as err:
        read_text(path)
    assert str(err.value) == (
        f"{path}: is 50.0 MB, more than the 4.0 MB limit for an input file; is this the right file?"
    )
    assert err.value.reason.startswith("is 50.0 MB")
    assert peak_bytes(lambda: read_text(path)) < 64 * 1024


def test_an_endless_device_is_read_only_up_to_the_limit() -> None:
    with pytest.raises(InputError, match=r"^/dev/zero: holds more than the 1000 bytes limit"):
        read_text("/dev/zero", limit=1000)
    assert peak_bytes(lambda: read_text("/dev/zero", limit=1000)) < 64 * 1024
    assert peak_bytes(lambda: read_text("/dev/zero")) < 3 * MAX_FILE_BYTES


def test_a_fifo_nobody_writes_to_reads_as_empty_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(read_text(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=20)
    assert not reader.is_alive(), "reading a FIFO without a writer blocked"
    assert got == [""]


def test_a_fifo_with_an_endless_writer_is_cut_at_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    stop = threading.Event()

    def write() -> None:
        try:
            with open(fifo, "wb") as f:
                while not stop.is_set():
                    f.write(b"x" * 65536)
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    time.sleep(0.2)  # let the writer open its end first, so the reader sees a stream
    try:
        with pytest.raises(InputError, match=r"holds more than the 1\.0 MB limit"):
            read_text(fifo, limit=1 << 20)
    finally:
        stop.set()
    writer.join(timeout=20)


def test_missing_binary_and_directory_inputs_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.yaml: no such file$"):
        read_text(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match=r": is a directory; name a file$"):
        read_text(tmp_path)
    binary = tmp_path / "x.yaml"
    binary.write_bytes(b"a: 1\n\x89PNG")
    with pytest.raises(InputError, match=r"x\.yaml: not UTF-8 text \(byte 5 of 9\)"):
        read_text(binary)


def test_a_billion_laughs_is_refused_from_its_events_without_being_built() -> None:
    text = laughs(9)
    started = time.monotonic()
    with pytest.raises(InputError, match=r"^the YAML is too large: more than 100000 values"):
        load_yaml(text)
    assert time.monotonic() - started < 5
    assert peak_bytes(lambda: load_yaml(text)) < 5 << 20  # the parse, not 9**9 leaves


def test_aliases_within_the_bound_read_as_safe_load_reads_them() -> None:
    text = laughs(4) + "e: {<<: {x: 1}, y: *a}\n"  # 9**4 leaves at d, a merge key
    assert load_yaml(text) == yaml.safe_load(text)


def test_the_node_count_expands_every_alias() -> None:
    # 9 uses of a 9-leaf list: 9 * 10 + 10 nodes and the keys; over a bound of 100, under 200.
    text = laughs(2)
    with pytest.raises(InputError, match="more than 100 values"):
        check_yaml(text, YamlLimits(max_nodes=100))
    check_yaml(text, YamlLimits(max_nodes=200))


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(InputError, match=r"^the alias \*a repeats a collection inside itself$"):
        load_yaml("a: &a [1, *a]\n")


def test_depth_is_bounded_with_aliases_counted_at_their_height() -> None:
    deep = "".join(f"{'  ' * i}k{i}:\n" for i in range(70))
    with pytest.raises(InputError, match=r"^the YAML is nested more than 64 levels deep"):
        load_yaml(deep)
    # 40 levels under an anchor, used 40 levels down: 80 deep once expanded
    nest = "[" * 40 + "]" * 40
    text = f"a: &a {nest}\nb: {'[' * 39}*a{']' * 39}\n"
    with pytest.raises(InputError, match="nested more than 64 levels"):
        load_yaml(text)


def test_parser_errors_name_the_place_and_never_quote_the_text() -> None:
    with pytest.raises(InputError) as err:
        load_yaml('ok: 1\nkey: "sk-secret-value\nnext: [\n')
    message = str(err.value)
    assert message.startswith("not valid YAML at line ") and "\n" not in message
    assert "sk-secret" not in message and "key" not in message


def test_a_number_past_pythons_digit_limit_is_one_line() -> None:
    with pytest.raises(InputError, match=r"^a value cannot be read \(Exceeds the limit"):
        load_yaml("seed: " + "9" * 10_000 + "\n")


def test_answer_limits_refuse_aliases_and_tags() -> None:
    strict = YamlLimits(max_nodes=400, max_depth=6, aliases=False, tags=False)
    with pytest.raises(InputError, match="aliases"):
        check_yaml("a: &a [1]\nb: *a\n", strict)
    with pytest.raises(InputError, match="tags"):
        check_yaml("a: !!python/name:os.system\n", strict)
    check_yaml("a: !!binary aGk=\n")  # files may use standard tags; safe_load builds them


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("..", "starts with '.'"),
        (".", "starts with '.'"),
        (".hidden", "starts with '.'"),
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("../up", "path separator"),
        ("tab\there", "control character"),
        ("nul\x00", "control character"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("n" * (MAX_NAME_CHARS + 1), f"keep it to {MAX_NAME_CHARS}"),
    ],
)
def test_names_that_cannot_be_one_directory(name: str, problem: str) -> None:
    found = path_name_problem(name)
    assert found is not None and problem in found


@pytest.mark.parametrize("name", ["quick", "paper_qwen3_4b", "my comparison", "v1.2", "a..b"])
def test_names_that_can(name: str) -> None:
    assert path_name_problem(name) is None


SHIPPED = ("configs", "envdesign_common", "mapf_env", "designers", "run_records", "harness",
           "leaderboards", "harness_cli")  # fmt: skip
"""Where the project's own YAML lives (not the virtual environments or tests beside it)."""


def test_every_shipped_yaml_is_far_inside_the_limits() -> None:
    # The limits are generous: every preset, env config, curriculum and model table would pass
    # limits a hundred times tighter in size and nodes and eight times in depth.
    root = Path(__file__).resolve().parents[2]
    shipped = [p for folder in SHIPPED for p in (root / folder).rglob("*.yaml")]
    assert len(shipped) >= 10
    tight = YamlLimits(max_nodes=MAX_YAML_NODES // 100, max_depth=MAX_YAML_DEPTH // 8)
    for path in shipped:
        load_yaml(read_text(path, limit=MAX_FILE_BYTES // 100), tight)
