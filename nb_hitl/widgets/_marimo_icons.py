"""The buttons' icons in marimo, drawn without Font Awesome.

In JupyterLab and Notebook 7 a button's ``icon`` (``"check"``) is a Font Awesome 4 glyph
(``<i class="fa fa-check">``) from the font JupyterLab bundles. marimo loads no such font, and
nothing may be fetched from the internet, so the marimo host draws each icon nb_hitl uses as a
small SVG of its own: ``ICON_CSS`` gives ``i.fa.fa-NAME`` a 1em box painted in the text's
colour through the icon's shape (a CSS mask), so an icon follows its button's colour, the
theme and the disabled look. The same rules draw the ``<i class="fa fa-...">`` marks in the
panel's HTML (the tool mark, the approval outcomes, the Continue seam). An icon name without a
drawing here takes no room, as in a front end without the font.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

_F = "fill='black' stroke='none'"
"""A filled shape (the others are strokes)."""
_BODY = "<rect x='3' y='7.2' width='10' height='7' rx='1'/>"
"""A padlock's body."""

ICONS: dict[str, str] = {
    "play": f"<path {_F} d='M4 2.2v11.6L13.5 8z'/>",
    "stop": f"<rect {_F} x='3' y='3' width='10' height='10' rx='1.2'/>",
    "pause": f"<path {_F} d='M3.5 2.5h3.2v11H3.5zM9.3 2.5h3.2v11H9.3z'/>",
    "forward": f"<path {_F} d='M1 3v10l7-5zM8 3v10l7-5z'/>",
    "step-forward": f"<path {_F} d='M2.5 2.5v11L10.5 8zM11 2.5h2.5v11H11z'/>",
    "check": "<path d='M2.5 8.5l3.5 3.5 7.5-8'/>",
    "check-double": "<path d='M1 8.5l3 3 6.5-7.5M7 11l.5.5 7.5-8.5'/>",
    "times": "<path d='M3.5 3.5l9 9M12.5 3.5l-9 9'/>",
    "ban": "<circle cx='8' cy='8' r='5.8'/><path d='M3.9 3.9l8.2 8.2'/>",
    "pencil": "<path d='M10.8 2.2l3 3-8.3 8.3-3.8.8.8-3.8zM9 4l3 3'/>",
    "undo": "<path d='M2.8 2.5v4h4'/><path d='M3.2 6.3A5.3 5.3 0 1 1 4.5 12'/>",
    "redo": "<path d='M13.2 2.5v4h-4'/><path d='M12.8 6.3A5.3 5.3 0 1 0 11.5 12'/>",
    "refresh": "<path d='M13.5 2.5v3.8H9.7'/><path d='M13.2 6A5.5 5.5 0 1 0 13.5 9.5'/>",
    "repeat": (
        "<path d='M2.5 9V7a2.5 2.5 0 0 1 2.5-2.5h8.5M11 2l2.5 2.5L11 7'/>"
        "<path d='M13.5 7v2A2.5 2.5 0 0 1 11 11.5H2.5M5 9l-2.5 2.5L5 14'/>"
    ),
    "reply": "<path d='M6.5 3.5L2 8l4.5 4.5M2 8h7.5a4.5 4.5 0 0 1 4.5 4.5v1'/>",
    "download": "<path d='M8 1.8v8.4M4.3 6.7L8 10.4l3.7-3.7M2.5 13.8h11'/>",
    "eraser": "<path d='M6.2 13.5h7.3M2.3 9.6L8.8 3.1l4.6 4.6-5.8 5.8H6.2zM5.6 6.3l4.6 4.6'/>",
    "save": "<path d='M2.5 2.5h8.8l2.2 2.2v8.8h-11zM5 2.5v3.2h5V2.5M5 13.5V9.5h6v4'/>",
    "folder-open": "<path d='M1.8 12.8V3.2h4l1.5 1.5h5.2v2.2M1.8 12.8l2.4-5.6h10.5l-2.4 5.6z'/>",
    "paper-plane": "<path d='M14.5 1.5L1.5 7l5 2.4L9 14.5zM14.5 1.5L6.5 9.4'/>",
    "expand": (
        "<path d='M2 6V2h4M2 2l4 4M10 2h4v4M14 2l-4 4M14 10v4h-4M14 14l-4-4M6 14H2v-4M2 14l4-4'/>"
    ),
    "compress": (
        "<path d='M6 1.5V6H1.5M1.5 1.5L6 6M10 1.5V6h4.5M14.5 1.5L10 6M14.5 10H10v4.5M14.5 14.5"
        "L10 10M1.5 10H6v4.5M1.5 14.5L6 10'/>"
    ),
    "th": (
        f"<path {_F} d='M1.5 1.5h3.6v3.6H1.5zM6.2 1.5h3.6v3.6H6.2zM10.9 1.5h3.6v3.6h-3.6z"
        "M1.5 6.2h3.6v3.6H1.5zM6.2 6.2h3.6v3.6H6.2zM10.9 6.2h3.6v3.6h-3.6z"
        "M1.5 10.9h3.6v3.6H1.5zM6.2 10.9h3.6v3.6H6.2zM10.9 10.9h3.6v3.6h-3.6z'/>"
    ),
    "star": (
        f"<path {_F} d='M8 1.2l2 4.3 4.7.6-3.5 3.2.9 4.7L8 11.7 3.9 14l.9-4.7L1.3 6.1l4.7-.6z'/>"
    ),
    "thumb-tack": "<path d='M5 1.8h6M6.3 1.8v4.4L3.8 9h8.4L9.7 6.2V1.8M8 9v5.4'/>",
    "line-chart": "<path d='M1.8 1.8v12.4h12.4M4.3 10.8l3-3.6 2.6 2.2 4-5.2'/>",
    "lock": f"{_BODY}<path d='M5.2 7.2V5a2.8 2.8 0 0 1 5.6 0v2.2'/>",
    "unlock": f"{_BODY}<path d='M5.2 7.2V5a2.8 2.8 0 0 1 5.5-.8'/>",
    "wrench": (
        "<path d='M10.4 1.7a3.6 3.6 0 0 0-3.7 4.8L1.9 11.3a1.4 1.4 0 0 0 0 2l.8.8a1.4 1.4 0 0 0 "
        "2 0l4.8-4.8a3.6 3.6 0 0 0 4.8-3.7l-2.2 2.2-2.1-.5-.5-2.1z'/>"
    ),
    "copy": (
        "<rect x='5.5' y='5' width='8.5' height='9.5' rx='1'/>"
        "<path d='M3 11.5V2.8a1 1 0 0 1 1-1h7'/>"
    ),
}
"""Each icon nb_hitl uses, by its Font Awesome 4 name: an SVG drawing in a 16 x 16 box (strokes
unless marked filled). Drawn for nb_hitl, not copied from Font Awesome."""


