"""Model text beyond the stored bound keeps its head and tail, its length and its sha256."""

from __future__ import annotations

import hashlib

from envdesign_common import HEAD_CHARS, MAX_STORED_CHARS, TAIL_CHARS, bounded


def test_text_within_the_bound_is_stored_whole() -> None:
    text = "x" * MAX_STORED_CHARS
    assert bounded(text) == (text, None)


def test_longer_text_is_an_excerpt_with_the_whole_texts_digest() -> None:
    text = "".join(f"line {i}\n" for i in range(200_000))
    stored, digest = bounded(text)
    assert digest is not None
    assert digest.chars == len(text)
    assert digest.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert stored.startswith(text[:HEAD_CHARS]) and stored.endswith(text[-TAIL_CHARS:])
    assert len(stored) < MAX_STORED_CHARS + 200
    cut = len(text) - HEAD_CHARS - TAIL_CHARS
    assert f"{cut} characters cut here" in stored and digest.sha256 in stored


def test_lone_surrogates_from_json_are_digested_not_refused() -> None:
    text = "\ud800" * (MAX_STORED_CHARS + 1)
    stored, digest = bounded(text)
    assert digest is not None and digest.chars == MAX_STORED_CHARS + 1
    assert len(stored) < MAX_STORED_CHARS + 200
