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

from nb_hitl.agent import ScriptedSummary
from nb_hitl.events import Event, ReplyFinished

from ._keys import KeyBindings
from ._live import html
from ._loop import LoopBridge, WidgetRegistry
from ._memory_table import memory_table
from ._plan_predict import scripted_after
from ._plan_view import approx_html, bar_html, header_html, plan_html
from ._render import CSS, esc
from ._svg import steps_chart

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.message import Msg


REPLACED_NOTE = "This inspector no longer follows the agent: a newer one was created for it."
_INSPECTORS = WidgetRegistry()
"""The newest MemoryInspector of each agent."""

CHART_STEPS = 300
"""The chart shows the latest this many points (a long memory's SVG stays small)."""
KEEP_SLIDER_STEPS = 100
"""The keep_recent slider spans at most this many messages; its number box goes further."""
MIN_DELAY = 0.05
"""Seconds an event-driven refresh waits at least (the chat's own updates go first)."""


class MemoryInspector(w.VBox):
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
        self._steps: list[tuple[str, int, str]] = []
        """Chart points: (kind, prompt tokens, hover text); see ``steps_chart``."""
        self._points_due: list[tuple[str, str]] = []
        self._turn = 0
        self._scripted = ScriptedSummary()
        self.explorer: Any | None = None
        """The ``CompressionExplorer`` opened with *Explore settings* (None until then)."""

        first = self._compute_plan(None, None)
        threshold = int(first.trigger_threshold or 0) if first is not None else 0
        keep = int(first.keep_recent) if first is not None else 0
        self._defaults = (threshold, keep)
        self._header = html()
        self._approx = html()
        self._bar = html()
        self.threshold_slider = w.IntSlider(
            value=threshold, min=0, max=max(threshold * 2, 1000), description="threshold"
        )
        self.threshold_box = w.BoundedIntText(
            value=threshold, min=0, max=10**9, layout={"width": "110px"}
        )
        self.keep_slider = w.IntSlider(
            value=keep, min=0, max=max(keep * 2, 20), description="keep_recent"
        )
        self.keep_box = w.BoundedIntText(value=keep, min=0, max=10**7, layout={"width": "110px"})
        for slider, box in (
            (self.threshold_slider, self.threshold_box),
            (self.keep_slider, self.keep_box),
        ):
            # A slider and its number box mirror each other; typing past the slider's end
            # extends the slider instead of being clamped.
            slider.observe(self._bridge.callback(self._mirror(box)), "value")
            box.observe(self._bridge.callback(self._mirror(slider)), "value")
            slider.observe(self._bridge.callback(lambda _ch: self._what_if_changed()), "value")
        self._plan_html = html()
        self.compress_button = w.Button(description="Compress now", icon="compress")
        self.undo_button = w.Button(description="Undo", icon="undo")
        self.reset_button = w.Button(description="Reset what-if", icon="refresh")
        self.pin_ref = w.Text(placeholder="row # or message id", layout={"width": "160px"})
        self.pin_button = w.Button(description="Pin", icon="thumb-tack", tooltip="Pin (Enter)")
        self.pin_ref.add_class("nb-hitl-pin-ref")  # Enter in it presses Pin (see _keys.py)
        self.pin_button.add_class("nb-hitl-pin")
        self.unpin_button = w.Button(description="Unpin")
        self.show_all_button = w.ToggleButton(description="Show all rows", value=False)
        self.explore_button = w.Button(
            description="Explore settings",
            icon="line-chart",
            tooltip="Replay this conversation under any threshold and keep_recent, and sweep",
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
        self._chart = html()
        controls = w.VBox(
            [
                w.HBox([self.threshold_slider, self.threshold_box]),
                w.HBox([self.keep_slider, self.keep_box]),
                w.HBox(
                    [
                        self.compress_button,
                        self.undo_button,
                        self.reset_button,
                        self.explore_button,
                    ]
                ),
                w.HBox([self.pin_ref, self.pin_button, self.unpin_button, self.show_all_button]),
                KeyBindings(
                    "nb-hitl-inspector",
                    [{"key": "Enter", "within": ".nb-hitl-pin-ref", "click": ".nb-hitl-pin"}],
                    self._bridge,
                    inactive_scope="",
                ),
            ]
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
        self.refresh()
        if self.plan is not None:
            self._steps = self._replayed_steps()
            self._steps.append(("turn", int(self.plan.total_tokens), "now"))
            self._draw_chart()

    # -- public API --------------------------------------------------------------------------
    @property
    def threshold(self) -> int:
        """The what-if ``trigger_threshold`` (the slider)."""
        return int(self.threshold_slider.value)

    @threshold.setter
    def threshold(self, value: int) -> None:
        if value > self.threshold_slider.max:
            self.threshold_slider.max = int(value * 1.5)
        self.threshold_slider.value = int(value)

    @property
    def keep_recent(self) -> int:
        """The what-if ``keep_recent`` (the slider)."""
        return int(self.keep_slider.value)

    @keep_recent.setter
    def keep_recent(self, value: int) -> None:
        if value > self.keep_slider.max:
            self.keep_slider.max = int(value * 1.5)
        self.keep_slider.value = int(value)

    def reset_what_if(self) -> None:
        """Put the sliders back to the agent's configured values."""
        self.threshold, self.keep_recent = self._defaults

    def compress_now(self) -> asyncio.Task[Any] | None:
        """Compress memory now (``agent.compress_memory(force=True)``); returns the task."""
        if not hasattr(self.agent, "compress_memory"):
            self._say("This agent has no compression.", error=True)
            return None
        if self.agent.is_replying:
            self._say("Wait for the reply to finish (or press Stop) before compressing.")
            return None
        self._say("Compressing…")
        return self._bridge.spawn(self._call("compress_memory", force=True))

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
        if self.plan is not None:
            total = int(self.plan.total_tokens)
            self._steps.extend(
                (kind, total, f"{label}: {total:,} tokens") for kind, label in self._points_due
            )
        self._points_due.clear()
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
        """Stop listening to the agent and its memory, and close the widget."""
        self.detach()
        super().close()

    # -- internals ---------------------------------------------------------------------------
    @staticmethod
    def _mirror(target: w.Widget) -> Any:
        def copy(change: dict[str, Any]) -> None:
            value = change["new"]
            if isinstance(target, w.IntSlider) and value > target.max:
                target.max = value
            if target.value != value:
                target.value = value

        return copy

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
        cls = "nb-hitl-status-error" if error else "nb-hitl-note"
        if not hasattr(self, "_note"):
            return
        self._note.value = f'<span class="{cls}">{esc(text)}</span>' if text else ""

    async def _call(self, method: str, **kwargs: Any) -> Any:
        try:
            result = await getattr(self.agent, method)(**kwargs)
        except Exception as exc:  # shown, never raised into the comm handler
            self._say(f"{method} failed: {type(exc).__name__}: {exc}", error=True)
            return None
        self._say(self._outcome(method, result))
        self.refresh()
        return result

    @staticmethod
    def _outcome(method: str, result: Any) -> str:
        if method == "undo_compression":
            return "Undid the last compression." if result else "Nothing to undo."
        if result is None:
            return "Nothing compressed (nothing compressible, or see the note above)."
        ids = getattr(result, "compressed_ids", ())
        before = int(getattr(result, "tokens_before", 0))
        after = int(getattr(result, "tokens_after", 0))
        return f"Compressed {len(ids)} message(s): {before:,} → {after:,} tokens."

    def _resolve(self, ref: str | int) -> str | None:
        messages = self.agent.memory.messages
        text = str(ref).strip()
        if text.isdigit() and 1 <= int(text) <= len(messages):
            return str(messages[int(text) - 1].id)
        return text if any(m.id == text for m in messages) else None

    def _pin(self, ref: str | int, action: str) -> bool:
        fn = getattr(self.agent, action, None)
        msg_id = self._resolve(ref) if fn is not None else None
        if fn is None or msg_id is None:
            self._say(f"Cannot {action} {str(ref)[:40]!r}: give a row number or message id.")
            return False
        fn(msg_id)
        self._say(f"{action}ned message {msg_id}.")
        self.refresh()
        return True

    def _on_event(self, ev: Event) -> None:
        name = type(ev).__name__
        if isinstance(ev, ReplyFinished):
            self._turn += 1
            self._record_point()
        elif name == "CompressionFinished":
            ids = getattr(ev, "compressed_ids", ())
            before, after = getattr(ev, "tokens_before", 0), getattr(ev, "tokens_after", 0)
            self._steps.append(
                (
                    "compress",
                    int(after),
                    f"compressed {len(ids)} message(s): {before:,} → {after:,} tokens",
                )
            )
            self._draw_chart()
        elif name == "CompressionUndone":
            self._record_point("undo", "compression undone")
        elif name == "CompressionFailed":
            self._say(f"Compression failed: {getattr(ev, 'reason', '')}", error=True)
        if name in ("MessageAdded", "ReplyFinished", "Interrupted") or name.startswith(
            "Compression"
        ):
            self.schedule_refresh()

    def _record_point(self, kind: str = "turn", label: str = "") -> None:
        # Counted at the next (throttled) refresh, not now: right after a reply ends or is
        # interrupted, the chat's own updates must not wait behind a plan computation.
        self._points_due.append((kind, label or f"after turn {self._turn}"))

    def _replayed_steps(self) -> list[tuple[str, int, str]]:
        """The prompt of every model call in memory, replayed with the agent's setting.

        A transcript loaded into memory has no history of its own; the replay shows what this
        agent would have sent for each of its calls (nothing is called).
        """
        from nb_hitl.agent import replay_compression

        try:
            replay = replay_compression(self.agent, getattr(self.agent, "compression_config", None))
        except ValueError:  # nothing to replay yet (TranscriptError, ConfigError)
            return []
        steps: list[tuple[str, int, str]] = []
        for row in replay.rows:
            tip = f"call {row.call} (message {row.message}), replayed: {row.prompt_tokens:,} tokens"
            if row.compressed:
                tip += f" after compressing {len(row.folded_ids)} message(s) (estimate)"
            steps.append(("compress" if row.compressed else "replayed", row.prompt_tokens, tip))
        return steps

    # -- drawing -----------------------------------------------------------------------------
    def _draw(self) -> None:
        memory = getattr(self.agent, "memory", None)
        plan = self.plan
        if memory is None:
            self._header.value = "<b>This agent has no memory.</b>"
            return
        if plan is None:
            self._header.value = (
                f"<b>{len(memory)} messages</b> · this agent has no compression_plan(), so no "
                "token counts or compression plan."
            )
            self._draw_table()
            return
        total = int(plan.total_tokens)
        if total > self.threshold_slider.max * 0.8:
            self.threshold_slider.max = int(total * 1.5)
        # A slider of at most ~100 steps stays usable on any memory; the box goes further.
        wanted = max(min(len(memory), KEEP_SLIDER_STEPS), self.keep_recent)
        if self.keep_slider.max != wanted and len(memory) > 0:
            self.keep_slider.max = wanted
        after = scripted_after(self.agent, plan, self._scripted)
        if not getattr(self, "detached", False):
            can_undo = bool(getattr(self.agent, "can_undo_compression", False))
            self.undo_button.disabled = not can_undo
        self._header.value = header_html(plan, len(memory))
        self._bar.value = bar_html(plan, after)
        self._plan_html.value = plan_html(plan, after)
        approx = approx_html(plan)
        if self._approx.value != approx:
            self._approx.value = approx
        self._draw_table()
        self._draw_chart()

    def _draw_table(self) -> None:
        memory = self.agent.memory
        messages = memory.messages
        start = 0 if self._show_all else max(0, len(messages) - self.max_rows)
        shown = messages[start:]
        marks = {m.id: memory.marks_of(m.id) for m in shown}
        tokens = self.plan.per_message_tokens if self.plan is not None else {}
        more = f"<small>{start:,} earlier message(s) not listed.</small>" if start else ""
        self._table.value = more + memory_table(
            shown,
            marks,
            tokens,
            self.plan,
            memory.summary,
            first_index=start,
            provider=self._provider_labels(shown),
        )

    def _provider_labels(self, shown: list[Msg]) -> dict[str, str]:
        """Provider-reported prompt tokens next to nb_hitl's count, for replies that have them.

        The drift tells whether the chosen encoding matches the model (a few percent is chat
        overhead; 20-40 % means the model uses another tokenizer).
        """
        from nb_hitl.model import check_prompt_tokens, reported_usage

        labels: dict[str, str] = {}
        config = getattr(self.agent, "compression_config", None)
        counter = getattr(config, "agent_token_counter", None)
        for msg in shown:
            if msg.role == "assistant" and reported_usage(msg) is not None:
                check = check_prompt_tokens(self.agent, msg, counter)
                if check is not None:
                    labels[msg.id] = check.label()
        return labels

    def _draw_chart(self) -> None:
        threshold = self.threshold if self.plan is not None else 0
        self._chart.value = steps_chart(self._steps[-CHART_STEPS:], threshold)


__all__ = ["MemoryInspector"]
