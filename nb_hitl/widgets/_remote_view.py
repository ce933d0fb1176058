"""The panel over a remote agent: what it cannot do greyed out with the reason, and its state.

An agent that runs elsewhere (``nb_hitl.remote.RemoteAgent``) says which panel features it
lacks in ``agent.unsupported`` (feature -> reason). ``apply_limits(panel)`` disables each
such control with the reason as its tooltip (``ChatWidget.set_limits``,
``MemoryInspector.set_limits``) and puts one note under the chat listing them,
so nothing is silently ignored (redrawn when the server has said what it can do:
``RemoteConnected``); ``RemoteStateView`` shows in the inspector what the client
can know besides the messages: the server, the thread, its capabilities and its state.
Everything from the server is escaped text. The widgets only read the agent duck-typed, so
this module does not import ``nb_hitl.remote``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from nb_hitl._render import esc
from nb_hitl.events import (
    ErrorOccurred,
    Event,
    MessageAdded,
    RemoteConnected,
    ReplyFinished,
    ReplyStarted,
)

from ._loop import LoopBridge
from ._model import PanelModel, page_css, static_file

STATE_CHARS = 4000
"""The longest state text drawn (the rest is cut, said so)."""


def is_remote(agent: Any) -> bool:
    """Whether ``agent`` runs elsewhere (it lists what the panel cannot do with it)."""
    return isinstance(getattr(agent, "unsupported", None), dict) and hasattr(agent, "thread_id")


COMPRESSION_CONTROLS = ("compress", "undo", "reset", "explore", "threshold", "keep")
"""The inspector's compression controls (compression runs on the server)."""
MEMORY_CONTROLS = ("pin", "unpin")
"""The inspector's controls that edit memory."""
CHAT_CONTROLS = {"edit_memory": ("clear",), "stop_after_step": ("step",)}
"""The chat's controls (``ChatWidget.set_limits`` keys) each missing feature keeps off."""


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
        panel.chat.set_limits(
            {
                control: limits[feature]
                for feature, controls in CHAT_CONTROLS.items()
                if feature in limits
                for control in controls
            }
        )
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


LINK_TEXT = {
    "connecting": "connecting…",
    "connected": "connected",
    "disconnected": "not reachable",
    "error": "the last run failed",
}
"""What the view says of the agent's link to its server (``RemoteStateView.link``)."""
UNREACHABLE = ("connection", "timeout", "dropped")
"""``RemoteAgentError.kind`` values that mean the server could not be reached (or went)."""


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class RemoteStateView(PanelModel):
    """The server, thread, capabilities and state of a remote agent (in the inspector).

    One ``PanelModel`` drawn by ``js/src/views/remote.js``: inside an ``AgentPanel`` it is
    the inspector's part ``remote`` (made ``inside_host()``, no comm of its own); shown on its
    own it is one model. It also says how the link to the server stands (``link``:
    connecting, connected, not reachable, the last run failed, with the error). Every value
    is text the page sets as text (the state's ``controls``), never HTML.

    Args:
        agent: a remote agent (``nb_hitl.remote.RemoteAgent``; read duck-typed).
        bridge: the loop bridge its events are handled on.
        css: include the stylesheet (a host that draws the view includes it once).
    """

    _esm = static_file("remote.js")
    _css = static_file("remote.css")

    def __init__(self, agent: Any, bridge: LoopBridge | None = None, *, css: bool = True) -> None:
        self.agent = agent
        super().__init__({"css": page_css(css), "controls": {}}, bridge=bridge or LoopBridge())
        self._bridge = self.bridge
        self.add_class("nb-hitl-remote-state")
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))
        self.refresh()
        waiting = getattr(agent, "wait_connected", None)
        if callable(waiting) and not getattr(agent, "connected", True) and _loop_running():
            # The agent is still reaching its server: redraw once it has (or has failed).
            self._bridge.spawn(self._after_connect(waiting()), name="nb_hitl remote link")

    async def _after_connect(self, attempt: Any) -> None:
        await attempt
        self.refresh()

    def _on_event(self, ev: Event) -> None:
        if isinstance(
            ev, (ReplyStarted, ReplyFinished, MessageAdded, RemoteConnected, ErrorOccurred)
        ):
            self.refresh()

    @property
    def link(self) -> str:
        """``"connecting"``, ``"connected"``, ``"disconnected"`` or ``"error"`` (as drawn)."""
        return str((self._state.get("controls") or {}).get("link", ""))

    @property
    def text(self) -> str:
        """What the view shows, as plain text (tests, a log)."""
        c = self._state.get("controls") or {}
        lines = [
            f"server: {c.get('server', '')}",
            f"thread: {c.get('thread', '')}",
            f"link: {c.get('link_text', '')}" + (f": {c['error']}" if c.get("error") else ""),
            f"server can: {c.get('can', '')}",
            "state:",
            str(c.get("state", "")),
        ]
        return "\n".join(lines)

    def refresh(self) -> None:
        """Redraw from the agent."""
        agent = self.agent
        caps = getattr(agent, "capabilities", {}) or {}
        have = ", ".join(sorted(k for k, v in caps.items() if v)) or "runs and interrupts only"
        raw = getattr(agent, "remote_state", None)
        try:
            state = json.dumps(raw, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            state = repr(raw)
        if len(state) > STATE_CHARS:
            state = state[:STATE_CHARS] + f"\n… ({len(state) - STATE_CHARS:,} more characters)"
        error = getattr(agent, "last_error", None)
        if error is not None:
            link = "disconnected" if getattr(error, "kind", "") in UNREACHABLE else "error"
        elif getattr(agent, "connected", True):
            link = "connected"
        else:
            link = "connecting"
        self.set_view(
            controls={
                "server": str(getattr(agent, "url", "")),
                "thread": str(getattr(agent, "thread_id", "")),
                "can": have,
                "state": state,
                "link": link,
                "link_text": LINK_TEXT[link],
                "error": "" if error is None else str(error),
            }
        )

    def close(self) -> None:
        """Stop listening to the agent."""
        self._sub.close()
        super().close()


__all__ = ["LimitsNote", "RemoteStateView", "apply_limits", "is_remote"]
