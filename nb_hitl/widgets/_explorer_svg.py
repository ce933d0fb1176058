"""Drawing the compression explorer: the prompt curve, the sweep heat map and the totals.

No plotting dependency. Only numbers and fixed labels are interpolated, and labels still go
through ``esc``. Hover text is SVG ``<title>`` (the browser's own tooltip, no JavaScript).
Labels are 12 px (larger in a narrow explorer, by a container query, so they stay readable
when the chart scales down); every chart has an HTML legend and caption that wrap. Colours are
the theme's CSS variables (``nb_hitl._render._theme.paint``); text is ``currentColor``.
"""

from __future__ import annotations

from typing import Any

from nb_hitl._render import esc, paint

from ._svg import Swatch, legend

W = 640.0
"""ViewBox width; the SVG scales to the widget's width."""
FONT = 12
"""Label size in px (at least 11, readable at the default zoom)."""
LEFT, RIGHT, TOP = 66.0, 12.0, 10.0
BLUE, GREY, RED, ORANGE, PURPLE = "blue", "grey", "red", "orange", "purple"
TEXT = f'font-size="{FONT}" fill="currentColor"'
"""A label's attributes."""


def prompt_curve(
    replay: Any,
    baseline: Any,
    threshold: int | None,
    budget: int | None = None,
    height: int = 240,
) -> str:
    """Prompt tokens per model call: the what-if replay against no compression.

    Args:
        replay: the ``CompressionReplay`` of the current settings.
        baseline: the ``CompressionReplay`` without compression.
        threshold: the trigger threshold (a red dashed line).
        budget: the prompt budget (an orange line), if any.
        height: pixel height.
    """
    rows, base = replay.rows, baseline.rows
    n = max(len(base), 1)
    top = max(baseline.peak_prompt_tokens, threshold or 0, budget or 0, 1) * 1.08
    bottom = height - 26.0
    px = lambda i: LEFT + (W - LEFT - RIGHT) * (i - 1) / max(n - 1, 1)  # noqa: E731
    py = lambda v: TOP + (bottom - TOP) * (1 - v / top)  # noqa: E731
    parts = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{W - RIGHT}" y2="{bottom}"{paint(stroke="grey")}/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}"{paint(stroke="grey")}/>',
    ]
    for frac in (0.0, 0.5, 1.0):
        value = int(top / 1.08 * frac)
        parts.append(
            f'<text x="{LEFT - 4}" y="{py(value) + 4:.1f}" {TEXT} '
            f'text-anchor="end">{value:,}</text>'
        )
    parts.append(
        f'<text x="{LEFT}" y="{height - 6}" {TEXT}>call 1</text>'
        f'<text x="{W - RIGHT}" y="{height - 6}" {TEXT} text-anchor="end">call {n}</text>'
    )
    lines = ((threshold, RED, "trigger_threshold"), (budget, ORANGE, "budget"))
    for limit, colour, name in lines:
        if limit:
            value = int(limit)
            parts.append(
                f'<line class="nb-hitl-{name.split("_")[-1]}-line" x1="{LEFT}" '
                f'y1="{py(value):.1f}" x2="{W - RIGHT}" y2="{py(value):.1f}"{paint(stroke=colour)} '
                f'stroke-dasharray="6,3" stroke-width="1.5"><title>{name}: {value:,}</title></line>'
            )
    line = " ".join(f"{px(r.call):.1f},{py(r.prompt_tokens):.1f}" for r in base)
    parts.append(
        f'<polyline class="nb-hitl-baseline" fill="none"{paint(stroke=GREY)} stroke-width="1.5" '
        f'stroke-dasharray="4,3" points="{line}"/>'
    )
    line = " ".join(f"{px(r.call):.1f},{py(r.prompt_tokens):.1f}" for r in rows)
    parts.append(
        f'<polyline class="nb-hitl-curve" fill="none"{paint(stroke=BLUE)} stroke-width="2" '
        f'points="{line}" data-points="{len(rows)}"/>'
    )
    for r in rows:
        if r.compressed:
            tip = (
                f"call {r.call} (message {r.message}): compressed {len(r.folded_ids)} messages "
                f"· folded {r.folded_tokens:,} tokens · kept {r.kept_tokens:,} · summary "
                f"{r.summary_tokens:,} · prompt {r.tokens_before:,} → {r.prompt_tokens:,}"
            )
            parts.append(
                f'<line x1="{px(r.call):.1f}" y1="{py(r.tokens_before):.1f}" x2="{px(r.call):.1f}" '
                f'y2="{py(r.prompt_tokens):.1f}"{paint(stroke=PURPLE)} stroke-width="1.5"/>'
                f'<circle class="nb-hitl-compression-mark" cx="{px(r.call):.1f}" '
                f'cy="{py(r.prompt_tokens):.1f}" r="5"{paint(PURPLE)}><title>{esc(tip)}</title>'
                "</circle>"
            )
    items: list[Swatch] = [
        (BLUE, "line", "with these settings"),
        (GREY, "dash", "no compression"),
        (PURPLE, "dot", "compression (hover)"),
    ]
    if threshold:
        items.append((RED, "dash", "threshold"))
    if budget:
        items.append((ORANGE, "dash", "budget"))
    return (
        f"{legend(items)}"
        f'<svg class="nb-hitl-explorer-curve" viewBox="0 0 {W:.0f} {height}" width="100%" '
        f'height="{height}" data-compressions="{replay.compressions}" '
        f'data-peak="{replay.peak_prompt_tokens}">{"".join(parts)}</svg>'
        '<div class="nb-hitl-caption">prompt tokens per model call</div>'
    )


