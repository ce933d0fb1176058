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

One front end (``js/src/explorer.js``, one anywidget model: ``PanelModel``) draws it, on its own
or inside a ``MemoryInspector`` (*Explore settings*: ``PanelModel.embed``). The curve, totals
and heat map are escaped SVG/HTML from the kernel; the controls are the page's, and send the
actions ``threshold``, ``keep``, ``budget``, ``policy``, ``metric``, ``sweep``, ``cheapest``
and ``apply``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nb_hitl._render import esc
from nb_hitl.agent import (
    CompressionConfig,
    CompressionReplay,
    CompressionSweep,
    FixedSummary,
    RatioSummary,
    ScriptedSummary,
)
from nb_hitl.compression.replay import (
    METRICS,
    as_policy,
    check_keep_recent,
    prepare,
    run_replay,
    sweep_prepared,
)
from nb_hitl.events import CompressionConfigChanged, Event
from nb_hitl.exceptions import ConfigError

from ._explorer_svg import floor_html, prompt_curve, sweep_heatmap, totals_html
from ._loop import LoopBridge
from ._model import PanelModel, page_css, static_file
from ._plan_view import note_html

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
THRESHOLD_BOX_MAX = 10**9
"""The largest threshold (and budget) the number boxes take."""


def _spread(low: int, high: int, n: int) -> list[int]:
    """``n`` round numbers from ``low`` to ``high``."""
    if high <= low:
        return [max(1, low)]
    step = (high - low) / max(n - 1, 1)
    unit = 10 ** max(0, len(str(int(step))) - 2)
    return sorted({max(1, int(round((low + i * step) / unit) * unit)) for i in range(n)})


