"""The chat's everyday controls: Retry after an error, Clear (undoable), Export, the context
gauge, and a transcript row for each compression with its Undo.

``ChatTools`` is what the row of buttons under the status line does (the buttons are drawn by
the chat's controls, ``_controls.py``); ``CompressionRows`` draws what a
compression folded and undoes it. Both read the agent only through public methods and events
(``agent(None)`` replies to what memory holds, ``compression_plan()``, ``undo_compression()``,
``memory.snapshot()`` / ``restore()``) and run on the chat's loop (``LoopBridge``).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import ipywidgets as w

from nb_hitl._render import esc, preview
from nb_hitl.events import CompressionFinished, CompressionStarted, CompressionUndone, Event

from ._export import EXPORT_FORMATS, ExportFormat, export_transcript
from ._loop import LoopBridge
from ._row import Row, RowButton
from ._transcript import Entry, Transcript

if TYPE_CHECKING:
    from nb_hitl.message import Msg

    from ._controls import ChatControls

GAUGE_DELAY = 0.1
"""Seconds the context gauge waits after a new message before it recounts (a burst of
messages is counted once); the end of a reply, a compression and new settings count at once."""


class ChatLike(Protocol):
    """What these controls use of their chat (``ChatWidget`` has it all; not imported here, as
    the chat imports this module)."""

    agent: Any
    transcript: Transcript
    _bridge: LoopBridge

    def say(self, text: str, error: bool = False) -> None: ...

    def after_clear(self) -> None: ...

    def retry(self) -> bool: ...

    def clear(self) -> bool: ...

    def append_widget(
        self, widget: w.Widget | Row, key: str | None = None, *, after: str | None = None
    ) -> str: ...


class ChatTools:
    """Retry (after a model error), Clear / Undo clear, Export as Markdown or HTML.

    The buttons are parts of the chat's controls (``ChatControls``: ``.nb-hitl-chat-tools``
    in the page, under the status line); this is what they do.

    Args:
        chat: the chat these controls act on.
        controls: where they are drawn.
    """

    def __init__(self, chat: ChatLike, controls: ChatControls) -> None:
        self.chat = chat
        self.controls = controls
        on = chat._bridge.callback
        self.retry_button = controls.retry_button
        self.retry_button.tooltip = "Ask the agent again: it replies to what its memory holds"
        self.clear_button = controls.clear_button
        self.clear_button.tooltip = "Clear the chat and the agent's memory"
        self.export_format = controls.export_format
        self.export_button = controls.export_button
        self.export_button.tooltip = "Save the transcript as a file next to the notebook"
        self.retry_button.on_click(on(lambda _b: chat.retry()))
        self.clear_button.on_click(on(lambda _b: chat.clear()))
        self.export_button.on_click(on(lambda _b: self._export_clicked()))
        self._cleared: tuple[Any, list[Entry], str] | None = None

    def show_retry(self, shown: bool) -> None:
        """Show Retry (after a model error) or hide it."""
        self.retry_button.hidden = not shown

    # -- clear -----------------------------------------------------------------------------------
    def clear(self) -> bool:
        """Empty the transcript and the agent's memory; the row left behind undoes it."""
        chat, memory = self.chat, getattr(self.chat.agent, "memory", None)
        if chat.agent.is_replying:
            chat.say("Stop the reply first: a running reply cannot be cleared.")
            return False
        if memory is None or not hasattr(memory, "snapshot"):
            chat.say("This agent's memory cannot be cleared from the panel.")
            return False
        n = len(memory.messages)
        snapshot = memory.snapshot()
        memory.restore([], {}, "")
        entries = chat.transcript.clear()
        key = "cleared-" + str(id(snapshot))
        row = Row(
            key,
            '<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event">'
            f"Chat cleared: {n:,} message{'' if n == 1 else 's'} removed from the agent's "
            "memory.</div>",
            "nb-hitl-cleared",
        )
        undo = row.button(  # hidden once a message is sent
            "undo_clear", "Undo clear", icon="undo", tooltip="Bring the chat back",
            cls="nb-hitl-undo-clear",
        )  # fmt: skip
        undo.on_click(lambda _b: self.undo_clear())
        chat.transcript.add(Entry(key, None, row))
        self._cleared = (snapshot, entries, key)
        chat.say("")  # a note about the old transcript (an export...) no longer applies
        chat.after_clear()
        return True

    def undo_clear(self) -> bool:
        """Bring back what ``clear()`` removed (only while nothing new was said since)."""
        chat, memory = self.chat, getattr(self.chat.agent, "memory", None)
        if self._cleared is None or memory is None:
            chat.say("Nothing to undo.")
            return False
        if chat.agent.is_replying or memory.messages:
            chat.say(
                "Cannot undo the clear: the chat has new messages since. Clear again to start over."
            )
            return False
        snapshot, entries, key = self._cleared
        self._cleared = None
        memory.restore(*snapshot)
        chat.transcript.remove(key, render=False)
        chat.transcript.restore(entries)
        chat.say("")
        chat.after_clear()
        return True

    def forget_clear(self) -> None:
        """A new message was sent: the clear can no longer be undone; its row says so."""
        if self._cleared is None:
            return
        _, _, key = self._cleared
        self._cleared = None
        entry = self.chat.transcript.get(key)
        if entry is not None and isinstance(entry.view, Row):
            for button in entry.view.buttons:
                button.hide()

    # -- export ----------------------------------------------------------------------------------
    def export(self, path: str | Path | None = None, fmt: ExportFormat | None = None) -> Path:
        """Write the transcript (the messages shown) to ``path`` (default: a new file next to
        the notebook) as Markdown or HTML; returns the path."""
        chosen = fmt or self.export_format.value
        if chosen not in EXPORT_FORMATS:
            raise ValueError(f"format must be 'markdown' or 'html', got {chosen!r}.")
        msgs: list[Msg] = [e.msg for e in self.chat.transcript.entries if e.msg is not None]
        name = self.chat.agent.name
        fmt_ = cast("ExportFormat", chosen)
        return export_transcript(msgs, path, fmt_, title=f"Chat with {name}", stem=f"{name}-chat")

    def _export_clicked(self) -> None:
        try:
            path = self.export()
        except (OSError, ValueError) as exc:
            self.chat.say(f"Export failed: {exc}", error=True)
            return
        n = sum(1 for e in self.chat.transcript.entries if e.msg is not None)
        self.chat.say(f"Saved {n:,} messages to {path.resolve()} (next to the notebook).")


