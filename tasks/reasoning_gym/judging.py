"""The prompt, and an answer judged by the dataset's own scorer.

reasoning-gym's convention, which its own evaluation follows: the model gives its final answer
inside ``<answer>...</answer>``; the text of the last such block, stripped, goes to the
dataset's ``score_answer(answer, entry)``, and a reply without one scores 0 (its evaluation
passes no answer rather than the whole reply, so neither does this task). Reasoning is dropped
first (`strip_think`), so an answer tag written while thinking never counts.

Extraction is linear in the reply's length (two reverse searches, no regular expression that
backtracks), and nothing a model writes makes judging raise: a scorer that fails scores 0.
"""

from __future__ import annotations

from envdesign_common import strip_think
from tasks.base import Judgement
from tasks.reasoning_gym import catalog
from tasks.reasoning_gym.items import RgItem

__all__ = ["FAILURE_TYPES", "SYSTEM_PROMPT", "extract_answer", "judge", "messages"]

FAILURE_TYPES = ("no_answer", "wrong", "partial")
"""No ``<answer>`` block (or an empty one); scored 0; scored between 0 and 1."""

SYSTEM_PROMPT = (
    "Solve the problem. Think it through step by step, then give only the final answer inside "
    "<answer></answer> tags, e.g. <answer>your answer</answer>. Do not explain inside the tags; "
    "when the question shows an example of the answer's format, follow it exactly."
)
_OPEN, _CLOSE = "<answer>", "</answer>"


def messages(item: RgItem) -> list[dict[str, str]]:
    """The chat messages asking for `item`'s answer."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": item.question},
    ]


def extract_answer(text: str) -> str | None:
    """The stripped content of the last ``<answer>...</answer>`` outside reasoning, or None."""
    kept = strip_think(text)
    end = kept.rfind(_CLOSE)
    if end < 0:
        return None
    start = kept.rfind(_OPEN, 0, end)
    if start < 0:
        return None
    return kept[start + len(_OPEN) : end].strip()


def judge(item: RgItem, answer: str) -> Judgement:
    """`answer` graded by the dataset's scorer: valid at score 1, partial between 0 and 1."""
    extracted = extract_answer(answer)
    if not extracted:
        what = "no <answer> block" if extracted is None else "an empty <answer> block"
        return Judgement(False, 0.0, "no_answer", detail=what)
    try:
        score = catalog.scorer(item.dataset, item.level)(extracted, item.entry())
    except Exception as err:  # a scorer that cannot read an answer grades it 0
        return Judgement(False, 0.0, "wrong", detail=f"the scorer raised {type(err).__name__}")
    if score >= 1.0:
        return Judgement(True, 1.0, None)
    if score <= 0.0:
        return Judgement(False, 0.0, "wrong")
    return Judgement(False, score, "partial", detail=f"partial credit {score:.3f}")
