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
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import ErrorDetails

from designers import DesignerLoadError, UnknownDesigner, parse_entry, takes_context_variant
from designers.entries import variant_suffixes
from harness.backends.verl.settings import VerlSettings
from mapf_env import ConfigError, EnvConfig, Objective, random_config
from mapf_env.config import load_mapping
from mapf_env.field_errors import error_details_lines, error_message, shorten
from mapf_env.suites import BENCHMARK_SUITES, SUITES

CPU_POLICIES: dict[str, Literal["masked", "free"]] = {"mlp": "masked", "mlp-free": "free"}
"""The cpu backend's policies, each with the `CpuLearnerSettings.actions` it trains: ``mlp``
never steps into a hole or off the grid and always writes its answer correctly (it fails only
by conflict or goal); ``mlp-free`` can make every mistake the verifier names and learns not to
(`harness.backends.cpu.writing`). The name is the config's `policy`, so every record keeps it
and boards never pool the two."""


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


DesignerEntryName = Annotated[str, AfterValidator(_runnable_entry)]
"""A designer entry (``gpt``, ``gpt@V3``), checked as far as the config alone can."""


class GRPOSettings(BaseModel):
    """The RL update (group size n, constant learning rate, KL to the round's reference).

    Defaults suit the CPU learner; the paper's GPU recipe (lr 2e-6, KL 1e-3) comes with its
    preset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    group_size: int = Field(8, ge=2, description="Sampled answers per instance (n).")
    learning_rate: float = Field(1e-3, gt=0, description="Constant learning rate.")
    kl_coef: float = Field(0.01, ge=0, description="KL penalty to the round's frozen reference.")


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

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("experiment", description="Names the runs/<name>/ directory.")
    backend: Literal["cpu", "verl"] = "cpu"
    policy: str = Field(
        "mlp",
        description="cpu: 'mlp' (illegal moves masked) or 'mlp-free' (every failure type "
        "possible, learned away); verl: a Hugging Face model id or path.",
    )
    rounds: int = Field(3, ge=1, le=1000)
    samples_per_round: int = Field(4000, ge=1, le=1_000_000)
    epochs_per_round: int = Field(3, ge=1, le=100)
    n_agents: int = Field(2, ge=1, le=8, description="Agents per training instance.")
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
    best_of: int = Field(8, ge=1, description="Samples per instance for best-of-n evaluation.")
    verl: VerlSettings | None = Field(
        default=None,
        description="The verl backend's settings (GPUs, batches, lengths, checkpoints); "
        "filled with the paper's recipe when backend is verl and the section is missing.",
    )

    @model_validator(mode="before")
    @classmethod
    def _verl_section(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("backend") == "verl" and data.get("verl") is None:
            return {**data, "verl": {}}
        return data

    @model_serializer(mode="wrap")
    def _as_older_runs_recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # CPU experiments record exactly what they did before the verl section existed, so
        # their run directories still resume.
        out: dict[str, Any] = handler(self)
        if out.get("verl", ...) is None:
            del out["verl"]
        # Likewise the default reward objective (SOC, all a run could train on before the field
        # existed): its absence in a record means SOC, and older runs compare equal.
        if out.get("reward_objective") == Objective.SOC.value:
            del out["reward_objective"]
        return out

    @model_validator(mode="after")
    def _precision_of_the_cpu_learner(self) -> ExperimentConfig:
        if self.backend != "cpu" and self.precision != "fp32":
            raise ValueError(
                f"precision {self.precision} is the cpu backend's setting; {self.backend} sets "
                f"its dtypes in its own section: leave precision out"
            )
        return self

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
    def _policy_fits_backend(self) -> ExperimentConfig:
        if self.backend == "verl" and self.policy in CPU_POLICIES:
            raise ValueError(
                f"policy {self.policy!r} is the CPU learner's network; the verl backend trains "
                "a Hugging Face model: set policy (e.g. --set policy=Qwen/Qwen3-4B)"
            )
        if self.backend == "cpu" and self.policy not in CPU_POLICIES:
            raise ValueError(
                f"policy {self.policy!r} is not a CPU learner; backend cpu trains "
                f"{' or '.join(map(repr, CPU_POLICIES))} (a Hugging Face model needs backend verl)"
            )
        return self

    @classmethod
    def load(cls, path: str | Path, overrides: Iterable[str] = ()) -> ExperimentConfig:
        """A config file with `key=value` overrides applied last."""
        source = Path(path)
        if not source.is_file():
            raise ConfigError(f"no experiment config at {source}")
        data = load_mapping(source.read_text(encoding="utf-8"), str(source))
        overrides = list(overrides)
        return cls.from_mapping(
            apply_overrides(data, overrides), origin=str(source), overrides=overrides
        )

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any], origin: str = "config", overrides: Sequence[str] = ()
    ) -> ExperimentConfig:
        """Validate `data` (read from `origin`, with `overrides` already laid over it).

        A bad field under a key an override set is blamed on that `--set`, the rest on `origin`.
        """
        try:
            return cls.model_validate(dict(data))
        except ValidationError as err:
            raise ConfigError(_explain(err, origin, overrides)) from None

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def apply_overrides(data: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """`a.b=value` pairs laid over `data`; values are read as YAML (numbers, lists, ...)."""
    out: dict[str, Any] = _deep_copy(data)
    for item in overrides:
        *parents, leaf = _override_path(item)
        _, _, raw = item.partition("=")
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError as err:
            raise ConfigError(f"{_set(item)}: value is not valid YAML: {err}") from None
        node = out
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"{_set(item)}: {part} is not a section")
            node = child
        node[leaf] = value
    return out


def _set(item: str) -> str:
    """How an override is named in errors: as the user typed it, bounded."""
    return f"--set {shorten(item)}"


def _override_path(item: str) -> tuple[str, ...]:
    key, sep, _ = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{_set(item)}: not key=value (e.g. rounds=10)")
    return tuple(key.strip().split("."))


def _explain(err: ValidationError, origin: str, overrides: Sequence[str]) -> str:
    """One line per bad field, grouped under the file or the `--set` that supplied it."""
    paths = [(_override_path(item), _set(item)) for item in overrides]
    by_origin: dict[str, list[ErrorDetails]] = {}
    for error in err.errors(include_url=False):
        by_origin.setdefault(_origin_of(error["loc"], paths, origin), []).append(error)
    order = [origin, *(name for _, name in paths)]  # the file, then the --set in given order
    return error_message(
        [
            (who, error_details_lines(by_origin[who], ExperimentConfig))
            for who in sorted(by_origin, key=order.index)
        ]
    )


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


def _deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in data.items()}
