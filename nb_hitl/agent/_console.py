"""Console printing of an agent's messages: AgentScope 1.x's ``await agent.print(msg, last)``.

Agents call ``print`` as AgentScope's do (each streamed chunk with ``last=False``, the finished
message with ``last=True``, tool results, the interrupted message), so ``pre_print`` /
``post_print`` hooks see every message. What reaches the console:

- In a script or terminal, text is printed as it streams (only the new part each time),
  ``name: text`` and ``name(thinking): ...``; tool calls and results as JSON once complete.
- Inside a Jupyter kernel, console output is off by default: a reply usually runs as a
  background task, and printing from it lands in whichever cell runs at the time and, per
  chunk, floods the iopub channel. The widgets show the reply. Turned on with
  ``agent.set_console_output_enabled(True)``, each message is printed once, when complete.

``AGENTSCOPE_DISABLE_CONSOLE_OUTPUT=true`` (AgentScope's switch) or
``NB_HITL_DISABLE_CONSOLE_OUTPUT=true`` turns it off everywhere.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from nb_hitl.message import Msg

from ._hooks import HookMixin


def in_kernel() -> bool:
    """True when stdout is a Jupyter kernel's output stream."""
    return type(sys.stdout).__module__.startswith("ipykernel")


def console_enabled_by_default() -> bool:
    """Off in a Jupyter kernel or when an environment switch says so; on otherwise."""
    for var in ("AGENTSCOPE_DISABLE_CONSOLE_OUTPUT", "NB_HITL_DISABLE_CONSOLE_OUTPUT"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes"):
            return False
    return not in_kernel()


def _field(block: Any, name: str) -> Any:
    value = getattr(block, name, None)
    if value is None and isinstance(block, dict):
        value = block.get(name)
    return value


def _as_json(block: Any) -> str:
    data = block.model_dump(exclude_none=True) if hasattr(block, "model_dump") else dict(block)
    return json.dumps(data, indent=4, ensure_ascii=False, default=str)


def render_text(msg: Msg, last: bool) -> str:
    """What the console shows for ``msg`` so far."""
    parts: list[str] = []
    for block in msg.get_content_blocks():
        kind = _field(block, "type")
        if kind == "text":
            parts.append(f"{msg.name}: {_field(block, 'text') or ''}")
        elif kind == "thinking":
            parts.append(f"{msg.name}(thinking): {_field(block, 'thinking') or ''}")
        elif last and kind in ("tool_use", "tool_result"):
            parts.append(f"{msg.name}: {_as_json(block)}")
    return "\n".join(parts)


class ConsoleMixin(HookMixin):
    """``print`` / ``set_console_output_enabled`` (with print hooks); mixed into ``AgentBase``."""

    def _console_state(self) -> dict[str, Any]:
        state = self.__dict__.get("_console")
        if state is None:  # lazily: subclasses need not call super().__init__() first
            state = {"enabled": console_enabled_by_default(), "printed": {}}
            object.__setattr__(self, "_console", state)
        return state

    def set_console_output_enabled(self, enabled: bool) -> None:
        """Turn printing this agent's messages to the console on or off."""
        self._console_state()["enabled"] = bool(enabled)

    @property
    def console_output_enabled(self) -> bool:
        """Whether ``print`` writes to the console."""
        return bool(self._console_state()["enabled"])

    async def print(self, msg: Msg, last: bool = True, speech: Any = None) -> None:
        """Show ``msg`` on the console (runs the ``pre_print`` / ``post_print`` hooks).

        Args:
            msg: the message, complete or (``last=False``) a streaming chunk of it.
            last: whether this is the final version of the message.
            speech: AgentScope's audio to play along; accepted and ignored (nb_hitl plays
                no audio).
        """
        state = self._console_state()
        if not state["enabled"]:
            return
        printed: dict[str, str] = state["printed"]
        if in_kernel() and not last:
            return  # in a notebook: once per message, when complete
        text = render_text(msg, last)
        before = printed.get(msg.id, "")
        if text.startswith(before):
            new = text[len(before) :]
        else:  # the message changed in a way that is not an extension: start a new line
            new = ("\n" if before else "") + text
        if new:
            sys.stdout.write(new)
        if last:
            printed.pop(msg.id, None)
            if text or before:
                sys.stdout.write("\n")
            sys.stdout.flush()
        else:
            if msg.id not in printed and len(printed) >= 16:  # streams cut off by an interrupt
                del printed[next(iter(printed))]
            printed[msg.id] = text
