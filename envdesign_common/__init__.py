"""What every package of the project shares below the testbed: atomic files, provenance, bounded
input, names that become paths, and how model text is stored (bounded, with keys redacted).

`atomic_files` writes a file whole or not at all; `provenance` stamps everything written with the
package version and git commit; `bounded_input` reads what users write (files, YAML) with bounded
memory and time; `path_names` says why a user's string cannot name a directory; `bounded_text` cuts
oversized model text to an excerpt with the whole text's length and checksum; `redaction` masks the
values of key variables in whatever is written; `writable` says why an output cannot be created
where it was asked for, before any work; `yaml_text` writes YAML; `yaml_mappings` reads a
user's YAML mapping; `seeds` derives seeds from keys; `field_errors` turns a refused
config into one line per bad field (`ConfigError`); `projection_notes` records what projecting a
designer's draft changed; `think_tags` drops a model's reasoning from its text; `conformance` is
what a plug-in check reports; `registry` finds plug-ins of every kind by entry point;
`generic_models` lets records generic in a task's models cross processes; `strata` picks a
stratified subset of a suite's items; `running_rate` is the valid rate a trainer keeps;
`record_forms` refuses a record of a form this version does not read. They sit under the
testbed because the testbed itself reads configs and writes datasets and suites with them, and
every other package reads and writes the same way.
"""

from envdesign_common.atomic_files import (
    TEMP_SUFFIX,
    atomic_write_bytes,
    atomic_writer,
    fsync_directory,
    is_temporary,
)
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
from envdesign_common.bounded_text import (
    HEAD_CHARS,
    MAX_STORED_CHARS,
    TAIL_CHARS,
    TextDigest,
    bounded,
)
from envdesign_common.conformance import ConformanceError, ConformanceProblem, collect_problems
from envdesign_common.field_errors import (
    ConfigError,
    KeyLabels,
    bounded_repr,
    config_error,
    error_details_lines,
    error_message,
    field_error_lines,
    shorten,
    unknown_name,
)
from envdesign_common.path_names import MAX_NAME_CHARS, path_name_problem
from envdesign_common.projection_notes import ProjectionNote
from envdesign_common.provenance import DISTRIBUTION, git_commit, package_version, provenance
from envdesign_common.record_forms import OLDER_RECORD, older_record
from envdesign_common.redaction import (
    MIN_SECRET_CHARS,
    Redactor,
    key_env_names,
    key_redactor,
    looks_like_key_variable,
)
from envdesign_common.running_rate import RunningValidRate
from envdesign_common.seeds import key_seed
from envdesign_common.think_tags import strip_think
from envdesign_common.writable import existing_ancestor, write_problem
from envdesign_common.yaml_mappings import load_mapping, read_mapping
from envdesign_common.yaml_text import dump_yaml

__all__ = [
    "DISTRIBUTION",
    "FILE_LIMITS",
    "HEAD_CHARS",
    "MAX_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_STORED_CHARS",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "MIN_SECRET_CHARS",
    "OLDER_RECORD",
    "TAIL_CHARS",
    "TEMP_SUFFIX",
    "ConfigError",
    "ConformanceError",
    "ConformanceProblem",
    "InputError",
    "KeyLabels",
    "ProjectionNote",
    "Redactor",
    "RunningValidRate",
    "TextDigest",
    "YamlLimits",
    "atomic_write_bytes",
    "atomic_writer",
    "bounded",
    "bounded_repr",
    "check_yaml",
    "collect_problems",
    "config_error",
    "dump_yaml",
    "error_details_lines",
    "error_message",
    "existing_ancestor",
    "field_error_lines",
    "fsync_directory",
    "git_commit",
    "is_temporary",
    "key_env_names",
    "key_redactor",
    "key_seed",
    "load_mapping",
    "load_yaml",
    "looks_like_key_variable",
    "older_record",
    "package_version",
    "path_name_problem",
    "provenance",
    "read_mapping",
    "read_stream",
    "read_text",
    "shorten",
    "strip_think",
    "unknown_name",
    "write_problem",
    "yaml_error_line",
]
