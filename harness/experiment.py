"""`ExperimentConfig`: one comparison, written in YAML, with command-line overrides applied last.

An experiment names the backend and policy, the loop's budget (rounds, samples per round,
epochs), the GRPO settings, how round 0's configuration is chosen, the designers and seeds to
compare, the LLM designers' context variant, and what is evaluated (the validation set after
every round, the benchmark suites at the end). A designer entry may fix its own variant
(``gpt@V3``, ``gpt@V6+details``; `designers.entries`), so one comparison can run one model
under several variants, each its own row. Presets ship in `harness/presets/` (linked
from configs/); every field can be overridden as ``dotted.key=value`` (the value read as YAML).
A bad field is one line naming its path, value and what is allowed, and names the `--set` that
caused it rather than the file it was laid over.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    SerializationInfo,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from designers import DesignerLoadError, UnknownDesigner, parse_entry, takes_context_variant
from designers.entries import variant_suffixes
from envdesign_common import InputError, load_yaml, path_name_problem
from envdesign_common.field_errors import ConfigError, error_details_lines, error_message, shorten
from envdesign_common.yaml_mappings import read_mapping
from harness.backends.registry import backend_names, backend_spec
from harness.backends.spec import BackendSpec
from run_records import safe_name
from tasks import (
    DEFAULT_TASK,
    Task,
    TaskLoadError,
    TaskSpec,
    UnknownTask,
    cached_task,
    resolve_task_id,
    serves,
    task_spec,
)

Section = TypeVar("Section", bound=BaseModel)
"""A backend's settings class (`ExperimentConfig.settings_of`)."""

MAX_BEST_OF = 64
"""Most samples per instance for best-of-n (the paper's 8 is the default); each is a rollout on
every benchmark instance, and the answers file grows with it (about 0.66 MB per run at 8)."""
MAX_SEED = 2**32
"""Seeds are 0 <= seed < 2**32, what every seeded generator (numpy's included) takes."""
MAX_LEARNING_RATE = 1.0
DESIGN_DEADLINE_S = 1800.0
"""Seconds a design step may take by default: an LLM designer's step on a GPU (an analysis and
a summary call, a retry or two, each well under a minute when served locally) with room to
spare; past it the step is a failed one (`designers.run_design_step`), not a hung run."""
MAX_DESIGN_DEADLINE_S = 7 * 24 * 3600.0
MAX_KL_COEF = 10.0


def _runnable_entry(entry: str) -> str:
    """`entry` if its variant suffix is well formed and its designer reads a variant; unknown
    names are left to preflight, which lists them all with the registered names."""
    try:
        parsed = parse_entry(entry)
    except ValueError as err:  # a bad suffix, with a did-you-mean; the line shows the entry
        raise ValueError(str(err).removeprefix(f"designer {entry!r}: ")) from None
    try:
        reads_variant = parsed.variant is None or takes_context_variant(parsed.spec)
    except (UnknownDesigner, DesignerLoadError):
        return entry
    if not reads_variant:
        raise ValueError(parsed.no_variant_read())
    return entry


def _directory_name(name: str) -> str:
    """`name` if it can be one directory name (the runs' `<out>/<name>/`)."""
    problem = path_name_problem(name)
    if problem:
        raise ValueError(problem)
    return name


def _entry_directory(entry: str) -> str:
    """An entry whose run directory name (`safe_name`) stays below the experiment's."""
    problem = path_name_problem(safe_name(entry))
    if problem:
        raise ValueError(f"as a run directory it {problem}")
    return entry


DesignerEntryName = Annotated[
    str, AfterValidator(_entry_directory), AfterValidator(_runnable_entry)
]
"""A designer entry (``gpt``, ``gpt@V3``), checked as far as the config alone can."""


