"""What a finished round keeps on disk: its Hugging Face weights, not verl's training state.

Each round writes its own ``trainer.default_local_dir`` (``round-NNN/checkpoints/``). verl
0.6.1 and 0.9.1 save there alike (``RayPPOTrainer._save_checkpoint``, and
``verl/utils/checkpoint/fsdp_checkpoint_manager.py``'s ``save_checkpoint``)::

    latest_checkpointed_iteration.txt          the last finished save (written after it)
    global_step_<N>/data.pt                    the dataloader's state
    global_step_<N>/transfer_queue/            0.9.1's async trainer modes only
    global_step_<N>/actor/model_world_size_<W>_rank_<R>.pt    FSDP shards (fp32)
    global_step_<N>/actor/optim_world_size_<W>_rank_<R>.pt    Adam's moments
    global_step_<N>/actor/extra_state_world_size_<W>_rank_<R>.pt  scheduler and RNG
    global_step_<N>/actor/fsdp_config.json, lora_train_meta.json (0.9.1, LoRA)
    global_step_<N>/actor/huggingface/         config, tokenizer and, with hf_model, weights

``max_actor_ckpt_to_keep`` makes verl delete older steps' ``actor/`` directories, but not their
``data.pt``. For Qwen3-4B a step holds about 64 GB, 48 GB of it training state.

Why the training state can go once the round's state is saved (`VerlBackend.save`): it serves
only to resume *this round's* training (``trainer.resume_mode=auto`` after a crash), and by
then that training is finished -- `final_hf_model` found the round's last step saved with its
Hugging Face copy. The next round does not resume it: it starts from those Hugging Face weights
in a new checkpoint directory with a fresh optimiser, and the evaluation and the ``self``
designer's server load the same weights. A harness restarted after the save finds the tracker
at the round's last step and skips training (`VerlBackend._train`), and `VerlBackend.load`
reads only the Hugging Face directory. verl itself could no longer resume the round (the
shards it would load are gone), which nothing asks of it.

What is kept is a list (`KEPT_PATHS`), not a guess of what to delete: inside verl's step
directories (``global_step_<N>/``) everything else goes -- older steps whole, the last one but
its ``actor/huggingface/`` -- and entries of the checkpoint directory that are not step
directories (verl writes only the tracker there) are left as they are. Nothing is followed out
of the directory: a symbolic link is removed as a link, its target untouched.
`split_footprint` applies the same rule to a listing, which holds the disk budget
(`footprint`) to what is deleted (`tests/harness/test_footprint.py`). The round's left-over
rollout dumps (`rollout_dumps`: those the curves could not yet delete while verl ran) go too,
unless ``keep_rollouts``.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.backends.verl.layout import TRACKER, hf_model_dir, latest_step
from harness.byte_sizes import size

__all__ = [
    "KEPT_PATHS",
    "Pruned",
    "is_kept",
    "listing",
    "prune_checkpoints",
    "prune_rollouts",
    "prune_round",
    "split_footprint",
]

KEPT_PATHS = (TRACKER, "global_step_{last}/actor/huggingface")
"""What a pruned checkpoint directory holds, relative to it (``{last}``: the tracker's step);
entries outside ``global_step_<N>/`` are not verl's training state and are never pruned."""
STEP_DIR = re.compile(r"global_step_\d+")


@dataclass(frozen=True, slots=True)
class Pruned:
    """Bytes and files a pruning deleted, and what it left."""

    freed_bytes: int = 0
    freed_files: int = 0
    kept_bytes: int = 0
    kept_files: int = 0

    def __add__(self, other: Pruned) -> Pruned:
        return Pruned(
            self.freed_bytes + other.freed_bytes,
            self.freed_files + other.freed_files,
            self.kept_bytes + other.kept_bytes,
            self.kept_files + other.kept_files,
        )

    def describe(self) -> str:
        return (
            f"freed {size(self.freed_bytes)} in {self.freed_files} file(s), kept "
            f"{size(self.kept_bytes)} in {self.kept_files} file(s)"
        )


def _kept_root(last: int) -> tuple[str, ...]:
    return (f"global_step_{last}", "actor", "huggingface")


def is_kept(relative: PurePosixPath | str, last: int) -> bool:
    """Whether the entry at `relative` (to the checkpoint directory) survives pruning when
    `last` is the round's last saved step."""
    parts = PurePosixPath(relative).parts
    if not parts or not STEP_DIR.fullmatch(parts[0]):
        return True
    root = _kept_root(last)
    return parts[: len(root)] == root


def _holds_kept(parts: tuple[str, ...], last: int) -> bool:
    """A directory on the way to the kept Hugging Face directory."""
    root = _kept_root(last)
    return len(parts) < len(root) and root[: len(parts)] == parts


def split_footprint(sizes: Mapping[str, int], last: int) -> Pruned:
    """What pruning would free and keep of a checkpoint directory given as relative file path
    -> bytes (a listing, real or predicted): the rule `prune_checkpoints` deletes by."""
    kept = {path: n for path, n in sizes.items() if is_kept(path, last)}
    freed = {path: n for path, n in sizes.items() if path not in kept}
    return Pruned(sum(freed.values()), len(freed), sum(kept.values()), len(kept))


def listing(directory: Path) -> dict[str, int]:
    """Every file and link under `directory` (relative POSIX path -> bytes), links not followed."""
    found: dict[str, int] = {}
    for root, dirs, files in os.walk(directory):  # os.walk never descends into linked dirs
        base = Path(root)
        for name in (*files, *(d for d in dirs if (base / d).is_symlink())):
            path = base / name
            found[path.relative_to(directory).as_posix()] = path.lstat().st_size
    return found


def _remove(path: Path) -> Pruned:
    """Delete `path`: a real directory with all it holds, anything else (a link too) alone."""
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        path.unlink()
        return Pruned(info.st_size, 1)
    freed = Pruned()
    with os.scandir(path) as entries:
        for entry in list(entries):
            freed += _remove(Path(entry.path))
    path.rmdir()
    return freed


def _prune(directory: Path, parts: tuple[str, ...], last: int) -> Pruned:
    done = Pruned()
    with os.scandir(directory) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        here, path = (*parts, entry.name), Path(entry.path)
        if is_kept(PurePosixPath(*here), last):
            kept = (
                listing(path) if entry.is_dir(follow_symlinks=False) else {"": path.lstat().st_size}
            )
            done += Pruned(kept_bytes=sum(kept.values()), kept_files=len(kept))
        elif entry.is_dir(follow_symlinks=False) and _holds_kept(here, last):
            done += _prune(path, here, last)
        else:
            done += _remove(path)
    return done


def prune_checkpoints(checkpoint_dir: Path, model: Path) -> Pruned:
    """Delete a finished round's training state, keeping `KEPT_PATHS`; `model` is the Hugging
    Face directory the backend's state points at, which must be the one kept. Raises (and
    deletes nothing) where the round did not finish or the layout is not verl's."""
    last = latest_step(checkpoint_dir)
    if last is None:
        raise FileNotFoundError(f"{checkpoint_dir} has no {TRACKER}: the round did not finish")
    kept = hf_model_dir(checkpoint_dir, last)
    for parent in (kept.parent.parent, kept.parent, kept):
        if parent.is_symlink() or not parent.is_dir():
            raise FileNotFoundError(f"{parent} is not a directory verl wrote; nothing pruned")
    if not (kept / "config.json").is_file():
        raise FileNotFoundError(f"{kept} holds no Hugging Face model; nothing pruned")
    if os.path.normpath(model.absolute()) != os.path.normpath(kept.absolute()):
        raise ValueError(f"the backend's model {model} is not {kept}, the one kept; nothing pruned")
    return _prune(checkpoint_dir, (), last)


def prune_rollouts(rollout_dir: Path) -> Pruned:
    """Delete the rollout dumps verl left (``<step>.jsonl``; nothing else)."""
    done = Pruned()
    for path in sorted(rollout_dir.glob("*.jsonl")):
        if path.stem.isdigit():
            done += _remove(path)
    return done


def prune_round(
    round_dir: Path, model: Path, *, keep_training_state: bool, keep_rollouts: bool
) -> Pruned:
    """After a round's state is saved: its checkpoints pruned (unless `keep_training_state`)
    and its left-over rollout dumps deleted (unless `keep_rollouts`); one line saying what was
    freed is appended to the round's ``train.log``."""
    done = Pruned()
    if not keep_training_state:
        done += prune_checkpoints(round_dir / "checkpoints", model)
    if not keep_rollouts:
        done += prune_rollouts(round_dir / "rollouts")
    gone = [name for name, keep in (("training state", keep_training_state),
                                    ("rollout dumps", keep_rollouts)) if not keep]  # fmt: skip
    what = " and ".join(gone) or "nothing (keep_training_state, keep_rollouts)"
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(round_dir / "train.log", "a", encoding="utf-8") as f:
        f.write(f"\n# {stamp} retention of {what}: {done.describe()}\n")
    return done
