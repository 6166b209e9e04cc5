"""One home for model names and call records: the alias table is the only list of aliases, a
name means the same model to a designer and to `harness eval --policy`, and one call leaves the
same record in a transcript and in the answer cache."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

import pytest
from typer.testing import CliRunner

from designers import (
    DesignerLoadError,
    UnknownDesigner,
    create_designer,
    describe_designers,
    designer_names,
    takes_context_variant,
)
from designers.llm import factories
from designers.llm.client import CallResult
from designers.llm.models import (
    MODELS_ENV,
    ModelNameError,
    call_record,
    model_aliases,
    resolve_model,
    transcript_entry,
)
from harness.policy_eval import PolicyEvalError, resolve_policy
from harness.policy_eval.asking import to_cached
from harness.policy_eval.cache import AnswerKey
from harness_cli import app

SHIPPED = {"gpt", "gemini", "grok", "kimi", "claude"}
Shared = Literal["reasoning", "error", "prompt_tokens", "completion_tokens", "cost_usd", "seconds"]
SHARED: tuple[Shared, ...] = get_args(Shared)
"""The fields a transcript entry and a cache line share under one name."""


def use_table(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(text)
    monkeypatch.setenv(MODELS_ENV, str(path))


def test_an_alias_added_only_to_the_table_is_a_designer_and_a_policy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_table(monkeypatch, tmp_path, "mistral: {model: mistral/mistral-large}\n")
    assert "mistral" in designer_names() and set(designer_names()) >= SHIPPED
    designer = create_designer("mistral", api_base="http://127.0.0.1:9/v1")
    assert designer.name == "mistral"
    assert designer.target(None).model == "mistral/mistral-large"  # type: ignore[attr-defined]
    assert takes_context_variant("mistral") and takes_context_variant("mistral@V3")
    assert create_designer("mistral@V2").options.variant.name == "V2"  # type: ignore[attr-defined]
    assert describe_designers()["mistral"].startswith("mistral/mistral-large (alias in models")
    with pytest.raises(UnknownDesigner, match="did you mean mistral"):
        create_designer("mistrl")
    assert resolve_policy("mistral").model == "mistral/mistral-large"
    with pytest.raises(PolicyEvalError, match="unknown policy 'mistrl': did you mean 'mistral'"):
        resolve_policy("mistrl")
    listed = CliRunner().invoke(app, ["designers", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and " mistral " in listed.output, listed.output
    monkeypatch.delenv(MODELS_ENV)
    assert "mistral" not in designer_names()


def test_the_aliases_are_listed_once() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    for alias in SHIPPED:
        assert f'{alias} = "designers' not in pyproject
    assert set(model_aliases()) == SHIPPED
    assert set(designer_names()) >= SHIPPED


def test_a_name_means_the_same_model_to_a_designer_and_a_policy() -> None:
    for name in ("gpt", "llm:openai/gpt-4o", "llm: gemini "):
        assert resolve_policy(name).model == resolve_model(name).model
    assert create_designer("llm:gpt").name == "gpt"
    assert resolve_model("llm:gpt").model == "openai/gpt-5.4"
    assert resolve_model("llm:openai/x").alias is None
    for empty in ("llm:", "llm:  "):
        with pytest.raises(ModelNameError, match=r"^llm: needs a model: llm:<litellm model"):
            resolve_model(empty)
        with pytest.raises(PolicyEvalError, match="llm: needs a model"):
            resolve_policy(empty)
        with pytest.raises(ValueError, match="llm: needs a model"):
            create_designer(empty)


def test_an_unknown_alias_is_answered_with_the_closest() -> None:
    with pytest.raises(ModelNameError, match=r"unknown model alias 'gtp': did you mean 'gpt'\?"):
        factories.from_alias("gtp")
    with pytest.raises(ModelNameError, match=r"\(claude, gemini, gpt, grok, kimi\), or llm:"):
        resolve_model("zzz")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- gpt\n", "expected a mapping of alias -> {model, description}"),
        ("mine: {description: x}\n", "alias 'mine' needs a 'model' string"),
        ("'a:b': openai/x\n", "alias 'a:b' is not a plain name"),
        ("mine: [\n", "not valid YAML"),
    ],
)
def test_a_bad_table_names_itself_everywhere(
    text: str, message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_table(monkeypatch, tmp_path, text)
    with pytest.raises(ModelNameError, match=message) as err:
        model_aliases()
    assert str(err.value).startswith(f"{MODELS_ENV}=") and "\n" not in str(err.value)
    with pytest.raises(DesignerLoadError, match=rf"family 'llm-aliases'.*{message[:20]}"):
        create_designer("gpt")
    with pytest.raises(PolicyEvalError, match=message[:20]):
        resolve_policy("gpt")
    assert create_designer("random").name == "random"  # plain entry points need no table
    assert describe_designers()["llm-aliases"].startswith("(broken: designer family")


def test_an_unreadable_table_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(MODELS_ENV, str(tmp_path / "missing.yaml"))
    with pytest.raises(ModelNameError, match=r"missing.yaml: cannot read it"):
        model_aliases()


def test_a_plain_entry_point_wins_over_an_alias_of_its_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_table(monkeypatch, tmp_path, "random: openai/random-model\n")
    assert create_designer("random").description == describe_designers()["random"]
    assert "alias" not in describe_designers()["random"]
    assert resolve_policy("random").model == "openai/random-model"


def test_one_call_leaves_the_same_record_in_a_transcript_and_the_cache() -> None:
    retries = ["RateLimitError: 429", "Timeout: slow"]
    failed = CallResult(reasoning="hm", prompt_tokens=3, seconds=1.234567, attempts=2,
                        error="Timeout: slow", retries=retries)  # fmt: skip
    record = call_record(failed)
    assert record["text"] == "" and record["retries"] == ("RateLimitError: 429",)
    assert record["seconds"] == 1.2346 and record["attempts"] == 2
    key = AnswerKey("s", "sha", "id-1", 0, "openai/x", None, "{}", "v1")
    cached = to_cached(key, failed)
    call = transcript_entry("analysis", "openai/x", [{"role": "user", "content": "q"}], record)
    for field in SHARED:
        assert getattr(cached, field) == getattr(call, field) == record[field]
    assert cached.retries == record["retries"] and call.response == cached.text == ""
    answered = call_record(CallResult(text="ok", retries=["RateLimitError: 429"]))
    assert answered["text"] == "ok" and answered["retries"] == ("RateLimitError: 429",)


def test_a_call_record_is_redacted_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key's variable is what the call used; a long answer is cut for transcripts only:
    a policy's answer is scored and kept whole, its reasoning is cut in both."""
    key = "Zq81xVt0pL3mN7rB2cD5"
    monkeypatch.setenv("CUSTOM_CRED", key)  # no key-like name: found because the call used it
    long = f"{key[2:]} " + "x" * 100_000
    result = CallResult(text=long, reasoning=long, key_variable="CUSTOM_CRED")
    record = call_record(result)
    assert key[2:12] not in record["text"] and key[2:12] not in record["reasoning"]
    assert record["text"].startswith("[redacted:CUSTOM_CRED] xxx")
    assert record["text_full"] is not None and record["text_full"].chars == len(long)
    assert record["reasoning_full"] == record["text_full"]
    assert len(record["text"]) < 70_000
    whole = call_record(result, whole_text=True)
    assert whole["text"] == "[redacted:CUSTOM_CRED] " + "x" * 100_000
    assert whole["text_full"] is None and whole["reasoning"] == record["reasoning"]
    call = transcript_entry("analysis", "openai/x", [], record)
    assert call.response_full == record["text_full"]
