"""The experiment as a run recorded it: `run.json`'s and `result.json`'s `experiment`.

The harness writes its resolved `ExperimentConfig` there (`harness.experiment`, which sits
above this package), and a zero-shot evaluation a smaller mapping of its own. Readers of
records need a few of the keys by name -- the experiment's name, the policy, the rounds,
best-of-n, the --limit subset, the designers' options -- so those are typed here, each with
what a record without the key means. Every other
key (backend sections, the designer list, sampling, ...) is kept as written: boards compare
whole experiments key by key to refuse pooling incompatible runs (`leaderboards.compat`) and
resume compares them with the config it is given (`harness.run_dir`), both on `as_dict()`.

A record's bytes are hashed (bundles, golden files), so the model writes back exactly the
mapping it read: the keys that were there, in their order, and none it would default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)


class RecordedExperiment(BaseModel):
    """One run's experiment as recorded: typed where records are read by name, the rest as
    written. Strict, so a value is never coerced into one that would write back otherwise."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    name: str = Field("", description="Names the runs/<name>/ directory.")
    policy: str = Field("?", description="The policy trained or evaluated; '?' when unrecorded.")
    rounds: int | None = Field(None, description="Training rounds; None when unrecorded.")
    best_of: int = Field(1, description="Samples per instance of the best-of-n benchmarks.")
    limit: int | None = Field(None, description="Instances per suite (--limit); None: all.")
    designer_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Options per designer entry or bare designer name."
    )

    _order: tuple[str, ...] = PrivateAttr(default=())
    """The keys in the order they were recorded."""

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        made = handler(data)
        if isinstance(data, Mapping):
            made._order = tuple(data)
        return made

    @model_serializer(mode="wrap")
    def _as_recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the keys the record holds, in its order: a default filled in is not written."""
        out: dict[str, Any] = handler(self)
        return {key: out[key] for key in self._keys() if key in out}

    def as_dict(self) -> dict[str, Any]:
        """The recorded mapping, key for key and value for value, for whole comparisons."""
        values = {**self.__dict__, **(self.__pydantic_extra__ or {})}
        return {key: values[key] for key in self._keys()}

    def __getitem__(self, key: str) -> Any:
        """A recorded key's value, typed or not (`KeyError` when the record has none)."""
        return self.as_dict()[key]

    def __eq__(self, other: object) -> bool:
        """The same recorded mapping (key order aside), as two recorded dicts compared."""
        if not isinstance(other, RecordedExperiment):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]  # equal by a mapping of mutable values

    def _keys(self) -> list[str]:
        """The keys the record holds: as read, then any set after (`model_copy(update=...)`)."""
        set_here = [*type(self).model_fields, *(self.__pydantic_extra__ or {})]
        held = self.model_fields_set
        return [*self._order, *(k for k in set_here if k in held and k not in self._order)]
