"""Pydantic models generic in a task's own models, that still pickle.

Records and design contexts are generic in the task's configuration, statistics and reports
(`RoundResult[RgConfig, RgStats, CutReport]`); pydantic makes such a parametrized class at run
time, under a name no module holds, so pickle -- which finds a class by module and name --
cannot carry one between processes (a run's record goes from its worker to the parent through
a pipe). A `GenericRecord` is pickled as its unparametrized class and its parameters instead,
both found by name, and parametrized again on loading (pydantic returns the same class).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)

__all__ = ["GenericRecord", "parameters_of", "parametrized"]


class GenericRecord(BaseModel):
    """A model that pickles whether or not it is parametrized."""

    def __reduce__(self) -> Any:
        meta = type(self).__pydantic_generic_metadata__
        if meta["origin"] is None:
            return super().__reduce__()
        return (_rebuilt, (meta["origin"], meta["args"], self.__getstate__()))


def parametrized(origin: type[Model], *models: Any) -> type[Model]:
    """`origin[models]`, or `origin` itself when `models` are none or its parameters' defaults:
    the default task's records and contexts keep their plain classes, exactly as they were made
    before any other task could be named."""
    parameters = origin.__pydantic_generic_metadata__["parameters"]
    if not models or models == tuple(getattr(p, "__default__", None) for p in parameters):
        return origin
    made: type[Model] = origin[models]  # type: ignore[index]
    return made


def parameters_of(model: BaseModel) -> tuple[Any, ...]:
    """The parameters `model`'s class was made with; () for an unparametrized class."""
    return tuple(type(model).__pydantic_generic_metadata__["args"])


def _rebuilt(origin: type[BaseModel], args: tuple[Any, ...], state: Any) -> BaseModel:
    made: type[BaseModel] = origin[args]  # type: ignore[index]
    model = made.__new__(made)
    model.__setstate__(state)
    return model
