"""What every package of the project shares below the testbed: atomic files, provenance, and
how model text is stored (bounded, with keys redacted).

`atomic_files` writes a file whole or not at all; `provenance` stamps everything written with
the package version and git commit; `bounded_text` cuts oversized model text to an excerpt with
the whole text's length and checksum; `redaction` masks the values of key variables in whatever
is written. They sit under the testbed because the testbed itself writes datasets and suites
with them, and every other package writes its records the same way.
"""

from envdesign_common.atomic_files import (
    TEMP_SUFFIX,
    atomic_write_bytes,
    atomic_writer,
    fsync_directory,
    is_temporary,
)
from envdesign_common.bounded_text import (
    HEAD_CHARS,
    MAX_STORED_CHARS,
    TAIL_CHARS,
    TextDigest,
    bounded,
)
from envdesign_common.provenance import DISTRIBUTION, git_commit, package_version, provenance
from envdesign_common.redaction import (
    MIN_SECRET_CHARS,
    Redactor,
    key_env_names,
    key_redactor,
    looks_like_key_variable,
)

__all__ = [
    "DISTRIBUTION",
    "HEAD_CHARS",
    "MAX_STORED_CHARS",
    "MIN_SECRET_CHARS",
    "TAIL_CHARS",
    "TEMP_SUFFIX",
    "Redactor",
    "TextDigest",
    "atomic_write_bytes",
    "atomic_writer",
    "bounded",
    "fsync_directory",
    "git_commit",
    "is_temporary",
    "key_env_names",
    "key_redactor",
    "looks_like_key_variable",
    "package_version",
    "provenance",
]
