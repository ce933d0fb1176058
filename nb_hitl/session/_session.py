"""Sessions: save an agent's conversation to a JSON file and load it after a kernel restart.

    agent.save_session("chat.json")          # or save_session(agent, "chat.json")
    # ... kernel restarts: build the agent again (model, tools), then
    agent.load_session("chat.json")
    await agent.resume_pending()             # if tool calls were waiting for approval

A session file holds memory (messages, marks, summary), the agent's plain settings, the
compression settings, the parked tool calls with the decisions made so far, the tool
allow-list, the steering messages queued and not yet taken in (``agent.steer``), and the
transcript extras a widget shows (approval decisions). It never holds a model client, an API
key or a token counter: those belong to the code that builds the agent.

Writes are atomic: the JSON goes to a temporary file in the same folder, is flushed and
fsynced, then renamed over the target, so a crash mid-save leaves the previous file intact.
Loading validates the whole file first; a missing, corrupted or newer-schema file raises
``SessionError`` and leaves the live agent exactly as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nb_hitl.exceptions import ConfigError, SessionError

from ._compression import (
    KEEP,
    NOT_APPLIED,
    SettingsUpdate,
    compression_settings,
    compression_update,
)
from ._schema import (
    FORMAT,
    SCHEMA_VERSION,
    SessionDocument,
    find_surrogate,
    parse_session_text,
)

_PLACEHOLDERS = frozenset({"no-key-needed", "sk-no-key-required"})
_SETTINGS = ("sys_prompt", "max_iters", "parallel_tool_calls", "interrupt_text")


@dataclass
class SessionInfo:
    """What ``load_session`` restored."""

    path: Path
    """The file that was read."""
    saved_at: str
    """When it was written (ISO 8601, UTC)."""
    agent_name: str
    """The name of the agent that saved it."""
    pending_approvals: int
    """Tool calls that wait for a decision; continue with ``await agent.resume_pending()``."""
    parked_calls: int
    """Open tool calls of the parked turn (waiting or already decided)."""
    transcript: dict[str, Any] = field(default_factory=dict)
    """Widget extras saved with the session (e.g. approval decisions to redraw)."""
    compression: dict[str, Any] | None = None
    """The compression settings found in the file."""
    compression_applied: bool = False
    """False when the file had compression settings but the agent has no compression config."""
    pending_steering: int = 0
    """Steering messages that were queued when saving and are queued again (``agent.steer``);
    the next reply, or the resumed parked one at its next step, takes them in."""


# -- secrets --------------------------------------------------------------------------------
def _secret_values(agent: Any) -> dict[str, str]:
    """Values that must never reach a file: keys and tokens on the model and its client."""
    from nb_hitl._secret_names import is_secret_name

    found: dict[str, str] = {}
    model = getattr(agent, "model", None)
    try:
        attrs = dict(vars(model)) if model is not None else {}
    except TypeError:
        attrs = {}
    for name, value in attrs.items():
        label = f"model.{name.lstrip('_')}"
        if hasattr(value, "get_secret_value"):  # pydantic SecretStr
            value = value.get_secret_value()
        if isinstance(value, str):
            if len(value) >= 8 and is_secret_name(name):
                found[label] = value
        elif isinstance(key := getattr(value, "api_key", None), str) and len(key) >= 8:
            found[f"{label}.api_key"] = key  # an SDK client
    own = getattr(model, "_secret_values", None)  # e.g. credentials taken out of base_url
    if callable(own):
        for i, value in enumerate(own()):
            if isinstance(value, str) and len(value) >= 8:
                found.setdefault(f"model credential #{i + 1}", value)
    for label in [k for k, v in found.items() if v in _PLACEHOLDERS]:
        del found[label]
    for name, value in os.environ.items():
        upper = name.upper()
        if upper.endswith(("_API_KEY", "_TOKEN", "_SECRET")) and len(value) >= 8:
            found[f"environment variable {name}"] = value
    return found


def _check_no_secret(agent: Any, text: str) -> None:
    """Refuse ``text`` if it holds a secret or a fragment of one (its first 8+ characters)."""
    from nb_hitl._secret_names import find_secret

    for where, value in _secret_values(agent).items():
        if find_secret(text, value):
            raise SessionError(
                f"Refusing to save: the session would contain the value of {where} (or the "
                "start of it), which looks like a secret. Remove it from the conversation (or "
                "the settings) and save again; the previous session file is untouched."
            )


# -- writing --------------------------------------------------------------------------------
def session_document(agent: Any, *, transcript: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-able content ``save_session`` writes."""
    from nb_hitl._version import __version__

    if agent.is_replying and not getattr(agent, "is_waiting_for_approval", False):
        raise SessionError(
            f"Agent {agent.name!r} is in the middle of a reply. Save when the reply has "
            "finished, was interrupted, or is waiting for your approval."
        )
    extras = dict(transcript or {})
    log = getattr(agent, "approval_log", None)
    if log is not None:
        extras.setdefault("approvals", list(log))
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "nb_hitl_version": __version__,
        "saved_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "agent": {"class": type(agent).__name__, "name": agent.name, "state": agent.state_dict()},
        "compression": compression_settings(getattr(agent, "compression_config", None)),
        "transcript": extras,
    }


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform lets a folder be opened
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: temporary file, flush, fsync, rename."""
    folder = path.parent
    if not folder.is_dir():
        raise SessionError(f"Cannot save the session: the folder {folder} does not exist.")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    _remove_stale_temporaries(path)


STALE_AFTER = 600.0
"""Seconds after which a leftover temporary file of a crashed save is removed."""


def _remove_stale_temporaries(path: Path) -> None:
    # A save killed between write and rename leaves its temporary file; the next save clears
    # those old enough that no other save can still be writing them.
    cutoff = time.time() - STALE_AFTER
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()


def save_session(
    agent: Any, path: str | os.PathLike[str], *, transcript: dict[str, Any] | None = None
) -> Path:
    """Save ``agent``'s session to ``path`` (JSON) atomically; returns the path.

    Args:
        agent: the agent (idle, or parked waiting for approval).
        path: the file to write; its folder must exist.
        transcript: JSON-able extras a widget wants back after loading.

    Raises:
        SessionError: the agent is mid-reply, the state is not JSON-able, it would contain
            a secret, or the file cannot be written. The previous file is then untouched.
    """
    target = _checked_path(path, "save")
    doc = session_document(agent, transcript=transcript)
    try:
        text = json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise SessionError(
            f"Cannot save the session: its state is not JSON-able ({exc})."
        ) from None
    try:
        text.encode("utf-8")
        broken = None
    except UnicodeEncodeError:
        broken = find_surrogate(doc) or "a text"
    if broken is not None:
        raise SessionError(
            f"Cannot save the session: {broken} holds an unpaired surrogate character "
            "(\\ud800-\\udfff, e.g. from a tool that decoded bytes with "
            "errors='surrogateescape'), which cannot be written as UTF-8. Replace that text "
            "(or have the tool return valid text) and save again; the previous session file "
            "is untouched."
        )
    _check_no_secret(agent, text)
    try:
        atomic_write_text(target, text + "\n")
    except (OSError, ValueError) as exc:
        raise SessionError(f"Cannot write the session to {target}: {exc}.") from None
    return target


# -- reading --------------------------------------------------------------------------------
def _checked_path(path: str | os.PathLike[str], doing: str) -> Path:
    """``path`` as a ``Path``, or ``SessionError`` for what no file system accepts."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise SessionError(
            f"Cannot {doing} the session: the path must be text or a Path, not "
            f"{type(path).__name__}."
        ) from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\x00" in text:
        raise SessionError(
            f"Cannot {doing} the session: the path {text!r} contains a NUL character "
            "(\\x00). Type the file name again without it."
        )
    if not text.strip():
        raise SessionError(f"Cannot {doing} the session: the path is empty. Give a file name.")
    return Path(text)