class CompressionExplorer(PanelModel):
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

    _esm = static_file("explorer.js")
    _css = static_file("explorer.css")

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
            from nb_hitl.compression import default_counter

            counter = default_counter()
        self._prep = prepare(source, counter=counter, sys_prompt=sys_prompt, tools=tools)
        self.redraws = 0
        self.sweep: CompressionSweep | None = None
        """The last sweep (``Run sweep``), or None."""
        n = len(self._prep.msgs)
        policy = as_policy(summary)
        labels = list(POLICIES)
        label = next((k for k, v in POLICIES.items() if repr(v) == repr(policy)), None)
        if label is None:
            label = repr(policy)
            POLICIES.setdefault(label, policy)
            labels.insert(0, label)
        self._labels = labels
        self._label = label
        self._policy = policy
        self._metric = "total_tokens"
        self.baseline: CompressionReplay = run_replay(self._prep, None, policy)
        peak = self.baseline.peak_prompt_tokens
        self._threshold = int(config.trigger_threshold if config is not None else max(1, peak // 2))
        self._keep = min(config.keep_recent if config is not None else 3, n - 1)
        self._budget = int(budget if budget is not None else max(1, peak * 2 // 3))
        self._threshold_max = max(peak * 2, self._threshold * 2, 1000)
        self._thresholds = list(thresholds) if thresholds else _spread(peak // 4, peak, 10)
        self._keep_values = (
            list(keep_values) if keep_values else sorted({min(k, n - 1) for k in range(0, 40, 4)})
        )
        self.replay: CompressionReplay = self.baseline
        """The replay of the current settings."""
        self._ready = False
        bridge = LoopBridge()
        bridge.on_error = lambda exc: self._say(f"{type(exc).__name__}: {exc}", error=True)
        header = (
            f"<b>Compression explorer</b> · {n:,} messages, "
            f"{len(self._prep.calls)} model calls · counts "
            f"{'exact' if counter.exact else 'APPROXIMATE'} ({esc(counter.encoding_name)})"
        )
        state = {"css": page_css(css), "header": header, "note": "", "sweep": ""}
        super().__init__(state, bridge=bridge)
        self.add_class("nb-hitl-explorer")
        for name, handler in (
            ("threshold", lambda value: setattr(self, "threshold", int(value))),
            ("keep", self._keep_from_page),
            ("budget", lambda value: setattr(self, "budget", int(value))),
            ("policy", self._set_policy),
            ("metric", self._set_metric),
            ("sweep", self.run_sweep),
            ("cheapest", self.use_cheapest),
            ("apply", self.apply),
        ):
            self.on_action(name, handler)
        self._sub = (
            self.agent.subscribe(bridge.callback(self._on_event))
            if self.agent is not None and hasattr(self.agent, "subscribe")
            else None
        )
        self._ready = True
        self.update()

    def close(self) -> None:
        """Stop following the agent's settings and close the widget."""
        if getattr(self, "_sub", None) is not None:
            self._sub.close()  # type: ignore[union-attr]
            self._sub = None
        super().close()

    # -- public API --------------------------------------------------------------------------
    @property
    def threshold(self) -> int:
        """The what-if ``trigger_threshold``; setting it replays and redraws."""
        return self._threshold

    @threshold.setter
    def threshold(self, value: int) -> None:
        value = max(1, min(int(value), THRESHOLD_BOX_MAX))
        if value > self._threshold_max:
            self._threshold_max = int(value * 1.5)
        self._threshold = value
        self.update()

    @property
    def keep_recent(self) -> int:
        """The what-if ``keep_recent``; a value this conversation cannot keep is refused."""
        return self._keep

    @keep_recent.setter
    def keep_recent(self, value: int) -> None:
        check_keep_recent(self._prep, value)
        self._keep = int(value)
        self.update()

    @property
    def budget(self) -> int:
        """The prompt budget."""
        return self._budget

    @budget.setter
    def budget(self, value: int) -> None:
        self._budget = max(1, min(int(value), THRESHOLD_BOX_MAX))
        self.update()
        if self.sweep is not None:
            self.sweep.budget = self._budget
            self._draw_sweep()

    @property
    def policy(self) -> Any:
        """The summary policy replayed."""
        return self._policy

    @property
    def policy_label(self) -> str:
        """The summary policy's label in the "summary" list (``POLICIES``)."""
        return self._label

    @property
    def metric(self) -> str:
        """What the heat map is coloured by (a key of ``METRICS``)."""
        return self._metric

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
        if self._ready:
            self.set_view(
                curve=prompt_curve(self.replay, self.baseline, self.threshold, self.budget),
                totals=totals_html(self.replay, self.baseline, self.budget)
                + floor_html(self._floor(), self.threshold),
                controls=self._controls(),
            )
        return self.replay

    def run_sweep(self) -> CompressionSweep:
        """Replay every (threshold, keep_recent) of the grid and draw the heat map."""
        self.sweep = sweep_prepared(
            self._prep, self._thresholds, self._keep_values, self.budget, self._policy, self.config
        )
        self._draw_sweep()
        return self.sweep

    def use_cheapest(self) -> tuple[int, int] | None:
        """Move the settings to the sweep's cheapest setting within the budget."""
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
            self.threshold, self.keep_recent = wanted  # each change replays
            self._say(
                f"{self.agent.name}'s settings changed: trigger_threshold {wanted[0]:,}, "
                f"keep_recent {wanted[1]}."
            )

    def _floor(self) -> int:
        """Tokens every prompt of this conversation carries whatever compression does."""
        return int(self._prep.system_tokens) + int(self._prep.tools_tokens)

    def _controls(self) -> dict[str, Any]:
        """The controls' values, ranges and which are off (with why)."""
        n = len(self._prep.msgs)
        off: dict[str, str] = {}
        if self.agent is None:
            off["apply"] = "No agent to apply to: build the explorer from an agent."
        if self.sweep is None or self.sweep.cheapest is None:
            off["cheapest"] = "Run the sweep first (or raise the budget: no setting fits it)."
        return {
            "threshold": self._threshold,
            "threshold_max": self._threshold_max,
            "threshold_box_max": THRESHOLD_BOX_MAX,
            "keep": self._keep,
            "keep_max": min(n - 1, KEEP_SLIDER_MAX),
            "keep_box_max": max(n - 1, 0),
            "budget": self._budget,
            "policy": self._label,
            "policies": self._labels,
            "metric": self._metric,
            "metrics": [[key, text] for key, text in METRICS.items()],
            # Writing real summaries costs more per move: redraw when the handle is let go.
            "continuous": not self._policy.writes_text,
            "off": off,
        }

    def _keep_from_page(self, value: int) -> None:
        try:
            self.keep_recent = int(value)
        except ConfigError as exc:
            self._say(str(exc), error=True)

    def _set_policy(self, label: str) -> None:
        if label not in POLICIES:
            self._say(f"No summary policy {label[:40]!r}.", error=True)
            return
        self._label = label
        self._policy = POLICIES[label]
        self.baseline = run_replay(self._prep, None, self._policy)
        self.update()
        if self.sweep is not None:
            self.run_sweep()

    def _set_metric(self, key: str) -> None:
        if key in METRICS:
            self._metric = key
            self._draw_sweep()

    def _say(self, text: str, error: bool = False) -> None:
        if self._ready:
            self.set_view(note=note_html(text, error))

    def _draw_sweep(self) -> None:
        if self.sweep is None:
            return
        metric = self._metric
        best = self.sweep.cheapest
        pick = (
            f"cheapest within {self.budget:,}: <b>threshold {best[0]:,}, keep_recent "
            f"{best[1]}</b> ({self.sweep.replay(*best).total_tokens:,} tokens)"
            if best
            else f"no setting keeps every prompt within {self.budget:,}"
        )
        self.set_view(
            sweep=sweep_heatmap(self.sweep, metric, METRICS[metric])
            + f'<div class="nb-hitl-explorer-pick">{pick}</div>',
            controls=self._controls(),
        )


__all__ = ["CompressionExplorer"]
