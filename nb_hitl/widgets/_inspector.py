"""MemoryInspector: what the agent remembers, what it costs, and what compression would do.

One front end (``js/src/inspector.js``, one anywidget model: ``PanelModel``) draws every
message's tokens, the threshold and the keep_recent boundary, the summary, the chart, the
table, the plan and its what-if controls. The page sends actions (``threshold``, ``keep``,
``compress``, ``undo``, ``reset``, ``explore``, ``pin``, ``unpin``, ``show_all``, and
``explorer`` for an explorer opened inside it); each runs on the kernel loop.

It reads the agent only through public methods (``agent.memory`` read-only views,
``agent.compression_plan()``, ``compress_memory()``, ``undo_compression()``, ``pin()``,
``unpin()``) and events. The what-if controls only call ``compression_plan(trigger_threshold=,
keep_recent=)``, which is sync and cheap and never calls the model. Refreshes triggered by agent
events and memory changes are throttled to one per ``refresh_interval``.

Nothing is counted while it is built: it draws at once what it knows without a tokenizer (the
settings, read from ``compression_config``; the rows' roles and names) with "counting tokens…"
where the numbers go, and counts its first plan on the loop once the cell that made it has
returned (``counting`` until then); the plan arrives as one batch of ops. The first count of a
process loads the tokenizer (~0.6 s on 2 cores, most of it holding the GIL), which made
``show(agent)`` that much later on the page. What-if values set meanwhile are kept and the first
plan is counted with them; *Compress now* waits for the plan.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from nb_hitl.events import CompressionConfigChanged, Event

from ._inspector_chart import Step, StepsChart
from ._inspector_draw import InspectorView, smallest_prompt
from ._loop import LoopBridge, WidgetRegistry
from ._memory_table import row_id
from ._model import PanelModel, inside_host, page_css, static_file
from ._plan_view import COUNTING, note_html, outcome_text

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase


REPLACED_NOTE = "This inspector no longer follows the agent: a newer one was created for it."
_INSPECTORS = WidgetRegistry()
"""The newest MemoryInspector of each agent."""

MIN_DELAY = 0.05
"""Seconds an event-driven refresh waits at least (the chat's own updates go first)."""
CONTROLS = ("threshold", "keep", "compress", "undo", "reset", "explore", "pin", "unpin", "show_all")
"""The inspector's controls (and the actions they send), as ``controls_off`` names them."""
NO_PLAN_OFF = ("threshold", "keep", "compress", "undo", "explore", "pin", "unpin")
"""The controls that are off for good when the agent has no compression plan."""
COUNTING_NOTE = COUNTING.capitalize()
"""The status line while the first plan is counted (the page's live region says it)."""


class MemoryInspector(PanelModel):
    """Memory, token counts, the live compression plan and its controls, for one agent.

    Args:
        agent: the agent to inspect (a ``ReActAgent`` with ``compression_config`` for the plan).
        max_rows: most recent messages listed (all behind "Show all").
        refresh_interval: the least time between event-driven refreshes, in seconds.
        css: include the stylesheet (``AgentPanel`` includes it once for both halves).
    """

    _esm = static_file("inspector.js")
    _css = static_file("inspector.css")
    _fresh_ops = True
    """Every part it sends is built afresh for the batch (HTML, controls, chart): not copied."""

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
        self._plan: Any | None = None
        self.refreshes = 0
        self.explorer: Any | None = None
        """The ``CompressionExplorer`` opened with *Explore settings* (None until then)."""
        self.detached = False
        """True once a newer inspector for the same agent took over (its controls stay off)."""
        self.counting = (
            getattr(agent, "compression_plan", None) is not None
            and getattr(agent, "memory", None) is not None
        )
        """True until the first plan is counted (on the loop, once the cell that made the
        inspector returned; see module doc); False from the start for an agent with no plan."""
        self._show_all = False
        self._refresh_handle: asyncio.TimerHandle | None = None
        self._first_handle: asyncio.TimerHandle | None = None
        self._last_refresh = 0.0
        self._history = StepsChart()
        self._note = ""
        self._off: dict[str, str] = {}
        self._limits: dict[str, str] = {}
        self._ready = False
        bridge = LoopBridge()
        bridge.on_error = lambda exc: self._say(f"{type(exc).__name__}: {exc}", error=True)
        # The agent's settings, read from its config: what its first plan is counted with.
        threshold, keep = self.agent_settings if self.counting else (0, 0)
        self._view = InspectorView(threshold, keep)
        if self.counting:
            self._note = note_html(COUNTING_NOTE)
        else:
            self._off.update(dict.fromkeys(NO_PLAN_OFF, ""))
        state = {"css": page_css(css), "note": self._note, "explorer": None}
        super().__init__(state, bridge=bridge)
        self.add_class("nb-hitl-inspector")
        for name, handler in (
            ("threshold", lambda value: setattr(self, "threshold", int(value))),
            ("keep", lambda value: setattr(self, "keep_recent", int(value))),
            ("compress", self.compress_now),
            ("undo", self.undo),
            ("reset", self.reset_what_if),
            ("explore", self.open_explorer),
            ("pin", lambda ref="": self.pin(ref)),
            ("unpin", lambda ref="": self.unpin(ref)),
            ("show_all", lambda value: self._set_show_all(bool(value))),
        ):
            self.on_action(name, self._unless_off(name, handler))
        self._sub = agent.subscribe(bridge.callback(self._on_event))
        _INSPECTORS.replace(agent, self, REPLACED_NOTE)
        memory = getattr(agent, "memory", None)
        self._remove_listener = (
            memory.add_listener(lambda _m: bridge.call(self.schedule_refresh))
            if memory is not None and hasattr(memory, "add_listener")
            else None
        )
        self._ready = True
        if self.counting:
            self._draw()
            self._first_handle = bridge.later(0.0, self.refresh)
        else:
            self.refresh()

    # -- public API --------------------------------------------------------------------------
    @property
    def plan(self) -> Any | None:
        """The compression plan last drawn (``CompressionPlan``), or None without compression.

        Read while the first plan waits for its count (the cell after the one that made the
        inspector, run before the loop got to it: Run All), it is counted now and drawn."""
        self._settle_first_count()
        return self._plan

    @plan.setter
    def plan(self, value: Any | None) -> None:
        self._plan = value

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the view state, as the page holds it after the last batch (the first plan
        counted first if it still waits, as for ``plan``)."""
        self._settle_first_count()
        return PanelModel.state.fget(self)  # type: ignore[attr-defined]

    @property
    def threshold(self) -> int:
        """The what-if ``trigger_threshold`` (0: none); setting it redraws the plan."""
        return self._view.threshold

    @threshold.setter
    def threshold(self, value: int) -> None:
        self._view.set_threshold(value)
        self._what_if_changed()

    @property
    def keep_recent(self) -> int:
        """The what-if ``keep_recent``; setting it redraws the plan."""
        return self._view.keep

    @keep_recent.setter
    def keep_recent(self, value: int) -> None:
        self._view.set_keep(value)
        self._what_if_changed()

    @property
    def agent_settings(self) -> tuple[int, int]:
        """The agent's own ``(trigger_threshold, keep_recent)`` now (0: no threshold).

        Read from the agent each time (it is the one source of truth); the what-if values
        follow it on every ``CompressionConfigChanged`` event.
        """
        cfg = getattr(self.agent, "compression_config", None)
        if cfg is None:
            return 0, 3
        return int(cfg.trigger_threshold or 0), int(cfg.keep_recent)

    @property
    def is_what_if(self) -> bool:
        """True while the controls show settings other than the agent's."""
        return self._plan is not None and (self.threshold, self.keep_recent) != self.agent_settings

    @property
    def controls_off(self) -> dict[str, str]:
        """The controls that are off now (``CONTROLS`` names), each with why ("": no reason)."""
        return dict(self._state.get("controls", {}).get("off", {}))  # no copy of the table

    def set_limits(self, limits: dict[str, str]) -> None:
        """Keep the controls named in ``limits`` off, each with its reason shown on it (what a
        remote agent cannot do); replaces the limits set before."""
        self._limits = dict(limits)
        self._draw_controls()

    def reset_what_if(self) -> None:
        """Put the what-if values back to the agent's current settings."""
        threshold, keep = self.agent_settings
        self._view.set_threshold(threshold)
        self._view.set_keep(keep)
        self._what_if_changed()

    def compress_now(self) -> asyncio.Task[Any] | None:
        """Compress memory now as the plan shows it; returns the task.

        ``agent.compress_memory(force=True, keep_recent=<the what-if>)``: what the inspector
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
        return self.bridge.spawn(
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
        return self.bridge.spawn(self._call("undo_compression"))

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

            with inside_host():  # drawn by this inspector's page: no comm of its own
                self.explorer = CompressionExplorer(self.agent, css=False)
            self.embed(self.explorer, "explorer")
        return self.explorer

    def schedule_refresh(self) -> None:
        """Refresh soon, at most once per ``refresh_interval``.

        Never sooner than ``MIN_DELAY``: a memory change usually comes with a chat update
        (an interrupted message, a finished reply) that should reach the screen first.
        """
        if self._refresh_handle is None:
            delay = self._last_refresh + self.refresh_interval - time.monotonic()
            self._refresh_handle = self.bridge.later(max(MIN_DELAY, delay), self.refresh)

    def refresh(self) -> None:
        """Recompute the plan for the current what-if values and redraw everything (the
        first refresh counts the first plan, whenever it runs)."""
        self._cancel_pending()
        self._last_refresh = time.monotonic()
        self.refreshes += 1
        self._plan = self._compute_plan(self.threshold or None, self.keep_recent)
        if self.counting:
            self._counted()
        self._history.follow(self.agent, self._plan)
        self._draw()

    def detach(self, reason: str = "") -> None:
        """Stop following the agent and its memory (a newer inspector took over)."""
        if getattr(self, "_sub", None) is not None:
            self._sub.close()
        if getattr(self, "_remove_listener", None) is not None:
            self._remove_listener()  # type: ignore[misc]
            self._remove_listener = None
        self._cancel_pending()
        if reason:
            self.detached = True
            if self.counting:
                self._draw()  # "not counted" where the numbers were to go
            else:
                self._draw_controls()
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
        """The chart's points so far, the prompt now last (see ``StepsChart``)."""
        return self._history.drawn()

    def _cancel_pending(self) -> None:
        """Cancel the refresh waiting for its time and the first plan's count, if any."""
        for name in ("_refresh_handle", "_first_handle"):
            handle = getattr(self, name, None)
            if handle is not None:
                handle.cancel()
                setattr(self, name, None)

    def _settle_first_count(self) -> None:
        """Count the first plan now if it still waits for the loop (on the loop's thread only:
        another thread reads what is drawn)."""
        if self._first_handle is not None and self.bridge.on_loop_thread():
            self.refresh()

    def _counted(self) -> None:
        """The first plan is counted (``self.plan``): the chart starts from it."""
        self.counting = False
        if self._note == note_html(COUNTING_NOTE):
            self._note = ""  # sent with the plan's batch
        if self._plan is None:  # the core refused the config's values (the note says why)
            self._off.update(dict.fromkeys(NO_PLAN_OFF, ""))
        else:
            self._history.start(self.agent, int(self._plan.total_tokens))

    def _unless_off(self, name: str, handler: Any) -> Any:
        def run(**args: Any) -> Any:
            if name in self.controls_off:  # a page that drew it before it went off
                return None
            return handler(**args)

        return run

    def _compute_plan(self, threshold: int | None, keep: int | None) -> Any | None:
        fn = getattr(self.agent, "compression_plan", None)
        if fn is None or getattr(self.agent, "memory", None) is None:
            return None
        try:
            return fn(trigger_threshold=threshold, keep_recent=keep)
        except ValueError as exc:  # ConfigError for a what-if value the core refuses
            self._say(f"No plan for these settings: {exc}", error=True)
            return self._plan

    def _what_if_changed(self) -> None:
        if self._plan is not None:
            self.refresh()
        elif self.counting:  # kept: the first plan is counted with these values
            self._draw()
        else:
            self._draw_controls()

    def _set_show_all(self, value: bool) -> None:
        self._show_all = value
        self._draw()

    def _draw(self) -> None:
        if not self._ready:
            return
        plan = self._plan
        rows = None if self._show_all else self.max_rows
        if self.counting:
            parts = self._view.pending_parts(self.agent, rows, self._why())
        else:
            floor = smallest_prompt(self._compute_plan(1, 0)) if plan is not None else 0
            parts = self._view.parts(self.agent, plan, self.agent_settings, floor, rows)
        threshold = self.threshold if plan is not None else 0
        steps = [list(s) for s in self._history.drawn()] if plan is not None else []
        ops = self.set_ops(**parts, **self._controls(), note=self._note)
        chart = self._state.get("chart")
        if isinstance(chart, dict) and chart.get("steps") == steps:
            # The same points (a what-if move): only the threshold line moves.
            if chart.get("threshold") != threshold:
                ops.append({"op": "merge", "key": "chart", "value": {"threshold": threshold}})
        else:
            ops.append(
                {"op": "set", "key": "chart", "value": {"steps": steps, "threshold": threshold}}
            )
        self.apply_ops(ops)

    def _why(self) -> str:
        """Why the numbers are not there yet: "" while they are being counted."""
        return "this inspector no longer follows the agent" if self.detached else ""

    def _controls(self) -> dict[str, Any]:
        off = dict(self._off)
        has_plan = self._plan is not None or self.counting
        if has_plan and not bool(getattr(self.agent, "can_undo_compression", False)):
            off.setdefault("undo", "Nothing to undo.")
        if self.counting:  # it compresses as the plan shows: none is shown yet
            off.setdefault("compress", COUNTING_NOTE)
        if self.detached:
            off.update(dict.fromkeys(set(CONTROLS) - {"show_all", "explore"}, REPLACED_NOTE))
        off.update(self._limits)
        return {"controls": self._view.controls(off, self._show_all)}

    def _draw_controls(self) -> None:
        if self._ready:
            self.set_view(**self._controls())

    def _say(self, text: str, error: bool = False) -> None:
        self._note = note_html(text, error)
        if self._ready:
            self.set_view(note=self._note)

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

    def _follow_settings(self) -> None:
        """The agent's settings changed (Apply in an explorer, code): every view follows."""
        new = self.agent_settings  # the agent's now: a later change may be on its way
        self._view.set_threshold(new[0])
        self._view.set_keep(new[1])
        self.refresh()
        self._say(
            f"{self.agent.name}'s settings now: trigger_threshold {new[0]:,}, keep_recent {new[1]}."
        )

    def _on_event(self, ev: Event) -> None:
        name = type(ev).__name__
        if isinstance(ev, CompressionConfigChanged):
            if self._plan is not None and not self.detached:
                self._follow_settings()
            elif self.counting and not self.detached:  # the first plan uses the new ones
                new = self.agent_settings
                self._view.set_threshold(new[0])
                self._view.set_keep(new[1])
                self._draw()
            return
        # Before the first count the chart has not started: it starts from the memory as the
        # count finds it (what an inspector made after these events draws).
        if name == "CompressionFinished" and not self.counting:
            self._history.compressed(ev)
        elif name == "CompressionUndone" and not self.counting:
            self._history.undone()
        elif name == "CompressionFailed":
            self._say(f"Compression failed: {getattr(ev, 'reason', '')}", error=True)
        if name in ("MessageAdded", "ReplyFinished", "Interrupted") or name.startswith(
            "Compression"
        ):
            self.schedule_refresh()


__all__ = ["CONTROLS", "COUNTING_NOTE", "MemoryInspector"]
