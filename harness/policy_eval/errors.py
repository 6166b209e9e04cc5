"""What goes wrong in a zero-shot evaluation, as errors the command line prints in one line."""

from __future__ import annotations


class PolicyEvalError(RuntimeError):
    """Bad input (an unknown suite or alias, a missing key variable, a damaged cache): the
    message says what was wrong and what to do."""


class CacheError(PolicyEvalError):
    """The answer cache has a damaged line before its last one."""


class TooManyFailures(PolicyEvalError):
    """More requests failed after their retries than `--max-failures` allows."""
