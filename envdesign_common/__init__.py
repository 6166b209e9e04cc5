"""What every package of the project shares below the testbed: atomic files and provenance.

`atomic_files` writes a file whole or not at all; `provenance` stamps everything written with
the package version and git commit. They sit under the testbed because the testbed itself writes
datasets and suites with them, and every other package writes its records the same way.
"""

from envdesign_common.atomic_files import (
    TEMP_SUFFIX,
    atomic_write_bytes,
    atomic_writer,
    fsync_directory,
    is_temporary,
)
from envdesign_common.provenance import DISTRIBUTION, git_commit, package_version, provenance

__all__ = [
    "DISTRIBUTION",
    "TEMP_SUFFIX",
    "atomic_write_bytes",
    "atomic_writer",
    "fsync_directory",
    "git_commit",
    "is_temporary",
    "package_version",
    "provenance",
]
