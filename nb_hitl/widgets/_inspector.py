"""MemoryInspector: what the agent remembers, what it costs, and what compression would do.

It reads the agent only through public methods (``agent.memory`` read-only views,
``agent.compression_plan()``, ``compress_memory()``, ``undo_compression()``, ``pin()``,
``unpin()``) and events. The what-if sliders only call ``compression_plan(trigger_threshold=,
keep_recent=)``, which is sync and cheap and never calls the model. Refreshes triggered by agent
events and memory changes are throttled to one per ``refresh_interval``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import CSS
from nb_hitl.agent import ScriptedSummary
from nb_hitl.events import CompressionConfigChanged, Event, ReplyFinished

from ._inspector_chart import Step, StepsChart
from ._inspector_draw import InspectorDrawing
from ._keys import KeyBindings
from ._live import html
from ._look import look
from ._loop import LoopBridge, WidgetRegistry
from ._memory_table import row_id
from ._plan_view import (
    outcome_text,
)
from ._what_if import note_html, slider_pair

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase


REPLACED_NOTE = "This inspector no longer follows the agent: a newer one was created for it."
_INSPECTORS = WidgetRegistry()
"""The newest MemoryInspector of each agent."""

MIN_DELAY = 0.05
"""Seconds an event-driven refresh waits at least (the chat's own updates go first)."""


class MemoryInspector(InspectorDrawing, w.VBox):
    """Memory, token counts, the live compression plan and its controls, for one agent.

    Args:
        agent: the agent to inspect (a ``ReActAgent`` with ``compression_config`` for the plan).
        max_rows: most recent messages listed (all behind "Show all").
        refresh_interval: the least time between event-driven refreshes, in seconds.
        css: include the stylesheet (``AgentPanel`` includes it once for both halves).
    """

    def __init__(
        self,
        agent: AgentBase,
        *,
        max_rows: int = 200,
        refresh_interval: float = 0.5,
        css: bool = True,
    ) -> None:
        self.agent = agent
        self.max_rows = max_rows
        self.refresh_interval = refresh_interval
        self._bridge = LoopBridge()
        self._bridge.on_error = lambda exc: self._say(f"{type(exc).__name__}: {exc}", error=True)
        self.plan: Any | None = None
        """The compression plan last drawn (``CompressionPlan``), or None without compression."""
        self.refreshes = 0
        self._show_all = False
        self._refresh_handle: asyncio.TimerHandle | None = None
        self._last_refresh = 0.0
        self._history = StepsChart()
        self._scripted = ScriptedSummary()
        self.explorer: Any | None = None
        """The ``CompressionExplorer`` opened with *Explore settings* (None until then)."""
        self.detached = False
        """True once a newer inspector for the same agent took over (its controls stay off)."""

        first = self._compute_plan(None, None)
        threshold = int(first.trigger_threshold or 0) if first is not None else 0
        keep = int(first.keep_recent) if first is not None else 0
        self._header = html()
        self._approx = html()
        self._bar = html()
        self.threshold_slider, self.threshold_box = slider_pair(
            "threshold", threshold, 0, max(threshold * 2, 1000), 10**9, self._bridge
        )
        self.keep_slider, self.keep_box = slider_pair(
            "keep_recent", keep, 0, max(keep * 2, 20), 10**7, self._bridge
        )
        for slider in (self.threshold_slider, self.keep_slider):
            slider.observe(self._bridge.callback(lambda _ch: self._what_if_changed()), "value")
        self._plan_html = html()
        self.compress_button = w.Button(
            description="Compress now", icon="compress", **look(w.Button)
        )
        self.undo_button = w.Button(description="Undo", icon="undo", **look(w.Button))
        self.reset_button = w.Button(description="Reset what-if", icon="refresh", **look(w.Button))
        self.pin_ref = w.Text(
            placeholder="row # or message id", **look(w.Text, layout={"width": "160px"})
        )
        self.pin_button = w.Button(
            description="Pin", icon="thumb-tack", tooltip="Pin (Enter)", **look(w.Button)
        )
        self.pin_ref.add_class("nb-hitl-pin-ref")  # Enter in it presses Pin (see _keys.py)
        self.pin_button.add_class("nb-hitl-pin")
        self.unpin_button = w.Button(description="Unpin", **look(w.Button))
        self.show_all_button = w.ToggleButton(
            description="Show all rows", value=False, **look(w.ToggleButton)
        )
        self.explore_button = w.Button(
            description="Explore settings",
            icon="line-chart",
            tooltip="Replay this conversation under any threshold and keep_recent, and sweep",
            **look(w.Button),
        )
        self.explore_button.on_click(self._bridge.callback(lambda _b: self.open_explorer()))
        self.compress_button.on_click(self._bridge.callback(lambda _b: self.compress_now()))
        self.undo_button.on_click(self._bridge.callback(lambda _b: self.undo()))
        self.reset_button.on_click(self._bridge.callback(lambda _b: self.reset_what_if()))
        self.pin_button.on_click(self._bridge.callback(lambda _b: self.pin(self.pin_ref.value)))
        self.unpin_button.on_click(self._bridge.callback(lambda _b: self.unpin(self.pin_ref.value)))
        self.show_all_button.observe(
            self._bridge.callback(lambda ch: self._set_show_all(bool(ch["new"]))), "value"
        )
        self._note = html()
        self._table = html()
        self._table.add_class("nb-hitl-table-box")  # a long memory scrolls in its own box
        self._chart = self._history.view
        controls = w.VBox(
            [
                w.HBox([self.threshold_slider, self.threshold_box], **look(w.HBox)),
                w.HBox([self.keep_slider, self.keep_box], **look(w.HBox)),
                w.HBox(
                    [
                        self.compress_button,
                        self.undo_button,
                        self.reset_button,
                        self.explore_button,
                    ],
                    **look(w.HBox),
                ),
                w.HBox(
                    [self.pin_ref, self.pin_button, self.unpin_button, self.show_all_button],
                    **look(w.HBox),
                ),
                KeyBindings(
                    "nb-hitl-inspector",
                    [{"key": "Enter", "within": ".nb-hitl-pin-ref", "click": ".nb-hitl-pin"}],
                    self._bridge,
                    inactive_scope="",
                ),
            ],
            **look(w.VBox),
        )
        top: list[w.Widget] = [html(CSS)] if css else []
        super().__init__(
            children=[
                *top,
                self._header,
                self._approx,
                self._bar,
                self._plan_html,
                controls,
                self._note,
                self._chart,
                self._table,
            ]
        )
        self.add_class("nb-hitl-inspector")
        if first is None:
            for ctl in (self.threshold_slider, self.threshold_box, self.keep_slider):
                ctl.disabled = True
            self.keep_box.disabled = True
            self.compress_button.disabled = self.undo_button.disabled = True
            self.explore_button.disabled = True
            self.pin_button.disabled = self.unpin_button.disabled = True
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))
        _INSPECTORS.replace(agent, self, REPLACED_NOTE)
        memory = getattr(agent, "memory", None)
        self._remove_listener = (
            memory.add_listener(lambda _m: self._bridge.call(self.schedule_refresh))
            if memory is not None and hasattr(memory, "add_listener")
            else None
        )
        if first is not None:  # the chart's first points, drawn by the refresh below
            self._history.start(agent, int(first.total_tokens))
        self.refresh()

    # -- public API --------------------------------------------------------------------------
    @property
    def agent_settings(self) -> tuple[int, int]:
        """The agent's own ``(trigger_threshold, keep_recent)`` now (0: no threshold).

        Read from the agent each time (it is the one source of truth); the sliders follow it
        on every ``CompressionConfigChanged`` event.
        """
        cfg = getattr(self.agent, "compression_config", None)
        if cfg is None:
            return 0, 3
        return int(cfg.trigger_threshold or 0), int(cfg.keep_recent)

    @property
    def is_what_if(self) -> bool:
        """True while the sliders show settings other than the agent's."""
        return self.plan is not None and (self.threshold, self.keep_recent) != self.agent_settings

    def reset_what_if(self) -> None:
        """Put the sliders back to the agent's current settings."""
        self.threshold, self.keep_recent = self.agent_settings

    def compress_now(self) -> asyncio.Task[Any] | None:
        """Compress memory now as the plan shows it; returns the task.

        ``agent.compress_memory(force=True, keep_recent=<the slider's>)``: what the inspector
        predicts is what happens, what-if ``keep_recent`` included (the agent's settings are
        not changed by it).
        """
        if not hasattr(self.agent, "compress_memory"):
            self._say("This agent has no compression.", error=True)
            return None
        if self.agent.is_replying:
            self._say("Wait for the reply to finish (or press Stop) before compressing.")
            return None
        self._say("Compressing…")
        return self._bridge.spawn(
            self._call("compress_memory", force=True, keep_recent=self.keep_recent)
        )

    def undo(self) -> asyncio.Task[Any] | None:
        """Undo the last compression (``agent.undo_compression()``); returns the task."""
        if not hasattr(self.agent, "undo_compression"):
            self._say("This agent has no compression.", error=True)
            return None
        if self.agent.is_replying:
            self._say("Wait for the reply to finish (or press Stop) before undoing.")
            return None
        return self._bridge.spawn(self._call("undo_compression"))

    def pin(self, ref: str | int) -> bool:
        """Pin a message (by row number or id) so compression never folds it."""
        return self._pin(ref, "pin")

    def unpin(self, ref: str | int) -> bool:
        """Remove a pin (by row number or id)."""
        return self._pin(ref, "unpin")

    def open_explorer(self) -> Any:
        """Show a ``CompressionExplorer`` for this agent below the controls (built once)."""
        if self.explorer is None:
            from ._explorer import CompressionExplorer

            self.explorer = CompressionExplorer(self.agent, css=False)
            children: list[Any] = list(getattr(self, "children", ()))
            children.insert(children.index(self._note), self.explorer)
            self.children = tuple(children)
        return self.explorer

    def schedule_refresh(self) -> None:
        """Refresh soon, at most once per ``refresh_interval``.

        Never sooner than ``MIN_DELAY``: a memory change usually comes with a chat update
        (an interrupted message, a finished reply) that should reach the screen first.
        """
        if self._refresh_handle is None:
            delay = self._last_refresh + self.refresh_interval - time.monotonic()
            self._refresh_handle = self._bridge.later(max(MIN_DELAY, delay), self.refresh)

    def refresh(self) -> None:
        """Recompute the plan for the current sliders and redraw everything."""
        if self._refresh_handle is not None:
            self._refresh_handle.cancel()
            self._refresh_handle = None
        self._last_refresh = time.monotonic()
        self.refreshes += 1
        self.plan = self._compute_plan(self.threshold or None, self.keep_recent)
        self._history.count_due(int(self.plan.total_tokens) if self.plan is not None else None)
        self._draw()

    def detach(self, reason: str = "") -> None:
        """Stop following the agent and its memory (a newer inspector took over)."""
        if getattr(self, "_sub", None) is not None:
            self._sub.close()
        if getattr(self, "_remove_listener", None) is not None:
            self._remove_listener()  # type: ignore[misc]
            self._remove_listener = None
        if getattr(self, "_refresh_handle", None) is not None:
            self._refresh_handle.cancel()  # type: ignore[union-attr]
            self._refresh_handle = None
        if reason:
            self.detached = True
            for ctl in (
                self.threshold_slider,
                self.threshold_box,
                self.keep_slider,
                self.keep_box,
                self.compress_button,
                self.undo_button,
                self.reset_button,
                self.pin_button,
                self.unpin_button,
            ):
                ctl.disabled = True
            self._say(reason)

    def close(self) -> None:
        """Stop listening to the agent and its memory, and close the widget (and its explorer)."""
        self.detach()
        if self.explorer is not None:
            self.explorer.close()
        super().close()

    # -- internals ---------------------------------------------------------------------------
    @property
    def _steps(self) -> list[Step]:
        """The chart's points so far (see ``StepsChart``)."""
        return self._history.steps

    @property
    def _points_due(self) -> list[tuple[str, str]]:
        """Chart points waiting for the next refresh."""
        return self._history.due

    def _compute_plan(self, threshold: int | None, keep: int | None) -> Any | None:
        fn = getattr(self.agent, "compression_plan", None)
        if fn is None or getattr(self.agent, "memory", None) is None:
            return None
        try:
            return fn(trigger_threshold=threshold, keep_recent=keep)
        except ValueError as exc:  # ConfigError for a what-if value the core refuses
            self._say(f"No plan for these settings: {exc}", error=True)
            return self.plan

    def _what_if_changed(self) -> None:
        if self.plan is not None:
            self.refresh()

    def _set_show_all(self, value: bool) -> None:
        self._show_all = value
        self._draw_table()

    def _say(self, text: str, error: bool = False) -> None:
        if hasattr(self, "_note"):
            self._note.value = note_html(text, error)

    async def _call(self, method: str, **kwargs: Any) -> Any:
        try:
            result = await getattr(self.agent, method)(**kwargs)
        except Exception as exc:  # shown, never raised into the comm handler
            self._say(f"{method} failed: {type(exc).__name__}: {exc}", error=True)
            return None
        self._say(outcome_text(method, result))
        self.refresh()
        return result

    def _pin(self, ref: str | int, action: str) -> bool:
        fn = getattr(self.agent, action, None)
        msg_id = row_id(self.agent.memory.messages, ref) if fn is not None else None
        if fn is None or msg_id is None:
            self._say(f"Cannot {action} {str(ref)[:40]!r}: give a row number or message id.")
            return False
        fn(msg_id)
        self._say(f"{action}ned message {msg_id}.")
        self.refresh()
        return True

    def _follow_settings(self, ev: CompressionConfigChanged) -> None:
        """The agent's settings changed (Apply in an explorer, code): every view follows."""
        new = self.agent_settings  # the agent's now: a later change may be on its way
        if (self.threshold, self.keep_recent) != new:
            self.threshold, self.keep_recent = new  # the sliders' observers refresh
        self.refresh()
        self._say(
            f"{self.agent.name}'s settings now: trigger_threshold {new[0]:,}, keep_recent {new[1]}."
        )

    def _on_event(self, ev: Event) -> None:
        name = type(ev).__name__
        if isinstance(ev, CompressionConfigChanged):
            if self.plan is not None and not self.detached:
                self._follow_settings(ev)
            return
        if isinstance(ev, ReplyFinished):
            self._history.turn_finished()
        elif name == "CompressionFinished":
            self._history.compressed(ev)
            self._draw_chart()
        elif name == "CompressionUndone":
            self._history.undone()
        elif name == "CompressionFailed":
            self._say(f"Compression failed: {getattr(ev, 'reason', '')}", error=True)
        if name in ("MessageAdded", "ReplyFinished", "Interrupted") or name.startswith(
            "Compression"
        ):
            self.schedule_refresh()


__all__ = ["MemoryInspector"]
