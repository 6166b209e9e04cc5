"""MAPF-FrozenLake: the testbed every designer is judged on.

Several agents cross an N x N frozen lake with holes without colliding. This package generates
instances from a configuration, solves them exactly, renders prompts, parses and verifies
answers, scores them, exports verl datasets and ships the fixed benchmark suites. It imports
nothing from the rest of the project.
"""

from mapf_env.config import EnvConfig, SizeConfig, random_config
from mapf_env.export import (
    DATA_SOURCE,
    VERL_SCHEMA,
    instance_from_ground_truth,
    read_jsonl,
    read_parquet,
    read_provenance,
    read_records,
    to_record,
    verl_rows_schema,
    write_jsonl,
    write_parquet,
)
from mapf_env.generator import GeneratedRound, GenerationStats, SizeStats, generate
from mapf_env.instance import (
    HOLE,
    ICE,
    MAX_SIZE,
    MIN_SIZE,
    SIZES,
    Cell,
    Instance,
    Objective,
    Optimum,
    Path,
    Plan,
)
from mapf_env.overlap import SuiteOverlapError, puzzle_key, shared_puzzles
from mapf_env.parser import ParseResult, parse
from mapf_env.paths import Conflict, first_conflict, makespan, path_cost, plan_cost, sum_of_costs
from mapf_env.projection import ConfigDraft, Projection, merge, project
from mapf_env.prompt import PROMPT_VERSION, format_plan, reference_answer, render_prompt
from mapf_env.report import EvalReport, RateCounts
from mapf_env.reward import (
    DEFAULT_CONFIG as DEFAULT_REWARD_CONFIG,
)
from mapf_env.reward import (
    RewardBreakdown,
    RewardConfig,
    accuracy_weight,
    reward,
)
from mapf_env.solver import (
    SolveResult,
    SolverLimits,
    SolveStatus,
    conflict_free_plan,
    find_optimum,
    individual_costs,
    needs_conflict_resolution,
    solve,
)
from mapf_env.subsets import stratified
from mapf_env.suites import (
    BENCHMARK_SUITES,
    SUITES,
    BenchmarkItem,
    BenchmarkSuite,
    SuiteSpec,
    available_suites,
    build_suite,
    load_suite,
)
from mapf_env.verifier import AnswerKeyError, FailureType, Verdict, check_plan, verify

__all__ = [
    "BENCHMARK_SUITES",
    "DATA_SOURCE",
    "DEFAULT_REWARD_CONFIG",
    "HOLE",
    "ICE",
    "MAX_SIZE",
    "MIN_SIZE",
    "PROMPT_VERSION",
    "SIZES",
    "SUITES",
    "VERL_SCHEMA",
    "AnswerKeyError",
    "BenchmarkItem",
    "BenchmarkSuite",
    "Cell",
    "ConfigDraft",
    "Conflict",
    "EnvConfig",
    "EvalReport",
    "FailureType",
    "GeneratedRound",
    "GenerationStats",
    "Instance",
    "Objective",
    "Optimum",
    "ParseResult",
    "Path",
    "Plan",
    "Projection",
    "RateCounts",
    "RewardBreakdown",
    "RewardConfig",
    "SizeConfig",
    "SizeStats",
    "SolveResult",
    "SolveStatus",
    "SolverLimits",
    "SuiteOverlapError",
    "SuiteSpec",
    "Verdict",
    "accuracy_weight",
    "available_suites",
    "build_suite",
    "check_plan",
    "conflict_free_plan",
    "find_optimum",
    "first_conflict",
    "format_plan",
    "generate",
    "individual_costs",
    "instance_from_ground_truth",
    "load_suite",
    "makespan",
    "merge",
    "needs_conflict_resolution",
    "parse",
    "path_cost",
    "plan_cost",
    "project",
    "puzzle_key",
    "random_config",
    "read_jsonl",
    "read_parquet",
    "read_provenance",
    "read_records",
    "reference_answer",
    "render_prompt",
    "reward",
    "shared_puzzles",
    "solve",
    "stratified",
    "sum_of_costs",
    "to_record",
    "verify",
    "verl_rows_schema",
    "write_jsonl",
    "write_parquet",
]
