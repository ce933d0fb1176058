"""InspectorSwitch: the memory inspector of one participant at a time, picked from a list.

One ``MemoryInspector`` per participant, made the first time it is picked and kept (its
what-if settings and chart survive switching back and forth). The inspector shown is drawn
inside the hub panel (``PanelModel.embed``: part ``inspector`` of the panel's state); the
"Memory of" picker is the hub's front end's (``picker``: the ``Control`` code sets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

    from .._inspector import MemoryInspector
    from .._model import PanelModel


class Picker:
    """The "Memory of" picker: ``options`` (``(name, index)`` pairs) and ``value``.

    Setting ``value`` (code, a test, or the page's select) shows that participant.
    """

    def __init__(self, on_pick: Callable[[int], None], on_change: Callable[[], None]) -> None:
        self.description = "Memory of"
        self.options: list[tuple[str, int]] = []
        self._value: int | None = None
        self._on_pick = on_pick
        self._on_change = on_change

    @property
    def value(self) -> int | None:
        """The index (in the panel's ``agents``) of the participant shown."""
        return self._value

    @value.setter
    def value(self, new: int | None) -> None:
        if new == self._value:
            return
        self._value = new
        self._on_change()
        if isinstance(new, int):
            self._on_pick(new)


class InspectorSwitch:
    """A "Memory of" picker above the inspector of the participant picked.

    Args:
        host: the hub panel (the inspector shown is drawn inside it).
        on_change: called when the picker changes (the panel draws itself anew).
    """

    def __init__(self, host: PanelModel, on_change: Callable[[], None]) -> None:
        self.agents: list[AgentBase] = []
        self.host = host
        self.picker = Picker(self._picked, on_change)
        self._inspectors: dict[int, MemoryInspector] = {}
        self._shown: MemoryInspector | None = None

    @property
    def inspector(self) -> MemoryInspector | None:
        """The inspector shown, or ``None``."""
        return self._shown

    def set_agents(self, agents: Sequence[AgentBase]) -> None:
        """The participants to choose from (those without memory, e.g. a UserAgent, are left
        out); the first one is shown if none is yet."""
        self.agents = list(agents)
        options = [(a.name, i) for i, a in enumerate(self.agents) if a.memory is not None]
        if self.picker.options != options:
            self.picker.options = options
            self.picker._on_change()
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
        if insp is not self._shown:
            if self._shown is not None:
                self._shown._host = None  # drawn no more: its changes stay its own
            self._shown = insp
            self.host.embed(insp, "inspector")
        index = self.agents.index(agent)
        if self.picker.value != index:
            self.picker.value = index
        return insp

    def drawn(self) -> dict[str, Any]:
        """The picker as the page draws it."""
        picker = self.picker
        return {"label": picker.description, "options": picker.options, "value": picker.value}

    def close(self) -> None:
        """Close every inspector made."""
        for insp in self._inspectors.values():
            insp.close()

    def _picked(self, index: int) -> None:
        if 0 <= index < len(self.agents):
            self.show(self.agents[index])


__all__ = ["InspectorSwitch", "Picker"]
