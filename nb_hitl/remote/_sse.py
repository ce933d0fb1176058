"""Server-sent events from an AG-UI server, read with limits, parsed with the SDK's types.

AG-UI's HTTP transport is SSE: ``data: <one event as JSON>`` lines, an empty line after each.
Nothing here trusts the server: a line or event larger than ``max_event_bytes`` ends the run
with a ``RemoteAgentError`` (the limit is the only memory it may claim), and a payload that is
not JSON, not an object, of an unknown ``type``, or that the SDK's pydantic models refuse
becomes a ``Skipped`` item (the run goes on; the agent tells the person once per kind).
Events are validated with ``ag_ui.core.Event``, the SDK's discriminated union: nothing here
re-declares the protocol.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from nb_hitl.exceptions import RemoteAgentError

DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024
"""The largest SSE line or event accepted (4 MiB): a bigger one ends the run with an error."""


@dataclass(frozen=True)
class Skipped:
    """An SSE event that was not a valid AG-UI event; ``why`` says so in plain words."""

    kind: str
    """``"json"`` (not JSON), ``"shape"`` (not an object with a type), ``"unknown"`` (a type
    AG-UI does not define) or ``"invalid"`` (fields the SDK's model refused)."""
    why: str


_ADAPTER: Any = None


def _adapter() -> Any:
    global _ADAPTER
    if _ADAPTER is None:
        from ag_ui.core import Event
        from pydantic import TypeAdapter

        _ADAPTER = TypeAdapter(Event)
    return _ADAPTER


def _known_types() -> set[str]:
    from ag_ui.core import EventType

    return {e.value for e in EventType}


def parse_event(data: str) -> Any:
    """One SSE ``data`` payload as an AG-UI event (an SDK pydantic model) or ``Skipped``."""
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return Skipped("json", f"not JSON: {_clip(data)}")
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return Skipped("shape", f"not an AG-UI event (no 'type'): {_clip(data)}")
    if raw["type"] not in _known_types():
        return Skipped("unknown", f"unknown event type {_clip(raw['type'], 60)!r}")
    try:
        return _adapter().validate_python(raw)
    except (ValueError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return Skipped("invalid", f"invalid {raw['type']} event ({_clip(first, 120)})")


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def sse_data(
    chunks: AsyncIterator[bytes], max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
) -> AsyncIterator[str]:
    """The ``data`` of each SSE event in ``chunks`` (bytes as they arrive), in order.

    Comments (``:``) and the ``event``/``id``/``retry`` fields are ignored; ``data`` lines of
    one event are joined with newlines, as the SSE standard says.
    """
    buffer = bytearray()
    data: list[str] = []
    size = 0
    async for chunk in chunks:
        buffer += chunk
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > max_event_bytes:
                    raise _too_big(max_event_bytes)
                break
            line = bytes(buffer[:end]).rstrip(b"\r").decode("utf-8", errors="replace")
            del buffer[: end + 1]
            if not line:
                if data:
                    yield "\n".join(data)
                data, size = [], 0
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if field == "data":
                value = value[1:] if value.startswith(" ") else value
                size += len(value)
                if size > max_event_bytes:
                    raise _too_big(max_event_bytes)
                data.append(value)
    tail = bytes(buffer).rstrip(b"\r").decode("utf-8", errors="replace")
    if tail.startswith("data:"):  # a last line without its newline
        data.append(tail[6:] if tail.startswith("data: ") else tail[5:])
    if data:  # a last event without its blank line: still an event
        yield "\n".join(data)


def _too_big(limit: int) -> RemoteAgentError:
    return RemoteAgentError(
        f"The server sent an event larger than {limit:,} bytes; the run was stopped. "
        "If that is expected, raise RemoteAgent(max_event_bytes=...).",
        kind="protocol",
    )


__all__ = ["DEFAULT_MAX_EVENT_BYTES", "Skipped", "parse_event", "sse_data"]
