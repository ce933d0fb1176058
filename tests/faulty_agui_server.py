"""A misbehaving AG-UI server for the fault tests: ``python faulty_agui_server.py PORT``.

A Starlette app under uvicorn (a real process on loopback). The path picks the fault; the
first run of each thread misbehaves and later runs on the same thread answer properly (so a
test sees the panel stay usable):

- ``/drop``: a few words, then the connection is cut mid-stream (no ``RUN_FINISHED``).
- ``/stall``: a few words, then nothing (the client's read timeout ends it).
- ``/malformed``: not-JSON lines, an unknown event type, events out of order, HTML and
  script in text, a 300 kB delta, then a proper end.
- ``/http500``: an HTTP 500 with a JSON error body. ``/notsse``: 200 with JSON, not SSE.
- ``/huge``: one event of 2 MB (over a small ``max_event_bytes``).
- ``/runerror``: ``RUN_ERROR`` after a few words.
- ``/ok``: always a proper run.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

SEEN: dict[str, int] = {}


def sse(event: dict[str, Any] | str) -> bytes:
    data = event if isinstance(event, str) else json.dumps(event)
    return f"data: {data}\n\n".encode()


def words(msg_id: str, text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"type": "TEXT_MESSAGE_START", "messageId": msg_id, "role": "assistant"}
    ]
    out += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": msg_id, "delta": w + " "}
        for w in text.split()
    ]
    return out


def good_run(thread: str, run: str, n: int) -> list[dict[str, Any] | str]:
    return [
        {"type": "RUN_STARTED", "threadId": thread, "runId": run},
        *words(f"ok-{n}", f"All good now, run {n}."),
        {"type": "TEXT_MESSAGE_END", "messageId": f"ok-{n}"},
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run},
    ]


async def run(request: Request) -> Response:
    fault = request.path_params["fault"]
    body = await request.json()
    thread, run_id = str(body.get("threadId")), str(body.get("runId"))
    n = SEEN.get(thread, 0) + 1
    SEEN[thread] = n
    if n > 1 or fault == "ok":
        return stream(good_run(thread, run_id, n))
    if fault == "http500":
        return JSONResponse({"error": "the model backend is down", "code": "internal"}, 500)
    if fault == "notsse":
        return JSONResponse({"hello": "this is not an event stream"})
    start = [{"type": "RUN_STARTED", "threadId": thread, "runId": run_id}]
    if fault == "drop":
        return stream([*start, *words("m1", "These words arrive and then")], end="drop")
    if fault == "stall":
        return stream([*start, *words("m1", "These words arrive and then")], end="stall")
    if fault == "runerror":
        err = {"type": "RUN_ERROR", "message": "model <b>quota</b> exceeded", "code": "quota"}
        return stream([*start, *words("m1", "Starting to"), err])
    if fault == "huge":
        big = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "x" * 2_000_000}
        return stream([*start, *words("m1", "Big:"), big])
    # malformed
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script> **bold**'
    events: list[dict[str, Any] | str] = [
        *start,
        "this is {not json",
        '["a", "list"]',
        {"type": "NO_SUCH_EVENT", "x": 1},
        {"type": "TEXT_MESSAGE_CONTENT", "delta": "missing its message id"},
        {"type": "TEXT_MESSAGE_END", "messageId": "never-started"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "nobody", "delta": "{}"},
        {"type": "TOOL_CALL_RESULT", "messageId": "r0", "toolCallId": "nobody", "content": "?"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": hostile},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": " " + "y" * 300_000},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/nope", "value": 1}]},
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run_id},
        *words("after-end", "ignored after the end"),
    ]
    return stream(events)


def stream(events: list[dict[str, Any] | str], end: str = "") -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        for event in events:
            yield sse(event)
            await asyncio.sleep(0.01)
        if end == "drop":
            raise ConnectionResetError("cut on purpose")  # uvicorn closes the socket mid-body
        if end == "stall":
            await asyncio.sleep(3600)

    return StreamingResponse(body(), media_type="text/event-stream")


app = Starlette(routes=[Route("/{fault}", run, methods=["POST"])])

if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="critical")
