"""What every package of the project shares below the testbed: atomic files, provenance, bounded
input and names that become paths.

`atomic_files` writes a file whole or not at all; `provenance` stamps everything written with
the package version and git commit; `bounded_input` reads what users write (files, YAML) with
bounded memory and time; `path_names` says why a user's string cannot name a directory. They
sit under the testbed because the testbed itself reads configs and writes datasets and suites
with them, and every other package reads and writes the same way.
"""

from envdesign_common.atomic_files import atomic_write_bytes
from envdesign_common.bounded_input import (
    FILE_LIMITS,
    MAX_FILE_BYTES,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
    InputError,
    YamlLimits,
    check_yaml,
    load_yaml,
    read_stream,
    read_text,
    yaml_error_line,
)
from envdesign_common.path_names import MAX_NAME_CHARS, path_name_problem
from envdesign_common.provenance import DISTRIBUTION, git_commit, package_version, provenance

__all__ = [
    "DISTRIBUTION",
    "FILE_LIMITS",
    "MAX_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "InputError",
    "YamlLimits",
    "atomic_write_bytes",
    "check_yaml",
    "git_commit",
    "load_yaml",
    "package_version",
    "path_name_problem",
    "provenance",
    "read_stream",
    "read_text",
    "yaml_error_line",
]
