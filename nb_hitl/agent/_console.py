"""Console printing of an agent's messages: AgentScope 1.x's ``await agent.print(msg, last)``.

The ``Console`` part (``agent.console``) holds the switch, the message queue and what each
streaming message has printed so far; ``AgentBase.print`` runs the print hooks around it.
May import only ``nb_hitl.message``.

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
    return json.dumps(dict(block), indent=4, ensure_ascii=False, default=str)


class Console:
    """One agent's console output and AgentScope's message queue (``agent.console``).

    ``AgentBase.print`` runs the print hooks and then ``show``; the agent's
    ``set_console_output_enabled``, ``console_output_enabled``, ``set_msg_queue_enabled`` and
    ``msg_queue`` are AgentScope's names for what this holds.
    """

    def __init__(self) -> None:
        self.enabled = console_enabled_by_default()
        """Whether ``show`` writes to the console."""
        self.queue: asyncio.Queue[Any] | None = None
        """Where ``show`` puts ``(msg, last, speech)`` while ``queue_enabled``."""
        self.queue_enabled = False
        self._printed: dict[str, dict[int, int]] = {}
        """Per streaming message id, how much of each block was written already."""

    def set_queue_enabled(self, enabled: bool, queue: asyncio.Queue[Any] | None = None) -> None:
        """Turn the message queue on (``queue``, the current one or a new one of 100) or off."""
        if enabled:
            if queue is not None:
                self.queue = queue
            elif self.queue is None:
                self.queue = asyncio.Queue(maxsize=100)
        else:
            self.queue = None
        self.queue_enabled = bool(enabled)

    @property
    def active(self) -> bool:
        """Whether ``show`` has anything to do (the console or the queue is on)."""
        return self.enabled or self.queue_enabled

    async def show(self, msg: Msg, last: bool = True, speech: Any = None) -> None:
        """Put ``msg`` into the queue (when on) and write what is new of it to the console."""
        if self.queue_enabled and self.queue is not None:
            await self.queue.put((copy.deepcopy(msg), last, speech))
            await asyncio.sleep(0)  # let the consumer take it (AgentScope yields here too)
        if not self.enabled or (not last and in_kernel()):
            return  # in a notebook: once per message, when complete
        self.write(msg, last)

    def write(self, msg: Msg, last: bool) -> None:
        """Write to stdout the part of ``msg`` not written yet (a stream only grows)."""
        streams = self._printed
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
