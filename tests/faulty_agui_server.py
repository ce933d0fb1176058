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
- ``/echo``: every string the server sends is the user's last message (hostile-input tests):
  the agent's name, its text, a tool call's name and arguments, its result, the state, an
  approval interrupt; the resumed run ends with ``RUN_ERROR`` saying it again.
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
    if fault == "echo":
        return stream(echo(body, thread, run_id))
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


def echo(body: dict[str, Any], thread: str, run_id: str) -> list[dict[str, Any] | str]:
    said = next(
        (
            str(m.get("content"))
            for m in reversed(body.get("messages") or [])
            if m.get("role") == "user"
        ),
        "",
    )
    start = {"type": "RUN_STARTED", "threadId": thread, "runId": run_id}
    if body.get("resume"):
        return [start, {"type": "RUN_ERROR", "message": said, "code": said[:40]}]
    call = "c-" + run_id[:8]
    interrupt = {
        "id": "i-" + run_id[:8],
        "reason": said,
        "message": said,
        "toolCallId": call,
        "metadata": {"kind": "approval", "toolName": said, "arguments": {said: said}, "why": said},
    }
    return [
        start,
        {"type": "STATE_SNAPSHOT", "snapshot": {said: [said]}},
        {
            "type": "TEXT_MESSAGE_START",
            "messageId": "m-" + run_id[:8],
            "role": "assistant",
            "name": said,
        },
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-" + run_id[:8], "delta": said},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call,
            "toolCallName": said,
            "parentMessageId": "m-" + run_id[:8],
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": json.dumps({said: said})},
        {"type": "TOOL_CALL_END", "toolCallId": call},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "r-" + run_id[:8],
            "toolCallId": call,
            "content": said,
        },
        {"type": "NO_SUCH_EVENT_" + "".join(c for c in said if c.isalnum())[:20]},
        {
            "type": "RUN_FINISHED",
            "threadId": thread,
            "runId": run_id,
            "outcome": {"type": "interrupt", "interrupts": [interrupt]},
        },
    ]


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
