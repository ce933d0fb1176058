"""SessionBar: Save and Load for an agent's session file, with optional autosave.

Autosave writes the session after every finished or interrupted reply, and whenever the reply
parks on a tool call waiting for approval, so a kernel restart at any of those points loses
nothing. Loading a session whose reply was parked resumes it at once: the reply parks again
and the approval cards come back. Errors (a corrupted file, a busy agent) show in the bar.

Each agent has its own default file (``nb_hitl_session_<name>.json``). Loading over a
conversation that is not empty asks first (Replace / Cancel), can be undone once (until the
agent replies again), and says when the file was saved by an agent of another name.

The bar is one ``PanelModel`` (``js/src/views/session.js`` draws it): inside an
``AgentPanel`` it is a part of the panel's front end (no comm of its own); shown on its own it
is one model. The page sends actions (``save``, ``load``, ``replace``, ``cancel``, ``undo``,
each with the path typed in the box; ``path``; ``autosave``); each runs on the kernel loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc
from nb_hitl.events import ApprovalRequested, Event, ReplyFinished, ReplyStarted
from nb_hitl.exceptions import NbHitlError

from ._loop import LoopBridge
from ._model import PanelModel, page_css, static_file

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods
    from nb_hitl.session import SessionInfo

DEFAULT_SESSION_PATH = "nb_hitl_session_{agent}.json"
"""The default session file; ``{agent}`` becomes the agent's name, so agents never share one."""
UNDO_TIP = "Bring back the conversation from before the last Load"
"""The Undo load button's tooltip."""


