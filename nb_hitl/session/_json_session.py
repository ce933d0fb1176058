"""JSONSession: AgentScope 1.x's session API, one JSON file per session id.

    from nb_hitl.session import JSONSession

    session = JSONSession(save_dir="./sessions")
    await session.save_session_state("user_1", agent=agent, notes=notes)
    ...  # kernel restarts; build the same objects again, then
    await session.load_session_state("user_1", agent=agent, notes=notes)

The file maps each keyword's name to that object's ``state_dict()``, as AgentScope writes it.
Any object with ``state_dict()`` / ``load_state_dict()`` can be saved: nb_hitl agents and
memories, and ``StateModule`` subclasses. nb_hitl's own ``agent.save_session(path)`` (parked
approvals, transcript extras, schema versions) stays the richer choice for a single agent.

Differences kept on purpose (AgentScope 1.0.21 behaves otherwise):

- Nothing that looks like a secret is written: the same guard as ``save_session`` (API keys
  on an agent's model or client, ``*_API_KEY`` / ``*_TOKEN`` / ``*_SECRET`` environment
  values, secret-named attributes of the saved objects) refuses the save with ``SessionError``.
- Writes are atomic (temporary file, fsync, rename): a crash mid-save keeps the old file.
- Saving an agent in the middle of a reply is refused (its memory is half-written); an agent
  parked waiting for approval can be saved.
- Loading is all or nothing: if one object rejects its state, those already loaded are put
  back and ``SessionError`` says which one failed; a corrupted file is a ``SessionError``
  naming the file, never a bare ``JSONDecodeError``.
- A session id or user id with a path separator or ``..`` is refused (``ValueError``);
  AgentScope would write outside ``save_dir``.
"""

from __future__ import annotations

import abc
import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

from nb_hitl.exceptions import SessionError

logger = logging.getLogger("nb_hitl.session")


class SessionNotFoundError(SessionError, ValueError):
    """``load_session_state(..., allow_not_exist=False)`` found no saved session."""


class SessionBase(abc.ABC):
    """A place to save and load the state of several objects under one session id."""

    @abc.abstractmethod
    async def save_session_state(
        self, session_id: str, user_id: str = "", **state_modules_mapping: Any
    ) -> None:
        """Save ``state_dict()`` of every keyword argument under ``session_id``."""

    @abc.abstractmethod
    async def load_session_state(
        self,
        session_id: str,
        user_id: str = "",
        allow_not_exist: bool = True,
        **state_modules_mapping: Any,
    ) -> None:
        """Load the saved states back into the keyword arguments with the same names."""


def _check_id(label: str, value: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"The {label} must be a string, got {type(value).__name__}.")
    if "/" in value or "\\" in value or value in (".", "..") or "\x00" in value:
        raise ValueError(
            f"The {label} {value!r} would leave the session folder; use a plain name "
            "without '/', '\\' or '..'."
        )


def _objects_inside(module: Any) -> list[Any]:
    """``module`` and every module nested in it (for the secret guard)."""
    found, stack, seen = [], [module], set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        found.append(obj)
        nested = getattr(obj, "_nested_modules", None)
        if callable(nested):
            stack.extend(value for _, value in nested())
        memory = getattr(obj, "memory", None)
        if memory is not None:
            stack.append(memory)
    return found


def _refuse_secrets(modules: dict[str, Any], text: str) -> None:
    from nb_hitl._secret_names import find_secret, is_secret_name

    from ._session import _check_no_secret

    for module in modules.values():
        for obj in _objects_inside(module):
            _check_no_secret(obj, text)  # its model and that model's client, the environment
            try:
                attrs = vars(obj)
            except TypeError:
                continue
            for attr, value in attrs.items():
                if hasattr(value, "get_secret_value"):  # pydantic SecretStr
                    value = value.get_secret_value()
                if (
                    isinstance(value, str)
                    and len(value) >= 8
                    and is_secret_name(attr)
                    and find_secret(text, value)  # the value or its first 8+ characters
                ):
                    raise SessionError(
                        f"Refusing to save: the session would contain the value of "
                        f"{type(obj).__name__}.{attr.lstrip('_')}, which looks like a secret. "
                        "Do not register it as state (read it from the environment when "
                        "building the object); the previous session file is untouched."
                    )


def _busy(module: Any) -> bool:
    return bool(getattr(module, "is_replying", False)) and not getattr(
        module, "is_waiting_for_approval", False
    )


