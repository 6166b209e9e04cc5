"""Names users choose that become directory names: why one cannot (or None when it can).

An experiment's `name` becomes ``<out>/<name>/`` and a designer entry a directory below it, so a
name is one path component: ``..`` would write above ``--out``, ``a/b`` into another tree, a
leading dot makes a hidden directory (and ``.`` the root itself), control characters break
terminals and logs, and file systems refuse components over 255 bytes. Checked when the config
is read, before anything is created.
"""

from __future__ import annotations

MAX_NAME_CHARS = 120
"""Longest name accepted for a directory (file systems stop at 255 bytes)."""


def path_name_problem(name: str) -> str | None:
    """Why `name` cannot be one directory name, said so it reads after the field's path."""
    if not name.strip():
        return "is empty; name it, e.g. 'my-comparison'"
    if len(name) > MAX_NAME_CHARS:
        return f"is {len(name)} characters; keep it to {MAX_NAME_CHARS}"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "holds a control character; use letters, digits, '-', '_' and '.'"
    if "/" in name or "\\" in name:
        return "holds a path separator (/ or \\); it names one directory, e.g. 'my-comparison'"
    if name.startswith("."):
        return "starts with '.' ('.', '..' and hidden names are not run directories); drop it"
    return None
