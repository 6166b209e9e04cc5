"""Seeds derived from keys: the same key gives the same seed in every process and version.

Python's `hash` of a string changes with every process (hash randomisation), and `random`'s
seeding of a tuple is not promised stable, so every seed the project derives from a name and
numbers (a round's purpose, a generator's slot) comes from a cryptographic digest of its key.
"""

from __future__ import annotations

import hashlib

__all__ = ["key_seed"]


def key_seed(*parts: object) -> int:
    """A 64-bit seed from `parts`, joined by ``/`` and hashed with BLAKE2b."""
    key = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")
