"""Inline SVG for the inspector: the token bar and the step-by-step tokens chart.

No plotting dependency: a few rectangles, lines and a polyline. Only numbers and fixed labels
are interpolated, and labels still go through ``esc``.
"""

from __future__ import annotations

from nb_hitl._render import esc

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
    for value, colour, label in (
        (fixed_tokens, "#9aa5b1", "system, summary and tools"),
        (other, "#cbd2d9", "older messages kept"),
        (compress_tokens, "#e67e22", "would be compressed"),
        (recent_tokens, "#27ae60", "kept as recent"),
    ):
        width = x(value)
        if width > 0:
            parts.append(
                f'<rect x="{pos:.1f}" y="8" width="{width:.1f}" height="18" fill="{colour}">'
                f"<title>{esc(label)}: {value:,} tokens</title></rect>"
            )
        pos += width
    boundary = x(total - recent_tokens)
    parts.append(
        f'<line class="nb-hitl-keep-line" x1="{boundary:.1f}" y1="4" x2="{boundary:.1f}" y2="30" '
        'stroke="#1f2933" stroke-dasharray="2,2"><title>keep_recent boundary</title></line>'
    )
    if threshold > 0:
        tx = x(threshold)
        parts.append(
            f'<line class="nb-hitl-threshold-line" x1="{tx:.1f}" y1="2" x2="{tx:.1f}" y2="32" '
            f'stroke="#d0021b" stroke-width="2"><title>trigger_threshold: {threshold:,}</title>'
            "</line>"
        )
    ax = x(after)
    parts.append(
        f'<path d="M{ax:.1f},34 l-4,6 h8 z" fill="#27ae60"><title>after compression: '
        f"~{after:,} tokens</title></path>"
    )
    return (
        f'<svg class="nb-hitl-bar" viewBox="0 0 {W:.0f} 42" width="100%" height="42" '
        f'preserveAspectRatio="none" data-total="{total}" data-threshold="{threshold}">'
        f"{''.join(parts)}</svg>"
    )


STEP_STYLE = {
    "replayed": ("#9aa5b1", "replayed call"),
    "turn": ("#2f80ed", "turn / now"),
    "compress": ("#6f42c1", "compressed"),
    "undo": ("#27ae60", "undone"),
}
"""Marker colour and legend text per kind of point on the inspector's chart."""


def _marker(kind: str, x: float, y: float, tip: str) -> str:
    colour = STEP_STYLE.get(kind, STEP_STYLE["turn"])[0]
    title = f"<title>{esc(tip)}</title>"
    if kind == "compress":
        return (
            f'<path class="nb-hitl-compression-mark" d="M{x - 5:.1f},{y - 4:.1f} h10 l-5,8 z" '
            f'fill="{colour}">{title}</path>'
        )
    if kind == "undo":
        return (
            f'<path class="nb-hitl-undo-mark" d="M{x - 5:.1f},{y + 4:.1f} h10 l-5,-8 z" '
            f'fill="{colour}">{title}</path>'
        )
    r = 2 if kind == "replayed" else 3.5
    return (
        f'<circle class="nb-hitl-point-{kind}" cx="{x:.1f}" cy="{y:.1f}" r="{r}" '
        f'fill="{colour}">{title}</circle>'
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
    left, top_pad, bottom_pad = 48.0, 22.0, 18.0
    n = len(steps)
    top = max(max(v for _, v, _ in steps), threshold, 1) * 1.1
    h = height - top_pad - bottom_pad
    px = lambda i: left + (W - left - 6) * i / max(n - 1, 1)  # noqa: E731
    py = lambda v: top_pad + h * (1 - v / top)  # noqa: E731
    line = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, (_, v, _) in enumerate(steps))
    parts = [f'<polyline fill="none" stroke="#2f80ed" stroke-width="1.2" points="{line}"/>']
    if threshold > 0:
        parts.append(
            f'<line x1="{left}" y1="{py(threshold):.1f}" x2="{W - 4:.0f}" y2="{py(threshold):.1f}" '
            f'stroke="#d0021b" stroke-dasharray="4,3"><title>trigger_threshold: {threshold:,}'
            "</title></line>"
        )
    parts.extend(_marker(k, px(i), py(v), tip) for i, (k, v, tip) in enumerate(steps))
    peak = int(top / 1.1)
    parts.append(
        f'<text x="{left - 4}" y="{py(peak) + 4:.1f}" font-size="12" '
        f'text-anchor="end">{peak:,}</text>'
        f'<text x="{left - 4}" y="{top_pad + h:.1f}" font-size="12" text-anchor="end">0</text>'
        f'<text x="{left}" y="{height - 3}" font-size="12">prompt tokens, step by step '
        "(hover a point)</text>"
    )
    kinds = [k for k in STEP_STYLE if any(s[0] == k for s in steps)]
    x = left
    legend = []
    for kind in kinds + (["threshold"] if threshold > 0 else []):
        colour, text = STEP_STYLE.get(kind, ("#d0021b", "threshold"))
        legend.append(
            f'<rect x="{x:.0f}" y="4" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 13:.0f}" y="13" font-size="12">{esc(text)}</text>'
        )
        x += 22 + 6.2 * len(text)
    parts.append(f'<g class="nb-hitl-legend">{"".join(legend)}</g>')
    return (
        f'<svg class="nb-hitl-chart" viewBox="0 0 {W:.0f} {height}" width="100%" '
        f'height="{height}" data-steps="{n}">{"".join(parts)}</svg>'
    )


__all__ = ["STEP_STYLE", "steps_chart", "token_bar"]
