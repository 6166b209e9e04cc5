"""Shared data of the verl backend tests (plain helpers; fixtures live in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

from mapf_env import Instance

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "tests" / "golden" / "responses"
PAPER_PRESET = REPO / "configs" / "paper_qwen3_4b.yaml"

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
