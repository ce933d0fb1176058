"""Streaming one model call into the live message, as ``ReActAgent`` draws partial answers.

The live message (``agent._live``) grows chunk by chunk; every chunk emits ``MessageUpdated``
with the new text as its delta, and an interrupt finds the message there (``handle_interrupt``
keeps its text as the partial answer). A continuation (``resume()``) streams after a prefix:
the partial text shows first and the model's text follows it (``continuation_blocks``).
"""

from __future__ import annotations

from typing import Any

from nb_hitl.events import MessageUpdated
from nb_hitl.message import Msg, TextBlock
from nb_hitl.model import ChatModelBase, ChatResponse
from nb_hitl.model._continuation import continuation_blocks

from ._base import AgentBase


class StreamingMixin(AgentBase):
    """``_stream_model``: one model call streamed into ``self._live`` (mixed into ReActAgent)."""

    model: ChatModelBase
    _live: Msg | None

    def _printing(self) -> bool:
        return self._print_wanted()

    async def _stream_model(
        self,
        prompt: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: str | None = None,
        *,
        prefix: str | None = None,
        model_kwargs: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Msg:
        """Stream one model call into the live message (and return it, not yet recorded).

        With ``prefix`` (a continuation, ``resume()``), the model's text is the rest of
        ``prefix``: the live message shows ``prefix`` followed by it (a repeat of ``prefix`` by
        a model that started over is dropped), and each update's delta is only the new text.
        """
        blocks: list[Any] = [TextBlock(text=prefix)] if prefix else []
        live = Msg(self.name, blocks, "assistant", metadata=dict(metadata or {}))
        self._live = live
        self._where = "streaming"
        choice: dict[str, Any] = (
            {} if tool_choice is None or not tools else {"tool_choice": tool_choice}
        )
        stream = self.model(prompt, tools=tools, **choice, **(model_kwargs or {}))
        printing = self._printing()
        last: ChatResponse | None = None
        text_len = len(prefix or "")
        pieces = 0
        try:
            async for chunk in stream:
                last = chunk
                pieces += 1
                blocks = [b.model_copy() for b in chunk.content]
                if prefix is not None:
                    blocks = continuation_blocks(prefix, blocks, complete=chunk.is_last)
                live.content = blocks
                text = live.get_text_content() or ""
                delta, text_len = text[text_len:], len(text)
                if any(b.type == "tool_use" and b.raw_input is not None for b in chunk.content):
                    self._where = "streaming tool-call arguments"
                self._emit(MessageUpdated(self.name, self._reply_id, live, delta, pieces))
                if printing:
                    await self.print(live, False)
        finally:
            await stream.aclose()  # closes HTTP streams at once on interrupt or error
        if prefix is not None and last is not None:
            # the model's own blocks: live's hold the prefix already (joined twice, doubled)
            blocks = [b.model_copy() for b in last.content]
            live.content = continuation_blocks(prefix, blocks, complete=True)
        if last is not None and last.usage is not None:
            live.usage = last.usage.model_dump()
        self._live = None
        return live


__all__ = ["StreamingMixin"]
