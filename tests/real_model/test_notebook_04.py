"""Notebook 04 executes in a real kernel: against llama.cpp, and on its demo server alone."""

from __future__ import annotations

import socket
from pathlib import Path

import nbformat
import pytest
from llama_server import LlamaServer
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04_real_models.ipynb"
CONFIG_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DASHSCOPE_API_KEY",
    "DASHSCOPE_BASE_URL",
    "NB_HITL_OLLAMA_BASE_URL",
    "NB_HITL_LLAMA_BASE_URL",
)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def execute(monkeypatch: pytest.MonkeyPatch, **env: str) -> tuple[nbformat.NotebookNode, str]:
    for var in CONFIG_VARS:
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)  # the kernel inherits this process's environment
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()  # fmt: skip
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs
        if o.get("output_type") == "error"
    ]  # fmt: skip
    assert not errors, errors
    text = "\n".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
    return nb, text


@pytest.mark.notebook
def test_notebook_04_runs_on_its_demo_server_when_nothing_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nowhere = closed_port_url()
    _, text = execute(monkeypatch, NB_HITL_OLLAMA_BASE_URL=nowhere, NB_HITL_LLAMA_BASE_URL=nowhere)
    assert "Skipped: set OPENAI_API_KEY" in text
    assert "Skipped: set DASHSCOPE_API_KEY" in text
    assert "Skipped: no Ollama server answers" in text
    assert "Skipped: no llama.cpp server answers" in text
    # With no real model configured, sections 5-7 run on the notebook's own demo server.
    assert "Skipped: no model is configured" not in text
    assert "<DemoServer serving http://127.0.0.1:" in text
    assert "interrupted in" in text and "the server stopped after" in text
    assert "client disconnected: True" in text
    assert "ModelStreamError" in text
    assert "Could not connect to" in text and "Is the server running?" in text


@pytest.mark.real_model
@pytest.mark.notebook
def test_notebook_04_interrupts_and_resumes_a_real_llama_cpp_stream(
    monkeypatch: pytest.MonkeyPatch, llama_server: LlamaServer
) -> None:
    disconnects = llama_server.log_text().count("Disconnected from client")
    nb, text = execute(
        monkeypatch,
        NB_HITL_LLAMA_BASE_URL=llama_server.base_url,
        NB_HITL_OLLAMA_BASE_URL=closed_port_url(),
    )
    assert "configured: OpenAIChatModel(model_name='smollm2'" in text
    assert "interrupted in" in text
    assert "_partial" in text and "_is_interrupted" in text
    assert "reported no usage" in text  # llama.cpp: explained, not failed
    assert llama_server.log_text().count("Disconnected from client") > disconnects
    widgets = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]  # fmt: skip
    assert widgets  # the panel was displayed
