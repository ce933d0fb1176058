"""SessionBar: Save and Load buttons for an agent's session file, with optional autosave.

Autosave writes the session after every finished or interrupted reply, and whenever the reply
parks on a tool call waiting for approval, so a kernel restart at any of those points loses
nothing. Loading a session whose reply was parked resumes it at once: the reply parks again
and the approval cards come back. Errors (a corrupted file, a busy agent) show in the bar.

Each agent has its own default file (``nb_hitl_session_<name>.json``). Loading over a
conversation that is not empty asks first (Replace / Cancel), can be undone once (until the
agent replies again), and says when the file was saved by an agent of another name.
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

import ipywidgets as w

from nb_hitl._render import esc
from nb_hitl.events import ApprovalRequested, Event, ReplyFinished, ReplyStarted
from nb_hitl.exceptions import NbHitlError

from ._look import look, set_display
from ._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods
    from nb_hitl.session import SessionInfo

DEFAULT_SESSION_PATH = "nb_hitl_session_{agent}.json"
"""The default session file; ``{agent}`` becomes the agent's name, so agents never share one."""
_BUTTON = {"width": "auto"}
"""Buttons as wide as their label (never cut off, never wider than the bar)."""


def session_path_for(path: str | Path, agent_name: str) -> str:
    """``path`` with ``{agent}`` replaced by ``agent_name`` made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", agent_name).strip("._") or "agent"
    return str(path).replace("{agent}", safe)


class SessionBar(w.HBox):
    """Save / Load buttons, the session file's path, and an autosave switch.

    Args:
        agent: the agent whose session is saved and loaded.
        path: the session file; ``{agent}`` in it becomes the agent's name.
        autosave: save after every finished or interrupted reply, and when a reply parks.
        on_loaded: called with the ``SessionInfo`` after a successful load (e.g. to redraw a
            chat from the loaded memory), before a parked reply is resumed.
        resume_on_load: resume a reply that was parked when the session was saved.
        bridge: the loop bridge for clicks and events.
    """

    def __init__(
        self,
        agent: ApprovalMethods,
        path: str | Path = DEFAULT_SESSION_PATH,
        *,
        autosave: bool = False,
        on_loaded: Callable[[SessionInfo], Any] | None = None,
        resume_on_load: bool = True,
        bridge: LoopBridge | None = None,
    ) -> None:
        self.agent = agent
        self.on_loaded = on_loaded
        self.resume_on_load = resume_on_load
        self._bridge = bridge or LoopBridge()
        self.path_input = w.Text(
            value=session_path_for(path, agent.name),
            description="Session",
            **look(w.Text, layout={"flex": "1 1 320px", "min_width": "min(240px, 100%)"}),
        )
        self.save_button = w.Button(
            description="Save", icon="save", **look(w.Button, layout=_BUTTON)
        )
        self.load_button = w.Button(
            description="Load", icon="folder-open", **look(w.Button, layout=_BUTTON)
        )
        self.undo_button = w.Button(
            description="Undo load", icon="undo", disabled=True, **look(w.Button, layout=_BUTTON)
        )
        self.undo_button.tooltip = "Bring back the conversation from before the last Load"
        self.autosave_box = w.Checkbox(
            value=autosave,
            description="Autosave",
            indent=False,
            **look(w.Checkbox, layout={"width": "auto"}),
        )
        self.note = w.HTML(**look(w.HTML))
        self.replace_button = w.Button(
            description="Replace",
            button_style="warning",
            **look(w.Button, layout={**_BUTTON, "display": "none"}),  # shown to confirm a Load
        )
        self.cancel_button = w.Button(
            description="Cancel",
            **look(w.Button, layout={**_BUTTON, "display": "none"}),
        )
        self.saves = 0
        """Successful saves (buttons and autosave)."""
        super().__init__(
            [
                self.path_input,
                self.save_button,
                self.load_button,
                self.undo_button,
                self.autosave_box,
                self.note,
                self.replace_button,
                self.cancel_button,
            ],
            layout={"width": "100%", "align_items": "center", "flex_flow": "row wrap"},
        )
        self.add_class("nb-hitl-session-bar")
        self._undo_file: Path | None = None
        self.save_button.on_click(self._bridge.callback(lambda _b: self.save()))
        self.load_button.on_click(self._bridge.callback(lambda _b: self.load()))
        self.undo_button.on_click(self._bridge.callback(lambda _b: self.undo()))
        self.replace_button.on_click(self._bridge.callback(lambda _b: self.load(confirm=True)))
        self.cancel_button.on_click(self._bridge.callback(lambda _b: self._cancel()))
        self._autosave_task: asyncio.Task[Any] | None = None
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))

    @property
    def path(self) -> Path:
        """The session file the bar saves to and loads from."""
        value = self.path_input.value.strip() or DEFAULT_SESSION_PATH
        return Path(session_path_for(value, self.agent.name))

    def _say(self, text: str, error: bool = False) -> None:
        css = "nb-hitl-approval-error" if error else "nb-hitl-status"
        self.note.value = f'<span class="{css}">{esc(text)}</span>'

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
        self.undo_button.disabled = undo_file is None

    def _show_confirm(self, show: bool) -> None:
        display = "" if show else "none"
        set_display(self.replace_button, display)
        set_display(self.cancel_button, display)
        self.load_button.disabled = show

    def _cancel(self) -> None:
        self._show_confirm(False)
        self._say("Load cancelled: the conversation is unchanged.")

    # -- autosave ------------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if isinstance(event, ReplyStarted):  # the conversation moved on: undo would lose it
            self._set_undo(None)
        if not self.autosave_box.value:
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
