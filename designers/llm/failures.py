"""Why a model call failed, in a few words, and whether asking again could help.

Retrying is worth it only for what time can fix: rate limits (429), server errors (5xx),
timeouts and dropped connections. Missing or rejected credentials, an unknown model or an
invalid request fail the same way every time, so they end the call at once. Providers do not
always say so with a status code -- LiteLLM reports a missing OpenAI key as a 500 and a
missing Gemini key as a connection error -- so the message is read as well as the type.
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


@dataclass(frozen=True)
class CallFailure:
    """A failed attempt: a short reason for tables and whether a retry could succeed."""

    reason: str
    permanent: bool


def classify(err: BaseException) -> CallFailure:
    """The reason and permanence of one failed request (see the module docstring)."""
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
    if name in _TRANSIENT_TYPES:
        return CallFailure(_with_status(_TRANSIENT_TYPES[name], code), permanent=False)
    if code is not None and (code == 429 or code >= 500):
        kind = "rate limit" if code == 429 else "server error"
        return CallFailure(_with_status(kind, code), permanent=False)
    return CallFailure(f"request failed ({name})", permanent=True)


def _with_status(reason: str, status: int | None) -> str:
    return reason if status is None else f"{reason} ({status})"
