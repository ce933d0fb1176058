"""DemoServer: a key-less OpenAI-compatible server on 127.0.0.1, for walkthroughs and demos.

    server = DemoServer().start()          # a thread of its own; nothing leaves the machine
    model = OpenAIChatModel("demo-storyteller", base_url=server.base_url)
    ...
    server.close()

It speaks enough of the chat-completions protocol for the real ``openai`` SDK: ``GET
/v1/models`` and ``POST /v1/chat/completions``, streamed (server-sent events, one word per
chunk at ``tokens_per_second``) or not. The answers are the offline demo model's
(``demo_responder``: it answers what it is asked, continues a partial answer). Two models:

- ``demo-storyteller`` answers normally;
- ``demo-broken`` streams a few words, then the connection drops: the client sees a broken
  stream (``ModelStreamError``), which is how a real outage mid-answer looks.

Any other model name gets HTTP 404 with OpenAI's error body. Every request is recorded
(``requests``), with how many words were sent and whether the client went away first, so a
walkthrough can show that an interrupt really closed the stream and the server stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from .model import demo_responder

MODELS = ("demo-storyteller", "demo-broken")
"""The model names the server answers to."""
BROKEN_AFTER_WORDS = 12
"""How many words ``demo-broken`` streams before its connection drops."""


@dataclass
class DemoRequest:
    """One chat-completions request the server answered."""

    model: str
    stream: bool
    messages: list[dict[str, Any]]
    words_total: int = 0
    """Words in the whole answer."""
    words_sent: int = 0
    """Words sent before the answer ended (or the client went away)."""
    disconnected: bool = False
    """True when the client closed the connection before the answer was complete."""
    done: threading.Event = field(default_factory=threading.Event, repr=False)
    """Set when the server has finished with the request."""


class DemoServer:
    """The demo's OpenAI-compatible server (see the module docstring).

    Args:
        tokens_per_second: streaming speed (one word per chunk).
        port: the port on 127.0.0.1 (0: a free one).
    """

    def __init__(self, tokens_per_second: float = 40.0, port: int = 0) -> None:
        if tokens_per_second <= 0:
            raise ValueError(f"tokens_per_second must be > 0 (got {tokens_per_second}).")
        self.tokens_per_second = tokens_per_second
        self.port = port
        self.requests: list[DemoRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    # -- life -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, what ``OpenAIChatModel(base_url=...)`` takes."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        """True between ``start()`` and ``close()``."""
        return self._server is not None

    def start(self) -> DemoServer:
        """Listen on 127.0.0.1 in a thread of its own; returns the server (chainable)."""
        if self._thread is not None:
            return self
        ready = threading.Event()
        failed: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._handle, "127.0.0.1", self.port)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # e.g. the port is taken: said by start()
                failed.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._shutdown())
                loop.close()

        self._thread = threading.Thread(target=run, name="nb_hitl-demo-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            self._thread = None
            raise OSError(f"The demo server could not listen on 127.0.0.1:{self.port}: {failed[0]}")
        return self

    def close(self) -> None:
        """Stop listening and end every open answer (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._thread = self._loop = None

    async def _shutdown(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await server.wait_closed()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"serving {self.base_url}" if self.running else "stopped"
        return f"<DemoServer {state}, models {', '.join(MODELS)}>"

    # -- HTTP -------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            if not line:
                return
            method, target = line.decode("latin-1").split(" ")[:2]
            headers: dict[str, str] = {}
            while True:
                raw = await reader.readline()
                if raw in (b"\r\n", b"\n", b""):
                    break
                key, _, value = raw.decode("latin-1").partition(":")
                headers[key.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length") or 0))
            path = target.split("?", 1)[0].rstrip("/")
            if method == "GET" and path.endswith("/models"):
                data = [{"id": m, "object": "model", "owned_by": "nb_hitl"} for m in MODELS]
                await self._json(writer, 200, {"object": "list", "data": data})
            elif method == "POST" and path.endswith("/chat/completions"):
                await self._complete(json.loads(body or b"{}"), reader, writer)
            else:
                await self._error(writer, 404, f"No route {method} {path}.", "not_found")
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _json(self, writer: asyncio.StreamWriter, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}.get(status, "Error")
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    async def _error(
        self, writer: asyncio.StreamWriter, status: int, message: str, code: str
    ) -> None:
        error = {"message": message, "type": "invalid_request_error", "code": code}
        await self._json(writer, status, {"error": error})

    async def _complete(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        model = str(request.get("model", ""))
        if model not in MODELS:
            await self._error(
                writer,
                404,
                f"The model `{model}` does not exist. This demo server has: {', '.join(MODELS)}.",
                "model_not_found",
            )
            return
        messages = list(request.get("messages") or [])
        text = str(demo_responder(messages, None).get("text") or "")
        words = re.findall(r"\S+\s*", text) or [""]
        record = DemoRequest(model, bool(request.get("stream")), messages, len(words))
        self.requests.append(record)
        try:
            if record.stream:
                await self._stream(model, words, record, reader, writer)
            else:
                record.words_sent = len(words)
                await self._json(writer, 200, _completion(model, text))
        finally:
            record.done.set()

    async def _stream(
        self,
        model: str,
        words: list[str],
        record: DemoRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        gone = asyncio.ensure_future(reader.read())  # returns at EOF: the client went away
        chunk_id = "chatcmpl-" + uuid.uuid4().hex[:12]
        try:
            self._event(writer, _chunk(chunk_id, model, {"role": "assistant", "content": ""}))
            for i, word in enumerate(words):
                if model == "demo-broken" and i == BROKEN_AFTER_WORDS:
                    writer.write(b"400\r\ndata: {")  # the outage: cut inside a chunk
                    await writer.drain()
                    writer.transport.abort()
                    return
                await asyncio.wait({gone}, timeout=1.0 / self.tokens_per_second)
                if gone.done():
                    record.disconnected = True
                    return
                self._event(writer, _chunk(chunk_id, model, {"content": word}))
                await writer.drain()
                record.words_sent = i + 1
            self._event(writer, _chunk(chunk_id, model, {}, finish="stop"))
            self._send(writer, b"data: [DONE]\n\n")
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except ConnectionError:
            record.disconnected = True
        finally:
            gone.cancel()

    @classmethod
    def _event(cls, writer: asyncio.StreamWriter, payload: dict[str, Any]) -> None:
        cls._send(writer, b"data: " + json.dumps(payload).encode() + b"\n\n")

    @staticmethod
    def _send(writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")  # one HTTP chunk


def _chunk(
    chunk_id: str, model: str, delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    return {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
    }


__all__ = ["BROKEN_AFTER_WORDS", "MODELS", "DemoRequest", "DemoServer"]