def _read_text(source: Path) -> str:
    try:
        return source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SessionError(
            f"No session file at {source}. Check the path (save one with agent.save_session)."
        ) from None
    except IsADirectoryError:
        raise SessionError(f"{source} is a folder, not a session file. Give a file name.") from None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise SessionError(f"Cannot read the session file {source}: {exc}.") from None


def read_session(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a session file and check it whole, without touching any agent.

    Raises:
        SessionError: the file is missing, unreadable, corrupted, from a newer schema, or
            has a field of the wrong type or value (the message names the field).
    """
    return _read_checked(path)[0]


def _read_checked(path: str | os.PathLike[str]) -> tuple[dict[str, Any], SessionDocument]:
    source = _checked_path(path, "load")
    return parse_session_text(_read_text(source), source)


def _snapshot(agent: Any) -> dict[str, Any]:
    snap: dict[str, Any] = {k: getattr(agent, k) for k in _SETTINGS if hasattr(agent, k)}
    snap["compression_config"] = getattr(agent, "compression_config", None)
    if getattr(agent, "memory", None) is not None:
        snap["memory"] = agent.memory.snapshot()
    gate: Any = getattr(agent, "approvals", None)
    if hasattr(gate, "snapshot"):  # an agent's ApprovalGate: state, policy and log
        snap["approvals"] = gate.snapshot()
    for attr in ("approval_log", "steering", "branch_table"):
        if attr == "approval_log" and "approvals" in snap:
            continue  # the gate's snapshot holds it
        if hasattr(agent, attr):
            value = getattr(agent, attr)
            # an agent's steering inbox and branches are copied too: a failed load puts the
            # old ones back
            copies = isinstance(value, (set, list)) or attr in ("steering", "branch_table")
            snap[attr] = value.copy() if copies else value
    return snap


def _restore(agent: Any, snap: dict[str, Any]) -> None:
    memory = snap.pop("memory", None)
    if memory is not None:
        agent.memory.restore(*memory)
    approvals = snap.pop("approvals", None)
    if approvals is not None:
        agent.approvals.restore(approvals)
    for name, value in snap.items():
        setattr(agent, name, value)


def load_session(agent: Any, path: str | os.PathLike[str]) -> SessionInfo:
    """Load a session file into ``agent`` (all or nothing).

    The whole file is checked against one schema (``nb_hitl.session._schema``) and the new
    compression settings are built before the agent is touched; whatever still fails while
    loading (a parked call of a tool this agent lacks) rolls everything back.

    Raises:
        SessionError: the agent is replying, or the file is missing, corrupted, from a newer
            schema, has a field of the wrong type (named in the message), or does not fit
            this agent. The agent is then unchanged.
    """
    if agent.is_replying:
        raise SessionError(
            f"Agent {agent.name!r} is replying; interrupt it or wait before loading a session."
        )
    doc, typed = _read_checked(path)
    state = doc["agent"]["state"]
    try:
        new_compression = compression_update(agent, doc.get("compression"))
    except (ConfigError, ValueError, TypeError) as exc:
        raise SessionError(
            f"The session file {path} has compression settings this agent cannot use: {exc}. "
            "The agent is unchanged."
        ) from None
    approvals = [entry.model_dump(by_alias=True) for entry in typed.transcript.approvals]
    snap = _snapshot(agent)
    try:
        # The conversation comes in; the live agent keeps its own name (JSONSession, like
        # AgentScope, restores the saved name with the rest of the state).
        agent.load_state_dict({k: v for k, v in state.items() if k != "name"})
        if isinstance(new_compression, SettingsUpdate):
            for k, v in new_compression.update.items():
                setattr(new_compression.config, k, v)
        elif new_compression is not KEEP and new_compression is not NOT_APPLIED:
            agent.compression_config = new_compression
        if hasattr(agent, "approval_log"):
            agent.approval_log = approvals
    except Exception as exc:
        _restore(agent, snap)
        raise SessionError(
            f"The session file {path} does not fit this agent or is corrupted: {exc}. "
            "The agent is unchanged."
        ) from None
    raw_transcript = doc.get("transcript")
    transcript: dict[str, Any] = dict(raw_transcript) if isinstance(raw_transcript, dict) else {}
    transcript["approvals"] = approvals
    parked = typed.agent.state.approvals.parked if typed.agent.state.approvals else []
    return SessionInfo(
        path=_checked_path(path, "load"),
        saved_at=typed.saved_at,
        agent_name=typed.agent.name,
        pending_approvals=len(getattr(agent, "pending_approvals", [])),
        parked_calls=len(parked),
        transcript=transcript,
        compression=doc.get("compression"),
        compression_applied=new_compression is not NOT_APPLIED,
        pending_steering=len(getattr(agent, "pending_steering", [])),
    )


__all__ = [
    "SCHEMA_VERSION",
    "SessionInfo",
    "atomic_write_text",
    "compression_settings",
    "load_session",
    "read_session",
    "save_session",
    "session_document",
]
