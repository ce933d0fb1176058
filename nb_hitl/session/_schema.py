"""The session file as one pydantic model: a file is checked whole before any agent changes.

``parse_session_text()`` turns the text of a session file into a ``SessionDocument`` or raises
``SessionError`` naming the field that is wrong (``agent.state.max_iters: ...``). Every field
the loader uses is typed strictly (no ``"3"`` for a number, no ``42`` for a text); fields this
version does not know are kept (agents may save more state), so a file stays readable.
JSON that Python cannot read safely (nesting deeper than the interpreter's recursion limit,
integers over 4,300 digits, ``NaN``) is refused with the same error, never a raw exception.
"""

from __future__ import annotations

import json
import reprlib
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from nb_hitl.exceptions import SessionError
from nb_hitl.message import Msg, ToolUseBlock

FORMAT = "nb_hitl.session"
SCHEMA_VERSION = 4
"""Version of the session file layout this nb_hitl writes (and the newest it reads).

2: the memory state has AgentScope 1.x's shape (``content`` / ``_compressed_summary``);
version 1 files (``messages`` / ``marks`` / ``summary``) still load.
3: the agent state holds ``steering``, the steering messages queued and not yet taken in
(an older nb_hitl would drop them silently, so it refuses the file and says to upgrade).
4: the agent state holds ``branches``, the conversation's other branches with their memory
(``agent.fork``, ``edit_and_resend``, ``regenerate``); an older nb_hitl would drop them.
"""

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "SessionDocument",
    "check_agent_settings",
    "find_surrogate",
    "load_json",
    "parse_session_text",
]


class _Part(BaseModel):
    # Unknown fields are kept (an agent subclass may save more); known ones are strict.
    model_config = ConfigDict(extra="allow")


class MemoryState(_Part):
    """``InMemoryMemory.state_dict()``: AgentScope's shape (schema 2) or the older one (1)."""

    content: list[tuple[Msg, list[StrictStr]]] | None = None
    """Schema 2: ``[message, marks]`` pairs, oldest first."""
    compressed_summary: StrictStr = Field(default="", alias="_compressed_summary")
    """Schema 2: the compressed summary of older messages."""
    messages: list[Msg] = Field(default_factory=list)
    """Schema 1: the held messages, oldest first."""
    marks: dict[str, list[StrictStr]] = Field(default_factory=dict)
    """Schema 1: message id to its marks."""
    summary: StrictStr = ""
    """Schema 1: the compressed summary of older messages."""

    @model_validator(mode="after")
    def _consistent(self) -> MemoryState:
        if self.content is not None:
            ids = [m.id for m, _marks in self.content]
            if len(set(ids)) != len(ids):
                raise ValueError("content: memory holds the same message id twice")
            return self
        ids = [m.id for m in self.messages]
        if len(set(ids)) != len(ids):
            raise ValueError("messages: memory holds the same message id twice")
        unknown = set(self.marks) - set(ids)
        if unknown:
            raise ValueError(
                f"marks: refer to messages memory does not hold ({sorted(unknown)[:3]})"
            )
        return self


class DecisionState(_Part):
    """A decision already made on a parked call."""

    kind: Literal["approved", "edited", "denied"]
    """What was decided."""
    arguments: dict[str, Any] | None = None
    """Edited arguments."""
    reason: StrictStr = ""
    """Why."""


class ParkedCall(_Part):
    """An open tool call of the parked turn."""

    call: ToolUseBlock
    """The model's ``tool_use`` block."""
    needs_approval: StrictBool = False
    """Whether it waits for a person's decision."""
    decision: DecisionState | None = None
    """The decision made so far."""


class ApprovalsState(_Part):
    """``ReActAgent.approvals_state()``."""

    always_allowed: list[StrictStr] = Field(default_factory=list)
    """Tools the person allowed for good."""
    parked: list[ParkedCall] = Field(default_factory=list)
    """Open calls of the parked turn."""


