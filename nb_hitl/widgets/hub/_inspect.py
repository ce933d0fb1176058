"""InspectorSwitch: the memory inspector of one participant at a time, picked from a list.

One ``MemoryInspector`` per participant, made the first time it is picked and kept (its
what-if settings and chart survive switching back and forth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .._look import look
from .._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

    from .._inspector import MemoryInspector


class InspectorSwitch(w.VBox):
    """A "Memory of" picker above the inspector of the participant picked.

    Args:
        bridge: the panel's loop bridge (the picker's callback runs on its loop).
    """

    def __init__(self, bridge: LoopBridge) -> None:
        self.agents: list[AgentBase] = []
        self.picker = w.Dropdown(description="Memory of", options=[], **look(w.Dropdown))
        self.picker.add_class("nb-hitl-hub-picker")
        self._box = w.VBox(**look(w.VBox))
        self._inspectors: dict[int, MemoryInspector] = {}
        super().__init__(children=[self.picker, self._box])
        self.picker.observe(bridge.callback(self._picked), "value")

    @property
    def inspector(self) -> MemoryInspector | None:
        """The inspector shown, or ``None``."""
        kids = self._box.children
        return kids[0] if kids else None

    def set_agents(self, agents: Sequence[AgentBase]) -> None:
        """The participants to choose from (those without memory, e.g. a UserAgent, are left
        out); the first one is shown if none is yet."""
        self.agents = list(agents)
        options = [(a.name, i) for i, a in enumerate(self.agents) if a.memory is not None]
        if list(self.picker.options) != options:
            current = self.picker.value
            self.picker.options = options
            if current is not None:
                self.picker.value = current
        if self.inspector is None and options:
            self.show(self.agents[options[0][1]])

    def show(self, agent: AgentBase) -> MemoryInspector:
        """Show ``agent``'s memory (one of ``agents``)."""
        if getattr(agent, "memory", None) is None:
            raise ValueError(f"{agent.name} keeps no memory to inspect (e.g. a UserAgent).")
        from .._inspector import MemoryInspector

        insp = self._inspectors.get(id(agent))
        if insp is None:
            insp = MemoryInspector(agent, css=False)
            self._inspectors[id(agent)] = insp
        self._box.children = (insp,)
        index = self.agents.index(agent)
        if self.picker.value != index:
            self.picker.value = index
        return insp

    def close(self) -> None:
        """Close every inspector made."""
        for insp in self._inspectors.values():
            insp.close()
        super().close()

    def _picked(self, change: dict[str, Any]) -> None:
        new = change.get("new")
        if isinstance(new, int) and 0 <= new < len(self.agents):
            self.show(self.agents[new])


__all__ = ["InspectorSwitch"]
