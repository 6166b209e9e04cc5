"""YAML of generator configurations: keys in the order given, through libyaml when installed.

For mappings of field names to numbers, booleans and plain words, libyaml's emitter writes the
same text as PyYAML's pure-Python one, about five times faster; a site shows the configuration
of every round of every run, so a thousand runs make thousands of documents. The emitters part
on odd strings (an empty key, control characters, some non-ASCII): a document that may hold
text a user wrote goes through `yaml.safe_dump`, so its bytes never depend on libyaml.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["dump_yaml"]

_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_yaml(data: Any) -> str:
    """`data` (field names, numbers, plain words) as `yaml.safe_dump(data, sort_keys=False)`
    writes it."""
    return str(yaml.dump(data, Dumper=_Dumper, sort_keys=False))