class AgentSettings(_Part):
    """The plain settings in ``agent.state_dict()`` (checked by every ``load_state_dict``)."""

    name: StrictStr | None = None
    """The agent's name."""
    interrupt_text: StrictStr | None = None
    """What an interrupted reply says."""
    sys_prompt: StrictStr | None = None
    """The system prompt."""
    max_iters: StrictInt | None = Field(default=None, ge=1)
    """Reasoning-acting steps per reply (1 or more)."""
    parallel_tool_calls: StrictBool | None = None
    """Run a turn's tool calls concurrently."""


class AgentState(AgentSettings):
    """``agent.state_dict()``: the fields nb_hitl's agents save."""

    memory: MemoryState | None = None
    """The memory."""
    approvals: ApprovalsState | None = None
    """Approval state (agents with tool approval)."""
    steering: list[Msg] | None = None
    """Steering messages queued (``agent.steer``) and not yet taken in, oldest first."""


class AgentPart(_Part):
    """Who saved the file and its state."""

    class_: StrictStr = Field(default="", alias="class")
    """The agent's class name."""
    name: StrictStr = ""
    """The agent's name."""
    state: AgentState
    """What ``load_state_dict`` receives."""


class CompressionSettings(_Part):
    """Plain compression settings (``CompressionConfig`` fields that are numbers or text)."""

    enable: StrictBool | None = None
    """Compress automatically."""
    trigger_threshold: StrictInt | None = Field(default=None, ge=1)
    """Tokens that trigger a compression."""
    keep_recent: StrictInt | None = Field(default=None, ge=0)
    """Latest messages kept verbatim."""
    compression_prompt: StrictStr | None = None
    """Instructions for the compression model."""
    summary_template: StrictStr | None = None
    """Only plain ``{field}`` placeholders (no format specs: they could pad to megabytes)."""

    @field_validator("summary_template")
    @classmethod
    def _plain_placeholders(cls, value: str | None) -> str | None:
        if value is not None:
            # CompressionConfig's own template rule (outside nb_hitl.compression's __all__,
            # which stays AgentScope's names).
            from nb_hitl.compression import check_summary_template

            check_summary_template(value)
        return value


class ApprovalRecord(_Part):
    """One entry of ``agent.approval_log`` (a decision the chat redraws)."""

    call_id: StrictStr
    tool_name: StrictStr
    input: dict[str, Any] = Field(default_factory=dict)
    decision: StrictStr
    arguments: dict[str, Any] | None = None
    reason: StrictStr = ""


class TranscriptExtras(_Part):
    """What widgets saved with the session."""

    approvals: list[ApprovalRecord] = Field(default_factory=list)
    """The approval log."""


class SessionDocument(_Part):
    """A whole session file."""

    format: Literal["nb_hitl.session"]
    """Always ``nb_hitl.session``."""
    schema_version: StrictInt = Field(ge=1, le=SCHEMA_VERSION)
    """The layout version."""
    nb_hitl_version: StrictStr = ""
    """The nb_hitl that wrote it."""
    saved_at: StrictStr = ""
    """When (ISO 8601, UTC)."""
    agent: AgentPart
    """The agent's name and state."""
    compression: CompressionSettings | None = None
    """Compression settings, if the agent had any."""
    transcript: TranscriptExtras = Field(default_factory=TranscriptExtras)
    """Widget extras."""


def check_agent_settings(state: Any) -> None:
    """Raise ``ValueError`` naming the field unless ``state``'s agent settings are well typed.

    Used by ``AgentBase.load_state_dict`` so that every way of loading (``load_session``,
    ``JSONSession``, a direct call) refuses ``interrupt_text: 42`` or ``max_iters: 0``.
    """
    if not isinstance(state, dict):
        raise ValueError(f"agent state must be a JSON object, not {type(state).__name__}")
    settings = {k: state[k] for k in AgentSettings.model_fields if k in state}
    try:
        AgentSettings.model_validate(settings)
    except ValidationError as exc:
        raise ValueError(f"agent state: {explain(exc)}") from None


