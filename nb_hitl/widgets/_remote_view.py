"""The panel over a remote agent: what it cannot do greyed out with the reason, and its state.

An agent that runs elsewhere (``nb_hitl.remote.RemoteAgent``) says which panel features it
lacks in ``agent.unsupported`` (feature -> reason). ``apply_limits(panel)`` disables each
such control with the reason as its tooltip and puts one note under the chat listing them,
so nothing is silently ignored (redrawn when the server has said what it can do:
``RemoteConnected``); ``RemoteStateView`` shows in the inspector what the client
can know besides the messages: the server, the thread, its capabilities and its state.
Everything from the server is escaped text. The widgets only read the agent duck-typed, so
this module does not import ``nb_hitl.remote``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from nb_hitl._render import esc
from nb_hitl.events import Event, MessageAdded, RemoteConnected, ReplyFinished

from ._live import html
from ._loop import LoopBridge

STATE_CHARS = 4000
"""The longest state text drawn (the rest is cut, said so)."""


def is_remote(agent: Any) -> bool:
    """Whether ``agent`` runs elsewhere (it lists what the panel cannot do with it)."""
    return isinstance(getattr(agent, "unsupported", None), dict) and hasattr(agent, "thread_id")


COMPRESSION_CONTROLS = ("compress", "undo", "reset", "explore", "threshold", "keep")
"""The inspector's compression controls (compression runs on the server)."""
MEMORY_CONTROLS = ("pin", "unpin")
"""The inspector's controls that edit memory."""


def _disable(control: Any, reason: str) -> None:
    if control is not None:
        control.disabled = True
        control.tooltip = reason


def apply_limits(panel: Any, show: Callable[[str], Any]) -> LimitsNote | None:
    """Grey out, with the reason as tooltip, what ``panel.agent`` cannot do; ``show(html)``
    draws the note (a part of the panel's front end)."""
    if not is_remote(panel.agent):
        return None
    return LimitsNote(panel, show)


class LimitsNote:
    """The controls a remote agent has no use for, greyed out, and the note listing why.

    Drawn at once from ``agent.unsupported``, and again when the server has answered
    (``RemoteConnected``): what it turns out to have (steering, Continue) leaves the note.
    """

    def __init__(self, panel: Any, show: Callable[[str], Any]) -> None:
        self.panel = panel
        self.show = show
        self.html = ""
        """The note (HTML, every reason escaped)."""
        self.redraw()
        bridge: LoopBridge = getattr(panel.chat, "_bridge", None) or LoopBridge()
        self._sub = panel.agent.subscribe(bridge.callback(self._on_event))

    def _on_event(self, ev: Event) -> None:
        if isinstance(ev, RemoteConnected):
            self.redraw()

    def redraw(self) -> None:
        """Grey out and list what the agent cannot do now."""
        panel = self.panel
        limits: dict[str, str] = panel.agent.unsupported
        chat = panel.chat
        if "edit_memory" in limits:
            _disable(chat.tools.clear_button, limits["edit_memory"])
        if "stop_after_step" in limits:
            chat.step_stop.button.tooltip = limits["stop_after_step"]
        inspector = panel.inspector
        if inspector is not None:
            off: dict[str, str] = {}
            for feature, controls in (
                ("compression", COMPRESSION_CONTROLS),
                ("edit_memory", MEMORY_CONTROLS),
            ):
                if feature in limits:
                    off.update(dict.fromkeys(controls, limits[feature]))
            inspector.set_limits(off)
        items = "".join(f"<li>{esc(text)}</li>" for text in limits.values())
        self.html = (
            '<details class="nb-hitl-note nb-hitl-remote-limits"><summary>'
            f"Remote agent: some controls are off ({len(limits)})</summary><ul>{items}</ul>"
            "</details>"
        )
        self.show(self.html)

    def close(self) -> None:
        """Stop listening to the agent."""
        self._sub.close()


class RemoteStateView(w.VBox):
    """The server, thread, capabilities and state of a remote agent (in the inspector)."""

    def __init__(self, agent: Any, bridge: LoopBridge | None = None) -> None:
        self.agent = agent
        self.view = html()
        self.view.add_class("nb-hitl-remote-state")
        super().__init__(children=[self.view])
        self._bridge = bridge or LoopBridge()
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))
        self.refresh()

    def _on_event(self, ev: Event) -> None:
        if isinstance(ev, (ReplyFinished, MessageAdded, RemoteConnected)):
            self.refresh()

    def refresh(self) -> None:
        """Redraw from the agent."""
        agent = self.agent
        caps = getattr(agent, "capabilities", {}) or {}
        have = ", ".join(sorted(k for k, v in caps.items() if v)) or "runs and interrupts only"
        try:
            state = json.dumps(agent.remote_state, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            state = repr(agent.remote_state)
        if len(state) > STATE_CHARS:
            state = state[:STATE_CHARS] + f"\n… ({len(state) - STATE_CHARS:,} more characters)"
        self.view.value = (
            "<details open><summary><b>Remote agent</b></summary>"
            f"<div>server: <code>{esc(str(agent.url))}</code></div>"
            f"<div>thread: <code>{esc(str(agent.thread_id))}</code></div>"
            f"<div>server can: {esc(have)}</div>"
            f"<div>state:</div><pre>{esc(state)}</pre></details>"
        )

    def close(self) -> None:
        """Stop listening to the agent."""
        self._sub.close()
        super().close()


__all__ = ["LimitsNote", "RemoteStateView", "apply_limits", "is_remote"]