def session_path_for(path: str | Path, agent_name: str) -> str:
    """``path`` with ``{agent}`` replaced by ``agent_name`` made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", agent_name).strip("._") or "agent"
    return str(path).replace("{agent}", safe)


class SessionBar(PanelModel):
    """Save / Load buttons, the session file's path, and an autosave switch.

    Args:
        agent: the agent whose session is saved and loaded.
        path: the session file; ``{agent}`` in it becomes the agent's name.
        autosave: save after every finished or interrupted reply, and when a reply parks.
        on_loaded: called with the ``SessionInfo`` after a successful load (e.g. to redraw a
            chat from the loaded memory), before a parked reply is resumed.
        resume_on_load: resume a reply that was parked when the session was saved.
        bridge: the loop bridge for clicks and events.
        css: include the stylesheet (a host that draws the bar includes it once).
    """

    _esm = static_file("session.js")
    _css = static_file("session.css")

    def __init__(
        self,
        agent: ApprovalMethods,
        path: str | Path = DEFAULT_SESSION_PATH,
        *,
        autosave: bool = False,
        on_loaded: Callable[[SessionInfo], Any] | None = None,
        resume_on_load: bool = True,
        bridge: LoopBridge | None = None,
        css: bool = True,
    ) -> None:
        self.agent = agent
        self.on_loaded = on_loaded
        self.resume_on_load = resume_on_load
        self.saves = 0
        """Successful saves (buttons and autosave)."""
        self._undo_file: Path | None = None
        self._autosave_task: asyncio.Task[Any] | None = None
        super().__init__(
            {
                "css": page_css(css),
                "note": "",
                "controls": {
                    "path": session_path_for(path, agent.name),
                    "autosave": bool(autosave),
                    "undo": False,
                    "confirm": False,
                    "undo_tip": UNDO_TIP,
                },
            },
            bridge=bridge or LoopBridge(),
        )
        self._bridge = self.bridge
        self.add_class("nb-hitl-session-bar")
        for name, handler in (
            ("save", lambda path=None: self._with_path(path) and self.save()),
            ("load", lambda path=None: self._with_path(path) and self.load()),
            ("replace", lambda path=None: self._with_path(path) and self.load(confirm=True)),
            ("undo", lambda path=None: self.undo()),
            ("cancel", lambda path=None: self._cancel()),
            ("path", lambda value="": self._with_path(value)),
            ("autosave", lambda value=False: setattr(self, "autosave", bool(value))),
        ):
            self.on_action(name, handler)
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))

    @property
    def note(self) -> str:
        """What the bar says now (HTML the kernel escaped): the last outcome or question."""
        return str(self._state.get("note") or "")

    @property
    def autosave(self) -> bool:
        """Whether the session is saved after every reply (the Autosave box)."""
        return bool(self._controls.get("autosave"))

    @autosave.setter
    def autosave(self, value: bool) -> None:
        self._set_controls(autosave=bool(value))

    @property
    def can_undo(self) -> bool:
        """Whether Undo load would bring a replaced conversation back (its button is on)."""
        return bool(self._controls.get("undo"))

    @property
    def confirming(self) -> bool:
        """Whether the bar asks Replace / Cancel before a Load."""
        return bool(self._controls.get("confirm"))

    @property
    def _controls(self) -> dict[str, Any]:
        return dict(self._state.get("controls") or {})

    def _set_controls(self, **values: Any) -> None:
        self.set_view(controls={**self._controls, **values})

    def set_path(self, value: str | Path) -> None:
        """Set the session file (the path box); ``{agent}`` in it becomes the agent's name."""
        self._set_controls(path=str(value))

    def _with_path(self, value: Any) -> bool:
        if isinstance(value, str):
            self.set_path(value)
        return True

    @property
    def path(self) -> Path:
        """The session file the bar saves to and loads from."""
        value = str(self._controls.get("path") or "").strip() or DEFAULT_SESSION_PATH
        return Path(session_path_for(value, self.agent.name))

    def _say(self, text: str, error: bool = False) -> None:
        css = "nb-hitl-approval-error" if error else "nb-hitl-status"
        self.set_view(note=f'<span class="{css}">{esc(text)}</span>')

    def save(self) -> bool:
        """Save now; the outcome shows in the bar. Returns whether it worked."""
        try:
            target = self.agent.save_session(self.path)
        except NbHitlError as exc:
            self._say(str(exc), error=True)
            return False
        self.saves += 1
        self._say(f"Saved to {target}.")
        return True

    def load(self, *, confirm: bool = False) -> SessionInfo | None:
        """Load now; a reply parked in the file resumes (its approval cards come back).

        Over a conversation that is not empty this only asks (Replace / Cancel) unless
        ``confirm`` is true; the replaced conversation can be brought back once with ``undo``.
        """
        self._show_confirm(False)
        memory = getattr(self.agent, "memory", None)
        if not confirm and memory is not None and len(memory) > 0:
            from nb_hitl.session import read_session

            try:
                doc = read_session(self.path)
            except NbHitlError as exc:
                self._say(str(exc), error=True)
                return None
            saved_by = str(doc.get("agent", {}).get("name", ""))
            other = (
                f", saved by agent {saved_by!r}" if saved_by and saved_by != self.agent.name else ""
            )
            self._say(
                f"Loading {self.path}{other} replaces {self.agent.name}'s conversation "
                f"({len(memory)} messages). Replace it? (Undo load can bring it back once.)"
            )
            self._show_confirm(True)
            return None
        undo_file = self._snapshot_for_undo() if memory is not None and len(memory) else None
        try:
            info = self.agent.load_session(self.path)
        except NbHitlError as exc:
            _remove(undo_file)
            self._say(str(exc), error=True)
            return None
        self._set_undo(undo_file)
        self._after_load(info, f"Loaded {info.path} (saved {info.saved_at})")
        return info

    def undo(self) -> bool:
        """Bring back the conversation the last Load replaced (once); False if none."""
        undo_file = self._undo_file
        if undo_file is None:
            self._say("Nothing to undo: no Load replaced a conversation since the last reply.")
            return False
        try:
            info = self.agent.load_session(undo_file)
        except NbHitlError as exc:
            self._say(str(exc), error=True)
            return False
        self._set_undo(None)
        self._after_load(info, "Undone: the conversation from before the Load is back")
        return True

    def _after_load(self, info: SessionInfo, said: str) -> None:
        waiting = (
            f"; {info.pending_approvals} tool call(s) wait for you" if info.parked_calls else ""
        )
        if info.pending_steering:
            waiting += (
                f"; {info.pending_steering} steering message(s) queued, taken in by the next reply"
            )
        other = ""
        if info.agent_name and info.agent_name != self.agent.name and said.startswith("Loaded"):
            other = (
                f" It was saved by agent {info.agent_name!r}; it now continues as "
                f"{self.agent.name!r}."
            )
        self._say(f"{said}{waiting}.{other}")
        if self.on_loaded is not None:
            self.on_loaded(info)
        if info.parked_calls and self.resume_on_load:
            self._bridge.spawn(self.agent.resume_pending(), name="nb_hitl-resume")

    def _snapshot_for_undo(self) -> Path | None:
        """The current conversation saved to a temporary file (None if it cannot be saved)."""
        fd, name = tempfile.mkstemp(prefix="nb_hitl-undo-", suffix=".json")
        os.close(fd)
        try:
            return self.agent.save_session(name)
        except NbHitlError:
            _remove(Path(name))
            return None

    def _set_undo(self, undo_file: Path | None) -> None:
        if self._undo_file is not None and self._undo_file != undo_file:
            _remove(self._undo_file)
        self._undo_file = undo_file
        self._set_controls(undo=undo_file is not None)

    def _show_confirm(self, show: bool) -> None:
        self._set_controls(confirm=bool(show))  # Replace / Cancel shown, Load off while it asks

    def _cancel(self) -> None:
        self._show_confirm(False)
        self._say("Load cancelled: the conversation is unchanged.")

    # -- autosave ------------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if isinstance(event, ReplyStarted):  # the conversation moved on: undo would lose it
            self._set_undo(None)
        if not self.autosave:
            return
        if isinstance(event, (ReplyFinished, ApprovalRequested)):
            if self._autosave_task is None or self._autosave_task.done():
                self._autosave_task = self._bridge.spawn(self._autosave(), name="nb_hitl-autosave")

    async def _autosave(self) -> None:
        # ReplyFinished is emitted from inside the reply task: let it end before saving.
        for _ in range(200):
            if not self.agent.is_replying or self.agent.is_waiting_for_approval:
                break
            await asyncio.sleep(0.01)
        self.save()

    def close(self) -> None:
        """Stop autosaving and close the bar."""
        self._sub.close()
        self._set_undo(None)
        super().close()


def _remove(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


__all__ = ["DEFAULT_SESSION_PATH", "SessionBar", "session_path_for"]