class CompressionRows:
    """A transcript row per compression: what was folded, tokens before -> after, and Undo.

    Only the newest compression not yet undone can be undone (``undo_compression()`` takes
    back the last one), so only its row's Undo is on.
    """

    def __init__(self, chat: ChatLike) -> None:
        self.chat = chat
        self.rows: list[tuple[Row, RowButton, bool]] = []
        """``(text, undo button, undone)`` per compression, oldest first."""
        self._trigger = "auto"

    def on_event(self, ev: Event) -> None:
        """Follow the compression events of the chat's agent."""
        if isinstance(ev, CompressionStarted):
            self._trigger = ev.trigger
        elif isinstance(ev, CompressionFinished):
            self._add(ev)
        elif isinstance(ev, CompressionUndone):
            live = [i for i, row in enumerate(self.rows) if not row[2]]
            if live:
                text, button, _ = self.rows[live[-1]]
                self.rows[live[-1]] = (text, button, True)
                button.description = "Undone"
                text.value = text.value.replace("nb-hitl-event", "nb-hitl-event nb-hitl-undone", 1)
            self._buttons()

    def _add(self, ev: CompressionFinished) -> None:
        memory = getattr(self.chat.agent, "memory", None)
        held = {m.id: m for m in memory.messages} if memory is not None else {}
        folded = [held[i] for i in ev.compressed_ids if i in held]
        items = "".join(
            f"<li><b>{esc(m.name)}</b>: {esc(preview(m.get_text_content() or _kind(m), 90))}</li>"
            for m in folded[:50]
        )
        more = f"<li>… and {len(folded) - 50} more</li>" if len(folded) > 50 else ""
        n = len(ev.compressed_ids)
        how = "Compressed now" if self._trigger == "manual" else "Memory compressed"
        key = "compression-" + uuid.uuid4().hex[:12]
        text = Row(
            key,
            f'<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event nb-hitl-compression" '
            f'data-before="{int(ev.tokens_before)}" data-after="{int(ev.tokens_after)}">'
            f"{how}: {n} earlier message{'' if n == 1 else 's'} folded into a summary "
            f"({int(ev.tokens_before):,} → {int(ev.tokens_after):,} tokens)."
            f"<details><summary>what was folded</summary><ol>{items}{more}</ol>"
            f"<small>The summary now in the prompt:</small>"
            f'<div style="white-space:pre-wrap">{esc(preview(ev.summary, 2000))}</div>'
            "</details></div>",
            "nb-hitl-compression-row",
        )
        button = text.button(
            "undo", "Undo", icon="undo", tooltip="Bring the folded messages back",
            cls="nb-hitl-undo-compression",
        )  # fmt: skip
        button.on_click(lambda _b: self.undo())
        self.rows.append((text, button, False))
        self.chat.append_widget(text, key)
        self._buttons()

    def _buttons(self) -> None:
        newest = max((i for i, row in enumerate(self.rows) if not row[2]), default=-1)
        busy = self.chat.agent.is_replying
        for i, (_, button, undone) in enumerate(self.rows):
            button.disabled = undone or i != newest or busy

    def refresh(self) -> None:
        """Enable the newest row's Undo (the agent went idle) or disable it (a reply runs)."""
        self._buttons()

    def undo(self) -> asyncio.Task[Any] | None:
        """Undo the newest compression (``agent.undo_compression()``)."""
        agent = self.chat.agent
        if agent.is_replying:
            self.chat.say("Wait for the reply to finish (or press Stop) before undoing.")
            return None
        fn = getattr(agent, "undo_compression", None)
        if fn is None:
            return None
        return self.chat._bridge.spawn(self._undo(fn))

    async def _undo(self, fn: Any) -> None:
        if not await fn():
            self.chat.say("Nothing to undo: memory changed since this compression.")


def _kind(msg: Msg) -> str:
    kinds = [b.type for b in msg.get_content_blocks()]
    return ", ".join(dict.fromkeys(kinds)) or "(empty)"


def context_gauge(agent: Any) -> tuple[int, int | None, bool] | None:
    """``(prompt tokens of the next model call, compression threshold, automatic compression
    on)``, or None when the agent cannot plan (no ``compression_plan()``)."""
    fn = getattr(agent, "compression_plan", None)
    if fn is None or getattr(agent, "memory", None) is None:
        return None
    try:
        plan = fn()
    except ValueError:
        return None
    cfg = getattr(agent, "compression_config", None)
    if cfg is None:
        return int(plan.total_tokens), None, False
    return int(plan.total_tokens), int(cfg.trigger_threshold), bool(cfg.enable)


__all__ = ["GAUGE_DELAY", "ChatTools", "CompressionRows", "context_gauge"]
