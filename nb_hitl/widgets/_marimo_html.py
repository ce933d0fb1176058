"""Draw an ipywidgets tree as HTML for the marimo host (``_marimo.py``).

marimo shows anywidgets but not ipywidgets, and nb_hitl's panels are ipywidgets boxes. The host
keeps the real widgets in the kernel (so every send, stop, resume and approval runs the code
JupyterLab runs) and draws them here as the DOM ipywidgets 8 would draw: the same element
classes (``widget-hbox``, ``jupyter-button mod-primary``, ``widget-html-content``...), so the
panel's own stylesheet applies unchanged. Each widget's element carries ``data-nbw`` (its model
id) and ``data-kind`` (what a click or an edit on it sends back). An ``HTML`` widget's value is
inserted as it is, as ipywidgets does (nb_hitl escapes every message, tool and name string
before it reaches a value); every other string (labels, tooltips, values, options) is escaped
here. An anywidget in the tree (the keyboard bindings, the transcript) is drawn as an empty
element that the host's front end mounts the anywidget's own ES module into.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

import anywidget
import ipywidgets as w

from ._marimo_icons import icon_html

LAYOUT_KEYS = (
    "display", "visibility", "width", "height", "min_width", "max_width", "min_height",
    "max_height", "flex", "flex_flow", "align_items", "align_self", "align_content",
    "justify_content", "justify_items", "margin", "padding", "border", "border_top",
    "border_right", "border_bottom", "border_left", "overflow", "order", "object_fit",
    "object_position", "grid_auto_columns", "grid_auto_flow", "grid_auto_rows", "grid_gap",
    "grid_template_rows", "grid_template_columns", "grid_template_areas", "grid_row",
    "grid_column", "grid_area", "top", "right", "bottom", "left",
)  # fmt: skip
"""The ``Layout`` traits that become inline CSS (``min_width`` -> ``min-width``)."""


def attr(value: Any) -> str:
    """An attribute value, escaped (quotes included)."""
    return escape(str(value), quote=True)


def layout_style(widget: w.Widget) -> str:
    """The widget's ``Layout`` as an inline ``style`` value."""
    layout = getattr(widget, "layout", None)
    if not isinstance(layout, w.Layout):
        return ""
    parts = []
    for key in LAYOUT_KEYS:
        value = getattr(layout, key, None)
        if value not in (None, ""):
            parts.append(f"{key.replace('_', '-')}: {value}")
    return "; ".join(parts)


def _classes(widget: w.Widget, *base: str) -> str:
    return " ".join(["lm-Widget", "jupyter-widgets", *base, *getattr(widget, "_dom_classes", ())])


def _open(widget: w.Widget, kind: str, *base: str, tag: str = "div", extra: str = "") -> str:
    style = layout_style(widget)
    style_attr = f' style="{attr(style)}"' if style else ""
    return (
        f'<{tag} class="{attr(_classes(widget, *base))}" data-nbw="{attr(widget.model_id)}" '
        f'data-kind="{kind}"{style_attr}{extra}>'
    )


def _label(widget: w.Widget) -> str:
    text = getattr(widget, "description", "")
    if not text:
        return ""
    style = getattr(widget, "style", None)
    width = getattr(style, "description_width", "") if style is not None else ""
    css = f' style="width: {attr(width)}; flex-shrink: 0"' if width else ""
    return f'<label class="widget-label"{css} title="{attr(text)}">{escape(text)}</label>'


def _disabled(widget: w.Widget) -> str:
    return " disabled" if getattr(widget, "disabled", False) else ""


def _tooltip(widget: w.Widget) -> str:
    tip = getattr(widget, "tooltip", None) or ""
    return f' title="{attr(tip)}"' if tip else ""


def _button(widget: w.Button) -> str:
    style = f" mod-{widget.button_style}" if widget.button_style else ""
    colour = getattr(widget.style, "button_color", None)
    extra = _tooltip(widget) + _disabled(widget)
    if colour:
        extra += f' data-colour="{attr(colour)}"'
    head = _open(widget, "button", "jupyter-button", "widget-button" + style, tag="button",
                 extra=extra)  # fmt: skip
    return f"{head}{_icon(widget)}{escape(widget.description)}</button>"


def _icon(widget: w.Button | w.ToggleButton) -> str:
    """The button's icon element, as ipywidgets draws it (``_marimo_icons`` draws the shape)."""
    return icon_html(getattr(widget, "icon", "") or "", centred=not widget.description)


def _toggle(widget: w.ToggleButton) -> str:
    style = f" mod-{widget.button_style}" if widget.button_style else ""
    active = " mod-active" if widget.value else ""
    extra = _tooltip(widget) + _disabled(widget) + f' aria-pressed="{str(widget.value).lower()}"'
    head = _open(widget, "toggle", "jupyter-button", "widget-toggle-button" + style + active,
                 tag="button", extra=extra)  # fmt: skip
    return f"{head}{_icon(widget)}{escape(widget.description)}</button>"


