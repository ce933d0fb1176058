"""One AG-UI run's events turned into nb_hitl's events and memory (``RunMapper``).

Text and tool-call events build one *live* assistant message at a time (``MessageUpdated``
as it grows, like a local model stream); it is committed to memory (``MessageAdded``) at the
next boundary: another message starts, a tool result or snapshot arrives, the run ends.
Tool results become tool-result messages; ``MESSAGES_SNAPSHOT`` reconciles memory with the
server's history; ``STATE_SNAPSHOT`` / ``STATE_DELTA`` keep ``agent.remote_state``.

The server is not trusted: events out of order are taken as far as they make sense (text for
a message that never started starts it; an end or arguments for something unknown is
skipped), a tool result for a call nobody made is skipped (memory stays a valid history), and
every skip is told to the person once per kind (``Notice``) instead of crashing anything.
"""

from __future__ import annotations

from typing import Any

from nb_hitl.events import MessageUpdated, Notice, ToolCallStarted, ToolResultReady
from nb_hitl.exceptions import RemoteAgentError
from nb_hitl.message import Msg, Role, TextBlock, ToolResultBlock, ToolUseBlock

from ._convert import parse_arguments
from ._sse import Skipped
from ._state import apply_patch

ROLES: dict[str, Role] = {
    "assistant": "assistant",
    "user": "user",
    "system": "system",
    "developer": "system",
}

SKIP_NOTE = {
    "json": "The server sent events that are not JSON; they were skipped",
    "shape": "The server sent events that are not AG-UI events; they were skipped",
    "unknown": "The server sent event types AG-UI does not define; they were skipped",
    "invalid": "The server sent malformed AG-UI events; they were skipped",
    "order": "The server sent events out of order; those that made no sense were skipped",
    "state": "The server sent a state change that does not apply; the state shown may be stale",
}


