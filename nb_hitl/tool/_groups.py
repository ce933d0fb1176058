"""Tool groups and the meta tool ``reset_equipped_tools``, as in AgentScope 1.x.

Tools in the always-on ``basic`` group are always offered to the model; tools in another group
only while that group is active. The meta tool lets the model switch groups itself. A
``Toolkit`` owns one ``ToolGroups`` (``toolkit.grouping``) and keeps AgentScope's method names
as one-line delegations to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import create_model

from nb_hitl.message import TextBlock

from ._response import ToolResponse

if TYPE_CHECKING:
    from ._registered import RegisteredTool

BASIC = "basic"
"""The group every tool is in unless registered with another ``group_name``."""


@dataclass
class ToolGroup:
    """A named set of tools the agent can switch on and off."""

    name: str
    active: bool
    description: str
    notes: str | None = None
    """How to use the group's tools; shown to the model when the group is switched on."""


class GroupsHost(Protocol):
    """What the groups use of their toolkit: its registered tools."""

    @property
    def tools(self) -> dict[str, RegisteredTool]: ...


class ToolGroups:
    """The tool groups of a toolkit, which of them are on, and the meta tool's arguments.

    Args:
        host: the toolkit (``GroupsHost``: removing a group removes its tools).
    """

    def __init__(self, host: GroupsHost) -> None:
        self._host = host
        self.groups: dict[str, ToolGroup] = {}
        """The groups by name (``basic`` is implicit, never in here)."""
        self._meta_tool_built: tuple[Any, Any] | None = None
        """The (groups key, model) the meta tool's arguments were last built from."""

    def create_tool_group(
        self, group_name: str, description: str, active: bool = False, notes: str | None = None
    ) -> None:
        """Create a group (inactive by default) that tools can then be registered into.

        Raises:
            ValueError: the group exists already, or is ``basic``.
        """
        if group_name in self.groups or group_name == BASIC:
            raise ValueError(f"Tool group {group_name!r} is already registered in the toolkit.")
        self.groups[group_name] = ToolGroup(group_name, active, description, notes)

    def update_tool_groups(self, group_names: list[str], active: bool) -> None:
        """Switch the named groups on or off (unknown names and ``basic`` are ignored)."""
        for name in group_names:
            if name in self.groups:
                self.groups[name].active = active

    def remove_tool_groups(self, group_names: str | list[str]) -> None:
        """Remove groups and every tool in them.

        Raises:
            TypeError: a name is not a string.
            ValueError: ``basic`` is among them (it cannot be removed).
        """
        names = [group_names] if isinstance(group_names, str) else group_names
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"group_names must be a string or a list of strings, got {names!r}.")
        if BASIC in names:
            raise ValueError("The 'basic' tool group cannot be removed.")
        for name in names:
            self.groups.pop(name, None)
        tools = self._host.tools
        for tool_name in [t.name for t in tools.values() if t.group in names]:
            tools.pop(tool_name)

    def is_offered(self, tool: RegisteredTool) -> bool:
        """Whether the model is offered ``tool`` now (its group is ``basic`` or active)."""
        group = self.groups.get(tool.group)
        return tool.group == BASIC or (group is not None and group.active)

    def get_activated_notes(self) -> str:
        """The notes of the active groups, ready to add to a system prompt."""
        return "\n".join(
            f"## About Tool Group '{name}'\n{group.notes}"
            for name, group in self.groups.items()
            if group.active and group.notes
        )

    def reset_equipped_tools(self, **kwargs: Any) -> ToolResponse:
        """The meta tool's body (``Toolkit.reset_equipped_tools`` is the tool the model sees)."""
        # The replies below are AgentScope 1.x's word for word (prompts tuned against them
        # keep working).
        bad = {k: v for k, v in kwargs.items() if not isinstance(v, bool)}
        if bad:
            key, value = next(iter(bad.items()))
            return ToolResponse(
                content=[
                    TextBlock(
                        type="text",
                        text=f"Invalid arguments: the argument {key} should be a bool "
                        f"value, but got {type(value)}.",
                    )
                ],
                is_error=True,
            )
        self.update_tool_groups(list(self.groups), active=False)
        wanted = [k for k, v in kwargs.items() if v and k in self.groups]
        self.update_tool_groups(wanted, active=True)
        text = ""
        if wanted:
            text = "Now tool groups " + ", ".join(f"'{w}'" for w in wanted) + " are activated."
        notes = self.get_activated_notes()
        if notes:
            text += f" You MUST follow these notes to use these tools:\n<notes>{notes}</notes>"
        text = text or "All tool groups are now deactivated currently."
        return ToolResponse(content=[TextBlock(type="text", text=text)])

    def refresh_meta_tool(self) -> None:
        """Give the meta tool one boolean argument per group; rebuilt only when the groups
        (names, descriptions) or the registered meta tool changed, not at every step."""
        tool = self._host.tools.get("reset_equipped_tools")
        if tool is None:
            return
        key = (id(tool), tuple((name, g.description) for name, g in self.groups.items()))
        built = self._meta_tool_built
        if built is not None and built[0] == key and tool.extended_model is built[1]:
            return
        fields = self._meta_tool_fields()
        tool.extended_model = create_model("_ToolGroups", **fields) if fields else None
        self._meta_tool_built = (key, tool.extended_model)

    def _meta_tool_fields(self) -> dict[str, Any]:
        """One optional boolean argument per group, for the meta tool's schema."""
        from pydantic import Field

        return {
            name: (bool, Field(False, description=group.description))
            for name, group in self.groups.items()
        }


__all__ = ["BASIC", "GroupsHost", "ToolGroup", "ToolGroups"]