class JSONSession(SessionBase):
    """Sessions saved as ``{save_dir}/{session_id}.json`` (``{user_id}_{session_id}.json``).

    Args:
        save_dir: the folder for the files; created when the first session is saved.
    """

    def __init__(self, save_dir: str | os.PathLike[str] = "./") -> None:
        self.save_dir = save_dir

    def _get_save_path(self, session_id: str, user_id: str) -> str:
        _check_id("session id", session_id)
        _check_id("user id", user_id)
        if not session_id:
            raise ValueError("The session id is empty; give each session a name.")
        os.makedirs(self.save_dir, exist_ok=True)
        name = f"{user_id}_{session_id}.json" if user_id else f"{session_id}.json"
        return os.path.join(self.save_dir, name)

    async def save_session_state(
        self, session_id: str, user_id: str = "", **state_modules_mapping: Any
    ) -> None:
        """Save each keyword argument's ``state_dict()`` under its name, atomically.

        Raises:
            SessionError: an agent is mid-reply, a state is not JSON-able, the file would
                contain a secret, or it cannot be written. The previous file is untouched.
        """
        from ._session import atomic_write_text

        path = Path(self._get_save_path(session_id, user_id))
        text = encode_states(session_id, state_modules_mapping)
        try:  # off the event loop: fsync can take a while and widgets keep drawing
            await asyncio.to_thread(atomic_write_text, path, text)
        except OSError as exc:
            raise SessionError(f"Cannot write the session to {path}: {exc}.") from None
        logger.info("Saved session state to %s.", path)

    async def load_session_state(
        self,
        session_id: str,
        user_id: str = "",
        allow_not_exist: bool = True,
        **state_modules_mapping: Any,
    ) -> None:
        """Load the saved states into the keyword arguments with the same names.

        Names the file does not hold are left as they are. With ``allow_not_exist`` (the
        default) a session never saved loads nothing; otherwise it raises.

        Raises:
            SessionNotFoundError: no such session and ``allow_not_exist=False`` (also a
                ``ValueError``, as in AgentScope).
            SessionError: the file is unreadable or corrupted, an agent is replying, or an
                object rejects its state. Every object is then unchanged.
        """
        path = Path(self._get_save_path(session_id, user_id))
        states = await asyncio.to_thread(_read, path)
        if states is None:
            if allow_not_exist:
                logger.info("Session file %s does not exist; nothing loaded.", path)
                return
            raise SessionNotFoundError(
                f"No saved session {session_id!r}: {path} does not exist. Save it first with "
                "save_session_state, or pass allow_not_exist=True."
            )
        apply_states(states, state_modules_mapping, str(path))
        logger.info("Loaded session state from %s.", path)


def encode_states(session_id: str, modules: dict[str, Any]) -> str:
    """The JSON text of the modules' states, as JSONSession and RedisSession store it.

    Raises:
        SessionError: an agent is mid-reply, a state is not JSON-able, or the text would
            contain a secret.
    """
    for name, module in modules.items():
        if _busy(module):
            raise SessionError(
                f"{name!r} is in the middle of a reply. Save when the reply has finished, "
                "was interrupted, or is waiting for your approval."
            )
    states = {name: module.state_dict() for name, module in modules.items()}
    try:
        text = json.dumps(states, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SessionError(
            f"Cannot save session {session_id!r}: a state is not JSON-able ({exc}). Give "
            "register_state a custom_to_json for that attribute."
        ) from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in some text: escape it instead
        text = json.dumps(states, ensure_ascii=True, allow_nan=False)
    _refuse_secrets(modules, text)
    return text


def apply_states(states: dict[str, Any], modules: dict[str, Any], where: str) -> None:
    """Load ``states`` into the modules of the same names, all or nothing.

    Raises:
        SessionError: an agent is replying, or an object rejects its state (every object
            is then unchanged).
    """
    for name, module in modules.items():
        if name in states and getattr(module, "is_replying", False):
            raise SessionError(
                f"{name!r} is replying; interrupt it or wait before loading a session. "
                "Nothing was loaded."
            )
    done: list[tuple[str, Any, dict[str, Any]]] = []
    for name, module in modules.items():
        if name not in states:
            continue
        before = module.state_dict()
        try:
            module.load_state_dict(states[name])
        except Exception as exc:
            for _, earlier, state in reversed([*done, (name, module, before)]):
                earlier.load_state_dict(state, strict=False)
            raise SessionError(
                f"Cannot load {name!r} from {where}: {type(exc).__name__}: {exc}. "
                "Nothing was changed."
            ) from exc
        done.append((name, module, before))


def _read(path: Path) -> dict[str, Any] | None:
    """The saved states, or ``None`` when there is no file."""
    from ._schema import FORMAT, load_json

    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SessionError(f"Cannot read the session file {path}: {exc}.") from None
    states = load_json(text, path, "Nothing was loaded.")
    if isinstance(states, dict) and states.get("format") == FORMAT:
        raise SessionError(
            f"{path} was written by agent.save_session(); load it with "
            "agent.load_session(path) instead of JSONSession."
        )
    if not isinstance(states, dict):
        raise SessionError(
            f"The session file {path} is corrupted: it holds a {type(states).__name__}, not "
            "the mapping of names to states JSONSession writes. Nothing was loaded."
        )
    return states


__all__ = ["JSONSession", "SessionBase", "SessionNotFoundError"]
