"""Fixtures for the token tests: a socket guard that records and refuses every connection."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from nb_hitl.token._vocab import clear_encoding_cache


class NetworkAttempt(RuntimeError):
    """Raised instead of opening a connection while the guard is on."""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuse (and record) every DNS lookup and socket connection during the test."""
    attempts: list[str] = []

    def refuse(what: str) -> Any:
        def blocked(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{what}{args[1:] if what == 'connect' else args}")
            raise NetworkAttempt(f"network access attempted: {what}")

        return blocked

    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    yield attempts


@pytest.fixture
def fresh_vocab() -> Iterator[None]:
    """Build encodings from scratch in this test (and again afterwards for the others)."""
    clear_encoding_cache()
    yield
    clear_encoding_cache()
