"""AgentPanel: the chat and the memory inspector side by side (what ``nb_hitl.show`` returns)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ._chat import ChatWidget
from ._inspector import MemoryInspector
from ._live import html
from ._render import CSS

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase


class AgentPanel(w.VBox):
    """Chat (left) and memory inspector (right) for one agent; display it and the cell returns.

    Args:
        agent: the agent.
        chat: keyword arguments for ``ChatWidget``.
        inspector: keyword arguments for ``MemoryInspector``; ``False`` for chat only.
    """

    def __init__(
        self,
        agent: AgentBase,
        *,
        chat: dict[str, Any] | None = None,
        inspector: dict[str, Any] | bool | None = None,
    ) -> None:
        self.agent = agent
        self.chat = ChatWidget(agent, css=False, **(chat or {}))
        self.chat.layout = w.Layout(flex="3 1 0%", min_width="320px")
        self.inspector: MemoryInspector | None = None
        halves: list[w.Widget] = [self.chat]
        if inspector is not False:
            opts = inspector if isinstance(inspector, dict) else {}
            self.inspector = MemoryInspector(agent, css=False, **opts)
            self.inspector.layout = w.Layout(flex="2 1 0%", min_width="280px")
            halves.append(self.inspector)
        row = w.HBox(halves, layout=w.Layout(width="100%", align_items="flex-start"))
        super().__init__(children=[html(CSS), row])
        self.add_class("nb-hitl-panel")

    def close(self) -> None:
        """Close both halves."""
        self.chat.close()
        if self.inspector is not None:
            self.inspector.close()
        super().close()


__all__ = ["AgentPanel"]
