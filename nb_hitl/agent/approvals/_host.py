"""What the approval gate uses of the agent that owns it (a fake host tests the gate alone)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nb_hitl.events import Event
    from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock
    from nb_hitl.tool import Toolkit


class GateHost(Protocol):
    """The agent's side of the gate: its name, tools, memory, reply and loop, and how a result
    is recorded. ``ReActAgent`` is one; nothing else of the agent is touched."""

    name: str
    toolkit: Toolkit
    memory: Any
    _loop: asyncio.AbstractEventLoop | None
    _where: str

    @property
    def _open_calls(self) -> dict[str, ToolUseBlock]: ...

    @property
    def _reply_id(self) -> str | None: ...

    @property
    def is_replying(self) -> bool: ...

    def _emit(self, event: Event) -> None: ...

    def _listened(self) -> bool: ...

    def interrupt_nowait(
        self, msg: Msg | None = None, *, cause: str = "interrupt", when: str = "now"
    ) -> bool: ...

    def _commit_sync(self, msg: Msg) -> None: ...

    async def _commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None: ...


__all__ = ["GateHost"]
