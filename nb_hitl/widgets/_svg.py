"""Inline SVG for the inspector: the token bar and the step-by-step tokens chart, and the HTML
legends every chart shares.

No plotting dependency: a few rectangles, lines and a polyline. Only numbers and fixed labels
are interpolated, and labels still go through ``esc``. Colours come from the theme's CSS
variables (``nb_hitl._render._theme.paint``), text is ``currentColor``, so both read in dark themes.
Legends are HTML below the chart (they wrap at any width; SVG text would shrink with it).
"""

from __future__ import annotations

from nb_hitl._render import esc
from nb_hitl._render._theme import paint, var

W = 400.0
"""ViewBox width; the SVG scales to the widget's width."""


def token_bar(
    total: int,
    threshold: int,
    compress_tokens: int,
    recent_tokens: int,
    after: int,
    *,
    fixed_tokens: int = 0,
) -> str:
    """The memory bar: fixed (system, summary, tools), to-compress, kept-recent parts.

    A red line marks ``trigger_threshold``; a green tick the estimated total after compressing;
    a dashed line the ``keep_recent`` boundary (where the kept-verbatim messages begin).
    """
    scale_max = max(total, threshold, after, 1) * 1.1
    x = lambda v: W * v / scale_max  # noqa: E731
    other = max(0, total - fixed_tokens - compress_tokens - recent_tokens)
    parts: list[str] = []
    pos = 0.0
    for value, (colour, opacity), label in (
        (fixed_tokens, BAR_FILLS[0], "system, summary and tools"),
        (other, BAR_FILLS[1], "older messages kept"),
        (compress_tokens, BAR_FILLS[2], "would be compressed"),
        (recent_tokens, BAR_FILLS[3], "kept as recent"),
    ):
        width = x(value)
        if width > 0:
            parts.append(
                f'<rect x="{pos:.1f}" y="8" width="{width:.1f}" height="18"'
                f"{paint(colour, fill_opacity=opacity)}>"
                f"<title>{esc(label)}: {value:,} tokens</title></rect>"
            )
        pos += width
    boundary = x(total - recent_tokens)
    parts.append(
        f'<line class="nb-hitl-keep-line" x1="{boundary:.1f}" y1="4" x2="{boundary:.1f}" y2="30" '
        f'stroke-dasharray="2,2"{paint(stroke="fg")}><title>keep_recent boundary</title></line>'
    )
    if threshold > 0:
        tx = x(threshold)
        parts.append(
            f'<line class="nb-hitl-threshold-line" x1="{tx:.1f}" y1="2" x2="{tx:.1f}" y2="32" '
            f'stroke-width="2"{paint(stroke="red")}><title>trigger_threshold: {threshold:,}</title>'
            "</line>"
        )
    ax = x(after)
    parts.append(
        f'<path d="M{ax:.1f},34 l-4,6 h8 z"{paint("green")}><title>after compression: '
        f"~{after:,} tokens</title></path>"
    )
    return (
        f'<svg class="nb-hitl-bar" viewBox="0 0 {W:.0f} 42" width="100%" height="42" '
        f'preserveAspectRatio="none" data-total="{total}" data-threshold="{threshold}">'
        f"{''.join(parts)}</svg>"
    )


BAR_FILLS = (("grey", 1.0), ("grey", 0.35), ("orange", None), ("green", None))
"""The token bar's parts (theme colour, opacity): fixed, older kept, to compress, recent."""

STEP_STYLE = {
    "replayed": ("grey", "replayed call"),
    "turn": ("blue", "turn / now"),
    "compress": ("purple", "compressed"),
    "undo": ("green", "undone"),
}
"""Marker colour (a theme colour name) and legend text per kind of point on the chart."""

Swatch = tuple[str, str, str]
"""A legend entry: (theme colour name, ``line``/``dash``/``dot``/``box``/``tick``, label)."""


def legend(items: list[Swatch], opacity: dict[str, float] | None = None) -> str:
    """A chart's legend as HTML: a swatch and a label per entry, wrapping at any width."""
    out = []
    for colour, style, label in items:
        prop = {"line": "border-color", "dash": "border-color", "tri": "color"}.get(
            style, "background"
        )
        alpha = (opacity or {}).get(label)
        fade = f";opacity:{alpha}" if alpha is not None else ""
        out.append(
            f'<span><i class="nb-hitl-swatch nb-hitl-swatch-{style}" '
            f'style="{prop}:{var(colour)}{fade}"></i>{esc(label)}</span>'
        )
    return f'<div class="nb-hitl-legend">{"".join(out)}</div>'


