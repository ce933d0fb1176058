"""A real HTTP server that speaks the OpenAI chat-completions protocol, for tests.

It runs in a thread with its own event loop and serves HTTP/1.1 (keep-alive, chunked SSE), so
the real ``openai`` SDK talks to it over a real socket. The model name in a request picks a
``Scenario``: what to answer on each attempt (a stream of chunks, an HTTP error, silence) and
how a stream ends (``[DONE]``, a broken connection, a stall). Every request is recorded, with
whether the client disconnected before the answer was complete, so tests can check that an
interrupt really closed the stream.

It also speaks DashScope's own HTTP API (``POST .../services/aigc/*/generation``, what the
``dashscope`` SDK sends): the same scenarios, with DashScope's SSE framing and error bodies
(``fake_dashscope.py`` builds its answers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Completion",
    "FakeOpenAIServer",
    "Hang",
    "RecordedRequest",
    "Scenario",
    "Sse",
    "Status",
    "text_chunks",
    "tool_call_chunks",
    "usage_chunk",
]

Ending = Literal["done", "break", "stall", "end"]


@dataclass
class Sse:
    """A 200 streaming answer: ``events`` (dicts as JSON, strings verbatim), then ``ending``.

    ``ending``: ``done`` sends ``data: [DONE]``; ``break`` cuts the connection inside a chunk;
    ``stall`` sends nothing more until the client goes away; ``end`` finishes the body cleanly
    without ``[DONE]``.
    """

    events: list[dict[str, Any] | str]
    delay: float = 0.0
    ending: Ending = "done"


@dataclass
class Status:
    """An HTTP error answer with a JSON body (OpenAI's ``{"error": {...}}`` shape by default)."""

    code: int
    message: str = "error"
    error_type: str = "server_error"
    error_code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Completion:
    """A 200 non-streamed answer: ``payload`` as the JSON body."""

    payload: dict[str, Any]


@dataclass
class Hang:
    """Send no answer at all until the client gives up (a server that never responds)."""


Answer = Sse | Status | Completion | Hang


@dataclass
class Scenario:
    """Answers for successive attempts with one model name (the last one repeats)."""

    answers: list[Answer]
    api_key: str | None = None
    """If set, requests without ``Authorization: Bearer <api_key>`` get a 401 that echoes
    the key they sent (as careless servers do), to test that nb_hitl redacts it."""


@dataclass
class RecordedRequest:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float = field(default_factory=time.perf_counter)
    events_sent: int = 0
    completed: bool = False
    """True when the whole answer was written (for a stream: through its ending)."""
    disconnected: threading.Event = field(default_factory=threading.Event)
    """Set when the client closed the connection before the answer was complete."""
    disconnected_at: float | None = None


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def text_chunks(
    pieces: Sequence[str], *, reasoning: Sequence[str] = (), finish: str | None = "stop"
) -> list[dict[str, Any] | str]:
    """A role chunk, reasoning pieces, text pieces, then a finish chunk (if ``finish``)."""
    events: list[dict[str, Any] | str] = [_chunk({"role": "assistant", "content": ""})]
    events += [_chunk({"reasoning_content": r}) for r in reasoning]
    events += [_chunk({"content": p}) for p in pieces]
    if finish:
        events.append(_chunk({}, finish))
    return events


def tool_call_chunks(
    calls: list[tuple[str, str, list[str]]], *, finish: str | None = "tool_calls"
) -> list[dict[str, Any] | str]:
    """Tool-call deltas: per call ``(id, name, argument pieces)``, the OpenAI way (id and name
    only in the first delta of each index)."""
    events: list[dict[str, Any] | str] = [_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, pieces) in enumerate(calls):
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        events.append(_chunk({"tool_calls": [first]}))
        for piece in pieces:
            events.append(
                _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    if finish:
        events.append(_chunk({}, finish))
    return events


def usage_chunk(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """The final chunk ``stream_options.include_usage`` asks for (no choices)."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _error_body(error: dict[str, Any], native: bool) -> dict[str, Any]:
    """OpenAI's ``{"error": {...}}``, or DashScope's ``{"code", "message", "request_id"}``."""
    if not native:
        return {"error": error}
    code = error.get("code") or "InvalidParameter"
    return {"code": code, "message": error["message"], "request_id": "req-fake"}


class FakeOpenAIServer:
    """Serve scenarios on 127.0.0.1 and a free port until ``stop()``."""

    def __init__(self) -> None:
        self.scenarios: dict[str, Scenario] = {}
        self.requests: list[RecordedRequest] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._handlers: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._arrived = threading.Condition()

    @property
    def base_url(self) -> str:
        """The API root to give ``base_url=``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, scenario: Scenario, name: str | None = None) -> str:
        """Register ``scenario``; return the (fresh, unless given) model name selecting it."""
        name = name or f"fake-{uuid.uuid4().hex[:10]}"
        self.scenarios[name] = scenario
        return name

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """The requests that asked for ``model``, in order."""
        return [r for r in self.requests if r.body.get("model") == model]

    def wait_for_requests(self, model: str, count: int = 1, timeout: float = 10.0) -> bool:
        """Block until ``count`` requests for ``model`` arrived (call it via a thread)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests_for(model)) >= count, timeout)

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._run, name="fake-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake OpenAI server did not start within 10 s")
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._thread = None

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        for writer in list(self._writers):
            writer.close()
        await self._server.wait_closed()

    # -- HTTP --------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self._writers.add(writer)
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass  # shutdown: asyncio's stream callback would log a cancelled handler as an error
        finally:
            self._handlers.discard(task)
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                key, value = line.split(":", 1)
                headers[key.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        body = json.loads(raw) if raw else {}
        request = RecordedRequest(path=path, headers=headers, body=body)
        self.requests.append(request)
        with self._arrived:
            self._arrived.notify_all()
        route = path.split("?", 1)[0]
        native = route.endswith("/generation")  # DashScope's own API
        if method != "POST" or not (route.endswith("/chat/completions") or native):
            await self._send_json(writer, 404, {"error": {"message": f"no route {path}"}})
            return True
        scenario = self.scenarios.get(str(body.get("model")))
        if scenario is None:
            message = f"The model `{body.get('model')}` does not exist or you do not have access."
            error = {"message": message, "type": "invalid_request_error", "code": "model_not_found"}
            await self._send_json(writer, 404, _error_body(error, native))
            request.completed = True
            return True
        sent_key = headers.get("authorization", "").removeprefix("Bearer ")
        if scenario.api_key is not None and sent_key != scenario.api_key:
            error = {
                "message": f"Incorrect API key provided: {sent_key}.",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
            await self._send_json(writer, 401, _error_body(error, native))
            request.completed = True
            return True
        attempt = len(self.requests_for(str(body.get("model")))) - 1
        answer = scenario.answers[min(attempt, len(scenario.answers) - 1)]
        if isinstance(answer, Status):
            error = {
                "message": answer.message,
                "type": answer.error_type,
                "code": answer.error_code,
            }
            await self._send_json(writer, answer.code, _error_body(error, native), answer.headers)
            request.completed = True
            return True
        if isinstance(answer, Completion):
            await self._send_json(writer, 200, answer.payload)
            request.completed = True
            return True
        gone = asyncio.ensure_future(reader.read(1))  # b"" once the client closes
        try:
            if isinstance(answer, Hang):
                await asyncio.wait({gone}, timeout=60)
                self._mark_gone(request, gone)
                return False
            return await self._stream(writer, request, answer, gone, native)
        finally:
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await gone

    @staticmethod
    def _mark_gone(request: RecordedRequest, gone: asyncio.Future[bytes]) -> bool:
        if gone.done() and not request.disconnected.is_set():
            request.disconnected_at = time.perf_counter()
            request.disconnected.set()
        return gone.done()

    async def _stream(
        self,
        writer: asyncio.StreamWriter,
        request: RecordedRequest,
        answer: Sse,
        gone: asyncio.Future[bytes],
        native: bool = False,
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
        )
        await writer.drain()
        for event in answer.events:
            if answer.delay:
                await asyncio.wait({gone}, timeout=answer.delay)
            if self._mark_gone(request, gone):
                return False
            data = event if isinstance(event, str) else json.dumps(event)
            if native:  # DashScope's framing: id, event, status comment, data
                n = request.events_sent + 1
                frame = f"id:{n}\nevent:result\n:HTTP_STATUS/200\ndata:{data}\n\n"
                await self._write_chunk(writer, frame.encode())
            else:
                await self._write_chunk(writer, f"data: {data}\n\n".encode())
            request.events_sent += 1
        if answer.ending == "break":
            writer.write(b'40\r\ndata: {"choices": [{"delta": {"content": "cut')
            await writer.drain()
            writer.transport.abort()
            request.completed = True
            return False
        if answer.ending == "stall":
            await asyncio.wait({gone}, timeout=60)
            self._mark_gone(request, gone)
            return False
        if answer.ending == "done" and not native:
            await self._write_chunk(writer, b"data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        request.completed = True
        return False  # streams close their connection: the disconnect probe may not eat a byte

    @staticmethod
    async def _write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await writer.drain()

    @staticmethod
    async def _send_json(
        writer: asyncio.StreamWriter,
        code: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        writer.write(
            f"HTTP/1.1 {code} {'OK' if code == 200 else 'Error'}\r\n"
            f"content-type: application/json\r\n"
            f"content-length: {len(data)}\r\n{extra}\r\n".encode()
            + data
        )
        await writer.drain()
