"""Small shared pieces of the panels' rows: an ``HTML`` widget sharing its look with its
peers (``html``), and the compact line a streaming message's thinking and tool-call blocks
show as (``live_extras``; in full once the message is final)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as w
from ipywidgets.widgets.widget_string import HTMLStyle

from nb_hitl._render import TOOL_GLYPH, esc

from ._look import shared

if TYPE_CHECKING:
    from nb_hitl.message import Msg


def html(value: str = "", classes: tuple[str, ...] = ()) -> w.HTML:
    """An ``HTML`` widget sharing one layout and one style with its peers.

    A fresh ``HTML`` opens three comms (itself, a layout, a style); sharing makes it one.
    ``classes`` go in the widget's opening message (``add_class`` afterwards sends another).
    """
    return w.HTML(
        value, layout=shared(w.Layout), style=shared(HTMLStyle), _dom_classes=tuple(classes)
    )


def shared_layout() -> w.Layout:
    """The empty ``Layout`` rows share (a widget of its own would open one more comm)."""
    layout: w.Layout = shared(w.Layout)
    return layout


def box(children: tuple[w.Widget, ...] = ()) -> w.VBox:
    """A ``VBox`` sharing one layout with its peers."""
    return w.VBox(children=children, layout=shared(w.Layout))


def live_extras(msg: Msg) -> str:
    """Thinking and tool-call blocks of a streaming message, as one compact line each."""
    parts = []
    for b in msg.get_content_blocks():
        if b.type == "thinking":
            parts.append(f'<div class="nb-hitl-tool">thinking… ({len(b.thinking):,} chars)</div>')
        elif b.type == "tool_use":
            state = "arguments streaming…" if b.raw_input is not None else "ready"
            tool = f"{TOOL_GLYPH} <code>{esc(b.name)}</code> ({state})"
            parts.append(f'<div class="nb-hitl-tool">{tool}</div>')
    return "".join(parts)


__all__ = ["box", "html", "live_extras", "shared_layout"]
