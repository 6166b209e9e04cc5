"""YAML written through libyaml reads back as the data and is the text PyYAML's own emitter
writes, so files and their checksums do not depend on whether libyaml is installed.

The two emitters part on odd strings (an empty key, control characters, some non-ASCII), so
`dump_yaml` is for documents of field names, numbers and plain words, and is tested on those."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from envdesign_common import dump_yaml
from mapf_env import EnvConfig

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,11}", fullmatch=True)
)


NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)


def _containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4)


PLAIN = st.recursive(SCALARS, _containers, max_leaves=20)
DOCUMENTS = st.dictionaries(NAMES, PLAIN, max_size=6)
"""What `dump_yaml` is for: mappings keyed by field names (a generator configuration)."""


@settings(max_examples=500, deadline=None)
@given(DOCUMENTS)
def test_the_text_is_pure_pythons_and_reads_back(data: dict[str, object]) -> None:
    text = dump_yaml(data)
    assert text == yaml.safe_dump(data, sort_keys=False)
    assert yaml.safe_load(text) == data


def test_a_configuration_keeps_its_key_order() -> None:
    text = EnvConfig.uniform().to_yaml()
    assert text == yaml.safe_dump(yaml.safe_load(text), sort_keys=False)
    assert text.splitlines()[0].startswith("n_agents:")