def _marker(kind: str, x: float, y: float, tip: str) -> str:
    colour = paint(STEP_STYLE.get(kind, STEP_STYLE["turn"])[0])
    title = f"<title>{esc(tip)}</title>"
    if kind == "compress":
        return (
            f'<path class="nb-hitl-compression-mark" d="M{x - 5:.1f},{y - 4:.1f} h10 l-5,8 z"'
            f"{colour}>{title}</path>"
        )
    if kind == "undo":
        return (
            f'<path class="nb-hitl-undo-mark" d="M{x - 5:.1f},{y + 4:.1f} h10 l-5,-8 z"'
            f"{colour}>{title}</path>"
        )
    r = 2 if kind == "replayed" else 3.5
    return (
        f'<circle class="nb-hitl-point-{kind}" cx="{x:.1f}" cy="{y:.1f}" r="{r}"'
        f"{colour}>{title}</circle>"
    )


def steps_chart(steps: list[tuple[str, int, str]], threshold: int, height: int = 150) -> str:
    """Prompt tokens step by step: replayed model calls, then turns, compressions and undos.

    Args:
        steps: ``(kind, tokens, hover text)`` in order; kind is ``replayed``, ``turn``,
            ``compress`` or ``undo`` (each its own marker, so a compression and its undo in
            one turn are two points).
        threshold: the trigger threshold (red dashed line; 0 for none).
        height: pixel height.
    """
    if not steps:
        return '<svg class="nb-hitl-chart" width="100%" height="20"></svg>'
    left, top_pad, bottom_pad = 48.0, 8.0, 6.0
    n = len(steps)
    top = max(max(v for _, v, _ in steps), threshold, 1) * 1.1
    h = height - top_pad - bottom_pad
    px = lambda i: left + (W - left - 6) * i / max(n - 1, 1)  # noqa: E731
    py = lambda v: top_pad + h * (1 - v / top)  # noqa: E731
    line = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, (_, v, _) in enumerate(steps))
    parts = [
        f'<line x1="{left}" y1="{top_pad + h:.1f}" x2="{W - 4:.0f}" y2="{top_pad + h:.1f}"'
        f"{paint(stroke='grey')}/>",
        f'<polyline fill="none" stroke-width="1.2" points="{line}"{paint(stroke="blue")}/>',
    ]
    if threshold > 0:
        parts.append(
            f'<line x1="{left}" y1="{py(threshold):.1f}" x2="{W - 4:.0f}" y2="{py(threshold):.1f}" '
            f'stroke-dasharray="4,3"{paint(stroke="red")}><title>trigger_threshold: {threshold:,}'
            "</title></line>"
        )
    parts.extend(_marker(k, px(i), py(v), tip) for i, (k, v, tip) in enumerate(steps))
    peak = int(top / 1.1)
    parts.append(
        f'<text x="{left - 4}" y="{py(peak) + 4:.1f}" font-size="12" fill="currentColor" '
        f'text-anchor="end">{peak:,}</text>'
        f'<text x="{left - 4}" y="{top_pad + h:.1f}" font-size="12" fill="currentColor" '
        'text-anchor="end">0</text>'
    )
    kinds = [k for k in STEP_STYLE if any(s[0] == k for s in steps)]
    items: list[Swatch] = [(STEP_STYLE[k][0], "dot", STEP_STYLE[k][1]) for k in kinds]
    if threshold > 0:
        items.append(("red", "dash", "threshold"))
    return (
        f"{legend(items)}"
        f'<svg class="nb-hitl-chart" viewBox="0 0 {W:.0f} {height}" width="100%" '
        f'height="{height}" data-steps="{n}">{"".join(parts)}</svg>'
        '<div class="nb-hitl-caption">prompt tokens, step by step (hover a point)</div>'
    )


__all__ = ["BAR_FILLS", "STEP_STYLE", "Swatch", "legend", "steps_chart", "token_bar"]
