"""A round's instances on disk: JSONL for our own tools, parquet in verl's RL schema for training.

verl's `RLHFDataset` loads parquet with `datasets`, applies the chat template to the `prompt` column
(a list of `{role, content}` messages) and hands `data_source`, `reward_model.ground_truth` and
`extra_info` to the reward function. The ground truth is therefore the whole `Instance` as JSON
(grid, agents and the optimum with its plan): the reward rebuilds the instance from that string
alone, with no side files to keep in sync with the dataset.

Both writers are byte-deterministic (same instances, same bytes), so a dataset can be checked
against its seed, and atomic (written to a temporary file beside the target, then renamed), so a
crash never leaves a half-written file where a trainer would read it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from envdesign_common import atomic_write_bytes, provenance
from mapf_env.instance import Instance
from mapf_env.prompt import PROMPT_VERSION, render_prompt

EXPORT_SCHEMA_VERSION = "1"
"""Bump when a column or an `extra_info` field changes meaning."""
DATA_SOURCE = "mapf_frozenlake"
ABILITY = "multi_agent_pathfinding"
METADATA_KEY = b"mapf_env"
"""Parquet schema-metadata key of the provenance (schema, package, prompt versions, commit)."""

_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])


def verl_rows_schema(extra_info: pa.StructType) -> pa.Schema:
    """verl's RL parquet columns (`data_source`, the `prompt` messages, `ability`, the
    `reward_model` with its ground truth), with `extra_info` of the writer's own fields."""
    return pa.schema(
        [
            ("data_source", pa.string()),
            ("prompt", pa.list_(_MESSAGE)),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            ("extra_info", extra_info),
        ]
    )


VERL_SCHEMA = verl_rows_schema(
    pa.struct(
        [
            ("size", pa.int64()),
            ("agents", pa.int64()),
            ("hole_count", pa.int64()),
            ("hole_ratio", pa.float64()),
            ("needs_conflict_resolution", pa.bool_()),
            ("index", pa.int64()),
            ("split", pa.string()),
            ("id", pa.string()),
        ]
    )
)
"""Explicit, so every file has the same types whatever its rows hold (e.g. all ids missing)."""


# --- verl rows ------------------------------------------------------------------------------


def to_record(
    instance: Instance, index: int, split: str, data_source: str = DATA_SOURCE
) -> dict[str, Any]:
    """One verl RL row. The instance must be solved: the reward needs its optimal cost."""
    if instance.optimum is None:
        raise ValueError(
            f"instance {index} ({instance.id or 'no id'}) has no optimum; solve it before export, "
            "since the reward judges optimality against the ground truth"
        )
    holes = len(instance.holes)
    return {
        "data_source": data_source,
        "prompt": render_prompt(instance),
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": instance.model_dump_json()},
        "extra_info": {
            "size": instance.size,
            "agents": instance.n_agents,
            "hole_count": holes,
            "hole_ratio": holes / instance.size**2,
            "needs_conflict_resolution": instance.optimum.needs_conflict_resolution,
            "index": index,
            "split": split,
            "id": instance.id,
        },
    }


def instance_from_ground_truth(ground_truth: str) -> Instance:
    """The instance a row was made from, rebuilt from `reward_model.ground_truth` (the reward's
    entry point). Raises ValueError saying what is wrong with the string."""
    try:
        return Instance.model_validate_json(ground_truth)
    except ValidationError as e:
        raise ValueError(
            "ground truth is not an instance JSON written by mapf_env.export "
            f"({e.error_count()} error(s), first: {e.errors()[0]['msg']}); "
            f"it starts with {ground_truth[:60]!r}"
        ) from e


def instance_from_record(record: Mapping[str, Any]) -> Instance:
    try:
        ground_truth = record["reward_model"]["ground_truth"]
    except (KeyError, TypeError) as e:
        raise ValueError("row has no reward_model.ground_truth; is it a verl RL row?") from e
    if not isinstance(ground_truth, str):
        raise ValueError(f"reward_model.ground_truth is {type(ground_truth).__name__}, not a str")
    return instance_from_ground_truth(ground_truth)


# --- files ----------------------------------------------------------------------------------


def write_jsonl(instances: Iterable[Instance], path: str | os.PathLike[str]) -> None:
    """One `Instance.model_dump_json()` per line, UTF-8, each line ending in a newline."""
    text = "".join(inst.model_dump_json() + "\n" for inst in instances)
    atomic_write_bytes(path, text.encode("utf-8"))


def read_jsonl(path: str | os.PathLike[str]) -> list[Instance]:
    """Instances from a JSONL file; blank lines are skipped, a bad line is named in the error."""
    instances = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                instances.append(Instance.model_validate_json(line))
            except ValidationError as e:
                raise ValueError(f"{path}: line {lineno} is not an instance JSON: {e}") from e
    return instances


def dataset_provenance(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What produced a dataset (schema, package and prompt versions, git commit); callers add
    e.g. the generator config."""
    return provenance(EXPORT_SCHEMA_VERSION, prompt_version=PROMPT_VERSION, **(extra or {}))


def to_table(
    instances: Sequence[Instance],
    split: str = "train",
    data_source: str = DATA_SOURCE,
    metadata_extra: Mapping[str, Any] | None = None,
) -> pa.Table:
    """The verl rows as an arrow table, with the provenance in the schema metadata."""
    records = [to_record(inst, i, split, data_source) for i, inst in enumerate(instances)]
    meta = json.dumps(dataset_provenance(metadata_extra), sort_keys=True).encode("utf-8")
    schema = VERL_SCHEMA.with_metadata({METADATA_KEY: meta})
    return pa.Table.from_pylist(records, schema=schema)


def write_parquet(
    instances: Sequence[Instance],
    path: str | os.PathLike[str],
    split: str = "train",
    data_source: str = DATA_SOURCE,
    metadata_extra: Mapping[str, Any] | None = None,
) -> None:
    """A verl RL parquet file; the same inputs and code give the same bytes (pyarrow writes no
    timestamps, the schema and row order are fixed, and the provenance names the code)."""
    sink = pa.BufferOutputStream()
    pq.write_table(to_table(instances, split, data_source, metadata_extra), sink)
    atomic_write_bytes(path, sink.getvalue().to_pybytes())


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a parquet file as plain dicts, as verl's reward function receives them."""
    table = pq.read_table(path)
    missing = [name for name in VERL_SCHEMA.names if name not in table.column_names]
    if missing:
        raise ValueError(f"{path} lacks the verl column(s) {missing}; was it written by export?")
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def read_parquet(path: str | os.PathLike[str]) -> list[Instance]:
    """The instances of a verl RL parquet file, rebuilt from their ground truths."""
    instances = []
    for i, record in enumerate(read_records(path)):
        try:
            instances.append(instance_from_record(record))
        except ValueError as e:
            raise ValueError(f"{path}: row {i}: {e}") from e
    return instances


def read_provenance(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The provenance `write_parquet` stored in the file's schema metadata ({} if none)."""
    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(METADATA_KEY)
    if raw is None:
        return {}
    info: dict[str, Any] = json.loads(raw)
    return info
