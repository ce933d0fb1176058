"""HTTP to an AG-UI server: a run's SSE stream, and nb_hitl's extra endpoints when present.

The run is AG-UI's one endpoint: ``POST <url>`` with ``RunAgentInput`` JSON, answered by an SSE
stream. nb_hitl's own server (``nb_hitl.serve``, its contract in docs/remote.md) adds
``GET <url>/info`` (capabilities), ``GET <url>/threads/<id>/messages`` (history without a
run), ``POST <url>/threads/<id>/interrupt`` (stop) and ``.../steer``; other servers answer
those with 404/405, and the client then does without them.

Every failure becomes a ``RemoteAgentError`` whose message says what happened and what to do;
the bearer token lives in the client's headers only (never in a repr, trait or message).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from nb_hitl.exceptions import RemoteAgentError

from ._sse import DEFAULT_MAX_EVENT_BYTES, parse_event, sse_data

ERROR_BODY_BYTES = 2048
"""How much of an error answer's body is quoted in the error message."""


def _httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - httpx comes with the serve extra
        raise ImportError(
            'RemoteAgent needs httpx and ag-ui-protocol: pip install "nb-hitl[serve]"'
        ) from exc
    return httpx


class RemoteClient:
    """One AG-UI server at ``url``: runs, and nb_hitl's extra endpoints.

    Args:
        url: the run endpoint (``http://127.0.0.1:8000/``).
        headers: extra request headers (sent on every request).
        connect_timeout: seconds to connect.
        read_timeout: seconds without a byte before a stream counts as stalled.
        max_event_bytes: the largest SSE event accepted.
    """

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"RemoteAgent needs an http(s) URL, got {url!r}.")
        self.url = url
        self.base = url.rstrip("/")
        self._headers = dict(headers or {})
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_event_bytes = max_event_bytes
        self._client: Any = None

    def __repr__(self) -> str:
        return f"RemoteClient({self.url!r})"

    def _http(self) -> Any:
        if self._client is None or self._client.is_closed:
            httpx = _httpx()
            timeout = httpx.Timeout(self.read_timeout, connect=self.connect_timeout)
            self._client = httpx.AsyncClient(headers=self._headers, timeout=timeout)
        return self._client

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- nb_hitl's extra endpoints (None when the server has none) ------------------------------
    async def info(self) -> dict[str, Any] | None:
        """``GET <url>/info``: the server's capabilities, or None (not an nb_hitl server)."""
        return await self._get_json(f"{self.base}/info")

    async def history(self, thread_id: str) -> dict[str, Any] | None:
        """``GET <url>/threads/<id>/messages``: the thread's messages, state and interrupts."""
        return await self._get_json(f"{self.base}/threads/{quote(thread_id, safe='')}/messages")

    async def stop(self, thread_id: str, run_id: str | None) -> bool:
        """``POST <url>/threads/<id>/interrupt``; True when the server stopped a run."""
        body = {"runId": run_id} if run_id else {}
        answer = await self._post_json(
            f"{self.base}/threads/{quote(thread_id, safe='')}/interrupt", body, timeout=5.0
        )
        return bool(answer and answer.get("interrupted"))

    async def steer(self, thread_id: str, text: str, msg_id: str, name: str) -> bool:
        """``POST <url>/threads/<id>/steer``; True when the running run queued it."""
        answer = await self._post_json(
            f"{self.base}/threads/{quote(thread_id, safe='')}/steer",
            {"content": text, "id": msg_id, "name": name},
        )
        return bool(answer and answer.get("queued"))

    async def _get_json(self, url: str) -> dict[str, Any] | None:
        httpx = _httpx()
        try:
            response = await self._http().get(url, headers={"accept": "application/json"})
        except httpx.TimeoutException as exc:
            raise RemoteAgentError(
                f"{url} did not answer in time ({exc}).", kind="timeout"
            ) from exc
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        if response.status_code in (404, 405):
            return None
        self._raise_for_status(response.status_code, response.text[:ERROR_BODY_BYTES], url)
        return _json_object(response.text)

    async def _post_json(
        self, url: str, body: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any] | None:
        httpx = _httpx()
        try:
            response = await self._http().post(
                url, json=body, timeout=timeout or httpx.USE_CLIENT_DEFAULT
            )
        except httpx.HTTPError:
            return None  # stop and steer are best effort; the run's stream says what happened
        if response.status_code >= 400:
            return None
        return _json_object(response.text)

    # -- the run ---------------------------------------------------------------------------------
    async def run(self, body: dict[str, Any]) -> AsyncIterator[Any]:
        """``POST <url>`` with ``body`` (``RunAgentInput`` JSON): each AG-UI event as the SDK's
        model, or ``Skipped`` for one that is not valid. Closing the iterator closes the
        connection (the server sees the client go away: AG-UI's cancel)."""
        httpx = _httpx()
        headers = {"accept": "text/event-stream", "content-type": "application/json"}
        try:
            async with self._http().stream(
                "POST", self.url, content=json.dumps(body), headers=headers
            ) as response:
                if response.status_code >= 400:
                    text = (await response.aread())[:ERROR_BODY_BYTES].decode("utf-8", "replace")
                    self._raise_for_status(response.status_code, text, self.url)
                kind = response.headers.get("content-type", "")
                if "text/event-stream" not in kind:
                    raise RemoteAgentError(
                        f"{self.url} answered with {kind or 'no content type'}, not an AG-UI "
                        "event stream (text/event-stream): is this the agent's run URL?",
                        kind="protocol",
                    )
                async for data in sse_data(response.aiter_bytes(), self.max_event_bytes):
                    yield parse_event(data)
        except httpx.TimeoutException as exc:
            raise RemoteAgentError(
                f"The server at {self.url} sent nothing for {self.read_timeout:g} s (a stalled "
                "run); the reply was stopped. Check the server, then send again or Retry.",
                kind="timeout",
            ) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise RemoteAgentError(
                f"The connection to {self.url} dropped mid-stream ({type(exc).__name__}); "
                "the text so far is kept. Retry when the server is back.",
                kind="dropped",
            ) from exc
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc

    def _unreachable(self, exc: Exception) -> RemoteAgentError:
        return RemoteAgentError(
            f"Could not reach the agent server at {self.url} ({type(exc).__name__}: {exc}). "
            "Is it running, and is the URL right?",
            kind="connection",
        )

    def _raise_for_status(self, status: int, text: str, url: str) -> None:
        if status < 400:
            return
        detail = text.strip()
        parsed = _json_object(text)
        if parsed and isinstance(parsed.get("error"), str):
            detail = parsed["error"]
        hint = {
            401: " Pass the server's token: RemoteAgent(url, token=...).",
            403: " The token was refused.",
            404: " Check the URL (the server's run endpoint).",
            409: " The thread is busy with another run: stop it, or wait.",
        }.get(status, "")
        raise RemoteAgentError(
            f"HTTP {status} from {url}: {' '.join(detail.split())[:300] or 'no detail'}.{hint}",
            kind="http",
            status_code=status,
        )


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


__all__ = ["RemoteClient"]
