"""Inline SVG for the inspector: the token bar, and the HTML legends every chart shares (the
step-by-step tokens chart is the page's: ``js/src/shared/chart.js``).

No plotting dependency: a few rectangles, lines and a polyline. Only numbers and fixed labels
are interpolated, and labels still go through ``esc``. Colours come from the theme's CSS
variables (``nb_hitl._render._theme.paint``), text is ``currentColor``, so both read in dark themes.
Legends are HTML below the chart (they wrap at any width; SVG text would shrink with it).
"""

from __future__ import annotations

from nb_hitl._render import esc, paint, var

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


__all__ = ["BAR_FILLS", "Swatch", "legend", "token_bar"]