class GRPOSettings(BaseModel):
    """The RL update (group size n, constant learning rate, KL to the round's reference).

    Defaults suit the CPU learner; the paper's GPU recipe (lr 2e-6, KL 1e-3) comes with its
    preset."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    group_size: int = Field(8, ge=2, description="Sampled answers per instance (n).")
    learning_rate: float = Field(
        1e-3, gt=0, le=MAX_LEARNING_RATE, description="Constant learning rate."
    )
    kl_coef: float = Field(
        0.01, ge=0, le=MAX_KL_COEF, description="KL penalty to the round's frozen reference."
    )


class InitialConfig(BaseModel):
    """Round 0: the task's own start for the run's seed (MAPF: drawn at random, as in the
    paper), or given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["random", "given"] = "random"
    config: SerializeAsAny[BaseModel] | None = Field(
        default=None,
        description="The given configuration, in the task's own configuration model (checked "
        "with it when the experiment is read).",
    )

    @model_validator(mode="after")
    def _given_needs_config(self) -> InitialConfig:
        if self.kind == "given" and self.config is None:
            raise ValueError("initial.kind is 'given' but initial.config is missing")
        return self


class ExperimentConfig(BaseModel):
    """Everything that defines a comparison; recorded in every run directory."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: Annotated[str, AfterValidator(_directory_name)] = Field(
        "experiment", description="Names the runs/<name>/ directory: one directory name."
    )
    task: str = Field(
        DEFAULT_TASK,
        description="What is learned and judged: a registered task's versioned id "
        "(mapf-frozenlake-v2) or its family's name for the newest version; runs record the id.",
    )
    task_settings: SerializeAsAny[BaseModel] | None = Field(
        default=None,
        description="What the task holds fixed while designers change its configuration, in "
        "the task's own settings model (mapf-frozenlake: n_agents, objective, reward; "
        "reasoning-gym: datasets); filled with its defaults when missing; None: the task takes "
        "none. `harness tasks show TASK` lists them.",
    )
    backend: str = Field(
        "cpu",
        validate_default=True,  # the default must serve the experiment's task too
        description="The trainer, a registered backend: cpu (the MLP learner), trl (a Hugging "
        "Face model with TRL, one GPU or a CPU), verl (GRPO on GPUs), or a plug-in's; its "
        "settings go in a section of its name (trl: ..., verl: ...).",
    )
    policy: str = Field(
        "mlp",
        description="cpu: 'mlp' (illegal moves masked) or 'mlp-free' (every failure type "
        "possible, learned away); trl and verl: a Hugging Face model id or path.",
    )
    rounds: int = Field(3, ge=1, le=1000)
    samples_per_round: int = Field(4000, ge=1, le=1_000_000)
    epochs_per_round: int = Field(3, ge=1, le=100)
    grpo: GRPOSettings = Field(default_factory=GRPOSettings)
    precision: Literal["fp32", "bf16"] = Field(
        "fp32",
        description="The CPU learner's float format: fp32, or bf16 autocast (faster only on "
        "CPUs with avx512_bf16 / amx_bf16, emulated and slower elsewhere). Never picked from "
        "the CPU, so a config computes alike everywhere; boards keep the two apart.",
    )
    initial: InitialConfig = Field(default_factory=InitialConfig)
    designers: tuple[DesignerEntryName, ...] = Field(
        ("random",),
        min_length=1,
        description="Designer entries: a registry name, optionally with a context variant "
        "(gpt@V3, gpt@V6+details); each entry is one row of the board.",
    )
    designer_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Options per designer, passed to its factory: under a bare name (gpt) "
        "for all its entries, under a whole entry (gpt@V3) for that one, overriding.",
    )
    seeds: tuple[int, ...] = Field((0,), min_length=1)
    variant: str = Field(
        "V6", description="Context variant (V1..V6) of the LLM designers named without one."
    )
    validation: str = Field(
        description="Suite evaluated after every round; the task's own when missing."
    )
    benchmarks: tuple[str, ...] = Field(
        description="Suites scored at the end; the task's own when missing."
    )
    best_of: int = Field(
        8, ge=1, le=MAX_BEST_OF, description="Samples per instance for best-of-n evaluation."
    )
    limit: int | None = Field(
        None,
        ge=1,
        description="Instances per suite, validation and benchmarks alike: a stratified subset "
        "(every size, wait subset and hole ratio kept in proportion; mapf_env.stratified) for "
        "a backend too slow for whole suites, such as a language model on a CPU. None: whole "
        "suites. Boards never pool runs of different limits.",
    )
    design_deadline_s: float = Field(
        DESIGN_DEADLINE_S,
        gt=0,
        le=MAX_DESIGN_DEADLINE_S,
        description="Seconds one design step may take, for every designer without its own in "
        "design_deadlines; past it the step fails, the configuration is kept and the run goes "
        "on. Boards and resume let it differ: it bounds a step, it does not change one.",
    )
    design_deadlines: dict[str, Annotated[float, Field(gt=0, le=MAX_DESIGN_DEADLINE_S)]] = Field(
        default_factory=dict,
        description="Seconds per designer, overriding design_deadline_s: under a bare name "
        "(gpt) for all its entries, under a whole entry (gpt@V3) for that one.",
    )
    backend_settings: SerializeAsAny[BaseModel] | None = Field(
        default=None,
        exclude=True,
        description="The backend's own section, read from the key named after it (verl: GPUs, "
        "batches, lengths, checkpoints) and validated by its spec's settings model; filled with "
        "its defaults when missing. Written back under that key.",
    )

    @field_validator("task")
    @classmethod
    def _registered_task(cls, value: str) -> str:
        try:
            return resolve_task_id(value)
        except UnknownTask as err:
            raise ValueError(str(err)) from None

    @field_validator("backend")
    @classmethod
    def _registered_backend(cls, value: str) -> str:
        names = backend_names()
        if value not in names:  # worded as a Literal's error, so it reads as every choice does
            quoted = [repr(name) for name in names]
            expected = " or ".join(
                [", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted
            )
            raise PydanticCustomError("literal_error", "Input should be {expected}",
                                      {"expected": expected})  # fmt: skip
        return value

    @field_validator("backend")
    @classmethod
    def _serves_the_task(cls, value: str, info: ValidationInfo) -> str:
        task = info.data.get("task")  # absent when the task itself was refused
        served = backend_spec(value).tasks
        if task is None or served is None or serves(served, task):
            return value
        raise ValueError(
            f"{value!r} trains {', '.join(served)} only, not task {task!r}; choose a backend "
            "that serves it (harness backends list says which)"
        )

    @model_validator(mode="wrap")
    @classmethod
    def _task_section(
        cls, data: Any, handler: ModelWrapValidatorHandler[ExperimentConfig]
    ) -> ExperimentConfig:
        """Read what belongs to the task with the task's own models -- ``task_settings`` with
        its settings model, a given round-0 configuration with its configuration model -- fill
        the suites the experiment leaves to the task, and check the ones it names; every
        error is reported under its key beside the other fields' (`task_settings.n_agents`)."""
        if not isinstance(data, Mapping):
            return handler(data)
        try:
            spec = task_spec(str(data.get("task", DEFAULT_TASK)))
        except UnknownTask:
            return handler(data)  # the task field's own validator says why
        given = dict(data)
        settings, errors = _task_settings(spec, given.get("task_settings"))
        task = None
        if not errors:
            try:
                task = cached_task(spec.id, settings)
            except TaskLoadError as err:
                errors = [_error(("task",), str(err), given.get("task"))]
            except ConfigError as err:
                errors = [_error(("task_settings",), str(err), given.get("task_settings"))]
        given["task_settings"] = settings
        if task is not None:
            given.setdefault("validation", task.validation_suite)
            given.setdefault("benchmarks", task.benchmark_suites)
            errors += _initial_errors(task, given)
        else:  # the section's errors stand for the task's; no "field required" beside them
            given.setdefault("validation", "")
            given.setdefault("benchmarks", ())
        try:
            made = handler(given)
        except ValidationError as err:
            errors = [*_relocated(err, ()), *errors]
        else:
            errors += _suite_errors(task, made) if task is not None else []
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return made

    @model_validator(mode="wrap")
    @classmethod
    def _backend_section(
        cls, data: Any, handler: ModelWrapValidatorHandler[ExperimentConfig]
    ) -> ExperimentConfig:
        """Validate the section named after the backend with the backend's own model, and
        report its errors under that name beside the other fields' (`verl.n_gpus: ...`)."""
        if not isinstance(data, Mapping):
            return handler(data)
        if not isinstance(data.get("backend_settings"), BaseModel | None):
            raise ValueError(
                "backend_settings is not a key to write: put the backend's settings in a "
                "section of its name (verl: ...)"
            )
        name = data.get("backend", "cpu")
        if not isinstance(name, str) or name not in backend_names() or "backend_settings" in data:
            return handler(data)
        model = backend_spec(name).settings
        if model is None:
            return handler(data)  # a section under its name is refused as an unknown field
        errors: list[InitErrorDetails] = []
        settings = None
        try:
            settings = model.model_validate(data.get(name) or {})
        except ValidationError as err:
            errors = _relocated(err, (name,))
        rest = {key: value for key, value in data.items() if key != name}
        try:
            made = handler({**rest, "backend_settings": settings})
        except ValidationError as err:
            errors = [*_relocated(err, ()), *errors]
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return made

    @model_serializer(mode="wrap")
    def _as_written(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # The experiment as a file holds it, which is also what run.json and result.json record
        # and what resume and boards compare key by key: the backend's section under the
        # backend's name, where it is read from (none for a backend without settings), and
        # `limit` only when set -- a recorded experiment without the key means whole suites
        # (RecordedExperiment.limit), so every run of whole suites records the same mapping.
        # A backend may leave its section out while it holds only defaults (the cpu backend,
        # whose section came after its records), so those records stay comparable.
        out: dict[str, Any] = handler(self)
        section = self.backend_settings
        if section is not None and (
            self.backend_spec.section_when_default or section != type(section)()
        ):
            out[self.backend] = section.model_dump(mode=info.mode)
        if out.get("limit") is None:
            out.pop("limit", None)
        return out

    @property
    def task_object(self) -> Task[Any, Any]:
        """The experiment's task, built with its settings (once per process)."""
        return cached_task(self.task, self.task_settings)

    @property
    def backend_spec(self) -> BackendSpec:
        """The backend's spec: what the harness knows of the backend before building it (its
        settings, resources and hooks), loaded once per process by the registry."""
        return backend_spec(self.backend)

    def settings_of(self, model: type[Section]) -> Section:
        """The backend's section as `model` (the backend's own settings class)."""
        if not isinstance(self.backend_settings, model):
            raise TypeError(
                f"backend {self.backend!r} has no {model.__name__} section "
                f"(it has {type(self.backend_settings).__name__})"
            )
        return self.backend_settings

    @field_validator("seeds")
    @classmethod
    def _seeds_in_range(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        bad = [seed for seed in value if not 0 <= seed < MAX_SEED]
        if bad:
            raise ValueError(f"each seed must be 0 <= seed < 2**32 ({MAX_SEED})")
        return value

    @field_validator("designers")
    @classmethod
    def _each_entry_once(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        twice = [entry for entry, n in Counter(value).items() if n > 1]
        if twice:
            raise ValueError(
                f"{', '.join(repr(e) for e in twice)} named more than once; each entry is one "
                "run per seed and one row of the board: name it once"
            )
        return value

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        choices = [c for c in variant_suffixes() if "+" not in c]
        if value.strip().upper() not in choices:
            close = difflib.get_close_matches(value.strip().upper(), choices, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"no context variant {value!r}; choose one of {', '.join(choices)}{hint}"
            )
        return value

    @model_validator(mode="after")
    def _deadlines_name_designers(self) -> ExperimentConfig:
        keys = {key for e in self.designers for key in (e, parse_entry(e).spec)}
        stray = [key for key in self.design_deadlines if key not in keys]
        if stray:
            close = difflib.get_close_matches(stray[0], sorted(keys), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"design_deadlines names {', '.join(repr(k) for k in stray)}, not a designer of "
                f"this comparison (designers: {', '.join(self.designers)}){hint}"
            )
        return self

    def design_deadline(self, entry: str) -> float:
        """Seconds a design step of `entry` may take: its whole entry's, else its bare name's,
        else the experiment's default."""
        for key in (entry, parse_entry(entry).spec):
            if key in self.design_deadlines:
                return self.design_deadlines[key]
        return self.design_deadline_s

    @model_validator(mode="after")
    def _fits_the_backend(self) -> ExperimentConfig:
        problems = self.backend_spec.config_problems(self.policy, self.precision)
        if problems:
            raise ValueError(problems[0])
        problem = self.backend_spec.task_problem(self.task_object)
        if problem is not None:
            raise ValueError(problem)
        return self

    @classmethod
    def load(cls, path: str | Path, overrides: Iterable[str | Override] = ()) -> ExperimentConfig:
        """A config file with overrides applied last: `--set` strings (``key=value``, the
        value read as YAML) or typed `Override` values a command's own options give."""
        source = Path(path)
        if not source.is_file():
            raise ConfigError(f"no experiment config at {source}")
        data = read_mapping(source)
        if not data:
            raise ConfigError(
                f"{source}: the file sets nothing; an experiment names at least its designers "
                "(designers: [random, hand]); configs/quick.yaml shows every field"
            )
        given = [Override.of(item) for item in overrides]
        return cls.from_mapping(apply_overrides(data, given), origin=str(source), overrides=given)

    @classmethod
    def from_mapping(
        cls,
        data: Mapping[str, Any],
        origin: str = "config",
        overrides: Sequence[str | Override] = (),
    ) -> ExperimentConfig:
        """Validate `data` (read from `origin`, with `overrides` already laid over it).

        A bad field under a key an override set is blamed on that override (the `--set` or
        the option that gave it), the rest on `origin`.
        """
        try:
            return cls.model_validate(dict(data))
        except ValidationError as err:
            given = [Override.of(item) for item in overrides]
            raise ConfigError(_explain(err, origin, given, data.get("task"))) from None

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


@dataclass(frozen=True)
class Override:
    """One value laid over an experiment file at a dotted `path`, and where it came from
    (`origin`, named in its errors): ``--set rounds=10`` read as YAML, or a command's own
    option (``--designers a,b``) given as the value itself, never written out as YAML text
    and parsed back."""

    path: tuple[str, ...]
    value: Any
    origin: str

    @classmethod
    def of(cls, item: str | Override) -> Override:
        """`item` as an override: a ``key=value`` string's value is read as YAML (safely)."""
        if isinstance(item, Override):
            return item
        origin = f"--set {shorten(item)}"
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{origin}: not key=value (e.g. rounds=10)")
        try:
            value = load_yaml(raw)
        except InputError as err:
            raise ConfigError(f"{origin}: value: {err}") from None
        return cls(tuple(key.strip().split(".")), value, origin)


def apply_overrides(data: Mapping[str, Any], overrides: Iterable[str | Override]) -> dict[str, Any]:
    """`overrides` laid over `data`, in order; `--set` strings are read as `Override.of` does."""
    out: dict[str, Any] = _deep_copy(data)
    for item in overrides:
        given = Override.of(item)
        *parents, leaf = given.path
        node = out
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"{given.origin}: {part} is not a section")
            node = child
        node[leaf] = given.value
    return out


def _explain(err: ValidationError, origin: str, overrides: Sequence[Override], task: Any) -> str:
    """One line per bad field, grouped under the file or the override that supplied it."""
    paths = [(given.path, given.origin) for given in overrides]
    by_origin: dict[str, list[ErrorDetails]] = {}
    for error in err.errors(include_url=False):
        by_origin.setdefault(_origin_of(error["loc"], paths, origin), []).append(error)
    order = [origin, *(name for _, name in paths)]  # the file, then the overrides in order
    return error_message(
        [(who, _field_lines(by_origin[who], task)) for who in sorted(by_origin, key=order.index)]
    )


def _field_lines(errors: Sequence[ErrorDetails], task: Any) -> list[str]:
    """One line per bad field; those in a backend's section, the task's settings or a given
    round-0 configuration described from their own models (field types, ranges and
    did-you-mean), under the section's name. `task` is what the experiment named."""
    models: dict[tuple[str, ...], type[BaseModel]] = {
        (name,): model for name in backend_names()
        if (model := backend_spec(name).settings) is not None
    }  # fmt: skip
    models.update(_task_models(task))
    sections: dict[tuple[str, ...], list[ErrorDetails]] = {}
    rest: list[ErrorDetails] = []
    for error in errors:
        where = tuple(str(part) for part in error["loc"])
        head = next((key for key in models if where[: len(key)] == key), None)
        if head is None:
            rest.append(error)
        else:
            sections.setdefault(head, []).append({**error, "loc": error["loc"][len(head) :]})
    lines = error_details_lines(rest, ExperimentConfig)
    for head, found in sections.items():
        lines += error_details_lines(found, models[head], prefix=".".join(head) + ".")
    return lines


def _task_models(task: Any) -> dict[tuple[str, ...], type[BaseModel]]:
    """The models of the task's sections, where the task named can be found and built."""
    try:
        spec = task_spec(str(task if task is not None else DEFAULT_TASK))
    except UnknownTask:
        return {}
    models: dict[tuple[str, ...], type[BaseModel]] = {}
    if spec.settings is not None:
        models[("task_settings",)] = spec.settings
    with suppress(TaskLoadError, ConfigError):  # the task's own error is reported under "task"
        models[("initial", "config")] = cached_task(spec.id).config_model
    return models


def _origin_of(
    loc: tuple[int | str, ...], paths: Sequence[tuple[tuple[str, ...], str]], origin: str
) -> str:
    """The last override whose key is the error's field, inside it, or a section holding it."""
    where = tuple(str(part) for part in loc)
    for path, name in reversed(paths):
        depth = min(len(path), len(where))
        if where and where[:depth] == path[:depth]:
            return name
    return origin


def _task_settings(spec: TaskSpec, section: Any) -> tuple[BaseModel | None, list[InitErrorDetails]]:
    """The experiment's ``task_settings`` as the task's settings model, or its errors located
    under ``task_settings``."""
    if spec.settings is None:
        if section:
            return None, [_error(("task_settings",), f"task {spec.id!r} takes no settings; "
                                 "remove the section", section)]  # fmt: skip
        return None, []
    if isinstance(section, spec.settings):
        return section, []
    if section is not None and not isinstance(section, Mapping):
        return None, [_error(("task_settings",), "must be a section of the task's settings "
                             "(harness tasks show TASK lists them)", section)]  # fmt: skip
    try:
        return spec.settings.model_validate(dict(section or {})), []
    except ValidationError as err:
        return None, _relocated(err, ("task_settings",))


def _initial_errors(task: Task[Any, Any], given: dict[str, Any]) -> list[InitErrorDetails]:
    """A given round-0 configuration read with the task's configuration model (in place in
    `given`), or its errors located under ``initial.config``."""
    initial = given.get("initial")
    if not isinstance(initial, Mapping) or not isinstance(initial.get("config"), Mapping):
        return []
    try:
        config = task.config_model.model_validate(dict(initial["config"]))
    except ValidationError as err:
        return _relocated(err, ("initial", "config"))
    given["initial"] = {**initial, "config": config}
    return []


def _suite_errors(task: Task[Any, Any], made: ExperimentConfig) -> list[InitErrorDetails]:
    """The suites `made` names that its task does not have."""
    named: list[tuple[tuple[str | int, ...], str]] = [(("validation",), made.validation)]
    named += [(("benchmarks", i), name) for i, name in enumerate(made.benchmarks)]
    return [
        _error(loc, f"no benchmark suite {name!r} in task {task.id}; its suites are "
               f"{', '.join(task.suite_names)}", name)
        for loc, name in named
        if name not in task.suite_names
    ]  # fmt: skip


def _error(loc: tuple[str | int, ...], message: str, value: Any) -> InitErrorDetails:
    """One error of ours, located like pydantic's own."""
    return {"type": PydanticCustomError("value_error", message), "loc": loc, "input": value}


def _relocated(err: ValidationError, prefix: tuple[str, ...]) -> list[InitErrorDetails]:
    """`err`'s errors as raisable details, each located under `prefix`."""
    out: list[InitErrorDetails] = []
    for e in err.errors(include_url=False):
        # An error of ours (`_error`) has no context to rebuild its message from: it travels
        # as a custom error with its message; pydantic's own keep their type and context.
        kind = e["type"] if "ctx" in e else PydanticCustomError(e["type"], e["msg"])
        item: InitErrorDetails = {"type": kind, "loc": (*prefix, *e["loc"]), "input": e["input"]}
        if "ctx" in e:
            item["ctx"] = e["ctx"]
        out.append(item)
    return out


def _deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in data.items()}