class RunMapper:
    """Feeds one run's AG-UI events into ``agent`` (its memory and its event bus)."""

    def __init__(self, agent: Any, max_message_chars: int) -> None:
        """``agent``: the ``RemoteAgent`` (its memory, event bus and state are fed)."""
        self.agent = agent
        self.max_message_chars = max_message_chars
        self.live: Msg | None = None
        """The message being streamed (not yet in memory)."""
        self.calls: dict[str, ToolUseBlock] = {}
        """Every tool call this run streamed, by id."""
        self._raw_args: dict[str, str] = {}
        self.run_id: str | None = None
        self.outcome: Any = None
        self.finished = False
        self.result: Msg | None = None
        """The last assistant message committed in this run."""
        self.committed: list[str] = []
        self.skipped: dict[str, int] = {}
        self.pieces = 0

    # -- the boundary of a message ----------------------------------------------------------
    def commit_live(self) -> None:
        """Put the live message in memory (if it holds anything)."""
        live, self.live = self.live, None
        if live is None or not live.get_content_blocks():
            return
        if not any(b.type != "text" or b.text for b in live.get_content_blocks()):
            return
        self.commit(live)

    def commit(self, msg: Msg) -> None:
        self.agent.mirror.commit(msg)
        self.committed.append(msg.id)
        if msg.role == "assistant":
            self.result = msg

    def skip(self, kind: str, why: str) -> None:
        seen = self.skipped.get(kind, 0)
        self.skipped[kind] = seen + 1
        if seen == 0:
            text = f"{SKIP_NOTE.get(kind, 'Skipped server events')} (first: {why})."
            self.agent.emit(Notice(self.agent.name, self.agent.reply_id, text))

    def summary(self) -> None:
        """At the end of a run: how many events were skipped, when more than one."""
        total = sum(self.skipped.values())
        if total > 1:
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.skipped.items()))
            self.agent.emit(
                Notice(
                    self.agent.name,
                    self.agent.reply_id,
                    f"{total} server events were skipped in this run ({kinds}).",
                )
            )

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, event: Any) -> None:
        """Take one parsed event (an SDK model, or ``Skipped``)."""
        if isinstance(event, Skipped):
            self.skip(event.kind, event.why)
            return
        kind = getattr(getattr(event, "type", None), "value", str(getattr(event, "type", "")))
        handler = getattr(self, "_on_" + kind.lower(), None)
        if handler is not None:
            handler(event)

    def _start(
        self,
        message_id: str | None,
        role: str = "assistant",
        name: str | None = None,
        metadata: Any = None,
    ) -> Msg:
        if self.live is not None and self.live.id == message_id:
            return self.live
        self.commit_live()
        meta = dict(metadata) if isinstance(metadata, dict) else {}
        msg = Msg(
            str(name or (self.agent.name if role == "assistant" else "User"))[:200],
            [TextBlock(text="")],
            ROLES.get(role, "assistant"),
            metadata=meta,
        )
        if message_id:
            msg.id = str(message_id)
        self.live = msg
        return msg

    def _grow(self, msg: Msg, delta: str) -> None:
        blocks = msg.get_content_blocks()
        text = blocks[-1] if blocks and isinstance(blocks[-1], TextBlock) else None
        if text is None:
            text = TextBlock(text="")
            msg.content = [*blocks, text]
        if len(text.text) + len(delta) > self.max_message_chars:
            raise RemoteAgentError(
                f"The server streamed a message longer than {self.max_message_chars:,} "
                "characters; the run was stopped (RemoteAgent(max_message_chars=...)).",
                kind="protocol",
            )
        text.text += delta
        self.pieces += 1
        if msg.role == "assistant":
            self.agent.emit(
                MessageUpdated(self.agent.name, self.agent.reply_id, msg, delta, self.pieces)
            )

    def _on_run_started(self, ev: Any) -> None:
        self.run_id = str(ev.run_id)

    def _on_text_message_start(self, ev: Any) -> None:
        self._start(ev.message_id, ev.role or "assistant", ev.name, ev.metadata)
        self.agent.where = "streaming"

    def _on_text_message_content(self, ev: Any) -> None:
        live = self.live if self.live is not None and self.live.id == ev.message_id else None
        if live is None:
            if ev.message_id in self.committed:
                self.skip("order", f"text for the finished message {ev.message_id!r}")
                return
            live = self._start(ev.message_id)
        self._grow(live, ev.delta)

    def _on_text_message_chunk(self, ev: Any) -> None:
        live = self._start(
            ev.message_id or (self.live.id if self.live else None), ev.role or "assistant", ev.name
        )
        if ev.delta:
            self._grow(live, ev.delta)

    def _on_text_message_end(self, ev: Any) -> None:
        live = self.live
        if live is None or live.id != ev.message_id:
            return  # an end for nothing (or repeated): nothing to close
        if isinstance(ev.metadata, dict):
            live.metadata.update(ev.metadata)
        if live.role != "assistant":  # a user or system message is whole: commit it now
            self.commit_live()

    def _on_tool_call_start(self, ev: Any) -> None:
        self._begin_call(str(ev.tool_call_id), str(ev.tool_call_name), ev.parent_message_id)

    def _begin_call(self, call_id: str, name: str, parent: str | None) -> None:
        live = self.live
        if live is None or (parent and live.id != parent) or live.role != "assistant":
            live = self._start(parent)
        call = ToolUseBlock(id=call_id, name=name[:200], input={}, raw_input="")
        live.content = [*live.get_content_blocks(), call]
        self.calls[call.id] = call
        self._raw_args[call.id] = ""
        self.agent.where = f"streaming the arguments of {call.name}"

    def _call_block(self, call_id: str) -> ToolUseBlock | None:
        live = self.live
        for block in live.get_content_blocks("tool_use") if live is not None else []:
            if block.id == call_id:
                return block
        return None

    def _on_tool_call_args(self, ev: Any) -> None:
        self._add_args(str(ev.tool_call_id), ev.delta)

    def _add_args(self, call_id: str, delta: str) -> None:
        block = self._call_block(call_id)
        if block is None or block.raw_input is None:
            self.skip("order", f"arguments for the unknown tool call {call_id!r}")
            return
        raw = self._raw_args[block.id] + delta
        if len(raw) > self.max_message_chars:
            raise RemoteAgentError(
                "The server streamed tool-call arguments that are too long; the run was stopped.",
                kind="protocol",
            )
        self._raw_args[block.id] = block.raw_input = raw
        assert self.live is not None
        self.agent.emit(
            MessageUpdated(self.agent.name, self.agent.reply_id, self.live, "", self.pieces)
        )

    def _on_tool_call_chunk(self, ev: Any) -> None:
        call_id = ev.tool_call_id or next(reversed(self.calls), None)
        if call_id is None:
            self.skip("order", "a tool-call chunk without a call id")
            return
        if self._call_block(str(call_id)) is None and ev.tool_call_name:
            self._begin_call(str(call_id), str(ev.tool_call_name), ev.parent_message_id)
        if ev.delta:
            self._add_args(str(call_id), ev.delta)

    def _on_tool_call_end(self, ev: Any) -> None:
        block = self._call_block(str(ev.tool_call_id))
        if block is None or block.raw_input is None:
            return
        args, raw = parse_arguments(self._raw_args.get(block.id, ""))
        block.input, block.raw_input = args, raw
        self.agent.emit(ToolCallStarted(self.agent.name, self.agent.reply_id, block))

    def _on_tool_call_result(self, ev: Any) -> None:
        self.commit_live()
        call_id = str(ev.tool_call_id)
        call = self.calls.get(call_id) or self.agent.mirror.call_in_memory(call_id)
        if call is None:
            self.skip("order", f"a result for the unknown tool call {call_id!r}")
            return
        block = ToolResultBlock(id=call_id, name=call.name, output=str(ev.content))
        msg = Msg("system", [block], "system", id=str(ev.message_id))
        self.commit(msg)
        self.agent.emit(ToolResultReady(self.agent.name, self.agent.reply_id, block))

    def _on_messages_snapshot(self, ev: Any) -> None:
        live = self.live
        if live is not None and live.id in {str(m.id) for m in ev.messages}:
            # The server's own version of the message being streamed wins (ag-ui-langgraph,
            # for one, streams no arguments for a tool call made in one chunk): the live row
            # is finished with it when the snapshot adds it.
            self.live = None
            self.committed.append(live.id)
            self.agent.mirror.reconcile(list(ev.messages))
            final = self.agent.memory.get(live.id)
            if final is not None and final.role == "assistant":
                self.result = final
            return
        self.commit_live()
        self.agent.mirror.reconcile(list(ev.messages))

    def _on_state_snapshot(self, ev: Any) -> None:
        self.agent.remote_state = ev.snapshot

    def _on_state_delta(self, ev: Any) -> None:
        try:
            self.agent.remote_state = apply_patch(self.agent.remote_state, ev.delta)
        except ValueError as exc:
            self.skip("state", str(exc))

    def _on_step_started(self, ev: Any) -> None:
        self.agent.where = f"step {str(ev.step_name)[:80]}"

    def _on_run_finished(self, ev: Any) -> None:
        self.commit_live()
        self.outcome = ev.outcome
        self.finished = True

    def _on_run_error(self, ev: Any) -> None:
        self.finished = True
        code = f" [{ev.code}]" if ev.code else ""
        raise RemoteAgentError(
            f"The agent server reported an error{code}: {ev.message}",
            kind="run_error",
            code=ev.code,
        )


__all__ = ["RunMapper"]
