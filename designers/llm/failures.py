"""Why a model call failed, in a few words, and whether asking again could help.

Retrying is worth it only for what time can fix: rate limits (429), server errors (5xx),
timeouts and dropped connections. Missing or rejected credentials, an unknown model or an
invalid request fail the same way every time, so they end the call at once. Providers do not
always say so with a status code -- LiteLLM reports a missing OpenAI key as a 500 and a
missing Gemini key as a connection error -- so the message is read as well as the type.
Nor do they say what really went wrong with a broken server: an HTML page, invalid JSON, a
redirect loop and a dropped connection all arrive as a "500" or a "Connection error.", so the
exception's causes and message are read first, and the label names the real fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MISSING_KEY = re.compile(
    r"missing (?:credentials|[\w ]*api[ _-]?key)|api[ _-]?key (?:client option )?must be set"
    r"|no api[ _-]?key|api[ _-]?key (?:is )?(?:not set|required)",
    re.IGNORECASE,
)
_REJECTED_KEY = re.compile(
    r"incorrect api[ _-]?key|invalid (?:x-)?api[ _-]?key|api[ _-]?key not valid|unauthori[sz]ed",
    re.IGNORECASE,
)
_PERMANENT_TYPES = {
    "AuthenticationError": "rejected credentials",
    "PermissionDeniedError": "forbidden",
    "NotFoundError": "unknown model",
    "BadRequestError": "invalid request",
    "UnprocessableEntityError": "invalid request",
    "ContextWindowExceededError": "prompt too long for the model",
    "UnsupportedParamsError": "invalid request",
    "LiteLLMUnknownProvider": "unknown provider",
}
_PERMANENT_STATUS = {400: "invalid request", 401: "rejected credentials", 403: "forbidden",
                     404: "unknown model", 422: "invalid request"}  # fmt: skip
"""Client errors that LiteLLM raises under a type not listed above."""
_TRANSIENT_TYPES = {
    "RateLimitError": "rate limit",
    "Timeout": "timeout",
    "APIConnectionError": "connection error",
    "InternalServerError": "server error",
    "ServiceUnavailableError": "server error",
    "BadGatewayError": "server error",
}


_CAUSES = {
    "TooManyRedirects": "redirect loop",
    "RemoteProtocolError": "connection dropped",
    "ReadError": "connection dropped",
    "ConnectError": "connection refused",
    "JSONDecodeError": "invalid JSON in the response",
}
"""Transport faults by the type of an exception in the chain (the OpenAI SDK hides them)."""
_MESSAGES = (
    (re.compile(r"<\s*(?:!doctype|html)", re.IGNORECASE),
     "HTML page instead of JSON in the response"),
    (re.compile(r"expecting value|extra data|unterminated string|invalid json|unable to get "
                r"json|empty or invalid response|jsondecodeerror", re.IGNORECASE),
     "invalid JSON in the response"),
    (re.compile(r"server disconnected|connection reset|incomplete chunked|peer closed",
                re.IGNORECASE), "connection dropped"),
    (re.compile(r"exceeded maximum allowed redirects", re.IGNORECASE), "redirect loop"),
)  # fmt: skip
"""Faults a provider reports only in words (each retried: a server may recover)."""


@dataclass(frozen=True)
class CallFailure:
    """A failed attempt: a short reason for tables and whether a retry could succeed."""

    reason: str
    permanent: bool


def classify(err: BaseException, breach: str | None = None) -> CallFailure:
    """The reason and permanence of one failed request (see the module docstring); `breach`
    is what a bounded transport stopped the answer for, which wins over anything else."""
    if breach is not None:
        return CallFailure(breach, permanent=False)
    message, name = str(err), type(err).__name__
    status = getattr(err, "status_code", None)
    code = status if isinstance(status, int) else None
    if _MISSING_KEY.search(message):
        return CallFailure("missing credentials", permanent=True)
    if _REJECTED_KEY.search(message):
        return CallFailure("rejected credentials", permanent=True)
    if name in _PERMANENT_TYPES:
        return CallFailure(_with_status(_PERMANENT_TYPES[name], code), permanent=True)
    if code in _PERMANENT_STATUS:
        return CallFailure(_with_status(_PERMANENT_STATUS[code], code), permanent=True)
    fault = _fault(err)
    if fault is not None:
        return CallFailure(fault, permanent=False)
    if name in _TRANSIENT_TYPES:
        return CallFailure(_with_status(_TRANSIENT_TYPES[name], code), permanent=False)
    if code is not None and (code == 429 or code >= 500):
        kind = "rate limit" if code == 429 else "server error"
        return CallFailure(_with_status(kind, code), permanent=False)
    return CallFailure(f"request failed ({name})", permanent=True)


def _fault(err: BaseException) -> str | None:
    """A transport fault behind `err`, from its causes' types or its message."""
    message = str(err)[:4000]
    if _MESSAGES[0][0].search(message):
        return _MESSAGES[0][1]
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if type(cause).__name__ in _CAUSES and cause is not err:
            return _CAUSES[type(cause).__name__]
        cause = cause.__cause__ or cause.__context__
    return next((label for pattern, label in _MESSAGES if pattern.search(message)), None)


def _with_status(reason: str, status: int | None) -> str:
    return reason if status is None else f"{reason} ({status})"