def icon_svg(name: str) -> str:
    """The standalone SVG document of icon ``name`` (``KeyError`` if there is none)."""
    return (
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16' fill='none' stroke='black' "
        "stroke-width='1.6' stroke-linecap='round' stroke-linejoin='round'>"
        f"{ICONS[name]}</svg>"
    )


def _rule(name: str) -> str:
    url = "data:image/svg+xml," + quote(icon_svg(name), safe="/:=' ")
    return f'.nb-hitl-marimo i.fa.fa-{name} {{ --nb-hitl-icon: url("{url}"); }}\n'


_KNOWN = ", ".join(f".fa-{name}" for name in ICONS)

ICON_CSS = (
    """.nb-hitl-marimo i.fa { display: inline-block; width: 0; height: 1em; font-style: normal;
  vertical-align: -0.14em; pointer-events: none; }
.nb-hitl-marimo i.fa:is("""
    + _KNOWN
    + """) { width: 1.08em; background-color: currentColor;
  -webkit-mask: var(--nb-hitl-icon) center / contain no-repeat;
  mask: var(--nb-hitl-icon) center / contain no-repeat; }
.nb-hitl-marimo .jupyter-button i.fa:is("""
    + _KNOWN
    + """) { margin-right: 5px; }
.nb-hitl-marimo .jupyter-button i.fa.center { margin-right: 0; }
"""
    + "".join(_rule(name) for name in ICONS)
)
"""The host's rules that draw ``<i class="fa fa-NAME">`` for every name in ``ICONS``."""


def icon_html(icon: str, centred: bool = False) -> str:
    """ipywidgets' icon element for a button's ``icon`` value (``"check"``, ``"fa-check"``,
    several names); empty for no icon. Names are escaped."""

    names = [n.removeprefix("fa-") for n in icon.split() if n]
    if not names:
        return ""
    classes = " ".join(["fa", *(f"fa-{n}" for n in names), *(["center"] if centred else [])])
    return f'<i class="{escape(classes, quote=True)}" aria-hidden="true"></i>'


__all__ = ["ICONS", "ICON_CSS", "icon_html", "icon_svg"]
