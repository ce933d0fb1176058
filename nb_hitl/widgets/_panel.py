"""AgentPanel: the chat and the memory inspector side by side (what ``nb_hitl.show`` returns).

The panel is one model (a ``PanelModel``; its front end ``js/src/agent_panel.js``, view
``js/src/views/agent_panel.js``). Its parts are drawn inside it with no comm of their own
(``inside_host`` + ``embed``), each keeping its own Python object and public methods:
``chat`` (the ``ChatWidget``: transcript, controls, keys), ``inspector`` (the
``MemoryInspector``, with a remote agent's state view at its foot), ``permissions`` (the
``PermissionsView``), ``session`` (the ``SessionBar``), plus ``limits`` (a remote agent's
note, HTML) and ``css`` (the kernel's stylesheet, once for every part). The page draws the
chat and the inspector side by side when there is room and the inspector below the chat when
there is not (flex-wrap on minimum widths), the permissions list, session bar and note under
them. A page action for a part is the panel's action named after it
(``{name: "session", args: {name: "save", args: {}}}``); a part's batches reach the page as
``child`` ops of the panel's. One panel opens one comm (and its ``Layout``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_hitl.agent.approvals import ApprovalMethods

from ._chat import ChatWidget
from ._inspector import MemoryInspector
from ._model import PanelModel, inside_host, page_css, static_file
from ._permissions_view import PermissionsView
from ._remote_view import RemoteStateView, apply_limits, is_remote
from ._session import DEFAULT_SESSION_PATH, SessionBar

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase


class AgentPanel(PanelModel):
    """Chat (left) and memory inspector (right) for one agent; display it and the cell returns.

    One model draws it all (see module doc); ``panel.layout`` is its layout, ``add_class`` its
    classes, as they were when it was an ``ipywidgets.VBox``.

    Args:
        agent: the agent.
        chat: keyword arguments for ``ChatWidget``.
        inspector: keyword arguments for ``MemoryInspector``; ``False`` for chat only.
        session: the session file of the Save / Load bar (``None``: no bar).
        autosave: save the session after every finished or interrupted reply.
        permissions: show the permission mode, rules and background tasks under the chat.
    """

    _esm = static_file("agent_panel.js")
    _css = static_file("agent_panel.css")

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
        self._generation = 0
        """How many chats the panel has had (a Load swaps it): the page builds a new one."""
        self.chat = self._new_chat()
        bridge = self.chat._bridge
        self.inspector: MemoryInspector | None = None
        if inspector is not False:
            opts = inspector if isinstance(inspector, dict) else {}
            with inside_host():  # drawn by this panel's page: no comm of its own
                self.inspector = MemoryInspector(agent, css=False, **opts)
            self.inspector.add_class("nb-hitl-column-side")
        self.permissions: PermissionsView | None = None
        """The permission mode, rules (Revoke) and background tasks (Stop)."""
        if isinstance(agent, ApprovalMethods) and permissions:
            with inside_host():
                self.permissions = PermissionsView(agent, bridge, css=False)
        self.session: SessionBar | None = None
        """The session bar (Save / Load / Undo load / Autosave)."""
        if session is not None and isinstance(agent, ApprovalMethods):
            with inside_host():
                self.session = SessionBar(
                    agent, session, autosave=autosave, on_loaded=self._reload_chat, css=False
                )
        self.remote: RemoteStateView | None = None
        """The server, thread and state of a remote agent (in the inspector)."""
        if is_remote(agent) and self.inspector is not None:
            with inside_host():  # drawn at the inspector's foot, by the panel's page: no comm
                self.remote = RemoteStateView(agent, bridge, css=False)
            self.inspector.embed(self.remote, "remote")
        parts = self._parts()
        state = {
            "css": page_css(True),
            "chat_generation": self._generation,
            "limits": "",
            **{key: part.view_state for key, part in parts.items()},
        }
        # Everything drawn so far goes in the panel's opening message (no op batch for it).
        PanelModel.__init__(self, state, bridge=bridge, _dom_classes=("nb-hitl-panel",))
        for key, part in parts.items():
            self.embed(part, key)  # the state holds them already: nothing is sent
        # What a remote agent cannot do, greyed out with why; the note is a part.
        self._limits = apply_limits(self, lambda note: self.set_view(limits=note))

    def _new_chat(self) -> ChatWidget:
        with inside_host():  # drawn by this panel's page: no comm of its own
            chat = ChatWidget(self.agent, css=False, **self._chat_opts)
        chat.add_class("nb-hitl-column-main")
        return chat

    def _parts(self) -> dict[str, PanelModel]:
        """The panels drawn inside this one, by their part (those the options left out are
        missing: the page draws no row for them)."""
        parts: dict[str, PanelModel | None] = {
            "chat": self.chat,
            "inspector": self.inspector,
            "permissions": self.permissions,
            "session": self.session,
        }
        return {key: part for key, part in parts.items() if part is not None}

    @property
    def parts(self) -> AgentPanel:
        """The model that draws the permissions list, the session bar and the remote note:
        the panel itself now (it was a ``PanelParts`` model of its own; kept for notebooks and
        tests that send the parts' actions through ``panel.parts``)."""
        return self

    def drawn_html(self) -> str:
        """Every part the page inserts as HTML: the chat's, the inspector's, the rows under."""
        drawn = [part.drawn_html() for part in self._parts().values()]
        return "\n".join([*drawn, str(self._state.get("limits") or "")])

    def close(self) -> None:
        """Close the panel and every part drawn inside it."""
        for part in self._parts().values():
            part.close()
        if self.remote is not None:
            self.remote.close()
        if getattr(self, "_limits", None) is not None:
            self._limits.close()  # type: ignore[union-attr]
        super().close()

    def _reload_chat(self, _info: Any = None) -> None:
        """Redraw the chat from the agent's memory (after a session was loaded)."""
        old = self.chat
        self._generation += 1
        self.chat = self._new_chat()
        # One batch: the new chat's state and the generation that tells the page to build it.
        self.embed(self.chat, "chat", chat_generation=self._generation)
        if self._limits is not None:
            self._limits.redraw()  # the new chat greys what the remote agent cannot do
        old.close()


PanelParts = AgentPanel
"""The rows under the panel's columns were a model of their own (``PanelParts``); the panel
draws them now (``panel.parts`` is the panel). Kept as a name so old imports still work."""


__all__ = ["AgentPanel", "PanelParts"]
