"""Masking key values: whole, in part, JSON-escaped, and nothing that is not a key."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from envdesign_common import MIN_SECRET_CHARS, Redactor, key_env_names, key_redactor

KEY = "sk-proj-Zq81xVt0pL3mN7rB2cD5"


def grams(value: str) -> list[str]:
    return [value[i : i + MIN_SECRET_CHARS] for i in range(len(value) - MIN_SECRET_CHARS + 1)]


def test_the_whole_key_and_any_long_part_of_it_become_the_variable_name() -> None:
    redactor = Redactor.of({"OPENAI_API_KEY": KEY})
    text = f"Bearer {KEY}; 401: Incorrect API key provided: {KEY[3:]}; tail {KEY[-9:]}."
    assert redactor.redact(text) == (
        "Bearer [redacted:OPENAI_API_KEY]; 401: Incorrect API key provided: "
        "[redacted:OPENAI_API_KEY]; tail [redacted:OPENAI_API_KEY]."
    )


def test_parts_shorter_than_the_minimum_and_variable_names_are_kept() -> None:
    redactor = Redactor.of({"SCRIPTED_KEY": "key-SCRIPTED_KEY-0042"})
    text = "api_key_env: SCRIPTED_KEY, prefix key-SCR"
    assert redactor.redact(text) == text
    assert redactor.redact("Bearer key-SCRIPTED_KEY-0042") == "Bearer [redacted:SCRIPTED_KEY]"


def test_json_escaped_values_are_found_in_serialised_records() -> None:
    value = 'pa"ss\\word-0123456789'
    serialised = json.dumps({"echo": f"got {value}"})
    out = Redactor.of({"SERVICE_PASSWORD": value}).redact(serialised)
    assert json.loads(out) == {"echo": "got [redacted:SERVICE_PASSWORD]"}


def test_which_variables_count() -> None:
    env = {
        "OPENAI_API_KEY": KEY,  # a key by name and shape
        "MY_LLM_CRED": "Hx7pQ2wZ9vL4kT1s",  # named by the run
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.example.com/abc123/token",  # a URL
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",  # no digit: a setting
        "HOME": "/root",
        "SHORT_TOKEN": "abc1",
    }
    redactor = key_redactor(["MY_LLM_CRED", None, "UNSET_KEY"], environ=env)
    assert {s.variable for s in redactor.secrets} == {"OPENAI_API_KEY", "MY_LLM_CRED"}
    text = "keyring.backends and https://pipelines.example.com stay; Hx7pQ2wZ9vL4kT1s goes"
    assert redactor.redact(text) == (
        "keyring.backends and https://pipelines.example.com stay; [redacted:MY_LLM_CRED] goes"
    )
    assert not key_redactor(environ={"HOME": "/root"})


def test_key_env_names_are_found_at_any_depth() -> None:
    experiment = {
        "designer_options": {
            "gpt": {"api_key_env": "GPT_KEY", "timeout_s": 5},
            "self": {"endpoint": {"base_url": "http://x", "api_key_env": "VLLM_KEY"}},
            "other": [{"api_key_env": None}],
        },
        "name": "quick",
    }
    assert key_env_names(experiment) == ["GPT_KEY", "VLLM_KEY"]


@given(
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    start=st.integers(0, len(KEY) - MIN_SECRET_CHARS),
    length=st.integers(MIN_SECRET_CHARS, len(KEY)),
)
def test_no_run_of_the_key_survives(before: str, after: str, start: int, length: int) -> None:
    part = KEY[start : start + length]
    out = Redactor.of({"OPENAI_API_KEY": KEY}).redact(before + part + after)
    assert not [g for g in grams(KEY) if g in out]
    assert "[redacted:OPENAI_API_KEY]" in out
