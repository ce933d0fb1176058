"""SessionBar: Save and Load buttons for an agent's session file, with optional autosave.

Autosave writes the session after every finished or interrupted reply, and whenever the reply
parks on a tool call waiting for approval, so a kernel restart at any of those points loses
nothing. Loading a session whose reply was parked resumes it at once: the reply parks again
and the approval cards come back. Errors (a corrupted file, a busy agent) show in the bar.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl.events import ApprovalRequested, Event, ReplyFinished
from nb_hitl.exceptions import NbHitlError

from ._loop import LoopBridge
from ._render import esc

if TYPE_CHECKING:
    from nb_hitl.agent._approval import ToolApprovalMixin
    from nb_hitl.session import SessionInfo

DEFAULT_SESSION_PATH = "nb_hitl_session.json"


class SessionBar(w.HBox):
    """Save / Load buttons, the session file's path, and an autosave switch.

    Args:
        agent: the agent whose session is saved and loaded.
        path: the session file.
        autosave: save after every finished or interrupted reply, and when a reply parks.
        on_loaded: called with the ``SessionInfo`` after a successful load (e.g. to redraw a
            chat from the loaded memory), before a parked reply is resumed.
        resume_on_load: resume a reply that was parked when the session was saved.
        bridge: the loop bridge for clicks and events.
    """

    def __init__(
        self,
        agent: ToolApprovalMixin,
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
        self.path_input = w.Text(value=str(path), description="Session", layout={"flex": "1"})
        self.save_button = w.Button(description="Save", icon="save")
        self.load_button = w.Button(description="Load", icon="folder-open")
        self.autosave_box = w.Checkbox(value=autosave, description="Autosave", indent=False)
        self.note = w.HTML()
        self.saves = 0
        """Successful saves (buttons and autosave)."""
        super().__init__(
            [self.path_input, self.save_button, self.load_button, self.autosave_box, self.note],
            layout={"width": "100%", "align_items": "center"},
        )
        self.add_class("nb-hitl-session-bar")
        self.save_button.on_click(self._bridge.callback(lambda _b: self.save()))
        self.load_button.on_click(self._bridge.callback(lambda _b: self.load()))
        self._autosave_task: asyncio.Task[Any] | None = None
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))

    @property
    def path(self) -> Path:
        """The session file the bar saves to and loads from."""
        return Path(self.path_input.value.strip() or DEFAULT_SESSION_PATH)

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

    def load(self) -> SessionInfo | None:
        """Load now; a reply parked in the file resumes (its approval cards come back)."""
        try:
            info = self.agent.load_session(self.path)
        except NbHitlError as exc:
            self._say(str(exc), error=True)
            return None
        waiting = (
            f"; {info.pending_approvals} tool call(s) wait for you" if info.parked_calls else ""
        )
        self._say(f"Loaded {info.path} (saved {info.saved_at}){waiting}.")
        if self.on_loaded is not None:
            self.on_loaded(info)
        if info.parked_calls and self.resume_on_load:
            self._bridge.spawn(self.agent.resume_pending(), name="nb_hitl-resume")
        return info

    # -- autosave ------------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
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
        super().close()


__all__ = ["DEFAULT_SESSION_PATH", "SessionBar"]