def _where(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for p in loc:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        elif p in ("function-after", "function-before") or "[" in str(p):
            continue  # pydantic's internal step names, not fields
        else:
            parts.append(("." if parts else "") + ("class" if p == "class_" else str(p)))
    return "".join(parts) or "the file"


def explain(exc: ValidationError, limit: int = 3) -> str:
    """The first problems of a validation error, each naming its field."""
    problems = []
    for err in exc.errors()[:limit]:
        msg = err["msg"].removeprefix("Value error, ")
        value = err.get("input")
        shown = err["type"] != "missing" and not isinstance(value, dict)
        got = f" (got {reprlib.repr(value)})" if shown else ""
        problems.append(f"{_where(tuple(err['loc']))}: {msg}{got}")
    more = len(exc.errors()) - limit
    return "; ".join(problems) + (f"; and {more} more problem(s)" if more > 0 else "")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the number {name} is not allowed")


def find_surrogate(value: Any, where: str = "") -> str | None:
    """The path of the first text holding an unpaired surrogate (cannot be written as UTF-8)."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return path or "a text"
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append((key, f"{path} (a key)"))
                stack.append((sub, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, f"{path}[{i}]") for i, sub in enumerate(item))
    return None


def load_json(raw: str, source: object, unchanged: str) -> Any:
    """``json.loads`` for a session file (``save_session``'s or ``JSONSession``'s).

    Raises:
        SessionError: ``raw`` is not JSON, or JSON that Python cannot read safely (nesting
            deeper than the recursion limit, an integer over 4,300 digits) or that nb_hitl never
            writes (``NaN``, ``Infinity``); the message names it and ends with ``unchanged``.
    """
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise SessionError(
            f"The session file {source} is corrupted: not valid JSON ({exc.msg}: line "
            f"{exc.lineno}, column {exc.colno}). {unchanged}"
        ) from None
    except RecursionError:
        raise SessionError(
            f"The session file {source} is corrupted: its JSON is nested too deeply to read. "
            f"{unchanged}"
        ) from None
    except ValueError as exc:  # an integer over 4,300 digits, NaN, Infinity
        what = str(exc) if "not allowed" in str(exc) else "it holds an integer of over 4,300 digits"
        raise SessionError(f"The session file {source} is corrupted: {what}. {unchanged}") from None


def parse_session_text(raw: str, source: object) -> tuple[dict[str, Any], SessionDocument]:
    """Check the text of a session file whole; return the raw JSON and its typed form.

    Raises:
        SessionError: not JSON, unsafe JSON, not a session file, a newer schema, or any field
            of the wrong type or value (the message names the field).
    """
    unchanged = "The agent is unchanged."
    doc = load_json(raw, source, unchanged)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SessionError(f"{source} is not an nb_hitl session file. {unchanged}")
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        from nb_hitl._version import __version__

        raise SessionError(
            f"The session file {source} was written by a newer nb_hitl, "
            f"{doc.get('nb_hitl_version', '?')} (session schema {version}); this nb_hitl "
            f"({__version__}) reads schema {SCHEMA_VERSION} at most. Upgrade nb_hitl "
            f"(pip install -U nb-hitl) to load it. {unchanged}"
        )
    surrogate = find_surrogate(doc) if "\\ud" in raw.lower() else None
    if surrogate is not None:
        raise SessionError(
            f"The session file {source} is corrupted: {surrogate} holds an unpaired "
            f"surrogate character (\\ud800-\\udfff), which is not text. {unchanged}"
        )
    try:
        typed = SessionDocument.model_validate(doc)
    except ValidationError as exc:
        raise SessionError(
            f"The session file {source} is corrupted or was edited by hand: {explain(exc)}. "
            f"{unchanged}"
        ) from None
    except RecursionError:
        raise SessionError(
            f"The session file {source} is corrupted: it is nested too deeply to check. {unchanged}"
        ) from None
    return doc, typed
