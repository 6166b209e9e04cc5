"""What an experiment fixes for the reasoning-gym task: which datasets a designer mixes.

Light to import: reasoning-gym is read only inside the validator (through `catalog`), and only
to refuse a misspelt dataset early, in the experiment's own error report; without the package
the names pass here and the task's build then names the missing extra.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tasks.reasoning_gym.catalog import names_problem

__all__ = ["MAX_SAMPLES", "PRESET", "RgSettings"]

PRESET = ("basic_arithmetic", "chain_sum", "letter_counting", "spell_backward", "word_sorting")
"""Five cheap datasets with curricula and short answers that their scorers grade exactly:
two kinds of arithmetic, counting letters, spelling backward, sorting words."""
MAX_SAMPLES = 1_000_000


class RgSettings(BaseModel):
    """The datasets a designer mixes (an experiment's ``task_settings``; recorded, not
    designed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    datasets: tuple[str, ...] = Field(
        PRESET,
        min_length=1,
        description="reasoning-gym datasets with a curriculum (names as reasoning_gym.factory "
        "registers them); kept sorted, each once.",
    )

    @field_validator("datasets")
    @classmethod
    def _known_datasets(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        chosen = tuple(sorted({name.strip() for name in names}))
        try:
            problem = names_problem(chosen)
        except ImportError:  # reasoning-gym is missing: the task's build names the extra
            return chosen
        if problem:
            raise ValueError(problem)
        return chosen
