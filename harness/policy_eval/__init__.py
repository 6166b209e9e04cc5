"""Zero-shot policy evaluation: any LLM (or a CPU learner checkpoint) answers the benchmark
suites directly, and a `ResultRecord` of kind ``policy`` is written for the boards.

`harness eval --policy gpt --bench 3agents,4agents,5agents` on the command line;
`evaluate_policy(resolve_policy("gpt"), ["3agents"])` from Python.
"""

from harness.policy_eval.asking import Asker, Request, ask_all
from harness.policy_eval.cache import CACHE_FILE, AnswerCache, AnswerKey, CachedAnswer
from harness.policy_eval.errors import CacheError, PolicyEvalError, TooManyFailures
from harness.policy_eval.events import EvalEvent
from harness.policy_eval.policy import PolicySpec, check_ready, resolve_policy
from harness.policy_eval.runner import EvalOutcome, evaluate_policy, policy_dir
from harness.policy_eval.selection import load_suites
from harness.policy_eval.settings import Requests, Sampling

__all__ = [
    "CACHE_FILE",
    "AnswerCache",
    "AnswerKey",
    "Asker",
    "CacheError",
    "CachedAnswer",
    "EvalEvent",
    "EvalOutcome",
    "PolicyEvalError",
    "PolicySpec",
    "Request",
    "Requests",
    "Sampling",
    "TooManyFailures",
    "ask_all",
    "check_ready",
    "evaluate_policy",
    "load_suites",
    "policy_dir",
    "resolve_policy",
]
