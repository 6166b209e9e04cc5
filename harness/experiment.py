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
from harness.backends.registry import backend_names, backend_spec
from harness.backends.spec import BackendSpec
from mapf_env import MIN_SIZE, EnvConfig, Objective, random_config
from mapf_env.config import read_mapping
from mapf_env.suites import BENCHMARK_SUITES, SUITES
from run_records import safe_name
from tasks import UnknownTask, resolve_task_id, serves
from tasks.mapf_frozenlake import TASK_ID as DEFAULT_TASK

Section = TypeVar("Section", bound=BaseModel)
"""A backend's settings class (`ExperimentConfig.settings_of`)."""

MAX_TRAINING_AGENTS = MIN_SIZE * MIN_SIZE // 2
"""Most agents a training instance may have: every map size may get samples (a designer picks
the ratios), and the smallest grid holds 2 x agents distinct start and goal cells."""
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
    """Round 0: drawn at random from the run's seed (the paper), or given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["random", "given"] = "random"
    config: EnvConfig | None = Field(default=None, description="The given configuration.")

    @model_validator(mode="after")
    def _given_needs_config(self) -> InitialConfig:
        if self.kind == "given" and self.config is None:
            raise ValueError("initial.kind is 'given' but initial.config is missing")
        return self

    def resolve(
        self, seed: int, n_agents: int, samples: int, objective: Objective = Objective.SOC
    ) -> EnvConfig:
        """The shared round-0 configuration of a run with `seed`."""
        fixed = {"n_agents": n_agents, "samples": samples, "objective": objective}
        if self.config is not None and self.kind == "given":
            return self.config.model_copy(update=fixed)
        return random_config(seed, n_agents=n_agents, samples=samples).model_copy(update=fixed)


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
    n_agents: int = Field(
        2,
        ge=1,
        le=MAX_TRAINING_AGENTS,
        description="Agents per training instance (at most what a 3x3 grid holds).",
    )
    grpo: GRPOSettings = Field(default_factory=GRPOSettings)
    precision: Literal["fp32", "bf16"] = Field(
        "fp32",
        description="The CPU learner's float format: fp32, or bf16 autocast (faster only on "
        "CPUs with avx512_bf16 / amx_bf16, emulated and slower elsewhere). Never picked from "
        "the CPU, so a config computes alike everywhere; boards keep the two apart.",
    )
    reward_objective: Objective = Field(
        Objective.SOC,
        description="The optimum the training instances are solved for, which the prompt asks "
        "for and the reward's accuracy term pays: soc (default) or makespan. Benchmarks carry "
        "both minima and report both optimal rates whichever is trained.",
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
    validation: str = Field("validation", description="Suite evaluated after every round.")
    benchmarks: tuple[str, ...] = BENCHMARK_SUITES
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
    def _as_older_runs_recorded(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # The backend's section goes back under its name, where the file had it; a backend
        # without one writes none, so CPU experiments record exactly what they did before
        # sections existed, and their run directories still resume.
        out: dict[str, Any] = handler(self)
        if self.backend_settings is not None:
            out[self.backend] = self.backend_settings.model_dump(mode=info.mode)
        # Likewise the default reward objective (SOC, all a run could train on before the field
        # existed): its absence in a record means SOC, and older runs compare equal.
        if out.get("reward_objective") == Objective.SOC.value:
            del out["reward_objective"]
        if out.get("limit") is None:  # whole suites, as every record without the key was scored
            out.pop("limit", None)
        return out

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

    @field_validator("validation", "benchmarks")
    @classmethod
    def _known_suites(cls, value: str | tuple[str, ...]) -> str | tuple[str, ...]:
        for suite in (value,) if isinstance(value, str) else value:
            if suite not in SUITES:
                raise ValueError(f"no benchmark suite {suite!r}; suites are {', '.join(SUITES)}")
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
            raise ConfigError(_explain(err, origin, given)) from None

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


def _explain(err: ValidationError, origin: str, overrides: Sequence[Override]) -> str:
    """One line per bad field, grouped under the file or the override that supplied it."""
    paths = [(given.path, given.origin) for given in overrides]
    by_origin: dict[str, list[ErrorDetails]] = {}
    for error in err.errors(include_url=False):
        by_origin.setdefault(_origin_of(error["loc"], paths, origin), []).append(error)
    order = [origin, *(name for _, name in paths)]  # the file, then the overrides in order
    return error_message(
        [(who, _field_lines(by_origin[who])) for who in sorted(by_origin, key=order.index)]
    )


def _field_lines(errors: Sequence[ErrorDetails]) -> list[str]:
    """One line per bad field; those in a backend's section described from its own model
    (its field types, ranges and did-you-mean), under the section's name."""
    sections: dict[str, list[ErrorDetails]] = {}
    rest: list[ErrorDetails] = []
    for error in errors:
        head = str(error["loc"][0]) if error["loc"] else ""
        if head in backend_names() and backend_spec(head).settings is not None:
            sections.setdefault(head, []).append({**error, "loc": error["loc"][1:]})
        else:
            rest.append(error)
    lines = error_details_lines(rest, ExperimentConfig)
    for name, found in sections.items():
        lines += error_details_lines(found, backend_spec(name).settings, prefix=f"{name}.")
    return lines


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


def _relocated(err: ValidationError, prefix: tuple[str, ...]) -> list[InitErrorDetails]:
    """`err`'s errors as raisable details, each located under `prefix`."""
    out: list[InitErrorDetails] = []
    for e in err.errors(include_url=False):
        item: InitErrorDetails = {
            "type": e["type"],
            "loc": (*prefix, *e["loc"]),
            "input": e["input"],
        }
        if "ctx" in e:
            item["ctx"] = e["ctx"]
        out.append(item)
    return out


def _deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in data.items()}
