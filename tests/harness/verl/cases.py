"""Shared data and helpers of the verl backend tests (fixtures live in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.backends.verl import RoundInputs, build_overrides
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.target import VerlTarget, resolve_target
from harness.backends.verl.task_feed import TaskFeed, task_feed
from harness.experiment import ExperimentConfig
from mapf_env import Instance, RewardConfig, read_records, write_parquet
from tasks import create_task
from tasks.mapf_frozenlake import MapfSettings

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "tests" / "golden" / "responses"
PAPER_PRESET = REPO / "configs" / "paper_qwen3_4b.yaml"
VALID_RATE = 0.4
"""The running valid rate the reward tests' round hands the reward (its accuracy weight)."""
REWARD = RewardConfig(gap_coef=0.5, budget_tokens=64, w_min=0.6)
"""The reward tests' settings, away from the defaults so a dropped keyword shows."""
MAPF_FEED: TaskFeed = task_feed(create_task("mapf-frozenlake"), None)
"""MAPF-FrozenLake as verl's files carry it: what judges a dumped response and matches a
validation dump's rows."""

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n"
    "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}"
    "{% endif %}"
)


def golden_cases() -> list[tuple[str, Instance, str]]:
    """(name, instance, response) of every golden response whose instance has an optimum."""
    cases = []
    for path in sorted(GOLDEN.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        instance = Instance.model_validate(data["instance"])
        if instance.optimum is None:
            continue  # export refuses unsolved instances
        response = data["response"]
        text = response if isinstance(response, str) else "\n".join(response)
        cases.append((data["name"], instance, text))
    return cases


# --- against the installed verl (heavy imports inside: only test_verl_* modules call these) ---


def config_dir() -> str:
    """The installed verl's Hydra config directory."""
    import verl

    return str(Path(verl.__file__).resolve().parent / "trainer" / "config")


def compose_verl(overrides: list[str]) -> Any:
    """`overrides` composed with the installed verl's ``ppo_trainer`` config, as main_ppo does."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=config_dir(), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def installed_target(settings: VerlSettings, *, flash_attn: bool = True) -> VerlTarget:
    """The target the backend resolves for the installed verl on a machine where flash-attn
    is (or is not) usable: what `VerlBackend` builds its overrides for."""
    import verl

    runtime = VerlRuntime(verl_version=verl.__version__, flash_attn=flash_attn)
    return resolve_target(settings, runtime)


def round_config(
    paper: ExperimentConfig,
    round_files: tuple[Path, Path],
    tmp_path: Path,
    *extra: str,
    model_path: str | None = None,
) -> Any:
    """Round 1's trainer config with `REWARD` and `VALID_RATE`, composed with the installed
    verl's config as main_ppo composes it (`model_path`: the round's start model, where a
    test loads its tokenizer from it)."""
    train, val = round_files
    start = {} if model_path is None else {"model_path": model_path}
    inputs = RoundInputs(
        round=1,
        train_files=train,
        val_files=val,
        checkpoint_dir=tmp_path / "ckpt",
        valid_rate=VALID_RATE,
        **start,
    )
    settings = VerlSettings(extra_overrides=extra)
    rewarded = paper.model_copy(update={"task_settings": MapfSettings(reward=REWARD)})
    overrides = build_overrides(rewarded, settings, inputs, target=installed_target(settings))
    return compose_verl(overrides)


def reward_batch(cases: list[tuple[str, Instance, str]], tokenizer: Any, tmp_path: Path) -> Any:
    """`rows_batch` of the testbed's own parquet of the cases' instances."""
    path = tmp_path / "batch.parquet"
    write_parquet([inst for _, inst, _ in cases], path)
    return rows_batch(read_records(path), [text for _, _, text in cases], tokenizer)


def rows_batch(rows: list[dict[str, Any]], texts: list[str], tokenizer: Any) -> Any:
    """What the trainer hands the reward code after a rollout (a verl `DataProto`): left-padded
    prompts, right-padded responses (`texts`, one per row) ending in EOS, one attention mask,
    and the rows' non-tensor columns, as verl's dataset reads them from the parquet. Returns
    the batch and each response's token count."""
    import numpy as np
    import torch
    from verl import DataProto

    prompts = [
        tokenizer.apply_chat_template(
            row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=False
        )
        for row in rows
    ]
    responses = [[*tokenizer.encode(text), tokenizer.eos_token_id] for text in texts]
    p_len, r_len = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompts])
    response_ids = torch.tensor([r + [pad] * (r_len - len(r)) for r in responses])
    mask = torch.tensor(
        [
            [0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
            for p, r in zip(prompts, responses, strict=True)
        ]
    )
    data = DataProto.from_dict(
        tensors={
            "prompts": prompt_ids,
            "responses": response_ids,
            "input_ids": torch.cat([prompt_ids, response_ids], dim=1),
            "attention_mask": mask,
        },
        non_tensors={
            key: np.array([row[key] for row in rows], dtype=object)
            for key in ("data_source", "reward_model", "extra_info")
        },
    )
    return data, [len(r) for r in responses]


def tiny_model_dir(path: Path, tokenizer: Any) -> Path:
    """A Hugging Face directory at `path` with a tiny Qwen3 config and `tokenizer` (no weights:
    only verl's config checks and tokenizer loads read it)."""
    from transformers import Qwen3Config

    Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        architectures=["Qwen3ForCausalLM"],
    ).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
