"""The demo AG-UI servers' process wrapper (``nb_hitl.demo.remote.LocalServer``)."""

from __future__ import annotations

import sys

import pytest

from nb_hitl.demo.remote import LocalServer, free_port

DIES = (
    "import sys; sys.stderr.write(\"ModuleNotFoundError: No module named 'fastapi'\\n\"); "
    "sys.exit(1)"
)


def test_a_server_that_dies_says_why() -> None:
    """Walkthrough 07 once failed with "[...] exited with 1" and nothing else: the reason
    (fastapi missing) was in the server's stderr, thrown away."""
    server = LocalServer([sys.executable, "-c", DIES], free_port())
    with pytest.raises(RuntimeError) as info:
        server.start(timeout=30)
    message = str(info.value)
    assert "exited with 1" in message
    assert "No module named 'fastapi'" in message  # its stderr, in the error
    assert 'pip install "nb-hitl[notebook]"' in message
    assert server.proc is None  # nothing left running


def test_a_server_that_dies_silently_says_so() -> None:
    server = LocalServer([sys.executable, "-c", "raise SystemExit(3)"], free_port())
    with pytest.raises(RuntimeError, match="exited with 3 \\(it wrote nothing to stderr\\)"):
        server.start(timeout=30)
