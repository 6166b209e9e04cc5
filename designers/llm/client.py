"""One chat completion through LiteLLM, with our own retries, deadline and secret scrubbing.

LiteLLM reaches every provider and any OpenAI-compatible server (vLLM for `self` and `base`)
the same way. Its own retries are switched off (``num_retries=0``) so that one loop here
decides: rate limits (429, honouring Retry-After), 5xx, timeouts and connection errors are
retried with exponential backoff and jitter until a total deadline; anything else (missing or
rejected credentials, an unknown model, an invalid request: see `failures`) fails at once.
The call never raises: the result carries an error string instead. Keys come only from the
environment; every error string is scrubbed of the values of the key variables (the target's and
any other that looks like one: `envdesign_common.redaction`) and of anything that looks like a
secret. The answer itself is redacted where it is stored (`designers.llm.models.call_record`),
so the parser reads what the model wrote.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from designers.llm.failures import classify
from envdesign_common import Redactor, key_redactor, looks_like_key_variable
from envdesign_common.think_tags import strip_think

if TYPE_CHECKING:  # httpx comes with litellm, the [api] extra: imported where a call is made
    from designers.llm.bounded_http import BoundedTransport

API_EXTRA = 'pip install "envdesign-bench[api]"'
_SECRET_PATTERNS = (  # each keeps group 1 (a label) and masks what follows it
    re.compile(r"()\b(?:sk|pk|xai|gsk|AIza)[-_A-Za-z0-9]{8,}"),
    re.compile(r"(?i)(bearer\s+)[^\s'\",]+"),
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|key|token|authorization)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s'\"&,}]+"
    ),
)
_MAX_ERROR_READ = 4_000
"""Characters of an exception's message read (a server may return megabytes in an error)."""
_CLOSED = "http://127.0.0.1:9/v1"
"""Port 9 (discard) of this machine, which nothing serves: a request there is refused at once."""
_THINK_BLOCK = re.compile(r"<think>(.*?)(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """Where to send a request: a LiteLLM model string, optional server and key variable."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None


class CallSettings(BaseModel):
    """Timeouts and retry policy of one request (tests shrink them to milliseconds)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = Field(
        120.0, gt=0, description="Seconds one attempt may take in all, however its answer drips."
    )
    deadline_s: float = Field(600.0, gt=0, description="Seconds all attempts together may take.")
    max_retries: int = Field(5, ge=0, description="Retries of a transient failure (429, 5xx).")
    backoff_base_s: float = Field(2.0, ge=0, description="First backoff; doubles per retry.")
    backoff_max_s: float = Field(60.0, ge=0, description="Longest single backoff.")
    temperature: float | None = Field(None, ge=0, description="Sampling temperature.")
    max_tokens: int | None = Field(None, ge=1, description="Cap on the answer's tokens.")


@dataclass
class CallResult:
    """What came back: visible text, reasoning, usage, cost, time, or an error."""

    text: str = ""
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    attempts: int = 0
    error: str | None = None
    failure: str | None = None
    """A few words on why the call failed ('missing credentials', 'rate limit'), with `error`."""
    retries: list[str] = field(default_factory=list)
    key_variable: str | None = None
    """The variable the request's key was read from: its value is redacted from what is kept."""


def secret_values(extra: Iterable[str] = ()) -> list[str]:
    """Values of environment variables that look like credentials (and `extra`)."""
    found = [v for k, v in os.environ.items() if looks_like_key_variable(k) and len(v) >= 6]
    return sorted({*found, *(e for e in extra if e)}, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str] | None = None) -> str:
    """`text` with every known secret value and every secret-looking token masked."""
    for value in secret_values() if secrets is None else secrets:
        text = text.replace(value, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(r"\1***", text)
    return text


def split_reasoning(content: str, reasoning: str | None = None) -> tuple[str, str]:
    """(visible text, reasoning): ``<think>`` blocks move out of the text into the reasoning."""
    thoughts = [reasoning] if reasoning else []
    thoughts += [m.group(1).strip() for m in _THINK_BLOCK.finditer(content)]
    if "</think>" in content.lower() and "<think>" not in content.lower():
        thoughts.append(content[: content.lower().rfind("</think>")].strip())
    return strip_think(content).strip(), "\n\n".join(t for t in thoughts if t)


def _litellm() -> Any:
    """LiteLLM, imported on first use so the package works without the `api` extra."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as err:
        raise RuntimeError(f"LLM designers need litellm: {API_EXTRA}") from err
    litellm.suppress_debug_info = True
    return litellm


@functools.cache
def _warm(litellm: Any) -> None:
    """Load what LiteLLM imports on its first request and its first error (seconds of it), so
    that time does not count against the first attempt's bound: for each OpenAI-compatible
    route, a mocked answer, then a request to a closed port of this machine (refused at once)."""
    messages = [{"role": "user", "content": "hi"}]
    for provider in ("openai", "hosted_vllm"):
        for mock in ({"mock_response": "ok"}, {}):
            with contextlib.suppress(Exception):
                litellm.completion(model=f"{provider}/warm-up", api_base=_CLOSED, timeout=1.0,
                                   api_key="unused", messages=messages, num_retries=0,
                                   max_retries=0, **mock)  # fmt: skip


def retry_after(err: BaseException) -> float | None:
    """Seconds the server asked us to wait (Retry-After: seconds or an HTTP date), if it said."""
    response = getattr(err, "response", None)
    sources = (
        getattr(err, "litellm_response_headers", None),
        getattr(err, "headers", None),
        getattr(response, "headers", None),
    )
    for headers in sources:
        if not headers:
            continue
        value = next((str(v) for k, v in headers.items() if str(k).lower() == "retry-after"), None)
        if value is not None:
            return _seconds(value)
    return None


def _seconds(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff(attempt: int, settings: CallSettings, err: BaseException, rng: random.Random) -> float:
    """Exponential backoff with full jitter; a server's Retry-After wins when it is longer."""
    ceiling = min(settings.backoff_max_s, settings.backoff_base_s * 2**attempt)
    wait = rng.uniform(ceiling / 2, ceiling)
    asked = retry_after(err)
    return max(wait, asked) if asked is not None else wait


def _request_kwargs(target: Target, settings: CallSettings, timeout: float) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"model": target.model, "timeout": timeout, "num_retries": 0}
    if target.api_base:
        kwargs["api_base"] = target.api_base
        key = os.environ.get(target.api_key_env) if target.api_key_env else None
        kwargs["api_key"] = key or "EMPTY"  # local vLLM needs none; the client needs a value
    elif target.api_key_env and os.environ.get(target.api_key_env):
        kwargs["api_key"] = os.environ[target.api_key_env]
    if settings.temperature is not None:
        kwargs["temperature"] = settings.temperature
    if settings.max_tokens is not None:
        kwargs["max_tokens"] = settings.max_tokens
    return kwargs


