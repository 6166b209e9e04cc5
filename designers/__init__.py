"""Designers: who writes the next round's generator configuration, and how they are found.

A designer reads a `DesignContext` (how the policy did, what the generator achieved, the history)
and returns a `Proposal` (the next `EnvConfig`, the raw changes, projection notes, rationale and,
for model-backed designers, the transcript). Designers are found by name through the
``harness.designers`` entry-point group; built-ins are registered the same way as plug-ins. An
entry such as ``gpt@V3`` names a designer under one context variant (`parse_entry`).
`check_designer` holds any designer, a plug-in's as the built-ins, to the contract the round loop
relies on, on the representative `sample_contexts`; the loop runs every step through
`run_design_step`, which holds each proposal to the same contract under a deadline. A teacher
that budgets over a task's arms (the values of its first cut, `task_arms`) builds on
`TeacherOptions`, as `learning-progress` and `regret` do.
"""

from designers.arms import Arm, Lever, task_arms
from designers.base import (
    BaseDesigner,
    Designer,
    DesignerNotReady,
    RuleDesigner,
    ServedModel,
    backend_endpoints,
    ensure_ready,
    own_initial_config,
    task_problem,
)
from designers.conformance import DesignerConformanceError, check_designer
from designers.context import DesignContext, Endpoint, RoundRecord, TrainingInfo
from designers.design_step import (
    CONTRACT_BROKEN,
    checked_initial_config,
    checked_proposal,
    kept_step,
    run_design_step,
)
from designers.entries import DesignerEntry, parse_entry, variant_suffixes
from designers.options import DesignerOptionsError, NoOptions, declared_options
from designers.proposal import ModelCall, Proposal
from designers.registry import (
    GROUP,
    DesignerLoadError,
    UnknownDesigner,
    create_designer,
    describe_designers,
    designer_names,
    designer_option_problems,
    designer_options_model,
    designer_tasks,
    takes_context_variant,
)
from designers.sample_contexts import sample_contexts, sample_report
from designers.teacher_options import TeacherOptions
from envdesign_common.conformance import ConformanceProblem

__all__ = [
    "CONTRACT_BROKEN",
    "GROUP",
    "Arm",
    "BaseDesigner",
    "ConformanceProblem",
    "DesignContext",
    "Designer",
    "DesignerConformanceError",
    "DesignerEntry",
    "DesignerLoadError",
    "DesignerNotReady",
    "DesignerOptionsError",
    "Endpoint",
    "Lever",
    "ModelCall",
    "NoOptions",
    "Proposal",
    "RoundRecord",
    "RuleDesigner",
    "ServedModel",
    "TeacherOptions",
    "TrainingInfo",
    "UnknownDesigner",
    "backend_endpoints",
    "check_designer",
    "checked_initial_config",
    "checked_proposal",
    "create_designer",
    "declared_options",
    "describe_designers",
    "designer_names",
    "designer_option_problems",
    "designer_options_model",
    "designer_tasks",
    "ensure_ready",
    "kept_step",
    "own_initial_config",
    "parse_entry",
    "run_design_step",
    "sample_contexts",
    "sample_report",
    "takes_context_variant",
    "task_arms",
    "task_problem",
    "variant_suffixes",
]
