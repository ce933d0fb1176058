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

AgentScope's message queue: after ``agent.set_msg_queue_enabled(True)`` (or with a queue of
your own), every ``print(msg, last, speech)`` also puts ``(copy of msg, last, speech)`` into
``agent.msg_queue``, whether or not the console shows it (in a kernel too, chunk by chunk), and
waits when the queue is full (AgentScope's default queue holds 100 items): whoever enables it
consumes it, e.g. ``nb_hitl.pipeline.stream_printing_messages``.
"""

from __future__ import annotations

import asyncio
import copy
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


class ConsoleMixin(HookMixin):
    """``print`` / ``set_console_output_enabled`` (with print hooks) and AgentScope's
    ``msg_queue``; mixed into ``AgentBase``."""

    msg_queue: asyncio.Queue[Any] | None = None
    """Where ``print`` puts ``(msg, last, speech)`` while enabled (``set_msg_queue_enabled``)."""
    _disable_msg_queue: bool = True

    def set_msg_queue_enabled(self, enabled: bool, queue: asyncio.Queue[Any] | None = None) -> None:
        """Turn AgentScope's message queue on or off.

        Args:
            enabled: ``True`` puts every printed message into ``msg_queue``.
            queue: the queue to use; by default the agent's current one, or a new
                ``asyncio.Queue(maxsize=100)``. Disabling sets ``msg_queue`` to ``None``.
        """
        if enabled:
            if queue is not None:
                self.msg_queue = queue
            elif self.msg_queue is None:
                self.msg_queue = asyncio.Queue(maxsize=100)
        else:
            self.msg_queue = None
        self._disable_msg_queue = not enabled

    def _print_wanted(self) -> bool:
        """Whether ``print`` has anything to do: console, print hooks or the message queue."""
        return self.console_output_enabled or self.has_hooks("print") or not self._disable_msg_queue

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
            speech: AgentScope's audio to play along; put into ``msg_queue`` with the
                message, not played (nb_hitl plays no audio).
        """
        if not self._disable_msg_queue and self.msg_queue is not None:
            await self.msg_queue.put((copy.deepcopy(msg), last, speech))
            await asyncio.sleep(0)  # let the consumer take it (AgentScope yields here too)
        state = self._console_state()
        if not state["enabled"] or (not last and in_kernel()):
            return  # in a notebook: once per message, when complete
        streams: dict[str, dict[int, int]] = state["printed"]
        done = streams.pop(msg.id, None)
        if done is None:
            done = {}
            if len(streams) >= 16:  # streams cut off by an interrupt never send last=True
                del streams[next(iter(streams))]
        out: list[str] = []
        for i, block in enumerate(msg.get_content_blocks()):
            kind = _field(block, "type")
            if kind in ("text", "thinking"):
                body = _field(block, kind) or ""
                if i not in done:  # a new block: its heading, on a line of its own
                    label = msg.name if kind == "text" else f"{msg.name}(thinking)"
                    out.append(("\n" if done else "") + f"{label}: ")
                    done[i] = 0
                # Streaming only extends a block, so only the new part is written: printing
                # stays proportional to the new text, not to the whole message.
                out.append(body[done[i] :])
                done[i] = len(body)
            elif last and kind in ("tool_use", "tool_result") and i not in done:
                out.append(("\n" if done else "") + f"{msg.name}: {_as_json(block)}")
                done[i] = -1
        if last:
            if done:
                out.append("\n")
        else:
            streams[msg.id] = done
        text = "".join(out)
        if text:
            sys.stdout.write(text)
            if last:
                sys.stdout.flush()