def _cost(litellm: Any, response: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown model prices are normal for self-hosted models
            return None
    return float(cost) if isinstance(cost, int | float) else None


def _fill(result: CallResult, litellm: Any, response: Any) -> None:
    message = response.choices[0].message
    content = message.content or ""
    result.text, result.reasoning = split_reasoning(
        content, getattr(message, "reasoning_content", None)
    )
    usage = getattr(response, "usage", None)
    result.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    result.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    result.cost_usd = _cost(litellm, response)


def complete(
    target: Target,
    messages: list[dict[str, str]],
    settings: CallSettings,
    *,
    sleep: Callable[[float], None] = time.sleep,
    seed: int = 0,
) -> CallResult:
    """Send one chat request, retrying transient failures until `settings.deadline_s`."""
    result = CallResult(key_variable=target.api_key_env)
    rng = random.Random(seed)
    secrets = secret_values([os.environ.get(target.api_key_env or "", "")])
    redactor = key_redactor([target.api_key_env])
    try:
        litellm = _litellm()
    except RuntimeError as err:
        result.error, result.failure = str(err), "litellm not installed"
        return result
    from designers.llm.bounded_http import BoundedTransport, within, within_deadline  # httpx too

    if target.api_base:
        _warm(litellm)
    started = time.monotonic()  # after the imports, which may take seconds the first time
    while result.error is None:
        remaining = settings.deadline_s - (time.monotonic() - started)
        if remaining <= 0:
            last = result.retries[-1] if result.retries else "no answer"
            result.error = f"deadline of {settings.deadline_s:g}s passed; {last}"
            result.failure = f"deadline passed ({result.failure or 'no answer'})"
            break
        result.attempts += 1
        bound = min(settings.timeout_s, remaining)
        late = (within(settings.timeout_s) if bound >= settings.timeout_s
                else within_deadline(settings.deadline_s))  # fmt: skip
        transport = BoundedTransport(time.monotonic() + bound, late)
        try:
            response = _attempt(litellm, target, messages, settings, transport, bound)
            _fill(result, litellm, response)
            break
        except Exception as err:
            left = settings.deadline_s - (time.monotonic() - started)
            timed_out = isinstance(err, _TimedOut) or classify(err).reason.startswith("timeout")
            breach = transport.breach or (late if timed_out else None)
            wait = _after_failure(err, result, settings, rng, (redactor, secrets), left, breach)
            if wait is not None:
                sleep(wait)
    result.seconds = time.monotonic() - started
    return result


class _TimedOut(Exception):
    """An attempt still running at its wall-clock bound (abandoned, not waited for)."""


def _attempt(
    litellm: Any,
    target: Target,
    messages: list[dict[str, str]],
    settings: CallSettings,
    transport: BoundedTransport,
    bound: float,
) -> Any:
    """One request of at most `bound` seconds, in a daemon thread abandoned at its deadline."""
    kwargs = _request_kwargs(target, settings, bound)
    client = None
    if target.api_base:
        provider = target.model.split("/", 1)[0]
        from designers.llm.bounded_http import bounded_client

        client = bounded_client(provider, target.api_base, kwargs["api_key"], transport, bound)
        if client is not None:
            kwargs["client"] = client
    done, box = threading.Event(), {}

    def run() -> None:
        try:
            box["response"] = litellm.completion(messages=messages, **kwargs)
        except BaseException as err:  # handed to the caller's thread
            box["error"] = err
        finally:
            done.set()
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()  # its connection: the answer has been read, or given up

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    if not done.wait(max(0.0, transport.deadline - time.monotonic())):
        raise _TimedOut(transport.late)
    if "error" in box:
        raise box["error"]
    return box["response"]


def _after_failure(
    err: BaseException,
    result: CallResult,
    settings: CallSettings,
    rng: random.Random,
    secrets: tuple[Redactor, list[str]],
    left: float,
    breach: str | None = None,
) -> float | None:
    """Record a failed attempt; the wait before the next one, or None (and an error) to stop.

    The message is redacted before it is cut short, so a key cut in half is still found. A
    `breach` (out of time, too large) is the whole reason: the exception says less."""
    redactor, values = secrets
    message = redactor.redact(str(err)[:_MAX_ERROR_READ])
    kind = classify(err, breach)
    reason = breach or scrub(f"{type(err).__name__}: {_short(message)}", values)
    result.retries.append(reason)
    result.failure = kind.reason
    if kind.permanent or result.attempts > settings.max_retries:
        result.error = reason
        return None
    wait = backoff(result.attempts - 1, settings, err, rng)
    if wait >= left:
        result.error = f"deadline of {settings.deadline_s:g}s would pass; {reason}"
        return None
    return wait


def credential_problem(target: Target, who: str, key_option: str) -> str | None:
    """Why `target` cannot be asked as configured, before any request; None when it can.

    `who` names the caller in the message ("gpt"), `key_option` where another key variable
    is named (``--api-key-env``, ``designer_options.gpt.api_key_env``). A named variable must
    be set; a model on a server of its own (`api_base`) needs no key; otherwise LiteLLM must
    know the provider and find its key variable in the environment.
    """
    if target.api_key_env is not None and not os.environ.get(target.api_key_env):
        return (
            f"{key_option} {target.api_key_env}: that environment variable is not set; export "
            "the key in it (keys are read from the environment only)"
        )
    if target.api_base is not None:
        return None
    litellm = _litellm()
    try:
        litellm.get_llm_provider(target.model)
    except Exception:
        return (
            f"LiteLLM does not know the provider of {target.model!r}: write it as "
            "provider/model, e.g. llm:openai/gpt-4o"
        )
    if target.api_key_env is not None:
        return None
    found = litellm.validate_environment(target.model)
    if found.get("keys_in_environment", True):
        return None
    keys = " or ".join(found.get("missing_keys") or ["its API key"])
    return (
        f"{who} ({target.model}) needs {keys} in the environment (or name another variable "
        f"with {key_option})"
    )


def require_litellm() -> None:
    """Raise `ImportError` naming the extra when litellm is missing (for `check_ready`)."""
    try:
        _litellm()
    except RuntimeError as err:
        raise ImportError(str(err)) from None


def _short(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
