"""Errors nb_hitl raises, as one small tree.

    NbHitlError
    ├── AgentBusyError        agent() called while a reply is running
    ├── ResumeError           agent.resume() refused: the reply was edited or compressed since
    │   └── NothingToResumeError  agent.resume() with no interrupted reply to continue
    ├── BranchError           a fork or checkout was refused (unknown branch, a cut tool call)
    ├── ScriptExhaustedError  a ScriptedModel was asked for more turns than its script has
    ├── ModelError            a model call failed (HTTP status, timeout, broken stream)
    │   ├── ModelAuthError        missing or wrong API key (HTTP 401/403)
    │   ├── ModelNotFoundError    unknown model or wrong base URL (HTTP 404)
    │   ├── ModelRateLimitError   rate limit or quota (HTTP 429), after the retries
    │   ├── ModelTimeoutError     no answer, or a stalled stream, within the timeout
    │   ├── ModelConnectionError  the server could not be reached
    │   └── ModelStreamError      the stream broke mid-reply or sent a malformed chunk
    ├── ToolError             a tool could not be registered or called (bad schema, bad name)
    ├── ConfigError           invalid configuration (CompressionConfig, knobs), also a ValueError
    ├── ApprovalError         a tool-call decision for an unknown or closed call, or bad arguments
    ├── SessionError          a session file cannot be saved or loaded
    ├── TokenCountError       the tokenizer failed on a text (it never hangs the agent)
    ├── TranscriptError       a recorded conversation cannot be replayed (compression replay)
    ├── RemoteAgentError      an AG-UI server failed a run (HTTP error, unreachable, stalled,
    │                         dropped or malformed stream, RUN_ERROR)
    ├── HookError             a hook registered on an agent raised
    ├── SharedLookError       kept for old code: no layout is shared any more, never raised
    │                         (also an AttributeError; give the widget its own)
    └── ServeError            the AG-UI server refused a request (HTTP status, code, what to do)

Interruption is not an error: it is signalled by ``asyncio.CancelledError`` inside the reply
task and surfaces to callers as a ``Msg`` whose ``metadata["_is_interrupted"]`` is True.
Errors carry data and a message a person can act on; they never log in their constructor.
"""

from __future__ import annotations


class NbHitlError(Exception):
    """Base class of every error nb_hitl raises on purpose."""


class AgentBusyError(NbHitlError, RuntimeError):
    """The agent is already replying; interrupt it or await the running reply first."""

    def __init__(self, agent_name: str) -> None:
        super().__init__(
            f"Agent {agent_name!r} is already replying. Await the running reply, or call "
            f"`await agent.interrupt()` first (the widget's Send does interrupt-and-redirect)."
        )
        self.agent_name = agent_name