def _shade(value: float, low: float, high: float) -> str:
    """Faint (cheap) to strong (expensive) blue: a fill for browsers without ``color-mix`` and
    a style mixing the theme's blue into its page (pale to dark on light, dark to bright on
    dark), which wins where ``color-mix`` is known."""
    t = 0.0 if high <= low else (value - low) / (high - low)
    r, g, b = (int(235 - 190 * t), int(244 - 150 * t), int(255 - 80 * t))
    share = round(12 + 78 * t)
    mix = f"color-mix(in srgb, var(--nb-hitl-blue, #1a5fb4) {share}%, var(--nb-hitl-bg, #fff))"
    return f'fill="rgb({r},{g},{b})" style="stroke:var(--nb-hitl-bg, #fff);fill:{mix}"'


def sweep_heatmap(sweep: Any, metric: str, label: str, height: int = 300) -> str:
    """The sweep as a heat map: thresholds down, keep_recent across, ``metric`` as colour.

    Cells whose peak prompt passes the budget are hatched grey; the cells within the budget
    are outlined as one region (orange), and the cheapest cell carries a black frame and a star.
    """
    grid = sweep.grid(metric)
    rows, cols = sweep.thresholds, sweep.keep_recent
    values = [v for row in grid for v in row]
    low, high = min(values), max(values)
    left, top = 80.0, 8.0
    cw = (W - left - RIGHT) / len(cols)
    ch = (height - top - 28) / len(rows)
    best = sweep.cheapest
    parts = [
        '<defs><pattern id="nb-hitl-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#e4e7eb" '
        'style="fill:rgba(127,127,127,0.12)"/><line x1="0" y1="0" x2="0" y2="6" '
        f'stroke-width="2"{paint(stroke="grey")}/></pattern></defs>'
    ]
    fits = [[sweep.fits(t, k) for k in cols] for t in rows]
    for i, t in enumerate(rows):
        y = top + i * ch
        parts.append(
            f'<text x="{left - 4}" y="{y + ch / 2 + 4:.1f}" {TEXT} text-anchor="end">{t:,}</text>'
        )
        for j, k in enumerate(cols):
            x = left + j * cw
            replay = sweep.replay(t, k)
            fill = (
                _shade(grid[i][j], low, high)
                if fits[i][j]
                else 'fill="url(#nb-hitl-hatch)" style="stroke:var(--nb-hitl-bg, #fff)"'
            )
            tip = (
                f"threshold {t:,}, keep_recent {k}: {label} {grid[i][j]:,} · peak "
                f"{replay.peak_prompt_tokens:,} · {replay.compressions} compressions"
                + ("" if fits[i][j] else " · over the budget")
            )
            parts.append(
                f'<rect class="nb-hitl-cell" x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" '
                f'height="{ch:.1f}" {fill} data-threshold="{t}" '
                f'data-keep="{k}" data-fits="{int(fits[i][j])}"><title>{esc(tip)}</title></rect>'
            )
    # The feasible region's outline: every cell edge between a fitting and a non-fitting cell.
    edges = []
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not fits[i][j]:
                continue
            x, y = left + j * cw, top + i * ch
            if i == 0 or not fits[i - 1][j]:
                edges.append(f"M{x:.1f},{y:.1f}h{cw:.1f}")
            if i == len(rows) - 1 or not fits[i + 1][j]:
                edges.append(f"M{x:.1f},{y + ch:.1f}h{cw:.1f}")
            if j == 0 or not fits[i][j - 1]:
                edges.append(f"M{x:.1f},{y:.1f}v{ch:.1f}")
            if j == len(cols) - 1 or not fits[i][j + 1]:
                edges.append(f"M{x + cw:.1f},{y:.1f}v{ch:.1f}")
    if edges:
        parts.append(
            f'<path class="nb-hitl-feasible" d="{" ".join(edges)}" fill="none"'
            f'{paint(stroke=ORANGE)} stroke-width="3"/>'
        )
    if best is not None:
        i, j = rows.index(best[0]), cols.index(best[1])
        x, y = left + j * cw, top + i * ch
        parts.append(
            f'<rect class="nb-hitl-cheapest" x="{x + 1.5:.1f}" y="{y + 1.5:.1f}" '
            f'width="{cw - 3:.1f}" height="{ch - 3:.1f}" fill="none"{paint(stroke="fg")} '
            f'stroke-width="3" data-threshold="{best[0]}" data-keep="{best[1]}"/>'
            f'<circle cx="{x + cw / 2:.1f}" cy="{y + ch / 2:.1f}" r="{min(cw, ch) / 2 - 4:.1f}"'
            f"{paint('bg')}/>"
            f'<text x="{x + cw / 2:.1f}" y="{y + ch / 2 + 5:.1f}" font-size="14" '
            f'fill="currentColor" text-anchor="middle">★</text>'
        )
    for j, k in enumerate(cols):
        parts.append(
            f'<text x="{left + (j + 0.5) * cw:.1f}" y="{height - 8}" {TEXT} '
            f'text-anchor="middle">{k}</text>'
        )
    items: list[Swatch] = [
        ("blue", "box", "stronger = more"),
        ("grey", "box", "over the budget"),
        (ORANGE, "line", "within the budget"),
        ("fg", "line", "★ cheapest"),
    ]
    return (
        f"{legend(items, {'over the budget': 0.35})}"
        f'<svg class="nb-hitl-explorer-sweep" viewBox="0 0 {W:.0f} {height}" width="100%" '
        f'height="{height}">{"".join(parts)}</svg>'
        f'<div class="nb-hitl-caption">columns: keep_recent →, rows: trigger_threshold; '
        f"colour: {esc(label)}, fainter = less</div>"
    )


