"""WidgetInput: the input source that lets a ``UserAgent`` wait for a person typing in a chat.

chat = ChatWidget(agent)
user = UserAgent("User", chat.input_source())

async def loop():
    msg = None
    while True:
        msg = await user(msg)
        msg = await agent(msg)

task = asyncio.create_task(loop())   # the cell returns at once; the person types
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from nb_hitl.agent import QueueInput
from nb_hitl.message import Msg


class WaitingDisplay(Protocol):
    """What ``WidgetInput`` needs from its chat (``ChatWidget``).

    It shows "waiting for you", and says when the loop reading the input stopped. A protocol
    rather than an import keeps ``_input`` below ``_chat`` (no import cycle).
    """

    def _set_waiting(self, waiting: bool, prompt: Msg | None = None) -> None: ...

    def _input_source_gone(self) -> None: ...


class WidgetInput(QueueInput):
    """A ``QueueInput`` fed by a ``ChatWidget``'s Send; shows "waiting for you" while awaited."""

    def __init__(self, chat: WaitingDisplay) -> None:
        super().__init__()
        self._chat = chat
        self.waiting_for_person = False
        """True while a ``UserAgent`` awaits this source and nothing is queued."""
        self.gone = False
        """True when the last wait was cancelled (the conversation loop stopped): until a new
        wait begins, the chat sends to its agent directly instead of into this source."""

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        """Return the next message the person sends (at once if one is queued)."""
        self.gone = False
        if self.waiting == 0:
            self.waiting_for_person = True
            self._chat._set_waiting(True, prompt)
        try:
            return await super().__call__(prompt)
        except asyncio.CancelledError:
            self.gone = True
            raise
        finally:
            if self.waiting_for_person:
                self.waiting_for_person = False
                self._chat._set_waiting(False)
            if self.gone:
                self._chat._input_source_gone()


__all__ = ["WidgetInput"]