class ResumeError(NbHitlError, RuntimeError):
    """``agent.resume()`` was refused; nothing changed.

    ``reason`` says why: ``"compressed"`` (memory was compressed past the interrupted reply),
    ``"edited"`` (its partial answer was changed or deleted), ``"nothing"`` (no interrupted
    reply: ``NothingToResumeError``).
    """

    def __init__(self, message: str, *, reason: str, interrupted_id: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.interrupted_id = interrupted_id


class NothingToResumeError(ResumeError):
    """``agent.resume()`` found no interrupted reply to continue (the last one finished, was
    already continued, or there was none); send a new message instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="nothing")


class BranchError(NbHitlError, ValueError):
    """A branch operation (``fork``, ``checkout``, ``edit_and_resend``, ``regenerate``) was
    refused; memory and the branches are unchanged. The message says what to do instead."""


class ScriptExhaustedError(NbHitlError, RuntimeError):
    """A ScriptedModel ran out of scripted turns."""

    def __init__(self, calls: int, turns: int) -> None:
        super().__init__(
            f"ScriptedModel was called {calls} times but its script has only {turns} turn(s). "
            f"Add turns to the script, pass `then=ScriptedModel.demo()` to answer past it, "
            f"`responder=` to compute replies, or use `ScriptedModel.demo()`, which never "
            f"runs out."
        )
        self.calls = calls
        self.turns = turns


class ModelError(NbHitlError, RuntimeError):
    """A model call failed in a way the agent reports to the user."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class ModelAuthError(ModelError):
    """The provider rejected or did not receive an API key."""


class ModelNotFoundError(ModelError):
    """The server does not know the model (or the base URL points at the wrong path)."""


class ModelRateLimitError(ModelError):
    """The provider kept answering HTTP 429 (rate limit or exhausted quota)."""


class ModelTimeoutError(ModelError):
    """The server did not answer, or stopped streaming, within the timeout."""


class ModelConnectionError(ModelError):
    """The server could not be reached (not running, wrong host or port)."""


class ModelStreamError(ModelError):
    """The response stream broke off mid-reply or carried a chunk that could not be read."""


class ToolError(NbHitlError, ValueError):
    """A tool could not be registered or described."""


class ConfigError(NbHitlError, ValueError):
    """A configuration value is invalid; the message says what to change."""


class ApprovalError(NbHitlError, ValueError):
    """A decision on a waiting tool call was refused; nothing changed.

    Raised for an unknown call id, a call that is no longer waiting (decided, or closed by an
    interrupt), or edited arguments that are not valid JSON or do not fit the tool's schema.
    """

    def __init__(self, message: str, *, call_id: str | None = None) -> None:
        super().__init__(message)
        self.call_id = call_id


class SessionError(NbHitlError):
    """A session file could not be saved or loaded; the live agent is unchanged."""


class TokenCountError(NbHitlError):
    """Counting tokens failed (the tokenizer raised or panicked); nothing was changed."""


class TranscriptError(NbHitlError, ValueError):
    """A recorded conversation cannot be replayed (empty, no model call, an orphan tool result,
    a repeated message id); the message names the message to fix."""


class RemoteAgentError(NbHitlError):
    """A run of a ``RemoteAgent`` (an AG-UI server) failed; memory stays a valid history.

    ``kind`` says what happened: ``"http"`` (an error status, ``status_code`` set),
    ``"connection"`` (the server could not be reached), ``"timeout"`` (no byte within the read
    timeout: a stalled server), ``"dropped"`` (the stream ended before ``RUN_FINISHED``),
    ``"protocol"`` (an event too large, or a stream that is not AG-UI) or ``"run_error"`` (the
    server sent ``RUN_ERROR``; ``code`` is its code).
    """

    def __init__(
        self, message: str, *, kind: str, status_code: int | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status_code = status_code
        self.code = code


class HookError(NbHitlError):
    """A hook registered on an agent raised (its error is the ``__cause__``).

    The agent's memory stays a valid history: a failing ``pre_*`` hook stops the call before
    it starts; a failing ``post_*`` hook leaves what the call already recorded.
    """

    def __init__(self, hook_type: str, hook_name: str, error: BaseException) -> None:
        stage = (
            "before the call ran; nothing was recorded"
            if hook_type.startswith("pre_")
            else "after the call finished; what it recorded stays in memory"
        )
        super().__init__(
            f"The {hook_type} hook {hook_name!r} raised {type(error).__name__}: {error} "
            f"({stage}). Fix or remove it with remove_instance_hook/remove_class_hook"
            f"({hook_type!r}, {hook_name!r})."
        )
        self.hook_type = hook_type
        self.hook_name = hook_name
        self.error = error


class SharedLookError(NbHitlError, AttributeError):
    """Kept so that code catching it still runs; nb_hitl no longer raises it.

    It said a ``Layout`` or style that several nb_hitl widgets shared (one comm for all, to
    cut comms) was changed. Every panel is now one model with its own layout, and no widget
    shares one: setting any widget's layout just works.
    """


class ServeError(NbHitlError):
    """The AG-UI server (``nb_hitl.serve``) refuses a request; nothing was changed.

    Answered as HTTP ``status`` with ``{"error": message, "code": code}``: ``code`` is a
    short word a client can branch on (``busy``, ``bad_input``, ``unauthorized``...), the
    message says what is wrong and what to do.
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
