"""Model text is stored bounded: a head and a tail, with the whole text's length and sha256.

A model can answer with megabytes (a runaway ``<think>``, a rejected 10 MB answer), and every
record that keeps its answers -- a designer's transcript in round.json, result.json and the
published site, a zero-shot policy's reasoning in its answer cache -- would keep them whole,
once per call. The parser and verifier still read the whole text while the run is going; only
what is written is cut: beyond `MAX_STORED_CHARS` characters a text keeps its first
`HEAD_CHARS` and last `TAIL_CHARS` around a marker that says how much was cut, and the record
keeps a `TextDigest` (length and sha256 of the whole text) beside it, so the excerpt can be
matched to the text a provider logged.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["HEAD_CHARS", "MAX_STORED_CHARS", "TAIL_CHARS", "TextDigest", "bounded"]

MAX_STORED_CHARS = 64 * 1024
"""Longest model text stored whole (characters); a longer one is stored as an excerpt."""
HEAD_CHARS = 48 * 1024
"""Characters kept from the start of a cut text (where a model states its plan)."""
TAIL_CHARS = 16 * 1024
"""Characters kept from its end (where the answer usually is)."""


class TextDigest(BaseModel):
    """What a stored excerpt was cut from: the whole text's length and checksum."""

    model_config = ConfigDict(frozen=True)

    chars: int = Field(ge=0, description="Characters of the whole text.")
    sha256: str = Field(description="sha256 of the whole text's UTF-8 bytes.")


def bounded(text: str) -> tuple[str, TextDigest | None]:
    """`text` as it is stored, and the digest of the whole when it had to be cut (else None)."""
    if len(text) <= MAX_STORED_CHARS:
        return text, None
    data = text.encode("utf-8", "surrogatepass")  # JSON can carry lone surrogates
    digest = TextDigest(chars=len(text), sha256=hashlib.sha256(data).hexdigest())
    cut = len(text) - HEAD_CHARS - TAIL_CHARS
    marker = (
        f"\n[... {cut} characters cut here: the whole text had {len(text)} characters, "
        f"sha256 {digest.sha256} ...]\n"
    )
    return text[:HEAD_CHARS] + marker + text[-TAIL_CHARS:], digest