def totals_html(r: Any, b: Any, budget: int) -> str:
    """The totals of the replay ``r`` against no compression ``b``, and the budget verdict."""
    saved = r.savings(b)
    share = f" ({abs(saved) / b.total_tokens:.0%})" if b.total_tokens else ""
    # Compressing can cost more than it saves (the summariser's tokens): say so plainly.
    if saved >= 0:
        outcome = f"saves <b>{saved:,}</b>{share}"
    else:
        outcome = (
            f'<b class="nb-hitl-status-error">costs {-saved:,} more</b> than no compression{share}'
        )
    fits = r.fits(budget)
    verdict = (
        '<b class="nb-hitl-good">every prompt within the budget</b> '
        f"({r.peak_prompt_tokens:,} ≤ {budget:,})"
        if fits
        else f'<b class="nb-hitl-bad">over the budget</b>: peak {r.peak_prompt_tokens:,} '
        f"> {budget:,}"
    )
    return (
        f'<div class="nb-hitl-explorer-totals" data-billed="{r.billed_input_tokens}" '
        f'data-fits="{int(fits)}">'
        f"billed input <b>{r.billed_input_tokens:,}</b> (no compression "
        f"{b.billed_input_tokens:,}) · peak prompt <b>{r.peak_prompt_tokens:,}</b> (no "
        f"compression {b.peak_prompt_tokens:,}) · <b>{r.compressions}</b> compressions · "
        f"summariser {r.summariser_tokens:,} tokens · total <b>{r.total_tokens:,}</b>, "
        f"{outcome}<br>{verdict} · {esc(r.policy)}</div>"
    )


def floor_html(floor: int, threshold: int) -> str:
    """A warning when ``threshold`` is below ``floor``, the smallest prompt possible here."""
    if threshold >= floor:
        return ""
    return (
        f'<div class="nb-hitl-status-error nb-hitl-floor" data-floor="{floor}" '
        f'style="font-size:13px">trigger_threshold {threshold:,} is below the '
        f"smallest prompt possible here ({floor:,} tokens of system prompt and tool "
        "schemas alone): every model call would compress and still be over it. Pick at "
        f"least {floor:,}.</div>"
    )


__all__ = ["floor_html", "prompt_curve", "sweep_heatmap", "totals_html"]
