"""AgentPanel: the chat and the memory inspector side by side (what ``nb_hitl.show`` returns)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import CSS
from nb_hitl.agent.approvals import ApprovalMethods

from ._chat import ChatWidget
from ._inspector import MemoryInspector
from ._live import html
from ._look import look
from ._model import PanelModel, inside_host, static_file
from ._permissions_view import PermissionsView
from ._remote_view import RemoteStateView, apply_limits, is_remote
from ._session import DEFAULT_SESSION_PATH, SessionBar

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase


class PanelParts(PanelModel):
    """The rows under the panel's columns, drawn by one front end (``js/src/panel.js``): the
    permissions list, the session bar and a remote agent's limits note (parts ``permissions``,
    ``session``: their panels embedded with no comm of their own; ``limits``: HTML)."""

    _esm = static_file("panel.js")
    _css = static_file("panel.css")

    def __init__(self, bridge: Any = None) -> None:
        super().__init__({"limits": ""}, bridge=bridge)
        self.add_class("nb-hitl-panel-parts")


class AgentPanel(w.VBox):
    """Chat (left) and memory inspector (right) for one agent; display it and the cell returns.

    Args:
        agent: the agent.
        chat: keyword arguments for ``ChatWidget``.
        inspector: keyword arguments for ``MemoryInspector``; ``False`` for chat only.
        session: the session file of the Save / Load bar (``None``: no bar).
        autosave: save the session after every finished or interrupted reply.
        permissions: show the permission mode, rules and background tasks under the chat.
    """

    def __init__(
        self,
        agent: AgentBase,
        *,
        chat: dict[str, Any] | None = None,
        inspector: dict[str, Any] | bool | None = None,
        session: str | Path | None = DEFAULT_SESSION_PATH,
        autosave: bool = False,
        permissions: bool = True,
    ) -> None:
        self.agent = agent
        self._chat_opts = dict(chat or {})
        self.chat = ChatWidget(agent, css=False, **(chat or {}))
        self.chat.add_class("nb-hitl-column-main")
        self.inspector: MemoryInspector | None = None
        halves: list[w.Widget] = [self.chat]
        if inspector is not False:
            opts = inspector if isinstance(inspector, dict) else {}
            self.inspector = MemoryInspector(agent, css=False, **opts)
            self.inspector.add_class("nb-hitl-column-side")
            halves.append(self.inspector)
        # Side by side when there is room; the inspector goes below the chat when there is not
        # (the stylesheet's nb-hitl-columns: flex-wrap on minimum widths).
        row = w.HBox(halves, **look(w.HBox))
        row.add_class("nb-hitl-columns")
        self._row = row
        self.parts = PanelParts(self.chat._bridge)
        """The permissions list, the session bar and the remote note: one front end."""
        self.permissions: PermissionsView | None = None
        """The permission mode, rules (Revoke) and background tasks (Stop)."""
        if isinstance(agent, ApprovalMethods) and permissions:
            with inside_host():
                self.permissions = PermissionsView(agent, self.chat._bridge, css=False)
            self.parts.embed(self.permissions, "permissions")
        self.session: SessionBar | None = None
        """The session bar (Save / Load / Undo load / Autosave)."""
        if session is not None and isinstance(agent, ApprovalMethods):
            with inside_host():
                self.session = SessionBar(
                    agent, session, autosave=autosave, on_loaded=self._reload_chat, css=False
                )
            self.parts.embed(self.session, "session")
        self.remote: RemoteStateView | None = None
        """The server, thread and state of a remote agent (in the inspector)."""
        if is_remote(agent) and self.inspector is not None:
            with inside_host():  # drawn at the inspector's foot, by its page: no comm
                self.remote = RemoteStateView(agent, self.chat._bridge, css=False)
            self.inspector.embed(self.remote, "remote")
        # What a remote agent cannot do, greyed out with why; the note is a part.
        self._limits = apply_limits(self, lambda note: self.parts.set_view(limits=note))
        super().__init__(children=[html(CSS), row, self.parts])
        self.add_class("nb-hitl-panel")

    def close(self) -> None:
        """Close both halves."""
        self.chat.close()
        if self.session is not None:
            self.session.close()
        if self.permissions is not None:
            self.permissions.close()
        if self.remote is not None:
            self.remote.close()
        if self._limits is not None:
            self._limits.close()
        if self.inspector is not None:
            self.inspector.close()
        self.parts.close()
        super().close()

    def _reload_chat(self, _info: Any = None) -> None:
        """Redraw the chat from the agent's memory (after a session was loaded)."""
        old = self.chat
        self.chat = ChatWidget(self.agent, css=False, **self._chat_opts)
        self.chat.add_class("nb-hitl-column-main")
        self._row.children = tuple(self.chat if c is old else c for c in self._row.children)
        old.close()


__all__ = ["AgentPanel", "PanelParts"]
