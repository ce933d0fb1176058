"""CompressionExplorer: replay a conversation under any threshold, compare settings, apply one.

The explorer answers *for my conversation, which trigger_threshold and keep_recent keep every
prompt within my budget at the lowest total cost, and what does the prompt look like over
time?* It prepares the conversation once (``replay_compression``'s per-message counts), then
each slider move is one replay (a few ms) and one redraw: the curve of prompt tokens per model
call against no compression, the threshold and budget lines, a marker where compression fires
(hover for folded / kept / summary tokens) and the totals. **Run sweep** replays a grid of
settings into a heat map with the budget's feasible region outlined and the cheapest cell
starred; **Use cheapest** moves the sliders there; **Apply** writes the setting into the live
agent's ``compression_config``. Nothing here calls a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as w

from nb_hitl._render import CSS, esc
from nb_hitl.agent import (
    CompressionConfig,
    CompressionReplay,
    CompressionSweep,
    FixedSummary,
    RatioSummary,
    ScriptedSummary,
)
from nb_hitl.compression.replay._policy import as_policy
from nb_hitl.compression.replay._replay import check_keep_recent, run_replay
from nb_hitl.compression.replay._source import prepare
from nb_hitl.compression.replay._sweep import METRICS, sweep_prepared
from nb_hitl.events import CompressionConfigChanged, Event

from ._explorer_svg import prompt_curve, sweep_heatmap
from ._live import html
from ._look import look
from ._loop import LoopBridge
from ._what_if import WhatIfSliders, note_html, set_slider, slider_pair

POLICIES: dict[str, Any] = {
    "1/4 of what it folds (estimate)": RatioSummary(),
    "ScriptedModel's real summary": ScriptedSummary(),
    "200 tokens": FixedSummary(200),
    "400 tokens": FixedSummary(400),
    "800 tokens": FixedSummary(800),
    "1/10 of what it folds": RatioSummary(0.1),
}
"""The summary policies offered in the "summary" dropdown (label -> policy); short, so that
the dropdown reads whole in a narrow column."""
KEEP_SLIDER_MAX = 100
"""The keep_recent slider spans at most this many steps; the number box goes further."""


def _spread(low: int, high: int, n: int) -> list[int]:
    """``n`` round numbers from ``low`` to ``high``."""
    if high <= low:
        return [max(1, low)]
    step = (high - low) / max(n - 1, 1)
    unit = 10 ** max(0, len(str(int(step))) - 2)
    return sorted({max(1, int(round((low + i * step) / unit) * unit)) for i in range(n)})


class CompressionExplorer(WhatIfSliders, w.VBox):
    """What-if compression settings for one conversation, replayed call by call.

    Args:
        source: an agent (Apply then writes into its ``compression_config``), a memory, a list
            of ``Msg`` or a session file's path.
        config: the starting setting (default: the agent's ``compression_config``).
        budget: the most tokens any prompt may have (default: 2/3 of the uncompressed peak).
        summary: the starting summary policy (see ``replay_compression``; default 1/4 ratio).
        sys_prompt: system prompt (default: the agent's or session's).
        tools: tool schemas (default: the agent's).
        counter: token counter (default: the config's).
        thresholds: the sweep's thresholds (default: 10 from 1/4 of the peak to the peak).
        keep_values: the sweep's keep_recent values (default: 10 from 0 up to 36).
        css: include the stylesheet.
    """

    def __init__(
        self,
        source: Any,
        *,
        config: CompressionConfig | None = None,
        budget: int | None = None,
        summary: Any = None,
        sys_prompt: str | None = None,
        tools: Sequence[dict[str, Any]] | None = None,
        counter: Any = None,
        thresholds: Sequence[int] | None = None,
        keep_values: Sequence[int] | None = None,
        css: bool = True,
    ) -> None:
        self.agent = source if hasattr(source, "compression_config") else None
        if config is None and self.agent is not None:
            config = self.agent.compression_config
        self.config = config
        if counter is None and config is not None:
            counter = config.agent_token_counter
        if counter is None:
            from nb_hitl.compression._config import default_counter

            counter = default_counter()
        self._prep = prepare(source, counter=counter, sys_prompt=sys_prompt, tools=tools)
        self.redraws = 0
        self.sweep: CompressionSweep | None = None
        """The last sweep (``Run sweep``), or None."""
        self._bridge = LoopBridge()
        self._bridge.on_error = lambda exc: self._say(f"{type(exc).__name__}: {exc}", error=True)
        n = len(self._prep.msgs)
        policy = as_policy(summary)
        labels = list(POLICIES)
        label = next((k for k, v in POLICIES.items() if repr(v) == repr(policy)), None)
        if label is None:
            label = repr(policy)
            POLICIES.setdefault(label, policy)
            labels.insert(0, label)
        self._policy = policy
        self.baseline: CompressionReplay = run_replay(self._prep, None, policy)
        peak = self.baseline.peak_prompt_tokens
        threshold = config.trigger_threshold if config is not None else max(1, peak // 2)
        keep = min(config.keep_recent if config is not None else 3, n - 1)
        self._thresholds = list(thresholds) if thresholds else _spread(peak // 4, peak, 10)
        self._keep_values = (
            list(keep_values) if keep_values else sorted({min(k, n - 1) for k in range(0, 40, 4)})
        )
        top = max(peak * 2, threshold * 2, 1000)
        slider_options = {"continuous_update": not policy.writes_text, "layout": {"width": "420px"}}
        self.threshold_slider, self.threshold_box = slider_pair(
            "threshold", threshold, 1, top, 10**9, self._bridge, step=1, **slider_options
        )
        self.keep_slider, self.keep_box = slider_pair(
            "keep_recent",
            keep,
            0,
            min(n - 1, KEEP_SLIDER_MAX),
            n - 1,
            self._bridge,
            **slider_options,
        )
        self.budget_box = w.BoundedIntText(
            value=budget if budget is not None else max(1, peak * 2 // 3),
            min=1,
            max=10**9,
            description="budget",
            **look(w.BoundedIntText, layout={"width": "220px"}),
        )
        self.policy_dropdown = w.Dropdown(
            options=labels, value=label, description="summary", **look(w.Dropdown)
        )
        self.metric_dropdown = w.Dropdown(
            options=[(text, key) for key, text in METRICS.items()],
            value="total_tokens",
            description="colour by",
            **look(w.Dropdown),
        )
        self.sweep_button = w.Button(description="Run sweep", icon="th", **look(w.Button))
        self.cheapest_button = w.Button(
            description="Use cheapest", icon="star", disabled=True, **look(w.Button)
        )
        self.apply_button = w.Button(
            description="Apply to agent",
            icon="check",
            disabled=self.agent is None,
            tooltip="Set the agent's compression_config to these settings",
            **look(w.Button),
        )
        for ctl in (self.threshold_slider, self.keep_slider):
            ctl.observe(self._bridge.callback(lambda _ch: self.update()), "value")
        self.budget_box.observe(self._bridge.callback(self._budget_changed), "value")
        self.policy_dropdown.observe(self._bridge.callback(self._policy_changed), "value")
        self.metric_dropdown.observe(self._bridge.callback(lambda _ch: self._draw_sweep()), "value")
        self.sweep_button.on_click(self._bridge.callback(lambda _b: self.run_sweep()))
        self.cheapest_button.on_click(self._bridge.callback(lambda _b: self.use_cheapest()))
        self.apply_button.on_click(self._bridge.callback(lambda _b: self.apply()))
        self._curve = html()
        self._totals = html()
        self._sweep_html = html()
        self._note = html()
        top_css: list[w.Widget] = [html(CSS)] if css else []
        super().__init__(
            children=[
                *top_css,
                html(
                    f"<b>Compression explorer</b> · {n:,} messages, "
                    f"{len(self._prep.calls)} model calls · counts "
                    f"{'exact' if counter.exact else 'APPROXIMATE'} ({esc(counter.encoding_name)})"
                ),
                w.HBox([self.threshold_slider, self.threshold_box], **look(w.HBox)),
                w.HBox([self.keep_slider, self.keep_box], **look(w.HBox)),
                w.HBox([self.budget_box, self.policy_dropdown], **look(w.HBox)),
                self._curve,
                self._totals,
                w.HBox(
                    [
                        self.sweep_button,
                        self.metric_dropdown,
                        self.cheapest_button,
                        self.apply_button,
                    ],
                    **look(w.HBox),
                ),
                self._sweep_html,
                self._note,
            ]
        )
        self.add_class("nb-hitl-explorer")
        self.replay: CompressionReplay = self.baseline
        """The replay of the current settings."""
        self._sub = (
            self.agent.subscribe(self._bridge.callback(self._on_event))
            if self.agent is not None and hasattr(self.agent, "subscribe")
            else None
        )
        self.update()

    def close(self) -> None:
        """Stop following the agent's settings and close the widget."""
        if getattr(self, "_sub", None) is not None:
            self._sub.close()  # type: ignore[union-attr]
            self._sub = None
        super().close()

    # -- public API --------------------------------------------------------------------------
    @property
    def keep_recent(self) -> int:
        """The what-if ``keep_recent``; a value this conversation cannot keep is refused."""
        return int(self.keep_slider.value)

    @keep_recent.setter
    def keep_recent(self, value: int) -> None:
        check_keep_recent(self._prep, value)
        set_slider(self.keep_slider, value, grow=1)

    @property
    def budget(self) -> int:
        """The prompt budget."""
        return int(self.budget_box.value)

    @budget.setter
    def budget(self, value: int) -> None:
        self.budget_box.value = int(value)

    @property
    def policy(self) -> Any:
        """The summary policy replayed."""
        return self._policy

    def update(self) -> CompressionReplay:
        """Replay the current settings and redraw the curve and the totals."""
        self.replay = run_replay(
            self._prep,
            self.config,
            self._policy,
            threshold=self.threshold,
            keep_recent=self.keep_recent,
        )
        self.redraws += 1
        self._curve.value = prompt_curve(self.replay, self.baseline, self.threshold, self.budget)
        self._totals.value = self._totals_html()
        return self.replay

    def run_sweep(self) -> CompressionSweep:
        """Replay every (threshold, keep_recent) of the grid and draw the heat map."""
        self.sweep = sweep_prepared(
            self._prep, self._thresholds, self._keep_values, self.budget, self._policy, self.config
        )
        self.cheapest_button.disabled = self.sweep.cheapest is None
        self._draw_sweep()
        return self.sweep

    def use_cheapest(self) -> tuple[int, int] | None:
        """Move the sliders to the sweep's cheapest setting within the budget."""
        best = self.sweep.cheapest if self.sweep is not None else None
        if best is None:
            self._say("Run the sweep first (or raise the budget: no setting fits it).")
            return None
        self.threshold, self.keep_recent = best
        self._say(f"Cheapest within {self.budget:,}: threshold {best[0]:,}, keep_recent {best[1]}.")
        return best

    def apply(self) -> CompressionConfig | None:
        """Write the current threshold and keep_recent into the agent's ``compression_config``."""
        if self.agent is None:
            self._say("No agent to apply to: build the explorer from an agent.", error=True)
            return None
        cfg = self.agent.compression_config
        if cfg is None:
            cfg = CompressionConfig(
                agent_token_counter=self._prep.counter,
                trigger_threshold=self.threshold,
                keep_recent=self.keep_recent,
            )
            self.agent.compression_config = cfg
        else:
            cfg.trigger_threshold = self.threshold
            cfg.keep_recent = self.keep_recent
            cfg.enable = True
        self.config = cfg
        self._say(
            f"Applied: {self.agent.name}.compression_config has trigger_threshold "
            f"{cfg.trigger_threshold:,}, keep_recent {cfg.keep_recent}."
        )
        return cfg

    # -- internals ---------------------------------------------------------------------------
    def _on_event(self, ev: Event) -> None:
        """The agent's settings changed (another explorer's Apply, code): the sliders follow."""
        if not isinstance(ev, CompressionConfigChanged) or self.agent is None:
            return
        cfg = self.agent.compression_config
        self.config = cfg
        if cfg is None:
            return
        n = len(self._prep.msgs)
        wanted = (int(cfg.trigger_threshold), min(int(cfg.keep_recent), max(n - 1, 0)))
        if (self.threshold, self.keep_recent) != wanted:
            self.threshold, self.keep_recent = wanted  # each slider move replays
            self._say(
                f"{self.agent.name}'s settings changed: trigger_threshold {wanted[0]:,}, "
                f"keep_recent {wanted[1]}."
            )

    def _floor(self) -> int:
        """Tokens every prompt of this conversation carries whatever compression does."""
        return int(self._prep.system_tokens) + int(self._prep.tools_tokens)

    def _policy_changed(self, change: dict[str, Any]) -> None:
        self._policy = POLICIES[change["new"]]
        # Writing real summaries costs more per move: redraw when the handle is let go.
        for slider in (self.threshold_slider, self.keep_slider):
            slider.continuous_update = not self._policy.writes_text
        self.baseline = run_replay(self._prep, None, self._policy)
        self.update()
        if self.sweep is not None:
            self.run_sweep()

    def _budget_changed(self, change: dict[str, Any]) -> None:
        self.update()
        if self.sweep is not None:
            self.sweep.budget = self.budget
            self.cheapest_button.disabled = self.sweep.cheapest is None
            self._draw_sweep()

    def _say(self, text: str, error: bool = False) -> None:
        self._note.value = note_html(text, error)

    def _totals_html(self) -> str:
        r, b = self.replay, self.baseline
        saved = r.savings(b)
        share = f" ({abs(saved) / b.total_tokens:.0%})" if b.total_tokens else ""
        # Compressing can cost more than it saves (the summariser's tokens): say so plainly.
        if saved >= 0:
            outcome = f"saves <b>{saved:,}</b>{share}"
        else:
            outcome = (
                f'<b class="nb-hitl-status-error">costs {-saved:,} more</b> than no '
                f"compression{share}"
            )
        fits = r.fits(self.budget)
        verdict = (
            '<b class="nb-hitl-good">every prompt within the budget</b> '
            f"({r.peak_prompt_tokens:,} ≤ {self.budget:,})"
            if fits
            else f'<b class="nb-hitl-bad">over the budget</b>: peak {r.peak_prompt_tokens:,} '
            f"> {self.budget:,}"
        )
        return (
            f'<div class="nb-hitl-explorer-totals" data-billed="{r.billed_input_tokens}" '
            f'data-fits="{int(fits)}">'
            f"billed input <b>{r.billed_input_tokens:,}</b> (no compression "
            f"{b.billed_input_tokens:,}) · peak prompt <b>{r.peak_prompt_tokens:,}</b> (no "
            f"compression {b.peak_prompt_tokens:,}) · <b>{r.compressions}</b> compressions · "
            f"summariser {r.summariser_tokens:,} tokens · total <b>{r.total_tokens:,}</b>, "
            f"{outcome}<br>{verdict} · {esc(r.policy)}</div>" + self._floor_html()
        )

    def _floor_html(self) -> str:
        floor = self._floor()
        if self.threshold >= floor:
            return ""
        return (
            f'<div class="nb-hitl-status-error nb-hitl-floor" data-floor="{floor}" '
            f'style="font-size:13px">trigger_threshold {self.threshold:,} is below the '
            f"smallest prompt possible here ({floor:,} tokens of system prompt and tool "
            "schemas alone): every model call would compress and still be over it. Pick at "
            f"least {floor:,}.</div>"
        )

    def _draw_sweep(self) -> None:
        if self.sweep is None:
            return
        metric = str(self.metric_dropdown.value)
        best = self.sweep.cheapest
        pick = (
            f"cheapest within {self.budget:,}: <b>threshold {best[0]:,}, keep_recent "
            f"{best[1]}</b> ({self.sweep.replay(*best).total_tokens:,} tokens)"
            if best
            else f"no setting keeps every prompt within {self.budget:,}"
        )
        self._sweep_html.value = (
            sweep_heatmap(self.sweep, metric, METRICS[metric])
            + f'<div class="nb-hitl-explorer-pick">{pick}</div>'
        )


__all__ = ["CompressionExplorer"]
