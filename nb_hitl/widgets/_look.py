"""Shared looks: one frozen ``Layout`` and one frozen style of each kind for many widgets.

Every ipywidget opens a comm, and most open two more for their ``Layout`` and ``Style``;
a panel opened ~164 comms, and under JupyterLab's ``commsOverSubshells=perComm`` each comm
is a kernel thread. Widgets that nb_hitl never restyles (a button's look comes from its
classes and ``button_style``, not its ``style``) take their ``layout`` and ``style`` from
``look(cls)``: one instance per kind, shared. A shared one is frozen: changing it would
restyle every widget sharing it, so it refuses with an error that says what to do (give the
widget its own: ``widget.layout = ipywidgets.Layout(width="20em")``); ``own_layout(widget)``
does that for code that shows and hides a widget. Widgets whose layout nb_hitl changes keep
their own (``look(cls, layout=False)``, or a ``layout=`` of their own).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from nb_hitl.exceptions import SharedLookError

SHARED = True
"""Whether ``look`` shares (``False``: every widget gets its own, as before; for benches)."""

_INSTANCES: dict[tuple[type, tuple[tuple[str, Any], ...]], w.Widget] = {}
_FROZEN: dict[type, type] = {}


class _Frozen:
    """Refuses changes to synced traits once built (a mix-in for Layout and styles)."""

    _nb_hitl_frozen = False

    def __setattr__(self, name: str, value: Any) -> None:
        if self._nb_hitl_frozen and name in self.keys:  # type: ignore[attr-defined]
            kind = "layout" if isinstance(self, w.Layout) else "style"
            own = "ipywidgets.Layout" if kind == "layout" else type(self).__mro__[2].__name__
            raise SharedLookError(
                f"This {kind} is shared by several nb_hitl widgets (one comm for all), so "
                f"changing {name!r} would change them all. Give the widget its own first: "
                f"widget.{kind} = {own}({name}={value!r})."
            )
        super().__setattr__(name, value)


def _frozen_class(cls: type) -> type:
    frozen = _FROZEN.get(cls)
    if frozen is None:
        frozen = _FROZEN[cls] = type(f"Shared{cls.__name__}", (_Frozen, cls), {})
    return frozen


def shared(cls: type, **values: Any) -> w.Widget:
    """The one frozen ``cls`` (a ``Layout`` or a style class) with ``values``, made on first use."""
    key = (cls, tuple(sorted(values.items())))
    found = _INSTANCES.get(key)
    if found is None or found.comm is None:  # none yet, or closed (``Widget.close_all()``)
        found = _INSTANCES[key] = _frozen_class(cls)(**values)
        found._nb_hitl_frozen = True
    return found


Part = bool | dict[str, Any]
"""``True``: the shared default; a dict: the shared one with those values; ``False``: none."""


def look(cls: type[w.DOMWidget], *, layout: Part = True, style: Part = True) -> dict[str, w.Widget]:
    """``layout=`` and ``style=`` arguments for a ``cls`` widget that nb_hitl never restyles.

    ``layout=False``: the widget keeps a layout of its own (its code shows or hides it);
    ``layout={"width": "auto"}``: it shares the frozen layout with those values.
    """
    trait = cls.class_traits().get("style")
    klass = getattr(trait, "klass", None)
    parts: dict[str, tuple[type, Part]] = {"layout": (w.Layout, layout)}
    if isinstance(klass, type) and issubclass(klass, w.Widget):
        parts["style"] = (klass, style)
    out: dict[str, w.Widget] = {}
    for name, (kind, part) in parts.items():
        values = part if isinstance(part, dict) else {}
        if part is False or (not SHARED and not values):
            continue  # the widget makes its own default
        out[name] = shared(kind, **values) if SHARED else kind(**values)
    return out


def is_shared(part: w.Widget) -> bool:
    """Whether ``part`` (a widget's layout or style) is a shared, frozen one."""
    return isinstance(part, _Frozen)


def own_layout(widget: w.DOMWidget) -> w.Layout:
    """``widget``'s layout, first made its own if it was the shared one (one more comm)."""
    old = widget.layout
    if is_shared(old):
        widget.layout = w.Layout(**{k: getattr(old, k) for k in old.keys if k[0] != "_"})
    layout: w.Layout = widget.layout
    return layout


def set_display(widget: w.DOMWidget, display: str) -> None:
    """Show (``""``) or hide (``"none"``) ``widget``; it gets a layout of its own only when its
    shared one says otherwise (a widget that is never shown never costs a comm)."""
    if (widget.layout.display or "") != display:
        own_layout(widget).display = display


def forget() -> None:
    """Drop the shared instances (the next ``look`` makes new ones)."""
    _INSTANCES.clear()


__all__ = ["SHARED", "forget", "is_shared", "look", "own_layout", "set_display", "shared"]