def _toggles(widget: w.ToggleButtons) -> str:
    tips = list(widget.tooltips or [])
    width = getattr(widget.style, "button_width", "") or ""
    css = f' style="width: {attr(width)}"' if width and width != "auto" else ""
    buttons = []
    icons = list(widget.icons or [])
    for i, label in enumerate(widget._options_labels):
        icon = icon_html(icons[i], centred=not label) if i < len(icons) and icons[i] else ""
        active = " mod-active" if widget.index == i else ""
        tip = f' title="{attr(tips[i])}"' if i < len(tips) and tips[i] else ""
        buttons.append(
            f'<button class="jupyter-button widget-toggle-button{active}" data-index="{i}"'
            f"{tip}{css}{_disabled(widget)}>{icon}{escape(label)}</button>"
        )
    head = _open(widget, "toggles", "widget-inline-hbox", "widget-toggle-buttons")
    return f'{head}{_label(widget)}<div class="btn-group">{"".join(buttons)}</div></div>'


def _text(widget: w.Text | w.Textarea, kind: str) -> str:
    placeholder = f' placeholder="{attr(widget.placeholder)}"' if widget.placeholder else ""
    extra = placeholder + _disabled(widget)
    if isinstance(widget, w.Textarea):
        rows = f' rows="{widget.rows}"' if widget.rows else ""
        box = f'<textarea class="widget-input"{rows}{extra}>{escape(widget.value)}</textarea>'
        head = _open(widget, kind, "widget-inline-hbox", "widget-textarea")
    else:
        box = f'<input type="text" class="widget-input" value="{attr(widget.value)}"{extra}>'
        head = _open(widget, kind, "widget-inline-hbox", "widget-text")
    return f"{head}{_label(widget)}{box}</div>"


def _number(widget: Any) -> str:
    box = (
        f'<input type="number" class="widget-input" value="{attr(widget.value)}" '
        f'min="{attr(widget.min)}" max="{attr(widget.max)}" step="{attr(widget.step or 1)}"'
        f"{_disabled(widget)}>"
    )
    head = _open(widget, "number", "widget-inline-hbox", "widget-text")
    return f"{head}{_label(widget)}{box}</div>"


def _slider(widget: Any) -> str:
    box = (
        f'<div class="slider-container"><input type="range" class="widget-range" '
        f'value="{attr(widget.value)}" min="{attr(widget.min)}" max="{attr(widget.max)}" '
        f'step="{attr(widget.step)}"{_disabled(widget)}></div>'
    )
    readout = f'<div class="widget-readout">{escape(str(widget.value))}</div>'
    head = _open(widget, "number", "widget-inline-hbox", "widget-slider", "widget-hslider")
    return f"{head}{_label(widget)}{box}{readout if widget.readout else ''}</div>"


def _dropdown(widget: Any) -> str:
    options = "".join(
        f'<option value="{i}"{" selected" if widget.index == i else ""}>{escape(label)}</option>'
        for i, label in enumerate(widget._options_labels)
    )
    head = _open(widget, "select", "widget-inline-hbox", "widget-dropdown")
    return f"{head}{_label(widget)}<select{_disabled(widget)}>{options}</select></div>"


def _checkbox(widget: w.Checkbox) -> str:
    checked = " checked" if widget.value else ""
    head = _open(widget, "check", "widget-inline-hbox", "widget-checkbox")
    return (
        f'{head}<label class="widget-label-basic"><input type="checkbox"{checked}'
        f"{_disabled(widget)}><span>{escape(widget.description)}</span></label></div>"
    )


def _html(widget: w.HTML | w.Label) -> str:
    # An HTML widget's value is HTML (escaped by nb_hitl's renderers); a Label's is text.
    value = widget.value if isinstance(widget, w.HTML) else escape(widget.value)
    head = _open(widget, "html", "widget-inline-hbox", "widget-html")
    return f'{head}{_label(widget)}<div class="widget-html-content">{value}</div></div>'


def render(widget: w.Widget, child: Callable[[w.Widget], str]) -> str:
    """The element of ``widget``; ``child(c)`` draws each child of a box."""
    if isinstance(widget, anywidget.AnyWidget):
        # Its own module draws it (and applies its classes, as for any host without
        # ipywidgets' view): only the element to mount it in.
        return (
            f'<div class="nb-hitl-hosted" data-nbw="{attr(widget.model_id)}" '
            'data-kind="anywidget"></div>'
        )
    if isinstance(widget, w.Box):
        box = "widget-vbox" if isinstance(widget, w.VBox) else "widget-hbox"
        if type(widget) is w.Box:
            box = "widget-hbox"
        inner = "".join(child(c) for c in widget.children)
        return _open(widget, "box", "widget-container", "widget-box", box) + inner + "</div>"
    if isinstance(widget, w.ToggleButton):
        return _toggle(widget)
    if isinstance(widget, w.Button):
        return _button(widget)
    if isinstance(widget, w.ToggleButtons):
        return _toggles(widget)
    if isinstance(widget, w.Textarea):
        return _text(widget, "text")
    if isinstance(widget, w.Text):
        return _text(widget, "text")
    if isinstance(widget, (w.BoundedIntText, w.IntText, w.BoundedFloatText, w.FloatText)):
        return _number(widget)
    if isinstance(widget, (w.IntSlider, w.FloatSlider)):
        return _slider(widget)
    if isinstance(widget, (w.Dropdown, w.Select)):
        return _dropdown(widget)
    if isinstance(widget, w.Checkbox):
        return _checkbox(widget)
    if isinstance(widget, (w.HTML, w.Label)):
        return _html(widget)
    name = escape(type(widget).__name__)
    return _open(widget, "other", "nb-hitl-unsupported") + f"({name} is not drawn in marimo)</div>"


__all__ = ["LAYOUT_KEYS", "attr", "layout_style", "render"]
