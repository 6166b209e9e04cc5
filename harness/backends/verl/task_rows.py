"""A round's items as verl's RL parquet, for any task whose items travel as text (`ItemCodec`).

verl's `RLHFDataset` reads the ``prompt`` column (chat messages, which it puts through the
model's chat template) and hands ``data_source``, ``reward_model.ground_truth`` and
``extra_info`` to the reward function (`harness.backends.verl.task_reward`). The ground truth
is the task's own text of the item, so the reward rebuilds the item from the row alone, with no
side file to keep in step with the dataset; ``data_source`` is the task's id (verl groups its
validation metrics by it). MAPF-FrozenLake writes its rows with `mapf_env.export`, which adds
the paper's instance fields to ``extra_info``; here ``extra_info`` holds the row's place only.

The file is byte-deterministic (same items, same bytes: pyarrow writes no timestamps and the
schema is fixed) and written atomically, as `mapf_env.export` writes its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from envdesign_common import atomic_write_bytes, provenance
from mapf_env import verl_rows_schema
from tasks import ItemCodec, Task

__all__ = ["ROWS_SCHEMA", "ROWS_SCHEMA_VERSION", "read_truths", "write_rows"]

ROWS_SCHEMA_VERSION = "1"
METADATA_KEY = b"envdesign_rows"
"""Parquet schema-metadata key of the provenance (schema version, code, the task)."""
ROWS_SCHEMA = verl_rows_schema(pa.struct([("index", pa.int64()), ("split", pa.string())]))
"""Explicit, so every file has the same types whatever its rows hold."""


def write_rows(
    task: Task[Any, Any],
    items: Sequence[Any],
    path: Path,
    split: str,
    metadata_extra: Mapping[str, Any] | None = None,
) -> None:
    """`items` of `task` as a verl RL parquet file at `path`."""
    if not isinstance(task, ItemCodec):
        raise TypeError(f"task {task.id} declares no ItemCodec; its items cannot be rows")
    rows = [
        {
            "data_source": task.id,
            "prompt": task.prompt(item),
            "ability": task.id,
            "reward_model": {"style": "rule", "ground_truth": task.encode_item(item)},
            "extra_info": {"index": index, "split": split},
        }
        for index, item in enumerate(items)
    ]
    meta = provenance(ROWS_SCHEMA_VERSION, task=task.id, **(metadata_extra or {}))
    schema = ROWS_SCHEMA.with_metadata({METADATA_KEY: json.dumps(meta, sort_keys=True)})
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), sink)
    atomic_write_bytes(path, sink.getvalue().to_pybytes())


def read_truths(path: Path) -> list[str]:
    """The ground truths of a rows file, in order (what the reward receives)."""
    table = pq.read_table(path, columns=["reward_model"])
    return [str(row["ground_truth"]) for row in table.column("reward_model").to_pylist()]
